// Weight normalisation (torch.nn.utils.weight_norm, wav2vec2/HuBERT's positional convolution):
// _weight_norm_interface(v, g, dim) -> (w, norms) with norms = ||v|| over every dim but `dim`
// (g's shape, the accumulation dtype: fp32 for fp16/bf16) and w = v * g / norms; and its backward
// (grad_w, v, g, norms, dim) -> (grad_v, grad_g):
//   grad_g = sum(grad_w * v) / norms,  grad_v = g / norms * (grad_w - v * grad_g / norms).
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace fxray {
using namespace kern;
using namespace nn;

namespace {

DType accType(DType t) { return t == DType::Float16 || t == DType::BFloat16 ? DType::Float32 : t; }

/// v split around `dim`: outer x D x inner elements; g (and norms) must hold D values.
struct WnShape {
    int64_t dim = 0, outer = 1, D = 1, inner = 1;
};

Expected<WnShape> wnShape(const OpArgs& a, const Tensor& v, const Tensor& g, int64_t dim) {
    const int64_t nd = v.dim();
    if (dim < -nd || dim >= std::max<int64_t>(nd, 1))
        return opError(a, "dim " + std::to_string(dim) + " is out of range for a " + std::to_string(nd) + "-D v");
    if (!isFloating(v.dtype())) return opError(a, "weight norm expects a floating v");
    WnShape s;
    s.dim = dim < 0 ? dim + nd : dim;
    for (int64_t d = 0; d < nd; ++d) {
        const int64_t e = v.shape()[static_cast<size_t>(d)];
        if (d < s.dim) s.outer *= e;
        else if (d == s.dim) s.D = e;
        else s.inner *= e;
    }
    if (g.numel() != s.D)
        return opError(a, "g must hold v.size(" + std::to_string(s.dim) + ") = " + std::to_string(s.D) +
                              " values, got shape " + shapeStr(g.shape()));
    return s;
}

size_t at(const WnShape& s, int64_t o, int64_t d, int64_t i) { return static_cast<size_t>((o * s.D + d) * s.inner + i); }

std::vector<double> norms(const WnShape& s, const std::vector<double>& v) {
    std::vector<double> n(static_cast<size_t>(s.D), 0.0);
    for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t d = 0; d < s.D; ++d)
            for (int64_t i = 0; i < s.inner; ++i) n[static_cast<size_t>(d)] += v[at(s, o, d, i)] * v[at(s, o, d, i)];
    for (double& x : n) x = std::sqrt(x);
    return n;
}

TensorMeta likeMeta(const TensorMeta& m, DType dt) {
    TensorMeta r = TensorMeta::contiguous(m.shape, dt, m.device);
    r.strides = pointwiseStrides(m.shape, {&m});
    return r;
}

// _weight_norm_interface(v, g, dim=0)
Expected<Value> metaWeightNorm(const OpArgs& a) {
    auto v = reqTensor(a, 0);
    if (!v.ok()) return v.error();
    auto g = reqTensor(a, 1);
    if (!g.ok()) return g.error();
    auto s = wnShape(a, **v, **g, a.toInt(2));
    if (!s.ok()) return s.error();
    return metaTuple({likeMeta((*v)->meta, (*v)->dtype()), likeMeta((*g)->meta, accType((*g)->dtype()))});
}

Expected<Value> weightNormKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = wnShape(a, a.tensor(0), a.tensor(1), a.toInt(2));
    if (!s.ok()) return s.error();
    const auto v = toDoubles(a.tensor(0)), g = toDoubles(a.tensor(1));
    const auto n = norms(*s, v);
    std::vector<double> w(v.size());
    for (int64_t o = 0; o < s->outer; ++o)
        for (int64_t d = 0; d < s->D; ++d)
            for (int64_t i = 0; i < s->inner; ++i)
                w[at(*s, o, d, i)] = v[at(*s, o, d, i)] * (g[static_cast<size_t>(d)] / n[static_cast<size_t>(d)]);
    return fillTuple(out, {w, n});
}

// _weight_norm_interface_backward(grad_w, saved_v, saved_g, saved_norms, dim)
Expected<Value> metaWeightNormBackward(const OpArgs& a) {
    for (size_t i = 0; i < 4; ++i) {
        auto t = reqTensor(a, i);
        if (!t.ok()) return t.error();
    }
    const Tensor &gw = a.tensor(0), &v = a.tensor(1), &g = a.tensor(2);
    auto s = wnShape(a, v, g, a.toInt(4));
    if (!s.ok()) return s.error();
    if (gw.shape() != v.shape())
        return opError(a, "grad_w of shape " + shapeStr(gw.shape()) + " does not match v " + shapeStr(v.shape()));
    if (a.tensor(3).numel() != s->D) return opError(a, "saved_norms must hold " + std::to_string(s->D) + " values");
    return metaTuple({likeMeta(v.meta, v.dtype()), likeMeta(g.meta, g.dtype())});
}

Expected<Value> weightNormBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = wnShape(a, a.tensor(1), a.tensor(2), a.toInt(4));
    if (!s.ok()) return s.error();
    const auto gw = toDoubles(a.tensor(0)), v = toDoubles(a.tensor(1)), g = toDoubles(a.tensor(2)),
               n = toDoubles(a.tensor(3));
    std::vector<double> gg(static_cast<size_t>(s->D), 0.0), gv(v.size());
    for (int64_t o = 0; o < s->outer; ++o)
        for (int64_t d = 0; d < s->D; ++d)
            for (int64_t i = 0; i < s->inner; ++i) gg[static_cast<size_t>(d)] += gw[at(*s, o, d, i)] * v[at(*s, o, d, i)];
    for (int64_t d = 0; d < s->D; ++d) gg[static_cast<size_t>(d)] /= n[static_cast<size_t>(d)];
    for (int64_t o = 0; o < s->outer; ++o)
        for (int64_t d = 0; d < s->D; ++d) {
            const double nd = n[static_cast<size_t>(d)];
            for (int64_t i = 0; i < s->inner; ++i) {
                const size_t k = at(*s, o, d, i);
                gv[k] = g[static_cast<size_t>(d)] / nd * (gw[k] - v[k] * gg[static_cast<size_t>(d)] / nd);
            }
        }
    return fillTuple(out, {gv, gg});
}

}  // namespace

void registerWeightNormOps(OpRegistry& r) {
    r.add("aten._weight_norm_interface.default",
          "_weight_norm_interface(Tensor v, Tensor g, int dim=0) -> (Tensor, Tensor)", OpCategory::Other,
          metaWeightNorm, weightNormKernel);
    r.add("aten._weight_norm_interface_backward.default",
          "_weight_norm_interface_backward(Tensor grad_w, Tensor saved_v, Tensor saved_g, Tensor saved_norms, "
          "int dim) -> (Tensor, Tensor)",
          OpCategory::Other, metaWeightNormBackward, weightNormBackwardKernel);
}

}  // namespace fxray
