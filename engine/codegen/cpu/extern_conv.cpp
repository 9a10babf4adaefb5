// Convolution on the CPU backend: aten.convolution and aten.convolution_backward with 1 to 3
// spatial dims, groups, strides, padding, dilation, plain and transposed, and the Dynamo-stage
// composites conv1d/conv2d/conv3d and conv_transpose1d/2d/3d. One im2col map + GEMM engine serves all of them: a
// transposed convolution is the data gradient of the plain convolution that maps its output
// back to its input (same weight, stride, padding, dilation, groups; output_padding only fixes
// the output's size), so every case is one of three products over the plain geometry:
//   forward      Y_g  = W_g @ im2col(X_g)
//   data grad    dX_g = col2im(W_g^T @ dY_g)
//   weight grad  dW_g = dY_g @ im2col(X_g)^T
// fp32 math on contiguous copies (fp16/bf16 operands widened); fp64 convolutions decline, since
// fp32 accumulation would miss fp64's tolerance, and run on the reference kernel (reported).
// Their table: extern_table.h convExterns().
#include "codegen/cpu/extern_kernels.h"
#include "codegen/cpu/extern_table.h"
#include "codegen/cpu/extern_util.h"
#include "codegen/conv_composite.h"

#include <algorithm>
#include <optional>
#include <string>

namespace fxray::cg::cpu {

namespace {

/// The plain convolution's geometry: input X [N, C, in...] -> output Y [N, O, out...] by weight
/// [O, C / groups, k...], spatial dims padded to three (size 1, stride 1, no padding).
struct ConvGeom {
    int64_t N = 0, C = 0, O = 0, groups = 1, Cg = 0, Og = 0;
    int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, out[3] = {1, 1, 1};
    int64_t s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
    int64_t inSize() const { return in[0] * in[1] * in[2]; }
    int64_t P() const { return out[0] * out[1] * out[2]; }
    int64_t Kd() const { return Cg * k[0] * k[1] * k[2]; }
};

/// Geometry from the plain input's, weight's and output's shapes and the int-list arguments
/// (one entry per spatial dim, or one for all); nullopt where they do not fit together.
std::optional<ConvGeom> geometry(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws,
                                 const std::vector<int64_t>& ys, const std::vector<int64_t>& stride,
                                 const std::vector<int64_t>& pad, const std::vector<int64_t>& dil, int64_t groups) {
    const size_t D = xs.size() < 3 ? 0 : xs.size() - 2;
    if (D < 1 || D > 3 || ws.size() != xs.size() || ys.size() != xs.size() || groups <= 0) return std::nullopt;
    auto pick = [D](const std::vector<int64_t>& v, size_t i, int64_t dflt) -> std::optional<int64_t> {
        if (v.empty()) return dflt;
        if (v.size() == 1) return v[0];
        if (v.size() != D) return std::nullopt;
        return v[i];
    };
    ConvGeom g;
    g.N = xs[0], g.C = xs[1], g.O = ws[0], g.groups = groups, g.Cg = ws[1];
    if (ys[0] != g.N || ys[1] != g.O || g.C != g.Cg * groups || g.O % groups != 0) return std::nullopt;
    g.Og = g.O / groups;
    const size_t off = 3 - D;  // leading unit dims
    for (size_t i = 0; i < D; ++i) {
        auto s = pick(stride, i, 1), p = pick(pad, i, 0), d = pick(dil, i, 1);
        if (!s || !p || !d || *s <= 0 || *p < 0 || *d <= 0) return std::nullopt;
        g.in[off + i] = xs[2 + i], g.k[off + i] = ws[2 + i], g.out[off + i] = ys[2 + i];
        g.s[off + i] = *s, g.p[off + i] = *p, g.d[off + i] = *d;
    }
    return g;
}

/// For each im2col element (row c, k0, k1, k2 as the weight's [Cg, k...] flattens; column the
/// output position), its offset within one image's group of input channels, or -1 (padding).
std::vector<int64_t> im2colMap(const ConvGeom& g) {
    std::vector<int64_t> m(static_cast<size_t>(g.Kd() * g.P()));
    size_t e = 0;
    for (int64_t c = 0; c < g.Cg; ++c)
        for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
            for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
                for (int64_t k2 = 0; k2 < g.k[2]; ++k2)
                    for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
                        const int64_t i0 = o0 * g.s[0] - g.p[0] + k0 * g.d[0];
                        for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
                            const int64_t i1 = o1 * g.s[1] - g.p[1] + k1 * g.d[1];
                            for (int64_t o2 = 0; o2 < g.out[2]; ++o2, ++e) {
                                const int64_t i2 = o2 * g.s[2] - g.p[2] + k2 * g.d[2];
                                const bool inside = i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 &&
                                                    i2 < g.in[2];
                                m[e] = inside ? ((c * g.in[0] + i0) * g.in[1] + i1) * g.in[2] + i2 : -1;
                            }
                        }
                    }
    return m;
}

/// Images per GEMM: as many as keep one chunk's im2col columns within about 32 MB, so that late
/// layers (a few dozen output positions per image) run one wide GEMM instead of N narrow ones.
int64_t imagesPerChunk(const ConvGeom& g) {
    const int64_t perImage = std::max<int64_t>(1, g.Kd() * g.P());
    return std::clamp<int64_t>((int64_t(8) << 20) / perImage, 1, std::max<int64_t>(g.N, 1));
}

/// col [Kd, nb * P]: the im2col columns of images n0 .. n0 + nb, group gr, side by side.
void gatherCols(const ConvGeom& g, const std::vector<int64_t>& map, const float* X, int64_t n0, int64_t nb, int64_t gr,
                std::vector<float>& col) {
    const int64_t P = g.P(), Kd = g.Kd(), W = nb * P;
    col.resize(static_cast<size_t>(Kd * W));
    for (int64_t j = 0; j < nb; ++j) {
        const float* x = X + ((n0 + j) * g.C + gr * g.Cg) * g.inSize();
        for (int64_t r = 0; r < Kd; ++r) {
            const int64_t* m = map.data() + r * P;
            float* dst = col.data() + r * W + j * P;
            for (int64_t p = 0; p < P; ++p) dst[p] = m[p] < 0 ? 0.0f : x[m[p]];
        }
    }
}

/// t [Og, nb * P] <-> the [N, O, P] tensor's rows of images n0 .. n0 + nb, group gr.
void gatherRows(const ConvGeom& g, const float* Y, int64_t n0, int64_t nb, int64_t gr, std::vector<float>& t) {
    const int64_t P = g.P(), W = nb * P;
    t.resize(static_cast<size_t>(g.Og * W));
    for (int64_t o = 0; o < g.Og; ++o)
        for (int64_t j = 0; j < nb; ++j)
            std::copy_n(Y + ((n0 + j) * g.O + gr * g.Og + o) * P, P, t.data() + o * W + j * P);
}
void scatterRows(const ConvGeom& g, const std::vector<float>& t, int64_t n0, int64_t nb, int64_t gr, float* Y) {
    const int64_t P = g.P(), W = nb * P;
    for (int64_t o = 0; o < g.Og; ++o)
        for (int64_t j = 0; j < nb; ++j)
            std::copy_n(t.data() + o * W + j * P, P, Y + ((n0 + j) * g.O + gr * g.Og + o) * P);
}

/// fn(n0, nb, gr) for every chunk of images n0 .. n0 + nb and every group gr.
template <class Fn>
void forEachChunk(const ConvGeom& g, Fn&& fn) {
    const int64_t chunk = imagesPerChunk(g);
    for (int64_t n0 = 0; n0 < g.N; n0 += chunk)
        for (int64_t gr = 0; gr < g.groups; ++gr) fn(n0, std::min(chunk, g.N - n0), gr);
}

/// Y = W @ im2col(X) for every image and group (Y [N, O, P] row-major, overwritten).
void forwardProduct(const ConvGeom& g, const std::vector<int64_t>& map, const float* X, const float* W, float* Y) {
    std::vector<float> col, t;
    const int64_t Kd = g.Kd(), P = g.P();
    forEachChunk(g, [&](int64_t n0, int64_t nb, int64_t gr) {
        const int64_t width = nb * P;
        gatherCols(g, map, X, n0, nb, gr, col);
        t.resize(static_cast<size_t>(g.Og * width));  // beta 0: overwritten
        sgemm(g.Og, width, Kd, 1.0f, W + gr * g.Og * Kd, Kd, 1, col.data(), width, 1, 0.0f, t.data(), width);
        scatterRows(g, t, n0, nb, gr, Y);
    });
}

/// dX += col2im(W^T @ dY) (dX [N, C, in] row-major, zeroed by the caller).
void dataGradProduct(const ConvGeom& g, const std::vector<int64_t>& map, const float* dY, const float* W, float* dX) {
    std::vector<float> col, t;
    const int64_t Kd = g.Kd(), P = g.P();
    forEachChunk(g, [&](int64_t n0, int64_t nb, int64_t gr) {
        const int64_t width = nb * P;
        gatherRows(g, dY, n0, nb, gr, t);
        col.resize(static_cast<size_t>(Kd * width));  // beta 0: overwritten
        sgemm(Kd, width, g.Og, 1.0f, W + gr * g.Og * Kd, 1, Kd, t.data(), width, 1, 0.0f, col.data(), width);
        for (int64_t j = 0; j < nb; ++j) {
            float* xd = dX + ((n0 + j) * g.C + gr * g.Cg) * g.inSize();
            for (int64_t r = 0; r < Kd; ++r) {
                const int64_t* m = map.data() + r * P;
                const float* src = col.data() + r * width + j * P;
                for (int64_t p = 0; p < P; ++p)
                    if (m[p] >= 0) xd[m[p]] += src[p];
            }
        }
    });
}

/// dW += dY @ im2col(X)^T summed over images (dW [O, Kd] row-major, zeroed by the caller).
void weightGradProduct(const ConvGeom& g, const std::vector<int64_t>& map, const float* X, const float* dY,
                       float* dW) {
    std::vector<float> col, t;
    const int64_t Kd = g.Kd(), P = g.P();
    forEachChunk(g, [&](int64_t n0, int64_t nb, int64_t gr) {
        const int64_t width = nb * P;
        gatherCols(g, map, X, n0, nb, gr, col);
        gatherRows(g, dY, n0, nb, gr, t);
        sgemm(g.Og, Kd, width, 1.0f, t.data(), width, 1, col.data(), 1, width, 1.0f, dW + gr * g.Og * Kd, Kd);
    });
}

/// Per-channel sum over every dim but 1 (the bias gradient).
std::vector<double> channelSums(const std::vector<float>& v, int64_t N, int64_t C, int64_t inner) {
    std::vector<double> r(static_cast<size_t>(C), 0.0);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c) {
            const float* p = v.data() + (n * C + c) * inner;
            double s = 0;
            for (int64_t i = 0; i < inner; ++i) s += p[i];
            r[static_cast<size_t>(c)] += s;
        }
    return r;
}

/// fp32 math suits fp32 and the half types; fp64 goes to the reference kernel.
bool handled(const Tensor& t) { return floatLike(t.dtype()); }

int64_t innerSize(const std::vector<int64_t>& shape) {
    int64_t r = 1;
    for (size_t i = 2; i < shape.size(); ++i) r *= shape[i];
    return r;
}

/// convolution(input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups)
bool convolution(const OpArgs& a, Tensor& out) {
    const Tensor& x = a.tensor(0);
    const Tensor& w = a.tensor(1);
    const bool transposed = a.toBool(6);
    if (!handled(x) || !handled(w) || !handled(out) || x.dim() != out.dim()) return false;
    // Transposed: the plain convolution maps out (its input) to x (its output).
    auto g = transposed ? geometry(out.shape(), w.shape(), x.shape(), a.toIntList(3), a.toIntList(4),
                                   a.toIntList(5), a.toInt(8))
                        : geometry(x.shape(), w.shape(), out.shape(), a.toIntList(3), a.toIntList(4),
                                   a.toIntList(5), a.toInt(8));
    if (!g) return false;
    const auto map = im2colMap(*g);
    const auto xv = f32(x), wv = f32(w);
    std::vector<float> y(static_cast<size_t>(out.numel()), 0.0f);
    if (transposed)
        dataGradProduct(*g, map, xv.data(), wv.data(), y.data());
    else
        forwardProduct(*g, map, xv.data(), wv.data(), y.data());
    if (!a.isNone(2)) {
        // A CUDA graph's fp16/bf16 product is rounded before the bias is added (ATen adds it after
        // cuDNN's convolution), as the reference kernel does.
        if (out.meta.device.type == "cuda" && (out.dtype() == DType::Float16 || out.dtype() == DType::BFloat16))
            for (float& v : y) v = static_cast<float>(kern::roundTo(v, out.dtype()));
        const auto b = f32(a.tensor(2));
        const int64_t C = out.shape()[1], inner = innerSize(out.shape());
        if (static_cast<int64_t>(b.size()) != C) return false;
        for (int64_t n = 0; n < out.shape()[0]; ++n)
            for (int64_t c = 0; c < C; ++c) {
                float* p = y.data() + (n * C + c) * inner;
                for (int64_t i = 0; i < inner; ++i) p[i] += b[static_cast<size_t>(c)];
            }
    }
    store(out, y);
    return true;
}

/// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
/// transposed, output_padding, groups, output_mask) -> (grad_input, grad_weight, grad_bias).
/// Plain: the plain input is `input` and dY is grad_output. Transposed: the plain input is
/// grad_output and the plain dY is `input`, so grad_input is the plain forward product.
bool convolutionBackward(const OpArgs& a, const std::vector<Tensor*>& outs) {
    const Tensor& gy = a.tensor(0);
    const Tensor& x = a.tensor(1);
    const Tensor& w = a.tensor(2);
    const bool transposed = a.toBool(7);
    if (outs.size() < 3 || !handled(gy) || !handled(x) || !handled(w) || gy.dim() != x.dim()) return false;
    for (const Tensor* o : outs)
        if (o && !handled(*o)) return false;
    const Tensor& plainX = transposed ? gy : x;
    const Tensor& plainDY = transposed ? x : gy;
    auto g = geometry(plainX.shape(), w.shape(), plainDY.shape(), a.toIntList(4), a.toIntList(5), a.toIntList(6),
                      a.toInt(9));
    if (!g) return false;
    const auto map = im2colMap(*g);
    const auto xv = f32(plainX), wv = f32(w), dyv = f32(plainDY);
    if (outs[0]) {
        std::vector<float> gx(static_cast<size_t>(x.numel()), 0.0f);
        if (transposed)
            forwardProduct(*g, map, xv.data(), wv.data(), gx.data());
        else
            dataGradProduct(*g, map, dyv.data(), wv.data(), gx.data());
        store(*outs[0], gx);
    }
    if (outs[1]) {
        std::vector<float> gw(static_cast<size_t>(w.numel()), 0.0f);
        weightGradProduct(*g, map, xv.data(), dyv.data(), gw.data());
        store(*outs[1], gw);
    }
    if (outs[2]) {
        const std::vector<float> gyv = transposed ? xv : dyv;
        kern::fromDoubles(*outs[2], channelSums(gyv, gy.shape()[0], gy.shape()[1], innerSize(gy.shape())));
    }
    return true;
}

/// conv1d/conv2d/conv3d(input, weight, bias, stride, padding, dilation, groups) as Dynamo-stage
/// graphs keep them (padding a list or, `.padding`, a name): convolution with transposed false
/// and no output padding.
template <int D>
bool convComposite(const OpArgs& a, Tensor& out) {
    const OpInfo* conv = OpRegistry::instance().find("aten.convolution.default");
    if (!conv || !a.isTensor(0) || a.tensor(0).dim() != D + 2 || !a[3].isList() || !a[5].isList()) return false;
    auto pad = compositeConvPadding(a, D);
    if (!pad) return false;
    std::vector<Value> p, zeros(D, Value::ofInt(0));
    for (int64_t v : *pad) p.push_back(Value::ofInt(v));
    return convolution(OpArgs(*conv, {a[0], a[1], a[2], a[3], Value::ofList(std::move(p)), a[5], Value::ofBool(false),
                                      Value::ofList(zeros), a[6]}),
                       out);
}

/// conv_transpose1d/2d/3d.input(input, weight, bias, stride, padding, output_padding, groups,
/// dilation) as Dynamo-stage graphs keep them: convolution with transposed true.
bool convTransposeComposite(const OpArgs& a, Tensor& out) {
    const OpInfo* conv = OpRegistry::instance().find("aten.convolution.default");
    if (!conv || !a[3].isList() || !a[4].isList() || !a[5].isList() || !a[7].isList()) return false;
    return convolution(OpArgs(*conv, {a[0], a[1], a[2], a[3], a[4], a[7], Value::ofBool(true), a[5], a[6]}), out);
}

}  // namespace

const std::vector<CpuExtern>& convExterns() {
    static const std::vector<CpuExtern> t = {
        {"conv", single<convolution>},
        {"conv_backward", multi<convolutionBackward>},
        {"conv1d", single<convComposite<1>>},
        {"conv2d", single<convComposite<2>>},
        {"conv3d", single<convComposite<3>>},
        {"conv_transpose", single<convTransposeComposite>},
    };
    return t;
}

}  // namespace fxray::cg::cpu
