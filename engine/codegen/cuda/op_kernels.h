#pragma once
/// The NVRTC modules of device externs kept one family to a file (kernels/mask_index.cu: index
/// and index_put by a boolean mask), one module per file, and the small host helpers their
/// externs share. Each module compiles on first use.
#include "codegen/cuda/device_ops.h"
#include "codegen/cuda/kernel_module.h"

#include <string>
#include <vector>

namespace fxray::cg::cuda {

/// The module compiled from kernels/`file` ("mask_index.cu"); null for another name.
KernelModule* opKernelModule(const std::string& file);
/// The files opKernelModule knows (CI compiles each with NVRTC without a device).
const std::vector<std::string>& opKernelFiles();

/// The element address of v (its storage offset applied).
CUdeviceptr elementAddr(const DeviceView& v);

/// A new dense buffer of `shape` and dtype t, held by `tmp`.
Expected<DeviceView> denseBuffer(const std::vector<int64_t>& shape, DType t, DeviceBuffer& tmp);

/// v broadcast to `shape` as a dense row-major copy in `tmp`, or v itself when it is dense with
/// that shape already. v must broadcast to shape (callers check).
Expected<DeviceView> expandDense(const DeviceView& v, const std::vector<int64_t>& shape, DeviceBuffer& tmp);

/// Launches fn over `work` items (grid-stride loops, 256 threads a block).
Status launchOver(CUfunction fn, int64_t work, void** params, const char* what);

/// The kernel name suffix of a dtype: f32, f64, i64, i32, i16, i8, u8; null for another.
const char* kernelSuffix(DType t);

/// Zeroes the elements of dense v.
Status zeroFill(const DeviceView& v);

}  // namespace fxray::cg::cuda
