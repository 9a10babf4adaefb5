#pragma once
/// Small helpers shared by the unary math, special-function and extra activation op files
/// (math.cpp, math_special.cpp, activation_extra.cpp).
#include "exec/ops/kernel_util.h"

#include <string>
#include <vector>

namespace fxray::kern::mathops {

/// torch's name of a dtype ("float32").
inline std::string dtName(DType t) { return std::string(dtypeTorchName(t)); }

/// torch.result_type over the operands at `idx`.
inline DType promotedOf(const OpArgs& a, const std::vector<size_t>& idx) {
    std::vector<const Value*> ops;
    for (size_t i : idx) ops.push_back(&a[i]);
    return resultType(ops);
}

/// Rounds v to the type PyTorch's kernels compute dtype t in (float for half, bfloat16 and
/// float, double for double). Used where an intermediate rounding decides a discontinuous step
/// (round to nearest, comparisons).
inline double opmathRound(double v, DType t) {
    if (t == DType::Float64 || !isFloating(t)) return v;
    return static_cast<double>(static_cast<float>(v));
}

/// Unary ops that compute in floating point (sin, exp2, digamma, ...): integer and bool inputs
/// give the default float dtype.
inline Expected<Value> unaryFloatMeta(const OpArgs& a) {
    return pointwiseMeta(a, {0}, toFloatingType(promotedOf(a, {0})));
}

/// Pointwise ops whose PyTorch kernels exist only for floating dtypes (hardswish, frac, ...).
inline Expected<Value> floatOnlyMeta(const OpArgs& a, const std::vector<size_t>& idx) {
    DType t = promotedOf(a, idx);
    if (!isFloating(t)) return opError(a, "not implemented for " + dtName(t) + " (floating point only)");
    return pointwiseMeta(a, idx, t);
}

/// Fails for complex inputs, which fxray has no kernels for.
inline std::optional<Diagnostic> rejectComplex(const OpArgs& a, size_t i) {
    if (a.isTensor(i) && isComplex(a.tensor(i).dtype()))
        return opError(a, "complex tensors are not supported by fxray's reference kernels");
    return std::nullopt;
}

}  // namespace fxray::kern::mathops
