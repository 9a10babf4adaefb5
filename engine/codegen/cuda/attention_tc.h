#pragma once
/// fp32 attention on tensor cores (kernels/attention_tc.cu): the fused flash-attention forward
/// and backward with 3xTF32 mma.sync products, about fp32's accuracy at tensor-core speed, as
/// PyTorch's own fp32 kernel does on sm_80+. Head dims up to 64 by default; kernels for head dim
/// 128 (the dims from 65 padded with zeros) run when forced, as they are slower than the other
/// paths for now. Other shapes, older GPUs and other dtypes keep the SIMT fused kernels or the
/// cuBLAS path (attention_gemm.h). FXRAY_ATTENTION=tc|fused|gemm forces a path (tc where it
/// applies, up to head dim 128, the others as before); tc32 is tc with head dim 64's backward
/// taking 32 query rows a step in place of 16 (tc16: the default, named).
#include "codegen/cuda/device_attention.h"
#include "codegen/cuda/device_ops.h"
#include "codegen/cuda/kernels/attention_args.h"

#include <optional>

namespace fxray::cg::cuda {

/// True when attention with these operands runs on the tensor-core kernels (forward and backward).
bool attentionUsesTensorCores(const TensorMeta& q, const TensorMeta& k, const TensorMeta& v);

Status attentionForwardTc(const DeviceView& q, const DeviceView& k, const DeviceView& v,
                          const std::optional<DeviceView>& bias, const DeviceView& out,
                          const std::optional<DeviceView>& lse, double scale, CausalMask causal);

/// The backward (attentionBackward's setup, this kernel in place of the SIMT one): keys per block,
/// and for the operands' head dims the kernel with its dynamic shared memory allowed, and that
/// memory's size.
constexpr int64_t kTcBackwardKeys = 64;
struct TcBackward {
    CUfunction fn;
    unsigned sharedBytes;
};
Expected<TcBackward> tcBackwardKernel(const FxAttnArgs& a);

}  // namespace fxray::cg::cuda
