#pragma once
/// Shape, dtype and stride inference over a graph, checked against the file's annotations.
#include "ir/graph.h"

#include <string>
#include <vector>

namespace fxray {

/// One disagreement between an annotation and what inference computed.
struct MetaMismatch {
    std::string graph;  ///< "" for the top graph, else the submodule path
    std::string node;
    std::string annotated;  ///< annotation text
    std::string inferred;
    std::string what;  ///< "dtype", "shape", "strides"
};

/// What inference did.
struct InferenceReport {
    int checked = 0;  ///< annotated tensor nodes compared
    int filled = 0;   ///< nodes whose metadata came from inference alone
    std::vector<MetaMismatch> mismatches;
    std::vector<std::string> unresolved;  ///< nodes inference could not compute
};

/// Runs every op's meta function from the placeholders' annotations. Nodes without an
/// annotation get the inferred metadata; annotated nodes keep theirs and are compared (dtype,
/// shape, and strides of dims larger than 1 where the annotation has strides). Recurses into
/// subgraphs.
InferenceReport inferMeta(Graph& g);

/// Sets node->op() for every `torch.ops.*` call found in the registry (recursively). Returns the
/// targets that were not found (unknown ops), without repeats.
std::vector<std::string> resolveOps(Graph& g);

}  // namespace fxray
