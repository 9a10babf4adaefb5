// Reductions (sum, nansum, prod, mean, amax/amin, max/min, aminmax, argmax/argmin, var/std,
// logsumexp, trace, all/any) and softmax (plus _safe_softmax) with its backward ops.
// Outputs are contiguous, as PyTorch's reduction and softmax meta functions allocate them
// (checked against PyTorch 2.11 fake tensors for permuted, sliced and channels-last inputs);
// _log_softmax and its backward are the exceptions, see their metas. Kernels accumulate in
// double over the input in row-major order, so "first occurrence" ties resolve like PyTorch.
#include "exec/ops/kernel_util.h"
#include "exec/ops/reduce_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

namespace fxray {
using namespace kern;

namespace {

// ----- sum / mean ----------------------------------------------------------------------------

/// sum(dtype=None): integer and bool inputs accumulate into int64.
DType sumDType(const Tensor& t, std::optional<DType> dt) {
    if (dt) return *dt;
    return isIntegral(t.dtype(), true) ? DType::Int64 : t.dtype();
}

/// Positions of (dim, keepdim, dtype) in a reduction schema; dim < 0 when the overload has none.
struct ReduceArgs {
    int dim;
    int keepdim;
    int dtype;
};
constexpr ReduceArgs kDimArgs{1, 2, 3};
constexpr ReduceArgs kAllArgs{-1, -1, 1};

template <ReduceArgs R>
Expected<ReducePlan> planFor(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    auto dims = R.dim >= 0 ? optDims(a, R.dim) : std::nullopt;
    bool keep = R.keepdim >= 0 && a.toBool(R.keepdim);
    return planReduce(a, t.shape(), dims, keep);
}

template <ReduceArgs R>
Expected<Value> metaSum(const OpArgs& a) {
    auto p = planFor<R>(a);
    if (!p.ok()) return p.error();
    return contiguousMeta(p->outShape, sumDType(a.tensor(0), a.toOptDType(R.dtype)), a.tensor(0));
}

/// nansum: sum's dtype rule; complex inputs are refused like PyTorch does.
Expected<Value> metaNansum(const OpArgs& a) {
    if (isComplex(a.tensor(0).dtype())) return opError(a, "nansum does not support complex inputs");
    return metaSum<kDimArgs>(a);
}

template <ReduceArgs R>
Expected<Value> metaMean(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    DType dt = a.toOptDType(R.dtype).value_or(t.dtype());
    if (!isFloating(dt) && !isComplex(dt))
        return opError(a, "could not infer output dtype; input dtype must be floating point or "
                          "complex, got " +
                              dtName(dt));
    auto p = planFor<R>(a);
    if (!p.ok()) return p.error();
    return contiguousMeta(p->outShape, dt, t);
}

/// How sum-like reductions combine elements: nansum counts NaN as zero.
enum class SumKind { Sum, NanSum, Prod };

template <SumKind K = SumKind::Sum>
std::vector<double> sumValues(const Tensor& t, const ReducePlan& p, DType dt) {
    std::vector<double> in = inputAs(t, dt);
    std::vector<double> acc(static_cast<size_t>(p.outNumel), K == SumKind::Prod ? 1.0 : 0.0);
    forEachReduced(t.shape(), p, [&](int64_t e, int64_t o) {
        if constexpr (K == SumKind::Prod)
            acc[o] *= in[e];
        else if (K == SumKind::Sum || !std::isnan(in[e]))
            acc[o] += in[e];
    });
    return acc;
}

template <ReduceArgs R, SumKind K = SumKind::Sum>
Expected<Value> sumKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planFor<R>(a);
    if (!p.ok()) return p.error();
    return Value::ofTensor(makeTensor(out.t.meta, sumValues<K>(a.tensor(0), *p, out.t.dtype())));
}

template <ReduceArgs R>
Expected<Value> meanKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planFor<R>(a);
    if (!p.ok()) return p.error();
    std::vector<double> v = sumValues(a.tensor(0), *p, out.t.dtype());
    for (double& x : v) x /= static_cast<double>(p->group);  // 0/0 = NaN for empty groups
    return Value::ofTensor(makeTensor(out.t.meta, v));
}

// ----- amax / amin ---------------------------------------------------------------------------

Expected<Value> metaAmax(const OpArgs& a) {
    auto p = planNonEmpty(a, a.toIntList(1), a.toBool(2));
    if (!p.ok()) return p.error();
    return contiguousMeta(p->outShape, a.tensor(0).dtype(), a.tensor(0));
}

/// Max (or min) over the plan's groups that propagates NaN: the first NaN met wins. Empty
/// groups keep -inf (+inf for min), which logsumexp relies on.
template <bool Max>
std::vector<double> extremeValues(const Tensor& t, const ReducePlan& p) {
    std::vector<double> in = toDoubles(t);
    const double init = Max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    std::vector<double> acc(static_cast<size_t>(p.outNumel), init);
    forEachReduced(t.shape(), p, [&](int64_t e, int64_t o) {
        const double x = in[e];
        if (std::isnan(acc[o])) return;
        if (std::isnan(x) || (Max ? x > acc[o] : x < acc[o])) acc[o] = x;
    });
    return acc;
}

template <bool Max>
Expected<Value> amaxKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planNonEmpty(a, a.toIntList(1), a.toBool(2));
    if (!p.ok()) return p.error();
    return Value::ofTensor(makeTensor(out.t.meta, extremeValues<Max>(a.tensor(0), *p)));
}

// ----- max() / min() / aminmax without a dim -------------------------------------------------

/// max()/min() without dim: an empty input has no identity to return.
Expected<Value> metaMaxAll(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    if (t.numel() == 0)
        return opError(a, "expected reduction dim to be specified for input.numel() == 0; specify the "
                          "reduction dim with the 'dim' argument");
    return contiguousMeta({}, t.dtype(), t);
}

template <bool Max>
Expected<Value> maxAllKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planReduce(a, a.tensor(0).shape(), std::nullopt, false);
    if (!p.ok()) return p.error();
    return Value::ofTensor(makeTensor(out.t.meta, extremeValues<Max>(a.tensor(0), *p)));
}

/// aminmax(self, *, dim=None, keepdim=False): dim=None reduces everything (keepdim keeps every
/// dim as size 1); an empty reduction has no identity.
Expected<ReducePlan> planAminmax(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    if (a.isNone(1)) {
        if (t.numel() == 0) return opError(a, "cannot compute aminmax over an empty tensor without a dim");
        return planReduce(a, t.shape(), std::nullopt, a.toBool(2));
    }
    return planNonEmpty(a, std::vector<int64_t>{a.toInt(1)}, a.toBool(2));
}

Expected<Value> metaAminmax(const OpArgs& a) {
    auto p = planAminmax(a);
    if (!p.ok()) return p.error();
    const Tensor& t = a.tensor(0);
    if (t.dtype() == DType::Bool) return opError(a, "aminmax is not implemented for torch.bool");
    TensorMeta m = TensorMeta::contiguous(p->outShape, t.dtype(), t.meta.device);
    return Value::ofTensors({Tensor::metaOnly(m), Tensor::metaOnly(m)});
}

Expected<Value> aminmaxKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planAminmax(a);
    if (!p.ok()) return p.error();
    return Value::ofTensors({makeTensor(out.list[0].t.meta, extremeValues<false>(a.tensor(0), *p)),
                             makeTensor(out.list[1].t.meta, extremeValues<true>(a.tensor(0), *p))});
}

// ----- max.dim / min.dim / argmax ------------------------------------------------------------

Expected<Value> metaMaxDim(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    auto p = planNonEmpty(a, std::vector<int64_t>{a.toInt(1)}, a.toBool(2));
    if (!p.ok()) return p.error();
    return Value::ofTensors({Tensor::metaOnly(TensorMeta::contiguous(p->outShape, t.dtype(), t.meta.device)),
                             Tensor::metaOnly(TensorMeta::contiguous(p->outShape, DType::Int64, t.meta.device))});
}

/// Values and indices of the max (min) over the plan's groups; the index is the position in
/// the group, row-major over the reduced dims. The first maximum (or NaN) wins.
template <bool Max>
void argExtreme(const Tensor& t, const ReducePlan& p, std::vector<double>& best, std::vector<double>& index) {
    std::vector<double> in = toDoubles(t);
    best.assign(static_cast<size_t>(p.outNumel), 0.0);
    index.assign(static_cast<size_t>(p.outNumel), -1.0);
    // Position within the group: row-major over the reduced dims.
    const int64_t nd = t.dim();
    std::vector<int64_t> rowStrides = rowMajorStrides(t.shape()), groupStrides(nd, 0);
    int64_t acc = 1;
    for (int64_t i = nd - 1; i >= 0; --i) {
        if (!p.reduced[i]) continue;
        groupStrides[i] = acc;
        acc *= t.shape()[i];
    }
    forEachReduced(t.shape(), p, [&](int64_t e, int64_t o) {
        const double x = in[e];
        if (index[o] >= 0 && (std::isnan(best[o]) || !(std::isnan(x) || (Max ? x > best[o] : x < best[o])))) return;
        int64_t pos = 0;
        for (int64_t i = 0; i < nd; ++i)
            if (groupStrides[i]) pos += ((e / rowStrides[i]) % t.shape()[i]) * groupStrides[i];
        best[o] = x;
        index[o] = static_cast<double>(pos);
    });
}

template <bool Max>
Expected<Value> maxDimKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planNonEmpty(a, std::vector<int64_t>{a.toInt(1)}, a.toBool(2));
    if (!p.ok()) return p.error();
    std::vector<double> best, index;
    argExtreme<Max>(a.tensor(0), *p, best, index);
    return Value::ofTensors({makeTensor(out.list[0].t.meta, best), makeTensor(out.list[1].t.meta, index)});
}

/// argmax(dim=None) flattens; with keepdim the result keeps every dim as size 1.
Expected<ReducePlan> planArgmax(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    if (a.isNone(1)) {
        if (t.numel() == 0) return opError(a, "expected reduction dim to be specified for an empty input");
        return planReduce(a, t.shape(), std::nullopt, a.toBool(2));
    }
    return planNonEmpty(a, std::vector<int64_t>{a.toInt(1)}, a.toBool(2));
}

Expected<Value> metaArgmax(const OpArgs& a) {
    auto p = planArgmax(a);
    if (!p.ok()) return p.error();
    return contiguousMeta(p->outShape, DType::Int64, a.tensor(0));
}

template <bool Max>
Expected<Value> argmaxKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planArgmax(a);
    if (!p.ok()) return p.error();
    std::vector<double> best, index;
    argExtreme<Max>(a.tensor(0), *p, best, index);
    return Value::ofTensor(makeTensor(out.t.meta, index));
}

// ----- var / var_mean ------------------------------------------------------------------------

Expected<ReducePlan> planVar(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    if (!isFloating(t.dtype()))
        return opError(a, "std and var only support floating point dtypes, got " + dtName(t.dtype()));
    return planReduce(a, t.shape(), optDims(a, 1), a.toBool(3));
}

Expected<Value> metaVar(const OpArgs& a) {
    auto p = planVar(a);
    if (!p.ok()) return p.error();
    return contiguousMeta(p->outShape, a.tensor(0).dtype(), a.tensor(0));
}

Expected<Value> metaVarMean(const OpArgs& a) {
    auto p = planVar(a);
    if (!p.ok()) return p.error();
    TensorMeta m = TensorMeta::contiguous(p->outShape, a.tensor(0).dtype(), a.tensor(0).meta.device);
    return Value::ofTensors({Tensor::metaOnly(m), Tensor::metaOnly(m)});
}

/// Two-pass variance: sum of squared deviations / max(0, N - correction).
void varValues(const OpArgs& a, const ReducePlan& p, std::vector<double>& var, std::vector<double>& mean) {
    const Tensor& t = a.tensor(0);
    const double correction = a.isNone(2) ? 1.0 : a.toDouble(2);
    std::vector<double> in = toDoubles(t);
    const double n = static_cast<double>(p.group);
    mean.assign(static_cast<size_t>(p.outNumel), 0.0);
    forEachReduced(t.shape(), p, [&](int64_t e, int64_t o) { mean[o] += in[e]; });
    for (double& m : mean) m /= n;
    var.assign(static_cast<size_t>(p.outNumel), 0.0);
    forEachReduced(t.shape(), p, [&](int64_t e, int64_t o) {
        const double d = in[e] - mean[o];
        var[o] += d * d;
    });
    const double denom = std::max(0.0, n - correction);
    for (double& v : var) v /= denom;
}

/// var (Sqrt = false) or std (true).
template <bool Sqrt>
Expected<Value> varKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planVar(a);
    if (!p.ok()) return p.error();
    std::vector<double> var, mean;
    varValues(a, *p, var, mean);
    if constexpr (Sqrt)
        for (double& v : var) v = std::sqrt(v);
    return Value::ofTensor(makeTensor(out.t.meta, var));
}

template <bool Sqrt>
Expected<Value> varMeanKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planVar(a);
    if (!p.ok()) return p.error();
    std::vector<double> var, mean;
    varValues(a, *p, var, mean);
    if constexpr (Sqrt)
        for (double& v : var) v = std::sqrt(v);
    return Value::ofTensors({makeTensor(out.list[0].t.meta, var), makeTensor(out.list[1].t.meta, mean)});
}

// ----- softmax family ------------------------------------------------------------------------

enum class SoftmaxKind { Softmax, LogSoftmax };

/// Softmax (or log-softmax) along the split dim, computed in double with the max subtracted.
template <SoftmaxKind K>
std::vector<double> softmaxValues(std::vector<double> x, const DimSplit& s) {
    forEachRow(s, [&](int64_t base, int64_t step) {
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t k = 0; k < s.n; ++k) {
            const double v = x[base + k * step];
            if (v > mx || std::isnan(v)) mx = v;
        }
        double sum = 0.0;
        for (int64_t k = 0; k < s.n; ++k) sum += std::exp(x[base + k * step] - mx);
        const double logSum = std::log(sum);
        for (int64_t k = 0; k < s.n; ++k) {
            double& v = x[base + k * step];
            v = K == SoftmaxKind::Softmax ? std::exp(v - mx) / sum : v - mx - logSum;
        }
    });
    return x;
}

/// _softmax/_log_softmax(self, dim, half_to_float): half_to_float turns a half input's result
/// into float32. PyTorch refuses half_to_float for wider inputs; fxray lets it pass, since the
/// ref64 executor feeds such ops float64 inputs.
Expected<DType> softmaxOutDType(const OpArgs& a) {
    const DType t = a.tensor(0).dtype();
    if (!isFloating(t)) return opError(a, "not implemented for " + dtName(t) + " (floating point only)");
    const bool half = t == DType::Float16 || t == DType::BFloat16;
    return a.toBool(2) && half ? DType::Float32 : t;
}

Expected<Value> metaSoftmax(const OpArgs& a) {
    auto dt = softmaxOutDType(a);
    if (!dt.ok()) return dt.error();
    auto s = splitAt(a, a.tensor(0).shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    return contiguousMeta(a.tensor(0).shape(), *dt, a.tensor(0));
}

/// PyTorch's fake-tensor rule for _log_softmax is its decomposition on x.contiguous(): a
/// contiguous input keeps its own (possibly odd size-1) strides through the pointwise steps.
Expected<Value> metaLogSoftmax(const OpArgs& a) {
    auto dt = softmaxOutDType(a);
    if (!dt.ok()) return dt.error();
    const TensorMeta& in = a.tensor(0).meta;
    auto s = splitAt(a, in.shape, a.toInt(1));
    if (!s.ok()) return s.error();
    TensorMeta m = TensorMeta::contiguous(in.shape, *dt, in.device);
    if (in.isContiguous()) m.strides = pointwiseStrides(in.shape, {&in});
    return metaValue(std::move(m));
}

template <SoftmaxKind K>
Expected<Value> softmaxKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = splitAt(a, a.tensor(0).shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    return Value::ofTensor(makeTensor(out.t.meta, softmaxValues<K>(toDoubles(a.tensor(0)), *s)));
}

/// softmax.int(self, dim, dtype): the input is first converted to dtype.
DType softmaxIntDType(const OpArgs& a) { return a.toOptDType(2).value_or(a.tensor(0).dtype()); }

Expected<Value> metaSoftmaxInt(const OpArgs& a) {
    const DType dt = softmaxIntDType(a);
    if (!isFloating(dt)) return opError(a, "not implemented for " + dtName(dt) + " (floating point only)");
    auto s = splitAt(a, a.tensor(0).shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    return contiguousMeta(a.tensor(0).shape(), dt, a.tensor(0));
}

Expected<Value> softmaxIntKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = splitAt(a, a.tensor(0).shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    std::vector<double> x = inputAs(a.tensor(0), out.t.dtype());
    return Value::ofTensor(makeTensor(out.t.meta, softmaxValues<SoftmaxKind::Softmax>(std::move(x), *s)));
}

/// (grad_output, output, dim, input_dtype): same shapes; the result has input_dtype. PyTorch
/// also wants equal dtypes, which fxray does not insist on (ref64 runs widen some values only).
Expected<DimSplit> checkBackward(const OpArgs& a) {
    const Tensor& g = a.tensor(0);
    const Tensor& y = a.tensor(1);
    if (g.shape() != y.shape())
        return opError(a, "grad_output " + g.meta.annotation(false, false) + " and output " +
                              y.meta.annotation(false, false) + " must have the same shape");
    if (!isFloating(g.dtype()) || !isFloating(y.dtype()))
        return opError(a, "not implemented for " + dtName(g.dtype()) + " and " + dtName(y.dtype()));
    return splitAt(a, g.shape(), a.toInt(2));
}

Expected<Value> metaSoftmaxBackward(const OpArgs& a) {
    auto s = checkBackward(a);
    if (!s.ok()) return s.error();
    return contiguousMeta(a.tensor(0).shape(), *a.toOptDType(3), a.tensor(0));
}

/// The decomposition PyTorch's fake tensors run (grad - exp(out) * sum(grad)) is pointwise
/// over grad_output and output, so the layout follows them.
Expected<Value> metaLogSoftmaxBackward(const OpArgs& a) {
    auto s = checkBackward(a);
    if (!s.ok()) return s.error();
    const Tensor& g = a.tensor(0);
    TensorMeta m = TensorMeta::contiguous(g.shape(), *a.toOptDType(3), g.meta.device);
    m.strides = pointwiseStrides(g.shape(), {&g.meta, &a.tensor(1).meta});
    return metaValue(std::move(m));
}

/// softmax: y * (g - sum(g*y)); log-softmax: g - exp(y) * sum(g).
template <SoftmaxKind K>
Expected<Value> softmaxBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = checkBackward(a);
    if (!s.ok()) return s.error();
    std::vector<double> g = toDoubles(a.tensor(0));
    const std::vector<double> y = toDoubles(a.tensor(1));
    forEachRow(*s, [&](int64_t base, int64_t step) {
        double acc = 0.0;
        for (int64_t k = 0; k < s->n; ++k) {
            const int64_t e = base + k * step;
            acc += K == SoftmaxKind::Softmax ? g[e] * y[e] : g[e];
        }
        for (int64_t k = 0; k < s->n; ++k) {
            const int64_t e = base + k * step;
            g[e] = K == SoftmaxKind::Softmax ? y[e] * (g[e] - acc) : g[e] - std::exp(y[e]) * acc;
        }
    });
    return Value::ofTensor(makeTensor(out.t.meta, g));
}

/// prims.prepare_softmax_online(a, dim) -> (max, sum(exp(a - max))), both keepdim.
Expected<Value> metaPrepareSoftmax(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    auto p = planNonEmpty(a, std::vector<int64_t>{a.toInt(1)}, true);
    if (!p.ok()) return p.error();
    TensorMeta m = TensorMeta::contiguous(p->outShape, t.dtype(), t.meta.device);
    return Value::ofTensors({Tensor::metaOnly(m), Tensor::metaOnly(m)});
}

Expected<Value> prepareSoftmaxKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = splitAt(a, a.tensor(0).shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    const std::vector<double> x = toDoubles(a.tensor(0));
    std::vector<double> mx(static_cast<size_t>(s->outer * s->inner)), sum(mx.size());
    forEachRow(*s, [&](int64_t base, int64_t step) {
        const size_t o = static_cast<size_t>((base / (s->n * s->inner)) * s->inner + base % s->inner);
        double m = -std::numeric_limits<double>::infinity();
        for (int64_t k = 0; k < s->n; ++k) {
            const double v = x[base + k * step];
            if (v > m || std::isnan(v)) m = v;
        }
        double acc = 0.0;
        for (int64_t k = 0; k < s->n; ++k) acc += std::exp(x[base + k * step] - m);
        mx[o] = m;
        sum[o] = acc;
    });
    return Value::ofTensors({makeTensor(out.list[0].t.meta, mx), makeTensor(out.list[1].t.meta, sum)});
}

// ----- logsumexp / trace / _safe_softmax -----------------------------------------------------

/// logsumexp(self, dim, keepdim): integer inputs give the default float dtype.
DType logsumexpDType(DType t) { return isIntegral(t, true) ? DType::Float32 : t; }

Expected<Value> metaLogsumexp(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    auto p = planReduce(a, t.shape(), a.toIntList(1), a.toBool(2));
    if (!p.ok()) return p.error();
    return contiguousMeta(p->outShape, logsumexpDType(t.dtype()), t);
}

/// max + log(sum(exp(x - max))), with an infinite max replaced by 0 as PyTorch does, so that a
/// group of -inf gives -inf and one holding +inf gives +inf (an empty group gives -inf).
Expected<Value> logsumexpKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& t = a.tensor(0);
    auto p = planReduce(a, t.shape(), a.toIntList(1), a.toBool(2));
    if (!p.ok()) return p.error();
    std::vector<double> mx = extremeValues<true>(t, *p);
    for (double& m : mx)
        if (std::isinf(m)) m = 0.0;
    const std::vector<double> in = toDoubles(t);
    std::vector<double> acc(mx.size(), 0.0);
    forEachReduced(t.shape(), *p, [&](int64_t e, int64_t o) { acc[o] += std::exp(in[e] - mx[o]); });
    for (size_t o = 0; o < acc.size(); ++o) acc[o] = std::log(acc[o]) + mx[o];
    return Value::ofTensor(makeTensor(out.t.meta, acc));
}

/// trace(self): the sum of a matrix's diagonal, with sum's dtype rule.
Expected<Value> metaTrace(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    if (t.dim() != 2) return opError(a, "expected a matrix, but got tensor with dim " + std::to_string(t.dim()));
    return contiguousMeta({}, sumDType(t, std::nullopt), t);
}

Expected<Value> traceKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& t = a.tensor(0);
    const std::vector<double> in = toDoubles(t);
    const int64_t n = std::min(t.shape()[0], t.shape()[1]);
    double acc = 0.0;
    for (int64_t i = 0; i < n; ++i) acc += in[static_cast<size_t>(i * t.shape()[1] + i)];
    return Value::ofTensor(makeTensor(out.t.meta, {acc}));
}

/// _safe_softmax(self, dim, dtype=None): softmax, except that rows made only of -inf give 0
/// instead of NaN (what attention with fully masked rows needs).
Expected<Value> metaSafeSoftmax(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    const DType dt = a.toOptDType(2).value_or(t.dtype());
    if (!isFloating(dt)) return opError(a, "not implemented for " + dtName(dt) + " (floating point only)");
    auto s = splitAt(a, t.shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    return contiguousMeta(t.shape(), dt, t);
}

Expected<Value> safeSoftmaxKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    const std::vector<double> x = inputAs(t, out.t.dtype());
    std::vector<double> y = softmaxValues<SoftmaxKind::Softmax>(x, *s);
    forEachRow(*s, [&](int64_t base, int64_t step) {
        for (int64_t k = 0; k < s->n; ++k)
            if (x[base + k * step] != -std::numeric_limits<double>::infinity()) return;
        for (int64_t k = 0; k < s->n; ++k) y[base + k * step] = 0.0;
    });
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

// ----- all / any -----------------------------------------------------------------------------

constexpr ReduceArgs kLogicalAll{-1, -1, -1};
constexpr ReduceArgs kLogicalDim{1, 2, -1};

/// all/any give bool, except for uint8 inputs, which keep uint8.
template <ReduceArgs R>
Expected<Value> metaLogical(const OpArgs& a) {
    auto p = planFor<R>(a);
    if (!p.ok()) return p.error();
    const DType t = a.tensor(0).dtype();
    return contiguousMeta(p->outShape, t == DType::UInt8 ? DType::UInt8 : DType::Bool, a.tensor(0));
}

/// NaN counts as true (it is nonzero); an empty group gives all = true, any = false.
template <ReduceArgs R, bool All>
Expected<Value> logicalKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planFor<R>(a);
    if (!p.ok()) return p.error();
    const Tensor& t = a.tensor(0);
    const std::vector<double> in = toDoubles(t);
    std::vector<double> acc(static_cast<size_t>(p->outNumel), All ? 1.0 : 0.0);
    forEachReduced(t.shape(), *p, [&](int64_t e, int64_t o) {
        const bool nz = in[e] != 0.0;
        if (All ? !nz : nz) acc[o] = All ? 0.0 : 1.0;
    });
    return Value::ofTensor(makeTensor(out.t.meta, acc));
}

}  // namespace

void registerReductionOps(OpRegistry& r) {
    constexpr auto RD = OpCategory::Reduction;
    r.add("aten.sum.dim_IntList",
          "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", RD,
          metaSum<kDimArgs>, sumKernel<kDimArgs>);
    r.add("aten.sum.default", "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", RD, metaSum<kAllArgs>,
          sumKernel<kAllArgs>);
    r.add("aten.mean.dim",
          "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", RD,
          metaMean<kDimArgs>, meanKernel<kDimArgs>);
    r.add("aten.mean.default", "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", RD, metaMean<kAllArgs>,
          meanKernel<kAllArgs>);
    r.add("aten.amax.default", "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", RD, metaAmax,
          amaxKernel<true>);
    r.add("aten.amin.default", "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", RD, metaAmax,
          amaxKernel<false>);
    r.add("aten.max.dim", "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", RD,
          metaMaxDim, maxDimKernel<true>);
    r.add("aten.min.dim", "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", RD,
          metaMaxDim, maxDimKernel<false>);
    r.add("aten.argmax.default", "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", RD, metaArgmax,
          argmaxKernel<true>);
    r.add("aten.var.correction",
          "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor", RD,
          metaVar, varKernel<false>);
    r.add("aten.var_mean.correction",
          "var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> "
          "(Tensor, Tensor)",
          RD, metaVarMean, varMeanKernel<false>);

    r.add("aten.nansum.default",
          "nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", RD,
          metaNansum, sumKernel<kDimArgs, SumKind::NanSum>);
    r.add("aten.prod.default", "prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", RD, metaSum<kAllArgs>,
          sumKernel<kAllArgs, SumKind::Prod>);
    r.add("aten.prod.dim_int",
          "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", RD,
          metaSum<kDimArgs>, sumKernel<kDimArgs, SumKind::Prod>);
    r.add("aten.max.default", "max(Tensor self) -> Tensor", RD, metaMaxAll, maxAllKernel<true>);
    r.add("aten.min.default", "min(Tensor self) -> Tensor", RD, metaMaxAll, maxAllKernel<false>);
    r.add("aten.aminmax.default",
          "aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)", RD, metaAminmax,
          aminmaxKernel);
    r.add("aten.argmin.default", "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", RD, metaArgmax,
          argmaxKernel<false>);
    r.add("aten.std.correction",
          "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor", RD,
          metaVar, varKernel<true>);
    // The older overloads take `bool unbiased` where correction sits (True reads as 1, False as
    // 0), so they share the correction forms' kernels.
    r.add("aten.var.dim", "var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor", RD,
          metaVar, varKernel<false>);
    r.add("aten.std.dim", "std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor", RD,
          metaVar, varKernel<true>);
    r.add("aten.var_mean.dim",
          "var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)", RD,
          metaVarMean, varMeanKernel<false>);
    r.add("aten.std_mean.correction",
          "std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> "
          "(Tensor, Tensor)",
          RD, metaVarMean, varMeanKernel<true>);
    r.add("aten.logsumexp.default", "logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor", RD,
          metaLogsumexp, logsumexpKernel);
    r.add("aten.trace.default", "trace(Tensor self) -> Tensor", RD, metaTrace, traceKernel);
    r.add("aten.all.default", "all(Tensor self) -> Tensor", RD, metaLogical<kLogicalAll>,
          logicalKernel<kLogicalAll, true>);
    r.add("aten.all.dim", "all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor", RD, metaLogical<kLogicalDim>,
          logicalKernel<kLogicalDim, true>);
    r.add("aten.all.dims", "all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor", RD,
          metaLogical<kLogicalDim>, logicalKernel<kLogicalDim, true>);
    r.add("aten.any.default", "any(Tensor self) -> Tensor", RD, metaLogical<kLogicalAll>,
          logicalKernel<kLogicalAll, false>);
    r.add("aten.any.dim", "any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor", RD, metaLogical<kLogicalDim>,
          logicalKernel<kLogicalDim, false>);
    r.add("aten.any.dims", "any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor", RD,
          metaLogical<kLogicalDim>, logicalKernel<kLogicalDim, false>);

    r.add("aten._softmax.default", "_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", RD, metaSoftmax,
          softmaxKernel<SoftmaxKind::Softmax>);
    r.add("aten.softmax.int", "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", RD, metaSoftmaxInt,
          softmaxIntKernel);
    r.add("aten._safe_softmax.default", "_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", RD,
          metaSafeSoftmax, safeSoftmaxKernel);
    r.add("aten._softmax_backward_data.default",
          "_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor", RD,
          metaSoftmaxBackward, softmaxBackwardKernel<SoftmaxKind::Softmax>);
    r.add("aten._log_softmax.default", "_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", RD,
          metaLogSoftmax, softmaxKernel<SoftmaxKind::LogSoftmax>);
    r.add("aten._log_softmax_backward_data.default",
          "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
          RD, metaLogSoftmaxBackward, softmaxBackwardKernel<SoftmaxKind::LogSoftmax>);
    r.add("prims.prepare_softmax_online.default", "prepare_softmax_online(Tensor a, int dim) -> (Tensor, Tensor)", RD,
          metaPrepareSoftmax, prepareSoftmaxKernel);
}

}  // namespace fxray
