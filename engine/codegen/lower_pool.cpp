// Lowerings of average pooling over the last two or three dims: avg_pool{2,3}d and adaptive
// average pooling as reductions over the window dims appended to the output's iteration space,
// with PyTorch's divisors (count_include_pad, divisor_override; adaptive windows
// floor(o*I/O) .. ceil((o+1)*I/O)), and max pooling without indices (Dynamo-stage max_pool2d).
#include "codegen/lower_util.h"

#include <algorithm>
#include <limits>

namespace fxray::cg {

namespace {

ExprP ic(int64_t v) { return econst(static_cast<double>(v), DType::Int64); }
ExprP iadd_(ExprP a, ExprP b) { return ebinary(Op::Add, std::move(a), std::move(b)); }
ExprP imul_(ExprP a, int64_t k) { return ebinary(Op::Mul, std::move(a), ic(k)); }
ExprP imin(ExprP a, ExprP b) { return ebinary(Op::Min, std::move(a), std::move(b)); }
ExprP imax(ExprP a, ExprP b) { return ebinary(Op::Max, std::move(a), std::move(b)); }

/// Index v clamped to [0, n) (a select discards the element where it was out of range).
Index clamped(const ExprP& v, int64_t n) { return ivalue(imin(imax(v, ic(0)), ic(n - 1))); }

ExprP inside(const ExprP& v, int64_t n) {
    return ebinary(Op::And, ebinary(Op::Ge, v, ic(0)), ebinary(Op::Lt, v, ic(n)));
}

/// An int list argument with one entry per pooled dim (a single entry repeated), or dflt.
std::vector<int64_t> perDim(LowerCtx& c, size_t i, std::vector<int64_t> dflt, size_t k) {
    if (i >= c.args().size() || c.args().isNone(i)) return dflt;
    auto v = c.args().toIntList(i);
    if (v.empty()) return dflt;
    if (v.size() == 1) v.resize(k, v[0]);
    return v;
}

/// Window start (inclusive) and end (exclusive) of output position o along one dim: avg_pool2d
/// (stride s, padding p, kernel k, clipped to the input) or adaptive (input I, output O).
struct Window {
    bool adaptive = false;
    int64_t k = 1, s = 1, p = 0, in = 1, out = 1;
    ExprP start(const ExprP& o) const {
        if (adaptive) return ebinary(Op::Div, imul_(o, in), ic(out));
        return iadd_(imul_(o, s), ic(-p));
    }
    ExprP end(const ExprP& o) const {
        if (adaptive) return ebinary(Op::Div, iadd_(imul_(o, in), ic(in + out - 1)), ic(out));
        return iadd_(start(o), ic(k));
    }
    /// Upper bound of the window's length.
    int64_t maxLen() const {
        if (!adaptive) return k;
        int64_t m = 1;
        for (int64_t o = 0; o < out; ++o) m = std::max(m, (o * in + in + out - 1) / out - (o * in) / out);
        return m;
    }
};

/// The divisor of the output window at positions o (one per pooled dim), as PyTorch's average
/// pools use it.
ExprP divisorOf(const std::vector<Window>& ws, bool includePad, std::optional<double> divisor,
                const std::vector<ExprP>& o, DType ct) {
    if (divisor) return econst(*divisor, ct);
    ExprP size;
    for (size_t d = 0; d < ws.size(); ++d) {
        const Window& w = ws[d];
        ExprP st = w.start(o[d]), en = w.end(o[d]);
        if (!w.adaptive) en = imin(en, ic(w.in + w.p));
        ExprP len = ebinary(Op::Sub, en, st);
        if (!w.adaptive && !includePad) len = ebinary(Op::Sub, imin(en, ic(w.in)), imax(st, ic(0)));
        size = size ? ebinary(Op::Mul, size, len) : len;
    }
    return eto(size, ct);
}

/// Average pooling over the last ws.size() dims: a sum over each output window (window dims
/// appended to the iteration space, up to the longest window) divided by the divisor.
std::optional<LValue> avgPool(LowerCtx& c, std::vector<Window> ws, bool includePad, std::optional<double> divisor) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    const std::vector<int64_t> xs = c.meta(x).shape;
    TensorMeta om = c.outMeta();
    const size_t n = om.shape.size(), k = ws.size();
    if (n < k + 1 || xs.size() != n || c.meta(x).numel() == 0 || om.numel() == 0) return std::nullopt;
    std::vector<int64_t> in = om.shape;
    for (size_t d = 0; d < k; ++d) {
        ws[d].in = xs[n - k + d], ws[d].out = om.shape[n - k + d];
        in.push_back(ws[d].maxLen());
    }
    std::vector<bool> mask(n + k, false);
    std::fill(mask.begin() + static_cast<std::ptrdiff_t>(n), mask.end(), true);
    DType ct = computeType(om.dtype);
    int sum = reduceTo(
        c, TensorMeta::contiguous(om.shape, ct, om.device), in, mask, false, ReduceOp::Sum,
        [=](Loader& L, const std::vector<Index>& co) {
            std::vector<Index> xc(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n));
            ExprP ok = econst(1, DType::Bool);
            for (size_t d = 0; d < k; ++d) {
                ExprP o = eindex(co[n - k + d]);
                ExprP i = iadd_(ws[d].start(o), eindex(co[n + d]));
                ok = ebinary(Op::And, ok, ebinary(Op::And, inside(i, ws[d].in), ebinary(Op::Lt, i, ws[d].end(o))));
                xc[n - k + d] = clamped(i, ws[d].in);
            }
            return ewhere(ok, eto(L.load(x, xc), ct), econst(0, ct));
        },
        {x}, ".sum");
    return tensorValue(c.pointwise(om, {sum}, [=](Loader& L, const std::vector<Index>& co) {
        std::vector<ExprP> o;
        for (size_t d = 0; d < k; ++d) o.push_back(eindex(co[n - k + d]));
        return ebinary(Op::Div, eto(L.load(sum, co), ct), divisorOf(ws, includePad, divisor, o, ct));
    }));
}

/// The gradient of an average pool: each input element gathers grad / divisor from the windows
/// that contain it (candidates: ceil(k/s) windows per dim for avg_pool, ceil(O/I) + 1 for the
/// adaptive pool, each checked exactly).
std::optional<LValue> avgPoolBackward(LowerCtx& c, std::vector<Window> ws, bool includePad,
                                      std::optional<double> divisor) {
    int g = c.in(0), x = c.in(1);
    if (g < 0 || x < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    const std::vector<int64_t> gs = c.meta(g).shape;
    TensorMeta om = c.outMeta();
    const size_t n = om.shape.size(), k = ws.size();
    if (n < k + 1 || gs.size() != n || om.numel() == 0 || c.meta(g).numel() == 0) return std::nullopt;
    std::vector<int64_t> in = om.shape;
    for (size_t d = 0; d < k; ++d) {
        Window& w = ws[d];
        w.in = om.shape[n - k + d], w.out = gs[n - k + d];
        if (!w.adaptive && w.s <= 0) return std::nullopt;
        in.push_back(w.adaptive ? (w.out + w.in - 1) / w.in + 1 : (w.k + w.s - 1) / w.s);
    }
    // The first candidate window of input position i (then +a adaptive, -a strided).
    auto first = [](const Window& w, const ExprP& i) {
        if (w.adaptive) return ebinary(Op::Div, imul_(i, w.out), ic(w.in));
        return ebinary(Op::Div, iadd_(i, ic(w.p)), ic(w.s));
    };
    std::vector<bool> mask(n + k, false);
    std::fill(mask.begin() + static_cast<std::ptrdiff_t>(n), mask.end(), true);
    DType ct = computeType(om.dtype);
    return tensorValue(
        reduceTo(c, om, in, mask, false, ReduceOp::Sum,
                 [=](Loader& L, const std::vector<Index>& co) {
                     std::vector<Index> gc(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n));
                     ExprP ok = econst(1, DType::Bool);
                     std::vector<ExprP> oc;
                     for (size_t d = 0; d < k; ++d) {
                         const Window& w = ws[d];
                         ExprP i = eindex(co[n - k + d]), a = eindex(co[n + d]);
                         ExprP o = w.adaptive ? iadd_(first(w, i), a) : ebinary(Op::Sub, first(w, i), a);
                         ok = ebinary(Op::And, ok, inside(o, w.out));
                         ok = ebinary(Op::And, ok,
                                      ebinary(Op::And, ebinary(Op::Le, w.start(o), i), ebinary(Op::Lt, i, w.end(o))));
                         gc[n - k + d] = clamped(o, w.out);
                         oc.push_back(eindex(gc[n - k + d]));
                     }
                     ExprP v = ebinary(Op::Div, eto(L.load(g, gc), ct), divisorOf(ws, includePad, divisor, oc, ct));
                     return ewhere(ok, v, econst(0, ct));
                 },
                 {g}));
}

/// avg_pool{2,3}d[_backward] windows from (kernel_size, stride, padding) at `first`.
std::optional<std::vector<Window>> strided(LowerCtx& c, size_t first, size_t k) {
    auto ks = perDim(c, first, {}, k);
    if (ks.size() != k) return std::nullopt;
    auto st = perDim(c, first + 1, ks, k), pd = perDim(c, first + 2, std::vector<int64_t>(k, 0), k);
    if (st.size() != k || pd.size() != k) return std::nullopt;
    std::vector<Window> ws(k);
    for (size_t d = 0; d < k; ++d) ws[d].k = ks[d], ws[d].s = st[d], ws[d].p = pd[d];
    return ws;
}

std::vector<Window> adaptive(size_t k) {
    std::vector<Window> ws(k);
    for (auto& w : ws) w.adaptive = true;
    return ws;
}

/// avg_pool{2,3}d(self, kernel_size, stride=[], padding=0, ceil_mode=False,
/// count_include_pad=True, divisor_override=None)
std::optional<LValue> avgPoolOp(LowerCtx& c, size_t k) {
    auto ws = strided(c, 1, k);
    if (!ws) return std::nullopt;
    bool includePad = c.args().size() <= 5 || c.args().isNone(5) || c.args().toBool(5);
    std::optional<double> div;
    if (c.args().size() > 6 && !c.args().isNone(6)) div = c.args()[6].toDouble();
    return avgPool(c, *ws, includePad, div);
}

/// avg_pool{2,3}d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
/// count_include_pad, divisor_override)
std::optional<LValue> avgPoolBackwardOp(LowerCtx& c, size_t k) {
    auto ws = strided(c, 2, k);
    if (!ws) return std::nullopt;
    bool includePad = c.args().isNone(6) || c.args().toBool(6);
    std::optional<double> div;
    if (c.args().size() > 7 && !c.args().isNone(7)) div = c.args()[7].toDouble();
    return avgPoolBackward(c, *ws, includePad, div);
}

/// max_pool{1,2,3}d(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False) ->
/// Tensor, as Dynamo-stage graphs keep it (no indices): a max over each window's dilated taps,
/// taps in the padding skipped (-inf). ceil_mode only sizes the output, which inference did.
std::optional<LValue> maxPoolOp(LowerCtx& c, size_t k) {
    const int x = c.in(0);
    if (x < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    const auto ks = perDim(c, 1, {}, k);
    if (ks.size() != k) return std::nullopt;
    const auto st = perDim(c, 2, ks, k), pd = perDim(c, 3, std::vector<int64_t>(k, 0), k),
               dl = perDim(c, 4, std::vector<int64_t>(k, 1), k);
    if (st.size() != k || pd.size() != k || dl.size() != k) return std::nullopt;
    const std::vector<int64_t> xs = c.meta(x).shape;
    const TensorMeta om = c.outMeta();
    const size_t n = om.shape.size();
    if (n < k + 1 || xs.size() != n || c.meta(x).numel() == 0 || om.numel() == 0) return std::nullopt;
    std::vector<int64_t> in = om.shape;
    for (size_t d = 0; d < k; ++d) {
        if (ks[d] <= 0 || st[d] <= 0 || dl[d] <= 0) return std::nullopt;
        in.push_back(ks[d]);
    }
    std::vector<bool> mask(n + k, false);
    std::fill(mask.begin() + static_cast<std::ptrdiff_t>(n), mask.end(), true);
    const DType ct = computeType(om.dtype);
    return tensorValue(reduceTo(
        c, om, in, mask, false, ReduceOp::Max,
        [=](Loader& L, const std::vector<Index>& co) {
            std::vector<Index> xc(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n));
            ExprP ok = econst(1, DType::Bool);
            for (size_t d = 0; d < k; ++d) {
                const ExprP i = iadd_(iadd_(imul_(eindex(co[n - k + d]), st[d]), ic(-pd[d])),
                                      imul_(eindex(co[n + d]), dl[d]));
                const int64_t size = xs[n - k + d];
                ok = ebinary(Op::And, ok, inside(i, size));
                xc[n - k + d] = clamped(i, size);
            }
            return ewhere(ok, eto(L.load(x, xc), ct), econst(-std::numeric_limits<double>::infinity(), ct));
        },
        {x}));
}

}  // namespace

void addPoolLowerings(std::map<std::string, LowerFn>& t) {
    t["aten.avg_pool2d.default"] = [](LowerCtx& c) { return avgPoolOp(c, 2); };
    t["aten.max_pool2d.default"] = [](LowerCtx& c) { return maxPoolOp(c, 2); };
    t["aten.avg_pool3d.default"] = [](LowerCtx& c) { return avgPoolOp(c, 3); };
    t["aten.avg_pool2d_backward.default"] = [](LowerCtx& c) { return avgPoolBackwardOp(c, 2); };
    t["aten.avg_pool3d_backward.default"] = [](LowerCtx& c) { return avgPoolBackwardOp(c, 3); };
    t["aten._adaptive_avg_pool2d_backward.default"] = [](LowerCtx& c) {
        return avgPoolBackward(c, adaptive(2), true, std::nullopt);
    };
    t["aten._adaptive_avg_pool3d_backward.default"] = [](LowerCtx& c) {
        return avgPoolBackward(c, adaptive(3), true, std::nullopt);
    };
    t["aten._adaptive_avg_pool2d.default"] =
        t["aten.adaptive_avg_pool2d.default"] = [](LowerCtx& c) { return avgPool(c, adaptive(2), true, std::nullopt); };
    t["aten._adaptive_avg_pool3d.default"] = [](LowerCtx& c) { return avgPool(c, adaptive(3), true, std::nullopt); };
}

}  // namespace fxray::cg
