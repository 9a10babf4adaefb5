// lower_to_aten: the step between the pre-grad passes and the joint-graph passes. PyTorch gets
// an ATen graph from a Dynamo graph by tracing it under AOT autograd (functionalization and
// decompositions); fxray lowers the torch-level calls to ATen ops node by node with the same
// lowering the loader uses to execute Dynamo graphs (import/dynamo_lowering.h). On an ATen
// graph it does nothing. It does not build the joint forward+backward graph: `fxray autodiff`
// does, and the joint passes that follow run on the graph as given.
#include "exec/shape_inference.h"
#include "import/dynamo_lowering.h"
#include "transforms/passes.h"

namespace fxray {

namespace {

class LowerToAtenPass : public Pass {
public:
    std::string_view name() const override { return "lower_to_aten"; }
    std::string_view summary() const override {
        return "lower torch-level (Dynamo) calls to ATen ops, as AOT autograd's tracing does (without building the "
               "joint graph, and without PyTorch's functionalization of in-place calls beyond what the lowering covers)";
    }
    bool recurseIntoSubgraphs() const override { return false; }
    PassResult runOnGraph(Graph& g, PassContext&) override {
        if (!isTorchLevel(g)) return PassResult::success(false);
        Status st = lowerToAten(g);
        resolveOps(g);
        (void)inferMeta(g);
        g.rebuildUsers();
        if (!st.ok()) return PassResult::failure("lowering stopped: " + st.error().str());
        return PassResult::success(true);
    }
};

} // namespace

std::unique_ptr<Pass> createLowerToAtenPass() { return std::make_unique<LowerToAtenPass>(); }

} // namespace fxray
