#pragma once
/// Candidates of the reducer: sub-selections of the original graph.
///
/// Every candidate is described against the original graph (the Workspace): which compute nodes
/// it keeps and which of them it returns. Materializing one does what PyTorch's minifier does by
/// mutation — dead code elimination (only ancestors of the returned nodes stay), inputs for every
/// value a kept node reads from outside the selection (a cut node becomes a placeholder holding
/// its concrete value from a clean run, like `_convert_node_to_placeholder`), placeholders first
/// and unused inputs dropped (`_consolidate_placeholders`, `remove_unused_inputs`). Describing
/// candidates this way keeps them cheap to build and to compare (by fingerprint).
#include "ir/graph.h"
#include "ir/sym_expr.h"
#include "ir/value.h"
#include "support/diagnostic.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fxray::minify {

/// The original graph, its inputs, and every node's value in a clean reference run.
class Workspace {
public:
    /// Clones g, runs it on the reference executor (fp32, seed) and keeps each node's value.
    /// A run that stops at an unsupported node keeps what it computed; nodes without a value
    /// are simply never cut.
    static Expected<std::shared_ptr<const Workspace>> build(const Graph& g, std::vector<Value> inputs, uint64_t seed);

    const Graph& graph() const { return *m_graph; }
    const std::vector<Value>& inputs() const { return m_inputs; }
    /// Value of node i (original index), None when unknown.
    const Value& value(int i) const { return m_values[static_cast<size_t>(i)]; }
    /// Node i is a computation the reducer may keep or drop (not a placeholder or the output).
    bool isCompute(int i) const;
    /// Node i can become an input: its value is one tensor, or it is a SymInt/SymFloat/SymBool
    /// node ("Sym(s23*s27)") holding a number.
    bool isCuttable(int i) const;
    /// The graph has symbolic inputs (torch.compile(dynamic=True)).
    bool symbolic() const { return m_symbolic; }
    /// The sizes of the run: each input symbol's value, read off the inputs ("s23=5, s27=32").
    const sym::Binding& binding() const { return m_binding; }
    /// binding() plus the symbols the clean run met inside the graph (unbacked u0 sizes and
    /// symbols of intermediate values), which cut nodes may carry into a candidate's inputs.
    const sym::Binding& symbols() const { return m_symbols; }
    /// A note when the clean run stopped early ("" otherwise).
    const std::string& runNote() const { return m_runNote; }
    /// Original indices of nodes read by node i (first occurrence order).
    const std::vector<int>& inputsOf(int i) const { return m_inputsOf[static_cast<size_t>(i)]; }
    /// Original indices of nodes that read node i.
    const std::vector<int>& usersOf(int i) const { return m_usersOf[static_cast<size_t>(i)]; }
    size_t size() const { return m_graph->size(); }

private:
    std::unique_ptr<Graph> m_graph;
    std::vector<Value> m_inputs;
    std::vector<Value> m_values;
    std::vector<std::vector<int>> m_inputsOf, m_usersOf;
    std::string m_runNote;
    bool m_symbolic = false;
    sym::Binding m_binding, m_symbols;
};

/// A selection: kept compute nodes and the nodes returned (original indices, graph order).
struct Candidate {
    std::vector<char> keep;
    std::vector<int> outs;
};

/// A candidate built into a graph plus its inputs.
struct Materialized {
    std::shared_ptr<Graph> graph;
    std::vector<Value> inputs;
    uint64_t fingerprint = 0;
    size_t nodes = 0;       ///< like PyTorch's len(graph.nodes): placeholders and output included
    sym::Binding sizes;     ///< what its inputs bind (symbolic graphs), checked against the run's
    std::vector<int> kept;  ///< original indices of the compute nodes it holds, graph order
    std::vector<int> outs;  ///< original indices it returns
    /// The normalized selection (keep = kept, outs = outs): materializing it again gives the same.
    Candidate normalized(const Workspace& ws) const;
};

/// The candidate that keeps everything and returns the original outputs.
Candidate fullCandidate(const Workspace& ws);
/// Keeps `nodes` (original indices) and returns their sinks (nodes no kept node reads) plus the
/// given extra outputs that are kept.
Candidate keepOnly(const Workspace& ws, const std::vector<int>& nodes, const std::vector<int>& extraOuts = {});

/// Builds the candidate. Fails when nothing would be returned (every output was cut or dropped),
/// and, in a symbolic graph, when its inputs would not bind every symbol to the run's value.
Expected<Materialized> materialize(const Workspace& ws, const Candidate& c);

}  // namespace fxray::minify
