#pragma once
/// Fused attention ops (attention.cpp): `_scaled_dot_product_efficient_attention`, its backward,
/// and the composite `scaled_dot_product_attention`.
#include <cstdint>

namespace fxray {

class OpRegistry;

/// Keep-mask of the in-kernel dropout of the fused attention ops: element `idx` (row-major over
/// [B, H, M, N]) is kept with probability 1 - p, from a splitmix64 hash of seed, offset and
/// index. Shared with the compiled backends so that forward and backward agree on every backend.
bool attentionDropoutKeep(uint64_t seed, uint64_t offset, uint64_t idx, double p);

/// Adds the attention ops to r (called by registerAllOps).
void registerAttentionOps(OpRegistry& r);

}  // namespace fxray
