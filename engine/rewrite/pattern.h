#pragma once
/// Patterns in the spirit of PyTorch's `register_replacement`: a search graph and a replacement
/// graph, each written as FX text (parsed with readFxText) or built in C++, plus an extra check.
///
/// Search graph conventions:
///  - placeholders are the pattern's inputs (PyTorch's KeywordArg): each binds to whatever the
///    graph has there, a node or a literal, and every use must bind the same thing;
///  - a placeholder whose name starts with `_` is a wildcard (PyTorch's Ignored): sizes of
///    views, dims, anything the extra check validates instead of the text;
///  - the output tuple lists the pattern's outputs; more than one makes a multi-output pattern
///    (the joint forward+backward attention patterns return the output and the gradients);
///  - a placeholder no search node uses is a derived input: the extra check binds it (a scale
///    computed from an inverse scale) for the replacement to use.
/// Arguments are compared after normalisation through the op schema (positional vs keyword,
/// defaults filled), so `clone(x)` matches `clone(x, memory_format=None)`.
///
/// The replacement graph's placeholders take the bindings of the same name; its outputs replace
/// the search outputs one for one. New nodes get metadata from their ops' meta functions.
#include "ir/graph.h"
#include "support/diagnostic.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace fxray {

class Rewriter;
struct Match;

/// How a pattern matches beyond exact structure.
struct PatternOptions {
    /// Value-preserving ops in the graph (clone, alias, detach, contiguous, expand to the same
    /// shape, a dtype conversion to the same dtype) are looked through: PyTorch gets the same
    /// effect by tracing one pattern per layout variant (the `_bs1` and clone variants).
    bool lookThroughIdentity = false;
    /// view, _unsafe_view and reshape match each other (value-wise the same op).
    bool viewsEquivalent = false;
    /// Record rejected candidates as near-misses. Off for one-node patterns whose check fails
    /// at nearly every node of their op (pointless_view would list every view).
    bool reportNearMisses = true;
};

/// Checks a structural match beyond what the text can say; may add derived bindings (a scale
/// computed from an inverse scale). Returns the rejection reason, or nullopt to accept.
using ExtraCheck = std::function<std::optional<std::string>(Match&)>;
/// Replaces a match in C++ instead of instantiating a replacement graph. Returns the nodes
/// created, or a Diagnostic (the rewriter's changes must then have been undone by the callee).
using ReplaceFn = std::function<Status(Match&, Rewriter&)>;

/// One pattern.
struct Pattern {
    std::string name;
    std::shared_ptr<const Graph> search;
    std::shared_ptr<const Graph> replacement;  ///< null when replaceFn is used
    PatternOptions options;
    ExtraCheck extraCheck;
    ReplaceFn replaceFn;

    /// The search graph's output nodes, in order.
    std::vector<const Node*> outputs() const;
    /// Non-placeholder, non-output nodes of the search graph.
    size_t callNodeCount() const;
};

/// Builds a pattern from FX text (`class P(torch.nn.Module): def forward(self, a, b): ...`).
/// An empty replacementText means the caller sets replaceFn. Fails with the reader's
/// Diagnostic, or when the search graph has an op that is not registered.
Expected<Pattern> patternFromFxText(std::string name, std::string_view searchText, std::string_view replacementText,
                                    PatternOptions opts = {});

/// Builds a pattern from graphs built in C++ (Graph::append and friends): resolves their ops and
/// checks them as patternFromFxText does. `replacement` may be null (the caller sets replaceFn).
Expected<Pattern> patternFromGraphs(std::string name, std::unique_ptr<Graph> search, std::unique_ptr<Graph> replacement,
                                    PatternOptions opts = {});

/// A successful structural match.
struct Match {
    const Pattern* pattern = nullptr;
    /// Placeholder name -> what it bound to in the graph (a NodeRef or a literal).
    std::unordered_map<std::string, Argument> bindings;
    /// Search node -> graph node, for every call node of the search graph.
    std::unordered_map<const Node*, Node*> map;
    /// Graph nodes matched to the search graph's outputs, in order.
    std::vector<Node*> outputs;
    /// Every graph node the match covers (images of search nodes and looked-through nodes).
    std::vector<Node*> nodes;
    /// Value-preserving wrappers stripped from inputs (erased afterwards when unused).
    std::vector<Node*> strippedInputs;

    /// The graph node matched to the search node named `searchName`, or null.
    Node* image(std::string_view searchName) const;
    /// The binding of placeholder `name`, or null.
    const Argument* binding(std::string_view name) const;
    /// The node bound to placeholder `name`, or null (absent, or bound to a literal).
    Node* boundNode(std::string_view name) const;
};

/// The outcome of trying one pattern at one anchor node.
struct MatchAttempt {
    std::optional<Match> match;
    std::string reason;    ///< why it failed (at the deepest point reached)
    std::string failedAt;  ///< graph node where it failed
    size_t progress = 0;   ///< search nodes matched at the deepest point
    size_t total = 0;      ///< search call nodes
};

/// Arguments of a call node normalised through its op's schema: one per schema argument,
/// keyword arguments moved into place, defaults filled. Other nodes: args then kwargs values.
std::vector<Argument> normalizedArgs(const Node& n);

/// Whether graph node n is a value-preserving op (see PatternOptions::lookThroughIdentity);
/// returns its input then.
Node* identityInput(const Node& n);

/// Tries `p` with its first output anchored at graph node `anchor`.
MatchAttempt matchPattern(const Pattern& p, Node* anchor);

/// Whether graph node n could be the image of search node s by its op alone (cheap filter).
bool targetMatches(const Pattern& p, const Node& s, const Node& n);

}  // namespace fxray
