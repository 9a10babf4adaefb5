#pragma once
/// Device kernels for ops Inductor runs as fallback kernels rather than lowering them (max
/// pooling over irregular windows with indices, segment reductions, ...): kernels/fallback_ops.cu, a module of its
/// own compiled by NVRTC on first use. The CUDA backend's device externs call these; each
/// mirrors the CPU backend's extern (codegen/cpu/extern_fallback_ops.cpp).
#include "codegen/cuda/device_ops.h"

#include <optional>
#include <string>

namespace fxray::cg::cuda {

/// The module's source (CI compiles it with NVRTC without a device).
Expected<std::string> fallbackOpsSource();

/// How a windowed max pooling places its windows (FxWindowMode in kernels/fallback_args.h).
enum class WindowMode { Strided = 0, Adaptive = 1, Fractional = 2 };

/// Max pooling with indices over the last `nsp` (2 or 3) dims of x into dense y and int64
/// indices (output sizes from y): max_pool3d_with_indices (kernel, stride, padding, dilation),
/// adaptive_max_pool{2,3}d (bins from the sizes), fractional_max_pool{2,3}d (kernel, and the
/// per-plane samples, dense [planes, nsp], of x's dtype). x's dtype fp32, fp64, fp16 or bf16.
Status windowMaxPool(WindowMode mode, const DeviceView& x, const DeviceView& y, const DeviceView& indices, size_t nsp,
                     const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride,
                     const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                     const std::optional<DeviceView>& samples);

/// True for the dtypes of the fallback kernels in general (fp32, fp64).
bool windowPoolSupports(DType t);

/// True when windowMaxPool handles this dtype: those, fp16 and bf16.
bool windowMaxSupports(DType t);

/// segment_reduce's reductions (FxSegKind order: max, min, sum, mean, prod); -1 for another name.
int segmentKind(const std::string& reduce);

/// segment_reduce along `axis` of data by dense int64 lengths or offsets ([data's dims before
/// axis..., count or count + 1]) into dense out [..., count, inner...]. initial, when given, is
/// the start value of every segment. A segment outside the axis gives NaN.
Status segmentReduce(const DeviceView& data, int kind, int64_t axis, const DeviceView& segments, bool byOffsets,
                     std::optional<double> initial, const DeviceView& out);

/// _segment_reduce_backward: grad and output [..., count, inner...], data and gx alike.
Status segmentReduceBackward(const DeviceView& grad, const DeviceView& output, const DeviceView& data, int kind,
                             int64_t axis, const DeviceView& segments, bool byOffsets, std::optional<double> initial,
                             const DeviceView& gx);

/// True when the segment kernels and put handle this dtype (fp32, fp64: atomics).
bool segmentSupports(DType t);

/// put(self, index, source, accumulate) into dense out: out = self, then the flat elements
/// index names (negative from the end) set to, or accumulating, source's elements in order.
/// Out-of-range indices are skipped (PyTorch raises there).
Status put(const DeviceView& self, const DeviceView& index, const DeviceView& source, bool accumulate,
           const DeviceView& out);

/// _unsafe_masked_index_put_accumulate(self, mask, indices, values) into dense out: out = self,
/// then values added where the bool mask is set, at the indices (int64, 1 to 4 of them, for
/// self's leading dims, broadcast together) clamped into self. mask and values broadcast to the
/// indices' shape followed by self's other dims (8 dims at most).
Status maskedIndexPutAccumulate(const DeviceView& self, const DeviceView& mask, const std::vector<DeviceView>& indices,
                                const DeviceView& values, const DeviceView& out);

/// index_put(self, indices, values, accumulate) with index tensors (int64, 1 to 4, broadcast)
/// for self's leading dims, no None among them: as above without a mask, values stored or
/// accumulated; out-of-range indices are skipped (PyTorch raises there).
Status indexPut(const DeviceView& self, const std::vector<DeviceView>& indices, const DeviceView& values,
                bool accumulate, const DeviceView& out);

/// True when the index puts (indexPut, maskedIndexPutAccumulate, indexPutByMask) handle this
/// dtype: fp32/fp64, fp16/bf16 (accumulating in fp32, rounded once), int64/int32, bool
/// (accumulating is a logical or).
bool indexPutSupports(DType t);

/// index_put(self, [mask], values, accumulate) with one bool mask over self's leading dims (rank
/// md) into dense out. values [count, self's other dims...] (broadcasting there) with count > 1
/// (or 0): row r to the r-th set position in row-major order (the set positions' coordinates
/// found on the device, then indexPut; set positions past count are not written, where PyTorch
/// raises). Otherwise values without the count dim or with count 1 (broadcast over the set
/// positions): stored or added wherever the mask is set (the positions as int64 iotas per mask
/// dim, uploaded; the mask applied by the masked put kernel).
Status indexPutByMask(const DeviceView& self, const DeviceView& mask, const DeviceView& values, bool accumulate,
                      const DeviceView& out);

/// masked_select(self, mask) into dense 1-D out: the elements where the bool mask is set (both
/// broadcast), in row-major order; the output's length was fixed when the graph compiled.
Status maskedSelect(const DeviceView& self, const DeviceView& mask, const DeviceView& out);

/// linalg_lu_solve(LU, pivots, B, left=True, adjoint) into X [.., n, k] of any layout (PyTorch's
/// is column-major per matrix; solved in a dense copy then): getrf's factors (LU any strides,
/// pivots 1-based int32 of LU's batch shape, both broadcast over X's batch dims), B broadcast to X.
Status luSolve(const DeviceView& LU, const DeviceView& pivots, const DeviceView& B, bool adjoint, const DeviceView& X);

/// Batch norm in evaluation mode over x [N, C, ...] into dense y: the running statistics (dense
/// [C]) normalise; mean / invstd, where given (dense [C]), receive the running mean and
/// 1 / sqrt(running_var + eps), what PyTorch's CUDA kernels save. fp32/fp64.
Status batchNormEval(const DeviceView& x, const std::optional<DeviceView>& w, const std::optional<DeviceView>& b,
                     const DeviceView& rm, const DeviceView& rv, const DeviceView& y,
                     const std::optional<DeviceView>& mean, const std::optional<DeviceView>& invstd, double eps);

/// triangular_solve(self B, A, upper, transpose, unitriangular) into X and A_clone (the
/// batch-broadcast shapes, any layout: CUDA's are column-major): op(A) X = B solved in a dense
/// copy of B. fp32/fp64.
Status triangularSolve(const DeviceView& B, const DeviceView& A, bool upper, bool transpose, bool unit,
                       const DeviceView& X, const DeviceView& Aclone);

/// _linalg_slogdet(A) -> dense sign and logabsdet [batch...], LU (A's shape; its own row/column
/// strides, batches dense) and dense int32 pivots [batch..., n]; for a contiguous A the factor is
/// Aᵀ's, as PyTorch (and the reference executor) make it. fp32/fp64.
Status slogdet(const DeviceView& A, const DeviceView& sign, const DeviceView& logabs, const DeviceView& lu,
               const DeviceView& pivots);

/// linalg_matrix_exp(A) into dense out. fp32/fp64.
Status matrixExp(const DeviceView& A, const DeviceView& out);

/// The broadcast shape of a and b, or nullopt.
std::optional<std::vector<int64_t>> broadcastShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

}  // namespace fxray::cg::cuda
