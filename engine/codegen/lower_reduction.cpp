// Lowerings of reductions (sum, mean, amax, amin, var) and of softmax/log_softmax and their
// backwards, which decompose into row reductions plus pointwise epilogues (the scheduler fuses
// them back into one kernel).
#include "codegen/lower_util.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace fxray::cg {

namespace {

std::vector<bool> maskOf(const std::vector<int64_t>& dims, size_t n) {
    std::vector<bool> m(n, dims.empty());
    if (n == 0) return m;  // a 0-dim tensor: dim 0 and -1 name its one element
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
    int r = reduceTo(c, accMeta, xm.shape, mask, keepdim, op,
                     [x, ct](Loader& L, const std::vector<Index>& co) { return eto(L.load(x, co), ct); }, {x});
    if (!mean) return tensorValue(r);
    c.graph().nodes[static_cast<size_t>(r)].name += ".sum";
    double inv = count ? 1.0 / static_cast<double>(count) : NAN;
    return tensorValue(c.pointwise(om, {r}, [r, ct, inv](Loader& L, const std::vector<Index>& co) {
        ExprP s = eto(L.load(r, co), ct);
        return ebinary(Op::Mul, s, econst(inv, ct));
    }));
}

/// var/std with correction: two passes (mean, then squared deviations), like the reference.
/// withMean: the (var|std, mean) tuple of var_mean/std_mean.
std::optional<LValue> variance(LowerCtx& c, bool stdev, bool withMean = false) {
    int x = c.in(0);
    if (x < 0 || (!c.out().isTensor() && !withMean) || (withMean && c.out().list.size() != 2) ||
        !isFloating(c.outMeta(0).dtype) || isComplex(c.meta(x).dtype))
        return std::nullopt;
    const TensorMeta xm = c.meta(x);
    std::vector<int64_t> dims;
    if (!c.args().isNone(1)) dims = c.args().toIntList(1);
    double correction = c.args().isNone(2) ? 1.0 : c.args()[2].toDouble();
    bool keepdim = c.args().toBool(3);
    auto mask = maskOf(dims, xm.shape.size());
    int64_t count = 1;
    for (size_t d = 0; d < mask.size(); ++d)
        if (mask[d]) count *= xm.shape[d];
    DType ct = computeType(c.outMeta(0).dtype);
    int mean = rowMean(c, x, mask, ct, ".mean");
    auto kshape = keptShape(xm.shape, mask);
    int ss = reduceTo(
        c, keptMeta(xm, mask, ct), xm.shape, mask, true, ReduceOp::Sum,
        [x, mean, ct, kshape](Loader& L, const std::vector<Index>& co) {
            ExprP d = ebinary(Op::Sub, eto(L.load(x, co), ct), loadBroadcast(L, mean, kshape, co));
            return ebinary(Op::Mul, d, d);
        },
        {x, mean}, ".ss");
    double denom = std::max(0.0, static_cast<double>(count) - correction);
    TensorMeta om = c.outMeta(0);
    int v = c.pointwise(om, {ss}, [=](Loader& L, const std::vector<Index>& co) {
        std::vector<Index> k = keepdimCoords(co, mask, keepdim);
        ExprP r = ebinary(Op::Div, L.load(ss, k), econst(denom, ct));
        return stdev ? eunary(Op::Sqrt, r) : r;
    });
    if (!withMean) return tensorValue(v);
    int m = c.pointwise(
        c.outMeta(1), {mean},
        [=](Loader& L, const std::vector<Index>& co) { return L.load(mean, keepdimCoords(co, mask, keepdim)); },
        ".mean_out");
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    r.items = {tensorValue(v), tensorValue(m)};
    return r;
}

/// The dims a reduction's argument `i` names: an int, an int list, or None/[] (every dim).
std::vector<bool> dimsArg(LowerCtx& c, size_t i, size_t rank) {
    std::vector<int64_t> dims;
    if (i < c.args().size() && !c.args().isNone(i)) {
        if (c.args()[i].isNumber())
            dims = {c.args().toInt(i)};
        else
            dims = c.args().toIntList(i);
    }
    return maskOf(dims, rank);
}

using MapFn = std::function<ExprP(ExprP)>;

/// out = post(reduce(pre(x))) over mask: the accumulator in compute type `acc`, the epilogue
/// into the output's dtype. Without post, the reduction writes the output directly.
std::optional<LValue> mapReduce(LowerCtx& c, const std::vector<bool>& mask, bool keepdim, ReduceOp op, DType acc,
                                MapFn pre, MapFn post = nullptr) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor()) return std::nullopt;
    const TensorMeta& xm = c.meta(x);
    TensorMeta om = c.outMeta();
    if (isComplex(om.dtype) || isComplex(xm.dtype)) return std::nullopt;
    DType xt = computeType(xm.dtype);
    BodyFn body = [x, xt, pre](Loader& L, const std::vector<Index>& co) { return pre(eto(L.load(x, co), xt)); };
    if (!post) return tensorValue(reduceTo(c, om, xm.shape, mask, keepdim, op, body, {x}));
    TensorMeta am = TensorMeta::contiguous(om.shape, acc, om.device);
    int r = reduceTo(c, am, xm.shape, mask, keepdim, op, body, {x}, ".acc");
    DType oct = computeType(om.dtype);
    return tensorValue(c.pointwise(om, {r}, [r, acc, oct, post](Loader& L, const std::vector<Index>& co) {
        return eto(post(eto(L.load(r, co), acc)), oct);
    }));
}

/// A p-norm of x over mask (linalg_vector_norm, norm): max/min |x| for +-inf, the count of
/// nonzeros for 0, (sum |x|^p)^(1/p) otherwise.
std::optional<LValue> pnorm(LowerCtx& c, double p, const std::vector<bool>& mask, bool keepdim) {
    if (!c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    DType ct = computeType(c.outMeta().dtype);
    auto absx = [ct](ExprP x) { return eunary(Op::Abs, eto(x, ct)); };
    auto k = [ct](double v) { return econst(v, ct); };
    if (std::isinf(p))
        return mapReduce(c, mask, keepdim, p > 0 ? ReduceOp::Max : ReduceOp::Min, ct, absx, [](ExprP a) { return a; });
    if (p == 0)
        return mapReduce(
            c, mask, keepdim, ReduceOp::Sum, ct,
            [ct, k](ExprP x) { return eto(ebinary(Op::Ne, eto(x, ct), k(0)), ct); }, [](ExprP a) { return a; });
    if (p == 1) return mapReduce(c, mask, keepdim, ReduceOp::Sum, ct, absx, [](ExprP a) { return a; });
    if (p == 2)
        return mapReduce(
            c, mask, keepdim, ReduceOp::Sum, ct,
            [ct](ExprP x) {
                x = eto(x, ct);
                return ebinary(Op::Mul, x, x);
            },
            [](ExprP a) { return eunary(Op::Sqrt, a); });
    return mapReduce(
        c, mask, keepdim, ReduceOp::Sum, ct, [absx, k, p](ExprP x) { return ebinary(Op::Pow, absx(x), k(p)); },
        [k, p](ExprP a) { return ebinary(Op::Pow, a, k(1.0 / p)); });
}

/// logsumexp(x, dims, keepdim): max + log(sum(exp(x - max))), the max taken as 0 where it is
/// infinite (PyTorch's rule, so that all -inf rows give -inf).
std::optional<LValue> logsumexp(LowerCtx& c) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    const TensorMeta xm = c.meta(x);
    auto mask = dimsArg(c, 1, xm.shape.size());
    bool keepdim = c.args().toBool(2);
    DType ct = computeType(c.outMeta().dtype);
    auto kshape = keptShape(xm.shape, mask);
    int mx = reduceTo(
        c, keptMeta(xm, mask, ct), xm.shape, mask, true, ReduceOp::Max,
        [x, ct](Loader& L, const std::vector<Index>& co) { return eto(L.load(x, co), ct); }, {x}, ".amax");
    auto finiteMax = [mx, kshape, ct](Loader& L, const std::vector<Index>& co) {
        ExprP m = loadBroadcast(L, mx, kshape, co);
        return ewhere(ebinary(Op::Eq, eunary(Op::Abs, m), econst(INFINITY, ct)), econst(0, ct), m);
    };
    int sum = reduceTo(
        c, keptMeta(xm, mask, ct), xm.shape, mask, true, ReduceOp::Sum,
        [x, ct, finiteMax](Loader& L, const std::vector<Index>& co) {
            return eunary(Op::Exp, ebinary(Op::Sub, eto(L.load(x, co), ct), finiteMax(L, co)));
        },
        {x, mx}, ".sum");
    return tensorValue(c.pointwise(c.outMeta(), {mx, sum}, [=](Loader& L, const std::vector<Index>& co) {
        std::vector<Index> kc = keepdimCoords(co, mask, keepdim);
        ExprP m = L.load(mx, kc);
        m = ewhere(ebinary(Op::Eq, eunary(Op::Abs, m), econst(INFINITY, ct)), econst(0, ct), m);
        return ebinary(Op::Add, eunary(Op::Log, L.load(sum, kc)), m);
    }));
}

/// prims.prepare_softmax_online(x, dim) -> (max, sum(exp(x - max))), both keepdim: Inductor's
/// post-grad form of softmax's two reductions. The raw max is subtracted, as the reference does
/// (a row of -inf gives NaN sums, which softmax's division then carries).
std::optional<LValue> prepareSoftmaxOnline(LowerCtx& c) {
    const int x = c.in(0);
    if (x < 0 || !c.out().isList() || c.out().list.size() != 2) return std::nullopt;
    const TensorMeta xm = c.meta(x);
    if (!isFloating(xm.dtype) || xm.shape.empty() || xm.numel() == 0) return std::nullopt;
    const auto mask = dimsArg(c, 1, xm.shape.size());
    const DType ct = computeType(xm.dtype);
    const auto kshape = keptShape(xm.shape, mask);
    const int mx = reduceTo(
        c, keptMeta(xm, mask, ct), xm.shape, mask, true, ReduceOp::Max,
        [x, ct](Loader& L, const std::vector<Index>& co) { return eto(L.load(x, co), ct); }, {x}, ".amax");
    const int sum = reduceTo(
        c, keptMeta(xm, mask, ct), xm.shape, mask, true, ReduceOp::Sum,
        [x, ct, mx, kshape](Loader& L, const std::vector<Index>& co) {
            return eunary(Op::Exp, ebinary(Op::Sub, eto(L.load(x, co), ct), loadBroadcast(L, mx, kshape, co)));
        },
        {x, mx}, ".sum");
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    int i = 0;
    for (int src : {mx, sum}) {
        const TensorMeta& m = c.out().list[static_cast<size_t>(i)].t.meta;
        r.items.push_back(tensorValue(c.pointwise(
            m, {src}, [src, dt = m.dtype](Loader& L, const std::vector<Index>& co) { return eto(L.load(src, co), dt); },
            "." + std::to_string(i))));
        ++i;
    }
    return r;
}

/// any/all: x != 0 reduced with or/and into a bool output.
std::optional<LValue> anyAll(LowerCtx& c, bool any, size_t dimArg) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor() || c.outMeta().dtype != DType::Bool) return std::nullopt;
    size_t rank = c.meta(x).shape.size();
    auto mask = dimArg ? dimsArg(c, dimArg, rank) : std::vector<bool>(rank, true);
    bool keepdim = dimArg && c.args().size() > dimArg + 1 && c.args().toBool(dimArg + 1);
    return mapReduce(c, mask, keepdim, any ? ReduceOp::Any : ReduceOp::Min, DType::Bool,
                     [](ExprP v) { return v->type == DType::Bool ? v : ebinary(Op::Ne, v, econst(0, v->type)); });
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
    int mx = reduceTo(
        c, keptMeta(c.meta(x), mask, ct), shape, mask, true, ReduceOp::Max,
        [x, ct](Loader& L, const std::vector<Index>& co) { return eto(L.load(x, co), ct); }, {x}, ".amax");
    auto shifted = [x, mx, ct, kshape](Loader& L, const std::vector<Index>& co) {
        return ebinary(Op::Sub, eto(L.load(x, co), ct), loadBroadcast(L, mx, kshape, co));
    };
    int sum = reduceTo(
        c, keptMeta(c.meta(x), mask, ct), shape, mask, true, ReduceOp::Sum,
        [shifted](Loader& L, const std::vector<Index>& co) { return eunary(Op::Exp, shifted(L, co)); }, {x, mx},
        ".sum");
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
    int sum = reduceTo(
        c, keptMeta(c.meta(y), mask, ct), shape, mask, true, ReduceOp::Sum,
        [g, y, ct, log](Loader& L, const std::vector<Index>& co) {
            ExprP gv = eto(L.load(g, co), ct);
            return log ? gv : ebinary(Op::Mul, gv, eto(L.load(y, co), ct));
        },
        {g, y}, ".sum");
    return tensorValue(c.pointwise(c.outMeta(), {g, y, sum}, [=](Loader& L, const std::vector<Index>& co) {
        ExprP gv = eto(L.load(g, co), ct), yv = eto(L.load(y, co), ct);
        ExprP sv = loadBroadcast(L, sum, kshape, co);
        if (log) return ebinary(Op::Sub, gv, ebinary(Op::Mul, eunary(Op::Exp, yv), sv));
        return ebinary(Op::Mul, yv, ebinary(Op::Sub, gv, sv));
    }));
}

}  // namespace

void addReductionLowerings(std::map<std::string, LowerFn>& t) {
    // trace(self): the sum of a matrix's diagonal, self[i, i] for i < min(rows, cols).
    t["aten.trace.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int x = c.in(0);
        if (x < 0 || !c.out().isTensor() || c.meta(x).shape.size() != 2) return std::nullopt;
        const int64_t n = std::min(c.meta(x).shape[0], c.meta(x).shape[1]);
        if (n == 0) return std::nullopt;
        const DType ct = computeType(c.outMeta().dtype);
        return tensorValue(reduceTo(c, c.outMeta(), {n}, {true}, false, ReduceOp::Sum,
                                    [x, ct](Loader& L, const std::vector<Index>& co) {
                                        return eto(L.load(x, {co[0], co[0]}), ct);
                                    },
                                    {x}));
    };
    t["aten.sum.dim_IntList"] =
        t["aten.sum.default"] = [](LowerCtx& c) { return simpleReduction(c, ReduceOp::Sum, false); };
    t["aten.mean.dim"] = t["aten.mean.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!isFloating(c.outMeta().dtype)) return std::nullopt;
        return simpleReduction(c, ReduceOp::Sum, true);
    };
    // renorm(self, p, dim, maxnorm): each slice along dim scaled by maxnorm / (norm + 1e-7)
    // where its p-norm exceeds maxnorm (PyTorch's formula), p positive (inf: the largest
    // magnitude).
    t["aten.renorm.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int x = c.in(0);
        if (x < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
        const TensorMeta xm = c.meta(x);
        const size_t n = xm.shape.size();
        const double p = c.args()[1].toDouble(), maxnorm = c.args()[3].toDouble();
        if (n == 0 || !(p > 0) || xm.numel() == 0) return std::nullopt;
        const bool inf = std::isinf(p);  // the largest magnitude
        int64_t d = c.args().toInt(2);
        if (d < 0) d += static_cast<int64_t>(n);
        if (d < 0 || d >= static_cast<int64_t>(n)) return std::nullopt;
        std::vector<bool> mask(n, true);
        mask[static_cast<size_t>(d)] = false;
        const DType ct = computeType(xm.dtype);
        const auto kshape = keptShape(xm.shape, mask);
        const int sum = reduceTo(
            c, keptMeta(xm, mask, ct), xm.shape, mask, true, inf ? ReduceOp::Max : ReduceOp::Sum,
            [x, ct, p, inf](Loader& L, const std::vector<Index>& co) {
                ExprP a = eunary(Op::Abs, eto(L.load(x, co), ct));
                return inf || p == 1.0 ? a : p == 2.0 ? ebinary(Op::Mul, a, a) : ebinary(Op::Pow, a, econst(p, ct));
            },
            {x}, ".norm");
        return tensorValue(c.pointwise(c.outMeta(), {x, sum}, [=](Loader& L, const std::vector<Index>& co) {
            ExprP s = eto(loadBroadcast(L, sum, kshape, co), ct);
            ExprP norm = inf || p == 1.0 ? s
                         : p == 2.0      ? eunary(Op::Sqrt, s)
                                         : ebinary(Op::Pow, s, econst(1.0 / p, ct));
            ExprP factor = ewhere(ebinary(Op::Gt, norm, econst(maxnorm, ct)),
                                  ebinary(Op::Div, econst(maxnorm, ct), ebinary(Op::Add, norm, econst(1e-7, ct))),
                                  econst(1.0, ct));
            return ebinary(Op::Mul, eto(L.load(x, co), ct), factor);
        }));
    };
    // _pdist_forward(self [n, m], p): the p-norm distance of every row pair i < j, in row-major
    // pair order (pair k's rows from k in closed form, exact in fp64 for any n that fits memory);
    // p = 0 counts differing entries, p = inf takes the largest difference.
    t["aten._pdist_forward.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int x = c.in(0);
        if (x < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
        const TensorMeta xm = c.meta(x);
        if (xm.shape.size() != 2) return std::nullopt;
        const int64_t n = xm.shape[0], m = xm.shape[1], K = n * (n - 1) / 2;
        if (K <= 0 || m <= 0) return std::nullopt;
        const double p = c.args().size() > 1 && c.args()[1].isNumber() ? c.args()[1].toDouble() : 2.0;
        if (!(p >= 0)) return std::nullopt;
        const bool inf = std::isinf(p);
        const DType ct = computeType(c.outMeta().dtype);
        const double nn = static_cast<double>(n);
        auto rows = [nn](const Index& k) {
            ExprP kf = eto(eindex(k), DType::Float64);
            // i = n - 2 - floor(sqrt(4n(n-1) - 7 - 8k) / 2 - 0.5); j = k + i + 1 - n(n-1)/2 + (n-i)(n-i-1)/2
            ExprP r = eunary(Op::Sqrt, ebinary(Op::Sub, econst(4 * nn * (nn - 1) - 7, DType::Float64),
                                               ebinary(Op::Mul, econst(8, DType::Float64), kf)));
            ExprP fl = eunary(Op::Floor, ebinary(Op::Sub, ebinary(Op::Mul, r, econst(0.5, DType::Float64)),
                                                 econst(0.5, DType::Float64)));
            ExprP i = ebinary(Op::Sub, econst(nn - 2, DType::Float64), fl);
            ExprP ni = ebinary(Op::Sub, econst(nn, DType::Float64), i);
            ExprP j = ebinary(Op::Add,
                              ebinary(Op::Sub, ebinary(Op::Add, kf, ebinary(Op::Add, i, econst(1, DType::Float64))),
                                      econst(nn * (nn - 1) / 2, DType::Float64)),
                              ebinary(Op::Mul, ni,
                                      ebinary(Op::Mul, ebinary(Op::Sub, ni, econst(1, DType::Float64)),
                                              econst(0.5, DType::Float64))));
            return std::make_pair(ivalue(eto(i, DType::Int64)), ivalue(eto(j, DType::Int64)));
        };
        const TensorMeta am = TensorMeta::contiguous({K}, ct, c.outMeta().device);
        const int acc = reduceTo(
            c, am, {K, m}, {false, true}, false, inf ? ReduceOp::Max : ReduceOp::Sum,
            [=](Loader& L, const std::vector<Index>& co) {
                auto [i, j] = rows(co[0]);
                ExprP d =
                    eunary(Op::Abs, ebinary(Op::Sub, eto(L.load(x, {i, co[1]}), ct), eto(L.load(x, {j, co[1]}), ct)));
                if (p == 0.0) return ewhere(ebinary(Op::Ne, d, econst(0, ct)), econst(1, ct), econst(0, ct));
                if (inf || p == 1.0) return d;
                if (p == 2.0) return ebinary(Op::Mul, d, d);
                return ebinary(Op::Pow, d, econst(p, ct));
            },
            {x}, ".acc");
        return tensorValue(c.pointwise(c.outMeta(), {acc}, [=](Loader& L, const std::vector<Index>& co) {
            ExprP v = eto(L.load(acc, co), ct);
            if (p == 2.0)
                v = eunary(Op::Sqrt, v);
            else if (p != 0.0 && p != 1.0 && !inf)
                v = ebinary(Op::Pow, v, econst(1.0 / p, ct));
            return v;
        }));
    };
    // _cdist_forward(x1 [*, P, M], x2 [*, R, M], p, compute_mode): the p-norm distance of every
    // row pair, one reduction over M (exact for p = 2 too, where PyTorch may take its mm path).
    // Operands of one batch shape; broadcast batch dims are left to the reference kernel.
    t["aten._cdist_forward.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int x1 = c.in(0), x2 = c.in(1);
        if (x1 < 0 || x2 < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
        const auto &s1 = c.meta(x1).shape, &s2 = c.meta(x2).shape;
        const size_t n = s1.size();
        if (n < 2 || s2.size() != n || !std::equal(s1.begin(), s1.end() - 2, s2.begin()) || s1[n - 1] != s2[n - 1])
            return std::nullopt;
        const double p = c.args()[2].toDouble();
        if (!(p >= 0) || c.outMeta().numel() == 0) return std::nullopt;
        const bool inf = std::isinf(p);
        const DType ct = computeType(c.outMeta().dtype);
        std::vector<int64_t> space = c.outMeta().shape;  // [*, P, R, M]
        space.push_back(s1[n - 1]);
        std::vector<bool> mask(space.size(), false);
        mask.back() = true;
        const TensorMeta am = TensorMeta::contiguous(c.outMeta().shape, ct, c.outMeta().device);
        const int acc = reduceTo(
            c, am, space, mask, false, inf ? ReduceOp::Max : ReduceOp::Sum,
            [=](Loader& L, const std::vector<Index>& co) {
                std::vector<Index> a(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n)), b = a;
                a[n - 1] = co[n];  // [*, i, m]
                b[n - 2] = co[n - 1];
                b[n - 1] = co[n];  // [*, j, m]
                ExprP d = eunary(Op::Abs, ebinary(Op::Sub, eto(L.load(x1, a), ct), eto(L.load(x2, b), ct)));
                if (p == 0.0) return ewhere(ebinary(Op::Ne, d, econst(0, ct)), econst(1, ct), econst(0, ct));
                if (inf || p == 1.0) return d;
                if (p == 2.0) return ebinary(Op::Mul, d, d);
                return ebinary(Op::Pow, d, econst(p, ct));
            },
            {x1, x2}, ".acc");
        return tensorValue(c.pointwise(c.outMeta(), {acc}, [=](Loader& L, const std::vector<Index>& co) {
            ExprP v = eto(L.load(acc, co), ct);
            if (p == 2.0) return eunary(Op::Sqrt, v);
            if (p != 0.0 && p != 1.0 && !inf) return ebinary(Op::Pow, v, econst(1.0 / p, ct));
            return v;
        }));
    };
    // _cdist_backward(grad [*, P, R], x1 [*, P, M], x2 [*, R, M], p, cdist): x1's gradient, one
    // reduction over R of ATen's per-pair term (exec/ops/distance.cpp's distanceGradTerm).
    t["aten._cdist_backward.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int g = c.in(0), x1 = c.in(1), x2 = c.in(2), dist = c.in(4);
        if (g < 0 || x1 < 0 || x2 < 0 || dist < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype))
            return std::nullopt;
        const auto &s1 = c.meta(x1).shape, &s2 = c.meta(x2).shape;
        const size_t n = s1.size();
        if (n < 2 || s2.size() != n || !std::equal(s1.begin(), s1.end() - 2, s2.begin()) || s1[n - 1] != s2[n - 1] ||
            c.outMeta().shape != s1)
            return std::nullopt;
        const double p = c.args()[3].toDouble();
        if (!(p >= 0) || c.outMeta().numel() == 0 || s2[n - 2] == 0) return std::nullopt;
        const bool inf = std::isinf(p);
        const DType ct = computeType(c.outMeta().dtype), xt = c.meta(x1).dtype;
        std::vector<int64_t> space = s1;  // [*, P, M, R]
        space.push_back(s2[n - 2]);
        std::vector<bool> mask(space.size(), false);
        mask.back() = true;
        return tensorValue(reduceTo(
            c, c.outMeta(), space, mask, false, ReduceOp::Sum,
            [=](Loader& L, const std::vector<Index>& co) {
                std::vector<Index> a(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n)), b = a, pr = a;
                b[n - 2] = co[n];  // [*, j, m]
                pr[n - 1] = co[n];  // [*, i, j]
                ExprP diff = ebinary(Op::Sub, eto(L.load(x1, a), ct), eto(L.load(x2, b), ct));
                ExprP gv = eto(L.load(g, pr), ct), d = eto(L.load(dist, pr), ct);
                ExprP zero = econst(0, ct), dz = ebinary(Op::Eq, d, zero);
                ExprP sgn = eunary(Op::Sign, diff), ad = eunary(Op::Abs, diff);
                if (p == 0.0) return zero;
                if (p == 1.0) return ebinary(Op::Mul, gv, sgn);
                if (p == 2.0) return ewhere(dz, zero, ebinary(Op::Div, ebinary(Op::Mul, gv, diff), d));
                if (inf) {
                    // |diff| == dist compared in the input's precision, as ATen does.
                    ExprP tie = ebinary(Op::Eq, eto(ecast(ad, xt), ct), d);
                    return ewhere(tie, ebinary(Op::Mul, gv, sgn), zero);
                }
                ExprP den = ebinary(Op::Pow, d, econst(p - 1.0, ct));
                if (p < 2.0) {
                    ExprP skip = p < 1.0 ? ebinary(Op::Or, dz, ebinary(Op::Eq, diff, zero)) : dz;
                    return ewhere(skip, zero,
                                  ebinary(Op::Div,
                                          ebinary(Op::Mul, ebinary(Op::Mul, sgn, ebinary(Op::Pow, ad, econst(p - 1.0, ct))),
                                                  gv),
                                          den));
                }
                return ewhere(dz, zero,
                              ebinary(Op::Div,
                                      ebinary(Op::Mul, ebinary(Op::Mul, diff, ebinary(Op::Pow, ad, econst(p - 2.0, ct))),
                                              gv),
                                      den));
            },
            {g, x1, x2, dist}, ".acc"));
    };
    // _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim): the three inputs,
    // each unsqueezed at its expand dims, multiplied and summed over sumdim (which the result
    // drops).
    t["aten._trilinear.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int in[3] = {c.in(0), c.in(1), c.in(2)};
        if (in[0] < 0 || in[1] < 0 || in[2] < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype))
            return std::nullopt;
        std::vector<std::vector<int64_t>> shapes(3);
        std::vector<std::vector<bool>> expanded(3);
        size_t rank = 0;
        for (size_t k = 0; k < 3; ++k) {
            const auto ex = c.args().toIntList(3 + k);
            const auto& sh = c.meta(in[k]).shape;
            const size_t r = sh.size() + ex.size();
            if (k > 0 && r != rank) return std::nullopt;
            rank = r;
            expanded[k].assign(r, false);
            for (int64_t d : ex) {
                if (d < 0 || d >= static_cast<int64_t>(r)) return std::nullopt;
                expanded[k][static_cast<size_t>(d)] = true;
            }
            size_t j = 0;
            for (size_t d = 0; d < r; ++d) shapes[k].push_back(expanded[k][d] ? 1 : sh[j++]);
        }
        // Broadcast extents: a dim takes the size of any input that is not 1 there, so a size-0
        // dim stays 0 (max(1, ...) made it 1, and the kernel read an element of empty inputs).
        std::vector<int64_t> full(rank, 1);
        for (size_t d = 0; d < rank; ++d)
            for (size_t k = 0; k < 3; ++k) {
                if (shapes[k][d] == 1) continue;
                if (full[d] != 1 && full[d] != shapes[k][d]) return std::nullopt;
                full[d] = shapes[k][d];
            }
        std::vector<bool> mask(rank, false);
        for (int64_t d : c.args().toIntList(6)) {
            if (d < 0 || d >= static_cast<int64_t>(rank)) return std::nullopt;
            mask[static_cast<size_t>(d)] = true;
        }
        const DType ct = computeType(c.outMeta().dtype);
        return tensorValue(reduceTo(c, c.outMeta(), full, mask, false, ReduceOp::Sum,
                                    [=](Loader& L, const std::vector<Index>& co) {
                                        ExprP prod;
                                        for (size_t k = 0; k < 3; ++k) {
                                            std::vector<Index> at;
                                            for (size_t d = 0; d < rank; ++d)
                                                if (!expanded[k][d])
                                                    at.push_back(shapes[k][d] == 1 ? iconst(0) : co[d]);
                                            ExprP v = eto(L.load(in[k], at), ct);
                                            prod = prod ? ebinary(Op::Mul, prod, v) : v;
                                        }
                                        return prod;
                                    },
                                    {in[0], in[1], in[2]}));
    };
    // aminmax(self, *, dim=None, keepdim=False) -> (min, max): two reductions of one input.
    t["aten.aminmax.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int x = c.in(0);
        if (x < 0 || !c.out().isList() || c.out().list.size() != 2 || c.meta(x).numel() == 0) return std::nullopt;
        const TensorMeta xm = c.meta(x);
        if (isComplex(xm.dtype)) return std::nullopt;
        if (xm.shape.empty()) {
            // A 0-d tensor (dim 0 or None): its min and max are itself.
            LValue r;
            r.kind = LValue::Kind::List;
            r.isTuple = true;
            for (size_t i = 0; i < 2; ++i)
                r.items.push_back(tensorValue(c.pointwise(
                    c.outMeta(i), {x},
                    [x, t = c.outMeta(i).dtype](Loader& L, const std::vector<Index>&) { return eto(L.load(x, {}), t); },
                    i == 0 ? ".min" : ".max")));
            return r;
        }
        std::vector<int64_t> dims;
        if (!c.args().isNone(1)) dims = {c.args().toInt(1)};
        const bool keepdim = c.args().toBool(2);
        const auto mask = maskOf(dims, xm.shape.size());
        LValue r;
        r.kind = LValue::Kind::List;
        r.isTuple = true;
        for (size_t i = 0; i < 2; ++i) {
            const DType ct = computeType(c.outMeta(i).dtype);
            r.items.push_back(tensorValue(reduceTo(
                c, c.outMeta(i), xm.shape, mask, keepdim, i == 0 ? ReduceOp::Min : ReduceOp::Max,
                [x, ct](Loader& L, const std::vector<Index>& co) { return eto(L.load(x, co), ct); }, {x},
                i == 0 ? ".min" : ".max")));
        }
        return r;
    };
    t["aten.amax.default"] = [](LowerCtx& c) { return simpleReduction(c, ReduceOp::Max, false); };
    t["aten.amin.default"] = [](LowerCtx& c) { return simpleReduction(c, ReduceOp::Min, false); };
    // var.dim / std.dim / var_mean.dim: `bool unbiased` in correction's place reads as 1 or 0.
    t["aten.var.correction"] = t["aten.var.dim"] = [](LowerCtx& c) { return variance(c, false); };
    t["aten.std.dim"] = [](LowerCtx& c) { return variance(c, true); };
    t["aten.var_mean.dim"] = [](LowerCtx& c) { return variance(c, false, true); };
    t["aten.std.correction"] = [](LowerCtx& c) { return variance(c, true); };
    t["aten.var_mean.correction"] = [](LowerCtx& c) { return variance(c, false, true); };
    t["aten.std_mean.correction"] = [](LowerCtx& c) { return variance(c, true, true); };
    t["aten.max.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int x = c.in(0);
        if (x < 0 || c.meta(x).numel() == 0) return std::nullopt;
        return mapReduce(c, std::vector<bool>(c.meta(x).shape.size(), true), false, ReduceOp::Max, DType::Float32,
                         [](ExprP v) { return v; });
    };
    t["aten.min.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int x = c.in(0);
        if (x < 0 || c.meta(x).numel() == 0) return std::nullopt;
        return mapReduce(c, std::vector<bool>(c.meta(x).shape.size(), true), false, ReduceOp::Min, DType::Float32,
                         [](ExprP v) { return v; });
    };
    t["aten.prod.default"] = t["aten.prod.dim_int"] = [](LowerCtx& c) -> std::optional<LValue> {
        int x = c.in(0);
        if (x < 0 || !c.out().isTensor()) return std::nullopt;
        bool all = c.node().opName() == "aten.prod.default";
        size_t rank = c.meta(x).shape.size();
        auto mask = all ? std::vector<bool>(rank, true) : dimsArg(c, 1, rank);
        DType ct = computeType(c.outMeta().dtype);
        return mapReduce(c, mask, !all && c.args().toBool(2), ReduceOp::Prod, ct, [ct](ExprP v) { return eto(v, ct); });
    };
    t["aten.nansum.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int x = c.in(0);
        if (x < 0 || !c.out().isTensor()) return std::nullopt;
        auto mask = dimsArg(c, 1, c.meta(x).shape.size());
        DType ct = computeType(c.outMeta().dtype);
        return mapReduce(c, mask, c.args().toBool(2), ReduceOp::Sum, ct, [ct](ExprP v) {
            v = eto(v, ct);
            return isFloating(ct) ? ewhere(eunary(Op::IsNan, v), econst(0, ct), v) : v;
        });
    };
    t["aten.logsumexp.default"] = logsumexp;
    t["prims.prepare_softmax_online.default"] = prepareSoftmaxOnline;
    t["aten.any.default"] = [](LowerCtx& c) { return anyAll(c, true, 0); };
    t["aten.any.dim"] = t["aten.any.dims"] = [](LowerCtx& c) { return anyAll(c, true, 1); };
    t["aten.all.default"] = [](LowerCtx& c) { return anyAll(c, false, 0); };
    t["aten.all.dim"] = t["aten.all.dims"] = [](LowerCtx& c) { return anyAll(c, false, 1); };
    t["aten.linalg_vector_norm.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (self, ord=2, dim=None, keepdim=False, *, dtype=None)
        int x = c.in(0);
        if (x < 0 || !c.args()[1].isNumber()) return std::nullopt;
        return pnorm(c, c.args()[1].toDouble(), dimsArg(c, 2, c.meta(x).shape.size()), c.args().toBool(3));
    };
    t["aten.norm.ScalarOpt_dim"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (self, p?, dim, keepdim=False)
        int x = c.in(0);
        if (x < 0) return std::nullopt;
        double p = c.args().isNone(1) ? 2.0 : c.args()[1].toDouble();
        return pnorm(c, p, dimsArg(c, 2, c.meta(x).shape.size()), c.args().toBool(3));
    };
    t["aten._safe_softmax.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // softmax, with 0 for rows that are all -inf (PyTorch's masked attention rows)
        auto sm = softmax(c, false);
        auto s = softmaxArgs(c, 0, 1);
        if (!sm || !s) return std::nullopt;
        int x = s->x, y = sm->node;
        DType ct = s->ct;
        auto kshape = keptShape(s->shape, s->mask);
        int mx = reduceTo(
            c, keptMeta(c.meta(x), s->mask, ct), s->shape, s->mask, true, ReduceOp::Max,
            [x, ct](Loader& L, const std::vector<Index>& co) { return eto(L.load(x, co), ct); }, {x}, ".rowmax");
        return tensorValue(c.pointwise(
            c.outMeta(), {y, mx},
            [=](Loader& L, const std::vector<Index>& co) {
                ExprP allNegInf = ebinary(Op::Eq, loadBroadcast(L, mx, kshape, co), econst(-INFINITY, ct));
                return ewhere(allNegInf, econst(0, ct), eto(L.load(y, co), ct));
            },
            ".safe"));
    };
    t["aten._softmax.default"] = [](LowerCtx& c) { return softmax(c, false); };
    t["aten._log_softmax.default"] = [](LowerCtx& c) { return softmax(c, true); };
    // The composite form Dynamo-stage graphs keep (self, dim, dtype?): the same reductions, in
    // the output's dtype.
    t["aten.softmax.int"] = [](LowerCtx& c) { return softmax(c, false); };
    t["aten._softmax_backward_data.default"] = [](LowerCtx& c) { return softmaxBackward(c, false); };
    t["aten._log_softmax_backward_data.default"] = [](LowerCtx& c) { return softmaxBackward(c, true); };
}

}  // namespace fxray::cg
