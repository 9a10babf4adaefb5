#include "partition/max_flow.h"

#include <algorithm>
#include <cassert>

namespace fxray::partition {

int FlowNetwork::addEdge(int u, int v, int64_t capacity) {
    assert(u >= 0 && v >= 0 && u < m_vertices && v < m_vertices);
    capacity = std::min(capacity, kInfinite);
    int id = static_cast<int>(m_orig.size());
    m_to.push_back(v);
    m_to.push_back(u);
    m_cap.push_back(capacity);
    m_cap.push_back(0);
    m_orig.push_back(capacity);
    m_built = false;
    return id;
}

void FlowNetwork::buildAdjacency() {
    m_start.assign(m_vertices + 1, 0);
    // Arc a leaves vertex m_to[a ^ 1].
    for (size_t a = 0; a < m_to.size(); ++a) ++m_start[m_to[a ^ 1] + 1];
    for (int v = 0; v < m_vertices; ++v) m_start[v + 1] += m_start[v];
    m_adj.assign(m_to.size(), 0);
    std::vector<int> fill(m_start.begin(), m_start.end() - 1);
    for (size_t a = 0; a < m_to.size(); ++a) m_adj[fill[m_to[a ^ 1]]++] = static_cast<int>(a);
    m_built = true;
}

std::vector<int> FlowNetwork::infinitePath(int source, int sink) const {
    std::vector<int> parent(m_vertices, -2);
    std::vector<std::vector<int>> out(m_vertices);
    for (size_t e = 0; e < m_orig.size(); ++e)
        if (m_orig[e] >= kInfinite) out[m_to[2 * e + 1]].push_back(m_to[2 * e]);
    std::vector<int> queue{source};
    parent[source] = -1;
    for (size_t qi = 0; qi < queue.size(); ++qi) {
        int u = queue[qi];
        if (u == sink) break;
        for (int v : out[u])
            if (parent[v] == -2) {
                parent[v] = u;
                queue.push_back(v);
            }
    }
    if (parent[sink] == -2) return {};
    std::vector<int> path;
    for (int v = sink; v != -1; v = parent[v]) path.push_back(v);
    std::reverse(path.begin(), path.end());
    return path;
}

bool FlowNetwork::bfsLevels(int s, int t) {
    m_level.assign(m_vertices, -1);
    std::vector<int> queue;
    queue.reserve(m_vertices);
    queue.push_back(s);
    m_level[s] = 0;
    for (size_t qi = 0; qi < queue.size(); ++qi) {
        int u = queue[qi];
        for (int i = m_start[u]; i < m_start[u + 1]; ++i) {
            int a = m_adj[i];
            if (m_cap[a] > 0 && m_level[m_to[a]] < 0) {
                m_level[m_to[a]] = m_level[u] + 1;
                queue.push_back(m_to[a]);
            }
        }
    }
    return m_level[t] >= 0;
}

int64_t FlowNetwork::blockingFlow(int s, int t) {
    // Iterative DFS over the level graph with current-arc pointers (no recursion: level graphs
    // of long transformer graphs are thousands deep).
    m_iter.assign(m_start.begin(), m_start.end() - 1);
    int64_t total = 0;
    std::vector<int> path;  // arcs from s to the current vertex
    int u = s;
    for (;;) {
        if (u == t) {
            int64_t push = FlowNetwork::kInfinite * 2;
            for (int a : path) push = std::min(push, m_cap[a]);
            size_t firstSaturated = path.size();
            for (size_t i = 0; i < path.size(); ++i) {
                int a = path[i];
                m_cap[a] -= push;
                m_cap[a ^ 1] += push;
                if (m_cap[a] == 0 && firstSaturated == path.size()) firstSaturated = i;
            }
            total += push;
            // Retreat to the tail of the first saturated arc.
            path.resize(firstSaturated);
            u = path.empty() ? s : m_to[path.back()];
            continue;
        }
        bool advanced = false;
        for (int& i = m_iter[u]; i < m_start[u + 1]; ++i) {
            int a = m_adj[i];
            int v = m_to[a];
            if (m_cap[a] > 0 && m_level[v] == m_level[u] + 1) {
                path.push_back(a);
                u = v;
                advanced = true;
                break;
            }
        }
        if (advanced) continue;
        if (u == s) break;
        m_level[u] = -1;  // dead end for this phase
        int a = path.back();
        path.pop_back();
        u = m_to[a ^ 1];
        ++m_iter[u];
    }
    return total;
}

int64_t FlowNetwork::maxFlow(int source, int sink) {
    if (!m_built) buildAdjacency();
    int64_t flow = 0;
    while (bfsLevels(source, sink)) flow += blockingFlow(source, sink);
    return flow;
}

std::vector<char> FlowNetwork::sinkSide(int sink) const {
    std::vector<char> reach(m_vertices, 0);
    std::vector<int> queue{sink};
    reach[sink] = 1;
    for (size_t qi = 0; qi < queue.size(); ++qi) {
        int v = queue[qi];
        // Arcs leaving v pair with arcs entering v; u -> v is usable when its residual is > 0.
        for (int i = m_start[v]; i < m_start[v + 1]; ++i) {
            int out = m_adj[i];
            int u = m_to[out];
            if (!reach[u] && m_cap[out ^ 1] > 0) {
                reach[u] = 1;
                queue.push_back(u);
            }
        }
    }
    return reach;
}

}  // namespace fxray::partition
