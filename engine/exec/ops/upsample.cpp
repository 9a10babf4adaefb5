// Resampling by interpolation, 1-D to 3-D, and the backwards: upsample_nearest1d,
// _upsample_nearest_exact1d, upsample_linear1d, upsample_bilinear2d, _upsample_bilinear2d_aa,
// upsample_bicubic2d, upsample_trilinear3d.
//
// Every mode is separable: along each spatial dim, output position o reads a few input positions
// with weights (its taps). The forward sums the products of the taps of all spatial dims, the
// backward scatters the gradient through the same taps, so one pair of loops serves every mode.
// The taps follow ATen's UpSample.h (area_pixel_compute_scale, area_pixel_compute_source_index,
// the nearest index rules, the cubic convolution coefficients) and the antialiasing filter of
// UpSampleKernel.cpp.
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"
#include "exec/ops/upsample_filter.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>

namespace fxray {
using namespace kern;

namespace {

enum class Mode { Nearest, NearestExact, Linear, Cubic, LinearAA };

// ----- taps -------------------------------------------------------------------------------------

/// One input position and its weight.
struct Tap {
    int64_t index;
    double weight;
};
/// The taps of every output position along one dim.
using DimTaps = std::vector<std::vector<Tap>>;

/// compute_scales_value: 1/scale when a positive scale was given, else input/output.
double scalesValue(std::optional<double> scale, int64_t in, int64_t out) {
    return scale && *scale > 0.0 ? 1.0 / *scale : double(in) / double(out);
}

/// area_pixel_compute_scale.
double areaPixelScale(int64_t in, int64_t out, bool alignCorners, std::optional<double> scale) {
    if (alignCorners) return out > 1 ? double(in - 1) / double(out - 1) : 0.0;
    return scalesValue(scale, in, out);
}

/// area_pixel_compute_source_index: half-pixel centres unless align_corners; only the cubic mode
/// keeps negative positions.
double areaPixelSourceIndex(double scale, int64_t dst, bool alignCorners, bool cubic) {
    if (alignCorners) return scale * double(dst);
    const double src = scale * (double(dst) + 0.5) - 0.5;
    return !cubic && src < 0.0 ? 0.0 : src;
}

/// floor(v) as an index clamped to [lo, hi]; clamped before the conversion so that huge or
/// infinite positions (from tiny scale arguments) stay defined. NaN gives hi.
int64_t floorIndex(double v, int64_t lo, int64_t hi) {
    if (!(v < double(hi))) return hi;
    if (v < double(lo)) return lo;
    return static_cast<int64_t>(std::floor(v));
}

/// ATen's guard_index_and_lambda: the floor index clamped to the input, and the fraction in [0, 1].
/// Only cubic positions go below 0 (to -1, whose taps are clamped again).
void guardIndexAndLambda(double real, int64_t in, int64_t& index, double& lambda) {
    index = floorIndex(real, -1, in - 1);
    lambda = std::clamp(real - double(index), 0.0, 1.0);
    if (std::isnan(lambda)) lambda = 0.0;
}

/// Keys' cubic convolution with A = -0.75 (ATen's get_cubic_upsample_coefficients).
std::array<double, 4> cubicCoefficients(double t) {
    constexpr double A = -0.75;
    auto near = [](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
    auto far = [](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
    return {far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)};
}

/// The taps of one dim: `in` input positions resampled to `out` output positions.
DimTaps dimTaps(Mode mode, int64_t in, int64_t out, bool alignCorners, std::optional<double> scale) {
    DimTaps taps(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o) {
        auto& t = taps[static_cast<size_t>(o)];
        switch (mode) {
        case Mode::Nearest: {
            // ATen computes the index in float; equal and doubled sizes are exact special cases.
            int64_t src;
            if (out == in)
                src = o;
            else if (out == 2 * in)
                src = o >> 1;
            else {
                const float s = static_cast<float>(scalesValue(scale, in, out));
                src = floorIndex(static_cast<float>(o) * s, 0, in - 1);
            }
            t.push_back({src, 1.0});
            break;
        }
        case Mode::NearestExact: {
            const float s = static_cast<float>(scalesValue(scale, in, out));
            const float pos = static_cast<float>((double(o) + 0.5) * double(s));
            t.push_back({floorIndex(pos, 0, in - 1), 1.0});
            break;
        }
        case Mode::Linear: {
            const double sc = areaPixelScale(in, out, alignCorners, scale);
            int64_t i0;
            double lambda;
            guardIndexAndLambda(areaPixelSourceIndex(sc, o, alignCorners, false), in, i0, lambda);
            const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
            t.push_back({i0, 1.0 - lambda});
            t.push_back({i1, lambda});
            break;
        }
        case Mode::Cubic: {
            const double sc = areaPixelScale(in, out, alignCorners, scale);
            int64_t i0;
            double lambda;
            guardIndexAndLambda(areaPixelSourceIndex(sc, o, alignCorners, true), in, i0, lambda);
            const auto c = cubicCoefficients(lambda);
            // Positions outside the input read the nearest border element.
            for (int64_t j = 0; j < 4; ++j) t.push_back({std::clamp<int64_t>(i0 - 1 + j, 0, in - 1), c[size_t(j)]});
            break;
        }
        case Mode::LinearAA: {
            // A triangle filter stretched by the downscaling factor, normalised per output position.
            const double sc = areaPixelScale(in, out, alignCorners, scale);
            const double support = sc >= 1.0 ? sc : 1.0;
            const double invscale = sc >= 1.0 ? 1.0 / sc : 1.0;
            // ATen truncates toward zero; the window never reaches past the input, so clamping to
            // it first changes nothing but keeps the conversions defined.
            const auto trunc = [in](double v) { return v > 0.0 ? static_cast<int64_t>(std::min(v, double(in))) : 0; };
            const int64_t maxSize = trunc(std::ceil(support)) * 2 + 1;
            const double center = sc * (double(o) + 0.5);
            const int64_t xmin = trunc(center - support + 0.5);
            const int64_t xsize = std::clamp<int64_t>(trunc(center + support + 0.5) - xmin, 0, maxSize);
            double total = 0.0;
            for (int64_t j = 0; j < xsize; ++j) {
                const double x = std::fabs((double(j + xmin) - center + 0.5) * invscale);
                const double w = x < 1.0 ? 1.0 - x : 0.0;
                t.push_back({xmin + j, w});
                total += w;
            }
            if (total != 0.0)
                for (auto& tap : t) tap.weight /= total;
            break;
        }
        }
    }
    return taps;
}

// ----- arguments --------------------------------------------------------------------------------

/// One upsample call, normalised: full input and output shapes (N, C, spatial...), options.
struct Spec {
    std::vector<int64_t> inShape, outShape;
    bool alignCorners = false;
    std::array<std::optional<double>, 3> scales;
};

constexpr bool hasAlignCorners(Mode m) { return m != Mode::Nearest && m != Mode::NearestExact; }

/// The output size of a `.vec` overload (output_size or scale_factors, exactly one given), with the
/// scale factors as the scales the kernel sees (ATen's compute_output_size and get_scale_value).
template <int N>
Expected<std::vector<int64_t>> vecOutputSize(const OpArgs& a, size_t scaleArg, Spec& s) {
    if (a.isNone(1) == a.isNone(scaleArg))
        return opError(a, "Must specify exactly one of output_size and scale_factors");
    if (!a.isNone(1)) return a.toIntList(1);
    const auto& sf = a[scaleArg].list;
    if (static_cast<int>(sf.size()) != N)
        return opError(a, "It is expected scale_factors equals to " + std::to_string(N) + ", but got size " +
                              std::to_string(sf.size()));
    std::vector<int64_t> out;
    for (int d = 0; d < N; ++d) {
        const double f = sf[size_t(d)].toDouble(), o = double(s.inShape[size_t(2 + d)]) * f;
        if (!(o >= 0.0 && o < 9.0e15))
            return opError(a, "scale factor " + std::to_string(f) + " gives no valid output size");
        out.push_back(static_cast<int64_t>(o));
        s.scales[size_t(d)] = f;
    }
    return out;
}

/// Reads (output_size, [input_size,] [align_corners,] scales...) starting at argument 1, or a
/// `.vec` overload's (output_size?, [align_corners,] scale_factors?) when `vec`.
/// `inShape` is the input's shape for a forward, nullopt for a backward (read from input_size).
template <int N>
Expected<Spec> readSpec(const OpArgs& a, Mode mode, const std::vector<int64_t>* inShape, bool vec = false) {
    Spec s;
    size_t i = 1;
    std::vector<int64_t> outSize;
    if (vec)
        ++i;  // output_size is read with scale_factors below
    else
        outSize = a.toIntList(i++);
    if (inShape)
        s.inShape = *inShape;
    else
        s.inShape = a.toIntList(i++);
    if (static_cast<int>(s.inShape.size()) != N + 2)
        return opError(a, "It is expected input_size equals to " + std::to_string(N + 2) + ", but got size " +
                              std::to_string(s.inShape.size()));
    if (hasAlignCorners(mode)) s.alignCorners = a.toBool(i++);
    if (vec) {
        auto o = vecOutputSize<N>(a, i, s);
        if (!o.ok()) return o.error();
        outSize = *o;
    } else {
        for (int d = 0; d < N; ++d, ++i)
            if (i < a.size() && !a.isNone(i)) s.scales[size_t(d)] = a.toDouble(i);
    }
    if (static_cast<int>(outSize.size()) != N)
        return opError(a, "It is expected output_size equals to " + std::to_string(N) + ", but got size " +
                              std::to_string(outSize.size()));
    bool positive = true;
    for (int d = 0; d < N; ++d) positive = positive && s.inShape[size_t(2 + d)] > 0 && outSize[size_t(d)] > 0;
    if (!positive)
        return opError(a, "Input and output sizes should be greater than 0, but got input " +
                              shapeStr({s.inShape.begin() + 2, s.inShape.end()}) + " and output " + shapeStr(outSize));
    if (s.inShape[0] < 0 || s.inShape[1] < 0) return opError(a, "invalid input size " + shapeStr(s.inShape));
    s.outShape = {s.inShape[0], s.inShape[1]};
    s.outShape.insert(s.outShape.end(), outSize.begin(), outSize.end());
    return s;
}

Expected<bool> checkDtype(const OpArgs& a, Mode mode, DType dt) {
    // The nearest kernels also take uint8 images; the interpolating ones are floating-point only.
    if (isFloating(dt) || (dt == DType::UInt8 && (mode == Mode::Nearest || mode == Mode::NearestExact))) return true;
    return opError(a, "not implemented for " + std::string(dtypeTorchName(dt)));
}

/// c10's is_channels_last_strides_{2,3}d (what suggest_memory_format reads): the dimension order
/// C innermost, then the spatial dims from last to first, N outermost, with size-1 tie-breaks.
bool stridesLikeChannelsLast(const TensorMeta& m) {
    const int64_t nd = m.dim();
    if ((nd != 4 && nd != 5) || static_cast<int64_t>(m.strides.size()) != nd || m.strides[1] == 0) return false;
    std::vector<int64_t> order{1};
    for (int64_t d = nd - 1; d >= 2; --d) order.push_back(d);
    order.push_back(0);
    int64_t min = 0;
    for (int64_t d : order) {
        if (m.shape[size_t(d)] == 0 || m.strides[size_t(d)] < min) return false;
        if (d == 0 && min == m.strides[1]) return false;
        min = m.strides[size_t(d)];
        if (m.shape[size_t(d)] > 1) min *= m.shape[size_t(d)];
    }
    return true;
}

/// A dense tensor of `shape` in the memory format `like` suggests (channels-last or contiguous).
TensorMeta outputMeta(const std::vector<int64_t>& shape, const TensorMeta& like) {
    TensorMeta m = TensorMeta::contiguous(shape, like.dtype, like.device);
    if (stridesLikeChannelsLast(like) && shape.size() == like.shape.size()) {
        std::vector<int64_t> order{1};
        for (size_t d = shape.size() - 1; d >= 2; --d) order.push_back(int64_t(d));
        order.push_back(0);
        int64_t acc = 1;
        for (int64_t d : order) {
            m.strides[size_t(d)] = acc;
            acc *= std::max<int64_t>(shape[size_t(d)], 1);
        }
    }
    return m;
}

bool symbolic(const TensorMeta& m) { return m.hasUnboundSizes(); }

// ----- forward ----------------------------------------------------------------------------------

template <Mode M, int N, bool Vec = false>
Expected<Value> metaUpsample(const OpArgs& a) {
    const TensorMeta& in = a.tensor(0).meta;
    if (symbolic(in)) return opError(a, "symbolic shapes are not supported");
    if (in.dim() != N + 2)
        return opError(a, "expected a " + std::to_string(N + 2) + "-D input (batch, channels, " + std::to_string(N) +
                              " spatial dims), got " + shapeStr(in.shape));
    auto ok = checkDtype(a, M, in.dtype);
    if (!ok.ok()) return ok.error();
    auto s = readSpec<N>(a, M, &in.shape, Vec);
    if (!s.ok()) return s.error();
    if (in.numel() == 0 && in.shape[1] == 0)
        return opError(a, "Non-empty " + std::to_string(N + 2) + "D data tensor expected but got a tensor with sizes " +
                              shapeStr(in.shape));
    return metaValue(outputMeta(s->outShape, in));
}

/// Taps of the N spatial dims, padded to three with a single unit tap in front.
std::array<DimTaps, 3> allTaps(Mode mode, const Spec& s, int n) {
    std::array<DimTaps, 3> taps;
    const int off = 3 - n;
    for (int d = 0; d < off; ++d) taps[size_t(d)] = DimTaps(1, std::vector<Tap>{{0, 1.0}});
    for (int d = 0; d < n; ++d)
        taps[size_t(off + d)] =
            dimTaps(mode, s.inShape[size_t(2 + d)], s.outShape[size_t(2 + d)], s.alignCorners, s.scales[size_t(d)]);
    return taps;
}

/// Spatial sizes padded to three dims with leading ones.
std::array<int64_t, 3> spatial(const std::vector<int64_t>& shape, int n) {
    std::array<int64_t, 3> r{1, 1, 1};
    for (int d = 0; d < n; ++d) r[size_t(3 - n + d)] = shape[size_t(2 + d)];
    return r;
}

/// y = resample(x) over planes of row-major values, or its adjoint (x += taps · y) when `adjoint`.
void resample(std::vector<double>& x, std::vector<double>& y, int64_t planes, const std::array<int64_t, 3>& in,
              const std::array<int64_t, 3>& out, const std::array<DimTaps, 3>& taps, bool adjoint) {
    const int64_t inSz = in[0] * in[1] * in[2], outSz = out[0] * out[1] * out[2];
    for (int64_t p = 0; p < planes; ++p) {
        double* xp = x.data() + p * inSz;
        double* yp = y.data() + p * outSz;
        for (int64_t o0 = 0; o0 < out[0]; ++o0)
            for (int64_t o1 = 0; o1 < out[1]; ++o1)
                for (int64_t o2 = 0; o2 < out[2]; ++o2) {
                    double& yv = yp[(o0 * out[1] + o1) * out[2] + o2];
                    double acc = 0.0;
                    for (const Tap& t0 : taps[0][size_t(o0)])
                        for (const Tap& t1 : taps[1][size_t(o1)])
                            for (const Tap& t2 : taps[2][size_t(o2)]) {
                                const double w = t0.weight * t1.weight * t2.weight;
                                double& xv = xp[(t0.index * in[1] + t1.index) * in[2] + t2.index];
                                if (adjoint)
                                    xv += w * yv;
                                else
                                    acc += w * xv;
                            }
                    if (!adjoint) yv = acc;
                }
    }
}

template <Mode M, int N, bool Vec = false>
Expected<Value> upsampleKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& x = a.tensor(0);
    auto s = readSpec<N>(a, M, &x.shape(), Vec);
    if (!s.ok()) return s.error();
    auto xv = toDoubles(x);
    const int64_t planes = s->inShape[0] * s->inShape[1];
    const auto outSp = spatial(s->outShape, N);
    std::vector<double> y(static_cast<size_t>(planes * outSp[0] * outSp[1] * outSp[2]), 0.0);
    resample(xv, y, planes, spatial(s->inShape, N), outSp, allTaps(M, *s, N), false);
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

// ----- backward ---------------------------------------------------------------------------------

template <Mode M, int N>
Expected<Value> metaUpsampleBackward(const OpArgs& a) {
    const TensorMeta& g = a.tensor(0).meta;
    if (symbolic(g)) return opError(a, "symbolic shapes are not supported");
    auto ok = checkDtype(a, M, g.dtype);
    if (!ok.ok()) return ok.error();
    auto s = readSpec<N>(a, M, nullptr);
    if (!s.ok()) return s.error();
    if (g.dim() != N + 2)
        return opError(a, "Expected grad_output to be a tensor of dimension " + std::to_string(N + 2) +
                              " but got: dimension " + std::to_string(g.dim()));
    for (size_t i = 0; i < s->outShape.size(); ++i)
        if (g.shape[i] != s->outShape[i])
            return opError(a, "Expected grad_output to have the same shape as output; output.size(" +
                                  std::to_string(i) + ") = " + std::to_string(s->outShape[i]) +
                                  " but got grad_output.size(" + std::to_string(i) +
                                  ") = " + std::to_string(g.shape[i]));
    return metaValue(outputMeta(s->inShape, g));
}

template <Mode M, int N>
Expected<Value> upsampleBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = readSpec<N>(a, M, nullptr);
    if (!s.ok()) return s.error();
    auto gv = toDoubles(a.tensor(0));
    const int64_t planes = s->inShape[0] * s->inShape[1];
    const auto inSp = spatial(s->inShape, N);
    std::vector<double> gx(static_cast<size_t>(planes * inSp[0] * inSp[1] * inSp[2]), 0.0);
    resample(gx, gv, planes, inSp, spatial(s->outShape, N), allTaps(M, *s, N), true);
    return Value::ofTensor(makeTensor(out.t.meta, gx));
}

// ----- registration -----------------------------------------------------------------------------

/// "SymInt[2] output_size" plus the scale arguments of an N-D op ("float? scales_h=None, ...").
std::string scaleArgs(int n) {
    if (n == 1) return "float? scales=None";
    static const char* names[] = {"scales_d", "scales_h", "scales_w"};
    std::string r;
    for (int d = 3 - n; d < 3; ++d) r += std::string(d == 3 - n ? "" : ", ") + "float? " + names[d] + "=None";
    return r;
}

template <Mode M, int N>
void addPair(OpRegistry& r, const std::string& name) {
    const std::string n = std::to_string(N), n2 = std::to_string(N + 2);
    const std::string align = hasAlignCorners(M) ? "bool align_corners, " : "";
    r.add("aten." + name + ".default",
          name + "(Tensor self, SymInt[" + n + "] output_size, " + align + scaleArgs(N) + ") -> Tensor",
          OpCategory::Other, metaUpsample<M, N>, upsampleKernel<M, N>);
    r.add("aten." + name + "_backward.default",
          name + "_backward(Tensor grad_output, SymInt[" + n + "] output_size, SymInt[" + n2 + "] input_size, " +
              align + scaleArgs(N) + ") -> Tensor",
          OpCategory::Other, metaUpsampleBackward<M, N>, upsampleBackwardKernel<M, N>);
    r.add("aten." + name + ".vec",
          name + ".vec(Tensor input, SymInt[]? output_size, " + align + "float[]? scale_factors) -> Tensor",
          OpCategory::Other, metaUpsample<M, N, true>, upsampleKernel<M, N, true>);
}

}  // namespace

std::vector<double> kern::aaFilterMatrix(int64_t in, int64_t out, bool alignCorners, std::optional<double> scale) {
    std::vector<double> w(static_cast<size_t>(std::max<int64_t>(in * out, 0)), 0.0);
    const DimTaps taps = dimTaps(Mode::LinearAA, in, out, alignCorners, scale);
    for (int64_t o = 0; o < out; ++o)
        for (const Tap& t : taps[static_cast<size_t>(o)])
            if (t.index >= 0 && t.index < in) w[static_cast<size_t>(o * in + t.index)] += t.weight;
    return w;
}

void registerUpsampleOps(OpRegistry& r) {
    addPair<Mode::Nearest, 1>(r, "upsample_nearest1d");
    addPair<Mode::Nearest, 2>(r, "upsample_nearest2d");
    addPair<Mode::Nearest, 3>(r, "upsample_nearest3d");
    addPair<Mode::NearestExact, 1>(r, "_upsample_nearest_exact1d");
    addPair<Mode::NearestExact, 2>(r, "_upsample_nearest_exact2d");
    addPair<Mode::NearestExact, 3>(r, "_upsample_nearest_exact3d");
    addPair<Mode::Linear, 1>(r, "upsample_linear1d");
    addPair<Mode::Linear, 2>(r, "upsample_bilinear2d");
    addPair<Mode::Linear, 3>(r, "upsample_trilinear3d");
    addPair<Mode::Cubic, 2>(r, "upsample_bicubic2d");
    addPair<Mode::LinearAA, 2>(r, "_upsample_bilinear2d_aa");
}

}  // namespace fxray
