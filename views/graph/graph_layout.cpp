#include "graph/graph_layout.h"

#include <QElapsedTimer>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fxray::views {

namespace {

double elapsedMs(const QElapsedTimer& t) { return static_cast<double>(t.nsecsElapsed()) / 1e6; }

/// Longest-path layers; sources sit one layer above their first user so that the graph's many
/// inputs (parameters, tangents) do not all crowd the top row.
std::vector<int> assignLayers(const CanvasGraph& g) {
    const size_t n = g.nodes.size();
    std::vector<int> layer(n, 0);
    // FX node order is topological, but a synthetic or broken graph may not be: inputs that
    // come later are ignored here (the edge is drawn anyway).
    for (size_t i = 0; i < n; ++i)
        for (int in : g.nodes[i].inputs)
            if (static_cast<size_t>(in) < i) layer[i] = std::max(layer[i], layer[static_cast<size_t>(in)] + 1);
    for (size_t i = 0; i < n; ++i) {
        const CanvasNode& node = g.nodes[i];
        if (!node.inputs.empty() || node.users.empty()) continue;
        int first = INT32_MAX;
        for (int u : node.users)
            if (static_cast<size_t>(u) > i) first = std::min(first, layer[static_cast<size_t>(u)]);
        if (first != INT32_MAX) layer[i] = std::max(0, first - 1);
    }
    return layer;
}

/// Places each layer's nodes in their order, as close to `want` as spacing allows (`half`: each
/// node's half width; `gap` between neighbours), then shifts the layer so that on average nodes
/// sit where they want to be.
void packLayer(const std::vector<int>& row, const std::vector<double>& want, std::vector<double>& x,
               const std::vector<double>& half, double gap) {
    if (row.empty()) return;
    double prevRight = -1e300;
    double drift = 0;
    for (int v : row) {
        const double h = half[static_cast<size_t>(v)];
        const double xi = std::max(want[static_cast<size_t>(v)], prevRight + gap + h);
        x[static_cast<size_t>(v)] = xi;
        prevRight = xi + h;
        drift += want[static_cast<size_t>(v)] - xi;
    }
    drift /= static_cast<double>(row.size());
    for (int v : row) x[static_cast<size_t>(v)] += drift;
}

}  // namespace

GraphLayout layoutLayered(const CanvasGraph& g, const LayoutParams& p) { return layoutLayered(g, p, {}); }

GraphLayout layoutLayered(const CanvasGraph& g, const LayoutParams& p, const std::vector<QSizeF>& sizes) {
    QElapsedTimer t;
    t.start();
    GraphLayout out;
    const size_t n = g.nodes.size();
    if (n == 0) return out;
    const std::vector<int> layer = assignLayers(g);
    const int layers = *std::max_element(layer.begin(), layer.end()) + 1;
    std::vector<std::vector<int>> rows(static_cast<size_t>(layers));
    for (size_t i = 0; i < n; ++i) rows[static_cast<size_t>(layer[i])].push_back(static_cast<int>(i));

    const bool sized = sizes.size() == n;
    std::vector<double> half(n, p.nodeWidth / 2);
    if (sized)
        for (size_t i = 0; i < n; ++i) half[i] = sizes[i].width() / 2;
    std::vector<double> x(n, 0.0), key(n, 0.0);
    auto centreRows = [&] {
        for (const auto& row : rows) {
            double w = -p.nodeGap;
            for (int v : row) w += 2 * half[static_cast<size_t>(v)] + p.nodeGap;
            double left = -w / 2;
            for (int v : row) {
                x[static_cast<size_t>(v)] = left + half[static_cast<size_t>(v)];
                left += 2 * half[static_cast<size_t>(v)] + p.nodeGap;
            }
        }
    };
    centreRows();
    // Barycentric sweeps: order each layer by the mean position of its neighbours in the
    // direction of the sweep. Neighbours may be several layers away (no dummy nodes: FX graphs
    // have many long edges from inputs, and dummies for them would outnumber the real nodes).
    auto sweep = [&](bool down) {
        for (int li = 0; li < layers; ++li) {
            auto& row = rows[static_cast<size_t>(down ? li : layers - 1 - li)];
            for (int v : row) {
                const auto& nb = down ? g.nodes[static_cast<size_t>(v)].inputs : g.nodes[static_cast<size_t>(v)].users;
                if (nb.empty()) {
                    key[static_cast<size_t>(v)] = x[static_cast<size_t>(v)];
                    continue;
                }
                double s = 0;
                for (int u : nb) s += x[static_cast<size_t>(u)];
                key[static_cast<size_t>(v)] = s / static_cast<double>(nb.size());
            }
            std::stable_sort(row.begin(), row.end(),
                             [&](int a, int b) { return key[static_cast<size_t>(a)] < key[static_cast<size_t>(b)]; });
            // Positions follow the new order at once, so the next layer sees it.
            packLayer(row, key, x, half, p.nodeGap);
        }
    };
    for (int s = 0; s < 4; ++s) sweep(s % 2 == 0);
    // Final straightening pass from the top: chains line up under their producers.
    sweep(true);

    // Rows are as tall as their tallest node (all alike unless sized): centres on one line.
    std::vector<double> rowY(static_cast<size_t>(layers), 0.0);
    if (sized) {
        double top = 0;
        for (int li = 0; li < layers; ++li) {
            double h = 0;
            for (int v : rows[static_cast<size_t>(li)]) h = std::max(h, sizes[static_cast<size_t>(v)].height());
            rowY[static_cast<size_t>(li)] = top + h / 2;
            top += h + p.rankGap;
        }
    } else {
        for (int li = 0; li < layers; ++li) rowY[static_cast<size_t>(li)] = li * p.rankPitch();
    }
    out.pos.resize(n);
    for (size_t i = 0; i < n; ++i) out.pos[i] = QPointF(x[i], rowY[static_cast<size_t>(layer[i])]);
    out.engine = QStringLiteral("layered");
    out.ms = elapsedMs(t);
    return out;
}

QString routeKey(const QString& from, const QString& to) { return from + QChar(0x1f) + to; }

void rememberRoutes(RouteMemory& memory, const CanvasGraph& g, const std::vector<QPointF>& pos,
                    const std::vector<QPolygonF>& routes) {
    for (size_t e = 0; e < g.edges.size() && e < routes.size(); ++e) {
        if (routes[e].isEmpty()) continue;
        const CanvasEdge& ce = g.edges[e];
        memory.insert(routeKey(g.nodes[static_cast<size_t>(ce.from)].name, g.nodes[static_cast<size_t>(ce.to)].name),
                      {routes[e], pos[static_cast<size_t>(ce.from)], pos[static_cast<size_t>(ce.to)]});
    }
}

std::vector<QPolygonF> routeKeeping(const CanvasGraph& g, const std::vector<QPointF>& pos,
                                    const std::vector<QSizeF>& sizes, const RouteMemory& memory) {
    std::vector<QPolygonF> out(g.edges.size());
    std::vector<int> missing;
    for (size_t e = 0; e < g.edges.size(); ++e) {
        const CanvasEdge& ce = g.edges[e];
        auto it = memory.constFind(
            routeKey(g.nodes[static_cast<size_t>(ce.from)].name, g.nodes[static_cast<size_t>(ce.to)].name));
        if (it != memory.constEnd() && it->from == pos[static_cast<size_t>(ce.from)] &&
            it->to == pos[static_cast<size_t>(ce.to)])
            out[e] = it->route;
        else
            missing.push_back(static_cast<int>(e));
    }
    const std::vector<QPolygonF> routed = routeEdgesLocally(g, pos, sizes, missing);
    for (size_t k = 0; k < missing.size() && k < routed.size(); ++k) out[static_cast<size_t>(missing[k])] = routed[k];
    return out;
}

GraphLayout layoutFresh(const CanvasGraph& g, const LayoutParams& p) {
    if (p.useDot && static_cast<int>(g.nodes.size()) <= p.dotNodeLimit) {
        GraphLayout l = layoutWithDot(g, p);
        if (l.valid()) return l;
    }
    return layoutLayered(g, p);
}

namespace {

/// Occupied boxes bucketed on a grid, to find a free spot for a new node quickly.
class Occupancy {
public:
    Occupancy(double w, double h) : m_w(w), m_h(h) {}
    static qint64 key(qint64 cx, qint64 cy) { return (cx << 32) ^ (cy & 0xffffffff); }
    void add(QPointF c) { m_cells[key(cell(c.x(), m_w), cell(c.y(), m_h))].push_back(c); }
    bool free(QPointF c) const {
        const qint64 cx = cell(c.x(), m_w), cy = cell(c.y(), m_h);
        for (qint64 dx = -1; dx <= 1; ++dx)
            for (qint64 dy = -1; dy <= 1; ++dy) {
                auto it = m_cells.constFind(key(cx + dx, cy + dy));
                if (it == m_cells.constEnd()) continue;
                for (const QPointF& o : *it)
                    if (std::abs(o.x() - c.x()) < m_w && std::abs(o.y() - c.y()) < m_h) return false;
            }
        return true;
    }

private:
    static qint64 cell(double v, double size) { return static_cast<qint64>(std::floor(v / size)); }
    double m_w, m_h;
    QHash<qint64, std::vector<QPointF>> m_cells;
};

}  // namespace

GraphLayout layoutIncremental(const CanvasGraph& g, const QHash<QString, QPointF>& previous, const QSet<QString>& moved,
                              const LayoutParams& p) {
    QElapsedTimer t;
    t.start();
    const size_t n = g.nodes.size();
    std::vector<char> placed(n, 0);
    GraphLayout out;
    out.pos.resize(n);
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i) {
        const QString& name = g.nodes[i].name;
        auto it = previous.constFind(name);
        if (it == previous.constEnd() || moved.contains(name)) continue;
        out.pos[i] = *it;
        placed[i] = 1;
        ++kept;
    }
    // Mostly new: a fresh layout reads better than a pile of nodes squeezed in.
    if (n == 0 || kept * 2 < n) {
        out = layoutFresh(g, p);
        return out;
    }
    Occupancy occ(p.nodeWidth + p.nodeGap * 0.5, p.nodeHeight + p.rankGap * 0.5);
    double maxX = -1e300, minY = 1e300;
    for (size_t i = 0; i < n; ++i)
        if (placed[i]) {
            occ.add(out.pos[i]);
            maxX = std::max(maxX, out.pos[i].x());
            minY = std::min(minY, out.pos[i].y());
        }
    const double pitchX = p.nodeWidth + p.nodeGap;
    const double pitchY = p.rankPitch();
    auto findSpot = [&](QPointF want) {
        // Search outward along the row first, then the rows below: a new node reads best
        // beside the node it replaced.
        for (int dy = 0; dy < 4; ++dy)
            for (int k = 0; k < 24; ++k) {
                const double dx = (k % 2 ? 1 : -1) * ((k + 1) / 2) * pitchX * 0.5;
                QPointF c(want.x() + dx, want.y() + dy * pitchY * 0.5);
                if (occ.free(c)) return c;
            }
        return QPointF(maxX += pitchX, want.y());
    };
    // Graph order is topological: a new node's inputs are placed before it.
    std::vector<size_t> pending;
    for (size_t i = 0; i < n; ++i)
        if (!placed[i]) pending.push_back(i);
    int orphans = 0;
    for (size_t i : pending) {
        const CanvasNode& node = g.nodes[i];
        double sx = 0, maxInY = -1e300, minUserY = 1e300;
        int count = 0;
        for (int in : node.inputs)
            if (placed[static_cast<size_t>(in)]) {
                sx += out.pos[static_cast<size_t>(in)].x();
                maxInY = std::max(maxInY, out.pos[static_cast<size_t>(in)].y());
                ++count;
            }
        for (int u : node.users)
            if (placed[static_cast<size_t>(u)]) {
                sx += out.pos[static_cast<size_t>(u)].x();
                minUserY = std::min(minUserY, out.pos[static_cast<size_t>(u)].y());
                ++count;
            }
        QPointF want;
        if (count == 0) {
            want = QPointF(maxX + pitchX, minY + (orphans++) * pitchY);
        } else {
            double y = maxInY > -1e300 ? maxInY + pitchY : minUserY - pitchY;
            // Between its producer and its consumer when both are known and there is room.
            if (maxInY > -1e300 && minUserY < 1e300 && minUserY - maxInY > pitchY) y = (maxInY + minUserY) / 2;
            want = QPointF(sx / count, y);
        }
        out.pos[i] = findSpot(want);
        occ.add(out.pos[i]);
        placed[i] = 1;
    }
    out.engine = QStringLiteral("incremental");
    out.ms = elapsedMs(t);
    return out;
}

}  // namespace fxray::views
