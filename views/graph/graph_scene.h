#pragma once
/// GraphScene: the QGraphicsScene of one laid-out CanvasGraph — node, edge and cluster items —
/// and the colourings the canvas offers: by op category, as a diff against the previous
/// snapshot (added green, removed red ghosts, rewritten amber), by partition region (forward /
/// backward, saved values framed, recomputed nodes dashed, the cut's edges in red), and by
/// numeric error (a heat map of log10 rel_err from `fxray compare`). The partition's cut edges
/// are bundled per pair of blocks: one red edge, thicker with more tensors, per forward block and
/// backward block it joins, and on each forward block a label with the count and bytes of the
/// saved tensors its cut edges carry, as the partition pane's Lanes tab does. It knows nothing about the
/// Document; GraphCanvas translates between the two.
#include "graph/block_layout.h"
#include "graph/canvas_graph.h"
#include "graph/graph_items.h"
#include "graph/graph_layout.h"
#include "graph/node_overlay.h"
#include "graph/overview_layout.h"

#include <QGraphicsScene>
#include <QHash>
#include <QSet>
#include <QStringList>

#include <memory>
#include <vector>

namespace fxray::views {

class EdgeLayer;

/// What changed between the previous snapshot and the shown graph.
struct DiffInfo {
    QSet<QString> added;
    QSet<QString> rewritten;
    /// Removed nodes with where they were drawn (ghosts) and their op.
    struct Ghost {
        QString name, op, type;
        QPointF pos;
    };
    std::vector<Ghost> removed;
    /// Edges of the previous snapshot with a removed node at one end (from, to): drawn dashed
    /// between the ghost and its neighbour, so a removed node shows what it was connected to.
    std::vector<std::pair<QString, QString>> ghostEdges;
};

/// The partition as the canvas colours it (names of the shown graph).
struct PartitionInfo {
    QHash<QString, int> region;  ///< 0 forward, 1 backward, 2 unclaimed
    QSet<QString> saved;
    QSet<QString> recomputed;
    QSet<QString> cut;             ///< nodes whose edges into the backward are cut
    QHash<QString, qint64> bytes;  ///< saved value -> its bytes
    /// Saved values that are inputs or views of them (no activation memory): framed, but their
    /// edges are not drawn as cut (a model's weights would be a red line each).
    QSet<QString> savedInputs;
};

class GraphScene : public QGraphicsScene {
    Q_OBJECT
public:
    enum class Colouring { Category, Diff, Partition, Numerics, Overlay };

    explicit GraphScene(QObject* parent = nullptr);
    ~GraphScene() override;

    /// Replaces every item. Clusters and stacks whose label is in `collapsed` start collapsed.
    /// While any is collapsed the items are placed by the overview (overview_layout.h), else
    /// where `layout` put them.
    void setGraph(std::shared_ptr<const CanvasGraph> g, const GraphLayout& layout, const LayoutParams& params,
                  const QSet<QString>& collapsed);
    void clearGraph();
    const CanvasGraph* graph() const { return m_graph.get(); }
    std::shared_ptr<const CanvasGraph> sharedGraph() const { return m_graph; }
    /// Graphviz's routes for the full layout's edges (an incremental layout, routed after it was
    /// installed), by edge index; ignored unless `g` is the graph shown.
    void setLayoutRoutes(const CanvasGraph* g, const std::vector<QPolygonF>& routes);

    NodeItem* nodeItem(int index) const;
    NodeItem* nodeItem(const QString& name) const;
    /// Items standing for graph nodes (ghosts excluded).
    int nodeItemCount() const { return static_cast<int>(m_nodes.size()); }
    /// The graph's edges, by CanvasGraph edge index. They are not items of the scene: one layer
    /// item draws them (edge_layer.h), which finds those in view without Qt testing each.
    const std::vector<EdgeItem*>& edgeItems() const { return m_edges; }
    EdgeLayer* edgeLayer() const { return m_edgeLayer; }
    const std::vector<ClusterItem*>& clusterItems() const { return m_clusters; }
    /// One per CanvasGraph::stacks entry (repeated layers).
    const std::vector<ClusterItem*>& stackItems() const { return m_stacks; }
    /// Boxes standing for inputs that only feed collapsed blocks (no node index of their own).
    const std::vector<NodeItem*>& bundleItems() const { return m_bundles; }
    /// The placement in force (inactive when nothing is collapsed).
    const Overview& overview() const { return m_overview; }
    /// Counts the overview's placements: routes computed for an older one are dropped.
    int overviewGeneration() const { return m_overviewGeneration; }
    /// Installs routeOverview's result for placement `generation` (ignored when the overview was
    /// placed again since) and redraws the edges along them.
    void setOverviewRoutes(int generation, const QHash<qint64, QPolygonF>& routes);
    /// Expanded clusters (in the overview) still waiting for their block layout or its routes
    /// (block_layout.h), each with the placement to route when its nodes are placed already
    /// (after a pass: they keep their places), else null.
    std::vector<BlockRequest> blocksWanted() const;
    /// Installs block layouts computed for graph `g` (ignored when another graph is shown): each
    /// block takes its layout, the overview makes room for it and its inner edges take the routes.
    void setBlockLayouts(const CanvasGraph* g, const std::vector<BlockLayout>& layouts);
    /// The block layout of cluster `index` in force, or null (the full layout's arrangement).
    const BlockLayout* blockLayout(int index) const;
    /// The edges into and out of expanded blocks in the overview, as boxes and edges for
    /// routeEdgesLocally (on a worker), and the edge each stands for.
    struct CrossRouteRequest {
        int generation = 0;
        CanvasGraph graph;
        std::vector<QPointF> pos;
        std::vector<QSizeF> sizes;
        std::vector<int> which;   ///< all of graph's edges
        std::vector<int> edgeOf;  ///< per graph edge: the CanvasGraph edge it routes
    };
    /// What crossRoutesWanted asks for (null when nothing).
    std::shared_ptr<const CrossRouteRequest> crossRouteRequest() const { return m_crossRequest; }
    /// Installs the routes computed for request `generation` (ignored when things moved since).
    void setCrossRoutes(int generation, const std::vector<QPolygonF>& routes);
    /// Forgets the overview's placement and the blocks' layouts kept from graph to graph (another
    /// file: nothing of them applies).
    void forgetPlacement();
    const std::vector<NodeItem*>& ghostItems() const { return m_ghosts; }
    const std::vector<EdgeItem*>& ghostEdgeItems() const { return m_ghostEdges; }
    /// Centre of every node by name (what the next pass's layout keeps).
    QHash<QString, QPointF> positions() const;
    /// Bounding rectangle of the graph's items.
    QRectF graphRect() const { return m_graphRect; }

    /// Whether edges are drawn at all (the view turns them off below kEdgeLod; highlighted edges
    /// stay drawn). Visibility, and so every test of it, is unaffected.
    void setEdgesDrawn(bool drawn);
    bool edgesDrawn() const { return m_edgesDrawn; }

    void setDark(bool dark);
    bool dark() const { return m_dark; }
    Colouring colouring() const { return m_colouring; }
    void colourByCategory();
    void colourDiff(const DiffInfo& diff);
    void colourPartition(const PartitionInfo& part);
    /// The bundles of cut edges drawn while colouring by partition (see the class comment), and
    /// the labels on the blocks they leave.
    const std::vector<EdgeItem*>& cutBundleItems() const { return m_cutBundles; }
    const std::vector<EdgeLabelItem*>& cutLabelItems() const { return m_cutLabels; }
    /// Set while the minimap renders the scene: items drawn at screen size stay out of it.
    bool drawingThumbnail() const { return m_thumbnail; }
    void setDrawingThumbnail(bool on) { m_thumbnail = on; }
    /// Heat map: each node filled by its relative error (canvas_colors::heat); nodes without an
    /// entry muted.
    void colourNumerics(const QHash<QString, double>& relErr);
    /// Any per-node overlay (node_overlay.h): nodes filled by their value, blocks by the
    /// aggregate of their children (shown on the collapsed box), nodes without a value muted.
    void colourOverlay(const NodeOverlay& overlay);
    /// The overlay in force (empty unless the colouring is Numerics or Overlay).
    const NodeOverlay& overlay() const { return m_overlay; }

    /// Selects these nodes (no selectionChangedByUser echo).
    void setSelectedNames(const QStringList& names);
    QStringList selectedNames() const;
    /// Marks search hits (frame) — empty clears.
    void setSearchHits(const QList<int>& indices);

    void setClusterCollapsed(int index, bool collapsed);
    void setStackCollapsed(int index, bool collapsed);
    void setAllCollapsed(bool collapsed);
    void toggleCluster(int index);
    void toggleStack(int index);
    QSet<QString> collapsedLabels() const;
    /// Expands the stack and the cluster holding node `index`, if collapsed (to show a search hit).
    void revealNode(int index);

    /// Nodes per NodeTile (neighbours in the full layout, row by row).
    static constexpr size_t kNodesPerTile = 128;

Q_SIGNALS:
    /// The user changed the selection by clicking (not setSelectedNames).
    void selectionChangedByUser(const QStringList& names);
    void clustersChanged();
    /// The overview was placed again and its edges wait for Graphviz's routes (routeOverview).
    void overviewRoutesWanted();
    /// Expanded clusters wait for their own layouts (blocksWanted).
    void blockLayoutsWanted();
    /// Edges into and out of expanded blocks wait for routes (crossRouteRequest).
    void crossRoutesWanted();

private:
    void onSelectionChanged();
    void refreshVisibility();
    /// Places nodes, blocks and bundles for the current collapse state (the overview, or the
    /// full layout when nothing is collapsed) and updates graphRect.
    void placeItems();
    void clearBundles();
    void clearGhosts();
    void resetMarks();
    /// Attaches each edge to the items that show its ends (a collapsed block for hidden nodes).
    void attachEdges();
    /// The item an edge to `node` attaches to: the node, or the block or bundle standing for it.
    QGraphicsItem* anchorOf(int node) const;
    void bundleCut();
    void clearCutBundles();

    std::shared_ptr<const CanvasGraph> m_graph;
    std::vector<NodeItem*> m_nodes;
    std::vector<NodeTile*> m_tiles;  ///< the nodes' parents
    std::vector<EdgeItem*> m_edges;  ///< not items of the scene: m_edgeLayer draws them
    EdgeLayer* m_edgeLayer = nullptr;
    std::vector<QPolygonF> m_routes;
    std::vector<ClusterItem*> m_clusters;
    std::vector<ClusterItem*> m_stacks;
    std::vector<QPointF> m_layoutPos;  ///< the full layout, by node index
    /// Per cluster: its own layout (null until computed, or while it was never opened), whether the
    /// worker has answered for it, and per edge the inner edges' routes of those layouts.
    std::vector<std::shared_ptr<const BlockLayout>> m_blocks;
    std::vector<char> m_blockTried;
    std::vector<QPolygonF> m_innerRoutes;
    /// Per edge: the route of an edge into or out of an expanded block, for placement
    /// m_crossGeneration (empty until it comes).
    std::vector<QPolygonF> m_crossRoutes;
    int m_crossGeneration = 0;
    std::shared_ptr<const CrossRouteRequest> m_crossRequest;
    void askForCrossRoutes();
    void rebuildInnerRoutes();
    /// Survive setGraph (stepping passes): each block's node positions by label and name, and
    /// the overview's placement by unit key.
    QHash<QString, QHash<QString, QPointF>> m_blockHistory;
    QHash<QString, RouteMemory> m_blockRouteHistory;
    QHash<QString, QRectF> m_placement;
    /// The last placement of each graph shown (by fingerprint): a pass revisited looks as it did.
    QHash<quint64, QHash<QString, QRectF>> m_placements;
    Overview m_overview;
    int m_overviewGeneration = 0;
    std::vector<NodeItem*> m_bundles;
    std::vector<std::unique_ptr<CanvasNode>> m_bundleNodes;
    LayoutParams m_params;
    std::vector<NodeItem*> m_ghosts;
    std::vector<EdgeItem*> m_ghostEdges;
    std::vector<std::unique_ptr<CanvasNode>> m_ghostNodes;
    QSizeF m_nodeSize;
    QRectF m_graphRect;
    bool m_dark = false;
    bool m_settingSelection = false;
    bool m_edgesDrawn = true;
    Colouring m_colouring = Colouring::Category;
    NodeOverlay m_overlay;
    QList<int> m_searchHits;
    PartitionInfo m_partition;
    std::vector<EdgeItem*> m_cutBundles;
    std::vector<EdgeLabelItem*> m_cutLabels;
    bool m_thumbnail = false;
    std::vector<int> m_bundledEdges;  ///< edges hidden because a bundle carries them
};

}  // namespace fxray::views
