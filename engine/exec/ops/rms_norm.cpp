// RMS norm: _fused_rms_norm (output and the saved reciprocal root-mean-square) and its backward.
//
// Over the trailing `normalized_shape` dims: rstd = 1 / sqrt(mean(x^2) + eps), y = x * rstd * w.
// rstd keeps the leading dims and has size 1 in the normalised ones, in the computation dtype
// (f32 for f16/bf16). A missing eps is the machine epsilon of that dtype, as ATen's rms_norm.
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/register.h"

#include <cmath>
#include <limits>
#include <string>

namespace fxray {
using namespace kern;
using namespace nn;

namespace {

DType computationDtype(DType t) { return t == DType::Float16 || t == DType::BFloat16 ? DType::Float32 : t; }

/// Rows (M) of N normalised elements each, after checking normalized_shape and the weight.
struct RmsShape {
    int64_t axis = 0, M = 0, N = 0;
};

Expected<RmsShape> rmsShape(const OpArgs& a, const Tensor& in, const std::vector<int64_t>& ns, const Tensor* w) {
    const int64_t nd = in.dim(), k = static_cast<int64_t>(ns.size());
    bool ok = k >= 1 && k <= nd;
    for (int64_t i = 0; ok && i < k; ++i) ok = in.shape()[nd - k + i] == ns[i];
    if (!ok)
        return opError(a, "given normalized_shape=" + shapeStr(ns) + ", expected input with shape [*, " +
                              shapeStr(ns).substr(1) + ", but got input of size " + shapeStr(in.shape()));
    if (w && w->shape() != ns)
        return opError(a, "expected weight of shape " + shapeStr(ns) + ", got " + shapeStr(w->shape()));
    if (!isFloating(in.dtype()))
        return opError(a, "expected a floating input, got " + std::string(dtypeTorchName(in.dtype())));
    RmsShape s;
    s.axis = nd - k;
    s.N = product(ns);
    s.M = spanProduct(in.shape(), 0, static_cast<size_t>(s.axis));
    return s;
}

TensorMeta rstdMeta(const TensorMeta& im, int64_t axis) {
    std::vector<int64_t> stat(im.shape.begin(), im.shape.begin() + axis);
    stat.resize(im.shape.size(), 1);
    return TensorMeta::contiguous(stat, computationDtype(im.dtype), im.device);
}

// _fused_rms_norm(input, normalized_shape, weight?, eps?)
Expected<Value> metaRmsNorm(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    auto w = optTensor(a, 2);
    if (!w.ok()) return w.error();
    auto s = rmsShape(a, **in, a.toIntList(1), *w);
    if (!s.ok()) return s.error();
    const TensorMeta& im = (*in)->meta;
    return metaTuple({TensorMeta::contiguous(im.shape, im.dtype, im.device), rstdMeta(im, s->axis)});
}

Expected<Value> rmsNormKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    const Tensor* wt = a.isNone(2) ? nullptr : &a.tensor(2);
    auto s = rmsShape(a, in, a.toIntList(1), wt);
    if (!s.ok()) return s.error();
    const double eps = !a.isNone(3)                                     ? a.toDouble(3)
                       : computationDtype(in.dtype()) == DType::Float64 ? std::numeric_limits<double>::epsilon()
                                                                        : double(std::numeric_limits<float>::epsilon());
    auto x = toDoubles(in);
    std::vector<double> w;
    if (wt) w = toDoubles(*wt);
    std::vector<double> y(x.size()), rstd(static_cast<size_t>(s->M));
    for (int64_t m = 0; m < s->M; ++m) {
        const double* xr = x.data() + m * s->N;
        double ss = 0.0;
        for (int64_t j = 0; j < s->N; ++j) ss += xr[j] * xr[j];
        const double r = 1.0 / std::sqrt(ss / double(s->N) + eps);
        rstd[static_cast<size_t>(m)] = r;
        for (int64_t j = 0; j < s->N; ++j)
            y[static_cast<size_t>(m * s->N + j)] = xr[j] * r * (w.empty() ? 1.0 : w[static_cast<size_t>(j)]);
    }
    return fillTuple(out, {y, rstd});
}

// _fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight?, output_mask)
Expected<Value> metaRmsNormBackward(const OpArgs& a) {
    auto go = reqTensor(a, 0);
    if (!go.ok()) return go.error();
    auto in = reqTensor(a, 1);
    if (!in.ok()) return in.error();
    auto rs = reqTensor(a, 3);
    if (!rs.ok()) return rs.error();
    auto w = optTensor(a, 4);
    if (!w.ok()) return w.error();
    auto s = rmsShape(a, **in, a.toIntList(2), *w);
    if (!s.ok()) return s.error();
    const TensorMeta& im = (*in)->meta;
    if ((*go)->shape() != im.shape)
        return opError(a,
                       "grad_out of shape " + shapeStr((*go)->shape()) + " does not match input " + shapeStr(im.shape));
    if ((*rs)->numel() != s->M)
        return opError(a, "rstd must have one element per normalised row (" + std::to_string(s->M) + "), got " +
                              shapeStr((*rs)->shape()));
    const auto mask = boolList(a, 5);
    if (mask.size() != 2) return opError(a, "output_mask must have 2 entries");
    std::optional<TensorMeta> gi, gw;
    if (mask[0]) gi = TensorMeta::contiguous(im.shape, im.dtype, im.device);
    if (mask[1] && *w) gw = TensorMeta::contiguous((*w)->shape(), (*w)->dtype(), im.device);
    return metaTuple({gi, gw});
}

Expected<Value> rmsNormBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(1);
    const Tensor* wt = a.isNone(4) ? nullptr : &a.tensor(4);
    auto s = rmsShape(a, in, a.toIntList(2), wt);
    if (!s.ok()) return s.error();
    auto dy = toDoubles(a.tensor(0));
    auto x = toDoubles(in);
    auto rstd = toDoubles(a.tensor(3));
    std::vector<double> w;
    if (wt) w = toDoubles(*wt);
    std::vector<double> gi(x.size()), gw(static_cast<size_t>(s->N), 0.0);
    for (int64_t m = 0; m < s->M; ++m) {
        const double r = rstd[static_cast<size_t>(m)];
        const size_t base = static_cast<size_t>(m * s->N);
        // dx = rstd * (dyw - xhat * mean(dyw * xhat)), with dyw = dy * w and xhat = x * rstd.
        double dot = 0.0;
        for (int64_t j = 0; j < s->N; ++j) {
            const double xhat = x[base + j] * r;
            dot += dy[base + j] * (w.empty() ? 1.0 : w[static_cast<size_t>(j)]) * xhat;
            gw[static_cast<size_t>(j)] += dy[base + j] * xhat;
        }
        const double mdot = dot / double(s->N);
        for (int64_t j = 0; j < s->N; ++j) {
            const double xhat = x[base + j] * r;
            gi[base + j] = r * (dy[base + j] * (w.empty() ? 1.0 : w[static_cast<size_t>(j)]) - xhat * mdot);
        }
    }
    return fillTuple(out, {gi, gw});
}

}  // namespace

void registerRmsNormOps(OpRegistry& r) {
    r.add("aten._fused_rms_norm.default",
          "_fused_rms_norm(Tensor input, int[] normalized_shape, Tensor? weight, float? eps) -> (Tensor, Tensor)",
          OpCategory::Other, metaRmsNorm, rmsNormKernel);
    r.add(
        "aten._fused_rms_norm_backward.default",
        "_fused_rms_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, Tensor rstd, Tensor? weight, "
        "bool[2] output_mask) -> (Tensor, Tensor)",
        OpCategory::Other, metaRmsNormBackward, rmsNormBackwardKernel);
}

}  // namespace fxray
