#pragma once
/// Plugs the compiled backends (CPU through LLVM, CUDA through NVRTC) into the minifier's
/// backend registry, so that `fxray compare --backends ref,cpu,cuda` and the `accuracy:ref-vs-cpu`,
/// `ref-vs-cuda` and `cpu-vs-cuda` checks run them, in the fxray process and in its isolated
/// query processes alike. Both report every node's value (observesNodes) through a debugging
/// compile of the graph with every tensor-valued node an output (exec/node_values.h). Making the
/// cuda backend without a usable GPU fails with "no CUDA device: ...". The composition root
/// (main) calls this once; the engine's minifier does not know the backends.
namespace fxray::cli {

void registerCompiledBackends();

} // namespace fxray::cli
