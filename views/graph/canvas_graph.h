#pragma once
/// CanvasGraph: what the canvas draws of an fxray Graph — one entry per FX node with the text of
/// its box (op, name, output type), its colour category, its edges with their tensor types, and
/// the clusters it is grouped into. It is built once per shown graph (cheap, on the UI thread)
/// and is a plain value, so the layout worker can read it without touching the engine Graph.
///
/// Clusters: print_readable keeps no nn_module_stack, but every node carries the `# File:` line
/// of the statement that produced it. A model's layers run the same statements again, so a
/// statement that repeats inside the forward (and inside the backward) of a joint graph marks
/// where each layer starts; the graph is cut there. Of the repeating statements, the one whose
/// cut gives the longest run of equal layers wins (a norm runs twice per layer and would cut
/// layers in halves); a large part left over (a model with stages of another kind) is cut again
/// the same way. Graphs without provenance are cut into fixed-size runs of consecutive nodes, so
/// that large graphs can still be collapsed.
///
/// Stacks: consecutive clusters of one phase with the same op sequence (runs of one op counted
/// once: a DenseNet layer's backward slices its concatenation once per input) are a model's repeated
/// layers (gpt2's transformer.h.0 .. h.11); they are grouped into one stack, drawn collapsed as a
/// single "× 12" block. The last layer usually runs into what follows it (the final norm, the
/// weight transposes of the backward), so a cluster that starts with the repeated op sequence is
/// cut after it and the rest becomes the phase's epilogue.
#include <QHash>
#include <QString>

#include <cstdint>
#include <vector>

namespace fxray {
class Graph;
class Node;
}  // namespace fxray

namespace fxray::views {

/// Colour classes of nodes (OpCategory plus the graph's inputs and outputs). Scalar: a node that
/// computes a SymInt/SymFloat/SymBool or checks one (aten.sym_size, operator.mul on sizes,
/// _assert_scalar) rather than a tensor.
enum class NodeClass : uint8_t {
    Input,
    Output,
    Pointwise,
    Reduction,
    View,
    Extern,
    Random,
    HigherOrder,
    Creation,
    Other,
    Scalar
};

struct CanvasNode {
    QString name;
    QString op;      ///< short op name: "addmm", "getitem", "placeholder"
    QString type;    ///< output type: "f32[2, 32, 128]", "(f32[4], f32[4])", "Sym(s0)"
    QString source;  ///< the provenance comment, "" when none
    NodeClass cls = NodeClass::Other;
    /// The value is a symbolic scalar (a "Sym(...)" placeholder or a Scalar node): drawn as a
    /// pill rather than a box.
    bool scalar = false;
    int cluster = -1;         ///< index into CanvasGraph::clusters, -1 for none
    std::vector<int> inputs;  ///< node indices, without repeats
    std::vector<int> users;
};

struct CanvasEdge {
    int from = 0;
    int to = 0;
    QString type;  ///< the source node's output type (shown on hover)
};

struct CanvasCluster {
    QString label;
    std::vector<int> nodes;
    int stack = -1;  ///< index into CanvasGraph::stacks, -1 for none
};

/// Consecutive clusters with the same op sequence (repeated layers), shown as one block.
struct CanvasStack {
    QString label;
    std::vector<int> clusters;  ///< indices into CanvasGraph::clusters, in graph order
    int nodesEach = 0;          ///< nodes per repeated cluster
};

struct CanvasGraph {
    std::vector<CanvasNode> nodes;
    std::vector<CanvasEdge> edges;
    std::vector<CanvasCluster> clusters;
    std::vector<CanvasStack> stacks;
    QHash<QString, int> byName;
    uint64_t fingerprint = 0;
    int indexOf(const QString& name) const { return byName.value(name, -1); }
};

/// The node yields or checks a symbolic scalar (SymInt placeholders included).
bool isSymbolicScalarNode(const Node& n);

/// Box text and class of one node (without edges or cluster); also used for diff ghosts.
CanvasNode describeNode(const Node& n);

/// Builds the canvas view of `g`. Graphs of fewer than `clusterMinNodes` nodes get no clusters.
CanvasGraph buildCanvasGraph(const Graph& g, int clusterMinNodes = 120);

/// Cuts the graph into clusters and groups repeated ones into stacks (see the file comment);
/// exposed for tests and synthetic graphs.
void assignClusters(CanvasGraph& cg);

/// Display name of a node class ("pointwise", "input", ...).
QString nodeClassName(NodeClass c);

}  // namespace fxray::views
