#pragma once
/// Random values of a recorded run, for replaying it: fxray does not reproduce PyTorch's CUDA
/// Philox stream, so a graph that uses random ops (dropout masks, randperm) reproduces PyTorch's
/// recorded outputs only when the values derived from those ops are pinned to what PyTorch
/// computed. The corpus's forward graph returns them (they are saved for the backward), under
/// the same node names the joint and backward graphs use. Shared by the corpus tests and the
/// benchmarks that run recorded inputs.
#include "ir/graph.h"
#include "ir/value.h"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace fxray {

/// Names of the nodes of g computed from a random op (dropout with p == 0 excluded: it is
/// deterministic).
std::set<std::string> randomDerived(const Graph& g);

/// Values of g's random-derived nodes, from the forward graph of the numerics folder `dir`
/// (`dir/forward.py` and its recorded `dir/forward/outputs`). Empty when g uses no randomness;
/// nullopt when forward.py or its outputs cannot be read.
std::optional<std::map<std::string, Value>> recordedRandomPins(const Graph& g, const std::filesystem::path& dir);

}  // namespace fxray
