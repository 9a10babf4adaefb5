// Lowerings of average pooling over the last two or three dims: avg_pool{2,3}d and adaptive
// average pooling as reductions over the window dims appended to the output's iteration space,
// with PyTorch's divisors (count_include_pad, divisor_override; adaptive windows
// floor(o*I/O) .. ceil((o+1)*I/O)), max pooling without indices (Dynamo-stage max_pool2d), and
// im2col/col2im (F.unfold/F.fold) as a gather and a sum over the kernel offsets.
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

/// im2col / col2im geometry: kernel, dilation, padding and stride per spatial dim (args from
/// `first`), the image size and the block grid.
struct Fold {
    int64_t k[2], d[2], p[2], s[2], img[2], blocks[2];
    int64_t K() const { return k[0] * k[1]; }
    int64_t L() const { return blocks[0] * blocks[1]; }
};

std::optional<Fold> foldOf(LowerCtx& c, size_t first, const int64_t img[2]) {
    Fold f;
    for (size_t i = 0; i < 4; ++i) {
        auto v = c.args().toIntList(first + i);
        if (v.size() != 2) return std::nullopt;
        int64_t* dst = i == 0 ? f.k : i == 1 ? f.d : i == 2 ? f.p : f.s;
        dst[0] = v[0], dst[1] = v[1];
    }
    for (size_t i = 0; i < 2; ++i) {
        if (f.k[i] <= 0 || f.d[i] <= 0 || f.s[i] <= 0 || f.p[i] < 0) return std::nullopt;
        f.img[i] = img[i];
        f.blocks[i] = (img[i] + 2 * f.p[i] - f.d[i] * (f.k[i] - 1) - 1) / f.s[i] + 1;
        if (f.blocks[i] <= 0) return std::nullopt;
    }
    return f;
}

/// im2col(self [N?, C, H, W], kernel_size, dilation, padding, stride) -> [N?, C*kh*kw, L]
/// (F.unfold): each element reads its block's pixel, zero in the padding.
std::optional<LValue> im2col(LowerCtx& c) {
    const int x = c.in(0);
    if (x < 0 || !c.out().isTensor()) return std::nullopt;
    const auto& xs = c.meta(x).shape;
    const TensorMeta om = c.outMeta();
    const size_t b = xs.size() == 4 ? 1 : 0;  // batched
    if ((xs.size() != 3 && xs.size() != 4) || om.numel() == 0) return std::nullopt;
    const int64_t img[2] = {xs[b + 1], xs[b + 2]};
    const auto f = foldOf(c, 1, img);
    if (!f || om.shape.size() != b + 2 || om.shape[b] != xs[b] * f->K() || om.shape[b + 1] != f->L())
        return std::nullopt;
    const DType ct = computeType(om.dtype);
    return tensorValue(c.pointwise(om, {x}, [=](Loader& L, const std::vector<Index>& co) {
        ExprP ck = eindex(co[b]), l = eindex(co[b + 1]);
        ExprP kk = ebinary(Op::ModOp, ck, ic(f->K()));
        ExprP pos[2] = {ebinary(Op::Div, l, ic(f->blocks[1])), ebinary(Op::ModOp, l, ic(f->blocks[1]))};
        ExprP ki[2] = {ebinary(Op::Div, kk, ic(f->k[1])), ebinary(Op::ModOp, kk, ic(f->k[1]))};
        std::vector<Index> xc;
        if (b) xc.push_back(co[0]);
        xc.push_back(ivalue(ebinary(Op::Div, ck, ic(f->K()))));
        ExprP ok = econst(1, DType::Bool);
        for (size_t i = 0; i < 2; ++i) {
            ExprP v = iadd_(iadd_(imul_(pos[i], f->s[i]), ic(-f->p[i])), imul_(ki[i], f->d[i]));
            ok = ebinary(Op::And, ok, inside(v, f->img[i]));
            xc.push_back(clamped(v, f->img[i]));
        }
        return ewhere(ok, eto(L.load(x, xc), ct), econst(0, ct));
    }));
}

/// col2im(self [N?, C*kh*kw, L], output_size, kernel_size, dilation, padding, stride) ->
/// [N?, C, H, W] (F.fold): each pixel sums, over the kernel offsets (appended reduction dims),
/// the column entry of the block that covers it there, if any.
std::optional<LValue> col2im(LowerCtx& c) {
    const int x = c.in(0);
    if (x < 0 || !c.out().isTensor()) return std::nullopt;
    const auto& xs = c.meta(x).shape;
    const TensorMeta om = c.outMeta();
    const size_t b = xs.size() == 3 ? 1 : 0;
    if ((xs.size() != 2 && xs.size() != 3) || om.numel() == 0 || om.shape.size() != b + 3) return std::nullopt;
    const auto osz = c.args().toIntList(1);
    if (osz.size() != 2) return std::nullopt;
    const int64_t img[2] = {osz[0], osz[1]};
    const auto f = foldOf(c, 2, img);
    if (!f || xs[b] != om.shape[b] * f->K() || xs[b + 1] != f->L()) return std::nullopt;
    std::vector<int64_t> space = om.shape;
    space.push_back(f->k[0]);
    space.push_back(f->k[1]);
    std::vector<bool> mask(space.size(), false);
    mask[b + 3] = mask[b + 4] = true;
    const DType ct = computeType(om.dtype);
    return tensorValue(reduceTo(
        c, om, space, mask, false, ReduceOp::Sum,
        [=](Loader& L, const std::vector<Index>& co) {
            ExprP ok = econst(1, DType::Bool);
            ExprP blk[2];
            for (size_t i = 0; i < 2; ++i) {
                ExprP num = ebinary(Op::Sub, iadd_(eindex(co[b + 1 + i]), ic(f->p[i])), imul_(eindex(co[b + 3 + i]), f->d[i]));
                ExprP q = ebinary(Op::Div, num, ic(f->s[i]));
                ok = ebinary(Op::And, ok, ebinary(Op::Ge, num, ic(0)));
                ok = ebinary(Op::And, ok, ebinary(Op::Eq, ebinary(Op::ModOp, num, ic(f->s[i])), ic(0)));
                ok = ebinary(Op::And, ok, ebinary(Op::Lt, q, ic(f->blocks[i])));
                blk[i] = imin(imax(q, ic(0)), ic(f->blocks[i] - 1));
            }
            ExprP row = iadd_(imul_(eindex(co[b]), f->K()), iadd_(imul_(eindex(co[b + 3]), f->k[1]), eindex(co[b + 4])));
            std::vector<Index> xc;
            if (b) xc.push_back(co[0]);
            xc.push_back(ivalue(row));
            xc.push_back(ivalue(iadd_(imul_(blk[0], f->blocks[1]), blk[1])));
            return ewhere(ok, eto(L.load(x, xc), ct), econst(0, ct));
        },
        {x}));
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
    t["aten.im2col.default"] = im2col;
    t["aten.col2im.default"] = col2im;
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
