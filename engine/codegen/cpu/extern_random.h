#pragma once
/// Extern kernels of the CPU backend for random ops (randperm, native_dropout). They draw from
/// fxray's own generator (ExecContext::rng, a seeded mt19937_64) with the same draws in the same
/// order as the reference executor's kernels (exec/ops/random.cpp), so that a CPU run and a
/// reference run with one seed give the same permutation and the same dropout mask. Neither
/// reproduces PyTorch's Philox streams: where a run is compared with PyTorch, the random nodes
/// are pinned to PyTorch's recorded values and these kernels are not used.
#include "exec/exec_context.h"
#include "ir/op_registry.h"

#include <string>
#include <vector>

namespace fxray::cg::cpu {

/// Whether `qualname` ("aten.randperm.default") has a random extern kernel, and its name.
const char* randomExternFor(const std::string& qualname);

}  // namespace fxray::cg::cpu
