// More activation functions and their backward ops: hardswish, hardsigmoid, mish, softplus, threshold,
// soft/hard shrink, log-sigmoid, logit, hardtanh_backward, glu. Metas are pointwiseMeta over the
// operands in the order PyTorch's TensorIterators add them (that order decides the layout);
// kernels follow PyTorch's CUDA kernels at the edges (NaN, interval boundaries).
#include "exec/ops/math_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace fxray {
using namespace kern;
using namespace kern::mathops;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A Scalar argument as the kernel sees it: converted to the tensor's dtype first.
double scalarAs(const OpArgs& a, size_t i, DType t) { return roundTo(a.toDouble(i), t); }

// ----- metas ---------------------------------------------------------------------------------

Expected<Value> metaFloatUnary(const OpArgs& a) { return floatOnlyMeta(a, {0}); }
/// (grad_output, self) backward ops whose TensorIterator takes grad_output first.
Expected<Value> metaFloatBinary(const OpArgs& a) { return floatOnlyMeta(a, {0, 1}); }

/// threshold keeps self's dtype: threshold and value are converted to it.
Expected<Value> metaThreshold(const OpArgs& a) {
    const DType t = a.tensor(0).dtype();
    if (t == DType::Bool || isComplex(t)) return opError(a, "not implemented for " + dtName(t) + " tensors");
    return pointwiseMeta(a, {0}, t);
}

Expected<Value> metaSoftshrink(const OpArgs& a) {
    const double lambd = a.toDouble(1);
    if (!(lambd >= 0.0))
        return opError(a, "lambda must be greater or equal to 0, but found to be " + std::to_string(lambd) + ".");
    return floatOnlyMeta(a, {0});
}

/// hardtanh_backward works for every numeric dtype (hardtanh does).
Expected<Value> metaHardtanhBackward(const OpArgs& a) {
    const DType t = promotedOf(a, {0, 1});
    if (t == DType::Bool || isComplex(t)) return opError(a, "not implemented for " + dtName(t) + " tensors");
    return pointwiseMeta(a, {0, 1}, t);
}

/// log_sigmoid_forward: (output, buffer). On CUDA the buffer is an empty [0] tensor; on CPU it
/// holds exp(-|x|) over the input's shape.
Expected<Value> metaLogSigmoidForward(const OpArgs& a) {
    auto out = floatOnlyMeta(a, {0});
    if (!out.ok()) return out.error();
    TensorMeta buffer = out->t.meta;
    if (buffer.device.type == "cuda") {
        buffer.shape = {0};
        buffer.strides = {1};
    }
    return Value::ofList({*out, metaValue(std::move(buffer))}, true);
}

/// log_sigmoid_backward's TensorIterator takes self before grad_output.
Expected<Value> metaLogSigmoidBackward(const OpArgs& a) { return floatOnlyMeta(a, {1, 0}); }

Expected<Value> metaLogit(const OpArgs& a) {
    if (auto e = rejectComplex(a, 0)) return *e;
    return unaryFloatMeta(a);
}

/// glu(self, dim): the output is self halved along dim (an even size), laid out like self.
/// glu_backward(grad_output, self, dim): self's shape, contiguous (ATen resizes a fresh tensor).
struct GluDims {
    int64_t outer = 1, half = 0, inner = 1;
    size_t dim = 0;
};

Expected<GluDims> gluDims(const OpArgs& a, size_t self, size_t dimArg) {
    const TensorMeta& m = a.tensor(self).meta;
    if (m.shape.empty()) return opError(a, "glu does not support scalars because halving size must be even");
    auto d = wrapDim(a.toInt(dimArg), m.dim());
    if (!d) return opError(a, "dimension out of range");
    GluDims g;
    g.dim = static_cast<size_t>(*d);
    if (m.shape[g.dim] % 2 != 0)
        return opError(a, "Halving dimension must be even, but dimension " + std::to_string(*d) + " is size " +
                              std::to_string(m.shape[g.dim]));
    g.half = m.shape[g.dim] / 2;
    for (size_t i = 0; i < g.dim; ++i) g.outer *= m.shape[i];
    for (size_t i = g.dim + 1; i < m.shape.size(); ++i) g.inner *= m.shape[i];
    return g;
}

Expected<Value> metaGlu(const OpArgs& a) {
    if (!isFloating(a.tensor(0).dtype())) return opError(a, "glu is only defined for floating types");
    auto g = gluDims(a, 0, 1);
    if (!g.ok()) return g.error();
    TensorMeta m = a.tensor(0).meta;
    m.shape[g->dim] = g->half;
    m.strides = stridesLike(m.shape, a.tensor(0).meta);
    m.offset = 0;
    return metaValue(std::move(m));
}

Expected<Value> metaGluBackward(const OpArgs& a) {
    auto g = gluDims(a, 1, 2);
    if (!g.ok()) return g.error();
    TensorMeta m = a.tensor(1).meta;
    m.strides = rowMajorStrides(m.shape);
    m.offset = 0;
    return metaValue(std::move(m));
}

double sigmoidOf(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// ----- kernels -------------------------------------------------------------------------------

Expected<Value> hardswishKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0},
                           [](const double* x) { return x[0] * std::min(std::max(x[0] + 3.0, 0.0), 6.0) / 6.0; });
}

Expected<Value> hardswishBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) {
        const double g = x[0], v = x[1];
        if (v <= -3.0) return 0.0;
        if (v < 3.0) return g * (v / 3.0 + 0.5);
        return g;
    });
}

Expected<Value> hardsigmoidKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0}, [](const double* x) { return std::min(std::max(x[0] + 3.0, 0.0), 6.0) / 6.0; });
}

Expected<Value> hardsigmoidBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1},
                           [](const double* x) { return (x[1] > -3.0 && x[1] < 3.0) ? x[0] / 6.0 : 0.0; });
}

/// tanh(softplus(x)), with softplus = log1p(exp(x)).
double tanhSoftplus(double x) { return std::tanh(std::log1p(std::exp(x))); }

Expected<Value> mishKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0}, [](const double* x) { return x[0] * tanhSoftplus(x[0]); });
}

Expected<Value> mishBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) {
        const double g = x[0], v = x[1];
        const double sig = 1.0 / (1.0 + std::exp(-v));
        const double ts = tanhSoftplus(v);
        return g * (ts + v * sig * (1.0 - ts * ts));
    });
}

/// softplus(x, beta, threshold): x where x * beta > threshold, else log1p(exp(x * beta)) / beta
/// (PyTorch's kernel; beta and threshold in the op math type).
Expected<Value> softplusKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double beta = a.toDouble(1), th = a.toDouble(2);
    return pointwiseKernel(a, out, {0}, [=](const double* x) {
        const double xb = x[0] * beta;
        return xb > th ? x[0] : std::log1p(std::exp(xb)) / beta;
    });
}

/// softplus_backward(grad, self, beta, threshold): grad where x * beta > threshold, else
/// grad * z / (z + 1) with z = exp(x * beta).
Expected<Value> softplusBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double beta = a.toDouble(2), th = a.toDouble(3);
    return pointwiseKernel(a, out, {0, 1}, [=](const double* x) {
        const double xb = x[1] * beta;
        if (xb > th) return x[0];
        const double z = std::exp(xb);
        return x[0] * z / (z + 1.0);
    });
}

/// glu: a * sigmoid(b) for the halves a, b of self along dim.
Expected<Value> gluKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto g = gluDims(a, 0, 1);
    if (!g.ok()) return g.error();
    const std::vector<double> x = toDoubles(a.tensor(0));
    std::vector<double> y(static_cast<size_t>(g->outer * g->half * g->inner));
    for (int64_t o = 0; o < g->outer; ++o)
        for (int64_t h = 0; h < g->half; ++h)
            for (int64_t i = 0; i < g->inner; ++i) {
                const int64_t base = (o * 2 * g->half + h) * g->inner + i;
                y[static_cast<size_t>((o * g->half + h) * g->inner + i)] =
                    x[static_cast<size_t>(base)] * sigmoidOf(x[static_cast<size_t>(base + g->half * g->inner)]);
            }
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

/// glu_backward: d/da = grad * sigmoid(b), d/db = grad * a * sigmoid(b) * (1 - sigmoid(b)).
Expected<Value> gluBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto g = gluDims(a, 1, 2);
    if (!g.ok()) return g.error();
    const std::vector<double> gr = toDoubles(a.tensor(0)), x = toDoubles(a.tensor(1));
    std::vector<double> dx(x.size());
    for (int64_t o = 0; o < g->outer; ++o)
        for (int64_t h = 0; h < g->half; ++h)
            for (int64_t i = 0; i < g->inner; ++i) {
                const auto ia = static_cast<size_t>((o * 2 * g->half + h) * g->inner + i);
                const auto ib = ia + static_cast<size_t>(g->half * g->inner);
                const double go = gr[static_cast<size_t>((o * g->half + h) * g->inner + i)];
                const double sb = sigmoidOf(x[ib]);
                dx[ia] = go * sb;
                dx[ib] = go * x[ia] * sb * (1.0 - sb);
            }
    return Value::ofTensor(makeTensor(out.t.meta, dx));
}

Expected<Value> thresholdKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    const double th = scalarAs(a, 1, t), value = scalarAs(a, 2, t);
    return pointwiseKernel(a, out, {0}, [=](const double* x) { return x[0] <= th ? value : x[0]; });
}

Expected<Value> softshrinkKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double l = scalarAs(a, 1, out.t.dtype());
    return pointwiseKernel(a, out, {0}, [l](const double* x) {
        const double v = x[0];
        if (std::isnan(v)) return v;
        return v > l ? v - l : (v < -l ? v + l : 0.0);
    });
}

Expected<Value> hardshrinkKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double l = scalarAs(a, 1, out.t.dtype());
    return pointwiseKernel(a, out, {0}, [l](const double* x) { return (x[0] >= -l && x[0] <= l) ? 0.0 : x[0]; });
}

/// softshrink_backward and hardshrink_backward: the gradient passes outside [-lambd, lambd].
Expected<Value> shrinkBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double l = scalarAs(a, 2, out.t.dtype());
    return pointwiseKernel(a, out, {0, 1}, [l](const double* x) { return (x[1] >= -l && x[1] <= l) ? 0.0 : x[0]; });
}

Expected<Value> hardtanhBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    const double lo = scalarAs(a, 2, t), hi = scalarAs(a, 3, t);
    return pointwiseKernel(a, out, {0, 1}, [=](const double* x) { return (x[1] <= lo || x[1] >= hi) ? 0.0 : x[0]; });
}

/// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable for large |x|.
Expected<Value> logSigmoidForwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto res = pointwiseKernel(a, out.list[0], {0}, [](const double* x) {
        return std::min(x[0], 0.0) - std::log1p(std::exp(-std::fabs(x[0])));
    });
    if (!res.ok()) return res.error();
    const TensorMeta& bm = out.list[1].t.meta;
    // CUDA's buffer is an empty placeholder, not the input's shape.
    if (bm.shape != out.list[0].t.meta.shape)
        return Value::ofList({*res, Value::ofTensor(Tensor::emptyLike(bm))}, true);
    auto buffer = pointwiseKernel(a, out.list[1], {0}, [](const double* x) { return std::exp(-std::fabs(x[0])); });
    if (!buffer.ok()) return buffer.error();
    return Value::ofList({*res, *buffer}, true);
}

Expected<Value> logSigmoidBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) {
        const double g = x[0], v = x[1];
        const bool negative = v < 0.0;
        const double z = std::exp(-std::fabs(v));
        return g * ((negative ? 1.0 : 0.0) - (negative ? 1.0 : -1.0) * (z / (1.0 + z)));
    });
}

/// eps as PyTorch's kernels see it: None is -1 (no clamping).
double logitEps(const OpArgs& a, size_t i) { return a.isNone(i) ? -1.0 : a.toDouble(i); }

Expected<Value> logitKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double eps = logitEps(a, 1);
    return pointwiseKernel(a, out, {0}, [eps](const double* x) {
        double v = x[0];
        if (eps >= 0.0) {
            const double lo = eps, hi = 1.0 - eps;
            v = v < lo ? lo : (v > hi ? hi : v);
        }
        return std::log(v / (1.0 - v));
    });
}

Expected<Value> logitBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double eps = logitEps(a, 2);
    return pointwiseKernel(a, out, {0, 1}, [eps](const double* x) {
        const double g = x[0], v = x[1];
        if (eps < 0.0) return (v < 0.0 || v > 1.0) ? kNaN : g / (v * (1.0 - v));
        return (v < eps || v > 1.0 - eps) ? 0.0 : g / (v * (1.0 - v));
    });
}

}  // namespace

void registerActivationExtraOps(OpRegistry& r) {
    constexpr auto PW = OpCategory::Pointwise;
    r.add("aten.hardswish.default", "hardswish(Tensor self) -> Tensor", PW, metaFloatUnary, hardswishKernel);
    r.add("aten.hardswish_backward.default", "hardswish_backward(Tensor grad_output, Tensor self) -> Tensor", PW,
          metaFloatBinary, hardswishBackwardKernel);
    r.add("aten.hardsigmoid.default", "hardsigmoid(Tensor self) -> Tensor", PW, metaFloatUnary, hardsigmoidKernel);
    r.add("aten.hardsigmoid_backward.default", "hardsigmoid_backward(Tensor grad_output, Tensor self) -> Tensor", PW,
          metaFloatBinary, hardsigmoidBackwardKernel);
    r.add("aten.mish.default", "mish(Tensor self) -> Tensor", PW, metaFloatUnary, mishKernel);
    r.add("aten.mish_backward.default", "mish_backward(Tensor grad_output, Tensor self) -> Tensor", PW, metaFloatBinary,
          mishBackwardKernel);
    r.add("aten.softplus.default", "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor", PW,
          metaFloatUnary, softplusKernel);
    r.add("aten.softplus_backward.default",
          "softplus_backward(Tensor grad_output, Tensor self, Scalar beta, Scalar threshold) -> Tensor", PW,
          metaFloatBinary, softplusBackwardKernel);
    r.add("aten.glu.default", "glu(Tensor self, int dim=-1) -> Tensor", OpCategory::Other, metaGlu, gluKernel);
    r.add("aten.glu_backward.default", "glu_backward(Tensor grad_output, Tensor self, int dim) -> Tensor",
          OpCategory::Other, metaGluBackward, gluBackwardKernel);
    r.add("aten.threshold.default", "threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor", PW,
          metaThreshold, thresholdKernel);
    r.add("aten.softshrink.default", "softshrink(Tensor self, Scalar lambd=0.5) -> Tensor", PW, metaSoftshrink,
          softshrinkKernel);
    r.add("aten.softshrink_backward.default",
          "softshrink_backward(Tensor grad_output, Tensor self, Scalar lambd) -> Tensor", PW, metaFloatBinary,
          shrinkBackwardKernel);
    r.add("aten.hardshrink.default", "hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor", PW, metaFloatUnary,
          hardshrinkKernel);
    r.add("aten.hardshrink_backward.default",
          "hardshrink_backward(Tensor grad_out, Tensor self, Scalar lambd) -> Tensor", PW, metaFloatBinary,
          shrinkBackwardKernel);
    r.add("aten.hardtanh_backward.default",
          "hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) -> Tensor", PW,
          metaHardtanhBackward, hardtanhBackwardKernel);
    r.add("aten.log_sigmoid_forward.default", "log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)", PW,
          metaLogSigmoidForward, logSigmoidForwardKernel);
    r.add("aten.log_sigmoid_backward.default",
          "log_sigmoid_backward(Tensor grad_output, Tensor self, Tensor buffer) -> Tensor", PW, metaLogSigmoidBackward,
          logSigmoidBackwardKernel);
    r.add("aten.logit.default", "logit(Tensor self, float? eps=None) -> Tensor", PW, metaLogit, logitKernel);
    r.add("aten.logit_backward.default", "logit_backward(Tensor grad_output, Tensor self, float? eps=None) -> Tensor",
          PW, metaFloatBinary, logitBackwardKernel);
}

}  // namespace fxray
