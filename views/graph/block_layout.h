#pragma once
/// A block's own layout (issue 18 item 3): opening one cluster of a big graph lays out only that
/// cluster. Its nodes get a Graphviz dot layout of their own and its inner edges dot's splines,
/// computed on the canvas's worker; the rest of the graph keeps its place (the overview makes room,
/// overview_layout.h). Positions and routes are relative to the centre of the block's nodes, so the
/// overview can put the block anywhere. After a pass, a block that was open keeps its nodes where
/// they were (placeBlockKeeping) and only its routes are computed again.
#include "graph/canvas_graph.h"
#include "graph/graph_layout.h"

#include <QHash>
#include <QPointF>
#include <QPolygonF>
#include <QString>

#include <memory>
#include <vector>

namespace fxray::views {

struct BlockLayout {
    int cluster = -1;
    std::vector<QPointF> pos;       ///< per member (CanvasCluster::nodes order), centred on (0, 0)
    std::vector<int> edges;         ///< the inner edges (both ends members), CanvasGraph edge indices
    std::vector<QPolygonF> routes;  ///< per inner edge: Graphviz's spline, same origin; empty until routed
    /// Every inner edge has its spline (a block without inner edges counts as routed).
    bool routed() const;
};

/// The inner edges of `cluster`, as BlockLayout::edges lists them.
std::vector<int> innerEdges(const CanvasGraph& g, int cluster);

/// Placement without routes, on the UI thread: members named in `keep` (node name -> position
/// relative to the block's centre, from the block's layout at the previous pass) stay there, the
/// others go next to their neighbours (layoutIncremental on the block). Empty `pos` when fewer than
/// half the members are known (the worker lays the block out afresh).
BlockLayout placeBlockKeeping(const CanvasGraph& g, int cluster, const QHash<QString, QPointF>& keep,
                              const LayoutParams& p);

/// On the worker: with `placed`, the routes of its inner edges where its nodes are (those of
/// `memory`, the block's routes at the previous pass, where both ends stayed; Graphviz's for the
/// rest); without, a dot layout of the block with its routes (the layered layout, unrouted, when
/// Graphviz is missing or the block has more than p.dotNodeLimit nodes).
BlockLayout layoutBlock(const CanvasGraph& g, int cluster, const LayoutParams& p, const BlockLayout* placed = nullptr,
                        const RouteMemory& memory = {});

/// What the canvas asks the worker for: a block, its placement when its nodes are placed already,
/// and its routes at the previous pass.
struct BlockRequest {
    int cluster = -1;
    std::shared_ptr<const BlockLayout> placed;
    RouteMemory memory;
};

}  // namespace fxray::views
