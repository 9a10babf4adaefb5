#pragma once
/// Building the forward and backward graphs from the joint graph and a saved set: PyTorch's
/// `_extract_graph_with_inputs_outputs`, `reordering_to_mimic_autograd_engine` and
/// `raise_getitems`.
#include "ir/graph.h"
#include "support/diagnostic.h"

#include <memory>
#include <string>
#include <vector>

namespace fxray::partition {

/// How to lay out an extracted graph.
struct ExtractOptions {
    /// Reorder like the autograd engine: start at the first user of a tangent and pull in each
    /// node's not-yet-computed inputs just before it (backward graphs).
    bool mimicAutograd = false;
    /// Move every getitem right after the tuple it reads.
    bool raiseGetitems = true;
};

/// Per-node facts of a graph that extractions need, computed once for several of them.
struct GraphIndex {
    GraphIndex() = default;
    explicit GraphIndex(const Graph& g);
    std::vector<std::vector<int>> inputs;  ///< argument node indices per node
    std::vector<char> impure;              ///< FX's is_impure per node
};

/// The subgraph of `g` that computes `outputs` from `inputs` (nodes of g, which become the
/// placeholders, in that order and with their names). Nodes that need another placeholder are
/// left out; dead code is removed except impure nodes. `what` ("forward", "backward") names the
/// graph in the Diagnostic given when an output cannot be computed from the inputs.
Expected<std::unique_ptr<Graph>> extractSubgraph(const Graph& g, const GraphIndex& index,
                                                 const std::vector<const Node*>& inputs,
                                                 const std::vector<Argument>& outputs, const ExtractOptions& options,
                                                 const std::string& what);

/// For each of `inputs`, whether the subgraph computing `outputs` from them would use it (what
/// extracting and looking at the placeholders' users tells, without building the graph).
Expected<std::vector<char>> usedInputs(const Graph& g, const GraphIndex& index, const std::vector<const Node*>& inputs,
                                       const std::vector<Argument>& outputs, const std::string& what);

}  // namespace fxray::partition
