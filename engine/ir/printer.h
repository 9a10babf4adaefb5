#pragma once
/// Prints a Graph in PyTorch's `print_readable()` form, the contract for snapshots, golden tests,
/// diffs and minifier output.
#include "ir/graph.h"

#include <string>

namespace fxray {

/// Printing choices; by default those the graph was read with.
struct PrintOptions {
    std::optional<bool> strides;  ///< include strides in annotations
    std::optional<bool> devices;  ///< include devices in annotations
    bool comments = true;         ///< include `# File:` provenance comments
};

/// The whole module (nested submodule classes included), ending with a newline.
std::string printGraph(const Graph& g, const PrintOptions& opts = {});

/// The right-hand side of one node's line (`torch.ops.aten.mm.default(a, b)`, `x[0]`, `a + b`).
std::string printNodeExpr(const Node& n);

}  // namespace fxray
