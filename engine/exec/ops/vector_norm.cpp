// Vector norms: linalg_vector_norm, norm.ScalarOpt_dim, dist and renorm. Outputs are contiguous
// like PyTorch's structured metas allocate them; kernels sum |x|^p in double over the input in
// row-major order and round once.
#include "exec/ops/kernel_util.h"
#include "exec/ops/reduce_util.h"
#include "exec/ops/register.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>

namespace fxray {
using namespace kern;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string ordStr(double ord) {
    if (std::isinf(ord)) return ord > 0 ? "inf" : "-inf";
    std::string s = std::to_string(ord);
    while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
    return s;
}

/// The p-norm of every group of the plan: count of nonzeros (p = 0), max/min |x| (p = +-inf,
/// NaN propagating), else (sum |x|^p)^(1/p).
std::vector<double> normValues(const std::vector<double>& in, const std::vector<int64_t>& shape, const ReducePlan& p,
                               double ord) {
    const size_t n = static_cast<size_t>(p.outNumel);
    if (std::isinf(ord)) {
        const bool max = ord > 0;
        std::vector<double> acc(n, max ? 0.0 : kInf);
        forEachReduced(shape, p, [&](int64_t e, int64_t o) {
            const double x = std::fabs(in[e]);
            if (std::isnan(acc[o])) return;
            if (std::isnan(x) || (max ? x > acc[o] : x < acc[o])) acc[o] = x;
        });
        return acc;
    }
    std::vector<double> acc(n, 0.0);
    forEachReduced(shape, p, [&](int64_t e, int64_t o) {
        const double x = std::fabs(in[e]);
        if (ord == 0.0)
            acc[o] += x != 0.0 ? 1.0 : 0.0;
        else if (ord == 1.0)
            acc[o] += x;
        else if (ord == 2.0)
            acc[o] += x * x;
        else
            acc[o] += std::pow(x, ord);
    });
    if (ord == 2.0)
        for (double& v : acc) v = std::sqrt(v);
    else if (ord != 0.0 && ord != 1.0)
        for (double& v : acc) v = std::pow(v, 1.0 / ord);
    return acc;
}

/// The checks of linalg_vector_norm's meta: a floating input, a floating dtype that does not
/// narrow it, and no empty reduction for norms without an identity (p < 0, p = inf).
Expected<ReducePlan> planNorm(const OpArgs& a, double ord, const std::optional<std::vector<int64_t>>& dims,
                              bool keepdim, std::optional<DType> dtype) {
    const Tensor& t = a.tensor(0);
    if (!isFloating(t.dtype()))
        return opError(a, "expected a tensor of floating point or complex type, got " + dtName(t.dtype()));
    if (dtype) {
        if (!isFloating(*dtype)) return opError(a, "dtype should be floating point or complex, got " + dtName(*dtype));
        if (promoteTypes(t.dtype(), *dtype) != *dtype)
            return opError(a, "the dtype of the input (" + dtName(t.dtype()) +
                                  ") should be convertible without "
                                  "narrowing to the specified dtype (" +
                                  dtName(*dtype) + ")");
    }
    auto p = planReduce(a, t.shape(), dims, keepdim);
    if (!p.ok()) return p;
    if (t.numel() == 0 && (ord < 0.0 || ord == kInf)) {
        if (!dims || dims->empty())
            return opError(a, "cannot compute the " + ordStr(ord) +
                                  " norm on an empty tensor because the "
                                  "operation does not have an identity");
        for (int64_t i = 0; i < t.dim(); ++i)
            if (p->reduced[i] && t.shape()[i] == 0)
                return opError(a, "cannot compute the " + ordStr(ord) + " norm on the dimension " + std::to_string(i) +
                                      " because this dimension is empty and the operation does not have an identity");
    }
    return p;
}

// ----- linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None) ----------------

Expected<ReducePlan> planVectorNorm(const OpArgs& a) {
    return planNorm(a, a.toDouble(1), optDims(a, 2), a.toBool(3), a.toOptDType(4));
}

Expected<Value> metaVectorNorm(const OpArgs& a) {
    auto p = planVectorNorm(a);
    if (!p.ok()) return p.error();
    return contiguousMeta(p->outShape, a.toOptDType(4).value_or(a.tensor(0).dtype()), a.tensor(0));
}

Expected<Value> vectorNormKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planVectorNorm(a);
    if (!p.ok()) return p.error();
    const Tensor& t = a.tensor(0);
    return Value::ofTensor(makeTensor(out.t.meta, normValues(inputAs(t, out.t.dtype()), t.shape(), *p, a.toDouble(1))));
}

// ----- norm.ScalarOpt_dim(self, p?, dim, keepdim=False) --------------------------------------

double normOrd(const OpArgs& a) { return a.isNone(1) ? 2.0 : a.toDouble(1); }

Expected<ReducePlan> planNormDim(const OpArgs& a) {
    return planNorm(a, normOrd(a), a.toIntList(2), a.toBool(3), std::nullopt);
}

Expected<Value> metaNormDim(const OpArgs& a) {
    auto p = planNormDim(a);
    if (!p.ok()) return p.error();
    return contiguousMeta(p->outShape, a.tensor(0).dtype(), a.tensor(0));
}

Expected<Value> normDimKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planNormDim(a);
    if (!p.ok()) return p.error();
    const Tensor& t = a.tensor(0);
    return Value::ofTensor(makeTensor(out.t.meta, normValues(toDoubles(t), t.shape(), *p, normOrd(a))));
}

// ----- dist(self, other, p=2) ----------------------------------------------------------------

/// The norm of the broadcast difference, a 0-d tensor of the operands' common float dtype.
Expected<Value> metaDist(const OpArgs& a) {
    const DType dt = promoteTypes(a.tensor(0).dtype(), a.tensor(1).dtype());
    if (!isFloating(dt)) return opError(a, "expected floating point inputs, got " + dtName(dt));
    if (!broadcastShapes(a.tensor(0).shape(), a.tensor(1).shape()))
        return opError(a, "the shapes " + a.tensor(0).meta.annotation(false, false) + " and " +
                              a.tensor(1).meta.annotation(false, false) + " are not broadcastable");
    return contiguousMeta({}, dt, a.tensor(0));
}

Expected<Value> distKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto shape = *broadcastShapes(a.tensor(0).shape(), a.tensor(1).shape());
    std::vector<double> x = toDoublesBroadcast(a.tensor(0), shape);
    const std::vector<double> y = toDoublesBroadcast(a.tensor(1), shape);
    for (size_t i = 0; i < x.size(); ++i) x[i] = roundTo(x[i] - y[i], out.t.dtype());
    auto p = planReduce(a, shape, std::nullopt, false);
    if (!p.ok()) return p.error();
    return Value::ofTensor(makeTensor(out.t.meta, normValues(x, shape, *p, a.toDouble(2))));
}

// ----- renorm(self, p, dim, maxnorm) ---------------------------------------------------------

Expected<DimSplit> checkRenorm(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    if (!isFloating(t.dtype())) return opError(a, "not implemented for " + dtName(t.dtype()));
    if (!(a.toDouble(1) > 0.0)) return opError(a, "non-positive-norm not supported");
    if (!(a.toDouble(3) >= 0.0))
        return opError(a, "expected maxnorm to be >= 0 but got " + std::to_string(a.toDouble(3)));
    if (t.dim() < 2)
        return opError(a, "input needs at least 2 dimensions, got " + std::to_string(t.dim()) + " dimensions");
    return splitAt(a, t.shape(), a.toInt(2));
}

Expected<Value> metaRenorm(const OpArgs& a) {
    auto s = checkRenorm(a);
    if (!s.ok()) return s.error();
    return contiguousMeta(a.tensor(0).shape(), a.tensor(0).dtype(), a.tensor(0));
}

/// Each slice along `dim` whose p-norm exceeds maxnorm is scaled by maxnorm / (norm + 1e-7); the
/// factor is rounded to the input dtype first, as PyTorch stores it in a tensor of that dtype.
Expected<Value> renormKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = checkRenorm(a);
    if (!s.ok()) return s.error();
    const Tensor& t = a.tensor(0);
    const double ord = a.toDouble(1), maxnorm = a.toDouble(3);
    const int64_t dim = *wrapDim(a.toInt(2), t.dim());
    std::vector<int64_t> others;
    for (int64_t i = 0; i < t.dim(); ++i)
        if (i != dim) others.push_back(i);
    auto p = planReduce(a, t.shape(), others, false);
    if (!p.ok()) return p.error();
    std::vector<double> x = toDoubles(t);
    std::vector<double> factor = normValues(x, t.shape(), *p, ord);
    for (double& f : factor) f = roundTo(f > maxnorm ? maxnorm / (f + 1e-7) : 1.0, t.dtype());
    forEachReduced(t.shape(), *p, [&](int64_t e, int64_t o) { x[e] *= factor[o]; });
    return Value::ofTensor(makeTensor(out.t.meta, x));
}

}  // namespace

void registerVectorNormOps(OpRegistry& r) {
    constexpr auto RD = OpCategory::Reduction;
    r.add("aten.linalg_vector_norm.default",
          "linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
          "ScalarType? dtype=None) -> Tensor",
          RD, metaVectorNorm, vectorNormKernel);
    r.add("aten.norm.ScalarOpt_dim",
          "norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor", RD, metaNormDim,
          normDimKernel);
    r.add("aten.dist.default", "dist(Tensor self, Tensor other, Scalar p=2) -> Tensor", RD, metaDist, distKernel);
    r.add("aten.renorm.default", "renorm(Tensor self, Scalar p, int dim, Scalar maxnorm) -> Tensor", RD, metaRenorm,
          renormKernel);
}

}  // namespace fxray
