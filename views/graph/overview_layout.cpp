#include "graph/overview_layout.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace fxray::views {

QSizeF blockSize(const LayoutParams& p) { return QSizeF(2 * p.nodeWidth + p.nodeGap, 2.2 * p.nodeHeight); }

namespace {

/// Margins of a cluster's frame around its nodes (ClusterItem::setMembersRect adds the same, and
/// the header takes the top).
QRectF frameAround(const QRectF& members) { return members.adjusted(-16, -34, 16, 16); }

/// Unit indices in an order where every edge points forward (Kahn's algorithm, ties by creation
/// order, which follows the graph's node order). The layered layout reads its input that way.
std::vector<int> topoOrder(const std::vector<std::vector<int>>& users, int count) {
    std::vector<int> indeg(static_cast<size_t>(count), 0);
    for (const auto& us : users)
        for (int u : us) ++indeg[static_cast<size_t>(u)];
    std::set<int> ready;
    for (int i = 0; i < count; ++i)
        if (indeg[static_cast<size_t>(i)] == 0) ready.insert(i);
    std::vector<int> order;
    std::vector<char> done(static_cast<size_t>(count), 0);
    while (static_cast<int>(order.size()) < count) {
        if (ready.empty()) {
            // A cycle between units (not expected: forward never reads backward, and clusters are
            // runs in graph order): take the first unit left.
            for (int i = 0; i < count; ++i)
                if (!done[static_cast<size_t>(i)]) {
                    ready.insert(i);
                    break;
                }
        }
        const int v = *ready.begin();
        ready.erase(ready.begin());
        if (done[static_cast<size_t>(v)]) continue;
        done[static_cast<size_t>(v)] = 1;
        order.push_back(v);
        for (int u : users[static_cast<size_t>(v)])
            if (--indeg[static_cast<size_t>(u)] == 0 && !done[static_cast<size_t>(u)]) ready.insert(u);
    }
    return order;
}

QString unitKeyOf(const CanvasGraph& g, const Overview& ov, const Overview::Unit& u) {
    switch (u.kind) {
    case Overview::Kind::Node: return QStringLiteral("n:") + g.nodes[static_cast<size_t>(u.index)].name;
    case Overview::Kind::Cluster: return QStringLiteral("c:") + g.clusters[static_cast<size_t>(u.index)].label;
    case Overview::Kind::Open: return QStringLiteral("o:") + g.clusters[static_cast<size_t>(u.index)].label;
    case Overview::Kind::Stack: return QStringLiteral("s:") + g.stacks[static_cast<size_t>(u.index)].label;
    case Overview::Kind::Bundle: {
        QString k = QStringLiteral("b:");
        for (int n : ov.bundles[static_cast<size_t>(u.index)])
            k += g.nodes[static_cast<size_t>(n)].name + QLatin1Char(',');
        return k;
    }
    }
    return {};
}

bool sameSize(const QSizeF& a, const QSizeF& b) {
    return std::abs(a.width() - b.width()) < 0.5 && std::abs(a.height() - b.height()) < 0.5;
}

/// No two boxes overlap.
bool apart(const std::vector<QRectF>& rect) {
    for (size_t a = 0; a < rect.size(); ++a)
        for (size_t b = a + 1; b < rect.size(); ++b)
            if (rect[a].adjusted(1, 1, -1, -1).intersects(rect[b].adjusted(1, 1, -1, -1))) return false;
    return true;
}

/// Keeps `previous`'s boxes for the units still there and makes room for the new ones where the
/// units that went were (see the header). `rect` gets every unit's box; false (rect undefined)
/// when the placement cannot be kept without overlaps.
bool keepPlacement(const Overview& ov, const std::vector<QSizeF>& unitSize, const std::vector<std::vector<int>>& users,
                   const QHash<QString, QRectF>& previous, const LayoutParams& p, std::vector<QRectF>& rect) {
    const size_t count = ov.units.size();
    rect.assign(count, QRectF());
    std::vector<char> fresh(count, 1);
    QSet<QString> matched;
    for (size_t u = 0; u < count; ++u) {
        auto it = previous.constFind(ov.keys[u]);
        if (it == previous.constEnd() || !sameSize(it->size(), unitSize[u])) continue;
        rect[u] = *it;
        fresh[u] = 0;
        matched.insert(ov.keys[u]);
    }
    // Where the units that went were (a bundle of inputs that went leaves a gap: its inputs join
    // the bundles of the block's contents).
    QRectF gone, goneBundles;
    for (auto it = previous.constBegin(); it != previous.constEnd(); ++it)
        if (!matched.contains(it.key())) (it.key().startsWith(QLatin1String("b:")) ? goneBundles : gone) |= *it;
    if (gone.isEmpty()) gone = goneBundles;
    std::vector<int> added;
    for (size_t u = 0; u < count; ++u)
        if (fresh[u]) added.push_back(static_cast<int>(u));
    if (!added.empty()) {
        if (gone.isEmpty()) return false;  // only additions: nowhere they belong
        // The new units laid out on their own (the layered layout, their edges among themselves).
        QHash<int, int> local;
        for (size_t k = 0; k < added.size(); ++k) local.insert(added[k], static_cast<int>(k));
        CanvasGraph sub;
        sub.nodes.resize(added.size());
        std::vector<QSizeF> sizes(added.size());
        for (size_t k = 0; k < added.size(); ++k) {
            sizes[k] = unitSize[static_cast<size_t>(added[k])];
            for (int v : users[static_cast<size_t>(added[k])]) {
                auto lv = local.constFind(v);
                if (lv == local.constEnd()) continue;
                sub.nodes[k].users.push_back(*lv);
                sub.nodes[static_cast<size_t>(*lv)].inputs.push_back(static_cast<int>(k));
                sub.edges.push_back({static_cast<int>(k), *lv, {}});
            }
        }
        // Units are numbered in graph order: the layered layout's edges point forward, as it expects.
        const GraphLayout l = layoutLayered(sub, p, sizes);
        QRectF region;
        std::vector<QRectF> box(added.size());
        for (size_t k = 0; k < added.size(); ++k) {
            box[k] = QRectF(l.pos[k] - QPointF(sizes[k].width() / 2, sizes[k].height() / 2), sizes[k]);
            region |= box[k];
        }
        // The new units where the old ones were: same top, same centre line.
        const QPointF to(gone.center().x() - region.width() / 2, gone.top());
        for (size_t k = 0; k < added.size(); ++k)
            rect[static_cast<size_t>(added[k])] = box[k].translated(to - region.topLeft());
        const QRectF placed(to, region.size());
        const std::vector<QRectF> kept = rect;
        // A block that shrinks pulls the rest in, unless that makes boxes overlap (a tall unit
        // beside it): then the rest stays and the block leaves a gap.
        for (bool shrink : {true, false}) {
            const auto grow = [shrink](double d) { return shrink ? d : std::max(0.0, d); };
            const double dh = grow(placed.bottom() - gone.bottom());
            const double dwRight = grow(placed.right() - gone.right()), dwLeft = grow(gone.left() - placed.left());
            rect = kept;
            for (size_t u = 0; u < count; ++u) {
                if (fresh[u]) continue;
                QRectF& r = rect[u];
                if (r.top() >= gone.bottom() - 1)
                    r.translate(0, dh);
                else if (r.bottom() > gone.top() + 1) {
                    // Beside the block, in its rows.
                    if (r.left() >= gone.right() - 1)
                        r.translate(dwRight, 0);
                    else if (r.right() <= gone.left() + 1)
                        r.translate(-dwLeft, 0);
                }
            }
            if (apart(rect)) return true;
        }
        return false;
    }
    // Boxes must stay apart (units above the old place that reach into the new one, a pile of
    // removals and additions after a pass): else the caller lays everything out again.
    return apart(rect);
}

}  // namespace

QHash<QString, QRectF> Overview::placement() const {
    QHash<QString, QRectF> out;
    if (!active) return out;
    out.reserve(static_cast<qsizetype>(units.size()));
    for (size_t u = 0; u < units.size() && u < keys.size(); ++u) out.insert(keys[u], units[u].rect);
    return out;
}

Overview layoutOverview(const CanvasGraph& g, const std::vector<QPointF>& pos,
                        const std::vector<char>& clusterCollapsed, const std::vector<char>& stackCollapsed,
                        const LayoutParams& p, const QHash<QString, QRectF>& previous) {
    Overview ov;
    const size_t n = g.nodes.size();
    ov.unitOf.assign(n, -1);
    auto stackShut = [&](int s) {
        return s >= 0 && static_cast<size_t>(s) < stackCollapsed.size() && stackCollapsed[static_cast<size_t>(s)];
    };
    auto clusterShut = [&](int c) {
        return static_cast<size_t>(c) < clusterCollapsed.size() && clusterCollapsed[static_cast<size_t>(c)];
    };
    bool any = false;
    for (size_t c = 0; c < g.clusters.size(); ++c)
        any = any || clusterShut(static_cast<int>(c)) || stackShut(g.clusters[c].stack);
    if (!any || pos.size() != n) return ov;
    ov.active = true;

    auto add = [&](Overview::Kind k, int index) {
        ov.units.push_back({k, index, {}, {}});
        return static_cast<int>(ov.units.size()) - 1;
    };
    std::vector<int> clusterUnit(g.clusters.size(), -1), stackUnit(g.stacks.size(), -1);
    for (size_t i = 0; i < n; ++i) {
        const int c = g.nodes[i].cluster;
        if (c < 0) continue;
        const int s = g.clusters[static_cast<size_t>(c)].stack;
        if (stackShut(s)) {
            int& u = stackUnit[static_cast<size_t>(s)];
            if (u < 0) u = add(Overview::Kind::Stack, s);
            ov.unitOf[i] = u;
        } else {
            int& u = clusterUnit[static_cast<size_t>(c)];
            if (u < 0) u = add(clusterShut(c) ? Overview::Kind::Cluster : Overview::Kind::Open, c);
            ov.unitOf[i] = u;
        }
    }
    auto isBlock = [&](int u) {
        const Overview::Kind k = ov.units[static_cast<size_t>(u)].kind;
        return k == Overview::Kind::Cluster || k == Overview::Kind::Stack;
    };
    // Inputs that only feed collapsed blocks, grouped by the set of blocks they feed.
    std::map<std::vector<int>, std::vector<int>> groups;
    std::vector<std::vector<int>> keyOf(n);
    for (size_t i = 0; i < n; ++i) {
        const CanvasNode& node = g.nodes[i];
        if (node.cluster >= 0 || node.cls != NodeClass::Input || node.users.empty()) continue;
        std::vector<int> key;
        bool blocksOnly = true;
        for (int u : node.users) {
            const int unit = ov.unitOf[static_cast<size_t>(u)];
            if (unit < 0 || !isBlock(unit)) {
                blocksOnly = false;
                break;
            }
            key.push_back(unit);
        }
        if (!blocksOnly) continue;
        std::sort(key.begin(), key.end());
        key.erase(std::unique(key.begin(), key.end()), key.end());
        groups[key].push_back(static_cast<int>(i));
        keyOf[i] = std::move(key);
    }
    std::map<std::vector<int>, int> bundleUnit;
    for (size_t i = 0; i < n; ++i) {
        if (ov.unitOf[i] >= 0) continue;
        if (!keyOf[i].empty() && groups[keyOf[i]].size() >= 2) {
            auto it = bundleUnit.find(keyOf[i]);
            if (it == bundleUnit.end()) {
                ov.bundles.push_back(groups[keyOf[i]]);
                it = bundleUnit.emplace(keyOf[i], add(Overview::Kind::Bundle, static_cast<int>(ov.bundles.size()) - 1))
                         .first;
            }
            ov.unitOf[i] = it->second;
        } else {
            ov.unitOf[i] = add(Overview::Kind::Node, static_cast<int>(i));
        }
    }

    // The unit graph, its sizes, and the frame of each expanded cluster in the full layout.
    const int count = static_cast<int>(ov.units.size());
    std::vector<std::vector<int>> users(static_cast<size_t>(count));
    QSet<qint64> seen;
    for (const CanvasEdge& e : g.edges) {
        const int a = ov.unitOf[static_cast<size_t>(e.from)], b = ov.unitOf[static_cast<size_t>(e.to)];
        if (a == b) continue;
        const qint64 key = (static_cast<qint64>(a) << 32) | static_cast<quint32>(b);
        if (seen.contains(key)) continue;
        seen.insert(key);
        users[static_cast<size_t>(a)].push_back(b);
    }
    const QSizeF nodeSize(p.nodeWidth, p.nodeHeight);
    std::vector<QRectF> frame(static_cast<size_t>(count));
    for (int u = 0; u < count; ++u) {
        const Overview::Unit& unit = ov.units[static_cast<size_t>(u)];
        if (unit.kind != Overview::Kind::Open) continue;
        QRectF r;
        for (int m : g.clusters[static_cast<size_t>(unit.index)].nodes)
            r |= QRectF(pos[static_cast<size_t>(m)] - QPointF(nodeSize.width() / 2, nodeSize.height() / 2), nodeSize);
        frame[static_cast<size_t>(u)] = frameAround(r);
    }

    const std::vector<int> order = topoOrder(users, count);
    std::vector<int> rank(static_cast<size_t>(count));
    for (int k = 0; k < count; ++k) rank[static_cast<size_t>(order[static_cast<size_t>(k)])] = k;
    CanvasGraph ug;
    ug.nodes.resize(static_cast<size_t>(count));
    std::vector<QSizeF> sizes(static_cast<size_t>(count));
    for (int u = 0; u < count; ++u) {
        const size_t r = static_cast<size_t>(rank[static_cast<size_t>(u)]);
        const Overview::Kind k = ov.units[static_cast<size_t>(u)].kind;
        sizes[r] = k == Overview::Kind::Open                                      ? frame[static_cast<size_t>(u)].size()
                   : (k == Overview::Kind::Cluster || k == Overview::Kind::Stack) ? blockSize(p)
                                                                                  : nodeSize;
        for (int v : users[static_cast<size_t>(u)]) {
            const int rv = rank[static_cast<size_t>(v)];
            ug.nodes[r].users.push_back(rv);
            ug.nodes[static_cast<size_t>(rv)].inputs.push_back(static_cast<int>(r));
            ug.edges.push_back({static_cast<int>(r), rv, {}});
        }
    }
    const GraphLayout l = layoutLayered(ug, p, sizes);
    ov.keys.resize(static_cast<size_t>(count));
    for (int u = 0; u < count; ++u)
        ov.keys[static_cast<size_t>(u)] = unitKeyOf(g, ov, ov.units[static_cast<size_t>(u)]);
    // Each unit's box: the previous placement kept where it can be, else the fresh layout's.
    std::vector<QSizeF> unitSize(static_cast<size_t>(count));
    for (int u = 0; u < count; ++u)
        unitSize[static_cast<size_t>(u)] = sizes[static_cast<size_t>(rank[static_cast<size_t>(u)])];
    std::vector<QRectF> box;
    ov.kept = !previous.isEmpty() && keepPlacement(ov, unitSize, users, previous, p, box);
    if (!ov.kept) {
        box.resize(static_cast<size_t>(count));
        for (int u = 0; u < count; ++u) {
            const QSizeF& sz = unitSize[static_cast<size_t>(u)];
            box[static_cast<size_t>(u)] = QRectF(l.pos[static_cast<size_t>(rank[static_cast<size_t>(u)])] -
                                                     QPointF(sz.width() / 2, sz.height() / 2),
                                                 sz);
        }
    }
    // What routeOverview needs: Graphviz routes the edges between the units where they are, later
    // and off the UI thread (tens of ms for a few dozen units, a third of a second for densenet's
    // hundred edges).
    ov.unitAt.assign(static_cast<size_t>(count), 0);
    for (int u = 0; u < count; ++u) ov.unitAt[static_cast<size_t>(rank[static_cast<size_t>(u)])] = u;
    ov.unitPos.assign(static_cast<size_t>(count), QPointF());
    for (int u = 0; u < count; ++u)
        ov.unitPos[static_cast<size_t>(rank[static_cast<size_t>(u)])] = box[static_cast<size_t>(u)].center();
    ov.unitSizes = sizes;
    ov.unitGraph = std::move(ug);
    for (int u = 0; u < count; ++u) {
        Overview::Unit& unit = ov.units[static_cast<size_t>(u)];
        unit.rect = box[static_cast<size_t>(u)];
        if (unit.kind == Overview::Kind::Open) unit.shift = unit.rect.center() - frame[static_cast<size_t>(u)].center();
    }
    return ov;
}

QHash<qint64, QPolygonF> routeOverview(const Overview& ov) {
    QHash<qint64, QPolygonF> out;
    if (!ov.active || ov.unitGraph.edges.empty() || ov.unitGraph.edges.size() > kRoutedEdges) return out;
    const auto keyOf = [&](const CanvasEdge& e) {
        return Overview::unitKey(ov.unitAt[static_cast<size_t>(e.from)], ov.unitAt[static_cast<size_t>(e.to)]);
    };
    // Routes carried over from the previous placement (both ends stayed, or moved together) hold;
    // after a block opens or closes only the edges that lost theirs are routed, each among the
    // boxes near it (all at once takes Graphviz most of a second for gpt2_12's 120 edges).
    const auto open = [&](int rank) {
        return ov.units[static_cast<size_t>(ov.unitAt[static_cast<size_t>(rank)])].kind == Overview::Kind::Open;
    };
    std::vector<int> missing;
    for (size_t e = 0; e < ov.unitGraph.edges.size(); ++e) {
        const CanvasEdge& ce = ov.unitGraph.edges[e];
        // Edges into an expanded cluster are drawn to its nodes, not along a route to its frame.
        if (open(ce.from) || open(ce.to)) continue;
        const qint64 key = keyOf(ce);
        auto it = ov.routes.constFind(key);
        if (it != ov.routes.constEnd())
            out.insert(key, *it);
        else
            missing.push_back(static_cast<int>(e));
    }
    if (missing.empty()) return out;
    const bool all = out.isEmpty();
    if (all) {
        out.clear();
        missing.resize(ov.unitGraph.edges.size());
        for (size_t e = 0; e < missing.size(); ++e) missing[e] = static_cast<int>(e);
    }
    const std::vector<QPolygonF> routes = all ? routeWithGraphviz(ov.unitGraph, ov.unitPos, ov.unitSizes)
                                              : routeEdgesLocally(ov.unitGraph, ov.unitPos, ov.unitSizes, missing);
    for (size_t k = 0; k < missing.size() && k < routes.size(); ++k)
        if (!routes[k].isEmpty()) out.insert(keyOf(ov.unitGraph.edges[static_cast<size_t>(missing[k])]), routes[k]);
    return out;
}

}  // namespace fxray::views
