#pragma once
/// Attention for short sequences on fp32: S = scale Q Kᵀ and the products with P by cuBLAS (at
/// ~60% of the fp32 peak on an H100), the row-wise softmax and its backward by small kernels
/// (kernels/attention.cu), S in a [B*H, M, N] fp32 workspace. Where that workspace is small the
/// GEMMs beat the fused kernel by 3-7x at fp32 without tensor cores (ViT-S: 197 tokens); the
/// fused kernel takes every other size, so memory stays O(M + N) where it matters. fp32 with head
/// dims up to 64 on sm_80+ takes the tensor-core kernels before either (attention_tc.h).
/// FXRAY_ATTENTION=tc|fused|gemm forces one path (gemm still only up to 2 GiB of workspace).
#include "codegen/cuda/device_attention.h"
#include "codegen/cuda/device_ops.h"

#include <optional>

namespace fxray::cg::cuda {

/// True when attention with these operands takes the GEMM path.
bool attentionUsesGemm(const TensorMeta& q, const TensorMeta& k);

Status attentionForwardGemm(const DeviceView& q, const DeviceView& k, const DeviceView& v,
                            const std::optional<DeviceView>& bias, const DeviceView& out,
                            const std::optional<DeviceView>& lse, double scale, CausalMask causal);

Status attentionBackwardGemm(const DeviceView& gradOut, const DeviceView& q, const DeviceView& k, const DeviceView& v,
                             const std::optional<DeviceView>& bias, const DeviceView& out, const DeviceView& lse,
                             double scale, CausalMask causal, const std::optional<DeviceView>& gq,
                             const std::optional<DeviceView>& gk, const std::optional<DeviceView>& gv,
                             const std::optional<DeviceView>& gbias);

}  // namespace fxray::cg::cuda
