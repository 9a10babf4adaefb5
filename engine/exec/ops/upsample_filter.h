#pragma once
/// The antialiased bilinear filter (_upsample_bilinear2d_aa) of one spatial dim, as the reference
/// kernel applies it (exec/ops/upsample.cpp), for the backends' separable passes: the CPU extern
/// (codegen/cpu/extern_upsample_aa.cpp) and the device's banded kernels
/// (codegen/cuda/sampling_kernels.cpp) take the same weights rather than each computing them.
#include <cstdint>
#include <optional>
#include <vector>

namespace fxray::kern {

/// Dense [out, in] weights: row o holds output position o's normalised triangle taps (ATen's
/// _compute_indices_weights_aa), zero elsewhere.
std::vector<double> aaFilterMatrix(int64_t in, int64_t out, bool alignCorners, std::optional<double> scale);

}  // namespace fxray::kern
