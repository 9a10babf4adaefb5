#include "graph/block_layout.h"

#include <QRectF>

#include <algorithm>

namespace fxray::views {

namespace {

/// The block as a graph of its own: its members (local indices in cluster order) and the edges
/// between them (in innerEdges order).
CanvasGraph subgraph(const CanvasGraph& g, int cluster, const std::vector<int>& edges) {
    const std::vector<int>& members = g.clusters[static_cast<size_t>(cluster)].nodes;
    QHash<int, int> local;
    local.reserve(static_cast<qsizetype>(members.size()));
    for (size_t k = 0; k < members.size(); ++k) local.insert(members[k], static_cast<int>(k));
    CanvasGraph sub;
    sub.nodes.resize(members.size());
    for (size_t k = 0; k < members.size(); ++k) {
        sub.nodes[k].name = g.nodes[static_cast<size_t>(members[k])].name;
        sub.byName.insert(sub.nodes[k].name, static_cast<int>(k));
    }
    for (int e : edges) {
        const CanvasEdge& ce = g.edges[static_cast<size_t>(e)];
        const int a = local.value(ce.from), b = local.value(ce.to);
        sub.edges.push_back({a, b, {}});
        sub.nodes[static_cast<size_t>(a)].users.push_back(b);
        sub.nodes[static_cast<size_t>(b)].inputs.push_back(a);
    }
    return sub;
}

/// Moves positions and routes so that the boxes' bounding rectangle is centred on (0, 0).
void centre(BlockLayout& b, const LayoutParams& p) {
    QRectF r;
    for (const QPointF& q : b.pos)
        r |= QRectF(q.x() - p.nodeWidth / 2, q.y() - p.nodeHeight / 2, p.nodeWidth, p.nodeHeight);
    const QPointF c = r.center();
    for (QPointF& q : b.pos) q -= c;
    for (QPolygonF& route : b.routes) route.translate(-c);
}

}  // namespace

bool BlockLayout::routed() const {
    if (routes.size() != edges.size()) return false;
    return std::all_of(routes.begin(), routes.end(), [](const QPolygonF& r) { return r.size() >= 4; });
}

std::vector<int> innerEdges(const CanvasGraph& g, int cluster) {
    std::vector<int> out;
    for (size_t e = 0; e < g.edges.size(); ++e) {
        const CanvasEdge& ce = g.edges[e];
        if (g.nodes[static_cast<size_t>(ce.from)].cluster == cluster &&
            g.nodes[static_cast<size_t>(ce.to)].cluster == cluster && ce.from != ce.to)
            out.push_back(static_cast<int>(e));
    }
    return out;
}

BlockLayout placeBlockKeeping(const CanvasGraph& g, int cluster, const QHash<QString, QPointF>& keep,
                              const LayoutParams& p) {
    BlockLayout b;
    b.cluster = cluster;
    b.edges = innerEdges(g, cluster);
    const CanvasGraph sub = subgraph(g, cluster, b.edges);
    size_t known = 0;
    for (const CanvasNode& n : sub.nodes) known += keep.contains(n.name) ? 1 : 0;
    // Mostly new (layoutIncremental would run dot here, on the UI thread): the worker lays it out.
    if (sub.nodes.empty() || known * 2 < sub.nodes.size()) return b;
    // Nothing the block had before is "moved": every known node keeps its place.
    b.pos = layoutIncremental(sub, keep, {}, p).pos;
    // Kept positions stay as they were (no re-centring: the block's frame would shift under them).
    return b;
}

BlockLayout layoutBlock(const CanvasGraph& g, int cluster, const LayoutParams& p, const BlockLayout* placed,
                        const RouteMemory& memory) {
    BlockLayout b;
    b.cluster = cluster;
    b.edges = innerEdges(g, cluster);
    const CanvasGraph sub = subgraph(g, cluster, b.edges);
    const std::vector<QSizeF> sizes(sub.nodes.size(), QSizeF(p.nodeWidth, p.nodeHeight));
    if (placed && placed->pos.size() == sub.nodes.size()) {
        b.pos = placed->pos;
        b.routes = routeKeeping(sub, b.pos, sizes, memory);
        b.routes.resize(b.edges.size());
        return b;
    }
    GraphLayout l;
    if (p.useDot && static_cast<int>(sub.nodes.size()) <= p.dotNodeLimit) l = layoutWithDot(sub, p);
    if (!l.valid()) l = layoutLayered(sub, p);
    b.pos = std::move(l.pos);
    b.routes = std::move(l.routes);
    b.routes.resize(b.edges.size());
    centre(b, p);
    return b;
}

}  // namespace fxray::views
