#pragma once
/// Comparing tensor metadata when sizes may be symbolic. A symbolic dimension reads -1 in
/// TensorMeta::shape, so `a.shape == b.shape` says "[s0, 64] equals [s1, 64]": wrong, and a pass
/// that trusts it fires where PyTorch's `statically_known_true(sym_eq(...))` would not. These
/// compare dimension by dimension, a symbolic one by its expression text: equal texts are equal
/// sizes; different texts count as different (conservative: a pass then does not fire).
#include "ir/tensor_meta.h"

#include <string>

namespace fxray {

/// Size i as text: its symbolic expression, or the number.
std::string sizeText(const TensorMeta& m, size_t i);
/// Stride i as text, likewise ("" when strides are not known).
std::string strideText(const TensorMeta& m, size_t i);
/// Same rank and, per dimension, the same number or the same symbolic expression.
bool sameSizes(const TensorMeta& a, const TensorMeta& b);
/// Same rank and the same strides (numbers or expressions); false when either is not known.
bool sameStrides(const TensorMeta& a, const TensorMeta& b);
/// Every size is known statically (no symbolic dimension).
inline bool staticSizes(const TensorMeta& m) {
    for (const auto& s : m.symShape)
        if (!s.empty()) return false;
    return true;
}

}  // namespace fxray
