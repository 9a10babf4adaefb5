// Lowerings that reduce over an extra dim of the iteration space: scans (cumsum, cumprod: the
// prefix k <= i of each row, quadratic but fused), arg-reductions (argmax, argmin, max.dim,
// min.dim: the first index holding the extreme, NaN counting as the maximum and minimum like
// PyTorch), small contractions (dot, vdot, mv, addmv) and dist.
#include "codegen/lower_util.h"

namespace fxray::cg {

namespace {

size_t wrapDim(int64_t d, size_t n) { return static_cast<size_t>(d < 0 ? d + static_cast<int64_t>(n) : d); }

ExprP ic(int64_t v) { return econst(static_cast<double>(v), DType::Int64); }

/// cumsum/cumprod(x, dim): out[.., i, ..] = reduce over k <= i of x[.., k, ..].
std::optional<LValue> scan(LowerCtx& c, ReduceOp op) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor() || isComplex(c.outMeta().dtype)) return std::nullopt;
    const std::vector<int64_t> shape = c.meta(x).shape;
    DType ct = computeType(c.outMeta().dtype), xt = computeType(c.meta(x).dtype);
    // A 0-d tensor is one row of one element: its scan is itself (in the output's dtype).
    if (shape.empty())
        return tensorValue(c.pointwise(c.outMeta(), {x}, [=](Loader& L, const std::vector<Index>&) {
            return eto(eto(L.load(x, {}), xt), ct);
        }));
    size_t n = shape.size(), dim = wrapDim(c.args().toInt(1), n);
    std::vector<int64_t> in = shape;
    in.push_back(shape[dim]);
    std::vector<bool> mask(n + 1, false);
    mask[n] = true;
    double ident = op == ReduceOp::Prod ? 1.0 : 0.0;
    return tensorValue(reduceTo(c, c.outMeta(), in, mask, false, op,
                                [=](Loader& L, const std::vector<Index>& co) {
                                    std::vector<Index> src(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n));
                                    src[dim] = co[n];
                                    ExprP keep = ebinary(Op::Le, eindex(co[n]), eindex(co[dim]));
                                    return ewhere(keep, eto(eto(L.load(x, src), xt), ct), econst(ident, ct));
                                },
                                {x}));
}

/// cummax/cummin (values, indices: the last k <= i holding the running extreme, NaN counting
/// as extreme, as PyTorch's kernels update on >= / <=) and logcumsumexp (the running max
/// taken out of the exponentials, 0 where it is infinite).
std::optional<LValue> cumExtreme(LowerCtx& c, bool max, bool logSumExp) {
    int x = c.in(0);
    if (x < 0 || isComplex(c.meta(x).dtype) || c.meta(x).dtype == DType::Bool) return std::nullopt;
    const std::vector<int64_t> shape = c.meta(x).shape;
    if (c.meta(x).numel() == 0) return std::nullopt;
    TensorMeta vm = logSumExp ? c.outMeta() : c.outMeta(0);
    if (logSumExp && !isFloating(vm.dtype)) return std::nullopt;
    DType ct = computeType(vm.dtype), xt = computeType(c.meta(x).dtype);
    if (shape.empty()) {
        // A 0-d tensor is one row of one element: the running value is itself, at index 0.
        int v = c.pointwise(vm, {x}, [=](Loader& L, const std::vector<Index>&) { return eto(eto(L.load(x, {}), xt), ct); });
        if (logSumExp) return tensorValue(v);
        int i = c.pointwise(
            c.outMeta(1), {}, [](Loader&, const std::vector<Index>&) { return ic(0); }, ".indices");
        LValue r;
        r.kind = LValue::Kind::List;
        r.isTuple = true;
        r.items = {tensorValue(v), tensorValue(i)};
        return r;
    }
    size_t n = shape.size(), dim = wrapDim(c.args().toInt(1), n);
    std::vector<int64_t> in = shape;
    in.push_back(shape[dim]);
    std::vector<bool> mask(n + 1, false);
    mask[n] = true;
    auto src = [n, dim](const std::vector<Index>& co) {
        std::vector<Index> q(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n));
        q[dim] = co[n];
        return q;
    };
    auto upto = [n, dim](const std::vector<Index>& co) { return ebinary(Op::Le, eindex(co[n]), eindex(co[dim])); };
    double ident =
        isFloating(ct) ? (max ? -INFINITY : INFINITY) : (max ? -9.223372036854775808e18 : 9.223372036854775807e18);
    TensorMeta rm = logSumExp ? TensorMeta::contiguous(vm.shape, ct, vm.device) : vm;
    int vals = reduceTo(
        c, rm, in, mask, false, max ? ReduceOp::Max : ReduceOp::Min,
        [=](Loader& L, const std::vector<Index>& co) {
            return ewhere(upto(co), eto(eto(L.load(x, src(co)), xt), ct), econst(ident, ct));
        },
        {x}, logSumExp ? ".max" : "");
    if (logSumExp) {
        auto finite = [ct](ExprP m) {
            return ewhere(ebinary(Op::Eq, eunary(Op::Abs, m), econst(INFINITY, ct)), econst(0, ct), m);
        };
        int sum = reduceTo(
            c, rm, in, mask, false, ReduceOp::Sum,
            [=](Loader& L, const std::vector<Index>& co) {
                ExprP m = finite(
                    eto(L.load(vals, std::vector<Index>(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n))), ct));
                ExprP e = eunary(Op::Exp, ebinary(Op::Sub, eto(eto(L.load(x, src(co)), xt), ct), m));
                return ewhere(upto(co), e, econst(0, ct));
            },
            {x, vals}, ".sum");
        return tensorValue(c.pointwise(vm, {vals, sum}, [=](Loader& L, const std::vector<Index>& co) {
            return ebinary(Op::Add, eunary(Op::Log, eto(L.load(sum, co), ct)), finite(eto(L.load(vals, co), ct)));
        }));
    }
    int idx = reduceTo(
        c, c.outMeta(1), in, mask, false, ReduceOp::Max,
        [=](Loader& L, const std::vector<Index>& co) {
            ExprP v = eto(eto(L.load(x, src(co)), xt), ct);
            ExprP m =
                eto(L.load(vals, std::vector<Index>(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n))), ct);
            ExprP hit = ebinary(Op::Eq, v, m);
            if (isFloating(ct))
                hit = ebinary(Op::Or, hit, ebinary(Op::And, eunary(Op::IsNan, v), eunary(Op::IsNan, m)));
            return ewhere(ebinary(Op::And, upto(co), hit), eindex(co[n]), ic(-1));
        },
        {x, vals}, ".indices");
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    r.items = {tensorValue(vals), tensorValue(idx)};
    return r;
}

/// The index (within the reduced dims, row-major) of the first element equal to the extreme m
/// (or NaN), as a Min reduction over the masked dims.
int firstIndexOf(LowerCtx& c, int x, int m, const std::vector<bool>& mask, bool keepdim, const TensorMeta& om) {
    const std::vector<int64_t> shape = c.meta(x).shape;
    auto kshape = keptShape(shape, mask);
    DType xt = computeType(c.meta(x).dtype);
    std::vector<int64_t> strides(shape.size(), 0);
    int64_t s = 1;
    for (size_t d = shape.size(); d-- > 0;)
        if (mask[d]) strides[d] = s, s *= shape[d];
    int64_t none = s;  // past every index
    return reduceTo(
        c, om, shape, mask, keepdim, ReduceOp::Min,
        [=](Loader& L, const std::vector<Index>& co) {
            ExprP v = eto(L.load(x, co), xt), mv = eto(loadBroadcast(L, m, kshape, co), xt);
            ExprP hit = ebinary(Op::Eq, v, mv);
            if (isFloating(xt)) hit = ebinary(Op::Or, hit, eunary(Op::IsNan, v));
            Index lin = iconst(0);
            for (size_t d = 0; d < co.size(); ++d)
                if (mask[d]) lin = iadd(lin, imul(co[d], strides[d]));
            return ewhere(hit, eindex(lin), ic(none));
        },
        {x, m}, ".index");
}

/// argmax/argmin (dimArg: an int or None) and max.dim/min.dim (values and indices).
std::optional<LValue> argExtreme(LowerCtx& c, bool max, bool withValues) {
    int x = c.in(0);
    if (x < 0) return std::nullopt;
    const TensorMeta xm = c.meta(x);
    if (xm.numel() == 0 || isComplex(xm.dtype) || xm.dtype == DType::Bool) return std::nullopt;
    if (xm.shape.empty()) {
        // one element: index 0, value x
        int idx =
            c.pointwise(c.outMeta(withValues ? 1 : 0), {}, [](Loader&, const std::vector<Index>&) { return ic(0); });
        if (!withValues) return tensorValue(idx);
        DType ot = computeType(c.outMeta(0).dtype);
        int vals = c.pointwise(
            c.outMeta(0), {x}, [x, ot](Loader& L, const std::vector<Index>& co) { return eto(L.load(x, co), ot); },
            ".values");
        LValue r;
        r.kind = LValue::Kind::List;
        r.isTuple = true;
        r.items = {tensorValue(vals), tensorValue(idx)};
        return r;
    }
    size_t n = xm.shape.size();
    std::vector<bool> mask(n, true);
    if (!c.args().isNone(1)) {
        mask.assign(n, false);
        mask[wrapDim(c.args().toInt(1), n)] = true;
    }
    bool keepdim = c.args().toBool(2);
    DType xt = computeType(xm.dtype);
    ReduceOp rop = max ? ReduceOp::Max : ReduceOp::Min;
    int m = reduceTo(
        c, keptMeta(xm, mask, xt), xm.shape, mask, true, rop,
        [x, xt](Loader& L, const std::vector<Index>& co) { return eto(L.load(x, co), xt); }, {x},
        max ? ".amax" : ".amin");
    int idx = firstIndexOf(c, x, m, mask, keepdim, c.outMeta(withValues ? 1 : 0));
    if (!withValues) return tensorValue(idx);
    int vals = c.pointwise(
        c.outMeta(0), {m},
        [m, mask, keepdim](Loader& L, const std::vector<Index>& co) {
            return L.load(m, keepdimCoords(co, mask, keepdim));
        },
        ".values");
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    r.items = {tensorValue(vals), tensorValue(idx)};
    return r;
}

/// sum over k of a[.., k] * b[k] (dot: a 1-D; mv: a 2-D), scaled into beta*self + alpha*(.)
/// for addmv.
std::optional<LValue> contract(LowerCtx& c, size_t ai, size_t bi, int self, double beta, double alpha) {
    int a = c.in(ai), b = c.in(bi);
    if (a < 0 || b < 0 || !c.out().isTensor() || isComplex(c.outMeta().dtype) || c.outMeta().dtype == DType::Bool)
        return std::nullopt;
    const std::vector<int64_t> as = c.meta(a).shape, bs = c.meta(b).shape;
    if (bs.size() != 1 || as.empty() || as.size() > 2 || as.back() != bs[0]) return std::nullopt;
    DType ct = computeType(c.outMeta().dtype);
    std::vector<bool> mask(as.size(), false);
    mask.back() = true;
    TensorMeta om = c.outMeta();
    bool epilogue = self >= 0 || alpha != 1.0;
    TensorMeta rm = epilogue ? TensorMeta::contiguous(om.shape, ct, om.device) : om;
    int r = reduceTo(
        c, rm, as, mask, false, ReduceOp::Sum,
        [a, b, ct](Loader& L, const std::vector<Index>& co) {
            return ebinary(Op::Mul, eto(L.load(a, co), ct), eto(L.load(b, {co.back()}), ct));
        },
        {a, b}, epilogue ? ".mv" : "");
    if (!epilogue) return tensorValue(r);
    std::vector<int> deps{r};
    std::vector<int64_t> ss;
    if (self >= 0) deps.push_back(self), ss = c.meta(self).shape;
    return tensorValue(c.pointwise(om, deps, [=](Loader& L, const std::vector<Index>& co) {
        ExprP v = ebinary(Op::Mul, eto(L.load(r, co), ct), econst(alpha, ct));
        // beta == 0 ignores self (NaN in it does not propagate), as PyTorch does.
        if (self < 0 || beta == 0.0) return v;
        ExprP sv = ebinary(Op::Mul, eto(loadBroadcast(L, self, ss, co), ct), econst(beta, ct));
        return ebinary(Op::Add, sv, v);
    }));
}

double scalarOr(LowerCtx& c, size_t i, double d) {
    return i < c.args().size() && c.args()[i].isNumber() ? c.args()[i].toDouble() : d;
}

/// dist(a, b, p): the p-norm of a - b over every element of their broadcast shape.
std::optional<LValue> dist(LowerCtx& c) {
    int a = c.in(0), b = c.in(1);
    if (a < 0 || b < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    const std::vector<int64_t> as = c.meta(a).shape, bs = c.meta(b).shape;
    std::vector<int64_t> shape(std::max(as.size(), bs.size()), 1);
    for (size_t i = 0; i < shape.size(); ++i) {
        int64_t x = i + as.size() >= shape.size() ? as[i + as.size() - shape.size()] : 1;
        int64_t y = i + bs.size() >= shape.size() ? bs[i + bs.size() - shape.size()] : 1;
        shape[i] = x == 1 ? y : x;
    }
    if (shape.empty()) return std::nullopt;
    double p = scalarOr(c, 2, 2.0);
    DType ct = computeType(c.outMeta().dtype);
    auto absd = [=](Loader& L, const std::vector<Index>& co) {
        return eunary(Op::Abs,
                      ebinary(Op::Sub, eto(loadBroadcast(L, a, as, co), ct), eto(loadBroadcast(L, b, bs, co), ct)));
    };
    ReduceOp rop = std::isinf(p) ? (p > 0 ? ReduceOp::Max : ReduceOp::Min) : ReduceOp::Sum;
    std::vector<bool> mask(shape.size(), true);
    TensorMeta om = c.outMeta();
    int r = reduceTo(
        c, TensorMeta::contiguous(om.shape, ct, om.device), shape, mask, false, rop,
        [=](Loader& L, const std::vector<Index>& co) {
            ExprP d = absd(L, co);
            if (std::isinf(p) || p == 1.0) return d;
            if (p == 0.0) return eto(ebinary(Op::Ne, d, econst(0, ct)), ct);
            if (p == 2.0) return ebinary(Op::Mul, d, d);
            return ebinary(Op::Pow, d, econst(p, ct));
        },
        {a, b}, ".acc");
    return tensorValue(c.pointwise(om, {r}, [=](Loader& L, const std::vector<Index>& co) {
        ExprP v = eto(L.load(r, co), ct);
        if (std::isinf(p) || p == 1.0 || p == 0.0) return v;
        if (p == 2.0) return eunary(Op::Sqrt, v);
        return ebinary(Op::Pow, v, econst(1.0 / p, ct));
    }));
}

}  // namespace

void addScanLowerings(std::map<std::string, LowerFn>& t) {
    t["aten.cumsum.default"] = [](LowerCtx& c) { return scan(c, ReduceOp::Sum); };
    t["aten.cumprod.default"] = [](LowerCtx& c) { return scan(c, ReduceOp::Prod); };
    t["aten.cummax.default"] = [](LowerCtx& c) { return cumExtreme(c, true, false); };
    t["aten.cummin.default"] = [](LowerCtx& c) { return cumExtreme(c, false, false); };
    t["aten.logcumsumexp.default"] = [](LowerCtx& c) { return cumExtreme(c, true, true); };
    t["aten.argmax.default"] = [](LowerCtx& c) { return argExtreme(c, true, false); };
    t["aten.argmin.default"] = [](LowerCtx& c) { return argExtreme(c, false, false); };
    t["aten.max.dim"] = [](LowerCtx& c) { return argExtreme(c, true, true); };
    t["aten.min.dim"] = [](LowerCtx& c) { return argExtreme(c, false, true); };
    t["aten.dot.default"] = t["aten.vdot.default"] =
        t["aten.mv.default"] = [](LowerCtx& c) { return contract(c, 0, 1, -1, 0.0, 1.0); };
    t["aten.addmv.default"] = [](LowerCtx& c) {
        return contract(c, 1, 2, c.in(0), scalarOr(c, 3, 1.0), scalarOr(c, 4, 1.0));
    };
    t["aten.dist.default"] = dist;
}

}  // namespace fxray::cg
