// Elementwise losses and their backward ops: mse, huber, smooth_l1, soft_margin,
// binary_cross_entropy (+ backward) and binary_cross_entropy_with_logits. reduction is
// PyTorch's enum (0 none, 1 mean, 2 sum): none gives the pointwise result (TensorIterator's
// broadcast shape and strides), mean and sum a 0-d tensor. Per-element losses are computed in
// double and reduced in row-major order. The class-index losses are in class_loss.cpp.
#include "exec/ops/kernel_util.h"
#include "exec/ops/loss_util.h"
#include "exec/ops/reduce_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace fxray {
using namespace kern;

namespace {

using LossFn = double (*)(const double*, const OpArgs&);

/// The operands at idx that are present (optional tensors left out when None).
std::vector<size_t> presentOperands(const OpArgs& a, std::initializer_list<size_t> idx) {
    std::vector<size_t> out;
    for (size_t i : idx)
        if (!a.isNone(i)) out.push_back(i);
    return out;
}

/// Meta of an elementwise loss: the pointwise result for reduction none, else 0-d.
Expected<Value> lossMeta(const OpArgs& a, const std::vector<size_t>& idx, size_t reductionArg) {
    auto r = lossReduction(a, reductionArg);
    if (!r.ok()) return r.error();
    auto m = pointwiseMeta(a, idx);
    if (!m.ok()) return m;
    if (!isFloating(m->t.dtype())) return opError(a, "not implemented for " + dtName(m->t.dtype()));
    if (*r == LossReduction::None) return m;
    return contiguousMeta({}, m->t.dtype(), a.tensor(0));
}

/// The per-element values of f over the broadcast operands, then the reduction.
Expected<Value> lossKernel(const OpArgs& a, const Value& out, const std::vector<size_t>& idx, size_t reductionArg,
                           LossFn f) {
    auto r = lossReduction(a, reductionArg);
    if (!r.ok()) return r.error();
    auto fn = [&](const double* v) { return f(v, a); };
    if (*r == LossReduction::None) return pointwiseKernel(a, out, idx, fn);
    auto m = pointwiseMeta(a, idx, DType::Float64);
    if (!m.ok()) return m;
    auto full = pointwiseKernel(a, *m, idx, fn);
    if (!full.ok()) return full;
    const std::vector<double> v = toDoubles(full->t);
    double acc = 0.0;
    for (double x : v) acc += x;
    if (*r == LossReduction::Mean) acc /= static_cast<double>(v.size());  // 0/0 = NaN when empty
    return Value::ofTensor(makeTensor(out.t.meta, {acc}));
}

/// Meta of a backward op (grad_output, self, target, ...): the pointwise result over all of them.
Expected<Value> lossBackwardMeta(const OpArgs& a, const std::vector<size_t>& idx, size_t reductionArg) {
    auto r = lossReduction(a, reductionArg);
    if (!r.ok()) return r.error();
    auto m = pointwiseMeta(a, idx);
    if (!m.ok()) return m;
    if (!isFloating(m->t.dtype())) return opError(a, "not implemented for " + dtName(m->t.dtype()));
    return m;
}

/// The mean reduction's scale in a backward op: 1 / self.numel() (PyTorch uses self's count).
double meanScale(const OpArgs& a, size_t reductionArg) {
    return a.toInt(reductionArg) == 1 ? 1.0 / static_cast<double>(a.tensor(1).numel()) : 1.0;
}

// ----- mse / huber / smooth_l1 / soft_margin (self, target, reduction, [beta|delta]) --------

double mse(const double* v, const OpArgs&) { return (v[0] - v[1]) * (v[0] - v[1]); }

double huber(const double* v, const OpArgs& a) {
    const double delta = a.toDouble(3), z = std::fabs(v[0] - v[1]);
    return z < delta ? 0.5 * z * z : delta * (z - 0.5 * delta);
}

double smoothL1(const double* v, const OpArgs& a) {
    const double beta = a.toDouble(3), z = std::fabs(v[0] - v[1]);
    return z < beta ? 0.5 * z * z / beta : z - 0.5 * beta;
}

double softMargin(const double* v, const OpArgs&) { return std::log1p(std::exp(-v[0] * v[1])); }

template <LossFn F>
Expected<Value> metaLoss2(const OpArgs& a) {
    if constexpr (F == huber)
        if (!(a.toDouble(3) > 0)) return opError(a, "huber_loss does not support non-positive values for delta");
    if constexpr (F == smoothL1)
        if (!(a.toDouble(3) >= 0)) return opError(a, "smooth_l1_loss does not support negative values for beta");
    return lossMeta(a, {0, 1}, 2);
}

template <LossFn F>
Expected<Value> loss2Kernel(const OpArgs& a, const Value& out, ExecContext&) {
    return lossKernel(a, out, {0, 1}, 2, F);
}

// Backward ops take (grad_output, self, target, reduction, [beta|delta]); v = {g, x, y}.

double mseGrad(const double* v, const OpArgs& a) { return 2.0 * meanScale(a, 3) * (v[1] - v[2]) * v[0]; }

double huberGrad(const double* v, const OpArgs& a) {
    const double delta = a.toDouble(4), d = v[1] - v[2], s = meanScale(a, 3);
    if (d <= -delta) return -s * v[0] * delta;
    if (d >= delta) return s * v[0] * delta;
    return s * d * v[0];
}

double smoothL1Grad(const double* v, const OpArgs& a) {
    const double beta = a.toDouble(4), d = v[1] - v[2], s = meanScale(a, 3);
    if (d <= -beta) return -s * v[0];
    if (d >= beta) return s * v[0];
    return s * d * v[0] / beta;
}

Expected<Value> metaLossBackward(const OpArgs& a) { return lossBackwardMeta(a, {0, 1, 2}, 3); }

template <LossFn F>
Expected<Value> lossBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1, 2}, [&](const double* v) { return F(v, a); });
}

// ----- binary_cross_entropy(self, target, weight=None, reduction=Mean) ------------------------

/// PyTorch clamps both logs at -100 so that x = 0 or 1 gives a finite loss.
double bce(const double* v, const OpArgs& a) {
    const double x = v[0], y = v[1];
    const double logX = std::max(std::log(x), -100.0), log1mX = std::max(std::log1p(-x), -100.0);
    const double l = (y - 1.0) * log1mX - y * logX;
    return a.isNone(2) ? l : l * v[2];
}

/// Inputs must be probabilities: PyTorch refuses values outside [0, 1].
Expected<bool> checkProbabilities(const OpArgs& a, size_t i) {
    if (!a.tensor(i).hasData()) return true;
    for (double x : toDoubles(a.tensor(i)))
        if (!(x >= 0.0 && x <= 1.0)) return opError(a, "all elements of input should be between 0 and 1");
    return true;
}

Expected<Value> metaBce(const OpArgs& a) {
    auto ok = checkProbabilities(a, 0);
    if (!ok.ok()) return ok.error();
    return lossMeta(a, presentOperands(a, {0, 1, 2}), 3);
}

Expected<Value> bceKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return lossKernel(a, out, presentOperands(a, {0, 1, 2}), 3, bce);
}

/// binary_cross_entropy_backward(grad, self, target, weight=None, reduction=Mean):
/// grad * (x - y) / max((1 - x) * x, 1e-12) * weight, scaled by 1/numel for mean.
double bceGrad(const double* v, const OpArgs& a) {
    const double g = v[0], x = v[1], y = v[2];
    double r = g * (x - y) / std::max((1.0 - x) * x, 1e-12) * meanScale(a, 4);
    return a.isNone(3) ? r : r * v[3];
}

Expected<Value> metaBceBackward(const OpArgs& a) { return lossBackwardMeta(a, presentOperands(a, {0, 1, 2, 3}), 4); }

Expected<Value> bceBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, presentOperands(a, {0, 1, 2, 3}), [&](const double* v) { return bceGrad(v, a); });
}

// ----- binary_cross_entropy_with_logits(self, target, weight=None, pos_weight=None, reduction) -

/// log(sigmoid(x)) without overflow.
double logSigmoid(double x) { return std::min(x, 0.0) - std::log1p(std::exp(-std::fabs(x))); }

/// (1 - y) * x - (1 + (pos_weight - 1) * y) * log(sigmoid(x)), times weight. v holds the
/// present operands in order (self, target, [weight], [pos_weight]).
double bceLogits(const double* v, const OpArgs& a) {
    const double x = v[0], y = v[1];
    size_t k = 2;
    const double w = a.isNone(2) ? 1.0 : v[k++];
    const double logWeight = a.isNone(3) ? 1.0 : (v[k] - 1.0) * y + 1.0;
    return ((1.0 - y) * x - logWeight * logSigmoid(x)) * w;
}

Expected<Value> metaBceLogits(const OpArgs& a) { return lossMeta(a, presentOperands(a, {0, 1, 2, 3}), 4); }

Expected<Value> bceLogitsKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return lossKernel(a, out, presentOperands(a, {0, 1, 2, 3}), 4, bceLogits);
}

}  // namespace

void registerLossOps(OpRegistry& r) {
    constexpr auto PW = OpCategory::Pointwise;
    constexpr auto RD = OpCategory::Reduction;
    r.add("aten.mse_loss.default", "mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor", RD,
          metaLoss2<mse>, loss2Kernel<mse>);
    r.add("aten.huber_loss.default",
          "huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) -> Tensor", RD, metaLoss2<huber>,
          loss2Kernel<huber>);
    r.add("aten.smooth_l1_loss.default",
          "smooth_l1_loss(Tensor self, Tensor target, int reduction=Mean, float beta=1.0) -> Tensor", RD,
          metaLoss2<smoothL1>, loss2Kernel<smoothL1>);
    r.add("aten.soft_margin_loss.default", "soft_margin_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
          RD, metaLoss2<softMargin>, loss2Kernel<softMargin>);
    r.add("aten.mse_loss_backward.default",
          "mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor", PW,
          metaLossBackward, lossBackwardKernel<mseGrad>);
    r.add("aten.huber_loss_backward.default",
          "huber_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction, float delta) -> Tensor",
          PW, metaLossBackward, lossBackwardKernel<huberGrad>);
    r.add(
        "aten.smooth_l1_loss_backward.default",
        "smooth_l1_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction, float beta) -> Tensor",
        PW, metaLossBackward, lossBackwardKernel<smoothL1Grad>);
    r.add("aten.binary_cross_entropy.default",
          "binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean) -> Tensor", RD,
          metaBce, bceKernel);
    r.add("aten.binary_cross_entropy_backward.default",
          "binary_cross_entropy_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight=None, "
          "int reduction=Mean) -> Tensor",
          PW, metaBceBackward, bceBackwardKernel);
    r.add("aten.binary_cross_entropy_with_logits.default",
          "binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, "
          "Tensor? pos_weight=None, int reduction=Mean) -> Tensor",
          RD, metaBceLogits, bceLogitsKernel);
}

}  // namespace fxray
