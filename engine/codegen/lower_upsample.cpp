// Lowerings of the upsampling ops Inductor lowers (upsample_nearest*, _upsample_nearest_exact*,
// upsample_linear1d / bilinear2d / trilinear3d, upsample_bicubic2d): one pointwise gather per output element, the
// source positions computed in the kernel as ATen's UpSample.h does (in fp32 for fp32 data:
// nearest's floor(o * scale), the linear modes' half-pixel centres or align_corners), the
// linear modes blending the 2^N neighbouring taps in ATen's nesting order. Their backwards are
// gathers, over the window of output positions that can read an input element, of the gradient
// times the weight each position read it with. grid_sampler_2d (bilinear and
// nearest, zeros and border padding) is the same kind of gather at positions read from the grid.
#include "codegen/lower_util.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

namespace fxray::cg {

namespace {

enum class Mode : uint8_t { Nearest, NearestExact, Linear, Cubic };

ExprP ic(int64_t v) { return econst(static_cast<double>(v), DType::Int64); }

/// compute_scales_value: 1/scale when a positive scale was given, else input/output.
double scalesValue(std::optional<double> scale, int64_t in, int64_t out) {
    return scale && *scale > 0.0 ? 1.0 / *scale : double(in) / double(out);
}

/// One spatial dim: its input and output sizes and the scale argument.
struct Dim {
    int64_t in = 1, out = 1;
    std::optional<double> scale;
};

/// The nearest source index of output coordinate o (clamped to the input).
Index nearestIndex(Mode m, const Dim& d, const Index& o) {
    if (m == Mode::Nearest && d.out == d.in) return o;
    if (m == Mode::Nearest && d.out == 2 * d.in) return idiv(o, 2);
    const double s = static_cast<float>(scalesValue(d.scale, d.in, d.out));
    ExprP pos;
    if (m == Mode::Nearest) {
        pos = ebinary(Op::Mul, eto(eindex(o), DType::Float32), econst(s, DType::Float32));
    } else {
        pos = ebinary(Op::Mul, ebinary(Op::Add, eto(eindex(o), DType::Float64), econst(0.5, DType::Float64)),
                      econst(s, DType::Float64));
    }
    ExprP i = eto(eunary(Op::Floor, pos), DType::Int64);
    return ivalue(ebinary(Op::Min, ebinary(Op::Max, i, ic(0)), ic(d.in - 1)));
}

/// The two taps of a linear mode along one dim: indices i0, i1 and the weight of i1.
struct LinearTaps {
    Index i0, i1;
    ExprP lambda;
};

LinearTaps linearTaps(const Dim& d, const Index& o, bool alignCorners, DType ct) {
    double sc;
    if (alignCorners)
        sc = d.out > 1 ? double(d.in - 1) / double(d.out - 1) : 0.0;
    else
        sc = scalesValue(d.scale, d.in, d.out);
    if (ct == DType::Float32) sc = static_cast<float>(sc);
    ExprP dst = eto(eindex(o), ct);
    ExprP real;
    if (alignCorners) {
        real = ebinary(Op::Mul, econst(sc, ct), dst);
    } else {
        real =
            ebinary(Op::Sub, ebinary(Op::Mul, econst(sc, ct), ebinary(Op::Add, dst, econst(0.5, ct))), econst(0.5, ct));
        real = ebinary(Op::Max, real, econst(0.0, ct));
    }
    ExprP i0 = ebinary(Op::Min, eto(eunary(Op::Floor, real), DType::Int64), ic(d.in - 1));
    ExprP lambda = ebinary(Op::Sub, real, eto(i0, ct));
    lambda = ebinary(Op::Min, ebinary(Op::Max, lambda, econst(0.0, ct)), econst(1.0, ct));
    ExprP i1 = ebinary(Op::Min, ebinary(Op::Add, i0, ic(1)), ic(d.in - 1));
    return {ivalue(i0), ivalue(i1), lambda};
}

/// The taps of one dim at output coordinate o: source index and weight (null: weight 1).
struct Tap {
    Index index;
    ExprP weight;
};

/// Bicubic taps (Keys' kernel, A = -0.75, ATen's get_cubic_upsample_coefficients) at
/// min(floor(real), in - 1) - 1 .. + 2, each clamped to the input; positions keep negatives.
std::vector<Tap> cubicTaps(const Dim& d, const Index& o, bool alignCorners, DType ct) {
    double sc;
    if (alignCorners)
        sc = d.out > 1 ? double(d.in - 1) / double(d.out - 1) : 0.0;
    else
        sc = scalesValue(d.scale, d.in, d.out);
    if (ct == DType::Float32) sc = static_cast<float>(sc);
    auto k = [ct](double v) { return econst(v, ct); };
    ExprP dst = eto(eindex(o), ct);
    ExprP real = alignCorners ? ebinary(Op::Mul, k(sc), dst)
                              : ebinary(Op::Sub, ebinary(Op::Mul, k(sc), ebinary(Op::Add, dst, k(0.5))), k(0.5));
    ExprP i0 = ebinary(Op::Min, eto(eunary(Op::Floor, real), DType::Int64), ic(d.in - 1));
    ExprP t = ebinary(Op::Min, ebinary(Op::Max, ebinary(Op::Sub, real, eto(i0, ct)), k(0)), k(1));
    constexpr double A = -0.75;
    auto near = [&](ExprP x) {  // ((A + 2) x - (A + 3)) x x + 1
        ExprP v = ebinary(Op::Sub, ebinary(Op::Mul, k(A + 2), x), k(A + 3));
        return ebinary(Op::Add, ebinary(Op::Mul, ebinary(Op::Mul, v, x), x), k(1));
    };
    auto far = [&](ExprP x) {  // ((A x - 5 A) x + 8 A) x - 4 A
        ExprP v = ebinary(Op::Sub, ebinary(Op::Mul, k(A), x), k(5 * A));
        v = ebinary(Op::Add, ebinary(Op::Mul, v, x), k(8 * A));
        return ebinary(Op::Sub, ebinary(Op::Mul, v, x), k(4 * A));
    };
    const ExprP w[4] = {far(ebinary(Op::Add, t, k(1))), near(t), near(ebinary(Op::Sub, k(1), t)),
                        far(ebinary(Op::Sub, k(2), t))};
    std::vector<Tap> taps;
    for (int64_t j = 0; j < 4; ++j) {
        ExprP idx = ebinary(Op::Min, ebinary(Op::Max, ebinary(Op::Add, i0, ic(j - 1)), ic(0)), ic(d.in - 1));
        taps.push_back({ivalue(idx), w[j]});
    }
    return taps;
}

std::vector<Tap> dimTaps(Mode m, const Dim& d, const Index& o, bool alignCorners, DType ct) {
    if (m == Mode::Cubic) return cubicTaps(d, o, alignCorners, ct);
    if (m != Mode::Linear) return {{nearestIndex(m, d, o), nullptr}};
    LinearTaps t = linearTaps(d, o, alignCorners, ct);
    return {{t.i0, ebinary(Op::Sub, econst(1.0, ct), t.lambda)}, {t.i1, t.lambda}};
}

/// What an upsampling node resamples: its spatial dims and arguments.
struct Resample {
    Mode mode = Mode::Nearest;
    std::vector<Dim> dims;
    bool align = false;
    DType ct = DType::Float32;
};

/// Reads the spatial sizes (input and output shapes of the forward op) and, from argument
/// `first`, [align_corners,] then one scale per dim, or (vec: the `.vec` overloads Dynamo-stage
/// graphs keep) one optional list of them.
std::optional<Resample> readResample(LowerCtx& c, Mode m, size_t n, const std::vector<int64_t>& in,
                                     const std::vector<int64_t>& out, size_t first, bool vec = false) {
    if (in.size() != n + 2 || out.size() != n + 2 || isComplex(c.outMeta().dtype)) return std::nullopt;
    Resample r;
    r.mode = m;
    r.ct = computeType(c.outMeta().dtype);
    const bool interpolates = m == Mode::Linear || m == Mode::Cubic;
    if (interpolates && r.ct != DType::Float32 && r.ct != DType::Float64) return std::nullopt;
    if (interpolates) r.align = c.args().toBool(first++);
    r.dims.resize(n);
    for (size_t d = 0; d < n; ++d) {
        r.dims[d].in = in[2 + d];
        r.dims[d].out = out[2 + d];
        if (r.dims[d].in <= 0 || r.dims[d].out <= 0) return std::nullopt;
        if (vec) {
            if (first < c.args().size() && c.args()[first].isList()) {
                const auto& items = c.args()[first].list;
                if (items.size() != n) return std::nullopt;
                r.dims[d].scale = items[d].toDouble();
            }
            continue;
        }
        const size_t a = first + d;
        if (a < c.args().size() && !c.args().isNone(a)) r.dims[d].scale = c.args().toDouble(a);
    }
    return r;
}

/// upsample_*(self, output_size, [align_corners,] scales...) over the last n dims of an (n+2)-d
/// input: each output element blends its taps (w0 * taps at i0 + w1 * taps at i1, outer dim
/// first, as ATen nests them).
std::optional<LValue> lowerUpsample(LowerCtx& c, Mode m, size_t n, bool vec = false) {
    const int x = c.in(0);
    if (x < 0 || !c.out().isTensor()) return std::nullopt;
    const TensorMeta om = c.outMeta();
    auto r = readResample(c, m, n, c.meta(x).shape, om.shape, 2, vec);
    if (!r) return std::nullopt;
    const Resample rs = *r;
    return tensorValue(c.pointwise(om, {x}, [=](Loader& L, const std::vector<Index>& co) -> ExprP {
        std::vector<Index> xc{co[0], co[1]};
        std::vector<std::vector<Tap>> taps;
        for (size_t d = 0; d < n; ++d) taps.push_back(dimTaps(rs.mode, rs.dims[d], co[2 + d], rs.align, rs.ct));
        std::function<ExprP(size_t)> blend = [&](size_t d) -> ExprP {
            if (d == n) return eto(L.load(x, xc), rs.ct);
            ExprP sum;
            for (const Tap& t : taps[d]) {
                xc.push_back(t.index);
                ExprP v = blend(d + 1);
                xc.pop_back();
                if (t.weight) v = ebinary(Op::Mul, t.weight, v);
                sum = sum ? ebinary(Op::Add, sum, v) : v;
            }
            return sum;
        };
        return blend(0);
    }));
}

/// Output positions each input element gathers over, per element (the windows' product): past
/// it the reference kernel runs (a reported fallback) rather than a slow kernel.
constexpr int64_t kMaxWindowWork = int64_t{1} << 12;

/// The output positions that can read input element i along one dim lie in a window
/// [start(i), start(i) + length): the taps reach `reach` inputs either side of a source position
/// (nearest 0, linear 1, cubic 2) and input i's sources sit near i * f for f output positions per
/// input (half a pixel off for the half-pixel modes). The window is generous; whether a position
/// reads i is still decided exactly by its taps. A window as long as the output covers it all.
struct Window {
    double f = 1, offset = 0;
    int64_t length = 1;
    bool whole = true;
};

Window windowOf(const Resample& rs, const Dim& d) {
    Window w;
    const int reach = rs.mode == Mode::Cubic ? 2 : rs.mode == Mode::Linear ? 1 : 0;
    if (rs.align && (rs.mode == Mode::Linear || rs.mode == Mode::Cubic)) {
        if (d.in <= 1) return w;
        w.f = double(d.out - 1) / double(d.in - 1);
    } else {
        w.f = 1.0 / scalesValue(d.scale, d.in, d.out);
        if (rs.mode != Mode::Nearest) w.offset = -0.5;
    }
    if (!(w.f > 0) || !std::isfinite(w.f)) return w;
    w.offset -= reach * w.f + 2.0;
    w.length = static_cast<int64_t>(std::ceil((2 * reach + 1) * w.f)) + 5;
    w.whole = w.length >= d.out;
    if (w.whole) w.length = d.out;
    return w;
}

/// upsample_*_backward(grad_output, output_size, input_size, [align_corners,] scales...): each
/// input element gathers, over every output position, the gradient times the weight with which
/// that position read it (the per-dim weights multiply: the taps are separable).
std::optional<LValue> lowerUpsampleBackward(LowerCtx& c, Mode m, size_t n) {
    const int g = c.in(0);
    if (g < 0 || !c.out().isTensor()) return std::nullopt;
    const TensorMeta om = c.outMeta();
    const std::vector<int64_t> gs = c.meta(g).shape;
    auto r = readResample(c, m, n, om.shape, gs, 3);
    if (!r || om.dtype != r->ct) return std::nullopt;
    const Resample rs = *r;
    std::vector<Window> win;
    int64_t work = 1;
    for (size_t d = 0; d < n; ++d) {
        win.push_back(windowOf(rs, rs.dims[d]));
        work *= win.back().length;
    }
    if (work > kMaxWindowWork) return std::nullopt;
    std::vector<int64_t> in = om.shape;
    for (size_t d = 0; d < n; ++d) in.push_back(win[d].length);
    std::vector<bool> mask(in.size(), false);
    std::fill(mask.begin() + static_cast<std::ptrdiff_t>(n + 2), mask.end(), true);
    return tensorValue(reduceTo(
        c, TensorMeta::contiguous(om.shape, om.dtype, om.device), in, mask, false, ReduceOp::Sum,
        [=](Loader& L, const std::vector<Index>& co) -> ExprP {
            std::vector<Index> gc{co[0], co[1]};
            ExprP v, inside;
            for (size_t d = 0; d < n; ++d) {
                // Output position o = the window's start for this input element + k.
                Index o = co[n + 2 + d];
                if (!win[d].whole) {
                    ExprP start = eto(eunary(Op::Floor, ebinary(Op::Add,
                                                                ebinary(Op::Mul, eto(eindex(co[2 + d]), DType::Float64),
                                                                        econst(win[d].f, DType::Float64)),
                                                                econst(win[d].offset, DType::Float64))),
                                      DType::Int64);
                    ExprP at = ebinary(Op::Add, start, eindex(o));
                    ExprP ok = ebinary(Op::And, ebinary(Op::Ge, at, ic(0)), ebinary(Op::Lt, at, ic(rs.dims[d].out)));
                    inside = inside ? ebinary(Op::And, inside, ok) : ok;
                    o = ivalue(ebinary(Op::Min, ebinary(Op::Max, at, ic(0)), ic(rs.dims[d].out - 1)));
                }
                gc.push_back(o);
                ExprP w;
                for (const Tap& t : dimTaps(rs.mode, rs.dims[d], o, rs.align, rs.ct)) {
                    ExprP hit = ebinary(Op::Eq, eindex(t.index), eindex(co[2 + d]));
                    ExprP wt = ewhere(hit, t.weight ? t.weight : econst(1.0, rs.ct), econst(0.0, rs.ct));
                    w = w ? ebinary(Op::Add, w, wt) : wt;
                }
                v = v ? ebinary(Op::Mul, v, w) : w;
            }
            ExprP term = ebinary(Op::Mul, eto(L.load(g, gc), rs.ct), v);
            return inside ? ewhere(inside, term, econst(0.0, rs.ct)) : term;
        },
        {g}));
}

/// grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners) for bilinear (0)
/// and nearest (1) sampling with zeros (0) or border (1) padding, as Inductor's decomposition:
/// grid coordinates unnormalised to pixel positions, taps outside the input contribute 0.
/// cudnn_grid_sampler(self, grid) is the bilinear, zero-padded, align_corners sampler.
std::optional<LValue> gridSampler2d(LowerCtx& c, bool cudnn) {
    const int x = c.in(0), grid = c.in(1);
    if (x < 0 || grid < 0 || !c.out().isTensor()) return std::nullopt;
    const TensorMeta om = c.outMeta();
    const std::vector<int64_t> xs = c.meta(x).shape, gs = c.meta(grid).shape;
    const int64_t mode = cudnn ? 0 : c.args().toInt(2), padding = cudnn ? 0 : c.args().toInt(3);
    const bool align = cudnn || c.args().toBool(4);
    const DType ct = computeType(om.dtype);
    if (xs.size() != 4 || gs.size() != 4 || gs[3] != 2 || (mode != 0 && mode != 1) || (padding != 0 && padding != 1) ||
        (ct != DType::Float32 && ct != DType::Float64) || xs[2] <= 0 || xs[3] <= 0)
        return std::nullopt;
    const int64_t H = xs[2], W = xs[3];
    return tensorValue(c.pointwise(om, {x, grid}, [=](Loader& L, const std::vector<Index>& co) -> ExprP {
        auto k = [ct](double v) { return econst(v, ct); };
        // Pixel position along a dim of `size` for grid coordinate g.
        auto source = [&](ExprP g, int64_t size) {
            ExprP p =
                align ? ebinary(Op::Mul, ebinary(Op::Div, ebinary(Op::Add, g, k(1)), k(2)), k(double(size - 1)))
                      : ebinary(Op::Div,
                                ebinary(Op::Sub, ebinary(Op::Mul, ebinary(Op::Add, g, k(1)), k(double(size))), k(1)),
                                k(2));
            if (padding == 1) p = ebinary(Op::Min, ebinary(Op::Max, p, k(0)), k(double(size - 1)));
            return p;
        };
        ExprP ix = source(eto(L.load(grid, {co[0], co[2], co[3], iconst(0)}), ct), W);
        ExprP iy = source(eto(L.load(grid, {co[0], co[2], co[3], iconst(1)}), ct), H);
        // The input at integer position (yi, xi) (Int64), 0 outside.
        auto tap = [&](ExprP yi, ExprP xi) {
            auto inside = [](ExprP i, int64_t size) {
                return ebinary(Op::And, ebinary(Op::Ge, i, ic(0)), ebinary(Op::Lt, i, ic(size)));
            };
            auto clamp = [](ExprP i, int64_t size) {
                return ivalue(ebinary(Op::Min, ebinary(Op::Max, i, ic(0)), ic(size - 1)));
            };
            ExprP v = eto(L.load(x, {co[0], co[1], clamp(yi, H), clamp(xi, W)}), ct);
            return ewhere(ebinary(Op::And, inside(yi, H), inside(xi, W)), v, k(0));
        };
        if (mode == 1) return tap(eto(eunary(Op::Round, iy), DType::Int64), eto(eunary(Op::Round, ix), DType::Int64));
        ExprP fx = eunary(Op::Floor, ix), fy = eunary(Op::Floor, iy);
        ExprP x0 = eto(fx, DType::Int64), y0 = eto(fy, DType::Int64);
        ExprP x1 = ebinary(Op::Add, x0, ic(1)), y1 = ebinary(Op::Add, y0, ic(1));
        ExprP wx1 = ebinary(Op::Sub, ix, fx), wy1 = ebinary(Op::Sub, iy, fy);
        ExprP wx0 = ebinary(Op::Sub, k(1), wx1), wy0 = ebinary(Op::Sub, k(1), wy1);
        ExprP nw = ebinary(Op::Mul, tap(y0, x0), ebinary(Op::Mul, wx0, wy0));
        ExprP ne = ebinary(Op::Mul, tap(y0, x1), ebinary(Op::Mul, wx1, wy0));
        ExprP sw = ebinary(Op::Mul, tap(y1, x0), ebinary(Op::Mul, wx0, wy1));
        ExprP se = ebinary(Op::Mul, tap(y1, x1), ebinary(Op::Mul, wx1, wy1));
        return ebinary(Op::Add, ebinary(Op::Add, nw, ne), ebinary(Op::Add, sw, se));
    }));
}

}  // namespace

void addUpsampleLowerings(std::map<std::string, LowerFn>& t) {
    t["aten.upsample_nearest1d.default"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Nearest, 1); };
    t["aten.upsample_nearest2d.default"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Nearest, 2); };
    t["aten.upsample_nearest3d.default"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Nearest, 3); };
    t["aten._upsample_nearest_exact1d.default"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::NearestExact, 1); };
    t["aten._upsample_nearest_exact2d.default"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::NearestExact, 2); };
    t["aten._upsample_nearest_exact3d.default"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::NearestExact, 3); };
    t["aten.upsample_linear1d.default"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Linear, 1); };
    t["aten.upsample_bilinear2d.default"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Linear, 2); };
    t["aten.upsample_trilinear3d.default"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Linear, 3); };
    t["aten.upsample_bicubic2d.default"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Cubic, 2); };
    // The .vec overloads (output_size or scale_factors), as Dynamo-stage graphs keep them.
    t["aten._upsample_nearest_exact1d.vec"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::NearestExact, 1, true); };
    t["aten._upsample_nearest_exact2d.vec"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::NearestExact, 2, true); };
    t["aten._upsample_nearest_exact3d.vec"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::NearestExact, 3, true); };
    t["aten.upsample_nearest1d.vec"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Nearest, 1, true); };
    t["aten.upsample_nearest2d.vec"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Nearest, 2, true); };
    t["aten.upsample_nearest3d.vec"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Nearest, 3, true); };
    t["aten.upsample_linear1d.vec"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Linear, 1, true); };
    t["aten.upsample_bilinear2d.vec"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Linear, 2, true); };
    t["aten.upsample_trilinear3d.vec"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Linear, 3, true); };
    t["aten.upsample_bicubic2d.vec"] = [](LowerCtx& c) { return lowerUpsample(c, Mode::Cubic, 2, true); };
    t["aten.upsample_bicubic2d_backward.default"] = [](LowerCtx& c) {
        return lowerUpsampleBackward(c, Mode::Cubic, 2);
    };
    t["aten.grid_sampler_2d.default"] = [](LowerCtx& c) { return gridSampler2d(c, false); };
    t["aten.cudnn_grid_sampler.default"] = [](LowerCtx& c) { return gridSampler2d(c, true); };
    t["aten.upsample_nearest1d_backward.default"] = [](LowerCtx& c) {
        return lowerUpsampleBackward(c, Mode::Nearest, 1);
    };
    t["aten.upsample_nearest2d_backward.default"] = [](LowerCtx& c) {
        return lowerUpsampleBackward(c, Mode::Nearest, 2);
    };
    t["aten.upsample_nearest3d_backward.default"] = [](LowerCtx& c) {
        return lowerUpsampleBackward(c, Mode::Nearest, 3);
    };
    t["aten._upsample_nearest_exact1d_backward.default"] = [](LowerCtx& c) {
        return lowerUpsampleBackward(c, Mode::NearestExact, 1);
    };
    t["aten._upsample_nearest_exact2d_backward.default"] = [](LowerCtx& c) {
        return lowerUpsampleBackward(c, Mode::NearestExact, 2);
    };
    t["aten._upsample_nearest_exact3d_backward.default"] = [](LowerCtx& c) {
        return lowerUpsampleBackward(c, Mode::NearestExact, 3);
    };
    t["aten.upsample_linear1d_backward.default"] = [](LowerCtx& c) {
        return lowerUpsampleBackward(c, Mode::Linear, 1);
    };
    t["aten.upsample_bilinear2d_backward.default"] = [](LowerCtx& c) {
        return lowerUpsampleBackward(c, Mode::Linear, 2);
    };
    t["aten.upsample_trilinear3d_backward.default"] = [](LowerCtx& c) {
        return lowerUpsampleBackward(c, Mode::Linear, 3);
    };
}

}  // namespace fxray::cg
