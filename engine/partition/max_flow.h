#pragma once
/// Maximum flow / minimum cut on a directed network (Dinic's algorithm on flat arrays), the
/// replacement for the `networkx.minimum_cut` call of PyTorch's partitioner.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fxray::partition {

/// A directed network with integer capacities; kInfinite marks an uncuttable edge.
class FlowNetwork {
public:
    /// Capacity of an edge that may never be cut (PyTorch's math.inf). Large enough that no
    /// finite cut reaches it, small enough that sums of a few of them do not overflow.
    static constexpr int64_t kInfinite = int64_t(1) << 60;

    explicit FlowNetwork(int vertices = 0) : m_vertices(vertices) {}
    int vertexCount() const { return m_vertices; }
    int addVertex() { return m_vertices++; }
    /// Adds edge u -> v and returns its id. Capacities >= kInfinite are infinite.
    int addEdge(int u, int v, int64_t capacity);
    size_t edgeCount() const { return m_to.size() / 2; }

    /// A source-to-sink path made only of infinite edges (vertex list), or empty when there is
    /// none. With such a path no finite cut exists (networkx raises "flow unbounded").
    std::vector<int> infinitePath(int source, int sink) const;

    /// Runs max-flow from source to sink and returns the flow value. Call infinitePath() first:
    /// the result is meaningless when an infinite path exists.
    int64_t maxFlow(int source, int sink);

    /// After maxFlow(): for each vertex, whether the sink is reachable from it in the residual
    /// network. This is the sink side of the cut networkx's `minimum_cut` returns (the smallest
    /// sink side of all minimum cuts), so partitions match PyTorch's exactly.
    std::vector<char> sinkSide(int sink) const;

    /// Edge endpoints and original capacity, by edge id.
    int from(int e) const { return m_to[2 * e + 1]; }
    int to(int e) const { return m_to[2 * e]; }
    int64_t capacity(int e) const { return m_orig[e]; }

private:
    void buildAdjacency();
    bool bfsLevels(int s, int t);
    int64_t blockingFlow(int s, int t);

    int m_vertices = 0;
    std::vector<int> m_to;        ///< arc a: head vertex; arcs 2e (forward) and 2e+1 (reverse)
    std::vector<int64_t> m_cap;   ///< residual capacity per arc
    std::vector<int64_t> m_orig;  ///< original capacity per edge
    std::vector<int> m_start;     ///< CSR: arcs of vertex v are m_adj[m_start[v] .. m_start[v+1])
    std::vector<int> m_adj;
    std::vector<int> m_level;
    std::vector<int> m_iter;
    bool m_built = false;
};

}  // namespace fxray::partition
