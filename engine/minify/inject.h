#pragma once
/// Injected faults (`--inject`), applied on the tested side of a query only.
///
/// A scale fault rewrites the graph: each node of the op whose output is one floating tensor
/// gets a `aten.mul.Tensor(node, F)` after it, and the multiply takes over the node's name (the
/// original is renamed `<name>__clean`), so that per-node comparisons by name line up the faulty
/// value with the clean one. This mirrors the PyTorch anchor (an fx.Interpreter scaling the op's
/// output) for any backend, since the fault travels in the graph.
///
/// Pass faults wrap the pass: before it runs on a graph that holds the op it fails, raises
/// SIGSEGV or hangs — only ever inside the isolated query process.
#include "minify/spec.h"
#include "pass/pass_manager.h"

#include <memory>
#include <string>
#include <vector>

namespace fxray::minify {

/// Applies the scale faults to g in place; returns how many nodes were scaled.
size_t applyScaleFaults(Graph& g, const std::vector<InjectSpec>& faults);

/// A pass manager running `passes` (names for createPassByName) with the pass faults wrapped in.
/// Fails on an unknown pass name.
Expected<std::unique_ptr<PassManager>> buildFaultyPipeline(const std::vector<std::string>& passes,
                                                           const std::vector<InjectSpec>& faults,
                                                           PassManagerOptions opts);

/// The pass names of a named pipeline ("joint", "post-grad"), in order.
Expected<std::vector<std::string>> pipelinePassNames(const std::string& pipeline);

}  // namespace fxray::minify
