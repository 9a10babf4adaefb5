// conv_bn_folding: an inference batch norm (`_native_batch_norm_legit_no_training`) whose
// statistics and affine parameters are constants, applied to a convolution with a constant
// weight, is folded into that convolution:
//   scale = weight / sqrt(running_var + eps),  W' = W * scale[:, None, ...],
//   B' = (B - running_mean) * scale + bias.
// PyTorch reaches the same graph in freezing by decomposing the batch norm into sub/mul/mul/add
// and folding those one by one into the convolution (binary folding, up to four rounds of
// constant folding); fxray folds the batch norm as a whole, computing W' and B' with the
// reference kernels, which gives the same constants up to fp32 rounding order.
#include "exec/exec_context.h"
#include "exec/interpreter.h"
#include "rewrite/pattern_rewriter.h"
#include "rewrite/rewriter.h"
#include "transforms/freezing.h"
#include "transforms/pass_util.h"
#include "transforms/passes.h"

namespace fxray {

namespace {

using namespace passutil;

class ConvBnFoldingPass : public Pass {
public:
    ConvBnFoldingPass() { m_folded = declareStatistic("folded", "batch norms folded into a convolution"); }
    std::string_view name() const override { return "conv_bn_folding"; }
    std::string_view summary() const override {
        return "fold an inference batch norm with constant statistics into the preceding convolution's constant weight "
               "and bias (PyTorch gets there by decomposing the batch norm and binary folding its four ops)";
    }

    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        Rewriter rw(g, ctx);
        std::vector<Node*> bns;
        for (const auto& n : g.nodes())
            if (opOf(*n) == "aten._native_batch_norm_legit_no_training.default") bns.push_back(n.get());
        size_t done = 0;
        for (Node* bn : bns) done += fold(g, bn, rw, ctx);
        bump(m_folded, int64_t(done));
        return PassResult::success(done > 0);
    }

private:
    bool fold(Graph& g, Node* bn, Rewriter& rw, PassContext& ctx) {
        const char* rule = "conv_bn";
        auto args = normalizedArgs(*bn);
        if (args.size() < 7 || !args[0].isNode()) return false;
        Node* conv = args[0].node;
        if (opOf(*conv) != "aten.convolution.default")
            return ctx.notifyMatchFailure(rule, *bn, "the batch norm's input is not a convolution");
        if (conv->users.size() != 1) return ctx.notifyMatchFailure(rule, *bn, "the convolution has other users");
        Node* item0 = nullptr;
        for (Node* u : bn->users) {
            if (u->target() != "operator.getitem" || u->args.size() != 2 || u->args[1].kind != Argument::Kind::Int)
                return ctx.notifyMatchFailure(rule, *bn, "the batch norm's result is used whole");
            if (u->args[1].i != 0) return ctx.notifyMatchFailure(rule, *bn, "the saved mean/invstd outputs are used");
            if (item0) return ctx.notifyMatchFailure(rule, *bn, "the output is read twice");
            item0 = u;
        }
        if (!item0) return false;
        auto cargs = normalizedArgs(*conv);
        if (cargs.size() < 9 || !cargs[1].isNode()) return false;
        if (cargs[6].kind != Argument::Kind::Bool || cargs[6].b)
            return ctx.notifyMatchFailure(rule, *bn, "a transposed convolution is not folded");
        const Tensor* W = constantValue(cargs[1].node);
        if (!W) return ctx.notifyMatchFailure(rule, *bn, "the convolution's weight is not a constant");
        if (cargs[1].node->users.size() != 1) return ctx.notifyMatchFailure(rule, *bn, "the weight is shared");
        const Tensor* B = nullptr;
        if (!cargs[2].isNone()) {
            B = cargs[2].isNode() ? constantValue(cargs[2].node) : nullptr;
            if (!B) return ctx.notifyMatchFailure(rule, *bn, "the convolution's bias is not a constant");
        }
        auto constOrNone = [&](const Argument& a, const Tensor** out) {
            *out = nullptr;
            if (a.isNone()) return true;
            *out = a.isNode() ? constantValue(a.node) : nullptr;
            return *out != nullptr;
        };
        const Tensor *w, *b, *mean, *var;
        if (!constOrNone(args[1], &w) || !constOrNone(args[2], &b) || !constOrNone(args[3], &mean) ||
            !constOrNone(args[4], &var) || !mean || !var)
            return ctx.notifyMatchFailure(rule, *bn,
                                          "the batch norm's statistics or affine parameters are not constants");
        auto eps = asNumber(args[6]);
        if (!eps) return ctx.notifyMatchFailure(rule, *bn, "eps is not a number");
        if (!isFloating(W->dtype()) || var->dtype() != W->dtype())
            return ctx.notifyMatchFailure(rule, *bn, "mixed dtypes between the weight and the statistics");

        // scale = weight * rsqrt(var + eps); W' = W * scale.reshape(C, 1, ...); B' = (B - mean) * scale + bias.
        auto fail = [&](const Diagnostic& d) {
            return ctx.notifyMatchFailure(rule, *bn, "folding failed: " + d.str());
        };
        auto ve = evalConstantOp("aten.add.Scalar", {Value::ofTensor(*var), Value::ofDouble(*eps)});
        if (!ve.ok()) return fail(ve.error());
        auto scale = evalConstantOp("aten.rsqrt.default", {Value::ofTensor(*ve)});
        if (!scale.ok()) return fail(scale.error());
        if (w) {
            scale = evalConstantOp("aten.mul.Tensor", {Value::ofTensor(*w), Value::ofTensor(*scale)});
            if (!scale.ok()) return fail(scale.error());
        }
        std::vector<Value> shape;
        shape.push_back(Value::ofInt(W->shape()[0]));
        for (int64_t i = 1; i < W->dim(); ++i) shape.push_back(Value::ofInt(1));
        auto scaleW = evalConstantOp("aten.reshape.default", {Value::ofTensor(*scale), Value::ofList(shape)});
        if (!scaleW.ok()) return fail(scaleW.error());
        auto newW = evalConstantOp("aten.mul.Tensor", {Value::ofTensor(*W), Value::ofTensor(*scaleW)});
        if (!newW.ok()) return fail(newW.error());
        Expected<Tensor> centred = B ? evalConstantOp("aten.sub.Tensor", {Value::ofTensor(*B), Value::ofTensor(*mean)})
                                     : evalConstantOp("aten.neg.default", {Value::ofTensor(*mean)});
        if (!centred.ok()) return fail(centred.error());
        auto newB = evalConstantOp("aten.mul.Tensor", {Value::ofTensor(*centred), Value::ofTensor(*scale)});
        if (!newB.ok()) return fail(newB.error());
        if (b) {
            newB = evalConstantOp("aten.add.Tensor", {Value::ofTensor(*newB), Value::ofTensor(*b)});
            if (!newB.ok()) return fail(newB.error());
        }

        rw.setPattern(rule);
        Node* wNode = addConstantNode(g, rw, *newW, "mul_tensor");
        Node* bNode = addConstantNode(g, rw, *newB, "add_tensor");
        std::vector<Argument> nargs = conv->args;
        nargs.resize(std::max<size_t>(nargs.size(), 3));
        nargs[1] = Argument::ofNode(wNode);
        nargs[2] = Argument::ofNode(bNode);
        auto nc = rw.createOp(bn, "aten.convolution.default", nargs, conv->kwargs);
        if (!nc.ok()) {
            rw.erase(bNode);
            rw.erase(wNode);
            rw.setPattern("");
            return fail(nc.error());
        }
        (*nc)->sourceComment = conv->sourceComment;
        std::vector<std::string> matched = {conv->name(), bn->name(), item0->name()};
        rw.replaceAllUsesWith(item0, *nc);
        rw.erase(item0);
        rw.erase(bn);
        std::vector<Node*> inputs = conv->inputNodes();
        for (const auto& a : args)
            if (a.isNode()) inputs.push_back(a.node);
        rw.erase(conv);
        for (Node* in : inputs)
            if (!rw.isErased(in) && in->kind() == NodeKind::GetAttr && in->users.empty()) {
                std::string attr = in->target();
                rw.erase(in);
                g.constants.erase(attr);
            }
        rw.setPattern("");
        ctx.recordMatch(rule, matched, {wNode->name(), bNode->name(), (*nc)->name()});
        return true;
    }

    size_t m_folded = 0;
};

}  // namespace

std::unique_ptr<Pass> createConvBnFoldingPass() { return std::make_unique<ConvBnFoldingPass>(); }

}  // namespace fxray
