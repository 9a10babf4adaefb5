// Special-function ops: the gamma family (lgamma, digamma, polygamma, mvlgamma), modified
// Bessel functions (i0, special_i1) and erfinv. The functions themselves are in
// special_functions.cpp; this file holds the schemas, metas and kernels.
#include "exec/ops/math_util.h"
#include "exec/ops/register.h"
#include "exec/ops/special_functions.h"

#include <cmath>
#include <numbers>
#include <string>

namespace fxray {
using namespace kern;
using namespace kern::mathops;

namespace {

// ----- metas ---------------------------------------------------------------------------------

Expected<Value> metaFloatUnary(const OpArgs& a) {
    if (auto e = rejectComplex(a, 0)) return *e;
    return unaryFloatMeta(a);
}

/// polygamma(n, self): the tensor is argument 1.
Expected<Value> metaPolygamma(const OpArgs& a) {
    if (a.toInt(0) < 0)
        return opError(a, "polygamma(n, x) does not support negative n, got n = " + std::to_string(a.toInt(0)));
    if (auto e = rejectComplex(a, 1)) return *e;
    return pointwiseMeta(a, {1}, toFloatingType(promotedOf(a, {1})));
}

/// mvlgamma is lgamma over a trailing dim of p shifted copies summed away: a contiguous result
/// (PyTorch's reductions allocate contiguous outputs).
Expected<Value> metaMvlgamma(const OpArgs& a) {
    if (auto e = rejectComplex(a, 0)) return *e;
    const int64_t p = a.toInt(1);
    if (p < 1) return opError(a, "p has to be greater than or equal to 1, got " + std::to_string(p));
    TensorMeta m = a.tensor(0).meta;
    m.dtype = toFloatingType(m.dtype);
    m.strides = rowMajorStrides(m.shape);
    m.offset = 0;
    return metaValue(std::move(m));
}

// ----- kernels -------------------------------------------------------------------------------

using Unary = double (*)(double);

template <Unary F>
Expected<Value> unaryKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0}, [](const double* x) { return F(x[0]); });
}

double fLgamma(double x) { return std::lgamma(x); }

Expected<Value> polygammaKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const int64_t n = a.toInt(0);
    return pointwiseKernel(a, out, {1}, [n](const double* x) { return special::polygamma(n, x[0]); });
}

/// mvlgamma(x, p) = sum_{j<p} lgamma(x - j/2) + p(p-1)/4 log(pi), defined for x > (p-1)/2.
/// PyTorch forms each shifted argument in the tensor's dtype before lgamma.
Expected<Value> mvlgammaKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const int64_t p = a.toInt(1);
    const double limit = 0.5 * static_cast<double>(p - 1);
    for (double x : toDoubles(a.tensor(0)))
        if (!(x > limit)) return opError(a, "All elements must be greater than (p-1)/2");
    const DType t = out.t.dtype();
    const double c = 0.25 * static_cast<double>(p * (p - 1)) * std::log(std::numbers::pi);
    return pointwiseKernel(a, out, {0}, [=](const double* x) {
        double sum = 0.0;
        for (int64_t j = 0; j < p; ++j) sum += std::lgamma(opmathRound(x[0] - 0.5 * static_cast<double>(j), t));
        return sum + c;
    });
}

}  // namespace

void registerSpecialMathOps(OpRegistry& r) {
    constexpr auto PW = OpCategory::Pointwise;
    r.add("aten.lgamma.default", "lgamma(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fLgamma>);
    r.add("aten.digamma.default", "digamma(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<special::digamma>);
    r.add("aten.polygamma.default", "polygamma(int n, Tensor self) -> Tensor", PW, metaPolygamma, polygammaKernel);
    r.add("aten.mvlgamma.default", "mvlgamma(Tensor self, int p) -> Tensor", PW, metaMvlgamma, mvlgammaKernel);
    r.add("aten.i0.default", "i0(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<special::besselI0>);
    r.add("aten.special_i1.default", "special_i1(Tensor self) -> Tensor", PW, metaFloatUnary,
          unaryKernel<special::besselI1>);
    r.add("aten.erfinv.default", "erfinv(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<special::erfinv>);
}

}  // namespace fxray
