#pragma once
/// Pieces shared by the two device attention paths (device_attention.cpp: the fused kernels;
/// attention_gemm.cpp: cuBLAS around row kernels for short sequences): the kernel module, the
/// argument block built from the operands' layouts, and small buffer helpers.
#include "codegen/cuda/device_attention.h"
#include "codegen/cuda/device_ops.h"
#include "codegen/cuda/kernel_module.h"
#include "codegen/cuda/kernels/attention_args.h"

#include <initializer_list>
#include <optional>

namespace fxray::cg::cuda::attn {

KernelModule& attentionModule();
/// "f32", "f16", "bf16": the kernels' name suffix for a storage type.
const char* suffix(DType t);
/// The head-dim bucket a fused kernel instance is compiled for; 0 when the dims exceed them all.
int headBucket(int64_t K, int64_t Kv);
CUdeviceptr bytePtr(const DeviceView& v, int64_t elemOffset = 0);
void strides4(const TensorMeta& m, long long (&s)[4]);
/// Strides that read a tensor broadcast to `full` (4-D): 0 along dims it lacks or has as 1.
bool broadcastStrides(const TensorMeta& m, const int64_t (&full)[4], long long (&s)[4]);
/// q [B,H,M,K], k [B,H,N,K], v [B,H,N,Kv], out [B,H,M,Kv]; the bias broadcasts to [B,H,M,N].
Expected<FxAttnArgs> argsOf(const TensorMeta& q, const TensorMeta& k, const TensorMeta& v, const TensorMeta* bias,
                            const TensorMeta& out, double scale, CausalMask causal);
/// A device buffer of `bytes` (at least 4) set to zero.
Expected<DeviceBuffer> zeroed(size_t bytes);
/// dst (any strides, its dtype) = dense fp32 src of the same shape (at most 4-D).
Status castInto(CUdeviceptr src, const DeviceView& dst);
bool sameDtype(DType t, std::initializer_list<const DeviceView*> vs);
/// The forward's optional logsumexp output (dense fp32 [B, H, rows]) checked against `a`; sets
/// a.lseLen and returns its address (0: none asked for).
Expected<CUdeviceptr> forwardLse(const std::optional<DeviceView>& lse, FxAttnArgs& a);
/// The backward's logsumexp input (dense fp32 [B, H, >= rows]) checked against `a`; sets a.lseLen.
Status backwardLse(const DeviceView& lse, FxAttnArgs& a);

}  // namespace fxray::cg::cuda::attn
