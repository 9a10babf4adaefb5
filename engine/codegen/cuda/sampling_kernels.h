#pragma once
/// Device kernels for the sampling ops Inductor runs as fallback kernels: grid_sampler_3d and the
/// grid sampler backwards (bilinear / trilinear, zero padding) and antialiased bilinear
/// resampling with its backward: kernels/sampling.cu, a module of its own compiled by NVRTC on
/// first use. Each mirrors the CPU backend's extern (codegen/cpu/extern_grid_sample.cpp,
/// extern_upsample_aa.cpp); the device externs (device_externs_sampling.cpp) call these.
#include "codegen/cuda/device_ops.h"

#include <optional>
#include <string>

namespace fxray::cg::cuda {

/// The module's source (CI compiles it with NVRTC without a device).
Expected<std::string> samplingOpsSource();

/// True when the sampling kernels handle this dtype (fp32, fp64).
bool samplingSupports(DType t);

/// Bilinear (4-D input) or trilinear (5-D) grid sampling with zero padding: x [N, C, in...], grid
/// [N, out..., nsp] of x's dtype, into dense y [N, C, out...].
Status gridSample(const DeviceView& x, const DeviceView& grid, bool alignCorners, const DeviceView& y);

/// Its backward: grad_input (dense, x's shape) and grad_grid (dense, grid's shape), each where given.
Status gridSampleBackward(const DeviceView& gy, const DeviceView& x, const DeviceView& grid, bool alignCorners,
                          const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gg);

/// _upsample_bilinear2d_aa of planes [.., inH, inW] into dense y [.., outH, outW] (backward:
/// the adjoint, from gradients [.., outH, outW] into dense [.., inH, inW]). in/out are the
/// forward's spatial sizes; scales as the op's optional scales_h / scales_w.
Status upsampleBilinearAa(const DeviceView& x, const DeviceView& y, int64_t inH, int64_t inW, int64_t outH,
                          int64_t outW, bool alignCorners, std::optional<double> scaleH, std::optional<double> scaleW,
                          bool backward);

}  // namespace fxray::cg::cuda
