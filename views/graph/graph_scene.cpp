#include "graph/graph_scene.h"

#include "graph/canvas_colors.h"
#include "graph/edge_layer.h"

#include <QLocale>
#include <QSet>

#include <cmath>
#include <optional>

#include <algorithm>

namespace fxray::views {

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent) {
    m_dark = canvas_colors::darkPalette();
    // No index: items move, show and hide by the thousand on every pass and toggle, which a BSP
    // tree would follow item by item (expanding the 20,000-node graph: 0.4 -> 1.7 s); and what a
    // frame walks is short without one: a few hundred top-level items, the nodes grouped in tiles
    // (NodeTile) and the edges drawn by one layer (EdgeLayer).
    setItemIndexMethod(QGraphicsScene::NoIndex);
    setBackgroundBrush(canvas_colors::background(m_dark));
    connect(this, &QGraphicsScene::selectionChanged, this, &GraphScene::onSelectionChanged);
}

GraphScene::~GraphScene() {
    // Items point at m_graph's nodes; delete them first.
    m_settingSelection = true;
    clear();
    qDeleteAll(m_edges);
}

void GraphScene::clearGraph() {
    m_settingSelection = true;
    clear();
    m_settingSelection = false;
    m_nodes.clear();
    m_tiles.clear();
    m_edgeLayer = nullptr;  // an item of the scene: gone with clear()
    qDeleteAll(m_edges);
    m_edges.clear();
    m_routes.clear();
    m_edgesDrawn = true;  // new edges start drawn; the view turns them off again if zoomed out
    m_clusters.clear();
    m_stacks.clear();
    m_layoutPos.clear();
    m_blocks.clear();
    m_blockTried.clear();
    m_innerRoutes.clear();
    m_crossRoutes.clear();
    m_crossRequest.reset();
    ++m_crossGeneration;
    m_overview = Overview();
    m_bundles.clear();
    m_bundleNodes.clear();
    m_ghosts.clear();
    m_ghostEdges.clear();
    m_ghostNodes.clear();
    m_cutBundles.clear();
    m_cutLabels.clear();
    m_bundledEdges.clear();
    m_searchHits.clear();
    m_graph.reset();
    m_graphRect = QRectF();
}

void GraphScene::setGraph(std::shared_ptr<const CanvasGraph> g, const GraphLayout& layout, const LayoutParams& params,
                          const QSet<QString>& collapsed) {
    clearGraph();
    m_graph = std::move(g);
    if (!m_graph) return;
    m_nodeSize = QSizeF(params.nodeWidth, params.nodeHeight);
    m_params = params;
    const auto& nodes = m_graph->nodes;
    m_nodes.reserve(nodes.size());
    m_layoutPos.assign(nodes.size(), QPointF());
    for (size_t i = 0; i < nodes.size(); ++i) {
        auto* item = new NodeItem(static_cast<int>(i), &nodes[i], m_nodeSize);
        if (i < layout.pos.size()) m_layoutPos[i] = layout.pos[i];
        item->setPos(m_layoutPos[i]);
        m_nodes.push_back(item);
    }
    // Nodes near each other in the full layout share a tile: taken row by row, a tile is a strip
    // of a wide row or a band of a few narrow ones (by graph order, the first tile would hold the
    // inputs, which a layered layout spreads over the whole graph). Open clusters move as one in
    // the overview, so tiles stay compact there too.
    std::vector<int> byPlace(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) byPlace[i] = static_cast<int>(i);
    std::sort(byPlace.begin(), byPlace.end(), [&](int a, int b) {
        const QPointF& pa = m_layoutPos[static_cast<size_t>(a)];
        const QPointF& pb = m_layoutPos[static_cast<size_t>(b)];
        return pa.y() != pb.y() ? pa.y() < pb.y() : pa.x() < pb.x();
    });
    for (size_t k = 0; k < byPlace.size(); ++k) {
        if (k % kNodesPerTile == 0) {
            m_tiles.push_back(new NodeTile());
            addItem(m_tiles.back());
        }
        m_nodes[static_cast<size_t>(byPlace[k])]->setParentItem(m_tiles.back());
    }
    m_routes = layout.routes;
    m_routes.resize(m_graph->edges.size());
    // The graph's edges are drawn by one layer item (edge_layer.h), not as items of their own.
    m_edges.reserve(m_graph->edges.size());
    m_edgeLayer = new EdgeLayer(&m_edges);
    addItem(m_edgeLayer);
    for (size_t i = 0; i < m_graph->edges.size(); ++i) {
        auto* e = new EdgeItem(static_cast<int>(i), m_graph->edges[i].type);
        e->setLayer(m_edgeLayer);
        m_edges.push_back(e);
    }
    if (auto seen = m_placements.constFind(m_graph->fingerprint); seen != m_placements.constEnd()) m_placement = *seen;
    // Blocks that were open at the previous pass keep their nodes' places (routed on the worker).
    m_blocks.assign(m_graph->clusters.size(), nullptr);
    m_blockTried.assign(m_graph->clusters.size(), 0);
    for (size_t c = 0; c < m_graph->clusters.size(); ++c) {
        const CanvasCluster& cl = m_graph->clusters[c];
        auto kept = m_blockHistory.constFind(cl.label);
        if (collapsed.contains(cl.label) || kept == m_blockHistory.constEnd()) continue;
        BlockLayout b = placeBlockKeeping(*m_graph, static_cast<int>(c), *kept, params);
        if (!b.pos.empty()) m_blocks[c] = std::make_shared<const BlockLayout>(std::move(b));
    }
    rebuildInnerRoutes();
    for (size_t c = 0; c < m_graph->clusters.size(); ++c) {
        const CanvasCluster& cl = m_graph->clusters[c];
        auto* item = new ClusterItem(static_cast<int>(c), cl.label, static_cast<int>(cl.nodes.size()));
        item->setCollapsed(collapsed.contains(cl.label));
        addItem(item);
        m_clusters.push_back(item);
    }
    for (size_t k = 0; k < m_graph->stacks.size(); ++k) {
        const CanvasStack& st = m_graph->stacks[k];
        auto* item = new ClusterItem(static_cast<int>(k), st.label, st.nodesEach, static_cast<int>(st.clusters.size()));
        item->setCollapsed(collapsed.contains(st.label));
        addItem(item);
        m_stacks.push_back(item);
    }
    refreshVisibility();
    switch (m_colouring) {
    case Colouring::Category:
    case Colouring::Diff:
    case Colouring::Partition:
    case Colouring::Numerics: colourByCategory(); break;
    case Colouring::Overlay: {
        // An overlay set directly (not through a canvas mode) stays on the new graph.
        const NodeOverlay o = m_overlay;
        colourOverlay(o);
        break;
    }
    }
}

NodeItem* GraphScene::nodeItem(int index) const {
    return index >= 0 && index < static_cast<int>(m_nodes.size()) ? m_nodes[static_cast<size_t>(index)] : nullptr;
}

NodeItem* GraphScene::nodeItem(const QString& name) const {
    return m_graph ? nodeItem(m_graph->indexOf(name)) : nullptr;
}

QHash<QString, QPointF> GraphScene::positions() const {
    QHash<QString, QPointF> out;
    out.reserve(static_cast<qsizetype>(m_nodes.size()));
    for (NodeItem* n : m_nodes) out.insert(n->name(), n->pos());
    return out;
}

void GraphScene::clearBundles() {
    for (NodeItem* b : m_bundles) {
        removeItem(b);
        delete b;
    }
    m_bundles.clear();
    m_bundleNodes.clear();
}

void GraphScene::placeItems() {
    // Things move: the routes of edges into expanded blocks no longer hold.
    m_crossRoutes.clear();
    ++m_crossGeneration;
    std::vector<char> clusterShut(m_clusters.size()), stackShut(m_stacks.size());
    for (size_t c = 0; c < m_clusters.size(); ++c) clusterShut[c] = m_clusters[c]->collapsed();
    for (size_t k = 0; k < m_stacks.size(); ++k) stackShut[k] = m_stacks[k]->collapsed();
    // Expanded clusters with a layout of their own are drawn as it has them.
    std::vector<QPointF> pos = m_layoutPos;
    for (size_t c = 0; c < m_blocks.size(); ++c)
        if (m_blocks[c]) {
            const std::vector<int>& members = m_graph->clusters[c].nodes;
            for (size_t k = 0; k < members.size() && k < m_blocks[c]->pos.size(); ++k)
                pos[static_cast<size_t>(members[k])] = m_blocks[c]->pos[k];
        }
    // The routes between units that stay (or move together) hold until Graphviz's new ones come.
    struct OldRoute {
        QString from, to;
        QPolygonF route;
    };
    std::vector<OldRoute> oldRoutes;
    const QHash<QString, QRectF> before = m_placement;
    if (m_overview.active)
        for (auto it = m_overview.routes.constBegin(); it != m_overview.routes.constEnd(); ++it) {
            const size_t a = static_cast<size_t>(it.key() >> 32), b = static_cast<size_t>(it.key() & 0xffffffff);
            if (a < m_overview.keys.size() && b < m_overview.keys.size())
                oldRoutes.push_back({m_overview.keys[a], m_overview.keys[b], it.value()});
        }
    m_overview = layoutOverview(*m_graph, pos, clusterShut, stackShut, m_params, m_placement);
    ++m_overviewGeneration;
    if (m_overview.active) {
        m_placement = m_overview.placement();
        m_placements.insert(m_graph->fingerprint, m_placement);
        if (m_overview.kept && !oldRoutes.empty()) {
            QHash<QString, int> unitByKey;
            for (size_t u = 0; u < m_overview.keys.size(); ++u)
                unitByKey.insert(m_overview.keys[u], static_cast<int>(u));
            const auto moved = [&](int u) {
                const QRectF was = before.value(m_overview.keys[static_cast<size_t>(u)]);
                const QRectF& now = m_overview.units[static_cast<size_t>(u)].rect;
                return was.size() == now.size() ? std::optional<QPointF>(now.topLeft() - was.topLeft()) : std::nullopt;
            };
            for (const OldRoute& r : oldRoutes) {
                const int a = unitByKey.value(r.from, -1), b = unitByKey.value(r.to, -1);
                if (a < 0 || b < 0) continue;
                const auto da = moved(a), db = moved(b);
                if (da && db && *da == *db) m_overview.routes.insert(Overview::unitKey(a, b), r.route.translated(*da));
            }
        }
    }
    clearBundles();
    QRectF bounds;
    auto membersRect = [&](const std::vector<int>& members) {
        QRectF r;
        for (int n : members) r |= m_nodes[static_cast<size_t>(n)]->sceneBoundingRect().adjusted(4, 4, -4, -4);
        return r;
    };
    if (!m_overview.active) {
        // Nothing collapsed: the full layout as computed.
        for (size_t i = 0; i < m_nodes.size(); ++i) {
            m_nodes[i]->setPos(m_layoutPos[i]);
            m_nodes[i]->setVisible(true);
            bounds |= m_nodes[i]->sceneBoundingRect();
        }
        for (size_t c = 0; c < m_clusters.size(); ++c) {
            m_clusters[c]->setMembersRect(membersRect(m_graph->clusters[c].nodes));
            m_clusters[c]->setVisible(true);
            bounds |= m_clusters[c]->sceneBoundingRect();
        }
    } else {
        for (size_t i = 0; i < m_nodes.size(); ++i) {
            const Overview::Unit& u = m_overview.units[static_cast<size_t>(m_overview.unitOf[i])];
            const bool shown = u.kind == Overview::Kind::Node || u.kind == Overview::Kind::Open;
            // Hidden nodes sit on the block that stands for them (ensureVisible goes there).
            m_nodes[i]->setPos(u.kind == Overview::Kind::Open ? pos[i] + u.shift : u.rect.center());
            m_nodes[i]->setVisible(shown);
            if (shown) bounds |= m_nodes[i]->sceneBoundingRect();
        }
        for (ClusterItem* c : m_clusters) c->setVisible(false);
        for (const Overview::Unit& u : m_overview.units) {
            switch (u.kind) {
            case Overview::Kind::Node: break;
            case Overview::Kind::Cluster:
            case Overview::Kind::Open: {
                ClusterItem* c = m_clusters[static_cast<size_t>(u.index)];
                if (u.kind == Overview::Kind::Cluster)
                    c->setBox(u.rect);
                else
                    c->setMembersRect(membersRect(m_graph->clusters[static_cast<size_t>(u.index)].nodes));
                c->setVisible(true);
                break;
            }
            case Overview::Kind::Stack: m_stacks[static_cast<size_t>(u.index)]->setBox(u.rect); break;
            case Overview::Kind::Bundle: {
                const std::vector<int>& inputs = m_overview.bundles[static_cast<size_t>(u.index)];
                auto cn = std::make_unique<CanvasNode>();
                cn->cls = NodeClass::Input;
                cn->op = tr("%n input(s)", nullptr, static_cast<int>(inputs.size()));
                const QString& first = m_graph->nodes[static_cast<size_t>(inputs.front())].name;
                const QString& last = m_graph->nodes[static_cast<size_t>(inputs.back())].name;
                cn->name = (inputs.size() == 2 ? QStringLiteral("%1, %2") : QStringLiteral("%1 … %2")).arg(first, last);
                cn->type = tr("used only in blocks below");
                QStringList names;
                for (int n : inputs) names << m_graph->nodes[static_cast<size_t>(n)].name;
                cn->source = names.join(QStringLiteral(", "));
                auto* item = new NodeItem(-1, cn.get(), m_nodeSize);
                item->setFlag(QGraphicsItem::ItemIsSelectable, false);
                item->setFill(canvas_colors::classFill(NodeClass::Input, m_dark));
                item->setPos(u.rect.center());
                addItem(item);
                m_bundles.push_back(item);
                m_bundleNodes.push_back(std::move(cn));
                break;
            }
            }
            bounds |= u.rect;
        }
    }
    // Stacks: collapsed, a block placed above; expanded, a frame around their clusters.
    for (size_t k = 0; k < m_stacks.size(); ++k) {
        ClusterItem* st = m_stacks[k];
        if (st->collapsed()) {
            st->setVisible(m_overview.active);
            continue;
        }
        QRectF r;
        for (int c : m_graph->stacks[k].clusters) r |= m_clusters[static_cast<size_t>(c)]->box();
        st->setBox(r.adjusted(-14, -34, 14, 14));
        st->setVisible(true);
        bounds |= st->sceneBoundingRect();
    }
    m_graphRect = bounds;
    // A fixed scene rect: Qt would otherwise recompute the bounds of every item on each change.
    setSceneRect(bounds.adjusted(-400, -400, 400, 400));
    m_edgeLayer->setBounds(sceneRect());
    for (NodeTile* t : m_tiles) t->fitChildren();
}

void GraphScene::refreshVisibility() {
    if (!m_graph) return;
    clearCutBundles();
    placeItems();
    attachEdges();
    if (m_colouring == Colouring::Partition) bundleCut();
    if (m_overview.active && m_params.useDot && !m_overview.unitGraph.edges.empty()) Q_EMIT overviewRoutesWanted();
    if (!blocksWanted().empty())
        Q_EMIT blockLayoutsWanted();  // the edges into the blocks are routed once they are placed
    else
        askForCrossRoutes();
}

void GraphScene::askForCrossRoutes() {
    m_crossRequest.reset();
    if (!m_overview.active || !m_params.useDot) return;
    const auto own = [&](int u) { return m_overview.units[static_cast<size_t>(u)].kind != Overview::Kind::Open; };
    // The boxes drawn (nodes, blocks, bundles) that the edges join or pass, by item.
    auto req = std::make_shared<CrossRouteRequest>();
    req->generation = m_crossGeneration;
    QHash<const QGraphicsItem*, int> boxIndex;
    const auto add = [&](const QGraphicsItem* it) {
        auto found = boxIndex.constFind(it);
        if (found != boxIndex.constEnd()) return *found;
        const QRectF r = it->type() == ClusterItem::Type ? static_cast<const ClusterItem*>(it)->box()
                                                         : it->sceneBoundingRect().adjusted(4, 4, -4, -4);
        req->pos.push_back(r.center());
        req->sizes.push_back(r.size());
        req->graph.nodes.emplace_back();
        return *boxIndex.insert(it, static_cast<int>(req->pos.size()) - 1);
    };
    for (NodeItem* n : m_nodes)
        if (n->isVisible()) add(n);
    for (NodeItem* b : m_bundles) add(b);
    for (const auto* list : {&m_clusters, &m_stacks})
        for (ClusterItem* c : *list)
            if (c->isVisible() && c->collapsed()) add(c);
    for (size_t i = 0; i < m_edges.size(); ++i) {
        EdgeItem* e = m_edges[i];
        if (!e->isVisible()) continue;
        const CanvasEdge& ce = m_graph->edges[i];
        const int ua = m_overview.unitOf[static_cast<size_t>(ce.from)];
        const int ub = m_overview.unitOf[static_cast<size_t>(ce.to)];
        // Inside one block (its own layout's routes) or between units drawn as themselves (the
        // overview's): routed already.
        if (ua == ub || (own(ua) && own(ub))) continue;
        req->graph.edges.push_back({add(e->from()), add(e->to()), {}});
        req->which.push_back(static_cast<int>(req->graph.edges.size()) - 1);
        req->edgeOf.push_back(static_cast<int>(i));
    }
    if (req->edgeOf.empty()) return;
    m_crossRequest = std::move(req);
    Q_EMIT crossRoutesWanted();
}

void GraphScene::setCrossRoutes(int generation, const std::vector<QPolygonF>& routes) {
    if (generation != m_crossGeneration || !m_crossRequest || !m_overview.active) return;
    m_crossRoutes.assign(m_edges.size(), QPolygonF());
    for (size_t k = 0; k < routes.size() && k < m_crossRequest->edgeOf.size(); ++k)
        m_crossRoutes[static_cast<size_t>(m_crossRequest->edgeOf[k])] = routes[k];
    clearCutBundles();
    attachEdges();
    if (m_colouring == Colouring::Partition) bundleCut();
}

std::vector<BlockRequest> GraphScene::blocksWanted() const {
    std::vector<BlockRequest> out;
    if (!m_overview.active || !m_params.useDot) return out;
    for (const Overview::Unit& u : m_overview.units) {
        if (u.kind != Overview::Kind::Open) continue;
        const size_t c = static_cast<size_t>(u.index);
        if (m_blockTried[c] || (m_blocks[c] && m_blocks[c]->routed())) continue;
        out.push_back({u.index, m_blocks[c], m_blockRouteHistory.value(m_graph->clusters[c].label)});
    }
    return out;
}

void GraphScene::setBlockLayouts(const CanvasGraph* g, const std::vector<BlockLayout>& layouts) {
    if (!m_graph || g != m_graph.get()) return;
    for (const BlockLayout& b : layouts) {
        if (b.cluster < 0 || b.cluster >= static_cast<int>(m_blocks.size())) continue;
        const size_t c = static_cast<size_t>(b.cluster);
        m_blockTried[c] = 1;
        if (b.pos.size() != m_graph->clusters[c].nodes.size()) continue;
        m_blocks[c] = std::make_shared<const BlockLayout>(b);
        const std::vector<int>& members = m_graph->clusters[c].nodes;
        QHash<QString, QPointF>& kept = m_blockHistory[m_graph->clusters[c].label];
        kept.clear();
        QHash<int, QPointF> at;
        for (size_t k = 0; k < b.pos.size(); ++k) {
            kept.insert(m_graph->nodes[static_cast<size_t>(members[k])].name, b.pos[k]);
            at.insert(members[k], b.pos[k]);
        }
        // Its routes, for the next pass: those whose ends stay are not routed again.
        RouteMemory& routes = m_blockRouteHistory[m_graph->clusters[c].label];
        routes.clear();
        for (size_t k = 0; k < b.edges.size() && k < b.routes.size(); ++k) {
            if (b.routes[k].isEmpty()) continue;
            const CanvasEdge& ce = m_graph->edges[static_cast<size_t>(b.edges[k])];
            routes.insert(routeKey(m_graph->nodes[static_cast<size_t>(ce.from)].name,
                                   m_graph->nodes[static_cast<size_t>(ce.to)].name),
                          {b.routes[k], at.value(ce.from), at.value(ce.to)});
        }
    }
    rebuildInnerRoutes();
    refreshVisibility();
}

void GraphScene::setLayoutRoutes(const CanvasGraph* g, const std::vector<QPolygonF>& routes) {
    if (!m_graph || g != m_graph.get()) return;
    m_routes = routes;
    m_routes.resize(m_graph->edges.size());
    if (m_overview.active) return;  // the overview draws its own routes; these wait for "expand all"
    clearCutBundles();
    attachEdges();
    if (m_colouring == Colouring::Partition) bundleCut();
}

const BlockLayout* GraphScene::blockLayout(int index) const {
    return index >= 0 && index < static_cast<int>(m_blocks.size()) ? m_blocks[static_cast<size_t>(index)].get()
                                                                   : nullptr;
}

void GraphScene::forgetPlacement() {
    m_placement.clear();
    m_placements.clear();
    m_blockHistory.clear();
    m_blockRouteHistory.clear();
}

void GraphScene::rebuildInnerRoutes() {
    m_innerRoutes.assign(m_graph ? m_graph->edges.size() : 0, QPolygonF());
    for (const auto& b : m_blocks)
        if (b)
            for (size_t k = 0; k < b->edges.size() && k < b->routes.size(); ++k)
                m_innerRoutes[static_cast<size_t>(b->edges[k])] = b->routes[k];
}

void GraphScene::setOverviewRoutes(int generation, const QHash<qint64, QPolygonF>& routes) {
    if (generation != m_overviewGeneration || !m_overview.active || routes.isEmpty()) return;
    m_overview.routes = routes;
    clearCutBundles();
    attachEdges();
    if (m_colouring == Colouring::Partition) bundleCut();
}

QGraphicsItem* GraphScene::anchorOf(int node) const {
    NodeItem* it = m_nodes[static_cast<size_t>(node)];
    if (it->isVisible()) return it;
    const Overview::Unit& u = m_overview.units[static_cast<size_t>(m_overview.unitOf[static_cast<size_t>(node)])];
    switch (u.kind) {
    case Overview::Kind::Stack: return m_stacks[static_cast<size_t>(u.index)];
    case Overview::Kind::Bundle: return m_bundles[static_cast<size_t>(u.index)];
    default: return m_clusters[static_cast<size_t>(u.index)];
    }
}

void GraphScene::attachEdges() {
    // Edges into or out of a collapsed cluster attach to its box; parallel ones are drawn once.
    QSet<QPair<QGraphicsItem*, QGraphicsItem*>> seen;
    for (size_t i = 0; i < m_edges.size(); ++i) {
        const CanvasEdge& ce = m_graph->edges[i];
        QGraphicsItem* a = anchorOf(ce.from);
        QGraphicsItem* b = anchorOf(ce.to);
        bool show = a != b;
        if (show && (a->type() == ClusterItem::Type || b->type() == ClusterItem::Type)) {
            auto key = qMakePair(a, b);
            show = !seen.contains(key);
            seen.insert(key);
        }
        m_edges[i]->setVisible(show);
        if (!show) continue;
        // dot's routes: of the full layout, or in the overview of the edge between two units
        // drawn as themselves (not nodes inside an expanded cluster, which moved as one).
        QPolygonF route = m_overview.active ? QPolygonF() : m_routes[i];
        if (m_overview.active) {
            const int ua = m_overview.unitOf[static_cast<size_t>(ce.from)];
            const int ub = m_overview.unitOf[static_cast<size_t>(ce.to)];
            const auto own = [&](int u) {
                return m_overview.units[static_cast<size_t>(u)].kind != Overview::Kind::Open;
            };
            if (own(ua) && own(ub))
                route = m_overview.routes.value(Overview::unitKey(ua, ub));
            else if (ua == ub && !m_innerRoutes[i].isEmpty())
                // Inside an expanded block: its own layout's spline, where the block is drawn.
                route = m_innerRoutes[i].translated(m_overview.units[static_cast<size_t>(ua)].shift);
            else if (ua != ub && i < m_crossRoutes.size())
                // Into or out of an expanded block (askForCrossRoutes).
                route = m_crossRoutes[i];
        }
        m_edges[i]->setEnds(a, b, route);
    }
    // Shown and hidden edges: the layer draws what is visible now.
    if (m_edgeLayer) m_edgeLayer->update();
}

void GraphScene::clearCutBundles() {
    for (EdgeItem* b : m_cutBundles) {
        removeItem(b);
        delete b;
    }
    m_cutBundles.clear();
    for (EdgeLabelItem* l : m_cutLabels) {
        removeItem(l);
        delete l;
    }
    m_cutLabels.clear();
    // The edges a bundle carried were shown before it hid them.
    for (int i : m_bundledEdges) m_edges[static_cast<size_t>(i)]->setVisible(true);
    if (!m_bundledEdges.empty() && m_edgeLayer) m_edgeLayer->update();
    m_bundledEdges.clear();
}

void GraphScene::bundleCut() {
    clearCutBundles();
    if (!m_graph) return;
    // The block an end is drawn in: an expanded cluster's frame, a collapsed block, an inputs
    // bundle, or the node itself outside any cluster.
    auto blockOf = [&](int node) -> QGraphicsItem* {
        QGraphicsItem* a = anchorOf(node);
        if (a->type() != NodeItem::Type) return a;
        const int c = m_graph->nodes[static_cast<size_t>(node)].cluster;
        if (c >= 0 && m_clusters[static_cast<size_t>(c)]->isVisible()) return m_clusters[static_cast<size_t>(c)];
        return a;
    };
    struct Bundle {
        QGraphicsItem *from = nullptr, *to = nullptr;
        QList<int> saved;  // distinct saved nodes, graph order
        std::vector<int> edges;
        QPolygonF route;  // Graphviz's, when both ends are overview units drawn as themselves
    };
    std::vector<Bundle> bundles;
    QHash<QPair<QGraphicsItem*, QGraphicsItem*>, int> index;
    const QColor cut = canvas_colors::cut(m_dark);
    for (size_t i = 0; i < m_edges.size(); ++i) {
        const CanvasEdge& e = m_graph->edges[i];
        const QString& from = m_graph->nodes[static_cast<size_t>(e.from)].name;
        const QString& to = m_graph->nodes[static_cast<size_t>(e.to)].name;
        if (!m_partition.cut.contains(from) || m_partition.savedInputs.contains(from) ||
            m_partition.region.value(to, 2) != 1)
            continue;
        QGraphicsItem* a = blockOf(e.from);
        QGraphicsItem* b = blockOf(e.to);
        if (a == b || a->type() == NodeItem::Type) {
            // Inside one block, or from a node of its own (a small graph's): the edge itself.
            m_edges[i]->setHighlight(cut, 3.0);
            continue;
        }
        const auto key = qMakePair(a, b);
        auto it = index.constFind(key);
        if (it == index.constEnd()) {
            it = index.insert(key, static_cast<int>(bundles.size()));
            QPolygonF route;
            if (m_overview.active && a->type() == ClusterItem::Type && static_cast<ClusterItem*>(a)->collapsed() &&
                b->type() == ClusterItem::Type && static_cast<ClusterItem*>(b)->collapsed())
                route = m_overview.routes.value(Overview::unitKey(m_overview.unitOf[static_cast<size_t>(e.from)],
                                                                  m_overview.unitOf[static_cast<size_t>(e.to)]));
            bundles.push_back({a, b, {}, {}, route});
        }
        Bundle& bundle = bundles[static_cast<size_t>(*it)];
        if (!bundle.saved.contains(e.from)) bundle.saved << e.from;
        bundle.edges.push_back(static_cast<int>(i));
    }
    const auto bytesText = [](qint64 b) {
        return QLocale().formattedDataSize(b, 1, QLocale::DataSizeTraditionalFormat);
    };
    // Per block left: the saved tensors of all its bundles (a tensor read by two backward blocks
    // counts once).
    std::vector<QGraphicsItem*> sources;
    QHash<QGraphicsItem*, QList<int>> savedBy;
    for (const Bundle& b : bundles) {
        qint64 bytes = 0;
        QStringList names;
        for (int n : b.saved) {
            const QString& name = m_graph->nodes[static_cast<size_t>(n)].name;
            bytes += m_partition.bytes.value(name);
            if (names.size() < 12) names << name;
        }
        if (b.saved.size() > names.size()) names << QStringLiteral("…");
        for (int i : b.edges)
            if (m_edges[static_cast<size_t>(i)]->isVisible()) {
                m_edges[static_cast<size_t>(i)]->setVisible(false);
                m_bundledEdges.push_back(i);
            }
        auto* item = new EdgeItem(-1, tr("Cut: %n saved tensor(s) into this block of the backward, %1\n%2", nullptr,
                                         static_cast<int>(b.saved.size()))
                                          .arg(bytesText(bytes), names.join(QStringLiteral(", "))));
        // Thicker with more tensors (log: one bundle of hundreds must not hide the blocks).
        item->setHighlight(cut, std::clamp(2.0 + std::log2(static_cast<double>(b.saved.size())), 2.5, 9.0));
        // Above the blocks it crosses.
        item->setZValue(3);
        addItem(item);
        item->setEnds(b.from, b.to, b.route);
        m_cutBundles.push_back(item);
        if (!savedBy.contains(b.from)) sources.push_back(b.from);
        QList<int>& saved = savedBy[b.from];
        for (int n : b.saved)
            if (!saved.contains(n)) saved << n;
    }
    for (QGraphicsItem* from : sources) {
        const QList<int>& saved = savedBy.value(from);
        qint64 bytes = 0;
        for (int n : saved) bytes += m_partition.bytes.value(m_graph->nodes[static_cast<size_t>(n)].name);
        auto* label = new EdgeLabelItem(tr("✂ %n saved", nullptr, static_cast<int>(saved.size())) +
                                            QStringLiteral(" · ") + bytesText(bytes),
                                        cut, nullptr);
        label->setData(EdgeLabelItem::kLabelCount, static_cast<int>(saved.size()));
        label->setData(EdgeLabelItem::kLabelBytes, bytes);
        label->setToolTip(tr("The cut edges leaving this block: %n saved tensor(s) the backward reads", nullptr,
                             static_cast<int>(saved.size())));
        // On the bottom edge of the block, where its bundles leave.
        const QRectF box = from->type() == ClusterItem::Type ? static_cast<ClusterItem*>(from)->box()
                                                             : from->sceneBoundingRect().adjusted(4, 4, -4, -4);
        label->setPos(box.center().x(), box.bottom());
        label->setZValue(5);
        addItem(label);
        m_cutLabels.push_back(label);
    }
    if (m_edgeLayer) m_edgeLayer->update();
}

void GraphScene::setEdgesDrawn(bool drawn) {
    if (drawn == m_edgesDrawn) return;
    m_edgesDrawn = drawn;
    // The layer draws only highlighted edges while they are off.
    if (m_edgeLayer) m_edgeLayer->update();
}

void GraphScene::setClusterCollapsed(int index, bool collapsed) {
    if (index < 0 || index >= static_cast<int>(m_clusters.size())) return;
    if (m_clusters[static_cast<size_t>(index)]->collapsed() == collapsed) return;
    m_clusters[static_cast<size_t>(index)]->setCollapsed(collapsed);
    refreshVisibility();
    Q_EMIT clustersChanged();
}

void GraphScene::setStackCollapsed(int index, bool collapsed) {
    if (index < 0 || index >= static_cast<int>(m_stacks.size())) return;
    if (m_stacks[static_cast<size_t>(index)]->collapsed() == collapsed) return;
    m_stacks[static_cast<size_t>(index)]->setCollapsed(collapsed);
    refreshVisibility();
    Q_EMIT clustersChanged();
}

void GraphScene::toggleStack(int index) {
    if (index < 0 || index >= static_cast<int>(m_stacks.size())) return;
    setStackCollapsed(index, !m_stacks[static_cast<size_t>(index)]->collapsed());
}

void GraphScene::toggleCluster(int index) {
    if (index < 0 || index >= static_cast<int>(m_clusters.size())) return;
    setClusterCollapsed(index, !m_clusters[static_cast<size_t>(index)]->collapsed());
}

void GraphScene::setAllCollapsed(bool collapsed) {
    for (ClusterItem* c : m_clusters) c->setCollapsed(collapsed);
    for (ClusterItem* c : m_stacks) c->setCollapsed(collapsed);
    refreshVisibility();
    Q_EMIT clustersChanged();
}

QSet<QString> GraphScene::collapsedLabels() const {
    QSet<QString> out;
    for (ClusterItem* c : m_clusters)
        if (c->collapsed()) out.insert(c->label());
    for (ClusterItem* c : m_stacks)
        if (c->collapsed()) out.insert(c->label());
    return out;
}

void GraphScene::revealNode(int index) {
    if (!m_graph || index < 0 || index >= static_cast<int>(m_nodes.size())) return;
    const int c = m_graph->nodes[static_cast<size_t>(index)].cluster;
    if (c < 0) return;
    const int st = m_graph->clusters[static_cast<size_t>(c)].stack;
    if (st >= 0) setStackCollapsed(st, false);
    setClusterCollapsed(c, false);
}

void GraphScene::setDark(bool dark) {
    m_dark = dark;
    setBackgroundBrush(canvas_colors::background(dark));
    switch (m_colouring) {
    case Colouring::Category: colourByCategory(); break;
    default: update(); break;
    }
}

// ---- colourings ---------------------------------------------------------------------------

void GraphScene::clearGhosts() {
    for (EdgeItem* e : m_ghostEdges) {
        removeItem(e);
        delete e;
    }
    m_ghostEdges.clear();
    for (NodeItem* g : m_ghosts) {
        removeItem(g);
        delete g;
    }
    m_ghosts.clear();
    m_ghostNodes.clear();
}

void GraphScene::resetMarks() {
    clearGhosts();
    clearCutBundles();
    for (NodeItem* n : m_nodes) {
        n->setMark(DiffMark::None);
        n->setFrame(QColor());
    }
    for (EdgeItem* e : m_edges) e->setHighlight(QColor(), 1.2);
    m_overlay = NodeOverlay();
    for (ClusterItem* c : m_clusters) c->setOverlay(QColor(), QString());
    for (ClusterItem* c : m_stacks) c->setOverlay(QColor(), QString());
}

void GraphScene::colourByCategory() {
    m_colouring = Colouring::Category;
    resetMarks();
    if (!m_graph) return;
    for (size_t i = 0; i < m_nodes.size(); ++i)
        m_nodes[i]->setFill(canvas_colors::classFill(m_graph->nodes[i].cls, m_dark));
}

void GraphScene::colourDiff(const DiffInfo& diff) {
    m_colouring = Colouring::Diff;
    resetMarks();
    if (!m_graph) return;
    for (NodeItem* n : m_nodes) {
        const QString& name = n->name();
        if (diff.added.contains(name)) {
            n->setMark(DiffMark::Added);
            n->setFill(canvas_colors::added(m_dark));
        } else if (diff.rewritten.contains(name)) {
            n->setMark(DiffMark::Rewritten);
            n->setFill(canvas_colors::rewritten(m_dark));
        } else {
            n->setFill(canvas_colors::unchanged(m_dark));
        }
    }
    for (const DiffInfo::Ghost& g : diff.removed) {
        auto cn = std::make_unique<CanvasNode>();
        cn->name = g.name;
        cn->op = g.op;
        cn->type = g.type;
        auto* item = new NodeItem(-1, cn.get(), m_nodeSize, true);
        item->setMark(DiffMark::Removed);
        item->setFill(canvas_colors::removed(m_dark));
        item->setPos(g.pos);
        addItem(item);
        m_ghosts.push_back(item);
        m_ghostNodes.push_back(std::move(cn));
    }
    // The removed nodes' edges, dashed, to where their neighbours are drawn now (a collapsed
    // block for a hidden one).
    QHash<QString, NodeItem*> ghostByName;
    for (NodeItem* g : m_ghosts) ghostByName.insert(g->name(), g);
    auto itemOf = [&](const QString& name) -> QGraphicsItem* {
        if (NodeItem* g = ghostByName.value(name)) return g;
        const int i = m_graph->indexOf(name);
        return i >= 0 ? anchorOf(i) : nullptr;
    };
    for (const auto& [from, to] : diff.ghostEdges) {
        QGraphicsItem* a = itemOf(from);
        QGraphicsItem* b = itemOf(to);
        if (!a || !b || a == b) continue;
        auto* e = new EdgeItem(-1, tr("%1 → %2, removed by this pass").arg(from, to));
        e->setHighlight(canvas_colors::removed(m_dark), 1.5);
        e->setDashed(true);
        e->setZValue(0.5);
        addItem(e);
        e->setEnds(a, b);
        m_ghostEdges.push_back(e);
    }
}

void GraphScene::colourPartition(const PartitionInfo& part) {
    m_colouring = Colouring::Partition;
    resetMarks();
    m_partition = part;
    if (!m_graph) return;
    for (NodeItem* n : m_nodes) {
        const int region = part.region.value(n->name(), 2);
        n->setFill(region == 0   ? canvas_colors::forward(m_dark)
                   : region == 1 ? canvas_colors::backward(m_dark)
                                 : canvas_colors::unclaimed(m_dark));
        if (part.saved.contains(n->name()))
            n->setFrame(canvas_colors::saved(m_dark));
        else if (part.recomputed.contains(n->name()))
            n->setFrame(canvas_colors::recomputed(m_dark), true);
    }
    // The cut: every edge from a saved value into the backward, bundled per pair of blocks.
    bundleCut();
}

void GraphScene::colourNumerics(const QHash<QString, double>& relErr) {
    colourOverlay(NodeOverlay::numericError(relErr));
    m_colouring = Colouring::Numerics;
}

void GraphScene::colourOverlay(const NodeOverlay& overlay) {
    m_colouring = Colouring::Overlay;
    resetMarks();
    m_overlay = overlay;
    if (!m_graph) return;
    for (NodeItem* n : m_nodes) {
        auto it = overlay.values.constFind(n->name());
        n->setFill(it == overlay.values.constEnd() ? canvas_colors::unchanged(m_dark) : overlay.colour(*it, m_dark));
    }
    // Blocks: the aggregate of their children, so that a collapsed block still shows its worst
    // (or total) value.
    const auto mark = [&](ClusterItem* c, const std::vector<int>& nodes) {
        const auto v = overlay.aggregateOf(*m_graph, nodes);
        if (v)
            c->setOverlay(overlay.colour(*v, m_dark), overlay.format(*v));
        else
            c->setOverlay(canvas_colors::unchanged(m_dark), QString());
    };
    for (ClusterItem* c : m_clusters) mark(c, clusterNodes(*m_graph, c->index()));
    for (ClusterItem* c : m_stacks) mark(c, stackNodes(*m_graph, c->index()));
}

// ---- selection & search -------------------------------------------------------------------

void GraphScene::setSelectedNames(const QStringList& names) {
    m_settingSelection = true;
    clearSelection();
    for (const QString& n : names)
        if (NodeItem* it = nodeItem(n)) {
            revealNode(it->index());
            it->setSelected(true);
        }
    m_settingSelection = false;
}

QStringList GraphScene::selectedNames() const {
    QStringList out;
    // Graph order, so that the Document's selection is deterministic.
    for (NodeItem* n : m_nodes)
        if (n->isSelected()) out << n->name();
    return out;
}

void GraphScene::onSelectionChanged() {
    if (m_settingSelection) return;
    Q_EMIT selectionChangedByUser(selectedNames());
}

void GraphScene::setSearchHits(const QList<int>& indices) {
    for (int i : m_searchHits)
        if (NodeItem* n = nodeItem(i)) n->setSearchHit(false);
    m_searchHits = indices;
    for (int i : m_searchHits)
        if (NodeItem* n = nodeItem(i)) n->setSearchHit(true);
}

}  // namespace fxray::views
