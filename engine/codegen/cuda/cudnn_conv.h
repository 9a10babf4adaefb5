#pragma once
/// aten.convolution and aten.convolution_backward on the device through cuDNN (cudnn_api.h):
/// what PyTorch itself runs for these ops on CUDA, so fxray's convolutions run at cuDNN's speed
/// and agree with PyTorch's recorded outputs to cuDNN's rounding. fp32 and fp64 run with FMA
/// math only (PyTorch's `allow_tf32 = False`, the recorded corpus's setting); fp16 and bf16 may
/// use tensor cores with fp32 accumulation, as PyTorch's defaults do.
///
/// Algorithms are chosen once per problem (shape, layout, parameters, dtype) by timing cuDNN's
/// candidates on the real buffers (`cudnnFind*AlgorithmEx`, PyTorch's `cudnn.benchmark`), and
/// cached for the process. Operands that are not dense row-major (NCHW) are copied dense first.
/// 1-D convolutions run as 2-D ones with a unit height, as in PyTorch.
#include "codegen/cuda/device_ops.h"

#include <optional>
#include <vector>

namespace fxray::cg::cuda {

/// True when cuDNN is loaded and handles convolutions of this dtype (f32, f64, f16, bf16), and
/// FXRAY_CUDNN_CONV=0 does not send convolutions to the direct kernels (builtin_kernels.h).
bool cudnnConvSupports(DType t);

/// y = conv(x, w) + bias (not transposed; 1 to 3 spatial dims; any strides, padding, dilation,
/// groups). x, w, y (and bias) share y's dtype.
Status cudnnConvForward(const DeviceView& x, const DeviceView& w, const std::optional<DeviceView>& bias,
                        const DeviceView& y, const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                        const std::vector<int64_t>& dilation, int64_t groups);

/// convolution_backward's gradients of the input, weight and bias; an absent one is not computed.
Status cudnnConvBackward(const DeviceView& gy, const DeviceView& x, const DeviceView& w,
                         const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gw,
                         const std::optional<DeviceView>& gb, const std::vector<int64_t>& stride,
                         const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, int64_t groups);

/// y = conv_transpose(x, w) + bias, w as [C_in, C_out/G, k...]: the backward-data pass of the
/// convolution that maps y-shaped tensors to x-shaped ones, as PyTorch runs it on cuDNN. The
/// output padding is implied by y's shape. Without an algorithm for the problem the caller
/// takes the direct kernels' convTransposeForward (builtin_kernels.h).
Status cudnnConvTransposeForward(const DeviceView& x, const DeviceView& w, const std::optional<DeviceView>& bias,
                                 const DeviceView& y, const std::vector<int64_t>& stride,
                                 const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                                 int64_t groups);

/// convolution_backward of a transposed convolution: gx is the forward convolution of gy, gw
/// the filter gradient with gy as that convolution's input and x as its output gradient, gb the
/// channel sum of gy; an absent one is not computed.
Status cudnnConvTransposeBackward(const DeviceView& gy, const DeviceView& x, const DeviceView& w,
                                  const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gw,
                                  const std::optional<DeviceView>& gb, const std::vector<int64_t>& stride,
                                  const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                                  int64_t groups);

}  // namespace fxray::cg::cuda
