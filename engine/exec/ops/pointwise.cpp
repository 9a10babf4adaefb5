// Pointwise arithmetic, comparisons and selection. Each op: a schema, a meta function (shape,
// dtype and strides via pointwiseMeta) and a kernel computing in double.
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

/// The dtype a value takes part in type promotion with (a Python number's own kind).
bool isBoolOperand(const Value& v) { return v.isTensor() ? v.t.dtype() == DType::Bool : v.kind == Value::Kind::Bool; }

/// Rounds to the type PyTorch computes `t` in (float for half, bfloat16 and float). Used before
/// discontinuous steps (trunc, floor, comparisons) whose outcome depends on that rounding.
double opmath(double v, DType t) {
    if (t == DType::Float64 || !isFloating(t)) return v;
    return static_cast<double>(static_cast<float>(v));
}

/// Converts v as PyTorch converts a comparison operand to the common dtype.
double castTo(double v, DType t) {
    switch (t) {
    case DType::Float64: return v;
    case DType::Float32: return static_cast<double>(static_cast<float>(v));
    case DType::Int64: return std::isnan(v) ? 0.0 : std::trunc(v);
    default: return roundTo(v, t);
    }
}

DType promoted(const OpArgs& a, std::initializer_list<size_t> idx) {
    std::vector<const Value*> ops;
    for (size_t i : idx) ops.push_back(&a[i]);
    return resultType(ops);
}

// ----- metas ---------------------------------------------------------------------------------

Expected<Value> metaBinary(const OpArgs& a) { return pointwiseMeta(a, {0, 1}); }
Expected<Value> metaUnary(const OpArgs& a) { return pointwiseMeta(a, {0}); }

/// sqrt, exp, ...: integer and bool inputs give the default float dtype.
Expected<Value> metaUnaryFloat(const OpArgs& a) { return pointwiseMeta(a, {0}, toFloatingType(promoted(a, {0}))); }

Expected<Value> metaNeg(const OpArgs& a) {
    if (isBoolOperand(a[0]))
        return opError(a, "negation, the `-` operator, on a bool tensor is not supported; use "
                          "logical_not() to invert a mask");
    return pointwiseMeta(a, {0});
}

/// sub/rsub refuse bool operands, like PyTorch's sub_check.
Expected<Value> metaSub(const OpArgs& a) {
    if (isBoolOperand(a[0]) || isBoolOperand(a[1]))
        return opError(a, "subtraction, the `-` operator, with a bool tensor is not supported; "
                          "use logical_xor() or logical_not() instead");
    return pointwiseMeta(a, {0, 1});
}

/// True division: integer and bool operands give the default float dtype.
Expected<Value> metaDiv(const OpArgs& a) { return pointwiseMeta(a, {0, 1}, toFloatingType(promoted(a, {0, 1}))); }

Expected<Value> metaDivMode(const OpArgs& a) {
    if (a.isNone(2)) return metaDiv(a);
    const std::string& mode = a[2].s;
    if (mode != "trunc" && mode != "floor")
        return opError(a, "rounding_mode must be None, 'trunc' or 'floor', got '" + mode + "'");
    DType t = promoted(a, {0, 1});
    if (t == DType::Bool) return opError(a, "rounding division is not implemented for bool tensors");
    return pointwiseMeta(a, {0, 1}, t);
}

Expected<Value> metaPow(const OpArgs& a) {
    DType t = promoted(a, {0, 1});
    // An integral result only arises from an integral exponent.
    if (isIntegral(t, true) && !a.isTensor(1) && a.toDouble(1) < 0)
        return opError(a, "integers to negative integer powers are not allowed");
    return pointwiseMeta(a, {0, 1}, t == DType::Bool ? DType::Int64 : t);
}

Expected<Value> metaCompare(const OpArgs& a) { return pointwiseMeta(a, {0, 1}, DType::Bool); }
Expected<Value> metaLogicalUnary(const OpArgs& a) { return pointwiseMeta(a, {0}, DType::Bool); }

Expected<Value> metaBitwise(const OpArgs& a) {
    DType t = promoted(a, {0, 1});
    if (!isIntegral(t, true)) return opError(a, "bitwise ops need integer or bool operands, got " + dtName(t));
    return pointwiseMeta(a, {0, 1}, t);
}

Expected<Value> metaBitwiseNot(const OpArgs& a) {
    DType t = promoted(a, {0});
    if (!isIntegral(t, true)) return opError(a, "bitwise_not needs an integer or bool tensor, got " + dtName(t));
    return pointwiseMeta(a, {0}, t);
}

/// clamp promotes with its bounds (an integer tensor clamped to 0.5 becomes float).
Expected<Value> metaClamp(const OpArgs& a) {
    if (a.size() >= 3 && a.isNone(1) && a.isNone(2))
        return opError(a, "at least one of 'min' or 'max' must not be None");
    std::vector<const Value*> ops;
    for (size_t i = 0; i < a.size(); ++i)
        if (!a.isNone(i)) ops.push_back(&a[i]);
    return pointwiseMeta(a, {0}, resultType(ops));
}

/// where: the condition takes part in broadcasting and layout but not in the dtype.
Expected<Value> metaWhere(const OpArgs& a) {
    if (a.isTensor(0) && a.tensor(0).dtype() != DType::Bool && a.tensor(0).dtype() != DType::UInt8)
        return opError(a, "condition must be a bool tensor, got " + dtName(a.tensor(0).dtype()));
    return pointwiseMeta(a, {0, 1, 2}, promoted(a, {1, 2}));
}

/// Non-overlapping and dense: some permutation of the dims is a contiguous layout (size-1
/// dims ignored). Dtype conversion keeps such strides exactly.
bool nonOverlappingAndDense(const TensorMeta& m) {
    if (m.strides.size() != m.shape.size()) return false;
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < m.dim(); ++i)
        if (m.shape[i] >= 2) dims.push_back(i);
    std::sort(dims.begin(), dims.end(), [&](int64_t x, int64_t y) { return m.strides[x] < m.strides[y]; });
    int64_t expected = 1;
    for (int64_t d : dims) {
        if (m.strides[d] != expected) return false;
        expected *= m.shape[d];
    }
    return true;
}

Expected<Value> metaConvert(const OpArgs& a) {
    auto dt = a.toOptDType(1);
    if (!dt) return opError(a, "dtype must be given");
    const TensorMeta& in = a.tensor(0).meta;
    TensorMeta m = in;
    m.dtype = *dt;
    m.offset = 0;
    if (!nonOverlappingAndDense(in)) m.strides = stridesLike(in.shape, in);
    return metaValue(std::move(m));
}

Expected<Value> metaTernary(const OpArgs& a) { return pointwiseMeta(a, {0, 1, 2}); }

// ----- kernels -------------------------------------------------------------------------------

using Unary = double (*)(double);

template <Unary F>
Expected<Value> unaryKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0}, [](const double* x) { return F(x[0]); });
}

double fNeg(double x) { return -x; }
double fSqrt(double x) { return std::sqrt(x); }
double fRsqrt(double x) { return 1.0 / std::sqrt(x); }
double fExp(double x) { return std::exp(x); }
double fLog(double x) { return std::log(x); }
double fAbs(double x) { return std::fabs(x); }
double fReciprocal(double x) { return 1.0 / x; }
double fErf(double x) { return std::erf(x); }
double fLogicalNot(double x) { return x == 0.0 ? 1.0 : 0.0; }
double fIdentity(double x) { return x; }

double alphaOf(const OpArgs& a) { return a.size() > 2 ? a.toDouble(2) : 1.0; }

Expected<Value> addKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double alpha = alphaOf(a);
    return pointwiseKernel(a, out, {0, 1}, [alpha](const double* x) { return x[0] + alpha * x[1]; });
}

Expected<Value> subKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double alpha = alphaOf(a);
    return pointwiseKernel(a, out, {0, 1}, [alpha](const double* x) { return x[0] - alpha * x[1]; });
}

Expected<Value> rsubKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double alpha = alphaOf(a);
    return pointwiseKernel(a, out, {0, 1}, [alpha](const double* x) { return x[1] - alpha * x[0]; });
}

Expected<Value> mulKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) { return x[0] * x[1]; });
}

Expected<Value> divKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) { return x[0] / x[1]; });
}

/// PyTorch's floor division of floats (div_floor_floating): Python semantics, with the
/// quotient rounded to the nearest integer when fmod's remainder made it slightly off.
double floorDivFloat(double x, double y, DType t) {
    if (y == 0.0) return x / y;
    double mod = opmath(std::fmod(x, y), t);
    double div = opmath((x - mod) / y, t);
    if (mod != 0.0 && (y < 0) != (mod < 0)) div -= 1.0;
    if (div == 0.0) return std::copysign(0.0, x / y);
    double fl = std::floor(div);
    if (div - fl > 0.5) fl += 1.0;
    return fl;
}

bool hasZero(const Value& v) {
    if (!v.isTensor()) return v.toDouble() == 0.0;
    for (double x : toDoubles(v.t))
        if (x == 0.0) return true;
    return false;
}

Expected<Value> divModeKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    if (a.isNone(2)) return divKernel(a, out, ctx);
    const bool floor = a[2].s == "floor";
    const DType t = out.t.dtype();
    if (isIntegral(t, false)) {
        if (hasZero(a[1])) return opError(a, "integer division by zero");
        return pointwiseKernel(a, out, {0, 1}, [floor](const double* x) {
            const int64_t n = static_cast<int64_t>(x[0]), d = static_cast<int64_t>(x[1]);
            int64_t q = n / d;  // C++ truncates
            if (floor && (n % d != 0) && ((n < 0) != (d < 0))) --q;
            return static_cast<double>(q);
        });
    }
    if (floor) return pointwiseKernel(a, out, {0, 1}, [t](const double* x) { return floorDivFloat(x[0], x[1], t); });
    return pointwiseKernel(a, out, {0, 1}, [t](const double* x) { return std::trunc(opmath(x[0] / x[1], t)); });
}

/// Integer power with two's-complement wraparound, as integer tensors overflow in PyTorch.
double intPow(double base, double exp) {
    int64_t b = static_cast<int64_t>(base), e = static_cast<int64_t>(exp);
    if (e < 0) {
        if (b == 1) return 1.0;
        if (b == -1) return (e % 2 == 0) ? 1.0 : -1.0;
        return 0.0;
    }
    uint64_t result = 1, ub = static_cast<uint64_t>(b);
    while (e > 0) {
        if (e & 1) result *= ub;
        ub *= ub;
        e >>= 1;
    }
    return static_cast<double>(static_cast<int64_t>(result));
}

Expected<Value> powKernel(const OpArgs& a, const Value& out, ExecContext&) {
    if (isIntegral(out.t.dtype(), true))
        return pointwiseKernel(a, out, {0, 1}, [](const double* x) { return intPow(x[0], x[1]); });
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) { return std::pow(x[0], x[1]); });
}

enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

/// Comparisons happen in the operands' promoted dtype (a half tensor equals the Python float
/// 0.1 when 0.1 rounds to the same half).
template <Cmp C>
Expected<Value> compareKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const DType ct = promoted(a, {0, 1});
    return pointwiseKernel(a, out, {0, 1}, [ct](const double* x) {
        const double l = castTo(x[0], ct), r = castTo(x[1], ct);
        bool res = false;
        switch (C) {
        case Cmp::Eq: res = l == r; break;
        case Cmp::Ne: res = l != r; break;
        case Cmp::Lt: res = l < r; break;
        case Cmp::Le: res = l <= r; break;
        case Cmp::Gt: res = l > r; break;
        case Cmp::Ge: res = l >= r; break;
        }
        return res ? 1.0 : 0.0;
    });
}

Expected<Value> logicalAndKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) { return (x[0] != 0.0 && x[1] != 0.0) ? 1.0 : 0.0; });
}

Expected<Value> bitwiseAndKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) {
        return static_cast<double>(static_cast<int64_t>(x[0]) & static_cast<int64_t>(x[1]));
    });
}

Expected<Value> bitwiseOrKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) {
        return static_cast<double>(static_cast<int64_t>(x[0]) | static_cast<int64_t>(x[1]));
    });
}

Expected<Value> bitwiseNotKernel(const OpArgs& a, const Value& out, ExecContext&) {
    if (out.t.dtype() == DType::Bool)
        return pointwiseKernel(a, out, {0}, [](const double* x) { return x[0] != 0.0 ? 0.0 : 1.0; });
    return pointwiseKernel(a, out, {0},
                           [](const double* x) { return static_cast<double>(~static_cast<int64_t>(x[0])); });
}

/// NaN in the input stays NaN, as in PyTorch's clamp kernels; a NaN bound makes every element
/// NaN (ATen's clamp_out fills the result with NaN then).
double clampValue(double x, bool hasLo, double lo, bool hasHi, double hi) {
    if ((hasLo && std::isnan(lo)) || (hasHi && std::isnan(hi))) return std::nan("");
    if (std::isnan(x)) return x;
    if (hasLo && x < lo) x = lo;
    if (hasHi && x > hi) x = hi;
    return x;
}

Expected<Value> clampKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const bool hasLo = !a.isNone(1), hasHi = !a.isNone(2);
    const double lo = hasLo ? a.toDouble(1) : 0.0, hi = hasHi ? a.toDouble(2) : 0.0;
    return pointwiseKernel(a, out, {0}, [=](const double* x) { return clampValue(x[0], hasLo, lo, hasHi, hi); });
}

Expected<Value> clampMinKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double lo = a.toDouble(1);
    return pointwiseKernel(a, out, {0}, [lo](const double* x) { return clampValue(x[0], true, lo, false, 0.0); });
}

Expected<Value> clampMaxKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double hi = a.toDouble(1);
    return pointwiseKernel(a, out, {0}, [hi](const double* x) { return clampValue(x[0], false, 0.0, true, hi); });
}

Expected<Value> maximumKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) {
        if (std::isnan(x[0]) || std::isnan(x[1])) return std::nan("");
        return x[0] > x[1] ? x[0] : x[1];
    });
}

Expected<Value> minimumKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) {
        if (std::isnan(x[0]) || std::isnan(x[1])) return std::nan("");
        return x[0] < x[1] ? x[0] : x[1];
    });
}

Expected<Value> whereKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1, 2}, [](const double* x) { return x[0] != 0.0 ? x[1] : x[2]; });
}

Expected<Value> fmaKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1, 2}, [](const double* x) { return x[0] * x[1] + x[2]; });
}

}  // namespace

void registerPointwiseOps(OpRegistry& r) {
    constexpr auto PW = OpCategory::Pointwise;
    // Arithmetic
    r.add("aten.add.Tensor", "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", PW, metaBinary,
          addKernel);
    r.add("aten.add.Scalar", "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", PW, metaBinary,
          addKernel);
    r.add("aten.sub.Tensor", "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", PW, metaSub,
          subKernel);
    r.add("aten.sub.Scalar", "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", PW, metaSub, subKernel);
    r.add("aten.rsub.Scalar", "rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", PW, metaSub,
          rsubKernel);
    r.add("aten.rsub.Tensor", "rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", PW, metaSub,
          rsubKernel);
    r.add("aten.mul.Tensor", "mul.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaBinary, mulKernel);
    r.add("aten.mul.Scalar", "mul.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaBinary, mulKernel);
    r.add("aten.div.Tensor", "div.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaDiv, divKernel);
    r.add("aten.div.Scalar", "div.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaDiv, divKernel);
    r.add("aten.div.Tensor_mode", "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", PW,
          metaDivMode, divModeKernel);
    r.add("aten.div.Scalar_mode", "div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor", PW,
          metaDivMode, divModeKernel);
    r.add("aten.neg.default", "neg(Tensor self) -> Tensor", PW, metaNeg, unaryKernel<fNeg>);
    r.add("aten.pow.Tensor_Scalar", "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", PW, metaPow,
          powKernel);
    r.add("aten.pow.Tensor_Tensor", "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", PW, metaPow,
          powKernel);
    r.add("prims.fma.default", "fma(Tensor a, Tensor b, Tensor c) -> Tensor", PW, metaTernary, fmaKernel);

    // Unary math
    r.add("aten.sqrt.default", "sqrt(Tensor self) -> Tensor", PW, metaUnaryFloat, unaryKernel<fSqrt>);
    r.add("aten.rsqrt.default", "rsqrt(Tensor self) -> Tensor", PW, metaUnaryFloat, unaryKernel<fRsqrt>);
    r.add("aten.exp.default", "exp(Tensor self) -> Tensor", PW, metaUnaryFloat, unaryKernel<fExp>);
    r.add("aten.log.default", "log(Tensor self) -> Tensor", PW, metaUnaryFloat, unaryKernel<fLog>);
    r.add("aten.abs.default", "abs(Tensor self) -> Tensor", PW, metaUnary, unaryKernel<fAbs>);
    r.add("aten.reciprocal.default", "reciprocal(Tensor self) -> Tensor", PW, metaUnaryFloat, unaryKernel<fReciprocal>);
    r.add("aten.erf.default", "erf(Tensor self) -> Tensor", PW, metaUnaryFloat, unaryKernel<fErf>);

    // Clamping and selection
    r.add("aten.clamp_min.default", "clamp_min(Tensor self, Scalar min) -> Tensor", PW, metaClamp, clampMinKernel);
    r.add("aten.clamp_max.default", "clamp_max(Tensor self, Scalar max) -> Tensor", PW, metaClamp, clampMaxKernel);
    r.add("aten.clamp.default", "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", PW, metaClamp,
          clampKernel);
    r.add("aten.maximum.default", "maximum(Tensor self, Tensor other) -> Tensor", PW, metaBinary, maximumKernel);
    r.add("aten.minimum.default", "minimum(Tensor self, Tensor other) -> Tensor", PW, metaBinary, minimumKernel);
    // torch.max(a, b) / torch.min(a, b): maximum and minimum under another name.
    r.add("aten.max.other", "max.other(Tensor self, Tensor other) -> Tensor", PW, metaBinary, maximumKernel);
    r.add("aten.min.other", "min.other(Tensor self, Tensor other) -> Tensor", PW, metaBinary, minimumKernel);
    r.add("aten.where.self", "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", PW, metaWhere,
          whereKernel);
    r.add("aten.where.ScalarOther", "where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor", PW,
          metaWhere, whereKernel);
    r.add("aten.where.ScalarSelf", "where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor", PW,
          metaWhere, whereKernel);
    r.add("aten.where.Scalar", "where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor", PW, metaWhere,
          whereKernel);

    // Comparisons (bool results)
    r.add("aten.eq.Tensor", "eq.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaCompare, compareKernel<Cmp::Eq>);
    r.add("aten.eq.Scalar", "eq.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaCompare, compareKernel<Cmp::Eq>);
    r.add("aten.ne.Tensor", "ne.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaCompare, compareKernel<Cmp::Ne>);
    r.add("aten.ne.Scalar", "ne.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaCompare, compareKernel<Cmp::Ne>);
    r.add("aten.lt.Tensor", "lt.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaCompare, compareKernel<Cmp::Lt>);
    r.add("aten.lt.Scalar", "lt.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaCompare, compareKernel<Cmp::Lt>);
    r.add("aten.le.Tensor", "le.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaCompare, compareKernel<Cmp::Le>);
    r.add("aten.le.Scalar", "le.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaCompare, compareKernel<Cmp::Le>);
    r.add("aten.gt.Tensor", "gt.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaCompare, compareKernel<Cmp::Gt>);
    r.add("aten.gt.Scalar", "gt.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaCompare, compareKernel<Cmp::Gt>);
    r.add("aten.ge.Tensor", "ge.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaCompare, compareKernel<Cmp::Ge>);
    r.add("aten.ge.Scalar", "ge.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaCompare, compareKernel<Cmp::Ge>);

    // Logical and bitwise
    r.add("aten.logical_not.default", "logical_not(Tensor self) -> Tensor", PW, metaLogicalUnary,
          unaryKernel<fLogicalNot>);
    r.add("aten.logical_and.default", "logical_and(Tensor self, Tensor other) -> Tensor", PW, metaCompare,
          logicalAndKernel);
    r.add("aten.bitwise_and.Tensor", "bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaBitwise,
          bitwiseAndKernel);
    r.add("aten.bitwise_or.Tensor", "bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor", PW, metaBitwise,
          bitwiseOrKernel);
    // The Scalar forms (x & 1, mask | True): core ATen ops of their own.
    r.add("aten.bitwise_and.Scalar", "bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaBitwise,
          bitwiseAndKernel);
    r.add("aten.bitwise_or.Scalar", "bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor", PW, metaBitwise,
          bitwiseOrKernel);
    r.add("aten.bitwise_not.default", "bitwise_not(Tensor self) -> Tensor", PW, metaBitwiseNot, bitwiseNotKernel);

    // Dtype conversion: values convert once (float -> int truncates, like a C cast).
    r.add("prims.convert_element_type.default", "convert_element_type(Tensor a, ScalarType dtype) -> Tensor", PW,
          metaConvert, unaryKernel<fIdentity>);
}

}  // namespace fxray
