// Convolution (1-D to 3-D, grouped, dilated, transposed) forward and backward, and 2-D pooling
// (max with indices, average, adaptive average) forward and backward.
//
// Every convolution reduces to three routines over one "regular" convolution geometry: forward
// (im2col + GEMM), its adjoint (GEMM + col2im) and the weight gradient (GEMM against im2col).
// A transposed convolution is the adjoint of the regular convolution that maps its output back
// to its input, so the same three routines serve both directions.
#include "exec/ops/gemm.h"
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/register.h"

#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace fxray {
using namespace kern;
using namespace nn;

namespace {

// ----- convolution geometry and core routines ---------------------------------------------------

/// One regular (non-transposed) convolution's spatial geometry, padded to 3 spatial dims with
/// unit leading dims so that 1-D and 2-D share the 3-D loops.
struct Geom {
    std::array<int64_t, 3> in{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, p{0, 0, 0}, d{1, 1, 1}, out{1, 1, 1};
    int64_t K() const { return k[0] * k[1] * k[2]; }
    int64_t L() const { return out[0] * out[1] * out[2]; }
    int64_t inSize() const { return in[0] * in[1] * in[2]; }
};

/// col[(c*K + kk) * ld + l] = x[c][position of output l under kernel offset kk], 0 in padding.
void im2col(const double* x, int64_t C, const Geom& g, double* col, int64_t ld) {
    const int64_t inSz = g.inSize();
    int64_t row = 0;
    for (int64_t c = 0; c < C; ++c) {
        const double* xc = x + c * inSz;
        for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
            for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
                for (int64_t k2 = 0; k2 < g.k[2]; ++k2, ++row) {
                    double* dst = col + row * ld;
                    for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
                        const int64_t i0 = o0 * g.s[0] - g.p[0] + k0 * g.d[0];
                        for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
                            const int64_t i1 = o1 * g.s[1] - g.p[1] + k1 * g.d[1];
                            double* drow = dst + (o0 * g.out[1] + o1) * g.out[2];
                            if (i0 < 0 || i0 >= g.in[0] || i1 < 0 || i1 >= g.in[1]) {
                                std::fill(drow, drow + g.out[2], 0.0);
                                continue;
                            }
                            const double* srow = xc + (i0 * g.in[1] + i1) * g.in[2];
                            for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
                                const int64_t i2 = o2 * g.s[2] - g.p[2] + k2 * g.d[2];
                                drow[o2] = i2 >= 0 && i2 < g.in[2] ? srow[i2] : 0.0;
                            }
                        }
                    }
                }
    }
}

/// The adjoint of im2col: x[c][position] += col entries that read it.
void col2im(const double* col, int64_t ld, int64_t C, const Geom& g, double* x) {
    const int64_t inSz = g.inSize();
    int64_t row = 0;
    for (int64_t c = 0; c < C; ++c) {
        double* xc = x + c * inSz;
        for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
            for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
                for (int64_t k2 = 0; k2 < g.k[2]; ++k2, ++row) {
                    const double* src = col + row * ld;
                    for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
                        const int64_t i0 = o0 * g.s[0] - g.p[0] + k0 * g.d[0];
                        if (i0 < 0 || i0 >= g.in[0]) continue;
                        for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
                            const int64_t i1 = o1 * g.s[1] - g.p[1] + k1 * g.d[1];
                            if (i1 < 0 || i1 >= g.in[1]) continue;
                            const double* srow = src + (o0 * g.out[1] + o1) * g.out[2];
                            double* xrow = xc + (i0 * g.in[1] + i1) * g.in[2];
                            for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
                                const int64_t i2 = o2 * g.s[2] - g.p[2] + k2 * g.d[2];
                                if (i2 >= 0 && i2 < g.in[2]) xrow[i2] += srow[o2];
                            }
                        }
                    }
                }
    }
}

/// Channel counts of a regular convolution: G groups, Cg input and Og output channels each.
/// W is [G*Og, Cg*K] row-major (the weight as PyTorch stores it for that convolution).
struct Chans {
    int64_t G = 1, Cg = 0, Og = 0;
};

// The batch is folded into the GEMM's columns (col is [Cg*K, N*L]) so that each group's weight
// is packed once per call rather than once per image: deep layers have tiny L and large weights.

/// y[N, G*Og, L] = conv(x[N, G*Cg, in]).
std::vector<double> convForward(const std::vector<double>& x, int64_t N, const std::vector<double>& W, const Chans& ch,
                                const Geom& g) {
    const int64_t K = g.K(), L = g.L(), NL = N * L, inSz = g.inSize(), rowLen = ch.Cg * K;
    std::vector<double> y(static_cast<size_t>(N * ch.G * ch.Og * L));
    std::vector<double> col(static_cast<size_t>(rowLen * NL)), prod(static_cast<size_t>(ch.Og * NL));
    for (int64_t grp = 0; grp < ch.G; ++grp) {
        for (int64_t n = 0; n < N; ++n)
            im2col(x.data() + (n * ch.G + grp) * ch.Cg * inSz, ch.Cg, g, col.data() + n * L, NL);
        gemm(ch.Og, NL, rowLen, MatView{W.data() + grp * ch.Og * rowLen, rowLen, 1}, MatView{col.data(), NL, 1},
             prod.data(), NL);
        for (int64_t o = 0; o < ch.Og; ++o)
            for (int64_t n = 0; n < N; ++n)
                std::copy_n(prod.data() + o * NL + n * L, L, y.data() + ((n * ch.G + grp) * ch.Og + o) * L);
    }
    return y;
}

/// dy[N, G*Og, L] gathered as one group's [Og, N*L] matrix.
void gatherGroup(const std::vector<double>& dy, int64_t N, const Chans& ch, int64_t L, int64_t grp, double* out) {
    const int64_t NL = N * L;
    for (int64_t o = 0; o < ch.Og; ++o)
        for (int64_t n = 0; n < N; ++n)
            std::copy_n(dy.data() + ((n * ch.G + grp) * ch.Og + o) * L, L, out + o * NL + n * L);
}

/// dx[N, G*Cg, in] = adjoint of convForward applied to dy[N, G*Og, L].
std::vector<double> convAdjoint(const std::vector<double>& dy, int64_t N, const std::vector<double>& W, const Chans& ch,
                                const Geom& g) {
    const int64_t K = g.K(), L = g.L(), NL = N * L, inSz = g.inSize(), rowLen = ch.Cg * K;
    std::vector<double> dx(static_cast<size_t>(N * ch.G * ch.Cg * inSz), 0.0);
    std::vector<double> col(static_cast<size_t>(rowLen * NL)), dyg(static_cast<size_t>(ch.Og * NL));
    for (int64_t grp = 0; grp < ch.G; ++grp) {
        gatherGroup(dy, N, ch, L, grp, dyg.data());
        gemm(rowLen, NL, ch.Og, MatView{W.data() + grp * ch.Og * rowLen, 1, rowLen}, MatView{dyg.data(), NL, 1},
             col.data(), NL);
        for (int64_t n = 0; n < N; ++n)
            col2im(col.data() + n * L, NL, ch.Cg, g, dx.data() + (n * ch.G + grp) * ch.Cg * inSz);
    }
    return dx;
}

/// dW[G*Og, Cg*K] = dy · im2col(x)ᵀ, the batch summed inside the product.
std::vector<double> convWeightGrad(const std::vector<double>& x, const std::vector<double>& dy, int64_t N,
                                   const Chans& ch, const Geom& g) {
    const int64_t K = g.K(), L = g.L(), NL = N * L, inSz = g.inSize(), rowLen = ch.Cg * K;
    std::vector<double> dW(static_cast<size_t>(ch.G * ch.Og * rowLen), 0.0);
    std::vector<double> col(static_cast<size_t>(rowLen * NL)), dyg(static_cast<size_t>(ch.Og * NL));
    for (int64_t grp = 0; grp < ch.G; ++grp) {
        for (int64_t n = 0; n < N; ++n)
            im2col(x.data() + (n * ch.G + grp) * ch.Cg * inSz, ch.Cg, g, col.data() + n * L, NL);
        gatherGroup(dy, N, ch, L, grp, dyg.data());
        gemm(ch.Og, rowLen, NL, MatView{dyg.data(), NL, 1}, MatView{col.data(), 1, NL},
             dW.data() + grp * ch.Og * rowLen, rowLen);
    }
    return dW;
}

// ----- convolution parameters -----------------------------------------------------------------

/// A convolution call, normalised: batched shapes, per-dim parameters, output shape.
struct ConvSpec {
    std::vector<int64_t> inShape, wShape, outShape;
    std::vector<int64_t> stride, padding, dilation, outputPadding;
    bool transposed = false;
    int64_t groups = 1;
    int64_t nsp = 0;
    /// The regular convolution behind it (for a transposed one: from its output to its input).
    Geom geom;
    Chans chans;
};

/// Expands a parameter list of 1 element (or a lone int) to `n` entries, as ATen does.
Expected<std::vector<int64_t>> expandParam(const OpArgs& a, std::vector<int64_t> v, int64_t n, const char* what) {
    if (static_cast<int64_t>(v.size()) == 1 && n > 1) v.assign(static_cast<size_t>(n), v[0]);
    if (static_cast<int64_t>(v.size()) != n)
        return opError(a, std::string(what) + " must have " + std::to_string(n) + " elements, got " + shapeStr(v));
    return v;
}

Expected<ConvSpec> convSpec(const OpArgs& a, const TensorMeta& in, const TensorMeta& w, std::vector<int64_t> stride,
                            std::vector<int64_t> padding, std::vector<int64_t> dilation, bool transposed,
                            std::vector<int64_t> outputPadding, int64_t groups) {
    ConvSpec c;
    const int64_t nd = in.dim();
    if (nd < 3 || nd > 5) return opError(a, "expected a 3-D, 4-D or 5-D (batched) input, got " + shapeStr(in.shape));
    if (w.dim() != nd)
        return opError(a, "expected weight to be " + std::to_string(nd) + "-D for input of shape " +
                              shapeStr(in.shape) + ", but got weight of shape " + shapeStr(w.shape));
    c.nsp = nd - 2;
    auto st = expandParam(a, std::move(stride), c.nsp, "stride");
    if (!st.ok()) return st.error();
    auto pd = expandParam(a, std::move(padding), c.nsp, "padding");
    if (!pd.ok()) return pd.error();
    auto dl = expandParam(a, std::move(dilation), c.nsp, "dilation");
    if (!dl.ok()) return dl.error();
    if (outputPadding.empty()) outputPadding.assign(static_cast<size_t>(c.nsp), 0);
    auto op = expandParam(a, std::move(outputPadding), c.nsp, "output_padding");
    if (!op.ok()) return op.error();
    c.stride = *st;
    c.padding = *pd;
    c.dilation = *dl;
    c.outputPadding = *op;
    c.transposed = transposed;
    c.groups = groups;
    c.inShape = in.shape;
    c.wShape = w.shape;
    if (groups <= 0) return opError(a, "non-positive groups is not supported");
    for (int64_t i = 0; i < c.nsp; ++i) {
        if (c.stride[i] <= 0) return opError(a, "non-positive stride is not supported");
        if (c.padding[i] < 0) return opError(a, "negative padding is not supported");
        if (c.dilation[i] <= 0) return opError(a, "dilation should be greater than zero");
        if (c.outputPadding[i] < 0) return opError(a, "negative output_padding is not supported");
        if (transposed && c.outputPadding[i] >= std::max(c.stride[i], c.dilation[i]))
            return opError(a, "output padding must be smaller than either stride or dilation");
    }
    const int64_t N = in.shape[0], Cin = in.shape[1];
    int64_t Cout = 0;
    if (!transposed) {
        if (w.shape[0] % groups != 0)
            return opError(a, "expected weight's first dimension (" + std::to_string(w.shape[0]) +
                                  ") to be divisible by groups (" + std::to_string(groups) + ")");
        if (Cin != w.shape[1] * groups)
            return opError(a, "expected input " + shapeStr(in.shape) + " to have " +
                                  std::to_string(w.shape[1] * groups) + " channels, but got " + std::to_string(Cin) +
                                  " channels instead");
        Cout = w.shape[0];
    } else {
        if (Cin != w.shape[0])
            return opError(a, "expected input " + shapeStr(in.shape) + " to have " + std::to_string(w.shape[0]) +
                                  " channels, but got " + std::to_string(Cin) + " channels instead");
        if (w.shape[0] % groups != 0)
            return opError(a, "expected weight's first dimension (" + std::to_string(w.shape[0]) +
                                  ") to be divisible by groups (" + std::to_string(groups) + ")");
        Cout = w.shape[1] * groups;
    }
    c.outShape = {N, Cout};
    const int64_t off = 3 - c.nsp;
    for (int64_t i = 0; i < c.nsp; ++i) {
        const int64_t L = in.shape[2 + i], k = w.shape[2 + i];
        const int64_t span = c.dilation[i] * (k - 1) + 1;
        int64_t o;
        if (!transposed) {
            if (L + 2 * c.padding[i] < span)
                return opError(a, "calculated padded input size per channel is smaller than the kernel size (input " +
                                      shapeStr(in.shape) + ", kernel " + shapeStr(w.shape) + ")");
            o = (L + 2 * c.padding[i] - span) / c.stride[i] + 1;
        } else {
            o = (L - 1) * c.stride[i] - 2 * c.padding[i] + span + c.outputPadding[i];
            if (o <= 0) return opError(a, "calculated output size is too small for input " + shapeStr(in.shape));
        }
        c.outShape.push_back(o);
        // The regular convolution: from in to out (forward), or from out to in (transposed).
        c.geom.in[off + i] = transposed ? o : L;
        c.geom.out[off + i] = transposed ? L : o;
        c.geom.k[off + i] = k;
        c.geom.s[off + i] = c.stride[i];
        c.geom.p[off + i] = c.padding[i];
        c.geom.d[off + i] = c.dilation[i];
    }
    c.chans.G = groups;
    c.chans.Og = w.shape[0] / groups;
    c.chans.Cg = w.shape[1];
    return c;
}

/// Per-channel bias added over [N, C, L].
void addBias(std::vector<double>& y, const std::vector<double>& bias, int64_t N, int64_t C, int64_t L) {
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c) {
            double* p = y.data() + (n * C + c) * L;
            for (int64_t l = 0; l < L; ++l) p[l] += bias[c];
        }
}

/// Output layout of a convolution (and of its input and weight gradients), as FakeTensor's conv
/// rule picks it from the backend: cuDNN (and mkldnn) compute channels-last when the input or
/// the weight is channels-last, except in float64, which they leave to the contiguous fallback
/// kernels.
bool convChannelsLast(const TensorMeta& in, const TensorMeta& w) {
    if (in.dtype == DType::Float64 || w.dtype == DType::Float64) return false;
    if (in.device.type == "cpu" && in.dim() == 5) return false;  // mkldnn: 2-D only
    return isChannelsLast(in) || isChannelsLast(w);
}

Expected<ConvSpec> convolutionArgs(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    auto w = reqTensor(a, 1);
    if (!w.ok()) return w.error();
    auto b = optTensor(a, 2);
    if (!b.ok()) return b.error();
    auto spec = convSpec(a, (*in)->meta, (*w)->meta, a.toIntList(3), a.toIntList(4), a.toIntList(5), a.toBool(6),
                         a.toIntList(7), a.toInt(8));
    if (!spec.ok()) return spec;
    if ((*in)->dtype() != (*w)->dtype())
        return opError(a, "input type (" + std::string(dtypeTorchName((*in)->dtype())) + ") and weight type (" +
                              std::string(dtypeTorchName((*w)->dtype())) + ") should be the same");
    if (*b && (*b)->numel() != spec->outShape[1])
        return opError(a, "expected bias of " + std::to_string(spec->outShape[1]) + " elements, got " +
                              shapeStr((*b)->shape()));
    return spec;
}

Expected<Value> metaConvolution(const OpArgs& a) {
    auto spec = convolutionArgs(a);
    if (!spec.ok()) return spec.error();
    const TensorMeta& in = a.tensor(0).meta;
    return metaValue(denseMeta(spec->outShape, in.dtype, in.device, convChannelsLast(in, a.tensor(1).meta)));
}

/// Runs the convolution described by spec on x with weight w (+ bias), row-major result. On CUDA,
/// ATen adds the bias after cuDNN's convolution (output.add_(bias)): an fp16/bf16 product is
/// rounded to its dtype before the bias is added, and the sum rounded again.
std::vector<double> runConvolution(const ConvSpec& c, const Tensor& x, const Tensor& w, const Tensor* bias) {
    const int64_t N = c.inShape[0];
    auto X = toDoubles(x);
    auto W = toDoubles(w);
    std::vector<double> y =
        c.transposed ? convAdjoint(X, N, W, c.chans, c.geom) : convForward(X, N, W, c.chans, c.geom);
    const DType t = x.dtype();
    if (bias && x.meta.device.type == "cuda" && (t == DType::Float16 || t == DType::BFloat16))
        for (double& v : y) v = roundTo(v, t);
    if (bias) {
        const int64_t L = product(std::vector<int64_t>(c.outShape.begin() + 2, c.outShape.end()));
        addBias(y, toDoubles(*bias), N, c.outShape[1], L);
    }
    return y;
}

Expected<Value> convolutionKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto spec = convolutionArgs(a);
    if (!spec.ok()) return spec.error();
    auto y = runConvolution(*spec, a.tensor(0), a.tensor(1), a.isNone(2) ? nullptr : &a.tensor(2));
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

// conv1d/conv2d/conv3d(input, weight, bias, stride, padding, dilation, groups) and
// conv_transposeNd.input(input, weight, bias, stride, padding, output_padding, groups, dilation):
// accept unbatched inputs (one dim fewer than the weight) and, for convNd.padding, the strings
// "valid" and "same".
struct ConvCall {
    ConvSpec spec;
    bool unbatched = false;
    /// "same" padding that needs an extra element at the end of a spatial dim.
    std::array<int64_t, 3> extraEnd{0, 0, 0};
};

Expected<ConvCall> convNdArgs(const OpArgs& a) {
    const auto& sc = a.op().schema;
    const bool transposed = sc.name.rfind("conv_transpose", 0) == 0;
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    auto w = reqTensor(a, 1);
    if (!w.ok()) return w.error();
    auto b = optTensor(a, 2);
    if (!b.ok()) return b.error();
    ConvCall call;
    TensorMeta im = (*in)->meta;
    const TensorMeta& wm = (*w)->meta;
    if (im.dim() == wm.dim() - 1) {
        call.unbatched = true;
        im.shape.insert(im.shape.begin(), 1);
        im.strides.insert(im.strides.begin(),
                          im.strides.empty() ? 1 : im.strides[0] * std::max<int64_t>(im.shape[1], 1));
    }
    const int64_t nsp = wm.dim() - 2;
    std::vector<int64_t> stride = a.toIntList(3), dilation, outputPadding, padding;
    int64_t groups = 1;
    if (transposed) {
        padding = a.toIntList(4);
        outputPadding = a.toIntList(5);
        groups = a.toInt(6);
        dilation = a.toIntList(7);
    } else {
        dilation = a.toIntList(5);
        groups = a.toInt(6);
        if (a[4].kind == Value::Kind::String) {
            const std::string& mode = a[4].s;
            padding.assign(static_cast<size_t>(std::max<int64_t>(nsp, 0)), 0);
            if (mode == "same") {
                auto dl = expandParam(a, dilation, nsp, "dilation");
                if (!dl.ok()) return dl.error();
                for (int64_t s : stride)
                    if (s != 1) return opError(a, "padding='same' is not supported for strided convolutions");
                for (int64_t i = 0; i < nsp; ++i) {
                    const int64_t total = (*dl)[i] * (wm.shape[2 + i] - 1);
                    padding[i] = total / 2;
                    call.extraEnd[3 - nsp + i] = total - 2 * (total / 2);
                }
            } else if (mode != "valid") {
                return opError(a, "invalid padding string '" + mode + "', expected 'valid' or 'same'");
            }
        } else {
            padding = a.toIntList(4);
        }
    }
    auto spec = convSpec(a, im, wm, stride, padding, dilation, transposed, outputPadding, groups);
    if (!spec.ok()) return spec.error();
    call.spec = *spec;
    for (int64_t i = 0; i < nsp; ++i) {
        const int64_t e = call.extraEnd[3 - nsp + i];
        if (e == 0) continue;
        // Asymmetric "same" padding: one more output position along this dim.
        call.spec.outShape[2 + i] += 1;
        call.spec.geom.out[3 - nsp + i] += 1;
    }
    if (im.dtype != wm.dtype)
        return opError(a, "input type (" + std::string(dtypeTorchName(im.dtype)) + ") and weight type (" +
                              std::string(dtypeTorchName(wm.dtype)) + ") should be the same");
    if (*b && (*b)->numel() != call.spec.outShape[1])
        return opError(a, "expected bias of " + std::to_string(call.spec.outShape[1]) + " elements, got " +
                              shapeStr((*b)->shape()));
    return call;
}

Expected<Value> metaConvNd(const OpArgs& a) {
    auto call = convNdArgs(a);
    if (!call.ok()) return call.error();
    const TensorMeta& in = a.tensor(0).meta;
    std::vector<int64_t> shape = call->spec.outShape;
    if (call->unbatched) {
        shape.erase(shape.begin());
        return metaValue(TensorMeta::contiguous(shape, in.dtype, in.device));
    }
    return metaValue(denseMeta(shape, in.dtype, in.device, convChannelsLast(in, a.tensor(1).meta)));
}

Expected<Value> convNdKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto call = convNdArgs(a);
    if (!call.ok()) return call.error();
    auto y = runConvolution(call->spec, a.tensor(0), a.tensor(1), a.isNone(2) ? nullptr : &a.tensor(2));
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

// convolution_backward(grad_output, input, weight, bias_sizes?, stride, padding, dilation,
//                      transposed, output_padding, groups, output_mask)
Expected<ConvSpec> convBackwardArgs(const OpArgs& a) {
    auto go = reqTensor(a, 0);
    if (!go.ok()) return go.error();
    auto in = reqTensor(a, 1);
    if (!in.ok()) return in.error();
    auto w = reqTensor(a, 2);
    if (!w.ok()) return w.error();
    auto spec = convSpec(a, (*in)->meta, (*w)->meta, a.toIntList(4), a.toIntList(5), a.toIntList(6), a.toBool(7),
                         a.toIntList(8), a.toInt(9));
    if (!spec.ok()) return spec;
    if ((*go)->shape() != spec->outShape)
        return opError(a, "grad_output of shape " + shapeStr((*go)->shape()) +
                              " does not match the convolution's output " + shapeStr(spec->outShape));
    if (boolList(a, 10).size() != 3) return opError(a, "output_mask must have 3 entries");
    return spec;
}

Expected<Value> metaConvBackward(const OpArgs& a) {
    auto spec = convBackwardArgs(a);
    if (!spec.ok()) return spec.error();
    const TensorMeta& go = a.tensor(0).meta;
    const auto mask = boolList(a, 10);
    std::optional<TensorMeta> gi, gw, gb;
    const bool cl = convChannelsLast(a.tensor(1).meta, a.tensor(2).meta);
    if (mask[0]) gi = denseMeta(spec->inShape, go.dtype, go.device, cl);
    if (mask[1]) gw = denseMeta(spec->wShape, go.dtype, go.device, cl);
    if (mask[2]) {
        std::vector<int64_t> bs = a.isNone(3) ? std::vector<int64_t>{spec->outShape[1]} : a.toIntList(3);
        if (product(bs) != spec->outShape[1])
            return opError(a, "bias_sizes " + shapeStr(bs) + " do not match " + std::to_string(spec->outShape[1]) +
                                  " channels");
        gb = TensorMeta::contiguous(bs, go.dtype, go.device);
    }
    return metaTuple({gi, gw, gb});
}

Expected<Value> convBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto spec = convBackwardArgs(a);
    if (!spec.ok()) return spec.error();
    const ConvSpec& c = *spec;
    const auto mask = boolList(a, 10);
    const int64_t N = c.inShape[0];
    auto dY = toDoubles(a.tensor(0));
    std::vector<double> gi, gw, gb;
    if (mask[0] || mask[1]) {
        auto W = mask[0] ? toDoubles(a.tensor(2)) : std::vector<double>{};
        auto X = mask[1] ? toDoubles(a.tensor(1)) : std::vector<double>{};
        if (!c.transposed) {
            if (mask[0]) gi = convAdjoint(dY, N, W, c.chans, c.geom);
            if (mask[1]) gw = convWeightGrad(X, dY, N, c.chans, c.geom);
        } else {
            // The transposed convolution is the adjoint of the regular one from its output (dY's
            // space) to its input (X's space).
            if (mask[0]) gi = convForward(dY, N, W, c.chans, c.geom);
            if (mask[1]) gw = convWeightGrad(dY, X, N, c.chans, c.geom);
        }
    }
    if (mask[2]) {
        const int64_t C = c.outShape[1];
        const int64_t L = product(std::vector<int64_t>(c.outShape.begin() + 2, c.outShape.end()));
        gb.assign(static_cast<size_t>(C), 0.0);
        for (int64_t n = 0; n < N; ++n)
            for (int64_t ch = 0; ch < C; ++ch) {
                const double* p = dY.data() + (n * C + ch) * L;
                double s = 0.0;
                for (int64_t l = 0; l < L; ++l) s += p[l];
                gb[ch] += s;
            }
    }
    return fillTuple(out, {gi, gw, gb});
}

// ----- 2-D pooling ----------------------------------------------------------------------------

/// ATen's pooling_output_shape.
int64_t poolOutSize(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
    const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
    int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
    if (ceil && (out - 1) * stride >= in + pad) --out;
    return out;
}

struct PoolSpec {
    int64_t planes = 0;  ///< N*C (or C when unbatched)
    int64_t H = 0, W = 0, OH = 0, OW = 0;
    int64_t kH = 1, kW = 1, sH = 1, sW = 1, pH = 0, pW = 0, dH = 1, dW = 1;
    bool ceil = false;
    std::vector<int64_t> outShape;
};

Expected<std::array<int64_t, 2>> pair(const OpArgs& a, size_t i, const char* what,
                                      std::optional<std::array<int64_t, 2>> dflt = {}) {
    auto v = a.toIntList(i);
    if (v.empty() && dflt) return *dflt;
    if (v.size() == 1) return std::array<int64_t, 2>{v[0], v[0]};
    if (v.size() != 2) return opError(a, std::string(what) + " must be one int or a pair of ints, got " + shapeStr(v));
    return std::array<int64_t, 2>{v[0], v[1]};
}

/// Geometry of max/avg pooling: args are (self at selfIdx, kernel_size, stride, padding[, dilation], ceil_mode).
Expected<PoolSpec> poolSpec(const OpArgs& a, const TensorMeta& in, size_t kIdx, bool hasDilation, size_t ceilIdx) {
    if (in.dim() != 3 && in.dim() != 4) return opError(a, "expected a 3-D or 4-D input, got " + shapeStr(in.shape));
    auto k = pair(a, kIdx, "kernel_size");
    if (!k.ok()) return k.error();
    auto s = pair(a, kIdx + 1, "stride", *k);
    if (!s.ok()) return s.error();
    auto p = pair(a, kIdx + 2, "padding");
    if (!p.ok()) return p.error();
    std::array<int64_t, 2> d{1, 1};
    if (hasDilation) {
        auto dd = pair(a, kIdx + 3, "dilation");
        if (!dd.ok()) return dd.error();
        d = *dd;
    }
    PoolSpec ps;
    ps.kH = (*k)[0];
    ps.kW = (*k)[1];
    ps.sH = (*s)[0];
    ps.sW = (*s)[1];
    ps.pH = (*p)[0];
    ps.pW = (*p)[1];
    ps.dH = d[0];
    ps.dW = d[1];
    ps.ceil = a.toBool(ceilIdx);
    if (ps.kH <= 0 || ps.kW <= 0) return opError(a, "kernel size should be greater than zero");
    if (ps.sH <= 0 || ps.sW <= 0) return opError(a, "stride should be greater than zero");
    if (ps.dH <= 0 || ps.dW <= 0) return opError(a, "dilation should be greater than zero");
    if (ps.pH < 0 || ps.pW < 0 || ps.pH > ps.kH / 2 || ps.pW > ps.kW / 2)
        return opError(a, "pad should be at most half of effective kernel size, but got pad=" +
                              shapeStr({ps.pH, ps.pW}) + " and kernel_size=" + shapeStr({ps.kH, ps.kW}));
    const int64_t nd = in.dim();
    ps.H = in.shape[nd - 2];
    ps.W = in.shape[nd - 1];
    ps.planes = product(std::vector<int64_t>(in.shape.begin(), in.shape.end() - 2));
    ps.OH = poolOutSize(ps.H, ps.kH, ps.pH, ps.sH, ps.dH, ps.ceil);
    ps.OW = poolOutSize(ps.W, ps.kW, ps.pW, ps.sW, ps.dW, ps.ceil);
    if (ps.OH <= 0 || ps.OW <= 0)
        return opError(a, "given input size " + shapeStr(in.shape) + ", calculated output size " +
                              shapeStr({ps.OH, ps.OW}) + " is too small");
    ps.outShape = in.shape;
    ps.outShape[nd - 2] = ps.OH;
    ps.outShape[nd - 1] = ps.OW;
    return ps;
}

Expected<Value> metaMaxPool(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    const TensorMeta& im = (*in)->meta;
    auto ps = poolSpec(a, im, 1, true, 5);
    if (!ps.ok()) return ps.error();
    const bool cl = isChannelsLast(im);
    TensorMeta out = denseMeta(ps->outShape, im.dtype, im.device, cl);
    if (a.op().schema.name == "max_pool2d") return metaValue(out);
    TensorMeta idx = denseMeta(ps->outShape, DType::Int64, im.device, cl);
    return metaTuple({out, idx});
}

Expected<Value> maxPoolKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto ps = poolSpec(a, a.tensor(0).meta, 1, true, 5);
    if (!ps.ok()) return ps.error();
    const PoolSpec& p = *ps;
    auto x = toDoubles(a.tensor(0));
    std::vector<double> y(static_cast<size_t>(p.planes * p.OH * p.OW)), idx(y.size());
    for (int64_t pl = 0; pl < p.planes; ++pl) {
        const double* xp = x.data() + pl * p.H * p.W;
        for (int64_t oh = 0; oh < p.OH; ++oh)
            for (int64_t ow = 0; ow < p.OW; ++ow) {
                int64_t h0 = oh * p.sH - p.pH, w0 = ow * p.sW - p.pW;
                while (h0 < 0) h0 += p.dH;
                while (w0 < 0) w0 += p.dW;
                const int64_t h1 = std::min(oh * p.sH - p.pH + (p.kH - 1) * p.dH + 1, p.H);
                const int64_t w1 = std::min(ow * p.sW - p.pW + (p.kW - 1) * p.dW + 1, p.W);
                // The first maximum in scan order wins; a NaN wins over any number (the last
                // NaN, as ATen's `val > max || isnan(val)` scan gives).
                double best = -std::numeric_limits<double>::infinity();
                int64_t bestIdx = h0 * p.W + w0;
                for (int64_t h = h0; h < h1; h += p.dH)
                    for (int64_t w = w0; w < w1; w += p.dW) {
                        const double v = xp[h * p.W + w];
                        if (v > best || std::isnan(v)) {
                            best = v;
                            bestIdx = h * p.W + w;
                        }
                    }
                const size_t o = static_cast<size_t>((pl * p.OH + oh) * p.OW + ow);
                y[o] = best;
                idx[o] = double(bestIdx);
            }
    }
    if (a.op().schema.name == "max_pool2d") return Value::ofTensor(makeTensor(out.t.meta, y));
    return fillTuple(out, {y, idx});
}

// max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
Expected<Value> metaMaxPoolBackward(const OpArgs& a) {
    auto go = reqTensor(a, 0);
    if (!go.ok()) return go.error();
    auto in = reqTensor(a, 1);
    if (!in.ok()) return in.error();
    auto ix = reqTensor(a, 7);
    if (!ix.ok()) return ix.error();
    const TensorMeta& im = (*in)->meta;
    auto ps = poolSpec(a, im, 2, true, 6);
    if (!ps.ok()) return ps.error();
    if ((*go)->shape() != ps->outShape || (*ix)->shape() != ps->outShape)
        return opError(a, "grad_output and indices must have the pooled shape " + shapeStr(ps->outShape));
    if (isFloating((*ix)->dtype())) return opError(a, "indices must be an integer tensor");
    return metaValue(denseMeta(im.shape, (*go)->dtype(), im.device, isChannelsLast(im)));
}

Expected<Value> maxPoolBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto ps = poolSpec(a, a.tensor(1).meta, 2, true, 6);
    if (!ps.ok()) return ps.error();
    const PoolSpec& p = *ps;
    auto g = toDoubles(a.tensor(0));
    auto idx = toDoubles(a.tensor(7));
    const int64_t plane = p.H * p.W, oplane = p.OH * p.OW;
    std::vector<double> gi(static_cast<size_t>(p.planes * plane), 0.0);
    for (int64_t pl = 0; pl < p.planes; ++pl)
        for (int64_t o = 0; o < oplane; ++o) {
            const int64_t i = static_cast<int64_t>(idx[pl * oplane + o]);
            if (i < 0 || i >= plane)
                return opError(a, "index " + std::to_string(i) + " is out of bounds of the input plane");
            gi[pl * plane + i] += g[pl * oplane + o];
        }
    return Value::ofTensor(makeTensor(out.t.meta, gi));
}

// avg_pool2d(self, kernel_size, stride=[], padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)
// avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
struct AvgWindow {
    int64_t h0, h1, w0, w1;
    double divisor;
};

AvgWindow avgWindow(const PoolSpec& p, int64_t oh, int64_t ow, bool countPad, std::optional<int64_t> divisor) {
    int64_t h0 = oh * p.sH - p.pH, w0 = ow * p.sW - p.pW;
    int64_t h1 = std::min(h0 + p.kH, p.H + p.pH), w1 = std::min(w0 + p.kW, p.W + p.pW);
    const int64_t poolSize = (h1 - h0) * (w1 - w0);
    h0 = std::max<int64_t>(h0, 0);
    w0 = std::max<int64_t>(w0, 0);
    h1 = std::min(h1, p.H);
    w1 = std::min(w1, p.W);
    double div = divisor ? double(*divisor) : countPad ? double(poolSize) : double((h1 - h0) * (w1 - w0));
    return {h0, h1, w0, w1, div};
}

Expected<std::optional<int64_t>> divisorArg(const OpArgs& a, size_t i) {
    if (a.isNone(i)) return std::optional<int64_t>{};
    const int64_t d = a.toInt(i);
    if (d == 0) return opError(a, "divisor must be not zero");
    return std::optional<int64_t>{d};
}

Expected<Value> metaAvgPool(const OpArgs& a) {
    const bool backward = a.op().schema.name == "avg_pool2d_backward";
    const size_t self = backward ? 1 : 0;
    auto in = reqTensor(a, self);
    if (!in.ok()) return in.error();
    const TensorMeta& im = (*in)->meta;
    auto ps = poolSpec(a, im, self + 1, false, self + 4);
    if (!ps.ok()) return ps.error();
    auto dv = divisorArg(a, self + 6);
    if (!dv.ok()) return dv.error();
    const bool cl = isChannelsLast(im);
    if (!backward) return metaValue(denseMeta(ps->outShape, im.dtype, im.device, cl));
    auto go = reqTensor(a, 0);
    if (!go.ok()) return go.error();
    if ((*go)->shape() != ps->outShape)
        return opError(a, "grad_output must have the pooled shape " + shapeStr(ps->outShape));
    return metaValue(denseMeta(im.shape, (*go)->dtype(), im.device, cl));
}

Expected<Value> avgPoolKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const bool backward = a.op().schema.name == "avg_pool2d_backward";
    const size_t self = backward ? 1 : 0;
    auto ps = poolSpec(a, a.tensor(self).meta, self + 1, false, self + 4);
    if (!ps.ok()) return ps.error();
    const PoolSpec& p = *ps;
    const bool countPad = a.toBool(self + 5);
    auto dv = divisorArg(a, self + 6);
    if (!dv.ok()) return dv.error();
    const int64_t plane = p.H * p.W, oplane = p.OH * p.OW;
    auto src = toDoubles(a.tensor(backward ? 0 : self));
    std::vector<double> dst(static_cast<size_t>(p.planes * (backward ? plane : oplane)), 0.0);
    for (int64_t pl = 0; pl < p.planes; ++pl)
        for (int64_t oh = 0; oh < p.OH; ++oh)
            for (int64_t ow = 0; ow < p.OW; ++ow) {
                const AvgWindow win = avgWindow(p, oh, ow, countPad, *dv);
                const int64_t o = pl * oplane + oh * p.OW + ow;
                if (win.h0 >= win.h1 || win.w0 >= win.w1) continue;  // window entirely in padding: 0
                if (backward) {
                    const double g = src[o] / win.divisor;
                    for (int64_t h = win.h0; h < win.h1; ++h)
                        for (int64_t w = win.w0; w < win.w1; ++w) dst[pl * plane + h * p.W + w] += g;
                } else {
                    double s = 0.0;
                    for (int64_t h = win.h0; h < win.h1; ++h)
                        for (int64_t w = win.w0; w < win.w1; ++w) s += src[pl * plane + h * p.W + w];
                    dst[o] = s / win.divisor;
                }
            }
    return Value::ofTensor(makeTensor(out.t.meta, dst));
}

// ----- adaptive average pooling ---------------------------------------------------------------

int64_t binStart(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
int64_t binEnd(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

Expected<Value> metaAdaptiveAvgPool(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    const TensorMeta& im = (*in)->meta;
    if (im.dim() != 3 && im.dim() != 4) return opError(a, "expected a 3-D or 4-D input, got " + shapeStr(im.shape));
    auto os = a.toIntList(1);
    if (os.size() == 1) os.push_back(os[0]);
    if (os.size() != 2) return opError(a, "output_size must be 2 ints, got " + shapeStr(os));
    if (os[0] < 0 || os[1] < 0) return opError(a, "output_size must be non-negative, got " + shapeStr(os));
    for (int64_t d = 1; d < im.dim(); ++d)
        if (im.shape[d] == 0)
            return opError(a,
                           "expected input to have non-zero size for non-batch dimensions, got " + shapeStr(im.shape));
    std::vector<int64_t> shape = im.shape;
    shape[shape.size() - 2] = os[0];
    shape[shape.size() - 1] = os[1];
    return metaValue(denseMeta(shape, im.dtype, im.device, isChannelsLast(im)));
}

Expected<Value> adaptiveAvgPoolKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    const int64_t nd = in.dim();
    const int64_t H = in.shape()[nd - 2], W = in.shape()[nd - 1];
    const int64_t OH = out.t.shape()[nd - 2], OW = out.t.shape()[nd - 1];
    const int64_t planes = product(std::vector<int64_t>(in.shape().begin(), in.shape().end() - 2));
    auto x = toDoubles(in);
    std::vector<double> y(static_cast<size_t>(planes * OH * OW));
    for (int64_t pl = 0; pl < planes; ++pl)
        for (int64_t oh = 0; oh < OH; ++oh) {
            const int64_t h0 = binStart(oh, OH, H), h1 = binEnd(oh, OH, H);
            for (int64_t ow = 0; ow < OW; ++ow) {
                const int64_t w0 = binStart(ow, OW, W), w1 = binEnd(ow, OW, W);
                double s = 0.0;
                for (int64_t h = h0; h < h1; ++h)
                    for (int64_t w = w0; w < w1; ++w) s += x[(pl * H + h) * W + w];
                y[(pl * OH + oh) * OW + ow] = s / double((h1 - h0) * (w1 - w0));
            }
        }
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

// _adaptive_avg_pool2d_backward(grad_output, self)
Expected<Value> metaAdaptiveAvgPoolBackward(const OpArgs& a) {
    auto go = reqTensor(a, 0);
    if (!go.ok()) return go.error();
    auto in = reqTensor(a, 1);
    if (!in.ok()) return in.error();
    const TensorMeta& im = (*in)->meta;
    const TensorMeta& gm = (*go)->meta;
    if ((im.dim() != 3 && im.dim() != 4) || gm.dim() != im.dim())
        return opError(a, "expected 3-D or 4-D grad_output and input of the same rank, got " + shapeStr(gm.shape) +
                              " and " + shapeStr(im.shape));
    for (int64_t d = 0; d < im.dim() - 2; ++d)
        if (gm.shape[d] != im.shape[d])
            return opError(a, "grad_output " + shapeStr(gm.shape) + " does not match input " + shapeStr(im.shape));
    return metaValue(denseMeta(im.shape, gm.dtype, im.device, isChannelsLast(im)));
}

Expected<Value> adaptiveAvgPoolBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& go = a.tensor(0);
    const Tensor& in = a.tensor(1);
    const int64_t nd = in.dim();
    const int64_t H = in.shape()[nd - 2], W = in.shape()[nd - 1];
    const int64_t OH = go.shape()[nd - 2], OW = go.shape()[nd - 1];
    const int64_t planes = product(std::vector<int64_t>(in.shape().begin(), in.shape().end() - 2));
    auto g = toDoubles(go);
    std::vector<double> gi(static_cast<size_t>(planes * H * W), 0.0);
    for (int64_t pl = 0; pl < planes; ++pl)
        for (int64_t oh = 0; oh < OH; ++oh) {
            const int64_t h0 = binStart(oh, OH, H), h1 = binEnd(oh, OH, H);
            for (int64_t ow = 0; ow < OW; ++ow) {
                const int64_t w0 = binStart(ow, OW, W), w1 = binEnd(ow, OW, W);
                const double v = g[(pl * OH + oh) * OW + ow] / double((h1 - h0) * (w1 - w0));
                for (int64_t h = h0; h < h1; ++h)
                    for (int64_t w = w0; w < w1; ++w) gi[(pl * H + h) * W + w] += v;
            }
        }
    return Value::ofTensor(makeTensor(out.t.meta, gi));
}

}  // namespace

void registerConvOps(OpRegistry& r) {
    r.add("aten.convolution.default",
          "convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, "
          "SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor",
          OpCategory::Extern, metaConvolution, convolutionKernel);
    r.add("aten.convolution_backward.default",
          "convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, "
          "SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, "
          "SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
          OpCategory::Extern, metaConvBackward, convBackwardKernel);
    for (int n = 1; n <= 3; ++n) {
        const std::string d = std::to_string(n);
        r.add("aten.conv" + d + "d.default",
              "conv" + d + "d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[" + d + "] stride=1, SymInt[" + d +
                  "] padding=0, SymInt[" + d + "] dilation=1, SymInt groups=1) -> Tensor",
              OpCategory::Extern, metaConvNd, convNdKernel);
        r.add("aten.conv" + d + "d.padding",
              "conv" + d + "d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[" + d +
                  "] stride=1, str padding=\"valid\", SymInt[" + d + "] dilation=1, SymInt groups=1) -> Tensor",
              OpCategory::Extern, metaConvNd, convNdKernel);
        r.add("aten.conv_transpose" + d + "d.input",
              "conv_transpose" + d + "d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[" + d +
                  "] stride=1, SymInt[" + d + "] padding=0, SymInt[" + d +
                  "] output_padding=0, SymInt groups=1, SymInt[" + d + "] dilation=1) -> Tensor",
              OpCategory::Extern, metaConvNd, convNdKernel);
    }

    r.add("aten.max_pool2d_with_indices.default",
          "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
          "int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
          OpCategory::Other, metaMaxPool, maxPoolKernel);
    r.add("aten.max_pool2d.default",
          "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, "
          "bool ceil_mode=False) -> Tensor",
          OpCategory::Other, metaMaxPool, maxPoolKernel);
    r.add("aten.max_pool2d_with_indices_backward.default",
          "max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, "
          "int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor",
          OpCategory::Other, metaMaxPoolBackward, maxPoolBackwardKernel);
    r.add("aten.avg_pool2d.default",
          "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, "
          "bool count_include_pad=True, int? divisor_override=None) -> Tensor",
          OpCategory::Other, metaAvgPool, avgPoolKernel);
    r.add("aten.avg_pool2d_backward.default",
          "avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, "
          "bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
          OpCategory::Other, metaAvgPool, avgPoolKernel);
    r.add("aten.adaptive_avg_pool2d.default", "adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
          OpCategory::Other, metaAdaptiveAvgPool, adaptiveAvgPoolKernel);
    r.add("aten._adaptive_avg_pool2d.default", "_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
          OpCategory::Other, metaAdaptiveAvgPool, adaptiveAvgPoolKernel);
    r.add("aten._adaptive_avg_pool2d_backward.default",
          "_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor", OpCategory::Other,
          metaAdaptiveAvgPoolBackward, adaptiveAvgPoolBackwardKernel);
}

}  // namespace fxray
