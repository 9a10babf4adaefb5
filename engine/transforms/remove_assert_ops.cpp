// remove_assert_ops: post_grad.remove_assert_ops. aten._assert_tensor_metadata (from aten.to
// functionalisation in export) is lowered to nothing by Inductor and blocks fusion decisions.
#include "pass/pass.h"
#include "rewrite/rewriter.h"
#include "transforms/passes.h"

namespace fxray {

namespace {

class RemoveAssertOpsPass : public Pass {
public:
    std::string_view name() const override { return "remove_assert_ops"; }
    std::string_view summary() const override {
        return "erase aten._assert_tensor_metadata (Inductor lowers it to nothing)";
    }
    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        Rewriter rw(g, ctx);
        std::vector<Node*> nodes;
        for (const auto& n : g.nodes())
            if (n->isOpCall() && n->opName() == "aten._assert_tensor_metadata.default" && n->users.empty())
                nodes.push_back(n.get());
        for (Node* n : nodes) {
            ctx.recordMatch("remove_assert_ops", {n->name()});
            rw.erase(n);
        }
        return PassResult::success(!nodes.empty());
    }
};

}  // namespace

std::unique_ptr<Pass> createRemoveAssertOpsPass() { return std::make_unique<RemoveAssertOpsPass>(); }

}  // namespace fxray
