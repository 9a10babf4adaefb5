#pragma once
/// The overview: where things go while some clusters or stacks are collapsed. A collapsed
/// cluster (or stack of repeated clusters) becomes one block the size of a few nodes, instead of
/// a box over the place its nodes had in the full layout (which left a big graph's first view
/// an empty expanse of cluster background). The units — blocks, expanded clusters (their nodes
/// keep the full layout's arrangement and move as one), the graph's free nodes, and bundles of
/// inputs that only feed collapsed blocks (a model's weights: a hundred of them in one row would
/// be spaghetti) — are laid out again by the layered layout with a size per unit. There are a few
/// dozen units, so this runs on the UI thread each time a block opens or closes; Graphviz then
/// routes the edges between the units (splines around the boxes: no free curves) on the canvas's
/// worker (routeOverview), and the edges take the routes when they arrive.
///
/// Opening or closing one block moves the rest only as much as needed: given the previous
/// placement (by unit key), units that are still there keep their boxes, the block's new contents
/// are laid out on their own where the block was, and what lies below the block moves down (or up)
/// by the change of its height, what lies beside it in its row sideways by the change of its width.
/// When that would make two boxes overlap, everything is laid out again.
#include "graph/canvas_graph.h"
#include "graph/graph_layout.h"

#include <QHash>
#include <QPointF>
#include <QPolygonF>
#include <QRectF>

#include <vector>

namespace fxray::views {

struct Overview {
    enum class Kind : uint8_t {
        Node,     ///< a node outside any cluster, drawn as itself
        Bundle,   ///< inputs feeding only collapsed blocks, drawn as one box (index into bundles)
        Cluster,  ///< a collapsed cluster
        Stack,    ///< a collapsed stack of repeated clusters
        Open,     ///< an expanded cluster: its nodes move by `shift`
    };
    struct Unit {
        Kind kind = Kind::Node;
        int index = 0;  ///< node, bundle, cluster or stack index (Open: the cluster)
        QRectF rect;    ///< where the unit's box is drawn (Open: around its nodes)
        QPointF shift;  ///< Open: added to its nodes' positions in the full layout
    };
    /// False when nothing is collapsed: the full layout stands as it is.
    bool active = false;
    std::vector<Unit> units;
    std::vector<int> unitOf;                // per node: the unit that shows it
    std::vector<std::vector<int>> bundles;  // the input nodes of each bundle
    /// Graphviz's Bezier points of the edge between two units, by unitKey(from, to); empty until
    /// routeOverview's result is installed (GraphScene::setOverviewRoutes), or without Graphviz.
    QHash<qint64, QPolygonF> routes;
    /// The units as laid out, for routeOverview: their graph (by rank), centres and sizes, and
    /// the unit at each rank.
    CanvasGraph unitGraph;
    std::vector<QPointF> unitPos;
    std::vector<QSizeF> unitSizes;
    std::vector<int> unitAt;
    /// Per unit: what identifies it from one placement to the next (and from pass to pass): its
    /// kind and the cluster's or stack's label, the node's name, a bundle's input names.
    std::vector<QString> keys;
    /// The previous placement was kept (the units moved only to make room), not laid out afresh.
    bool kept = false;
    /// Each unit's box by key, for the next layoutOverview.
    QHash<QString, QRectF> placement() const;
    static qint64 unitKey(int from, int to) { return (static_cast<qint64>(from) << 32) | static_cast<quint32>(to); }
};

/// Above this many edges between units, routing would take seconds: they stay plain curves.
constexpr size_t kRoutedEdges = 400;

/// Size of a collapsed block on the canvas: room for a label of two or three lines that stays
/// readable at the view's minimum zoom.
QSizeF blockSize(const LayoutParams& p);

/// Lays out the units of `g` given the full layout `pos` and which clusters and stacks are
/// collapsed (by index). A collapsed stack hides its clusters, whatever their own state. With
/// `previous` (Overview::placement of the last one), keeps that placement and makes room (see
/// the file comment). `pos` of an expanded cluster's nodes may be relative to any origin (a block
/// layout's); the unit's shift puts them in place.
Overview layoutOverview(const CanvasGraph& g, const std::vector<QPointF>& pos,
                        const std::vector<char>& clusterCollapsed, const std::vector<char>& stackCollapsed,
                        const LayoutParams& p, const QHash<QString, QRectF>& previous = {});

/// Graphviz's routes of the edges between `ov`'s units (Overview::routes); empty without
/// Graphviz or above kRoutedEdges. The routes `ov` carries already (kept from the previous
/// placement) stay; when only a few are missing, those are routed one by one among the boxes near
/// them. Reads only `ov`: runs on a worker.
QHash<qint64, QPolygonF> routeOverview(const Overview& ov);

}  // namespace fxray::views
