#pragma once
/// Extern kernels of the CPU backend for the training ops that are scatters or windowed
/// gathers with data-dependent writes (embedding/index backward, index_add/index_put with
/// accumulation, max pooling with indices and its backward), batch normalisation in training
/// mode (with running-stat updates) and its backward, and convolution backward (col2im + GEMM).
/// They are compiled C++ (not the reference interpreter): fp32 math on contiguous copies,
/// fp64 accumulation for the per-channel statistics so they match PyTorch's within 1e-5.
#include "ir/op_registry.h"

#include <string>
#include <vector>

namespace fxray::cg::cpu {

/// Runs extern kernel `fn` on `args`. `outs[i]` is the preallocated tensor for output i of the
/// op (nullptr where the output is None or not needed). Returns false (outputs untouched) for
/// an instance it does not handle; the caller then uses the reference kernel.
bool runTrainExtern(const std::string& fn, const OpArgs& args, const std::vector<Tensor*>& outs);

} // namespace fxray::cg::cpu
