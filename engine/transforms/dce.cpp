// dce: FX's Graph.eliminate_dead_code, which post_grad_passes runs first and the partitioner
// applies implicitly. Unused nodes without side effects are erased, last first, so that chains
// of dead nodes go in one sweep. Random and in-place ops stay (FX's is_impure).
#include "pass/pass.h"
#include "rewrite/rewriter.h"
#include "transforms/passes.h"

namespace fxray {

namespace {

class DeadCodeEliminationPass : public Pass {
public:
    DeadCodeEliminationPass() { m_erased = declareStatistic("erased", "dead nodes erased"); }
    std::string_view name() const override { return "dce"; }
    std::string_view summary() const override {
        return "erase nodes whose values are never used (random and in-place ops are kept)";
    }
    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        Rewriter rw(g, ctx);
        std::vector<Node*> nodes;
        for (const auto& n : g.nodes()) nodes.push_back(n.get());
        bool changed = false;
        for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
            Node* n = *it;
            // get_attr of a subgraph is how higher-order ops reach their bodies: unused ones go too.
            if (rw.eraseIfDead(n)) {
                bump(m_erased);
                changed = true;
            }
        }
        return PassResult::success(changed);
    }

private:
    size_t m_erased = 0;
};

}  // namespace

std::unique_ptr<Pass> createDeadCodeEliminationPass() { return std::make_unique<DeadCodeEliminationPass>(); }

}  // namespace fxray
