#pragma once
/// The joint forward+backward graph of a forward ATen graph, as AOT autograd builds it
/// (`aot_dispatch_autograd` -> `aot_dispatch_autograd_graph`): the forward replayed with composite
/// ops decomposed and in-place ops functionalised, then reverse-mode autodiff over the recorded
/// ops. The result has PyTorch's joint signature — `forward(self, primals, tangents)`, inputs
/// `primals_*` then `tangents_*` (one per differentiable output), outputs the updated values of
/// mutated inputs, the forward outputs, then one gradient per primal (None when it has none) —
/// and its dead code removed.
#include "ir/graph.h"
#include "support/diagnostic.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fxray {

/// Which primals require gradients.
enum class GradInputs {
    /// Parameters when the placeholders are named as torch.export names them (`p_*`) or as Dynamo
    /// lifts them (`*_parameters_*`); otherwise every floating-point placeholder.
    Auto,
    /// Every floating-point placeholder.
    AllFloating,
    /// Exactly the placeholders in JointOptions::requiresGrad.
    Listed,
};

/// How to build the joint graph.
struct JointOptions {
    /// Source placeholder names in the order they become primals; empty keeps graph order.
    /// Must name every placeholder that is not a constant.
    std::vector<std::string> primalOrder;
    GradInputs gradInputs = GradInputs::Auto;
    /// Source placeholder names (GradInputs::Listed).
    std::vector<std::string> requiresGrad;
    /// Placeholders that hold lifted tensor constants: they become `_tensor_constantN`
    /// attributes, not primals (torch.export's `c_*` inputs are recognised without this).
    std::vector<std::string> constantPlaceholders;
    /// Values of constant placeholders, by placeholder name (attributes stay value-less without).
    std::map<std::string, Tensor> constantValues;
    /// Leave source nodes whose values nobody uses out of the trace. AOT traces every node of
    /// the graph it gets and removes dead code afterwards (the dead nodes still take names);
    /// torch.export graphs carry dead code Dynamo's graph never had. Unset: skip for export
    /// graphs, trace otherwise. The joint graph's nodes are the same either way; names may shift.
    std::optional<bool> skipDeadSourceNodes;
};

/// The joint graph and what each of its inputs and outputs is.
struct JointGraph {
    std::unique_ptr<Graph> graph;
    /// Source placeholder of each primal, in primal order.
    std::vector<std::string> primalSources;
    /// Whether each primal requires a gradient.
    std::vector<bool> requiresGrad;
    size_t numTangents = 0;
    /// For each tangent, the index (into the joint graph's outputs) of the output it belongs to.
    std::vector<size_t> tangentOutputs;
    size_t numMutatedInputs = 0;   ///< leading outputs: updated values of mutated primals
    size_t numForwardOutputs = 0;  ///< the forward's own outputs, after the mutated inputs
    size_t numForwardNodes = 0;    ///< nodes of the forward part (placeholders excluded), before DCE
    size_t numBackwardNodes = 0;   ///< nodes the backward pass emitted, before DCE
    size_t deadNodesRemoved = 0;
    /// Nodes traced from an activation-checkpointed region (`tag_activation_checkpoint`), by
    /// name, with the region's id: what AOT tags `recompute` / `ac_graph_id` for the partitioner.
    std::map<std::string, int> checkpointRegion;
};

/// Builds the joint graph of `forward` (an ATen graph: an export graph, a lowered Dynamo graph,
/// an AOT forward or inference graph). Fails with a Diagnostic naming the node for ops without a
/// VJP rule or decomposition, torch-level nodes, higher-order ops, and bad options. A graph
/// with SymInt placeholders or symbolic sizes gets a symbolic joint graph (joint_symbolic.h).
Expected<JointGraph> buildJointGraph(const Graph& forward, const JointOptions& opts = {});

}  // namespace fxray
