// Unary pointwise math: trigonometric and hyperbolic functions, exp/log variants, rounding,
// sign tests, NaN/inf classification and replacement, angle, degree conversion, frexp. Each op:
// PyTorch's schema, a meta (pointwiseMeta: TensorIterator's shape, dtype and strides) and a
// kernel computing in double, rounded once to the output dtype. The special functions (gamma
// family, Bessel, erfinv) are in math_special.cpp.
#include "exec/ops/math_util.h"
#include "exec/ops/register.h"

#include <cfloat>
#include <cmath>
#include <numbers>
#include <string>

namespace fxray {
using namespace kern;
using namespace kern::mathops;

namespace {

constexpr double kPi = std::numbers::pi;

// ----- metas ---------------------------------------------------------------------------------

Expected<Value> metaFloatUnary(const OpArgs& a) {
    if (auto e = rejectComplex(a, 0)) return *e;
    return unaryFloatMeta(a);
}

/// isnan, isinf, signbit, ...: a bool result over the input's layout.
Expected<Value> metaPredicate(const OpArgs& a) {
    if (auto e = rejectComplex(a, 0)) return *e;
    return pointwiseMeta(a, {0}, DType::Bool);
}

/// sign and sgn keep the dtype (bool included: sign of a bool is itself).
Expected<Value> metaSameDtype(const OpArgs& a) {
    if (auto e = rejectComplex(a, 0)) return *e;
    return pointwiseMeta(a, {0});
}

/// floor, ceil, trunc, round: integer tensors pass through unchanged; bool has no kernel.
Expected<Value> metaRounding(const OpArgs& a) {
    if (auto e = rejectComplex(a, 0)) return *e;
    const DType t = a.tensor(0).dtype();
    if (t == DType::Bool) return opError(a, "not implemented for bool tensors");
    return pointwiseMeta(a, {0});
}

/// round.decimals: only floating tensors can be rounded to a number of decimals other than 0.
Expected<Value> metaRoundDecimals(const OpArgs& a) {
    if (a.toInt(1) != 0 && !isFloating(a.tensor(0).dtype()))
        return opError(a, "rounding to decimals is not implemented for " + dtName(a.tensor(0).dtype()) + " tensors");
    return metaRounding(a);
}

Expected<Value> metaFrac(const OpArgs& a) { return floatOnlyMeta(a, {0}); }

/// frexp: (mantissa in self's dtype, exponent as int32), both over self's layout.
Expected<Value> metaFrexp(const OpArgs& a) {
    const DType t = a.tensor(0).dtype();
    if (!isFloating(t)) return opError(a, "torch.frexp() only supports floating-point dtypes, got " + dtName(t));
    auto mant = pointwiseMeta(a, {0}, t);
    if (!mant.ok()) return mant.error();
    auto expo = pointwiseMeta(a, {0}, DType::Int32);
    if (!expo.ok()) return expo.error();
    return Value::ofList({*mant, *expo}, true);
}

// ----- kernels -------------------------------------------------------------------------------

using Unary = double (*)(double);

template <Unary F>
Expected<Value> unaryKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0}, [](const double* x) { return F(x[0]); });
}

double fSin(double x) { return std::sin(x); }
double fCos(double x) { return std::cos(x); }
double fTan(double x) { return std::tan(x); }
double fAsin(double x) { return std::asin(x); }
double fAcos(double x) { return std::acos(x); }
double fAtan(double x) { return std::atan(x); }
double fSinh(double x) { return std::sinh(x); }
double fCosh(double x) { return std::cosh(x); }
double fAsinh(double x) { return std::asinh(x); }
double fAcosh(double x) { return std::acosh(x); }
double fAtanh(double x) { return std::atanh(x); }
double fExp2(double x) { return std::exp2(x); }
double fExpm1(double x) { return std::expm1(x); }
double fLog1p(double x) { return std::log1p(x); }
double fLog2(double x) { return std::log2(x); }
double fLog10(double x) { return std::log10(x); }
double fErfc(double x) { return std::erfc(x); }
double fFloor(double x) { return std::floor(x); }
double fCeil(double x) { return std::ceil(x); }
double fTrunc(double x) { return std::trunc(x); }
/// Half to even, as torch.round.
double fRound(double x) { return std::nearbyint(x); }
double fFrac(double x) { return x - std::trunc(x); }
/// PyTorch's sign is (0 < x) - (x < 0): NaN and -0.0 give +0.
double fSign(double x) { return static_cast<double>((0.0 < x) - (x < 0.0)); }
double fIsNan(double x) { return std::isnan(x) ? 1.0 : 0.0; }
double fIsInf(double x) { return std::isinf(x) ? 1.0 : 0.0; }
double fIsPosInf(double x) { return x == INFINITY ? 1.0 : 0.0; }
double fIsNegInf(double x) { return x == -INFINITY ? 1.0 : 0.0; }
double fSignbit(double x) { return std::signbit(x) ? 1.0 : 0.0; }
/// The argument of a real number: pi for negatives, 0 otherwise, NaN kept.
double fAngle(double x) {
    if (std::isnan(x)) return x;
    return x < 0.0 ? kPi : 0.0;
}
/// sin(pi x) / (pi x), 1 at 0.
double fSinc(double x) {
    if (x == 0.0) return 1.0;
    const double px = kPi * x;
    return std::sin(px) / px;
}

/// deg2rad and rad2deg multiply by a constant that PyTorch converts to the tensor's compute
/// type first.
template <bool ToRadians>
Expected<Value> angleConvertKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    const double c = opmathRound(ToRadians ? kPi / 180.0 : 180.0 / kPi, t);
    return pointwiseKernel(a, out, {0}, [c](const double* x) { return x[0] * c; });
}

/// round.decimals scales by 10^|decimals| in the compute type, rounds half to even and scales
/// back, as PyTorch's kernel does (the intermediate rounding decides ties).
Expected<Value> roundDecimalsKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const int64_t decimals = a.toInt(1);
    const DType t = out.t.dtype();
    if (decimals == 0 || !isFloating(t))
        return pointwiseKernel(a, out, {0}, [](const double* x) { return std::nearbyint(x[0]); });
    const bool negative = decimals < 0;
    const double scale = opmathRound(std::pow(10.0, static_cast<double>(negative ? -decimals : decimals)), t);
    return pointwiseKernel(a, out, {0}, [=](const double* x) {
        if (negative) return std::nearbyint(opmathRound(x[0] / scale, t)) * scale;
        return std::nearbyint(opmathRound(x[0] * scale, t)) / scale;
    });
}

/// The largest finite value of a floating dtype (nan_to_num's default for +inf).
double dtypeMax(DType t) {
    switch (t) {
    case DType::Float16: return 65504.0;
    case DType::BFloat16: return 3.3895313892515355e38;
    case DType::Float32: return static_cast<double>(FLT_MAX);
    default: return DBL_MAX;
    }
}

Expected<Value> nanToNumKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    if (!isFloating(t)) return pointwiseKernel(a, out, {0}, [](const double* x) { return x[0]; });
    const double nanV = a.isNone(1) ? 0.0 : a.toDouble(1);
    const double posV = a.isNone(2) ? dtypeMax(t) : a.toDouble(2);
    const double negV = a.isNone(3) ? -dtypeMax(t) : a.toDouble(3);
    return pointwiseKernel(a, out, {0}, [=](const double* x) {
        if (std::isnan(x[0])) return nanV;
        if (x[0] == INFINITY) return posV;
        if (x[0] == -INFINITY) return negV;
        return x[0];
    });
}

Expected<Value> frexpKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto mant = pointwiseKernel(a, out.list[0], {0}, [](const double* x) {
        int e = 0;
        return std::frexp(x[0], &e);
    });
    if (!mant.ok()) return mant.error();
    auto expo = pointwiseKernel(a, out.list[1], {0}, [](const double* x) {
        // inf and NaN have no exponent; C and CUDA report 0.
        if (!std::isfinite(x[0])) return 0.0;
        int e = 0;
        std::frexp(x[0], &e);
        return static_cast<double>(e);
    });
    if (!expo.ok()) return expo.error();
    return Value::ofList({*mant, *expo}, true);
}

}  // namespace

void registerMathOps(OpRegistry& r) {
    constexpr auto PW = OpCategory::Pointwise;
    // Trigonometric and hyperbolic
    r.add("aten.sin.default", "sin(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fSin>);
    r.add("aten.cos.default", "cos(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fCos>);
    r.add("aten.tan.default", "tan(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fTan>);
    r.add("aten.asin.default", "asin(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fAsin>);
    r.add("aten.acos.default", "acos(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fAcos>);
    r.add("aten.atan.default", "atan(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fAtan>);
    r.add("aten.sinh.default", "sinh(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fSinh>);
    r.add("aten.cosh.default", "cosh(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fCosh>);
    r.add("aten.asinh.default", "asinh(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fAsinh>);
    r.add("aten.acosh.default", "acosh(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fAcosh>);
    r.add("aten.atanh.default", "atanh(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fAtanh>);
    r.add("aten.sinc.default", "sinc(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fSinc>);
    r.add("aten.deg2rad.default", "deg2rad(Tensor self) -> Tensor", PW, metaFloatUnary, angleConvertKernel<true>);
    r.add("aten.rad2deg.default", "rad2deg(Tensor self) -> Tensor", PW, metaFloatUnary, angleConvertKernel<false>);
    r.add("aten.angle.default", "angle(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fAngle>);

    // Exponentials and logarithms
    r.add("aten.exp2.default", "exp2(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fExp2>);
    r.add("aten.expm1.default", "expm1(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fExpm1>);
    r.add("aten.log1p.default", "log1p(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fLog1p>);
    r.add("aten.log2.default", "log2(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fLog2>);
    r.add("aten.log10.default", "log10(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fLog10>);
    r.add("aten.erfc.default", "erfc(Tensor self) -> Tensor", PW, metaFloatUnary, unaryKernel<fErfc>);

    // Rounding
    r.add("aten.floor.default", "floor(Tensor self) -> Tensor", PW, metaRounding, unaryKernel<fFloor>);
    r.add("aten.ceil.default", "ceil(Tensor self) -> Tensor", PW, metaRounding, unaryKernel<fCeil>);
    r.add("aten.trunc.default", "trunc(Tensor self) -> Tensor", PW, metaRounding, unaryKernel<fTrunc>);
    r.add("aten.round.default", "round(Tensor self) -> Tensor", PW, metaRounding, unaryKernel<fRound>);
    r.add("aten.round.decimals", "round.decimals(Tensor self, *, int decimals) -> Tensor", PW, metaRoundDecimals,
          roundDecimalsKernel);
    r.add("aten.frac.default", "frac(Tensor self) -> Tensor", PW, metaFrac, unaryKernel<fFrac>);
    r.add("aten.frexp.Tensor", "frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)", PW, metaFrexp,
          frexpKernel);

    // Signs and classification
    r.add("aten.sign.default", "sign(Tensor self) -> Tensor", PW, metaSameDtype, unaryKernel<fSign>);
    r.add("aten.sgn.default", "sgn(Tensor self) -> Tensor", PW, metaSameDtype, unaryKernel<fSign>);
    r.add("aten.signbit.default", "signbit(Tensor self) -> Tensor", PW, metaPredicate, unaryKernel<fSignbit>);
    r.add("aten.isnan.default", "isnan(Tensor self) -> Tensor", PW, metaPredicate, unaryKernel<fIsNan>);
    r.add("aten.isinf.default", "isinf(Tensor self) -> Tensor", PW, metaPredicate, unaryKernel<fIsInf>);
    r.add("aten.isposinf.default", "isposinf(Tensor self) -> Tensor", PW, metaPredicate, unaryKernel<fIsPosInf>);
    r.add("aten.isneginf.default", "isneginf(Tensor self) -> Tensor", PW, metaPredicate, unaryKernel<fIsNegInf>);
    r.add("aten.nan_to_num.default",
          "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor", PW,
          metaSameDtype, nanToNumKernel);
}

}  // namespace fxray
