#pragma once
/// Fused attention on the device (kernels/attention.cu, flash-attention style): the forward and
/// backward of `_scaled_dot_product_efficient_attention`, `_efficient_attention_forward` /
/// `_efficient_attention_backward` (on BHMK views of their BMHK tensors), cuDNN's
/// `_scaled_dot_product_cudnn_attention` and the composite `scaled_dot_product_attention`, at
/// any sequence length, without an M x N matrix in global memory. Layouts follow PyTorch's meta
/// functions: q/k/v/out are 4-D [B, H, rows, dims] views with any strides, the bias broadcasts to
/// [B, H, M, N], logsumexp is dense fp32 [B, H, >= M] (the memory-efficient ops pad it to a
/// multiple of 32 with +inf; cuDNN's [B, H, M, 1] is read as [B, H, M]). fp32 with head dims up to 64 runs on the tensor-core
/// kernels on sm_80+ (attention_tc.h), other fp32 with short sequences on cuBLAS (attention_gemm.h).
#include "codegen/cuda/device_ops.h"

#include <optional>
#include <string>

namespace fxray::cg::cuda {

/// Which keys a query row sees: all, or (on) the keys n <= m + shift for row m. shift 0 is the
/// top-left causal mask (SDPA's is_causal); N - M the bottom-right one (_efficient_attention_forward's
/// custom_mask_type 2), where rows m < M - N see no key: their output is 0 and their logsumexp 0, as
/// PyTorch's memory-efficient kernel writes them (kernel_forward.h, epilogue_rescale_output.h).
struct CausalMask {
    bool on = false;
    int64_t shift = 0;
};
inline CausalMask topLeftCausal(bool on) { return {on, 0}; }
/// q with M rows, k with N: the last query row sees every key.
inline CausalMask bottomRightCausal(int64_t M, int64_t N) { return {true, N - M}; }

/// The kernels' CUDA source as NVRTC compiles it (CI compiles it without a device).
Expected<std::string> attentionSource();

/// True when the attention kernels handle this dtype (f32, f16, bf16).
bool attentionSupports(DType t);

/// True when the kernels take these operands (4-D, matching heads, head dims <= 256, a bias of
/// their dtype that broadcasts); otherwise the host runs the op.
bool attentionHandles(const TensorMeta& q, const TensorMeta& k, const TensorMeta& v, const TensorMeta* bias,
                      const TensorMeta& out);

/// out = softmax(scale q kᵀ + bias, causal mask) v; lse (if given) the rows' logsumexp.
Status attentionForward(const DeviceView& q, const DeviceView& k, const DeviceView& v,
                        const std::optional<DeviceView>& bias, const DeviceView& out,
                        const std::optional<DeviceView>& lse, double scale, CausalMask causal);

/// The gradients of q, k, v and the bias (absent ones are not computed) from grad_out, the
/// forward's out and logsumexp.
Status attentionBackward(const DeviceView& gradOut, const DeviceView& q, const DeviceView& k, const DeviceView& v,
                         const std::optional<DeviceView>& bias, const DeviceView& out, const DeviceView& lse,
                         double scale, CausalMask causal, const std::optional<DeviceView>& gq,
                         const std::optional<DeviceView>& gk, const std::optional<DeviceView>& gv,
                         const std::optional<DeviceView>& gbias);

}  // namespace fxray::cg::cuda
