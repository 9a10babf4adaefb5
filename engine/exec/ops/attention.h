#pragma once
/// Fused attention ops (attention.cpp): `_scaled_dot_product_efficient_attention`, its backward,
/// and the composite `scaled_dot_product_attention`.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace fxray {

class OpRegistry;

/// Keep-mask of the in-kernel dropout of the fused attention ops: element `idx` (row-major over
/// [B, H, M, N]) is kept with probability 1 - p, from a splitmix64 hash of seed, offset and
/// index. Shared with the compiled backends so that forward and backward agree on every backend.
bool attentionDropoutKeep(uint64_t seed, uint64_t offset, uint64_t idx, double p);

/// Grouped-query attention (`enable_gqa=True`): key or value rows [B, Hk, S, D] (row-major, SD
/// = S * D values per head) as [B, H, S, D], head h reading key head h / (H / Hk), as
/// repeat_interleave over the heads does. H must be a multiple of Hk.
template <class T>
std::vector<T> repeatKvHeads(const std::vector<T>& x, int64_t B, int64_t Hk, int64_t H, int64_t SD) {
    if (Hk == H) return x;
    std::vector<T> out(static_cast<size_t>(B * H * SD));
    const int64_t group = H / Hk;
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h) {
            const T* from = x.data() + (b * Hk + h / group) * SD;
            std::copy(from, from + SD, out.data() + (b * H + h) * SD);
        }
    return out;
}

/// Adds the attention ops to r (called by registerAllOps).
void registerAttentionOps(OpRegistry& r);

}  // namespace fxray
