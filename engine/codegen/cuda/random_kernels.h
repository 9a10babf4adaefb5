#pragma once
/// rand / rand_like, randn / randn_like, randperm and native_dropout on the device (kernels/mt_random.cu): the reference executor's uniform stream
/// (exec/ops/random.cpp: ExecContext::rng, a std::mt19937_64, one draw per element) generated
/// from the host generator's state, which is then advanced to where the host's own draws would
/// have left it. A CUDA run and a reference run with one seed give the same values; neither is
/// PyTorch's Philox stream (runs compared with PyTorch pin the random nodes instead).
#include "codegen/cuda/device_ops.h"

#include <random>
#include <string>

namespace fxray::cg::cuda {

/// The module's source (CI compiles it with NVRTC without a device).
Expected<std::string> randomOpsSource();

/// True when uniformFill handles this dtype (fp32, fp64).
bool uniformSupports(DType t);

/// Fills dense `out` with uniforms in [0, 1) drawn from rng in row-major order, as the reference
/// kernel does, and leaves rng where those draws leave it. False, with nothing done, where this
/// standard library's engine state cannot be read and restored (only libstdc++'s layout is known).
Expected<bool> uniformFill(std::mt19937_64& rng, const DeviceView& out);

/// randn / randn_like into dense `out` (fp32, fp64): the reference kernel's Box-Muller normals,
/// two uniforms per element from rng, which is left where those draws leave it; false, with rng
/// untouched, as uniformFill, or where a first draw is exactly 0 (the reference draws again).
Expected<bool> normalFill(std::mt19937_64& rng, const DeviceView& out);

/// True when randpermFill handles this dtype (int64, int32, fp32, fp64).
bool randpermSupports(DType t);

/// randperm(n) into dense 1-D `out`: the reference kernel's Fisher-Yates shuffle with its draws
/// from rng, which is left where they leave it; false, with nothing done, as uniformFill.
Expected<bool> randpermFill(std::mt19937_64& rng, const DeviceView& out);

/// native_dropout(x, p, train=True) with 0 < p < 1 into dense y (x's dtype, fp32/fp64) and the
/// dense bool mask: one uniform per element from rng, as the reference kernel draws them; false,
/// with nothing done, as uniformFill.
Expected<bool> dropout(std::mt19937_64& rng, const DeviceView& x, double p, const DeviceView& y,
                       const DeviceView& mask);

}  // namespace fxray::cg::cuda
