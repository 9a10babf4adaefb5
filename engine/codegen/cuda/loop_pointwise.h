#pragma once
/// Elementwise ops whose scalar function loops (gcd, lcm, igamma, igammac): kernels/loop_pointwise.cu,
/// a module of its own compiled by NVRTC on first use. The device externs
/// (device_externs_pointwise.cpp) call these; the CPU backend's are codegen/cpu/extern_pointwise.cpp.
#include "codegen/cuda/device_ops.h"

#include <string>

namespace fxray::cg::cuda {

/// The module's source (CI compiles it with NVRTC without a device).
Expected<std::string> loopPointwiseSource();

/// The ops: gcd / lcm on int64 or int32, igamma / igammac on fp32 or fp64.
enum class LoopOp { Gcd, Lcm, Igamma, Igammac };

/// True when `op` has a kernel for outputs (and operands) of dtype t.
bool loopPointwiseSupports(LoopOp op, DType t);

/// out = op(a, b) with a and b (of out's dtype) broadcast to out's shape; out dense.
Status loopPointwise(LoopOp op, const DeviceView& a, const DeviceView& b, const DeviceView& out);

}  // namespace fxray::cg::cuda
