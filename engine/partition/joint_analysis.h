#pragma once
/// Preparing a joint graph for the min cut: DCE and CSE, activation-checkpointing tags, and
/// PyTorch's `classify_nodes` (required-forward, required-backward, unclaimed), forward order and
/// distance from the backward. Everything the cut needs per node, on flat arrays by node index.
#include "ir/graph.h"
#include "partition/op_classes.h"
#include "partition/partitioner.h"

#include <cstdint>
#include <vector>

namespace fxray::partition {

/// `torch.utils.checkpoint.CheckpointPolicy`, read from `# ac_graph_id: N - POLICY` comments.
enum class RecomputePolicy : uint8_t { None, MustSave, PreferSave, MustRecompute, PreferRecompute };

/// What the partitioner knows about one node of the prepared joint graph.
struct NodeFacts {
    Node* node = nullptr;
    /// The node with its sizes at the binding (JointAnalysis::sized): what sizes and flops are
    /// measured on. `node` itself for a static graph.
    const Node* measured = nullptr;
    OpClass cls;
    int64_t size = 0;        ///< bytes (PyTorch's _size_of)
    bool sym = false;        ///< SymInt-like value
    bool nonTensor = false;  ///< tuple or no value: cannot be saved (infinite weight)
    bool primal = false;     ///< primal placeholder (or forward seed/offset)
    bool tangent = false;
    bool bwdSeed = false;
    bool isOutput = false;
    bool impure = false;  ///< a call FX's dead-code elimination keeps (random, mutating)
    RecomputePolicy policy = RecomputePolicy::None;
    int acGraphId = -1;
    bool requiredFw = false;
    bool requiredBw = false;
    int fwOrder = -1;
    int64_t distFromBw = 0;
    int storage = -1;  ///< index of the node owning the storage (aliases point to their base)
    bool staticLifetime = false;
    std::vector<int> users;   ///< user indices in graph order, the output node included
    std::vector<int> inputs;  ///< argument node indices, first occurrence order
};

/// The prepared joint graph.
struct JointAnalysis {
    std::unique_ptr<Graph> graph;  ///< the DCE'd and CSE'd copy the partition is made from
    /// Dynamic shapes: a copy of `graph` with every size evaluated at `binding` (null for a static
    /// graph); a size that cannot be evaluated (an unbacked u0) stays symbolic and counts as
    /// PyTorch's fallback of 4096 elements.
    std::unique_ptr<Graph> sized;
    sym::Binding binding;
    std::vector<std::string> defaultedSymbols;  ///< symbols the binding gave 8 (no hint)
    std::vector<NodeFacts> nodes;               ///< by node index in `graph`
    std::vector<int> inputs;                    ///< primals then forward seeds (node_info.inputs)
    std::vector<int> tangents;
    std::vector<int> bwdSeeds;
    std::vector<Argument> fwdOutputs;
    std::vector<Argument> bwdOutputs;
    std::vector<int> requiredFwSorted;  ///< by forward order
    int outputIndex = -1;
    bool hasRecomputeTags = false;
    size_t nodesBefore = 0, removedByDce = 0, removedByCse = 0;

    bool mustRecompute(int i) const {
        return nodes[i].policy == RecomputePolicy::MustRecompute || nodes[i].policy == RecomputePolicy::PreferRecompute;
    }
    /// `is_fusible(a, b)`: anything fuses into a cat; otherwise both must be fusible ops.
    bool isFusible(int a, int b) const { return nodes[b].cls.cat || (nodes[a].cls.fusible && nodes[b].cls.fusible); }
};

/// Copies `joint`, removes dead code and (with options.cse) common subexpressions, reads the
/// checkpointing tags and classifies the nodes. Diagnostics: no output, no tangents, a forward
/// output that needs the tangents, a bad numFwdOutputs.
Expected<JointAnalysis> analyzeJoint(const Graph& joint, const PartitionOptions& options);

/// Parses `ac_graph_id: 3 - PREFER_RECOMPUTE` out of a provenance comment.
RecomputePolicy parseRecomputeTag(const std::string& comment, int* acGraphId);

}  // namespace fxray::partition
