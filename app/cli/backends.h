#pragma once
/// Plugs the compiled backends (CPU through LLVM, CUDA through NVRTC) into the minifier's
/// backend registry, so that `accuracy:ref-vs-cpu`, `ref-vs-cuda` and `cpu-vs-cuda` checks run
/// them, in the fxray process and in its isolated query processes alike. The composition root
/// (main) calls this once; the engine's minifier does not know the backends.
namespace fxray::cli {

void registerCompiledBackends();

} // namespace fxray::cli
