// Sampling an image at the positions of a grid: grid_sampler_2d (bilinear, nearest, bicubic),
// grid_sampler_3d (trilinear, nearest), cudnn_grid_sampler (bilinear, zero padding, corners
// aligned) and their backwards, following ATen's GridSampler.h: coordinates are unnormalised from
// [-1, 1], mapped through the padding mode (zeros, border, reflection), and positions outside the
// input read zero. Non-finite positions follow the CUDA kernels (bilinear and nearest read 0
// there, where CPU's bilinear gives NaN).
//
// The 2-D and 3-D samplers share one implementation over `nsp` spatial dims. Spatial dims are
// kept in tensor order (D, H, W); the grid's last dim holds them reversed (x for W, y for H, z for D).
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <array>
#include <climits>
#include <cmath>
#include <string>

namespace fxray {
using namespace kern;

namespace {

enum class Interp : int64_t { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class Padding : int64_t { Zeros = 0, Border = 1, Reflection = 2 };

// ----- coordinates (GridSampler.h) --------------------------------------------------------------

/// grid_sampler_unnormalize: [-1, 1] to pixel positions; d(result)/d(coord) in *grad.
double unnormalize(double coord, int64_t size, bool alignCorners, double* grad = nullptr) {
    if (alignCorners) {
        if (grad) *grad = double(size - 1) / 2;
        return (coord + 1) / 2 * double(size - 1);
    }
    if (grad) *grad = double(size) / 2;
    return ((coord + 1) * double(size) - 1) / 2;
}

/// clip_coordinates: clamps to [0, size - 1]; the gradient counts the borders as outside.
double clipCoordinates(double in, int64_t size, double* grad = nullptr) {
    const double max = double(size - 1);
    if (grad) *grad = in <= 0.0 || in >= max ? 0.0 : 1.0;
    return std::min(max, std::max(in, 0.0));
}

/// reflect_coordinates: reflects `in` into [twiceLow/2, twiceHigh/2] until it falls inside.
double reflectCoordinates(double in, int64_t twiceLow, int64_t twiceHigh, double* grad = nullptr) {
    if (twiceLow == twiceHigh) {
        if (grad) *grad = 0.0;
        return 0.0;
    }
    const double min = double(twiceLow) / 2, span = double(twiceHigh - twiceLow) / 2;
    in -= min;
    double sign = 1.0;
    if (in < 0.0) {
        sign = -1.0;
        in = -in;
    }
    const double extra = std::fmod(in, span);
    const bool even = static_cast<int64_t>(std::floor(in / span)) % 2 == 0;
    if (grad) *grad = even ? sign : -sign;
    return even ? extra + min : span - extra + min;
}

/// safe_downgrade_to_int_range: positions no int can hold (and NaN) become -100, out of bounds.
double safeDowngrade(double x) {
    if (!std::isfinite(x) || x > double(INT_MAX - 1) || x < double(INT_MIN)) return -100.0;
    return x;
}

/// compute_coordinates: the padding mode's mapping of a pixel position; d/d(in) in *grad.
double applyPadding(double coord, int64_t size, Padding pad, bool alignCorners, double* grad = nullptr) {
    double g = 1.0;
    if (pad == Padding::Border) {
        coord = clipCoordinates(coord, size, &g);
    } else if (pad == Padding::Reflection) {
        double gr = 1.0, gc = 1.0;
        coord = alignCorners ? reflectCoordinates(coord, 0, 2 * (size - 1), &gr)
                             : reflectCoordinates(coord, -1, 2 * size - 1, &gr);
        coord = clipCoordinates(coord, size, &gc);
        g = gr * gc;
    }
    if (grad) *grad = g;
    return safeDowngrade(coord);
}

/// grid_sampler_compute_source_index(_set_grad).
double sourceIndex(double coord, int64_t size, Padding pad, bool alignCorners, double* grad = nullptr) {
    double gu = 1.0, gp = 1.0;
    coord = unnormalize(coord, size, alignCorners, &gu);
    coord = applyPadding(coord, size, pad, alignCorners, &gp);
    if (grad) *grad = gu * gp;
    return coord;
}

/// Keys' cubic convolution coefficients (A = -0.75) and their derivatives with respect to -t,
/// as ATen's get_cubic_coefficients_grad defines them.
std::array<double, 4> cubicCoefficients(double t) {
    constexpr double A = -0.75;
    auto near = [](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
    auto far = [](double x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
    return {far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)};
}
std::array<double, 4> cubicCoefficientsGrad(double t) {
    constexpr double A = -0.75;
    double x = -1 - t;
    const double c0 = (-3 * A * x - 10 * A) * x - 8 * A;
    x = -t;
    const double c1 = (-3 * (A + 2) * x - 2 * (A + 3)) * x;
    x = 1 - t;
    const double c2 = (3 * (A + 2) * x - 2 * (A + 3)) * x;
    x = 2 - t;
    const double c3 = (3 * A * x - 10 * A) * x + 8 * A;
    return {c0, c1, c2, c3};
}

// ----- arguments --------------------------------------------------------------------------------

/// One sampler call, normalised.
struct Spec {
    int nsp = 2;
    int64_t N = 0, C = 0;
    std::vector<int64_t> in, out;  ///< spatial sizes in tensor order
    Interp interp = Interp::Bilinear;
    Padding padding = Padding::Zeros;
    bool alignCorners = false;
    int64_t inPlane() const { return product(in); }
    int64_t outPlane() const { return product(out); }
};

/// Checks input and grid (GridSamplerUtils.h's check_grid_sampler_common/_2d/_3d).
Expected<Spec> makeSpec(const OpArgs& a, const TensorMeta& input, const TensorMeta& grid, int nsp, int64_t interp,
                        int64_t padding, bool alignCorners) {
    for (const TensorMeta* m : {&input, &grid})
        if (m->hasUnboundSizes()) return opError(a, "symbolic shapes are not supported");
    const std::string nd = std::to_string(nsp + 2);
    if (input.dim() != nsp + 2 || grid.dim() != nsp + 2)
        return opError(a, "grid_sampler(): expected " + nd +
                              "D input and grid with same number of dimensions, but got "
                              "input with sizes " +
                              shapeStr(input.shape) + " and grid with sizes " + shapeStr(grid.shape));
    if (input.dtype != grid.dtype)
        return opError(a, "grid_sampler(): expected input and grid to have same dtype, but input has " +
                              std::string(dtypeTorchName(input.dtype)) + " and grid has " +
                              std::string(dtypeTorchName(grid.dtype)));
    if (!isFloating(input.dtype))
        return opError(a, "grid_sampler(): expected a floating-point input, got " +
                              std::string(dtypeTorchName(input.dtype)));
    if (input.shape[0] != grid.shape[0])
        return opError(a, "grid_sampler(): expected grid and input to have same batch size, but got input with sizes " +
                              shapeStr(input.shape) + " and grid with sizes " + shapeStr(grid.shape));
    if (grid.shape.back() != nsp)
        return opError(a, "grid_sampler(): expected grid to have size " + std::to_string(nsp) +
                              " in last dimension, but got grid with sizes " + shapeStr(grid.shape));
    for (int d = 2; d < nsp + 2; ++d)
        if (input.shape[size_t(d)] <= 0)
            return opError(a,
                           "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes " +
                               shapeStr(input.shape) + " with dimension " + std::to_string(d) + " being empty");
    if (interp < 0 || interp > 2)
        return opError(a, "interpolation_mode must be 0, 1 or 2, got " + std::to_string(interp));
    if (padding < 0 || padding > 2) return opError(a, "padding_mode must be 0, 1 or 2, got " + std::to_string(padding));
    if (nsp == 3 && interp == int64_t(Interp::Bicubic))
        return opError(a, "grid_sampler(): bicubic interpolation only supports 4D input");
    Spec s;
    s.nsp = nsp;
    s.N = input.shape[0];
    s.C = input.shape[1];
    s.in.assign(input.shape.begin() + 2, input.shape.end());
    s.out.assign(grid.shape.begin() + 1, grid.shape.end() - 1);
    s.interp = static_cast<Interp>(interp);
    s.padding = static_cast<Padding>(padding);
    s.alignCorners = alignCorners;
    return s;
}

std::vector<int64_t> outShape(const Spec& s) {
    std::vector<int64_t> r{s.N, s.C};
    r.insert(r.end(), s.out.begin(), s.out.end());
    return r;
}

// ----- the sampler ------------------------------------------------------------------------------

/// Row-major offset of a spatial position within one plane, or -1 when outside the input.
int64_t planeOffset(const Spec& s, const std::array<int64_t, 3>& pos) {
    int64_t off = 0;
    for (int d = 0; d < s.nsp; ++d) {
        if (pos[size_t(d)] < 0 || pos[size_t(d)] >= s.in[size_t(d)]) return -1;
        off = off * s.in[size_t(d)] + pos[size_t(d)];
    }
    return off;
}

/// Runs the sampler (out = sample(x)) and, given gOut, its gradients: gx (when non-null) and
/// gGrid (when non-null). x is [N, C, in...], grid [N, out..., nsp], gOut and out [N, C, out...].
void sample(const Spec& s, const std::vector<double>& x, const std::vector<double>& grid, std::vector<double>* out,
            const std::vector<double>* gOut, std::vector<double>* gx, std::vector<double>* gGrid) {
    const int n = s.nsp;
    const int64_t inPl = s.inPlane(), outPl = s.outPlane();
    for (int64_t b = 0; b < s.N; ++b)
        for (int64_t p = 0; p < outPl; ++p) {
            const double* g = grid.data() + (b * outPl + p) * n;
            const double* xb = x.data() + b * s.C * inPl;
            auto outAt = [&](int64_t c) -> double* { return out ? out->data() + (b * s.C + c) * outPl + p : nullptr; };
            auto gOutAt = [&](int64_t c) { return gOut ? (*gOut)[size_t((b * s.C + c) * outPl + p)] : 0.0; };
            std::array<double, 3> coord{}, mult{};
            std::array<double, 3> dcoord{0, 0, 0};  // d(loss)/d(pixel position), per spatial dim

            if (s.interp == Interp::Bicubic) {
                // 2-D only: taps at floor-1 .. floor+2 in each dim, padding applied per tap.
                for (int d = 0; d < 2; ++d)
                    coord[size_t(d)] = unnormalize(g[n - 1 - d], s.in[size_t(d)], s.alignCorners, &mult[size_t(d)]);
                const double fy = std::floor(coord[0]), fx = std::floor(coord[1]);
                const auto cy = cubicCoefficients(coord[0] - fy), cx = cubicCoefficients(coord[1] - fx);
                const auto gy = cubicCoefficientsGrad(coord[0] - fy), gxc = cubicCoefficientsGrad(coord[1] - fx);
                std::array<int64_t, 16> offs{};
                for (int j = 0; j < 4; ++j)
                    for (int i = 0; i < 4; ++i) {
                        const double py = applyPadding(fy - 1 + j, s.in[0], s.padding, s.alignCorners);
                        const double px = applyPadding(fx - 1 + i, s.in[1], s.padding, s.alignCorners);
                        offs[size_t(j * 4 + i)] =
                            planeOffset(s, {static_cast<int64_t>(py), static_cast<int64_t>(px), 0});
                    }
                for (int64_t c = 0; c < s.C; ++c) {
                    const double* xc = xb + c * inPl;
                    const double go = gOutAt(c);
                    double acc = 0.0;
                    for (int j = 0; j < 4; ++j)
                        for (int i = 0; i < 4; ++i) {
                            // Outside taps read 0 but still multiply their coefficients, so a NaN
                            // position gives NaN as in ATen.
                            const int64_t off = offs[size_t(j * 4 + i)];
                            const double v = off < 0 ? 0.0 : xc[off];
                            acc += v * cx[size_t(i)] * cy[size_t(j)];
                            if (gx && off >= 0)
                                (*gx)[size_t((b * s.C + c) * inPl + off)] += go * cx[size_t(i)] * cy[size_t(j)];
                            dcoord[1] -= v * gxc[size_t(i)] * cy[size_t(j)] * go;
                            dcoord[0] -= v * gy[size_t(j)] * cx[size_t(i)] * go;
                        }
                    if (double* o = outAt(c)) *o = acc;
                }
            } else {
                for (int d = 0; d < n; ++d)
                    coord[size_t(d)] =
                        sourceIndex(g[n - 1 - d], s.in[size_t(d)], s.padding, s.alignCorners, &mult[size_t(d)]);
                if (s.interp == Interp::Nearest) {
                    std::array<int64_t, 3> pos{};
                    for (int d = 0; d < n; ++d) pos[size_t(d)] = static_cast<int64_t>(std::nearbyint(coord[size_t(d)]));
                    const int64_t off = planeOffset(s, pos);
                    for (int64_t c = 0; c < s.C; ++c) {
                        if (double* o = outAt(c)) *o = off < 0 ? 0.0 : xb[c * inPl + off];
                        if (gx && off >= 0) (*gx)[size_t((b * s.C + c) * inPl + off)] += gOutAt(c);
                    }
                } else {
                    // (Tri/bi)linear: the 2^nsp corners around the position.
                    std::array<double, 3> lo{}, frac{};
                    for (int d = 0; d < n; ++d) {
                        lo[size_t(d)] = std::floor(coord[size_t(d)]);
                        frac[size_t(d)] = coord[size_t(d)] - lo[size_t(d)];
                    }
                    for (int64_t c = 0; c < s.C; ++c)
                        if (double* o = outAt(c)) *o = 0.0;
                    for (int corner = 0; corner < (1 << n); ++corner) {
                        std::array<int64_t, 3> pos{};
                        std::array<double, 3> w1{};  // this corner's weight factor per dim
                        double w = 1.0;
                        for (int d = 0; d < n; ++d) {
                            const bool hi = (corner >> (n - 1 - d)) & 1;
                            pos[size_t(d)] = static_cast<int64_t>(lo[size_t(d)]) + (hi ? 1 : 0);
                            w1[size_t(d)] = hi ? frac[size_t(d)] : 1.0 - frac[size_t(d)];
                            w *= w1[size_t(d)];
                        }
                        const int64_t off = planeOffset(s, pos);
                        if (off < 0) continue;
                        for (int64_t c = 0; c < s.C; ++c) {
                            const double v = xb[c * inPl + off];
                            if (double* o = outAt(c)) *o += w * v;
                            if (!gOut) continue;
                            const double go = gOutAt(c);
                            if (gx) (*gx)[size_t((b * s.C + c) * inPl + off)] += w * go;
                            for (int d = 0; d < n; ++d) {
                                double dw = ((corner >> (n - 1 - d)) & 1) ? 1.0 : -1.0;
                                for (int e = 0; e < n; ++e)
                                    if (e != d) dw *= w1[size_t(e)];
                                dcoord[size_t(d)] += v * dw * go;
                            }
                        }
                    }
                }
            }
            if (gGrid) {
                double* gg = gGrid->data() + (b * outPl + p) * n;
                for (int d = 0; d < n; ++d)
                    gg[n - 1 - d] = s.interp == Interp::Nearest ? 0.0 : mult[size_t(d)] * dcoord[size_t(d)];
            }
        }
}

// ----- ops --------------------------------------------------------------------------------------

template <int NSP>
Expected<Spec> samplerSpec(const OpArgs& a, size_t inputArg) {
    return makeSpec(a, a.tensor(inputArg).meta, a.tensor(inputArg + 1).meta, NSP, a.toInt(inputArg + 2),
                    a.toInt(inputArg + 3), a.toBool(inputArg + 4));
}

// grid_sampler_Nd(input, grid, interpolation_mode, padding_mode, align_corners)
template <int NSP>
Expected<Value> metaGridSampler(const OpArgs& a) {
    auto s = samplerSpec<NSP>(a, 0);
    if (!s.ok()) return s.error();
    const TensorMeta& in = a.tensor(0).meta;
    return metaValue(TensorMeta::contiguous(outShape(*s), in.dtype, in.device));
}

template <int NSP>
Expected<Value> gridSamplerKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = samplerSpec<NSP>(a, 0);
    if (!s.ok()) return s.error();
    std::vector<double> y(static_cast<size_t>(s->N * s->C * s->outPlane()), 0.0);
    sample(*s, toDoubles(a.tensor(0)), toDoubles(a.tensor(1)), &y, nullptr, nullptr, nullptr);
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

/// (grad_input or None, grad_grid), both contiguous.
Expected<Value> backwardMeta(const OpArgs& a, const Spec& s, const TensorMeta& gOut, const TensorMeta& in,
                             const TensorMeta& grid, bool inputGrad) {
    if (gOut.shape != outShape(s))
        return opError(a, "expected grad_output of shape " + shapeStr(outShape(s)) + ", got " + shapeStr(gOut.shape));
    std::vector<Value> v;
    v.push_back(inputGrad ? metaValue(TensorMeta::contiguous(in.shape, in.dtype, in.device)) : Value::none());
    v.push_back(metaValue(TensorMeta::contiguous(grid.shape, grid.dtype, grid.device)));
    return Value::ofList(std::move(v), true);
}

Value backwardRun(const Spec& s, const Tensor& gOut, const Tensor& in, const Tensor& grid, const Value& out) {
    std::vector<double> gx(static_cast<size_t>(in.numel()), 0.0), gg(static_cast<size_t>(grid.numel()), 0.0);
    const auto go = toDoubles(gOut);
    const bool inputGrad = out.list[0].isTensor();
    sample(s, toDoubles(in), toDoubles(grid), nullptr, &go, inputGrad ? &gx : nullptr, &gg);
    std::vector<Value> v;
    v.push_back(inputGrad ? Value::ofTensor(makeTensor(out.list[0].t.meta, gx)) : Value::none());
    v.push_back(Value::ofTensor(makeTensor(out.list[1].t.meta, gg)));
    return Value::ofList(std::move(v), true);
}

bool inputGradWanted(const OpArgs& a, size_t maskArg) {
    const Value& m = a[maskArg];
    if (!m.isList() || m.list.empty()) return true;
    const Value& v = m.list[0];
    return v.kind == Value::Kind::Bool ? v.b : v.toDouble() != 0.0;
}

// grid_sampler_Nd_backward(grad_output, input, grid, interpolation_mode, padding_mode,
//                          align_corners, output_mask)
template <int NSP>
Expected<Value> metaGridSamplerBackward(const OpArgs& a) {
    auto s = samplerSpec<NSP>(a, 1);
    if (!s.ok()) return s.error();
    return backwardMeta(a, *s, a.tensor(0).meta, a.tensor(1).meta, a.tensor(2).meta, inputGradWanted(a, 6));
}

template <int NSP>
Expected<Value> gridSamplerBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = samplerSpec<NSP>(a, 1);
    if (!s.ok()) return s.error();
    return backwardRun(*s, a.tensor(0), a.tensor(1), a.tensor(2), out);
}

// cudnn_grid_sampler(self, grid): bilinear, zero padding, align_corners=True.
Expected<Spec> cudnnSpec(const OpArgs& a) {
    return makeSpec(a, a.tensor(0).meta, a.tensor(1).meta, 2, int64_t(Interp::Bilinear), int64_t(Padding::Zeros), true);
}

Expected<Value> metaCudnnGridSampler(const OpArgs& a) {
    auto s = cudnnSpec(a);
    if (!s.ok()) return s.error();
    const TensorMeta& in = a.tensor(0).meta;
    return metaValue(TensorMeta::contiguous(outShape(*s), in.dtype, in.device));
}

Expected<Value> cudnnGridSamplerKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = cudnnSpec(a);
    if (!s.ok()) return s.error();
    std::vector<double> y(static_cast<size_t>(s->N * s->C * s->outPlane()), 0.0);
    sample(*s, toDoubles(a.tensor(0)), toDoubles(a.tensor(1)), &y, nullptr, nullptr, nullptr);
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

// cudnn_grid_sampler_backward(self, grid, grad_output) -> (grad_self, grad_grid)
Expected<Value> metaCudnnGridSamplerBackward(const OpArgs& a) {
    auto s = cudnnSpec(a);
    if (!s.ok()) return s.error();
    return backwardMeta(a, *s, a.tensor(2).meta, a.tensor(0).meta, a.tensor(1).meta, true);
}

Expected<Value> cudnnGridSamplerBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = cudnnSpec(a);
    if (!s.ok()) return s.error();
    return backwardRun(*s, a.tensor(2), a.tensor(0), a.tensor(1), out);
}

}  // namespace

void registerGridSampleOps(OpRegistry& r) {
    using C = OpCategory;
    r.add("aten.grid_sampler_2d.default",
          "grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) "
          "-> Tensor",
          C::Other, metaGridSampler<2>, gridSamplerKernel<2>);
    r.add("aten.grid_sampler_2d_backward.default",
          "grid_sampler_2d_backward(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, "
          "int padding_mode, bool align_corners, bool[2] output_mask) -> (Tensor, Tensor)",
          C::Other, metaGridSamplerBackward<2>, gridSamplerBackwardKernel<2>);
    r.add("aten.grid_sampler_3d.default",
          "grid_sampler_3d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) "
          "-> Tensor",
          C::Other, metaGridSampler<3>, gridSamplerKernel<3>);
    r.add("aten.grid_sampler_3d_backward.default",
          "grid_sampler_3d_backward(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, "
          "int padding_mode, bool align_corners, bool[2] output_mask) -> (Tensor, Tensor)",
          C::Other, metaGridSamplerBackward<3>, gridSamplerBackwardKernel<3>);
    r.add("aten.cudnn_grid_sampler.default", "cudnn_grid_sampler(Tensor self, Tensor grid) -> Tensor output", C::Other,
          metaCudnnGridSampler, cudnnGridSamplerKernel);
    r.add("aten.cudnn_grid_sampler_backward.default",
          "cudnn_grid_sampler_backward(Tensor self, Tensor grid, Tensor grad_output) -> (Tensor grad_self, "
          "Tensor grad_grid)",
          C::Other, metaCudnnGridSamplerBackward, cudnnGridSamplerBackwardKernel);
}

}  // namespace fxray
