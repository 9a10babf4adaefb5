// Pooling ops defined by indices: fractional max pooling (2-D and 3-D) with its backward, and
// max unpooling (2-D and 3-D), which writes values back at max-pool indices.
//
// Fractional max pooling is deterministic given its `random_samples` input: one sample per
// (batch, plane, spatial dim) places the windows. ATen computes the window starts in the
// input's accumulate type (float for fp32/fp16/bf16, double for fp64); the reference does the
// same so that the truncations agree.
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/pool_util.h"
#include "exec/ops/register.h"

#include <limits>
#include <string>

namespace fxray {
using namespace kern;
using namespace nn;

namespace {

Expected<std::vector<int64_t>> nInts(const OpArgs& a, size_t i, size_t n, const char* what) {
    auto v = a.toIntList(i);
    if (v.size() == 1) v.assign(n, v[0]);
    if (v.size() != n)
        return opError(a, std::string(what) + " must be one int or " + std::to_string(n) + " ints, got " + shapeStr(v));
    return v;
}

int64_t rankOf(const OpArgs& a) { return a.op().schema.name.find("2d") != std::string::npos ? 2 : 3; }

// ----- fractional max pooling -------------------------------------------------------------------

// fractional_max_pool{2,3}d(self, kernel_size, output_size, random_samples)
// fractional_max_pool{2,3}d_backward(grad_output, self, kernel_size, output_size, indices)
Expected<PoolGeom> fractionalGeom(const OpArgs& a, const TensorMeta& in, size_t kIdx) {
    const int64_t nsp = rankOf(a);
    const int64_t nd = in.dim();
    if (nd != nsp + 1 && nd != nsp + 2)
        return opError(a, "expected a " + std::to_string(nsp + 1) + "-D or " + std::to_string(nsp + 2) +
                              "-D (batched) input, got " + shapeStr(in.shape));
    for (int64_t d = nd - nsp - 1; d < nd; ++d)
        if (in.shape[d] == 0)
            return opError(a,
                           "expected input to have non-zero size for non-batch dimensions, got " + shapeStr(in.shape));
    auto k = nInts(a, kIdx, static_cast<size_t>(nsp), "kernel_size");
    if (!k.ok()) return k.error();
    auto os = nInts(a, kIdx + 1, static_cast<size_t>(nsp), "output_size");
    if (!os.ok()) return os.error();
    PoolGeom g;
    g.nsp = nsp;
    g.planes = spanProduct(in.shape, 0, static_cast<size_t>(nd - nsp));
    for (int64_t i = 0; i < nsp; ++i) {
        const size_t s = static_cast<size_t>(3 - nsp + i);
        g.in[s] = in.shape[nd - nsp + i];
        g.k[s] = (*k)[i];
        g.out[s] = (*os)[i];
        if (g.k[s] <= 0 || g.out[s] <= 0)
            return opError(a, "kernel_size and output_size must be positive, got " + shapeStr(*k) + " and " +
                                  shapeStr(*os));
        if (g.out[s] + g.k[s] - 1 > g.in[s])
            return opError(a, "pool size " + shapeStr(*k) + " too large relative to input " + shapeStr(in.shape) +
                                  " for output size " + shapeStr(*os));
    }
    return g;
}

std::vector<int64_t> pooledShape(const TensorMeta& in, const PoolGeom& g) {
    std::vector<int64_t> s(in.shape.begin(), in.shape.end() - g.nsp);
    for (int64_t i = 0; i < g.nsp; ++i) s.push_back(g.out[3 - g.nsp + i]);
    return s;
}

Expected<Value> metaFractional(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    const TensorMeta& im = (*in)->meta;
    auto g = fractionalGeom(a, im, 1);
    if (!g.ok()) return g.error();
    auto rs = reqTensor(a, 3);
    if (!rs.ok()) return rs.error();
    const auto& r = (*rs)->shape();
    const bool batched = im.dim() == g->nsp + 2;
    const int64_t N = batched ? im.shape[0] : 1, C = im.shape[batched ? 1 : 0];
    if (r.size() != 3 || r[2] != g->nsp || r[0] < N || r[1] < C)
        return opError(a, "random_samples must be [N, C, " + std::to_string(g->nsp) + "] for input " +
                              shapeStr(im.shape) + ", got " + shapeStr(r));
    if (!isFloating((*rs)->dtype())) return opError(a, "random_samples must be a floating tensor");
    const auto shape = pooledShape(im, *g);
    return metaTuple(
        {TensorMeta::contiguous(shape, im.dtype, im.device), TensorMeta::contiguous(shape, DType::Int64, im.device)});
}

/// Start of window `index` along one dim (ATen's generate_intervals), in float or double.
template <typename T>
int64_t intervalStart(double sample, int64_t index, int64_t in, int64_t out, int64_t pool) {
    if (index == out - 1) return in - pool;
    const T alpha = static_cast<T>(in - pool) / static_cast<T>(out - 1);
    const T u = static_cast<T>(sample);
    return static_cast<int64_t>((static_cast<T>(index) + u) * alpha) - static_cast<int64_t>(u * alpha);
}

Expected<Value> fractionalKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    auto g = fractionalGeom(a, in.meta, 1);
    if (!g.ok()) return g.error();
    const bool dbl = in.dtype() == DType::Float64;
    const Tensor& rsT = a.tensor(3);
    auto rs = toDoubles(rsT);
    const int64_t rC = rsT.shape()[1];
    const bool batched = in.dim() == g->nsp + 2;
    const int64_t C = in.shape()[batched ? 1 : 0];
    auto x = toDoubles(in);
    std::vector<double> y(static_cast<size_t>(g->planes * g->outSize())), idx(y.size());
    std::array<std::vector<int64_t>, 3> starts;
    for (int64_t pl = 0; pl < g->planes; ++pl) {
        const int64_t n = pl / C, c = pl % C;
        const double* sample = rs.data() + (n * rC + c) * g->nsp;
        // The 2-D op stores the width's sample first; the 3-D op is ordered T, H, W.
        for (int64_t i = 0; i < g->nsp; ++i) {
            const size_t s = static_cast<size_t>(3 - g->nsp + i);
            const double u = g->nsp == 2 ? sample[1 - i] : sample[i];
            starts[s].resize(static_cast<size_t>(g->out[s]));
            for (int64_t o = 0; o < g->out[s]; ++o)
                starts[s][static_cast<size_t>(o)] = dbl ? intervalStart<double>(u, o, g->in[s], g->out[s], g->k[s])
                                                        : intervalStart<float>(u, o, g->in[s], g->out[s], g->k[s]);
        }
        if (g->nsp == 2) starts[0].assign(1, 0);
        const double* xp = x.data() + pl * g->inSize();
        int64_t o = pl * g->outSize();
        for (int64_t o0 = 0; o0 < g->out[0]; ++o0)
            for (int64_t o1 = 0; o1 < g->out[1]; ++o1)
                for (int64_t o2 = 0; o2 < g->out[2]; ++o2, ++o) {
                    const int64_t t0 = starts[0][static_cast<size_t>(o0)], h0 = starts[1][static_cast<size_t>(o1)],
                                  w0 = starts[2][static_cast<size_t>(o2)];
                    Arg best{-std::numeric_limits<double>::infinity(), (t0 * g->in[1] + h0) * g->in[2] + w0};
                    for (int64_t t = t0; t < t0 + g->k[0]; ++t)
                        for (int64_t h = h0; h < h0 + g->k[1]; ++h)
                            for (int64_t w = w0; w < w0 + g->k[2]; ++w) {
                                const int64_t e = (t * g->in[1] + h) * g->in[2] + w;
                                best.offer(xp[e], e);
                            }
                    y[static_cast<size_t>(o)] = best.value;
                    idx[static_cast<size_t>(o)] = double(best.index);
                }
    }
    return fillTuple(out, {y, idx});
}

Expected<Value> metaFractionalBackward(const OpArgs& a) {
    auto go = reqTensor(a, 0);
    if (!go.ok()) return go.error();
    auto in = reqTensor(a, 1);
    if (!in.ok()) return in.error();
    auto ix = reqTensor(a, 4);
    if (!ix.ok()) return ix.error();
    const TensorMeta& im = (*in)->meta;
    auto g = fractionalGeom(a, im, 2);
    if (!g.ok()) return g.error();
    const auto pooled = pooledShape(im, *g);
    if ((*go)->shape() != pooled || (*ix)->shape() != pooled)
        return opError(a, "grad_output " + shapeStr((*go)->shape()) + " and indices " + shapeStr((*ix)->shape()) +
                              " must have the pooled shape " + shapeStr(pooled));
    if ((*ix)->dtype() != DType::Int64) return opError(a, "indices must be an int64 tensor");
    return metaValue(TensorMeta::contiguous(im.shape, (*go)->dtype(), im.device));
}

Expected<Value> fractionalBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return scatterPlanes(a, out.t.meta, toDoubles(a.tensor(0)), toDoubles(a.tensor(4)), rankOf(a));
}

// ----- max unpooling ----------------------------------------------------------------------------

// max_unpool2d(self, indices, output_size), max_unpool3d(self, indices, output_size, stride, padding)
Expected<Value> metaMaxUnpool(const OpArgs& a) {
    const int64_t nsp = rankOf(a);
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    auto ix = reqTensor(a, 1);
    if (!ix.ok()) return ix.error();
    const TensorMeta& im = (*in)->meta;
    if (im.dim() != nsp + 1 && im.dim() != nsp + 2)
        return opError(a, "expected a " + std::to_string(nsp + 1) + "-D or " + std::to_string(nsp + 2) +
                              "-D (batched) input, got " + shapeStr(im.shape));
    if ((*ix)->dtype() != DType::Int64) return opError(a, "indices must be an int64 tensor");
    if ((*ix)->shape() != im.shape)
        return opError(a, "expected shape of indices to be same as that of the input tensor " + shapeStr(im.shape) +
                              ", got " + shapeStr((*ix)->shape()));
    for (int64_t d = im.dim() - nsp - 1; d < im.dim(); ++d)
        if (im.shape[d] == 0)
            return opError(a,
                           "expected input to have non-zero size for non-batch dimensions, got " + shapeStr(im.shape));
    auto os = a.toIntList(2);
    if (static_cast<int64_t>(os.size()) != nsp)
        return opError(a, "there should be exactly " + std::to_string(nsp) + " elements in output_size, got " +
                              shapeStr(os));
    for (auto v : os)
        if (v < 0) return opError(a, "output_size must be non-negative, got " + shapeStr(os));
    if (nsp == 3) {
        auto st = a.toIntList(3), pd = a.toIntList(4);
        if (st.size() != 3 || pd.size() != 3)
            return opError(a, "there should be exactly 3 elements in stride and padding");
        for (auto v : st)
            if (v <= 0) return opError(a, "strides should be greater than zero, got " + shapeStr(st));
    }
    std::vector<int64_t> shape(im.shape.begin(), im.shape.end() - nsp);
    shape.insert(shape.end(), os.begin(), os.end());
    return metaValue(TensorMeta::contiguous(shape, im.dtype, im.device));
}

Expected<Value> maxUnpoolKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const int64_t nsp = rankOf(a);
    const auto& os = out.t.shape();
    const int64_t oplane = spanProduct(os, os.size() - static_cast<size_t>(nsp), os.size());
    const int64_t planes = spanProduct(os, 0, os.size() - static_cast<size_t>(nsp));
    auto x = toDoubles(a.tensor(0));
    auto idx = toDoubles(a.tensor(1));
    const int64_t per = planes > 0 ? static_cast<int64_t>(x.size()) / planes : 0;
    std::vector<double> y(static_cast<size_t>(planes * oplane), 0.0);
    for (int64_t pl = 0; pl < planes; ++pl)
        for (int64_t i = 0; i < per; ++i) {
            const int64_t j = static_cast<int64_t>(idx[static_cast<size_t>(pl * per + i)]);
            if (j < 0 || j >= oplane)
                return opError(a, "Found an invalid max index: " + std::to_string(j) + " (output volumes are of size " +
                                      shapeStr(std::vector<int64_t>(os.end() - nsp, os.end())) + ")");
            y[static_cast<size_t>(pl * oplane + j)] = x[static_cast<size_t>(pl * per + i)];
        }
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

}  // namespace

void registerIndexedPoolingOps(OpRegistry& r) {
    for (const char* d : {"2", "3"}) {
        const std::string n = d;
        r.add("aten.fractional_max_pool" + n + "d.default",
              "fractional_max_pool" + n + "d(Tensor self, int[" + n + "] kernel_size, int[" + n +
                  "] output_size, Tensor random_samples) -> (Tensor, Tensor)",
              OpCategory::Other, metaFractional, fractionalKernel);
        r.add("aten.fractional_max_pool" + n + "d_backward.default",
              "fractional_max_pool" + n + "d_backward(Tensor grad_output, Tensor self, int[" + n +
                  "] kernel_size, int[" + n + "] output_size, Tensor indices) -> Tensor",
              OpCategory::Other, metaFractionalBackward, fractionalBackwardKernel);
    }
    r.add("aten.max_unpool2d.default", "max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor",
          OpCategory::Other, metaMaxUnpool, maxUnpoolKernel);
    r.add("aten.max_unpool3d.default",
          "max_unpool3d(Tensor self, Tensor indices, SymInt[3] output_size, int[3] stride, int[3] padding) -> Tensor",
          OpCategory::Other, metaMaxUnpool, maxUnpoolKernel);
}

}  // namespace fxray
