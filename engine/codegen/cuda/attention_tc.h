#pragma once
/// fp32 attention on tensor cores (kernels/attention_tc.cu): the fused flash-attention forward
/// with 3xTF32 mma.sync products, about fp32's accuracy at tensor-core speed, as PyTorch's own
/// fp32 kernel does on sm_80+. Head dims up to 64; other shapes, older GPUs and other dtypes keep
/// the SIMT fused kernels or the cuBLAS path (attention_gemm.h).
/// FXRAY_ATTENTION=tc|fused|gemm forces a path (tc where it applies, the others as before).
#include "codegen/cuda/device_ops.h"

#include <optional>

namespace fxray::cg::cuda {

/// True when the forward with these operands runs on the tensor-core kernel.
bool attentionUsesTensorCores(const TensorMeta& q, const TensorMeta& k, const TensorMeta& v);

Status attentionForwardTc(const DeviceView& q, const DeviceView& k, const DeviceView& v,
                          const std::optional<DeviceView>& bias, const DeviceView& out,
                          const std::optional<DeviceView>& lse, double scale, bool causal);

}  // namespace fxray::cg::cuda
