// Lowerings of average pooling over the last two dims: avg_pool2d and adaptive average pooling
// as reductions over the window dims appended to the output's iteration space, with PyTorch's
// divisors (count_include_pad, divisor_override; adaptive windows floor(o*I/O) .. ceil((o+1)*I/O)).
#include "codegen/lower_util.h"

#include <algorithm>

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

std::vector<int64_t> pair(LowerCtx& c, size_t i, std::vector<int64_t> dflt) {
    if (i >= c.args().size() || c.args().isNone(i)) return dflt;
    auto v = c.args().toIntList(i);
    if (v.empty()) return dflt;
    if (v.size() == 1) v.push_back(v[0]);
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

/// The divisor of output window (oh, ow), as PyTorch's avg_pool2d and adaptive pools use it.
ExprP divisorOf(const Window& wh, const Window& ww, int64_t H, int64_t W, bool includePad, std::optional<double> divisor,
                const ExprP& oh, const ExprP& ow, DType ct) {
    if (divisor) return econst(*divisor, ct);
    ExprP hs = wh.start(oh), ws = ww.start(ow), he = wh.end(oh), we = ww.end(ow);
    if (!wh.adaptive) {
        he = imin(he, ic(H + wh.p));
        we = imin(we, ic(W + ww.p));
    }
    ExprP size = ebinary(Op::Mul, ebinary(Op::Sub, he, hs), ebinary(Op::Sub, we, ws));
    if (!wh.adaptive && !includePad) {
        ExprP h = ebinary(Op::Sub, imin(he, ic(H)), imax(hs, ic(0)));
        ExprP w = ebinary(Op::Sub, imin(we, ic(W)), imax(ws, ic(0)));
        size = ebinary(Op::Mul, h, w);
    }
    return eto(size, ct);
}

std::optional<LValue> avgPool(LowerCtx& c, Window wh, Window ww, bool includePad, std::optional<double> divisor) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    const std::vector<int64_t> xs = c.meta(x).shape;
    TensorMeta om = c.outMeta();
    size_t n = om.shape.size();
    if (n < 3 || xs.size() != n || c.meta(x).numel() == 0 || om.numel() == 0) return std::nullopt;
    int64_t H = xs[n - 2], W = xs[n - 1];
    wh.in = H, ww.in = W, wh.out = om.shape[n - 2], ww.out = om.shape[n - 1];
    int64_t KH = wh.maxLen(), KW = ww.maxLen();
    std::vector<int64_t> in = om.shape;
    in.push_back(KH);
    in.push_back(KW);
    std::vector<bool> mask(n + 2, false);
    mask[n] = mask[n + 1] = true;
    DType ct = computeType(om.dtype);
    int sum = reduceTo(c, TensorMeta::contiguous(om.shape, ct, om.device), in, mask, false, ReduceOp::Sum,
                       [=](Loader& L, const std::vector<Index>& co) {
        ExprP ih = iadd_(wh.start(eindex(co[n - 2])), eindex(co[n])), iw = iadd_(ww.start(eindex(co[n - 1])), eindex(co[n + 1]));
        ExprP ok = ebinary(Op::And, inside(ih, H), inside(iw, W));
        ok = ebinary(Op::And, ok, ebinary(Op::Lt, ih, wh.end(eindex(co[n - 2]))));
        ok = ebinary(Op::And, ok, ebinary(Op::Lt, iw, ww.end(eindex(co[n - 1]))));
        std::vector<Index> xc(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n));
        xc[n - 2] = clamped(ih, H);
        xc[n - 1] = clamped(iw, W);
        return ewhere(ok, eto(L.load(x, xc), ct), econst(0, ct));
    }, {x}, ".sum");
    return tensorValue(c.pointwise(om, {sum}, [=](Loader& L, const std::vector<Index>& co) {
        ExprP d = divisorOf(wh, ww, H, W, includePad, divisor, eindex(co[n - 2]), eindex(co[n - 1]), ct);
        return ebinary(Op::Div, eto(L.load(sum, co), ct), d);
    }));
}

/// The gradient of an average pool: each input element gathers grad / divisor from the windows
/// that contain it (candidates: ceil(k/s) windows per dim for avg_pool2d, ceil(O/I) + 1 for the
/// adaptive pool, each checked exactly).
std::optional<LValue> avgPoolBackward(LowerCtx& c, Window wh, Window ww, bool includePad, std::optional<double> divisor) {
    int g = c.in(0), x = c.in(1);
    if (g < 0 || x < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    const std::vector<int64_t> gs = c.meta(g).shape;
    TensorMeta om = c.outMeta();
    size_t n = om.shape.size();
    if (n < 3 || gs.size() != n || om.numel() == 0 || c.meta(g).numel() == 0) return std::nullopt;
    int64_t H = om.shape[n - 2], W = om.shape[n - 1], OH = gs[n - 2], OW = gs[n - 1];
    wh.in = H, ww.in = W, wh.out = OH, ww.out = OW;
    if (!wh.adaptive && (wh.s <= 0 || ww.s <= 0)) return std::nullopt;
    auto count = [](const Window& w) { return w.adaptive ? (w.out + w.in - 1) / w.in + 1 : (w.k + w.s - 1) / w.s; };
    int64_t AH = count(wh), AW = count(ww);
    // The first candidate window of input position i (then +a adaptive, -a strided).
    auto first = [](const Window& w, const ExprP& i) {
        if (w.adaptive) return ebinary(Op::Div, imul_(i, w.out), ic(w.in));
        return ebinary(Op::Div, iadd_(i, ic(w.p)), ic(w.s));
    };
    std::vector<int64_t> in = om.shape;
    in.push_back(AH);
    in.push_back(AW);
    std::vector<bool> mask(n + 2, false);
    mask[n] = mask[n + 1] = true;
    DType ct = computeType(om.dtype);
    return tensorValue(reduceTo(c, om, in, mask, false, ReduceOp::Sum, [=](Loader& L, const std::vector<Index>& co) {
        ExprP ih = eindex(co[n - 2]), iw = eindex(co[n - 1]);
        ExprP ah = eindex(co[n]), aw = eindex(co[n + 1]);
        ExprP oh = wh.adaptive ? iadd_(first(wh, ih), ah) : ebinary(Op::Sub, first(wh, ih), ah);
        ExprP ow = ww.adaptive ? iadd_(first(ww, iw), aw) : ebinary(Op::Sub, first(ww, iw), aw);
        ExprP ok = ebinary(Op::And, inside(oh, OH), inside(ow, OW));
        ok = ebinary(Op::And, ok, ebinary(Op::And, ebinary(Op::Le, wh.start(oh), ih), ebinary(Op::Lt, ih, wh.end(oh))));
        ok = ebinary(Op::And, ok, ebinary(Op::And, ebinary(Op::Le, ww.start(ow), iw), ebinary(Op::Lt, iw, ww.end(ow))));
        std::vector<Index> gc(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n));
        gc[n - 2] = clamped(oh, OH);
        gc[n - 1] = clamped(ow, OW);
        ExprP ohc = eindex(gc[n - 2]), owc = eindex(gc[n - 1]);
        ExprP v = ebinary(Op::Div, eto(L.load(g, gc), ct), divisorOf(wh, ww, H, W, includePad, divisor, ohc, owc, ct));
        return ewhere(ok, v, econst(0, ct));
    }, {g}));
}

} // namespace

void addPoolLowerings(std::map<std::string, LowerFn>& t) {
    t["aten.avg_pool2d.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (self, kernel_size, stride=[], padding=0, ceil_mode=False, count_include_pad=True,
        //  divisor_override=None)
        auto k = pair(c, 1, {});
        if (k.size() != 2) return std::nullopt;
        auto s = pair(c, 2, k), p = pair(c, 3, {0, 0});
        Window wh, ww;
        wh.k = k[0], wh.s = s[0], wh.p = p[0];
        ww.k = k[1], ww.s = s[1], ww.p = p[1];
        bool includePad = c.args().size() <= 5 || c.args().isNone(5) || c.args().toBool(5);
        std::optional<double> div;
        if (c.args().size() > 6 && !c.args().isNone(6)) div = c.args()[6].toDouble();
        return avgPool(c, wh, ww, includePad, div);
    };
    t["aten.avg_pool2d_backward.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad,
        //  divisor_override)
        auto k = pair(c, 2, {});
        if (k.size() != 2) return std::nullopt;
        auto s = pair(c, 3, k), p = pair(c, 4, {0, 0});
        Window wh, ww;
        wh.k = k[0], wh.s = s[0], wh.p = p[0];
        ww.k = k[1], ww.s = s[1], ww.p = p[1];
        bool includePad = c.args().isNone(6) || c.args().toBool(6);
        std::optional<double> div;
        if (c.args().size() > 7 && !c.args().isNone(7)) div = c.args()[7].toDouble();
        return avgPoolBackward(c, wh, ww, includePad, div);
    };
    t["aten._adaptive_avg_pool2d_backward.default"] = [](LowerCtx& c) {
        Window wh, ww;
        wh.adaptive = ww.adaptive = true;
        return avgPoolBackward(c, wh, ww, true, std::nullopt);
    };
    t["aten._adaptive_avg_pool2d.default"] = t["aten.adaptive_avg_pool2d.default"] = [](LowerCtx& c) {
        Window wh, ww;
        wh.adaptive = ww.adaptive = true;
        return avgPool(c, wh, ww, true, std::nullopt);
    };
}

} // namespace fxray::cg
