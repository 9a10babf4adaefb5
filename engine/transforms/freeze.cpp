// freeze: PyTorch's replace_params_with_constants (torch/_inductor/freezing.py). Each
// placeholder that is a parameter or buffer the graph does not mutate becomes a get_attr of a
// `_frozen_paramN` constant holding its value, keeping the placeholder's name; the inputs left
// (user inputs and mutated buffers) are the preserved inputs, in order — PyTorch's
// `preserved_arg_indices`, which the trace reports as the match `preserved_inputs`.
#include "ir/op_registry.h"
#include "rewrite/rewriter.h"
#include "transforms/freezing.h"
#include "transforms/passes.h"

namespace fxray {

namespace {

/// Whether some node writes into n (an in-place op or copy_ with n as its destination).
bool mutated(const Node& n) {
    for (const Node* u : n.users) {
        const OpInfo* op = u->op();
        if (op && op->inplace && !u->args.empty() && u->args[0].isNode() && u->args[0].node == &n) return true;
    }
    return false;
}

class FreezePass : public Pass {
public:
    explicit FreezePass(std::shared_ptr<const FreezeInputs> in) : m_in(std::move(in)) {
        m_frozen = declareStatistic("frozen", "parameters inlined as constants");
        m_preserved = declareStatistic("preserved", "inputs kept as graph inputs");
    }
    std::string_view name() const override { return "freeze"; }
    std::string_view summary() const override {
        return "inline unmutated parameters and buffers as _frozen_param constants; the other inputs are preserved "
               "(PyTorch knows the parameters from its tracing context, fxray from the caller: the Dynamo graph's "
               "input names and recorded values)";
    }
    bool recurseIntoSubgraphs() const override { return false; }

    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        if (!m_in || m_in->params.empty()) {
            // Without values there is nothing to inline; the other freezing passes still fold
            // whatever constants the graph already has.
            std::vector<std::string> all;
            for (Node* p : g.placeholders()) all.push_back(p->name());
            ctx.recordMatch("preserved_inputs", all);
            return PassResult::success(false);
        }
        Rewriter rw(g, ctx);
        std::vector<std::string> preserved, frozen, targets;
        for (Node* ph : g.placeholders()) {
            auto it = m_in->params.find(ph->name());
            if (it == m_in->params.end() || mutated(*ph)) {
                preserved.push_back(ph->name());
                continue;
            }
            const TensorMeta* pm = ph->meta.size() == 1 ? &ph->meta[0] : nullptr;
            if (!pm || pm->shape != it->second.meta.shape || pm->dtype != it->second.meta.dtype)
                return PassResult::failure("the value given for parameter '" + ph->name() + "' is " +
                                           it->second.meta.annotation(false, false) + ", the input is " +
                                           (pm ? pm->annotation(false, false) : std::string("not a tensor")));
            const std::string name = ph->name();
            g.rename(ph, g.uniqueName(name + "_param"));
            Node* c = addConstantNode(g, rw, it->second, name);
            c->meta = ph->meta;
            c->sourceComment.clear();
            rw.replaceAllUsesWith(ph, c);
            rw.erase(ph);
            frozen.push_back(c->name());
            targets.push_back(c->target());
        }
        ctx.recordMatch("preserved_inputs", preserved);
        if (!frozen.empty()) ctx.recordMatch("frozen_params", frozen, targets);
        bump(m_frozen, int64_t(frozen.size()));
        bump(m_preserved, int64_t(preserved.size()));
        return PassResult::success(!frozen.empty());
    }

private:
    std::shared_ptr<const FreezeInputs> m_in;
    size_t m_frozen = 0, m_preserved = 0;
};

}  // namespace

std::unique_ptr<Pass> createFreezePass(std::shared_ptr<const FreezeInputs> in) {
    return std::make_unique<FreezePass>(std::move(in));
}

}  // namespace fxray
