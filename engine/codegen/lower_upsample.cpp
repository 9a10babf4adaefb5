// Lowerings of the upsampling ops Inductor lowers (upsample_nearest*, _upsample_nearest_exact*,
// upsample_linear1d / bilinear2d / trilinear3d): one pointwise gather per output element, the
// source positions computed in the kernel as ATen's UpSample.h does (in fp32 for fp32 data:
// nearest's floor(o * scale), the linear modes' half-pixel centres or align_corners), the
// linear modes blending the 2^N neighbouring taps in ATen's nesting order.
#include "codegen/lower_util.h"

#include <algorithm>
#include <array>
#include <optional>

namespace fxray::cg {

namespace {

enum class Mode : uint8_t { Nearest, NearestExact, Linear };

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
    if (alignCorners) sc = d.out > 1 ? double(d.in - 1) / double(d.out - 1) : 0.0;
    else sc = scalesValue(d.scale, d.in, d.out);
    if (ct == DType::Float32) sc = static_cast<float>(sc);
    ExprP dst = eto(eindex(o), ct);
    ExprP real;
    if (alignCorners) {
        real = ebinary(Op::Mul, econst(sc, ct), dst);
    } else {
        real = ebinary(Op::Sub, ebinary(Op::Mul, econst(sc, ct), ebinary(Op::Add, dst, econst(0.5, ct))), econst(0.5, ct));
        real = ebinary(Op::Max, real, econst(0.0, ct));
    }
    ExprP i0 = ebinary(Op::Min, eto(eunary(Op::Floor, real), DType::Int64), ic(d.in - 1));
    ExprP lambda = ebinary(Op::Sub, real, eto(i0, ct));
    lambda = ebinary(Op::Min, ebinary(Op::Max, lambda, econst(0.0, ct)), econst(1.0, ct));
    ExprP i1 = ebinary(Op::Min, ebinary(Op::Add, i0, ic(1)), ic(d.in - 1));
    return {ivalue(i0), ivalue(i1), lambda};
}

/// upsample_*(self, output_size, [align_corners,] scales...) over the last n dims of an (n+2)-d
/// input.
std::optional<LValue> lowerUpsample(LowerCtx& c, Mode m, size_t n) {
    const int x = c.in(0);
    if (x < 0 || !c.out().isTensor()) return std::nullopt;
    const TensorMeta om = c.outMeta();
    const std::vector<int64_t> xs = c.meta(x).shape;
    if (xs.size() != n + 2 || om.shape.size() != n + 2 || isComplex(om.dtype)) return std::nullopt;
    const DType ct = computeType(om.dtype);
    if (m == Mode::Linear && ct != DType::Float32 && ct != DType::Float64) return std::nullopt;
    const bool align = m == Mode::Linear && c.args().toBool(2);
    const size_t scaleArg = m == Mode::Linear ? 3 : 2;
    std::vector<Dim> dims(n);
    for (size_t d = 0; d < n; ++d) {
        dims[d].in = xs[2 + d];
        dims[d].out = om.shape[2 + d];
        if (dims[d].in <= 0 || dims[d].out <= 0) return std::nullopt;
        const size_t a = scaleArg + d;
        if (a < c.args().size() && !c.args().isNone(a)) dims[d].scale = c.args().toDouble(a);
    }
    return tensorValue(c.pointwise(om, {x}, [=](Loader& L, const std::vector<Index>& co) -> ExprP {
        std::vector<Index> xc{co[0], co[1]};
        if (m != Mode::Linear) {
            for (size_t d = 0; d < n; ++d) xc.push_back(nearestIndex(m, dims[d], co[2 + d]));
            return eto(L.load(x, xc), ct);
        }
        std::vector<LinearTaps> taps;
        for (size_t d = 0; d < n; ++d) taps.push_back(linearTaps(dims[d], co[2 + d], align, ct));
        // w0 * (blend of the next dims at i0) + w1 * (... at i1), outer dim first as in ATen.
        std::function<ExprP(size_t)> blend = [&](size_t d) -> ExprP {
            if (d == n) return eto(L.load(x, xc), ct);
            xc.push_back(taps[d].i0);
            ExprP lo = blend(d + 1);
            xc.back() = taps[d].i1;
            ExprP hi = blend(d + 1);
            xc.pop_back();
            ExprP w1 = taps[d].lambda, w0 = ebinary(Op::Sub, econst(1.0, ct), w1);
            return ebinary(Op::Add, ebinary(Op::Mul, w0, lo), ebinary(Op::Mul, w1, hi));
        };
        return blend(0);
    }));
}

} // namespace

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
}

} // namespace fxray::cg
