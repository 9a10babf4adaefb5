// cse: functorch's fx_graph_cse (run on the joint graph before partitioning) and Inductor's
// post-grad CSE. Two calls of the same target on the same arguments (node references after
// earlier merges, literals compared with their Python type, so 1 and 1.0 differ) are merged
// into the first. Random ops, in-place ops and nodes mutated in place are never merged.
#include "ir/op_registry.h"
#include "pass/pass.h"
#include "rewrite/rewriter.h"
#include "transforms/passes.h"

#include <unordered_map>

namespace fxray {

namespace {

bool mutatedLater(const Node& n) {
    for (const Node* u : n.users)
        if (u->op() && u->op()->inplace && !u->args.empty() && u->args[0].isNode() && u->args[0].node == &n)
            return true;
    return false;
}

class CommonSubexpressionEliminationPass : public Pass {
public:
    CommonSubexpressionEliminationPass() {
        m_merged = declareStatistic("merged", "nodes merged into an earlier identical node");
    }
    std::string_view name() const override { return "cse"; }
    std::string_view summary() const override {
        return "merge identical calls (same target, same arguments); random and in-place ops are kept apart";
    }
    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        Rewriter rw(g, ctx);
        std::unordered_map<std::string, Node*> seen;
        std::vector<Node*> nodes;
        for (const auto& n : g.nodes()) nodes.push_back(n.get());
        bool changed = false;
        for (Node* n : nodes) {
            if (n->kind() != NodeKind::CallFunction || hasSideEffects(*n) || mutatedLater(*n)) continue;
            std::string key = n->target();
            key += '(';
            for (const auto& a : n->args) key += a.repr() + ",";
            for (const auto& [k, v] : n->kwargs) key += k + "=" + v.repr() + ",";
            auto [it, fresh] = seen.emplace(std::move(key), n);
            if (fresh) continue;
            Node* keep = it->second;
            std::string name = n->name();
            rw.replaceAllUsesWith(n, keep);
            rw.erase(n);
            ctx.recordMatch("cse", {name, keep->name()});
            bump(m_merged);
            changed = true;
        }
        return PassResult::success(changed);
    }

private:
    size_t m_merged = 0;
};

}  // namespace

std::unique_ptr<Pass> createCommonSubexpressionEliminationPass() {
    return std::make_unique<CommonSubexpressionEliminationPass>();
}

}  // namespace fxray
