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

/// Python arithmetic on SymInts, which AOT graphs of dynamic shapes keep beside their ATen ops
/// (`mul_6: "Sym(s27*s77)" = primals_1 * primals_2`, `torch.sym_max`, `math.floor`): a scalar
/// result, nothing to lower.
bool isSymScalarCall(const Node& n) {
    if (n.kind() != NodeKind::CallFunction || !n.meta.empty()) return false;
    const std::string& t = n.target();
    for (const char* p : {"operator.", "math.", "torch.sym_", "torch._sym_"})
        if (t.rfind(p, 0) == 0) return true;
    return false;
}

/// Every call is an ATen (or other torch.ops) op, a getitem, or SymInt arithmetic: an ATen graph
/// that looks torch-level only for its size arithmetic.
bool atenWithSymArithmetic(const Graph& g) {
    for (const auto& n : g.nodes()) {
        if (n->kind() == NodeKind::CallMethod || n->kind() == NodeKind::CallModule) return false;
        if (n->kind() != NodeKind::CallFunction) continue;
        const std::string& t = n->target();
        if (t.rfind("torch.ops.", 0) != 0 && t != "operator.getitem" && !isSymScalarCall(*n)) return false;
    }
    for (const auto& [k, sub] : g.subgraphs())
        if (!atenWithSymArithmetic(*sub)) return false;
    return true;
}

class LowerToAtenPass : public Pass {
public:
    std::string_view name() const override { return "lower_to_aten"; }
    std::string_view summary() const override {
        return "lower torch-level (Dynamo) calls to ATen ops, as AOT autograd's tracing does (without building the "
               "joint graph, and without PyTorch's functionalization of in-place calls beyond what the lowering "
               "covers)";
    }
    bool recurseIntoSubgraphs() const override { return false; }
    PassResult runOnGraph(Graph& g, PassContext&) override {
        if (!isTorchLevel(g) || atenWithSymArithmetic(g)) return PassResult::success(false);
        Status st = lowerToAten(g);
        resolveOps(g);
        (void)inferMeta(g);
        g.rebuildUsers();
        if (!st.ok()) return PassResult::failure("lowering stopped: " + st.error().str());
        return PassResult::success(true);
    }
};

}  // namespace

std::unique_ptr<Pass> createLowerToAtenPass() { return std::make_unique<LowerToAtenPass>(); }

}  // namespace fxray
