// remove_eval_dropout (pre-grad, torch-level graphs): `torch.nn.functional.dropout(x, p,
// training=False)` and dropout with p == 0 return their input; their uses are rewired to x.
// PyTorch's pre_grad_passes do not do this themselves: with the default configuration they
// leave every corpus graph unchanged (the corpus traces' before_pre_grad_graph and
// after_pre_grad_graph are identical), and an eval dropout disappears later, when AOT autograd
// traces it to nothing. Doing it before lowering keeps the lowered graph free of the identity.
// PyTorch's optional pre-grad fusions (split/cat normalisation and merging, group batch fusion,
// the permute/linear fusions of fuse_fx) are enabled only through pre_grad_fusion_options and
// are not ported.
#include "rewrite/rewriter.h"
#include "transforms/pass_util.h"
#include "transforms/passes.h"

namespace fxray {

namespace {

using namespace passutil;

class RemoveEvalDropoutPass : public Pass {
public:
    RemoveEvalDropoutPass() { m_removed = declareStatistic("removed", "dropouts that are identities removed"); }
    std::string_view name() const override { return "remove_eval_dropout"; }
    std::string_view summary() const override {
        return "pre-grad: remove torch.nn.functional.dropout calls with training=False or p=0 (PyTorch leaves them to "
               "AOT tracing; its optional split/cat, batch and permute fusions are not ported)";
    }
    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        Rewriter rw(g, ctx);
        std::vector<Node*> drops;
        for (const auto& n : g.nodes())
            if (n->kind() == NodeKind::CallFunction &&
                (n->target() == "torch.nn.functional.dropout" || n->target() == "torch.dropout" ||
                 n->target() == "torch.nn.functional.dropout1d" || n->target() == "torch.nn.functional.dropout2d"))
                drops.push_back(n.get());
        size_t removed = 0;
        for (Node* n : drops) {
            auto arg = [&](size_t pos, const char* key) -> const Argument* {
                if (n->args.size() > pos) return &n->args[pos];
                return n->kwarg(key);
            };
            const Argument* x = arg(0, "input");
            const Argument* p = arg(1, "p");
            const Argument* training = arg(2, n->target() == "torch.dropout" ? "train" : "training");
            const Argument* inplace = arg(3, "inplace");
            if (!x || !x->isNode()) continue;
            // F.dropout's defaults: p=0.5, training=True.
            auto pv = p ? asNumber(*p) : std::optional<double>(0.5);
            bool train = training ? (training->kind == Argument::Kind::Bool ? training->b : true) : true;
            if (inplace && inplace->kind == Argument::Kind::Bool && inplace->b) {
                ctx.notifyMatchFailure("eval_dropout", *n, "in-place dropout is kept");
                continue;
            }
            if (train && !(pv && *pv == 0.0)) continue;  // a real dropout
            rw.setPattern("eval_dropout");
            rw.replaceAllUsesWith(n, x->node);
            std::string name = n->name();
            rw.erase(n);
            rw.setPattern("");
            ctx.recordMatch("eval_dropout", {name});
            ++removed;
        }
        bump(m_removed, int64_t(removed));
        return PassResult::success(removed > 0);
    }

private:
    size_t m_removed = 0;
};

}  // namespace

std::unique_ptr<Pass> createRemoveEvalDropoutPass() { return std::make_unique<RemoveEvalDropoutPass>(); }

}  // namespace fxray
