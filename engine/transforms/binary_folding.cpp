// binary_folding: PyTorch's fx_passes/binary_folding.py (freezing). A convolution, addmm or mm
// with constant weight (and bias), used once, followed by add/sub/mul/div with a constant or a
// number, computes the binary op on the weight/bias instead:
//   conv + c -> conv with bias (B + c);      conv * c -> conv with W * c[:, None, ...], B * c
//   addmm/mm + c -> addmm with bias (b + c); addmm/mm * c -> weight W * c[None, :], b * c
// with PyTorch's broadcast checks (the constant must only vary along the output channels) and
// its dtype rule (no type promotion). PyTorch creates the reshaped constants and new weights as
// graph nodes and lets the next constant folding compute them, for up to four rounds; fxray
// computes them at once with the reference kernels, so a chain conv*a+b folds in one run.
// PyTorch's mixed-precision folding (fp16 conv followed by fp32 constants) is not ported.
#include "exec/exec_context.h"
#include "exec/interpreter.h"
#include "exec/ops/kernel_util.h"
#include "rewrite/rewriter.h"
#include "transforms/freezing.h"
#include "transforms/pass_util.h"
#include "transforms/passes.h"

namespace fxray {

namespace {

using namespace passutil;

Value ints(const std::vector<int64_t>& v) {
    std::vector<Value> out;
    for (int64_t x : v) out.push_back(Value::ofInt(x));
    return Value::ofList(std::move(out));
}

/// resize_scalar_or_tensor_to_shape: the constant as a tensor of `shape` (numbers and
/// one-element tensors are expanded, others reshaped).
Expected<Tensor> resized(const Value& other, const std::vector<int64_t>& shape, const TensorMeta& like) {
    Tensor t;
    if (other.isNumber()) {
        TensorMeta m = TensorMeta::contiguous({1}, like.dtype, like.device);
        t = kern::makeTensor(m, {other.toDouble()});
    } else {
        t = other.t;
    }
    if (t.numel() == 1) {
        auto r = evalConstantOp("aten.reshape.default", {Value::ofTensor(t), ints({1})});
        if (!r.ok()) return r;
        auto e = evalConstantOp("aten.expand.default", {Value::ofTensor(*r), ints(shape)});
        if (!e.ok()) return e;
        return evalConstantOp("aten.clone.default", {Value::ofTensor(*e)});
    }
    return evalConstantOp("aten.reshape.default", {Value::ofTensor(t), ints(shape)});
}

class BinaryFoldingPass : public Pass {
public:
    BinaryFoldingPass() { m_folded = declareStatistic("binary_folding", "binary ops folded into conv/linear weights"); }
    std::string_view name() const override { return "binary_folding"; }
    std::string_view summary() const override {
        return "fold add/sub/mul/div by a constant into the constant weight/bias of the preceding conv, addmm or mm "
               "(PyTorch's binary folding; its mixed-precision folding is not ported)";
    }

    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        Rewriter rw(g, ctx);
        size_t total = 0;
        for (int round = 0; round < 4; ++round) {
            std::vector<Node*> order;
            for (const auto& n : g.nodes()) order.push_back(n.get());
            size_t n = 0;
            for (Node* b : order)
                if (!rw.isErased(b)) n += tryFold(g, b, rw, ctx);
            total += n;
            if (n == 0) break;
        }
        bump(m_folded, int64_t(total));
        return PassResult::success(total > 0);
    }

private:
    bool tryFold(Graph& g, Node* bin, Rewriter& rw, PassContext& ctx) {
        const std::string bop = opOf(*bin);
        std::string kind;
        if (bop == "aten.add.Tensor")
            kind = "add";
        else if (bop == "aten.sub.Tensor")
            kind = "sub";
        else if (bop == "aten.mul.Tensor")
            kind = "mul";
        else if (bop == "aten.div.Tensor")
            kind = "div";
        else
            return false;
        if (bin->args.size() != 2 || !bin->args[0].isNode() || !bin->kwargs.empty()) return false;
        Node* comp = bin->args[0].node;
        const std::string cop = opOf(*comp);
        const bool conv = cop == "aten.convolution.default";
        const bool addmm = cop == "aten.addmm.default", mm = cop == "aten.mm.default";
        if (!conv && !addmm && !mm) return false;
        const std::string rule = "binary_folding";
        if (comp->users.size() != 1) return ctx.notifyMatchFailure(rule, *bin, "the " + cop + " has other users");
        if (addmm && !comp->kwargs.empty()) return ctx.notifyMatchFailure(rule, *bin, "addmm with beta/alpha");
        Node* wNode = comp->args.size() > (conv    ? 1u
                                           : addmm ? 2u
                                                   : 1u) &&
                              comp->args[conv    ? 1
                                         : addmm ? 2
                                                 : 1]
                                  .isNode()
                          ? comp->args[conv    ? 1
                                       : addmm ? 2
                                               : 1]
                                .node
                          : nullptr;
        const Tensor* W = constantValue(wNode);
        if (!W) return ctx.notifyMatchFailure(rule, *bin, "the weight is not a constant");
        if (wNode->users.size() != 1) return ctx.notifyMatchFailure(rule, *bin, "the weight is shared");
        Node* bNode = nullptr;
        const Tensor* B = nullptr;
        const Argument* biasArg = conv    ? (comp->args.size() > 2 ? &comp->args[2] : nullptr)
                                  : addmm ? &comp->args[0]
                                          : nullptr;
        if (biasArg && !biasArg->isNone()) {
            bNode = biasArg->isNode() ? biasArg->node : nullptr;
            B = constantValue(bNode);
            if (!B) return ctx.notifyMatchFailure(rule, *bin, "the bias is not a constant");
        }
        if (conv && comp->args.size() > 6 && comp->args[6].kind == Argument::Kind::Bool && comp->args[6].b)
            return ctx.notifyMatchFailure(rule, *bin, "transposed convolution");
        Value other;
        const Argument& oa = bin->args[1];
        if (oa.isNumber() && oa.kind != Argument::Kind::Bool) {
            other = oa.kind == Argument::Kind::Int ? Value::ofInt(oa.i) : Value::ofDouble(oa.f);
        } else if (const Tensor* c = oa.isNode() ? constantValue(oa.node) : nullptr) {
            other = Value::ofTensor(*c);
        } else {
            return ctx.notifyMatchFailure(rule, *bin, "the other operand is not a constant");
        }
        if (!isFloating(W->dtype())) return ctx.notifyMatchFailure(rule, *bin, "the weight is not floating point");
        if (other.isTensor()) {
            if (!isFloating(other.t.dtype()))
                return ctx.notifyMatchFailure(rule, *bin, "the constant is not floating point");
            if (kern::promoteTypes(other.t.dtype(), W->dtype()) != W->dtype())
                return ctx.notifyMatchFailure(rule, *bin, "the constant would promote the weight's dtype");
            const auto& ws = W->shape();
            const auto& os = other.t.shape();
            bool ok = true;
            if (conv) {
                // _op_not_broadcasting_with_conv
                if (ws.size() < os.size())
                    ok = false;
                else if (ws.size() == os.size() + 1) {
                    for (size_t i = 0; i < os.size(); ++i)
                        if (!(i == 0 && ws[0] == os[0]) && os[i] != 1) ok = false;
                } else {
                    for (size_t i = 0; i < os.size(); ++i)
                        if (!(i == 1 && ws[0] == os[1]) && os[i] != 1) ok = false;
                }
            } else {
                const int64_t n = ws.size() == 2 ? ws[1] : -1;
                ok = os == std::vector<int64_t>{n} || os == std::vector<int64_t>{1, n} ||
                     os == std::vector<int64_t>{1} || os == std::vector<int64_t>{1, 1};
            }
            if (!ok) return ctx.notifyMatchFailure(rule, *bin, "the constant broadcasts beyond the output channels");
        }
        if (!conv && W->dim() != 2) return false;
        const int64_t outC = conv ? W->shape()[0] : W->shape()[1];
        auto fail = [&](const Diagnostic& d) {
            return ctx.notifyMatchFailure(rule, *bin, "folding failed: " + d.str());
        };
        const std::string top = "aten." + kind + ".Tensor";
        Expected<Tensor> newW = *W;
        Expected<Tensor> newB = B ? Expected<Tensor>(*B) : Expected<Tensor>(makeError("no bias"));
        bool haveB = B != nullptr;
        if (kind == "add" || kind == "sub") {
            auto o = resized(other, {outC}, W->meta);
            if (!o.ok()) return fail(o.error());
            if (haveB)
                newB = evalConstantOp(top, {Value::ofTensor(*B), Value::ofTensor(*o)});
            else
                newB = kind == "add" ? Expected<Tensor>(*o) : evalConstantOp("aten.neg.default", {Value::ofTensor(*o)});
            if (!newB.ok()) return fail(newB.error());
            haveB = true;
        } else {
            std::vector<int64_t> wshape(size_t(W->dim()), 1);
            if (conv)
                wshape[0] = outC;
            else
                wshape[1] = outC;
            auto o1 = resized(other, wshape, W->meta);
            if (!o1.ok()) return fail(o1.error());
            newW = evalConstantOp(top, {Value::ofTensor(*W), Value::ofTensor(*o1)});
            if (!newW.ok()) return fail(newW.error());
            if (haveB) {
                auto o = resized(other, {outC}, W->meta);
                if (!o.ok()) return fail(o.error());
                newB = evalConstantOp(top, {Value::ofTensor(*B), Value::ofTensor(*o)});
                if (!newB.ok()) return fail(newB.error());
            }
        }
        rw.setPattern(rule);
        Node* nw = wNode;
        if (kind == "mul" || kind == "div") nw = addConstantNode(g, rw, *newW, "mul_tensor");
        Node* nb = haveB ? addConstantNode(g, rw, *newB, "add_tensor") : nullptr;
        Expected<Node*> nc = makeError("");
        if (conv) {
            std::vector<Argument> a = comp->args;
            a[1] = Argument::ofNode(nw);
            a[2] = nb ? Argument::ofNode(nb) : Argument::none();
            nc = rw.createOp(bin, "aten.convolution.default", a, comp->kwargs);
        } else {
            Node* x = comp->args[addmm ? 1 : 0].node;
            if (nb)
                nc = rw.createOp(bin, "aten.addmm.default",
                                 {Argument::ofNode(nb), Argument::ofNode(x), Argument::ofNode(nw)});
            else
                nc = rw.createOp(bin, "aten.mm.default", {Argument::ofNode(x), Argument::ofNode(nw)});
        }
        if (!nc.ok()) {
            if (nb) rw.erase(nb);
            if (nw != wNode) rw.erase(nw);
            rw.setPattern("");
            return fail(nc.error());
        }
        (*nc)->sourceComment = comp->sourceComment;
        std::vector<std::string> matched = {comp->name(), bin->name()};
        std::vector<Node*> inputs = comp->inputNodes();
        for (Node* in : bin->inputNodes()) inputs.push_back(in);
        rw.replaceAllUsesWith(bin, *nc);
        rw.erase(bin);
        rw.erase(comp);
        for (Node* in : inputs)
            if (!rw.isErased(in) && in->kind() == NodeKind::GetAttr && in->users.empty()) {
                std::string attr = in->target();
                rw.erase(in);
                g.constants.erase(attr);
            }
        rw.setPattern("");
        std::vector<std::string> created;
        if (nw != wNode) created.push_back(nw->name());
        if (nb) created.push_back(nb->name());
        created.push_back((*nc)->name());
        ctx.recordMatch(rule, matched, created);
        return true;
    }

    size_t m_folded = 0;
};

}  // namespace

std::unique_ptr<Pass> createBinaryFoldingPass() { return std::make_unique<BinaryFoldingPass>(); }

}  // namespace fxray
