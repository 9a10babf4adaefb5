// Binary and ternary pointwise ops beyond the basic arithmetic of pointwise.cpp: remainder,
// fmod, floor_divide, atan2, hypot, copysign, fmax/fmin, logaddexp, xlogy, ldexp, nextafter,
// heaviside, gcd/lcm, bitwise xor and shifts, logical or/xor, clamp with tensor bounds,
// addcmul/addcdiv, lerp, pow with a scalar base, igamma/igammac. Each op: PyTorch's schema, a
// meta function (TensorIterator's broadcasting, type promotion and strides via pointwiseMeta)
// and a kernel computing in double, rounded once to the output dtype.
#include "exec/interpreter.h"
#include "exec/ops/binary_math.h"
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace fxray {
using namespace kern;

namespace {

std::string dtName(DType t) { return std::string(dtypeTorchName(t)); }

DType promoted(const OpArgs& a, std::initializer_list<size_t> idx) {
    std::vector<const Value*> ops;
    for (size_t i : idx) ops.push_back(&a[i]);
    return resultType(ops);
}

/// An operand converted to the dtype the op computes in: Python floats round to float for
/// float/half/bfloat16 ops (PyTorch's opmath type), integers stay exact.
double toCompute(double v, DType t) {
    if (isFloating(t) && t != DType::Float64) return static_cast<double>(static_cast<float>(v));
    return v;
}

/// pointwiseKernel with the operands first converted to the common dtype `ct`.
template <typename F>
Expected<Value> computeIn(const OpArgs& a, const Value& out, const std::vector<size_t>& idx, DType ct, F f) {
    return pointwiseKernel(a, out, idx, [ct, f, n = idx.size()](const double* x) {
        double y[3] = {0.0, 0.0, 0.0};
        for (size_t k = 0; k < n && k < 3; ++k) y[k] = toCompute(x[k], ct);
        return f(y);
    });
}

/// The rounding_mode argument of div that floor_divide passes.
Value floorMode() {
    Value v;
    v.kind = Value::Kind::String;
    v.s = "floor";
    return v;
}

/// "not implemented for 'Long'", PyTorch's message when a kernel has no such dtype.
Diagnostic notImplemented(const OpArgs& a, DType t) { return opError(a, "not implemented for '" + dtName(t) + "'"); }

// ----- metas ---------------------------------------------------------------------------------

/// Operands promote to their result type; bool is refused (remainder, fmod have no bool kernel).
Expected<Value> metaArithNoBool(const OpArgs& a) {
    const DType t = promoted(a, {0, 1});
    if (t == DType::Bool) return notImplemented(a, t);
    return pointwiseMeta(a, {0, 1}, t);
}

/// fmax/fmin: any real dtype.
Expected<Value> metaBinary(const OpArgs& a) { return pointwiseMeta(a, {0, 1}); }

/// atan2, copysign, xlogy: integer and bool operands give the default float dtype.
Expected<Value> metaIntToFloat(const OpArgs& a) {
    return pointwiseMeta(a, {0, 1}, toFloatingType(promoted(a, {0, 1})));
}

/// hypot, logaddexp, nextafter, igamma: kernels exist for floating dtypes only.
Expected<Value> metaFloatOnly(const OpArgs& a) {
    const DType t = promoted(a, {0, 1});
    if (!isFloating(t)) return notImplemented(a, t);
    return pointwiseMeta(a, {0, 1}, t);
}

/// gcd, lcm, shifts: integer dtypes (no bool).
Expected<Value> metaIntegerOnly(const OpArgs& a) {
    const DType t = promoted(a, {0, 1});
    if (!isIntegral(t, false)) return notImplemented(a, t);
    return pointwiseMeta(a, {0, 1}, t);
}

/// bitwise_xor: integer or bool.
Expected<Value> metaBitwise(const OpArgs& a) {
    const DType t = promoted(a, {0, 1});
    if (!isIntegral(t, true)) return opError(a, "bitwise ops need integer or bool operands, got " + dtName(t));
    return pointwiseMeta(a, {0, 1}, t);
}

Expected<Value> metaLogical(const OpArgs& a) { return pointwiseMeta(a, {0, 1}, DType::Bool); }

/// heaviside: both operands of one dtype.
Expected<Value> metaHeaviside(const OpArgs& a) {
    if (a.isTensor(0) && a.isTensor(1) && a.tensor(0).dtype() != a.tensor(1).dtype())
        return opError(a, "heaviside is not yet implemented for tensors with different dtypes");
    return pointwiseMeta(a, {0, 1});
}

/// ldexp(self, other) = self * 2**other: pow(2., other) is floating (other's dtype when floating,
/// else the default float), and promotes with self like mul.
Expected<Value> metaLdexp(const OpArgs& a) {
    Value pow2 = a[1];
    if (pow2.isTensor()) {
        pow2.t = Tensor::metaOnly(pow2.t.meta);
        pow2.t.meta.dtype = toFloatingType(pow2.t.dtype());
    } else {
        pow2 = Value::ofDouble(pow2.toDouble());
    }
    return pointwiseMeta(a, {0, 1}, resultType({&a[0], &pow2}));
}

/// pow(Scalar self, Tensor exponent).
Expected<Value> metaPowScalar(const OpArgs& a) {
    const DType t = promoted(a, {0, 1});
    return pointwiseMeta(a, {0, 1}, t == DType::Bool ? DType::Int64 : t);
}

/// clamp.Tensor: self and the bounds given broadcast together and promote together.
Expected<Value> metaClampTensor(const OpArgs& a) {
    const bool hasLo = !a.isNone(1), hasHi = !a.isNone(2);
    if (!hasLo && !hasHi) return opError(a, "torch.clamp: At least one of 'min' or 'max' must not be None");
    std::vector<size_t> idx = {0};
    if (hasLo) idx.push_back(1);
    if (hasHi) idx.push_back(2);
    std::vector<const Value*> ops;
    for (size_t i : idx) ops.push_back(&a[i]);
    const DType t = resultType(ops);
    if (t == DType::Bool) return notImplemented(a, t);
    return pointwiseMeta(a, idx, t);
}

/// clamp_min.Tensor / clamp_max.Tensor.
Expected<Value> metaClampBound(const OpArgs& a) {
    const DType t = promoted(a, {0, 1});
    if (t == DType::Bool) return notImplemented(a, t);
    return pointwiseMeta(a, {0, 1}, t);
}

/// addcmul(self, tensor1, tensor2, value): the three tensors promote together.
Expected<Value> metaAddcmul(const OpArgs& a) { return pointwiseMeta(a, {0, 1, 2}); }

Expected<Value> metaAddcdiv(const OpArgs& a) {
    if (isIntegral(promoted(a, {1}), true) && isIntegral(promoted(a, {2}), true))
        return opError(a, "Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                          "will perform a true division of tensor1 and tensor2. Use addcmul(input, tensor1, "
                          "1 / tensor2, value=value) or addcmul(input, tensor1, torch.true_divide(1, tensor2), "
                          "value=value) instead");
    return pointwiseMeta(a, {0, 1, 2});
}

/// lerp: end (and a tensor weight) must have self's dtype, which is the result's; floats only.
Expected<Value> metaLerp(const OpArgs& a) {
    if (!a.isTensor(0) || !a.isTensor(1)) return opError(a, "self and end must be tensors");
    const DType t = a.tensor(0).dtype();
    if (a.tensor(1).dtype() != t)
        return opError(a, "expected dtype " + dtName(t) + " for `end` but got dtype " + dtName(a.tensor(1).dtype()));
    const bool weightTensor = a.isTensor(2);
    if (weightTensor && a.tensor(2).dtype() != t)
        return opError(a, "expected dtype " + dtName(t) + " for `weight` but got dtype " + dtName(a.tensor(2).dtype()));
    if (!isFloating(t)) return notImplemented(a, t);
    // lerp.Scalar's weight is no TensorIterator operand: it decides neither shape nor layout.
    if (weightTensor) return pointwiseMeta(a, {0, 1, 2}, t);
    return pointwiseMeta(a, {0, 1}, t);
}

// ----- kernels -------------------------------------------------------------------------------

/// Integer division by zero raises in PyTorch (on CPU; CUDA gives unspecified values).
bool hasZero(const Value& v) {
    if (!v.isTensor()) return v.toDouble() == 0.0;
    for (double x : toDoubles(v.t))
        if (x == 0.0) return true;
    return false;
}

Expected<Value> remainderKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    if (isIntegral(t, false)) {
        if (hasZero(a[1])) return opError(a, "ZeroDivisionError");
        return computeIn(a, out, {0, 1}, t, [](const double* x) {
            const int64_t n = static_cast<int64_t>(x[0]), d = static_cast<int64_t>(x[1]);
            if (d == -1) return 0.0;  // INT64_MIN % -1 would trap
            int64_t r = n % d;
            if (r != 0 && ((r < 0) != (d < 0))) r += d;
            return static_cast<double>(r);
        });
    }
    return computeIn(a, out, {0, 1}, t, [t](const double* x) {
        // fmod is exact; the sign fix-up is one rounded addition in the op's dtype.
        double mod = std::fmod(x[0], x[1]);
        if (mod != 0.0 && ((x[1] < 0) != (mod < 0))) mod = toCompute(mod + x[1], t);
        return mod;
    });
}

Expected<Value> fmodKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    if (isIntegral(t, false)) {
        if (hasZero(a[1])) return opError(a, "ZeroDivisionError");
        return computeIn(a, out, {0, 1}, t, [](const double* x) {
            const int64_t n = static_cast<int64_t>(x[0]), d = static_cast<int64_t>(x[1]);
            return d == -1 ? 0.0 : static_cast<double>(n % d);
        });
    }
    return computeIn(a, out, {0, 1}, t, [](const double* x) { return std::fmod(x[0], x[1]); });
}

/// floor_divide is div(rounding_mode='floor') in PyTorch: both run the same kernel.
Expected<Value> metaFloorDivide(const OpArgs& a) {
    return invokeOp("aten.div.Tensor_mode", {a[0], a[1]}, {{"rounding_mode", floorMode()}});
}

Expected<Value> floorDivideKernel(const OpArgs& a, const Value&, ExecContext& ctx) {
    return invokeOp("aten.div.Tensor_mode", {a[0], a[1]}, {{"rounding_mode", floorMode()}}, &ctx);
}

template <double (*F)(double, double)>
Expected<Value> floatBinaryKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return computeIn(a, out, {0, 1}, out.t.dtype(), [](const double* x) { return F(x[0], x[1]); });
}

double fAtan2(double y, double x) { return std::atan2(y, x); }
double fHypot(double x, double y) { return std::hypot(x, y); }
double fCopysign(double x, double y) { return std::copysign(x, y); }
double fFmax(double x, double y) { return std::fmax(x, y); }
double fFmin(double x, double y) { return std::fmin(x, y); }

/// log(exp(a) + exp(b)) without overflow; equal infinities give themselves.
double fLogaddexp(double x, double y) {
    if (std::isinf(x) && x == y) return x;
    const double m = std::max(x, y);
    return m + std::log1p(std::exp(-std::fabs(x - y)));
}

double fLogaddexp2(double x, double y) {
    if (std::isinf(x) && x == y) return x;
    const double m = std::max(x, y);
    return m + std::log1p(std::exp2(-std::fabs(x - y))) / std::log(2.0);
}

/// x * log(y), 0 where x is 0 unless y is NaN.
double fXlogy(double x, double y) {
    if (std::isnan(y)) return y;
    if (x == 0.0) return 0.0;
    return x * std::log(y);
}

double fHeaviside(double x, double v) {
    if (x == 0.0) return v;
    return x > 0.0 ? 1.0 : 0.0;  // NaN gives 0, as PyTorch's `x > 0`
}

Expected<Value> ldexpKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    return pointwiseKernel(a, out, {0, 1},
                           [t](const double* x) { return toCompute(x[0], t) * toCompute(std::pow(2.0, x[1]), t); });
}

Expected<Value> nextafterKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    return pointwiseKernel(a, out, {0, 1}, [t](const double* x) { return nextAfterIn(x[0], x[1], t); });
}

Expected<Value> gcdKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) {
        return static_cast<double>(gcdInt(static_cast<int64_t>(x[0]), static_cast<int64_t>(x[1])));
    });
}

/// |a / gcd * b| with two's-complement wraparound; 0 when both are 0.
Expected<Value> lcmKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    return pointwiseKernel(a, out, {0, 1}, [t](const double* x) {
        const int64_t p = static_cast<int64_t>(x[0]), q = static_cast<int64_t>(x[1]);
        const int64_t g = gcdInt(p, q);
        if (g == 0) return 0.0;
        const uint64_t prod = static_cast<uint64_t>(p / g) * static_cast<uint64_t>(q);
        int64_t v = wrapInt(prod, t);
        if (v < 0) v = wrapInt(0 - static_cast<uint64_t>(v), t);
        return static_cast<double>(v);
    });
}

Expected<Value> bitwiseXorKernel(const OpArgs& a, const Value& out, ExecContext&) {
    if (out.t.dtype() == DType::Bool)
        return pointwiseKernel(a, out, {0, 1},
                               [](const double* x) { return (x[0] != 0.0) != (x[1] != 0.0) ? 1.0 : 0.0; });
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) {
        return static_cast<double>(static_cast<int64_t>(x[0]) ^ static_cast<int64_t>(x[1]));
    });
}

template <bool Left>
Expected<Value> shiftKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    return pointwiseKernel(a, out, {0, 1}, [t](const double* x) {
        return static_cast<double>(shiftInt(static_cast<int64_t>(x[0]), static_cast<int64_t>(x[1]), t, Left));
    });
}

Expected<Value> logicalOrKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) { return (x[0] != 0.0 || x[1] != 0.0) ? 1.0 : 0.0; });
}

Expected<Value> logicalXorKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) { return (x[0] != 0.0) != (x[1] != 0.0) ? 1.0 : 0.0; });
}

/// NaN in self or a bound gives NaN; min > max gives max (std::min(std::max(x, lo), hi)).
double clampTensorValue(double x, bool hasLo, double lo, bool hasHi, double hi) {
    if (std::isnan(x) || (hasLo && std::isnan(lo)) || (hasHi && std::isnan(hi))) return std::nan("");
    if (hasLo) x = std::max(x, lo);
    if (hasHi) x = std::min(x, hi);
    return x;
}

Expected<Value> clampTensorKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const bool hasLo = !a.isNone(1), hasHi = !a.isNone(2);
    std::vector<size_t> idx = {0};
    if (hasLo) idx.push_back(1);
    if (hasHi) idx.push_back(2);
    return computeIn(a, out, idx, out.t.dtype(), [hasLo, hasHi](const double* x) {
        const double lo = hasLo ? x[1] : 0.0, hi = hasHi ? x[hasLo ? 2 : 1] : 0.0;
        return clampTensorValue(x[0], hasLo, lo, hasHi, hi);
    });
}

template <bool Min>
Expected<Value> clampBoundKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return computeIn(a, out, {0, 1}, out.t.dtype(), [](const double* x) {
        return Min ? clampTensorValue(x[0], true, x[1], false, 0.0) : clampTensorValue(x[0], false, 0.0, true, x[1]);
    });
}

Expected<Value> addcmulKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    const double value = toCompute(a.toDouble(3), t);
    return computeIn(a, out, {0, 1, 2}, t, [value](const double* x) { return x[0] + value * x[1] * x[2]; });
}

Expected<Value> addcdivKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    const double value = toCompute(a.toDouble(3), t);
    return computeIn(a, out, {0, 1, 2}, t, [value](const double* x) { return x[0] + value * (x[1] / x[2]); });
}

/// PyTorch's lerp: from the nearer end, so that weight 0 gives self and weight 1 gives end.
double lerpValue(double self, double end, double w) {
    return std::fabs(w) < 0.5 ? self + w * (end - self) : end - (end - self) * (1.0 - w);
}

Expected<Value> lerpKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    if (a.isTensor(2))
        return computeIn(a, out, {0, 1, 2}, t, [](const double* x) { return lerpValue(x[0], x[1], x[2]); });
    const double w = toCompute(a.toDouble(2), t);
    return computeIn(a, out, {0, 1}, t, [w](const double* x) { return lerpValue(x[0], x[1], w); });
}

Expected<Value> powScalarKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType t = out.t.dtype();
    if (isIntegral(t, true))
        return pointwiseKernel(a, out, {0, 1}, [t](const double* x) {
            return static_cast<double>(intPow(static_cast<int64_t>(x[0]), static_cast<int64_t>(x[1]), t));
        });
    return computeIn(a, out, {0, 1}, t, [](const double* x) { return std::pow(x[0], x[1]); });
}

}  // namespace

void registerBinaryOps(OpRegistry& r) {
    constexpr auto PW = OpCategory::Pointwise;
    // Division remainders and floor division
    r.add("aten.remainder.Tensor", "remainder.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaArithNoBool,
          remainderKernel);
    r.add("aten.remainder.Scalar", "remainder.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaArithNoBool,
          remainderKernel);
    r.add("aten.remainder.Scalar_Tensor", "remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor", PW,
          metaArithNoBool, remainderKernel);
    r.add("aten.fmod.Tensor", "fmod.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaArithNoBool, fmodKernel);
    r.add("aten.fmod.Scalar", "fmod.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaArithNoBool, fmodKernel);
    r.add("aten.floor_divide.default", "floor_divide(Tensor self, Tensor other) -> Tensor", PW, metaFloorDivide,
          floorDivideKernel);
    r.add("aten.floor_divide.Scalar", "floor_divide.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaFloorDivide,
          floorDivideKernel);

    // Floating binary math
    r.add("aten.atan2.default", "atan2(Tensor self, Tensor other) -> Tensor", PW, metaIntToFloat,
          floatBinaryKernel<fAtan2>);
    r.add("aten.hypot.default", "hypot(Tensor self, Tensor other) -> Tensor", PW, metaFloatOnly,
          floatBinaryKernel<fHypot>);
    r.add("aten.copysign.Tensor", "copysign.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaIntToFloat,
          floatBinaryKernel<fCopysign>);
    r.add("aten.copysign.Scalar", "copysign.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaIntToFloat,
          floatBinaryKernel<fCopysign>);
    r.add("aten.fmax.default", "fmax(Tensor self, Tensor other) -> Tensor", PW, metaBinary, floatBinaryKernel<fFmax>);
    r.add("aten.fmin.default", "fmin(Tensor self, Tensor other) -> Tensor", PW, metaBinary, floatBinaryKernel<fFmin>);
    r.add("aten.logaddexp.default", "logaddexp(Tensor self, Tensor other) -> Tensor", PW, metaFloatOnly,
          floatBinaryKernel<fLogaddexp>);
    r.add("aten.logaddexp2.default", "logaddexp2(Tensor self, Tensor other) -> Tensor", PW, metaFloatOnly,
          floatBinaryKernel<fLogaddexp2>);
    r.add("aten.xlogy.Tensor", "xlogy.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaIntToFloat,
          floatBinaryKernel<fXlogy>);
    r.add("aten.xlogy.Scalar_Self", "xlogy.Scalar_Self(Scalar self, Tensor other) -> Tensor", PW, metaIntToFloat,
          floatBinaryKernel<fXlogy>);
    r.add("aten.xlogy.Scalar_Other", "xlogy.Scalar_Other(Tensor self, Scalar other) -> Tensor", PW, metaIntToFloat,
          floatBinaryKernel<fXlogy>);
    r.add("aten.ldexp.Tensor", "ldexp.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaLdexp, ldexpKernel);
    r.add("aten.nextafter.default", "nextafter(Tensor self, Tensor other) -> Tensor", PW, metaFloatOnly,
          nextafterKernel);
    r.add("aten.heaviside.default", "heaviside(Tensor self, Tensor values) -> Tensor", PW, metaHeaviside,
          floatBinaryKernel<fHeaviside>);
    r.add("aten.igamma.default", "igamma(Tensor self, Tensor other) -> Tensor", PW, metaFloatOnly,
          floatBinaryKernel<igammaLower>);
    r.add("aten.igammac.default", "igammac(Tensor self, Tensor other) -> Tensor", PW, metaFloatOnly,
          floatBinaryKernel<igammaUpper>);
    r.add("aten.pow.Scalar", "pow.Scalar(Scalar self, Tensor exponent) -> Tensor", PW, metaPowScalar, powScalarKernel);

    // Integer and logical
    r.add("aten.gcd.default", "gcd(Tensor self, Tensor other) -> Tensor", PW, metaIntegerOnly, gcdKernel);
    r.add("aten.lcm.default", "lcm(Tensor self, Tensor other) -> Tensor", PW, metaIntegerOnly, lcmKernel);
    r.add("aten.bitwise_xor.Tensor", "bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaBitwise,
          bitwiseXorKernel);
    r.add("aten.bitwise_xor.Scalar", "bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaBitwise,
          bitwiseXorKernel);
    r.add("aten.bitwise_left_shift.Tensor", "bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor", PW,
          metaIntegerOnly, shiftKernel<true>);
    r.add("aten.bitwise_left_shift.Tensor_Scalar",
          "bitwise_left_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor", PW, metaIntegerOnly,
          shiftKernel<true>);
    r.add("aten.bitwise_right_shift.Tensor", "bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor", PW,
          metaIntegerOnly, shiftKernel<false>);
    r.add("aten.bitwise_right_shift.Tensor_Scalar",
          "bitwise_right_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor", PW, metaIntegerOnly,
          shiftKernel<false>);
    r.add("aten.logical_or.default", "logical_or(Tensor self, Tensor other) -> Tensor", PW, metaLogical,
          logicalOrKernel);
    r.add("aten.logical_xor.default", "logical_xor(Tensor self, Tensor other) -> Tensor", PW, metaLogical,
          logicalXorKernel);

    // Clamping with tensor bounds
    r.add("aten.clamp.Tensor", "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", PW,
          metaClampTensor, clampTensorKernel);
    r.add("aten.clamp_min.Tensor", "clamp_min.Tensor(Tensor self, Tensor min) -> Tensor", PW, metaClampBound,
          clampBoundKernel<true>);
    r.add("aten.clamp_max.Tensor", "clamp_max.Tensor(Tensor self, Tensor max) -> Tensor", PW, metaClampBound,
          clampBoundKernel<false>);

    // Ternary
    r.add("aten.addcmul.default", "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
          PW, metaAddcmul, addcmulKernel);
    r.add("aten.addcdiv.default", "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
          PW, metaAddcdiv, addcdivKernel);
    r.add("aten.lerp.Scalar", "lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor", PW, metaLerp,
          lerpKernel);
    r.add("aten.lerp.Tensor", "lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor", PW, metaLerp,
          lerpKernel);
}

}  // namespace fxray
