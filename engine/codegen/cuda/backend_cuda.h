#pragma once
/// The CUDA backend (cuda_backend.h) behind the engine's one Backend interface
/// (codegen/backend.h).
#include "codegen/backend.h"

namespace fxray::cg::cuda {

/// "cuda": fails with "no CUDA device: ..." when this machine has no usable GPU (libcuda, NVRTC
/// and cuBLAS are opened at run time, so every build has the backend).
Expected<std::unique_ptr<Backend>> makeCudaBackend();

}  // namespace fxray::cg::cuda
