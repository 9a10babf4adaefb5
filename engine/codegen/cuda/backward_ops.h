#pragma once
/// Device kernels for backward ops Inductor runs as fallback kernels or that fxray does not
/// decompose (kernels/backward_ops.cu, a module of its own compiled by NVRTC on first use): the
/// margin losses' backwards, _pdist_backward, native_group_norm_backward and
/// _fused_rms_norm_backward, each as the CPU backend's extern (codegen/cpu/extern_backward_ops.cpp)
/// computes it. fp32/fp64; outputs dense; the device externs (device_externs_backward.cpp) check
/// shapes before calling.
#include "codegen/cuda/device_ops.h"

#include <optional>
#include <string>

namespace fxray::cg::cuda {

/// The module's source (CI compiles it with NVRTC without a device).
Expected<std::string> backwardOpsSource();

/// True when these kernels handle this dtype.
bool backwardOpsSupport(DType t);
/// native_group_norm_backward also in fp16 / bf16 (its statistics are in the input's dtype).
bool groupNormBackwardSupports(DType t);

/// embedding_dense_backward of fp16 / bf16 gradients (grad [..., D], int32/int64 indices, dense
/// [num, D] output of grad's dtype): summed in fp32, rounded once, as PyTorch's kernel. No
/// scale_grad_by_freq (the caller declines it).
bool halfEmbeddingBackwardSupports(DType t);
Status embeddingBackwardHalf(const DeviceView& grad, const DeviceView& indices, const DeviceView& out,
                             int64_t paddingIdx);

/// The backward of max pooling with indices (3-D, adaptive, fractional; the last `spatialDims`
/// dims flat) over fp16 / bf16: gy and gx of one half type, gx dense, int64 indices of gy's
/// size. Summed in fp32 and rounded once.
Status maxPoolBackwardHalf(const DeviceView& gy, const DeviceView& indices, const DeviceView& gx, size_t spatialDims);

/// Training-mode batch norm and native_batch_norm_backward over fp16 / bf16 activations (dense
/// or densified [N, C, ...]; y / grad_input dense of x's dtype). The per-channel tensors (weight,
/// bias, running and saved statistics, weight / bias gradients) are dense [C] of any float dtype:
/// a bf16 model's graph saves fp32 statistics. Statistics in double. nrm / nrv (the updated
/// running statistics, absent without running statistics) may be rm / rv themselves.
bool halfBatchNormSupports(DType x);
Status batchNormTrainHalf(const DeviceView& x, const std::optional<DeviceView>& w, const std::optional<DeviceView>& b,
                          const std::optional<DeviceView>& rm, const std::optional<DeviceView>& rv, const DeviceView& y,
                          const DeviceView& mean, const DeviceView& invstd, const std::optional<DeviceView>& nrm,
                          const std::optional<DeviceView>& nrv, double momentum, double eps);
Status batchNormBackwardHalf(const DeviceView& gy, const DeviceView& x, const std::optional<DeviceView>& w,
                             const std::optional<DeviceView>& rm, const std::optional<DeviceView>& rv,
                             const std::optional<DeviceView>& mean, const std::optional<DeviceView>& invstd,
                             bool train, double eps, const std::optional<DeviceView>& gx,
                             const std::optional<DeviceView>& gw, const std::optional<DeviceView>& gb);

/// multi_margin_loss_backward over x [rows, dim] (targets int64 [rows], weight [dim] optional,
/// grad_output one value or [rows]); reduction 1 is mean.
Status multiMarginBackward(const DeviceView& go, const DeviceView& x, const DeviceView& target,
                           const std::optional<DeviceView>& weight, double p, double margin, int64_t reduction,
                           int64_t rows, int64_t dim, const DeviceView& gx);

/// multilabel_margin_loss_backward over x [rows, dim] (targets int64 and is_target alike).
Status multilabelMarginBackward(const DeviceView& go, const DeviceView& x, const DeviceView& target,
                                const DeviceView& isTarget, int64_t reduction, int64_t rows, int64_t dim,
                                const DeviceView& gx);

/// _pdist_backward for x [n, m] from grad and pdist [n (n - 1) / 2].
Status pdistBackward(const DeviceView& grad, const DeviceView& x, double p, const DeviceView& dist,
                     const DeviceView& gx);

/// native_group_norm_backward: x [N, C, HxW...], mean / rstd [N, G], weight [C] optional.
Status groupNormBackward(const DeviceView& dy, const DeviceView& x, const DeviceView& mean, const DeviceView& rstd,
                         const std::optional<DeviceView>& weight, int64_t N, int64_t C, int64_t HxW, int64_t G,
                         const std::optional<DeviceView>& gi, const std::optional<DeviceView>& gw,
                         const std::optional<DeviceView>& gb);

/// _fused_rms_norm_backward over rows of n normalised values: rstd one per row, weight [n] optional.
Status rmsNormBackward(const DeviceView& dy, const DeviceView& x, int64_t n, const DeviceView& rstd,
                       const std::optional<DeviceView>& weight, const std::optional<DeviceView>& gi,
                       const std::optional<DeviceView>& gw);

}  // namespace fxray::cg::cuda
