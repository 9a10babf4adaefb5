// Activation functions and their backward ops. Layout and dtype follow TensorIterator, so the
// metas are pointwiseMeta over the operands in the order PyTorch's meta functions add them.
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <cmath>
#include <string>

namespace fxray {
using namespace kern;

namespace {

constexpr double kSqrt1_2 = 0.70710678118654752440;      // 1/sqrt(2)
constexpr double kInvSqrt2Pi = 0.39894228040143267794;   // 1/sqrt(2*pi)
constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2/pi)
constexpr double kGeluKappa = 0.044715;

DType promotedOf(const OpArgs& a, std::initializer_list<size_t> idx) {
    std::vector<const Value*> ops;
    for (size_t i : idx) ops.push_back(&a[i]);
    return resultType(ops);
}

std::string dtName(DType t) { return std::string(dtypeTorchName(t)); }

/// Ops whose PyTorch kernels exist only for floating types.
Expected<Value> floatOnlyMeta(const OpArgs& a, const std::vector<size_t>& idx) {
    std::vector<const Value*> ops;
    for (size_t i : idx) ops.push_back(&a[i]);
    DType t = resultType(ops);
    if (!isFloating(t)) return opError(a, "not implemented for " + dtName(t) + " (floating point only)");
    return pointwiseMeta(a, idx, t);
}

/// gelu's `approximate` is 'none' or 'tanh'; returns true for 'tanh'.
Expected<bool> geluTanh(const OpArgs& a, size_t i) {
    const std::string& s = a[i].s;
    if (a.isNone(i) || s == "none") return false;
    if (s == "tanh") return true;
    return opError(a, "approximate argument must be either 'none' or 'tanh', got '" + s + "'");
}

// ----- metas ---------------------------------------------------------------------------------

Expected<Value> metaRelu(const OpArgs& a) {
    if (a.isTensor(0) && a.tensor(0).dtype() == DType::Bool) return opError(a, "bool inputs are not supported");
    return pointwiseMeta(a, {0});
}

Expected<Value> metaReluInplace(const OpArgs& a) {
    if (a.tensor(0).dtype() == DType::Bool) return opError(a, "bool inputs are not supported");
    return metaValue(a.tensor(0).meta);
}

/// threshold_backward's TensorIterator takes self before grad_output, so self's layout wins.
Expected<Value> metaThresholdBackward(const OpArgs& a) { return pointwiseMeta(a, {1, 0}); }

Expected<Value> metaFloatUnary(const OpArgs& a) { return floatOnlyMeta(a, {0}); }
Expected<Value> metaFloatBinary(const OpArgs& a) { return floatOnlyMeta(a, {0, 1}); }

Expected<Value> metaGelu(const OpArgs& a) {
    auto t = geluTanh(a, 1);
    if (!t.ok()) return t.error();
    return floatOnlyMeta(a, {0});
}

Expected<Value> metaGeluBackward(const OpArgs& a) {
    auto t = geluTanh(a, 2);
    if (!t.ok()) return t.error();
    return floatOnlyMeta(a, {0, 1});
}

/// tanh and sigmoid give integer inputs the default float dtype.
Expected<Value> metaUnaryFloat(const OpArgs& a) { return pointwiseMeta(a, {0}, toFloatingType(promotedOf(a, {0}))); }

/// hardtanh is clamp: it promotes with its bounds.
Expected<Value> metaHardtanh(const OpArgs& a) {
    if (a.isTensor(0) && a.tensor(0).dtype() == DType::Bool) return opError(a, "bool inputs are not supported");
    return pointwiseMeta(a, {0}, promotedOf(a, {0, 1, 2}));
}

/// leaky_relu_backward(grad_output, self, negative_slope, self_is_result): PyTorch's
/// TensorIterator takes self before grad_output. The in-place form (self_is_result) cannot
/// invert a negative slope.
Expected<Value> metaLeakyReluBackward(const OpArgs& a) {
    if (a.toBool(3) && a.toDouble(2) < 0.0)
        return opError(a, "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                          "supported. This is caused by calling in-place forward function with a negative slope, "
                          "please call out-of-place version instead.");
    return floatOnlyMeta(a, {1, 0});
}

/// elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result): grad_output
/// first in the TensorIterator; from the result (in-place elu) only with alpha >= 0.
Expected<Value> metaEluBackward(const OpArgs& a) {
    if (a.toBool(4) && a.toDouble(1) < 0.0)
        return opError(a, "In-place elu backward calculation is triggered with a negative slope which is not "
                          "supported. This is caused by calling in-place forward function with a negative slope, "
                          "please call out-of-place version instead.");
    return floatOnlyMeta(a, {0, 5});
}

// ----- kernels -------------------------------------------------------------------------------

/// relu propagates NaN (it is clamp_min(x, 0)).
double relu(double x) { return x > 0.0 || std::isnan(x) ? x : 0.0; }
double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

Expected<Value> reluKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0}, [](const double* x) { return relu(x[0]); });
}

Expected<Value> reluInplaceKernel(const OpArgs& a, const Value&, ExecContext&) {
    Tensor self = a.tensor(0);
    std::vector<double> v = toDoubles(self);
    for (double& x : v) x = relu(x);
    fromDoubles(self, v);
    return Value::ofTensor(self);
}

Expected<Value> thresholdBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double th = a.toDouble(2);
    return pointwiseKernel(a, out, {0, 1}, [th](const double* x) { return x[1] <= th ? 0.0 : x[0]; });
}

Expected<Value> geluKernel(const OpArgs& a, const Value& out, ExecContext&) {
    if (*geluTanh(a, 1))
        return pointwiseKernel(a, out, {0}, [](const double* x) {
            const double v = x[0];
            return 0.5 * v * (1.0 + std::tanh(kSqrt2OverPi * (v + kGeluKappa * v * v * v)));
        });
    return pointwiseKernel(a, out, {0}, [](const double* x) { return 0.5 * x[0] * (1.0 + std::erf(x[0] * kSqrt1_2)); });
}

Expected<Value> geluBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    if (*geluTanh(a, 2))
        return pointwiseKernel(a, out, {0, 1}, [](const double* x) {
            const double g = x[0], v = x[1];
            const double inner = kSqrt2OverPi * (v + kGeluKappa * v * v * v);
            const double t = std::tanh(inner);
            const double dInner = kSqrt2OverPi * (1.0 + 3.0 * kGeluKappa * v * v);
            return g * (0.5 * (1.0 + t) + 0.5 * v * (1.0 - t * t) * dInner);
        });
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) {
        const double g = x[0], v = x[1];
        const double cdf = 0.5 * (1.0 + std::erf(v * kSqrt1_2));
        const double pdf = kInvSqrt2Pi * std::exp(-0.5 * v * v);
        return g * (cdf + v * pdf);
    });
}

Expected<Value> tanhKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0}, [](const double* x) { return std::tanh(x[0]); });
}

Expected<Value> tanhBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) { return x[0] * (1.0 - x[1] * x[1]); });
}

Expected<Value> sigmoidKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0}, [](const double* x) { return sigmoid(x[0]); });
}

Expected<Value> sigmoidBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) { return x[0] * x[1] * (1.0 - x[1]); });
}

Expected<Value> siluKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0}, [](const double* x) { return x[0] * sigmoid(x[0]); });
}

// silu'(x) = s (1 + x (1 - s)) with s = sigmoid(x) (PyTorch's silu_backward).
Expected<Value> siluBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) {
        const double s = sigmoid(x[1]);
        return x[0] * s * (1.0 + x[1] * (1.0 - s));
    });
}

Expected<Value> hardtanhKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double lo = a.toDouble(1), hi = a.toDouble(2);
    return pointwiseKernel(a, out, {0}, [lo, hi](const double* x) {
        if (std::isnan(x[0])) return x[0];
        return x[0] < lo ? lo : (x[0] > hi ? hi : x[0]);
    });
}

Expected<Value> leakyReluKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double slope = a.toDouble(1);
    return pointwiseKernel(a, out, {0}, [slope](const double* x) { return x[0] > 0.0 ? x[0] : x[0] * slope; });
}

Expected<Value> eluKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double alpha = a.toDouble(1), scale = a.toDouble(2), inputScale = a.toDouble(3);
    return pointwiseKernel(a, out, {0}, [=](const double* x) {
        return x[0] <= 0.0 ? alpha * scale * std::expm1(x[0] * inputScale) : x[0] * scale;
    });
}

Expected<Value> leakyReluBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double slope = a.toDouble(2);
    return pointwiseKernel(a, out, {0, 1}, [slope](const double* x) { return x[1] > 0.0 ? x[0] : x[0] * slope; });
}

/// PyTorch's elu_backward kernel: from the result y = alpha*scale*(exp(x*input_scale) - 1), the
/// slope below zero is input_scale * (y + alpha*scale).
Expected<Value> eluBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double negcoef = a.toDouble(1) * a.toDouble(2), poscoef = a.toDouble(2), negiptcoef = a.toDouble(3);
    const bool isResult = a.toBool(4);
    return pointwiseKernel(a, out, {0, 5}, [=](const double* x) {
        const double g = x[0], b = x[1];
        if (b > 0.0) return g * poscoef;
        return isResult ? g * negiptcoef * (b + negcoef) : g * negiptcoef * negcoef * std::exp(b * negiptcoef);
    });
}

}  // namespace

void registerActivationOps(OpRegistry& r) {
    constexpr auto PW = OpCategory::Pointwise;
    r.add("aten.relu.default", "relu(Tensor self) -> Tensor", PW, metaRelu, reluKernel);
    OpInfo& reluInplace =
        r.add("aten.relu_.default", "relu_(Tensor(a!) self) -> Tensor(a!)", PW, metaReluInplace, reluInplaceKernel);
    reluInplace.inplace = reluInplace.aliasesInput = true;
    r.add("aten.threshold_backward.default",
          "threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor", PW, metaThresholdBackward,
          thresholdBackwardKernel);
    r.add("aten.gelu.default", "gelu(Tensor self, *, str approximate='none') -> Tensor", PW, metaGelu, geluKernel);
    r.add("aten.gelu_backward.default",
          "gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor", PW, metaGeluBackward,
          geluBackwardKernel);
    r.add("aten.tanh.default", "tanh(Tensor self) -> Tensor", PW, metaUnaryFloat, tanhKernel);
    r.add("aten.tanh_backward.default", "tanh_backward(Tensor grad_output, Tensor output) -> Tensor", PW,
          metaFloatBinary, tanhBackwardKernel);
    r.add("aten.sigmoid.default", "sigmoid(Tensor self) -> Tensor", PW, metaUnaryFloat, sigmoidKernel);
    r.add("aten.sigmoid_backward.default", "sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor", PW,
          metaFloatBinary, sigmoidBackwardKernel);
    r.add("aten.silu.default", "silu(Tensor self) -> Tensor", PW, metaFloatUnary, siluKernel);
    r.add("aten.silu_backward.default", "silu_backward(Tensor grad_output, Tensor self) -> Tensor", PW, metaFloatBinary,
          siluBackwardKernel);
    r.add("aten.hardtanh.default", "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", PW,
          metaHardtanh, hardtanhKernel);
    r.add("aten.leaky_relu.default", "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", PW,
          metaFloatUnary, leakyReluKernel);
    r.add("aten.elu.default", "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor", PW,
          metaFloatUnary, eluKernel);
    r.add("aten.leaky_relu_backward.default",
          "leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope, bool self_is_result) -> Tensor",
          PW, metaLeakyReluBackward, leakyReluBackwardKernel);
    r.add("aten.elu_backward.default",
          "elu_backward(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, bool is_result, "
          "Tensor self_or_result) -> Tensor",
          PW, metaEluBackward, eluBackwardKernel);
}

}  // namespace fxray
