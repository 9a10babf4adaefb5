#pragma once
/// The reduction argument shared by the loss ops (loss.cpp, class_loss.cpp).
#include "exec/ops/kernel_util.h"

#include <string>

namespace fxray::kern {

/// at::Reduction: 0 none, 1 mean, 2 sum.
enum class LossReduction { None, Mean, Sum };

/// Reads the reduction argument at position i; other values are an error.
inline Expected<LossReduction> lossReduction(const OpArgs& a, size_t i) {
    const int64_t r = a.toInt(i);
    if (r < 0 || r > 2) return opError(a, std::to_string(r) + " is not a valid value for reduction");
    return static_cast<LossReduction>(r);
}

}  // namespace fxray::kern
