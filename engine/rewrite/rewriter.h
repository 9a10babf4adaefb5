#pragma once
/// The rewriter: every graph mutation a pass makes goes through it, so that each one is recorded
/// as a provenance event (created / replaced / erased, with the pass and pattern names) and the
/// graph's user lists stay correct without a full rebuild after every change.
#include "ir/graph.h"
#include "pass/pass.h"

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace fxray {

/// Computes a node's output metadata from its inputs' metadata with the op's meta function
/// (what PyTorch's fake-tensor propagation gives a replacement node). `operator.getitem` takes
/// the element of its tuple input. Fails naming the node when an input has no metadata or the
/// op has no shape rule.
Status inferNodeMeta(Node& n);

/// FX's name for a node calling `qualname`: "aten.mm.default" -> "mm_default",
/// "aten.add.Tensor" -> "add_tensor" (so that our new nodes read like PyTorch's).
std::string fxNameForOp(std::string_view qualname);

/// Mutation API with provenance. Keeps Node::users up to date incrementally; Node::index is
/// refreshed by order() when a caller needs positions.
class Rewriter {
public:
    Rewriter(Graph& g, PassContext& ctx) : m_g(g), m_ctx(ctx) {}

    Graph& graph() { return m_g; }
    PassContext& context() { return m_ctx; }
    /// Pattern name attached to the events that follow ("" outside patterns).
    void setPattern(std::string name) { m_pattern = std::move(name); }
    const std::string& pattern() const { return m_pattern; }

    /// Creates `torch.ops.<qualname>(args, kwargs)` before `pos` (null: before the output) and
    /// infers its metadata. Fails (creating nothing) when the op is unknown or inference fails.
    Expected<Node*> createOp(Node* pos, std::string_view qualname, std::vector<Argument> args,
                             std::vector<std::pair<std::string, Argument>> kwargs = {}, std::string_view nameHint = {});
    /// `tuple[i]` (operator.getitem) before pos, with the element's metadata.
    Node* createGetItem(Node* pos, Node* tuple, int64_t i, std::string_view nameHint = {});
    /// Copies node `src` of another graph before pos, remapping its inputs through `map`
    /// (search/replacement graphs instantiate this way). Metadata is inferred, not copied.
    Expected<Node*> importNode(const Node& src, Node* pos, const std::unordered_map<const Node*, Argument>& map);

    /// Every use of `from` now uses `to` (the output node included). `to` keeps its own inputs.
    void replaceAllUsesWith(Node* from, Node* to);
    /// Replaces uses of `from` by `to` only in `user`.
    void replaceUsesIn(Node* user, Node* from, Node* to);
    /// Removes a node that has no users.
    void erase(Node* n);
    /// Erases n if it has no users and no side effects; returns whether it did.
    bool eraseIfDead(Node* n);
    /// Moves n before pos (null: before the output node).
    void moveBefore(Node* n, Node* pos);

    /// Renumbers Node::index in graph order (call before comparing positions).
    void order() { m_g.renumber(); }
    /// Whether n was erased by this rewriter (for callers iterating a node list copied before).
    bool isErased(const Node* n) const { return m_erased.count(n) > 0; }
    /// Nodes created so far (names), in creation order.
    const std::vector<std::string>& createdNames() const { return m_created; }
    size_t mutations() const { return m_mutations; }

private:
    void event(ProvenanceEvent::Kind k, const std::string& node, std::string other = {}, std::string target = {});
    void addUses(Node* n);

    Graph& m_g;
    PassContext& m_ctx;
    std::string m_pattern;
    std::unordered_set<const Node*> m_erased;
    std::vector<std::string> m_created;
    size_t m_mutations = 0;
};

/// Ops that must not be removed even when unused: random ops (PyTorch's `is_impure` treats
/// nondeterministic_seeded ops as impure), in-place ops, and non-op calls we cannot judge.
bool hasSideEffects(const Node& n);

}  // namespace fxray
