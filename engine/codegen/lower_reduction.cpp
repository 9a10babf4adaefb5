// Lowerings of reductions (sum, mean, amax, amin, var) and of softmax/log_softmax and their
// backwards, which decompose into row reductions plus pointwise epilogues (the scheduler fuses
// them back into one kernel).
#include "codegen/lower_util.h"

namespace fxray::cg {

namespace {

std::vector<bool> maskOf(const std::vector<int64_t>& dims, size_t n) {
    std::vector<bool> m(n, dims.empty());
    for (int64_t d : dims) m[static_cast<size_t>(d < 0 ? d + static_cast<int64_t>(n) : d)] = true;
    return m;
}

std::optional<LValue> simpleReduction(LowerCtx& c, ReduceOp op, bool mean) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor()) return std::nullopt;
    const TensorMeta& xm = c.meta(x);
    const TensorMeta& om = c.outMeta();
    if (isComplex(om.dtype) || isComplex(xm.dtype)) return std::nullopt;
    std::vector<int64_t> dims;
    bool keepdim = false;
    std::string n = c.node().opName();
    if (n != "aten.sum.default" && n != "aten.mean.default") {
        if (!c.args().isNone(1)) dims = c.args().toIntList(1);
        keepdim = c.args().toBool(2);
    }
    auto mask = maskOf(dims, xm.shape.size());
    int64_t count = 1;
    for (size_t d = 0; d < mask.size(); ++d)
        if (mask[d]) count *= xm.shape[d];
    TensorMeta accMeta = om;
    DType ct = computeType(om.dtype);
    int r = reduceTo(c, accMeta, xm.shape, mask, keepdim, op, [x, ct](Loader& L, const std::vector<Index>& co) {
        return eto(L.load(x, co), ct);
    }, {x});
    if (!mean) return tensorValue(r);
    c.graph().nodes[static_cast<size_t>(r)].name += ".sum";
    double inv = count ? 1.0 / static_cast<double>(count) : NAN;
    return tensorValue(c.pointwise(om, {r}, [r, ct, inv](Loader& L, const std::vector<Index>& co) {
        ExprP s = eto(L.load(r, co), ct);
        return ebinary(Op::Mul, s, econst(inv, ct));
    }));
}

/// var/std with correction: two passes (mean, then squared deviations), like the reference.
std::optional<LValue> variance(LowerCtx& c, bool stdev) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    const TensorMeta& xm = c.meta(x);
    std::vector<int64_t> dims;
    if (!c.args().isNone(1)) dims = c.args().toIntList(1);
    double correction = c.args().isNone(2) ? 1.0 : c.args()[2].toDouble();
    bool keepdim = c.args().toBool(3);
    auto mask = maskOf(dims, xm.shape.size());
    int64_t count = 1;
    for (size_t d = 0; d < mask.size(); ++d)
        if (mask[d]) count *= xm.shape[d];
    DType ct = computeType(c.outMeta().dtype);
    int mean = rowMean(c, x, mask, ct, ".mean");
    auto kshape = keptShape(xm.shape, mask);
    int ss = reduceTo(c, keptMeta(xm, mask, ct), xm.shape, mask, true, ReduceOp::Sum,
                      [x, mean, ct, kshape](Loader& L, const std::vector<Index>& co) {
                          ExprP d = ebinary(Op::Sub, eto(L.load(x, co), ct), loadBroadcast(L, mean, kshape, co));
                          return ebinary(Op::Mul, d, d);
                      }, {x, mean}, ".ss");
    double denom = std::max(0.0, static_cast<double>(count) - correction);
    TensorMeta om = c.outMeta();
    return tensorValue(c.pointwise(om, {ss}, [=](Loader& L, const std::vector<Index>& co) {
        std::vector<Index> k = keepdimCoords(co, mask, keepdim);
        ExprP v = ebinary(Op::Div, L.load(ss, k), econst(denom, ct));
        return stdev ? eunary(Op::Sqrt, v) : v;
    }));
}

struct SoftmaxArgs {
    int x = -1;
    std::vector<int64_t> shape;
    std::vector<bool> mask;
    DType ct = DType::Float32;
};

std::optional<SoftmaxArgs> softmaxArgs(LowerCtx& c, size_t xi, size_t dimi) {
    SoftmaxArgs s;
    s.x = c.in(xi);
    if (s.x < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    s.shape = c.meta(s.x).shape;
    int64_t dim = c.args().toInt(dimi);
    if (s.shape.empty()) return std::nullopt;
    s.mask = maskOf({dim}, s.shape.size());
    s.ct = computeType(c.outMeta().dtype);
    return s;
}

std::optional<LValue> softmax(LowerCtx& c, bool log) {
    auto s = softmaxArgs(c, 0, 1);
    if (!s) return std::nullopt;
    int x = s->x;
    DType ct = s->ct;
    auto shape = s->shape;
    auto mask = s->mask;
    auto kshape = keptShape(shape, mask);
    int mx = reduceTo(c, keptMeta(c.meta(x), mask, ct), shape, mask, true, ReduceOp::Max,
                      [x, ct](Loader& L, const std::vector<Index>& co) { return eto(L.load(x, co), ct); }, {x}, ".amax");
    auto shifted = [x, mx, ct, kshape](Loader& L, const std::vector<Index>& co) {
        return ebinary(Op::Sub, eto(L.load(x, co), ct), loadBroadcast(L, mx, kshape, co));
    };
    int sum = reduceTo(c, keptMeta(c.meta(x), mask, ct), shape, mask, true, ReduceOp::Sum,
                       [shifted](Loader& L, const std::vector<Index>& co) { return eunary(Op::Exp, shifted(L, co)); },
                       {x, mx}, ".sum");
    return tensorValue(c.pointwise(c.outMeta(), {x, mx, sum}, [=](Loader& L, const std::vector<Index>& co) {
        ExprP sh = shifted(L, co);
        ExprP sv = loadBroadcast(L, sum, kshape, co);
        if (log) return ebinary(Op::Sub, sh, eunary(Op::Log, sv));
        return ebinary(Op::Div, eunary(Op::Exp, sh), sv);
    }));
}

std::optional<LValue> softmaxBackward(LowerCtx& c, bool log) {
    // (grad_output, output, dim, input_dtype)
    auto s = softmaxArgs(c, 1, 2);
    int g = c.in(0);
    if (!s || g < 0) return std::nullopt;
    int y = s->x;
    DType ct = s->ct;
    auto shape = s->shape;
    auto mask = s->mask;
    auto kshape = keptShape(shape, mask);
    int sum = reduceTo(c, keptMeta(c.meta(y), mask, ct), shape, mask, true, ReduceOp::Sum,
                       [g, y, ct, log](Loader& L, const std::vector<Index>& co) {
                           ExprP gv = eto(L.load(g, co), ct);
                           return log ? gv : ebinary(Op::Mul, gv, eto(L.load(y, co), ct));
                       }, {g, y}, ".sum");
    return tensorValue(c.pointwise(c.outMeta(), {g, y, sum}, [=](Loader& L, const std::vector<Index>& co) {
        ExprP gv = eto(L.load(g, co), ct), yv = eto(L.load(y, co), ct);
        ExprP sv = loadBroadcast(L, sum, kshape, co);
        if (log) return ebinary(Op::Sub, gv, ebinary(Op::Mul, eunary(Op::Exp, yv), sv));
        return ebinary(Op::Mul, yv, ebinary(Op::Sub, gv, sv));
    }));
}

} // namespace

void addReductionLowerings(std::map<std::string, LowerFn>& t) {
    t["aten.sum.dim_IntList"] = t["aten.sum.default"] = [](LowerCtx& c) { return simpleReduction(c, ReduceOp::Sum, false); };
    t["aten.mean.dim"] = t["aten.mean.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!isFloating(c.outMeta().dtype)) return std::nullopt;
        return simpleReduction(c, ReduceOp::Sum, true);
    };
    t["aten.amax.default"] = [](LowerCtx& c) { return simpleReduction(c, ReduceOp::Max, false); };
    t["aten.amin.default"] = [](LowerCtx& c) { return simpleReduction(c, ReduceOp::Min, false); };
    t["aten.var.correction"] = [](LowerCtx& c) { return variance(c, false); };
    // aten.std.correction is variance(c, true), once exec registers the op (the op table refuses
    // a rule for an op the registry lacks).
    t["aten._softmax.default"] = [](LowerCtx& c) { return softmax(c, false); };
    t["aten._log_softmax.default"] = [](LowerCtx& c) { return softmax(c, true); };
    t["aten._softmax_backward_data.default"] = [](LowerCtx& c) { return softmaxBackward(c, false); };
    t["aten._log_softmax_backward_data.default"] = [](LowerCtx& c) { return softmaxBackward(c, true); };
}

} // namespace fxray::cg
