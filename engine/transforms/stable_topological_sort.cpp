// stable_topological_sort: pattern_matcher.stable_topological_sort, run at the end of
// joint_graph_passes when anything changed. Nodes already after their inputs keep their order;
// a node that comes before one of its inputs moves to just after it.
#include "pass/pass.h"
#include "rewrite/pattern_rewriter.h"
#include "transforms/passes.h"

namespace fxray {

namespace {

class StableTopologicalSortPass : public Pass {
public:
    std::string_view name() const override { return "stable_topological_sort"; }
    std::string_view summary() const override {
        return "reorder nodes so that every node follows its inputs, moving as few as possible";
    }
    PassResult runOnGraph(Graph& g, PassContext&) override {
        bool moved = stableTopologicalSort(g);
        g.rebuildUsers();
        return PassResult::success(moved);
    }
};

}  // namespace

std::unique_ptr<Pass> createStableTopologicalSortPass() { return std::make_unique<StableTopologicalSortPass>(); }

}  // namespace fxray
