// Scans along one dim: cumsum, cumprod, logcumsumexp, cummax and cummin. Outputs are contiguous,
// as PyTorch's metas allocate them (cumsum/cumprod's structured meta passes no strides;
// cummax/cummin and logcumsumexp allocate with at::empty). Kernels scan in double.
#include "exec/ops/kernel_util.h"
#include "exec/ops/reduce_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace fxray {
using namespace kern;

namespace {

// ----- cumsum / cumprod (self, dim, *, dtype=None) -------------------------------------------

/// Integer and bool inputs accumulate into int64 unless a dtype is given.
DType cumDType(const OpArgs& a) {
    if (auto dt = a.toOptDType(2)) return *dt;
    const DType t = a.tensor(0).dtype();
    return isIntegral(t, true) ? DType::Int64 : t;
}

Expected<Value> metaCum(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    return contiguousMeta(t.shape(), cumDType(a), t);
}

template <bool Prod>
Expected<Value> cumKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    std::vector<double> x = inputAs(t, out.t.dtype());
    forEachRow(*s, [&](int64_t base, int64_t step) {
        double acc = Prod ? 1.0 : 0.0;
        for (int64_t k = 0; k < s->n; ++k) {
            double& v = x[base + k * step];
            acc = Prod ? acc * v : acc + v;
            v = acc;
        }
    });
    return Value::ofTensor(makeTensor(out.t.meta, x));
}

// ----- logcumsumexp(self, dim) ---------------------------------------------------------------

Expected<Value> metaLogcumsumexp(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    if (!isFloating(t.dtype()))
        return opError(a, "not implemented for " + dtName(t.dtype()) + " (floating point only)");
    auto s = splitAt(a, t.shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    return contiguousMeta(t.shape(), t.dtype(), t);
}

/// log(exp(x) + exp(y)) as PyTorch's scan helper computes it: equal infinities (both -inf, or
/// both +inf) are returned as they are rather than giving inf - inf = NaN.
double logAddExp(double x, double y) {
    if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
    const double lo = std::min(x, y), hi = std::max(x, y);
    if (lo != hi || std::isfinite(lo)) return hi + std::log1p(std::exp(lo - hi));
    return x;
}

Expected<Value> logcumsumexpKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    std::vector<double> x = toDoubles(t);
    forEachRow(*s, [&](int64_t base, int64_t step) {
        double acc = -std::numeric_limits<double>::infinity();
        for (int64_t k = 0; k < s->n; ++k) {
            double& v = x[base + k * step];
            acc = logAddExp(acc, v);
            v = acc;
        }
    });
    return Value::ofTensor(makeTensor(out.t.meta, x));
}

// ----- cummax / cummin (self, dim) -> (values, indices) --------------------------------------

Expected<Value> metaCumExtreme(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    return Value::ofTensors({Tensor::metaOnly(TensorMeta::contiguous(t.shape(), t.dtype(), t.meta.device)),
                             Tensor::metaOnly(TensorMeta::contiguous(t.shape(), DType::Int64, t.meta.device))});
}

/// Running max (min): a NaN, once met, stays; ties move the index to the latest position (PyTorch
/// compares with >= / <=), and every new NaN does too.
template <bool Max>
Expected<Value> cumExtremeKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    std::vector<double> x = toDoubles(t);
    std::vector<double> idx(x.size(), 0.0);
    forEachRow(*s, [&](int64_t base, int64_t step) {
        double best = 0.0;
        int64_t at = 0;
        for (int64_t k = 0; k < s->n; ++k) {
            const int64_t e = base + k * step;
            const double v = x[e];
            if (k == 0 || std::isnan(v) || (!std::isnan(best) && (Max ? v >= best : v <= best))) {
                best = v;
                at = k;
            }
            x[e] = best;
            idx[e] = static_cast<double>(at);
        }
    });
    return Value::ofTensors({makeTensor(out.list[0].t.meta, x), makeTensor(out.list[1].t.meta, idx)});
}

}  // namespace

void registerScanOps(OpRegistry& r) {
    constexpr auto RD = OpCategory::Reduction;
    r.add("aten.cumsum.default", "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", RD, metaCum,
          cumKernel<false>);
    r.add("aten.cumprod.default", "cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", RD, metaCum,
          cumKernel<true>);
    r.add("aten.logcumsumexp.default", "logcumsumexp(Tensor self, int dim) -> Tensor", RD, metaLogcumsumexp,
          logcumsumexpKernel);
    r.add("aten.cummax.default", "cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)", RD, metaCumExtreme,
          cumExtremeKernel<true>);
    r.add("aten.cummin.default", "cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)", RD, metaCumExtreme,
          cumExtremeKernel<false>);
}

}  // namespace fxray
