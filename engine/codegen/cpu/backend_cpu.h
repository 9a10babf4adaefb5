#pragma once
/// The CPU backend (cpu_backend.h) behind the engine's one Backend interface (codegen/backend.h).
#include "codegen/backend.h"

namespace fxray::cg::cpu {

/// "cpu": compiles with LLVM on every run; compile() keeps one compile for many runs.
std::unique_ptr<Backend> makeCpuBackend();

}  // namespace fxray::cg::cpu
