#pragma once
/// Comparing tensor metadata when sizes may be symbolic. `a.shape == b.shape` compares the numbers
/// alone, and a symbolic dimension has none (TensorMeta::kUnboundSize), so it says "[s0, 64]
/// equals [s1, 64]": wrong, and a pass that trusts it fires where PyTorch's
/// `statically_known_true(sym_eq(...))` would not. These compare dimension by dimension, a
/// symbolic one by its parsed expression (SymInt equality): the same expression is the same size;
/// different expressions count as different (conservative: a pass then does not fire).
#include "ir/tensor_meta.h"

#include <string>

namespace fxray {

/// Size i as a text for comparing: the canonical text of its expression, or the number.
std::string sizeText(const TensorMeta& m, size_t i);
/// Stride i likewise ("" when strides are not known).
std::string strideText(const TensorMeta& m, size_t i);
/// Same rank and, per dimension, the same number or the same symbolic expression.
bool sameSizes(const TensorMeta& a, const TensorMeta& b);
/// Same rank and the same strides (numbers or expressions); false when either is not known.
bool sameStrides(const TensorMeta& a, const TensorMeta& b);
/// Every size is known statically (no symbolic dimension).
inline bool staticSizes(const TensorMeta& m) { return !m.hasSymbolicSizes(); }

}  // namespace fxray
