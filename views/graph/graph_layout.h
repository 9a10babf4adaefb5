#pragma once
/// Node placement for the canvas. Three engines, picked by size and history:
///  - Graphviz `dot` (in dot_layout.cpp) for small graphs: the best-looking result, but on the
///    2-core CI machine it took 0.4 s at 300 nodes, 10 s at 800 and 60 s at 1,500 nodes of an
///    FX-like graph even with its iteration limits lowered, so it is only used up to
///    `LayoutParams::dotNodeLimit`;
///  - an own layered (Sugiyama-style) layout: longest-path layering with sources pulled down to
///    their first user, barycentric ordering sweeps, and greedy coordinate assignment; linear in
///    the graph apart from sorting, so 20,000 nodes take well under a second;
///  - an incremental placement that keeps every node of the previous pass where it was and puts
///    only new or rewritten nodes next to their neighbours, so stepping through passes does not
///    reshuffle the picture (Graphviz alone would re-lay everything).
/// All run on the canvas's layout worker; they read a CanvasGraph value and return positions.
#include "graph/canvas_graph.h"

#include <QHash>
#include <QPointF>
#include <QPolygonF>
#include <QSet>
#include <QSizeF>
#include <QString>

#include <vector>

namespace fxray::views {

struct LayoutParams {
    double nodeWidth = 200;
    double nodeHeight = 56;
    double rankGap = 44;  ///< vertical space between layers
    double nodeGap = 28;  ///< horizontal space between neighbours in a layer
    int dotNodeLimit = 400;
    bool useDot = true;
    double rankPitch() const { return nodeHeight + rankGap; }
};

struct GraphLayout {
    std::vector<QPointF> pos;       ///< centre of each node, by CanvasGraph index
    std::vector<QPolygonF> routes;  ///< per edge: Bezier control points (dot), or empty
    QString engine;                 ///< "dot", "layered", "incremental"
    double ms = 0;
    bool valid() const { return !pos.empty(); }
};

/// Graphviz dot; empty result (and `error`) when Graphviz cannot lay it out. `sizes`: a size per
/// node (by index), or all of p's size when empty. Graphviz is not thread-safe: calls are
/// serialised (the worker lays out small graphs while the UI thread lays out the overview).
GraphLayout layoutWithDot(const CanvasGraph& g, const LayoutParams& p, QString* error = nullptr,
                          const std::vector<QSizeF>& sizes = {});
/// Graphviz's edge routes (splines around the boxes, as dot draws them) for nodes already placed
/// (`pos`: centres, `sizes`: boxes), by edge index; empty without Graphviz. The overview places
/// its units with the layered layout and routes their edges with this.
std::vector<QPolygonF> routeWithGraphviz(const CanvasGraph& g, const std::vector<QPointF>& pos,
                                         const std::vector<QSizeF>& sizes);
/// Graphviz's routes for some edges only (`which`: edge indices; the result is in that order) of a
/// graph whose nodes are placed: each edge routed on its own around the boxes near the straight line
/// between its ends (the 20 nearest). Routing all edges at once takes Graphviz O(n^3) (32 s for
/// 326 nodes); an incremental layout reuses the routes of the edges that did not move and routes the
/// rest with this. Empty routes without Graphviz.
std::vector<QPolygonF> routeEdgesLocally(const CanvasGraph& g, const std::vector<QPointF>& pos,
                                         const std::vector<QSizeF>& sizes, const std::vector<int>& which);
/// A route as it was computed, with where its ends were then: it still holds while they stay.
struct KeptRoute {
    QPolygonF route;
    QPointF from, to;
};
/// Routes by routeKey(from name, to name).
using RouteMemory = QHash<QString, KeptRoute>;
QString routeKey(const QString& from, const QString& to);
/// Adds the non-empty `routes` of g's edges at `pos` to `memory`.
void rememberRoutes(RouteMemory& memory, const CanvasGraph& g, const std::vector<QPointF>& pos,
                    const std::vector<QPolygonF>& routes);
/// Routes of all g's edges at `pos`: from `memory` where both ends are where they were, the others
/// by routeEdgesLocally (on the worker: Graphviz).
std::vector<QPolygonF> routeKeeping(const CanvasGraph& g, const std::vector<QPointF>& pos,
                                    const std::vector<QSizeF>& sizes, const RouteMemory& memory);
/// The own layered layout.
GraphLayout layoutLayered(const CanvasGraph& g, const LayoutParams& p);
/// The same with a size per node (by index; all of p's size when `sizes` is empty): rows are as
/// tall as their tallest node and neighbours keep p.nodeGap between their boxes. The canvas's
/// overview lays out its blocks with it.
GraphLayout layoutLayered(const CanvasGraph& g, const LayoutParams& p, const std::vector<QSizeF>& sizes);
/// Keeps nodes of `previous` (by name) in place unless named in `moved`; places the rest near
/// their neighbours. Falls back to layoutLayered when too little of the graph is known.
GraphLayout layoutIncremental(const CanvasGraph& g, const QHash<QString, QPointF>& previous, const QSet<QString>& moved,
                              const LayoutParams& p);
/// dot up to the limit, else layered (the first layout of a graph).
GraphLayout layoutFresh(const CanvasGraph& g, const LayoutParams& p);

}  // namespace fxray::views
