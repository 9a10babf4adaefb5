// Pooling beyond conv.cpp's 2-D ops: 3-D max (with indices) and average pooling, adaptive max
// pooling in 2-D and 3-D, 3-D adaptive average pooling, and their backwards.
//
// Every op here works on a geometry padded to three spatial dims (unit leading dims for 2-D), over
// "planes" (N*C, or C when unbatched). Max-pool indices are PyTorch's: int64, the flat index
// within the input's spatial plane (t*H*W + h*W + w), the first maximum in scan order winning and
// a NaN winning over any number (ATen's `val > max || isnan(val)` scan).
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/pool_util.h"
#include "exec/ops/register.h"

#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace fxray {
using namespace kern;
using namespace nn;

namespace {

// ----- argument lists ---------------------------------------------------------------------------

/// An int list argument of 1 or n entries (or empty, when `dflt` is given), as n entries.
Expected<std::vector<int64_t>> nList(const OpArgs& a, size_t i, size_t n, const char* what,
                                     const std::vector<int64_t>* dflt = nullptr) {
    auto v = a.toIntList(i);
    if (v.empty() && dflt) return *dflt;
    if (v.size() == 1) v.assign(n, v[0]);
    if (v.size() != n)
        return opError(a, std::string(what) + " must be one int or " + std::to_string(n) + " ints, got " + shapeStr(v));
    return v;
}

/// Checks a pooling input of `nsp` spatial dims (batched or not) and fills the input side of g.
Expected<PoolGeom> inputGeom(const OpArgs& a, const TensorMeta& in, int64_t nsp, bool allowEmptyBatch = true) {
    const int64_t nd = in.dim();
    if (nd != nsp + 1 && nd != nsp + 2)
        return opError(a, "expected a " + std::to_string(nsp + 1) + "-D or " + std::to_string(nsp + 2) +
                              "-D (batched) input, got " + shapeStr(in.shape));
    for (int64_t d = nd == nsp + 2 && allowEmptyBatch ? 1 : 0; d < nd; ++d)
        if (in.shape[d] == 0)
            return opError(a,
                           "expected input to have non-zero size for non-batch dimensions, got " + shapeStr(in.shape));
    PoolGeom g;
    g.nsp = nsp;
    g.planes = spanProduct(in.shape, 0, static_cast<size_t>(nd - nsp));
    for (int64_t i = 0; i < nsp; ++i) g.in[3 - nsp + i] = in.shape[nd - nsp + i];
    return g;
}

/// The output shape: the input's leading dims and the geometry's output spatial dims.
std::vector<int64_t> outShapeOf(const TensorMeta& in, const PoolGeom& g) {
    std::vector<int64_t> s(in.shape.begin(), in.shape.end() - g.nsp);
    for (int64_t i = 0; i < g.nsp; ++i) s.push_back(g.out[3 - g.nsp + i]);
    return s;
}

/// ATen's pooling_output_shape.
int64_t poolOutSize(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
    const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
    int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
    if (ceil && (out - 1) * stride >= in + pad) --out;
    return out;
}

// ----- 3-D max and average pooling --------------------------------------------------------------

// max_pool3d_with_indices(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False)
// max_pool3d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
// avg_pool3d(self, kernel_size, stride=[], padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)
// avg_pool3d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
Expected<PoolGeom> windowGeom(const OpArgs& a, const TensorMeta& in, size_t kIdx, bool hasDilation, size_t ceilIdx) {
    auto g = inputGeom(a, in, 3);
    if (!g.ok()) return g;
    auto k = nList(a, kIdx, 3, "kernel_size");
    if (!k.ok()) return k.error();
    auto s = nList(a, kIdx + 1, 3, "stride", &*k);
    if (!s.ok()) return s.error();
    auto p = nList(a, kIdx + 2, 3, "padding");
    if (!p.ok()) return p.error();
    std::vector<int64_t> d{1, 1, 1};
    if (hasDilation) {
        auto dd = nList(a, kIdx + 3, 3, "dilation");
        if (!dd.ok()) return dd.error();
        d = *dd;
    }
    const bool ceil = a.toBool(ceilIdx);
    for (size_t i = 0; i < 3; ++i) {
        if ((*k)[i] <= 0) return opError(a, "kernel size should be greater than zero, got " + shapeStr(*k));
        if ((*s)[i] <= 0) return opError(a, "stride should be greater than zero, got " + shapeStr(*s));
        if (d[i] <= 0) return opError(a, "dilation should be greater than zero, got " + shapeStr(d));
        if ((*p)[i] < 0 || (*p)[i] > (*k)[i] / 2)
            return opError(a, "pad should be smaller than or equal to half of kernel size, but got pad=" +
                                  shapeStr(*p) + " and kernel_size=" + shapeStr(*k));
        g->k[i] = (*k)[i];
        g->s[i] = (*s)[i];
        g->p[i] = (*p)[i];
        g->d[i] = d[i];
        g->out[i] = poolOutSize(g->in[i], g->k[i], g->p[i], g->s[i], g->d[i], ceil);
        if (g->out[i] <= 0)
            return opError(a, "given input size " + shapeStr(in.shape) + ", calculated output size " +
                                  shapeStr({g->out[0], g->out[1], g->out[2]}) + " is too small");
    }
    return g;
}

Expected<Value> metaMaxPool3d(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    const TensorMeta& im = (*in)->meta;
    auto g = windowGeom(a, im, 1, true, 5);
    if (!g.ok()) return g.error();
    const bool cl = isChannelsLast(im);
    const auto shape = outShapeOf(im, *g);
    return metaTuple({denseMeta(shape, im.dtype, im.device, cl), denseMeta(shape, DType::Int64, im.device, cl)});
}

Expected<Value> maxPool3dKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto g = windowGeom(a, a.tensor(0).meta, 1, true, 5);
    if (!g.ok()) return g.error();
    auto x = toDoubles(a.tensor(0));
    std::vector<double> y(static_cast<size_t>(g->planes * g->outSize())), idx(y.size());
    for (int64_t pl = 0; pl < g->planes; ++pl) {
        const double* xp = x.data() + pl * g->inSize();
        int64_t o = pl * g->outSize();
        for (int64_t o0 = 0; o0 < g->out[0]; ++o0)
            for (int64_t o1 = 0; o1 < g->out[1]; ++o1)
                for (int64_t o2 = 0; o2 < g->out[2]; ++o2, ++o) {
                    std::array<int64_t, 3> lo{}, hi{};
                    const std::array<int64_t, 3> op{o0, o1, o2};
                    for (size_t i = 0; i < 3; ++i) {
                        lo[i] = op[i] * g->s[i] - g->p[i];
                        hi[i] = std::min(lo[i] + (g->k[i] - 1) * g->d[i] + 1, g->in[i]);
                        while (lo[i] < 0) lo[i] += g->d[i];
                    }
                    Arg best{-std::numeric_limits<double>::infinity(), (lo[0] * g->in[1] + lo[1]) * g->in[2] + lo[2]};
                    for (int64_t t = lo[0]; t < hi[0]; t += g->d[0])
                        for (int64_t h = lo[1]; h < hi[1]; h += g->d[1])
                            for (int64_t w = lo[2]; w < hi[2]; w += g->d[2]) {
                                const int64_t e = (t * g->in[1] + h) * g->in[2] + w;
                                best.offer(xp[e], e);
                            }
                    y[static_cast<size_t>(o)] = best.value;
                    idx[static_cast<size_t>(o)] = double(best.index);
                }
    }
    return fillTuple(out, {y, idx});
}

/// Meta of a max-pool backward: grad_input like self (memory format kept when `keepFormat`),
/// after checking grad_output and indices against the pooled shape.
Expected<Value> indexedBackwardMeta(const OpArgs& a, const TensorMeta& self, const std::vector<int64_t>& pooled,
                                    size_t idxArg, bool keepFormat) {
    auto go = reqTensor(a, 0);
    if (!go.ok()) return go.error();
    auto ix = reqTensor(a, idxArg);
    if (!ix.ok()) return ix.error();
    if ((*go)->shape() != pooled || (*ix)->shape() != pooled)
        return opError(a, "grad_output " + shapeStr((*go)->shape()) + " and indices " + shapeStr((*ix)->shape()) +
                              " must have the pooled shape " + shapeStr(pooled));
    if ((*ix)->dtype() != DType::Int64) return opError(a, "indices must be an int64 tensor");
    return metaValue(denseMeta(self.shape, (*go)->dtype(), self.device, keepFormat && isChannelsLast(self)));
}

Expected<Value> metaMaxPool3dBackward(const OpArgs& a) {
    auto in = reqTensor(a, 1);
    if (!in.ok()) return in.error();
    auto g = windowGeom(a, (*in)->meta, 2, true, 6);
    if (!g.ok()) return g.error();
    return indexedBackwardMeta(a, (*in)->meta, outShapeOf((*in)->meta, *g), 7, true);
}

/// grad_output at `goArg` scattered (added) into the input plane positions the int64 indices at
/// `idxArg` name: the backward of every pooling op that returns indices.
Expected<Value> scatterByIndices(const OpArgs& a, const Value& out, size_t goArg, size_t idxArg, int64_t nsp) {
    return scatterPlanes(a, out.t.meta, toDoubles(a.tensor(goArg)), toDoubles(a.tensor(idxArg)), nsp);
}

Expected<Value> maxPool3dBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return scatterByIndices(a, out, 0, 7, 3);
}

// ----- average pooling --------------------------------------------------------------------------

Expected<std::optional<int64_t>> divisorArg(const OpArgs& a, size_t i) {
    if (a.isNone(i)) return std::optional<int64_t>{};
    const int64_t d = a.toInt(i);
    if (d == 0) return opError(a, "divisor must be not zero");
    return std::optional<int64_t>{d};
}

Expected<Value> metaAvgPool3d(const OpArgs& a) {
    const bool backward = a.op().schema.name == "avg_pool3d_backward";
    const size_t self = backward ? 1 : 0;
    auto in = reqTensor(a, self);
    if (!in.ok()) return in.error();
    const TensorMeta& im = (*in)->meta;
    auto g = windowGeom(a, im, self + 1, false, self + 4);
    if (!g.ok()) return g.error();
    auto dv = divisorArg(a, self + 6);
    if (!dv.ok()) return dv.error();
    if (!backward) return metaValue(TensorMeta::contiguous(outShapeOf(im, *g), im.dtype, im.device));
    auto go = reqTensor(a, 0);
    if (!go.ok()) return go.error();
    if ((*go)->shape() != outShapeOf(im, *g))
        return opError(a, "grad_output must have the pooled shape " + shapeStr(outShapeOf(im, *g)) + ", got " +
                              shapeStr((*go)->shape()));
    return metaValue(TensorMeta::contiguous(im.shape, (*go)->dtype(), im.device));
}

Expected<Value> avgPool3dKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const bool backward = a.op().schema.name == "avg_pool3d_backward";
    const size_t self = backward ? 1 : 0;
    auto g = windowGeom(a, a.tensor(self).meta, self + 1, false, self + 4);
    if (!g.ok()) return g.error();
    const bool countPad = a.toBool(self + 5);
    auto dv = divisorArg(a, self + 6);
    if (!dv.ok()) return dv.error();
    auto src = toDoubles(a.tensor(backward ? 0 : self));
    const int64_t inSz = g->inSize(), outSz = g->outSize();
    std::vector<double> dst(static_cast<size_t>(g->planes * (backward ? inSz : outSz)), 0.0);
    for (int64_t pl = 0; pl < g->planes; ++pl) {
        int64_t o = pl * outSz;
        for (int64_t o0 = 0; o0 < g->out[0]; ++o0)
            for (int64_t o1 = 0; o1 < g->out[1]; ++o1)
                for (int64_t o2 = 0; o2 < g->out[2]; ++o2, ++o) {
                    std::array<int64_t, 3> lo{}, hi{};
                    const std::array<int64_t, 3> op{o0, o1, o2};
                    int64_t poolSize = 1, count = 1;
                    for (size_t i = 0; i < 3; ++i) {
                        lo[i] = op[i] * g->s[i] - g->p[i];
                        hi[i] = std::min(lo[i] + g->k[i], g->in[i] + g->p[i]);
                        poolSize *= hi[i] - lo[i];
                        lo[i] = std::max<int64_t>(lo[i], 0);
                        hi[i] = std::min(hi[i], g->in[i]);
                        count *= std::max<int64_t>(hi[i] - lo[i], 0);
                    }
                    if (count == 0) continue;  // a window entirely in the padding gives 0
                    const double div = *dv ? double(**dv) : countPad ? double(poolSize) : double(count);
                    double s = 0.0;
                    const double gv = backward ? src[static_cast<size_t>(o)] / div : 0.0;
                    for (int64_t t = lo[0]; t < hi[0]; ++t)
                        for (int64_t h = lo[1]; h < hi[1]; ++h)
                            for (int64_t w = lo[2]; w < hi[2]; ++w) {
                                const size_t e = static_cast<size_t>(pl * inSz + (t * g->in[1] + h) * g->in[2] + w);
                                if (backward)
                                    dst[e] += gv;
                                else
                                    s += src[e];
                            }
                    if (!backward) dst[static_cast<size_t>(o)] = s / div;
                }
    }
    return Value::ofTensor(makeTensor(out.t.meta, dst));
}

// ----- adaptive pooling -------------------------------------------------------------------------

int64_t binStart(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
int64_t binEnd(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

/// adaptive_max_pool{2,3}d(self, output_size) and _adaptive_avg_pool3d(self, output_size).
Expected<PoolGeom> adaptiveGeom(const OpArgs& a, const TensorMeta& in, int64_t nsp, size_t sizeArg) {
    auto g = inputGeom(a, in, nsp);
    if (!g.ok()) return g;
    auto os = nList(a, sizeArg, static_cast<size_t>(nsp), "output_size");
    if (!os.ok()) return os.error();
    for (int64_t i = 0; i < nsp; ++i) {
        if ((*os)[i] < 0) return opError(a, "output_size must be non-negative, got " + shapeStr(*os));
        g->out[3 - nsp + i] = (*os)[i];
    }
    return g;
}

int64_t adaptiveRank(const OpArgs& a) {
    const auto& n = a.op().schema.name;
    return n.find("2d") != std::string::npos ? 2 : 3;
}

Expected<Value> metaAdaptiveMaxPool(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    const TensorMeta& im = (*in)->meta;
    const int64_t nsp = adaptiveRank(a);
    auto g = adaptiveGeom(a, im, nsp, 1);
    if (!g.ok()) return g.error();
    // The 2-D op keeps a channels-last input's layout; the 3-D op is always contiguous.
    const bool cl = nsp == 2 && isChannelsLast(im);
    const auto shape = outShapeOf(im, *g);
    return metaTuple({denseMeta(shape, im.dtype, im.device, cl), denseMeta(shape, DType::Int64, im.device, cl)});
}

Expected<Value> adaptiveMaxPoolKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto g = adaptiveGeom(a, a.tensor(0).meta, adaptiveRank(a), 1);
    if (!g.ok()) return g.error();
    auto x = toDoubles(a.tensor(0));
    std::vector<double> y(static_cast<size_t>(g->planes * g->outSize())), idx(y.size());
    for (int64_t pl = 0; pl < g->planes; ++pl) {
        const double* xp = x.data() + pl * g->inSize();
        int64_t o = pl * g->outSize();
        for (int64_t o0 = 0; o0 < g->out[0]; ++o0)
            for (int64_t o1 = 0; o1 < g->out[1]; ++o1)
                for (int64_t o2 = 0; o2 < g->out[2]; ++o2, ++o) {
                    const int64_t t0 = binStart(o0, g->out[0], g->in[0]), t1 = binEnd(o0, g->out[0], g->in[0]);
                    const int64_t h0 = binStart(o1, g->out[1], g->in[1]), h1 = binEnd(o1, g->out[1], g->in[1]);
                    const int64_t w0 = binStart(o2, g->out[2], g->in[2]), w1 = binEnd(o2, g->out[2], g->in[2]);
                    Arg best{-std::numeric_limits<double>::infinity(), (t0 * g->in[1] + h0) * g->in[2] + w0};
                    for (int64_t t = t0; t < t1; ++t)
                        for (int64_t h = h0; h < h1; ++h)
                            for (int64_t w = w0; w < w1; ++w) {
                                const int64_t e = (t * g->in[1] + h) * g->in[2] + w;
                                best.offer(xp[e], e);
                            }
                    y[static_cast<size_t>(o)] = best.value;
                    idx[static_cast<size_t>(o)] = double(best.index);
                }
    }
    return fillTuple(out, {y, idx});
}

// adaptive_max_pool{2,3}d_backward(grad_output, self, indices)
Expected<Value> metaAdaptiveMaxPoolBackward(const OpArgs& a) {
    auto in = reqTensor(a, 1);
    if (!in.ok()) return in.error();
    const TensorMeta& im = (*in)->meta;
    const int64_t nsp = adaptiveRank(a);
    auto g = inputGeom(a, im, nsp);
    if (!g.ok()) return g.error();
    auto go = reqTensor(a, 0);
    if (!go.ok()) return go.error();
    const auto& gs = (*go)->shape();
    if (gs.size() != im.shape.size() || !std::equal(gs.begin(), gs.end() - nsp, im.shape.begin()))
        return opError(a, "grad_output " + shapeStr(gs) + " does not match input " + shapeStr(im.shape));
    return indexedBackwardMeta(a, im, gs, 2, nsp == 2);
}

Expected<Value> adaptiveMaxPoolBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return scatterByIndices(a, out, 0, 2, adaptiveRank(a));
}

// _adaptive_avg_pool3d(self, output_size), _adaptive_avg_pool3d_backward(grad_output, self)
Expected<Value> metaAdaptiveAvgPool3d(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    const TensorMeta& im = (*in)->meta;
    auto g = adaptiveGeom(a, im, 3, 1);
    if (!g.ok()) return g.error();
    return metaValue(TensorMeta::contiguous(outShapeOf(im, *g), im.dtype, im.device));
}

Expected<Value> metaAdaptiveAvgPool3dBackward(const OpArgs& a) {
    auto go = reqTensor(a, 0);
    if (!go.ok()) return go.error();
    auto in = reqTensor(a, 1);
    if (!in.ok()) return in.error();
    const TensorMeta& im = (*in)->meta;
    auto g = inputGeom(a, im, 3);
    if (!g.ok()) return g.error();
    const auto& gs = (*go)->shape();
    if (gs.size() != im.shape.size() || !std::equal(gs.begin(), gs.end() - 3, im.shape.begin()))
        return opError(a, "grad_output " + shapeStr(gs) + " does not match input " + shapeStr(im.shape));
    return metaValue(TensorMeta::contiguous(im.shape, (*go)->dtype(), im.device));
}

/// Forward (x at arg 0 → out) or backward (grad at arg 0 → grad_input shaped like arg 1).
Expected<Value> adaptiveAvgPool3dKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const bool backward = a.op().schema.name == "_adaptive_avg_pool3d_backward";
    const TensorMeta& im = a.tensor(backward ? 1 : 0).meta;
    auto g = inputGeom(a, im, 3);
    if (!g.ok()) return g.error();
    const auto& os = backward ? a.tensor(0).shape() : out.t.shape();
    for (size_t i = 0; i < 3; ++i) g->out[i] = os[os.size() - 3 + i];
    auto src = toDoubles(a.tensor(0));
    const int64_t inSz = g->inSize(), outSz = g->outSize();
    std::vector<double> dst(static_cast<size_t>(g->planes * (backward ? inSz : outSz)), 0.0);
    for (int64_t pl = 0; pl < g->planes; ++pl) {
        int64_t o = pl * outSz;
        for (int64_t o0 = 0; o0 < g->out[0]; ++o0)
            for (int64_t o1 = 0; o1 < g->out[1]; ++o1)
                for (int64_t o2 = 0; o2 < g->out[2]; ++o2, ++o) {
                    const int64_t t0 = binStart(o0, g->out[0], g->in[0]), t1 = binEnd(o0, g->out[0], g->in[0]);
                    const int64_t h0 = binStart(o1, g->out[1], g->in[1]), h1 = binEnd(o1, g->out[1], g->in[1]);
                    const int64_t w0 = binStart(o2, g->out[2], g->in[2]), w1 = binEnd(o2, g->out[2], g->in[2]);
                    const double n = double((t1 - t0) * (h1 - h0) * (w1 - w0));
                    const double gv = backward ? src[static_cast<size_t>(o)] / n : 0.0;
                    double s = 0.0;
                    for (int64_t t = t0; t < t1; ++t)
                        for (int64_t h = h0; h < h1; ++h)
                            for (int64_t w = w0; w < w1; ++w) {
                                const size_t e = static_cast<size_t>(pl * inSz + (t * g->in[1] + h) * g->in[2] + w);
                                if (backward)
                                    dst[e] += gv;
                                else
                                    s += src[e];
                            }
                    if (!backward) dst[static_cast<size_t>(o)] = s / n;
                }
    }
    return Value::ofTensor(makeTensor(out.t.meta, dst));
}

}  // namespace

void registerPoolingOps(OpRegistry& r) {
    r.add("aten.max_pool3d_with_indices.default",
          "max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, "
          "int[3] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
          OpCategory::Other, metaMaxPool3d, maxPool3dKernel);
    r.add("aten.max_pool3d_with_indices_backward.default",
          "max_pool3d_with_indices_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, "
          "int[3] padding, int[3] dilation, bool ceil_mode, Tensor indices) -> Tensor",
          OpCategory::Other, metaMaxPool3dBackward, maxPool3dBackwardKernel);
    r.add("aten.avg_pool3d.default",
          "avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, "
          "bool count_include_pad=True, int? divisor_override=None) -> Tensor",
          OpCategory::Other, metaAvgPool3d, avgPool3dKernel);
    r.add("aten.avg_pool3d_backward.default",
          "avg_pool3d_backward(Tensor grad_output, Tensor self, int[3] kernel_size, int[3] stride, int[3] padding, "
          "bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
          OpCategory::Other, metaAvgPool3d, avgPool3dKernel);
    for (const char* d : {"2", "3"}) {
        const std::string n = d;
        r.add("aten.adaptive_max_pool" + n + "d.default",
              "adaptive_max_pool" + n + "d(Tensor self, int[" + n + "] output_size) -> (Tensor, Tensor)",
              OpCategory::Other, metaAdaptiveMaxPool, adaptiveMaxPoolKernel);
        r.add("aten.adaptive_max_pool" + n + "d_backward.default",
              "adaptive_max_pool" + n + "d_backward(Tensor grad_output, Tensor self, Tensor indices) -> Tensor",
              OpCategory::Other, metaAdaptiveMaxPoolBackward, adaptiveMaxPoolBackwardKernel);
    }
    r.add("aten._adaptive_avg_pool3d.default", "_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor",
          OpCategory::Other, metaAdaptiveAvgPool3d, adaptiveAvgPool3dKernel);
    r.add("aten._adaptive_avg_pool3d_backward.default",
          "_adaptive_avg_pool3d_backward(Tensor grad_output, Tensor self) -> Tensor", OpCategory::Other,
          metaAdaptiveAvgPool3dBackward, adaptiveAvgPool3dKernel);
}

}  // namespace fxray
