#pragma once
/// Device kernels for the sampling ops Inductor runs as fallback kernels: grid_sampler_3d, the
/// 2-D sampler where its lowering declines, and the grid sampler backwards (bilinear / trilinear
/// or nearest; zeros, border or reflection padding; not bicubic), and antialiased bilinear
/// resampling with its backward: kernels/sampling.cu, a module of its own compiled by NVRTC on
/// first use. The grid sampling follows the reference executor (exec/ops/grid_sample.cpp; the CPU
/// backend's extern, codegen/cpu/extern_grid_sample.cpp, has no nearest mode), the resampling
/// the CPU extern (extern_upsample_aa.cpp); the device externs (device_externs_sampling.cpp) call
/// these.
#include "codegen/cuda/device_ops.h"

#include <optional>
#include <string>

namespace fxray::cg::cuda {

/// The module's source (CI compiles it with NVRTC without a device).
Expected<std::string> samplingOpsSource();

/// True when the sampling kernels handle this dtype (fp32, fp64).
bool samplingSupports(DType t);

/// The grid samplers' mode arguments, numbered as ATen's (and the ops' arguments) number them:
/// interpolation bilinear 0, nearest 1, bicubic 2; padding zeros 0, border 1, reflection 2.
struct GridSampling {
    int64_t interpolation = 0, padding = 0;
    bool alignCorners = false;
};

/// True when the kernels handle this mode: bilinear, nearest or bicubic (2-D inputs only, as in
/// PyTorch), with zeros, border or reflection padding.
bool gridSamplingSupports(const GridSampling& m);

/// Grid sampling of a 4-D (bilinear / nearest / bicubic) or 5-D (trilinear / nearest) input: x [N, C,
/// in...], grid [N, out..., nsp] of x's dtype, into dense y [N, C, out...]; exactly as the
/// reference executor's exec/ops/grid_sample.cpp (ATen's GridSampler.h), positions in double.
Status gridSample(const DeviceView& x, const DeviceView& grid, const GridSampling& mode, const DeviceView& y);

/// Its backward: grad_input (dense, x's shape) and grad_grid (dense, grid's shape), each where given.
Status gridSampleBackward(const DeviceView& gy, const DeviceView& x, const DeviceView& grid, const GridSampling& mode,
                          const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gg);

/// _upsample_bilinear2d_aa of planes [.., inH, inW] into dense y [.., outH, outW] (backward:
/// the adjoint, from gradients [.., outH, outW] into dense [.., inH, inW]). in/out are the
/// forward's spatial sizes; scales as the op's optional scales_h / scales_w.
Status upsampleBilinearAa(const DeviceView& x, const DeviceView& y, int64_t inH, int64_t inW, int64_t outH,
                          int64_t outW, bool alignCorners, std::optional<double> scaleH, std::optional<double> scaleW,
                          bool backward);

}  // namespace fxray::cg::cuda
