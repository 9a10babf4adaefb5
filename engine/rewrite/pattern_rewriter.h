#pragma once
/// Applying patterns: replacing a match with its replacement graph, the driver that walks a
/// graph trying a list of patterns (PyTorch's PatternMatcherPass.apply), and a Pass wrapping it.
#include "pass/pass.h"
#include "rewrite/pattern.h"
#include "rewrite/rewriter.h"

#include <string>
#include <vector>

namespace fxray {

/// Instantiates the pattern's replacement graph for a match: new nodes go right after their
/// latest input, outputs are checked against the originals (dtype and shape must agree; a
/// different layout where a downstream view depends on it gets a stride-restoring copy), uses
/// are rewired, matched nodes erased, and downstream metadata refreshed. On failure nothing
/// has changed and the Diagnostic says why.
Status replaceWithGraph(Match& m, Rewriter& rw);

/// Tries every pattern at every node, last node first; each match is replaced at once and
/// recorded (MatchRecord), rejected candidates that got far are recorded as near-misses.
/// Returns the number of replacements.
size_t applyPatterns(const std::vector<const Pattern*>& patterns, Rewriter& rw);

/// Recomputes the metadata of n's users (transitively) after n's metadata changed; stops where
/// nothing changes. Nodes whose op cannot be inferred keep their metadata.
void refreshDownstreamMeta(Node* n);

/// PyTorch's stable_topological_sort: keeps the order of nodes whose inputs come first, and
/// moves each other node to just after its last input. Returns whether anything moved.
bool stableTopologicalSort(Graph& g);

/// A pass made of patterns (one PatternMatcherPass of PyTorch). One statistic per pattern.
class PatternRewritePass : public Pass {
public:
    PatternRewritePass(std::string name, std::string summary, std::vector<Pattern> patterns);
    std::string_view name() const override { return m_name; }
    std::string_view summary() const override { return m_summary; }
    PassResult runOnGraph(Graph& g, PassContext& ctx) override;
    const std::vector<Pattern>& patterns() const { return m_patterns; }

private:
    std::string m_name;
    std::string m_summary;
    std::vector<Pattern> m_patterns;
};

}  // namespace fxray
