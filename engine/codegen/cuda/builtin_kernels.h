#pragma once
/// The CUDA backend's fixed device kernels, written by hand rather than generated from the
/// kernel IR: the strided copy (cat, broadcasting, densifying GEMM operands), direct convolution
/// and its backward, the scatter-adds (embedding_dense_backward, index_add, max pooling's
/// backward) whose writes collide and so need atomics, which the kernel IR has no notion of, and
/// training-mode batch norm / max pooling with indices (multi-output ops the lowering leaves as
/// extern calls).
///
/// They live in one module compiled by NVRTC once per process, on first use (a few hundred ms;
/// warmBuiltins() lets a caller pay it at compile time instead of inside the first run).
#include "codegen/cuda/cuda_api.h"
#include "codegen/cuda/device_ops.h"
#include "ir/tensor_meta.h"

#include <optional>
#include <string>

namespace fxray::cg::cuda {

/// The source of the built-in module (CI compiles it with NVRTC without a device).
const std::string& builtinSource();

/// A function of the built-in module ("fx_strided_copy"), compiling and loading it first.
Expected<CUfunction> builtinFunction(const char* name);

/// Compiles and loads the module now if it is not loaded yet.
Status warmBuiltins();

/// Launches `fn` over `work` items with a grid-stride loop (256 threads a block, at most 32
/// blocks per SM). `what` names it in errors.
Status launchBuiltin(CUfunction fn, int64_t work, void** params, const char* what);

/// aten.convolution (not transposed, 1 to 3 spatial dims, any strides) into y. bias may be absent.
Status convForward(const DeviceView& x, const DeviceView& w, const std::optional<DeviceView>& bias, const DeviceView& y,
                   const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                   const std::vector<int64_t>& dilation, int64_t groups);

/// aten.convolution_backward's three results; an absent output is not computed.
Status convBackward(const DeviceView& gy, const DeviceView& x, const DeviceView& w, const std::optional<DeviceView>& gx,
                    const std::optional<DeviceView>& gw, const std::optional<DeviceView>& gb,
                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                    const std::vector<int64_t>& dilation, int64_t groups);

/// A transposed convolution (conv_transpose1d/2d/3d: w [C_in, C_out/G, k...], output padding
/// implied by y's shape) into y, bias may be absent: the plain convolution's input-gradient kernel.
Status convTransposeForward(const DeviceView& x, const DeviceView& w, const std::optional<DeviceView>& bias,
                            const DeviceView& y, const std::vector<int64_t>& stride,
                            const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, int64_t groups);

/// convolution_backward of a transposed convolution (gy shaped as its output, x as its input);
/// an absent output is not computed.
Status convTransposeBackward(const DeviceView& gy, const DeviceView& x, const DeviceView& w,
                             const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gw,
                             const std::optional<DeviceView>& gb, const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, int64_t groups);

/// gb [C] = gy [N, C, ...] summed over every dim but 1 (a convolution's bias gradient).
Status convBiasGrad(const DeviceView& gy, const DeviceView& gb);

/// True when the convolution kernels handle this dtype (fp32, fp64).
bool convSupports(DType t);

/// aten.embedding_dense_backward: out [num_weights, D] zeroed, then every row of grad (indices'
/// shape + [D]) added at its index (skipping padding_idx); with scaleByFreq divided by how often
/// the indices name that row (counted on the device first).
Status embeddingBackward(const DeviceView& grad, const DeviceView& indices, const DeviceView& out, int64_t paddingIdx,
                         bool scaleByFreq);

/// aten.index_add: out = self, then out[..., index[i], ...] += alpha * source[..., i, ...] along dim.
Status indexAdd(const DeviceView& self, int64_t dim, const DeviceView& index, const DeviceView& source, double alpha,
                const DeviceView& out);

/// True when the scatter-adds handle this dtype (atomicAdd on fp32, fp64).
bool scatterSupports(DType t);

/// Training-mode batch norm: outs = (y, save_mean, save_invstd[, new running_mean, new
/// running_var]), per-channel tensors dense 1-D; weight/bias may be absent. The new running
/// statistics may be rm/rv themselves (the in-place variants: native_batch_norm, ...); without
/// rm/rv (None) there are three outputs and no statistics are updated.
Status batchNormTrain(const DeviceView& x, const std::optional<DeviceView>& w, const std::optional<DeviceView>& b,
                      const std::optional<DeviceView>& rm, const std::optional<DeviceView>& rv,
                      const std::vector<DeviceView>& outs, double momentum, double eps);

/// native_batch_norm_backward; absent outputs are not computed. Training uses save_mean /
/// save_invstd, eval the running statistics.
Status batchNormBackward(const DeviceView& gy, const DeviceView& x, const std::optional<DeviceView>& w,
                         const std::optional<DeviceView>& rm, const std::optional<DeviceView>& rv,
                         const std::optional<DeviceView>& mean, const std::optional<DeviceView>& invstd, bool train,
                         double eps, const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gw,
                         const std::optional<DeviceView>& gb);

/// max_pool2d_with_indices (ceil_mode is in y's shape already) into dense y and int64 indices.
Status maxPool2d(const DeviceView& x, const DeviceView& y, const DeviceView& indices,
                 const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride,
                 const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation);

/// The max poolings' backwards (2-D, 3-D, adaptive, fractional): gx zeroed, each gradient added
/// at its index, flat within its plane (the last `spatialDims` dims).
Status maxPoolBackward(const DeviceView& gy, const DeviceView& indices, const DeviceView& gx, size_t spatialDims);
inline Status maxPool2dBackward(const DeviceView& gy, const DeviceView& indices, const DeviceView& gx) {
    return maxPoolBackward(gy, indices, gx, 2);
}

}  // namespace fxray::cg::cuda
