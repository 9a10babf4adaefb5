#pragma once
/// EdgeLayer: one scene item that draws all of a graph's edges (EdgeItem objects that are not in
/// the scene themselves). Qt finds the items to draw in a frame by testing each one's bounding box,
/// mapped through the view's transform, against the exposed area, with or without an index: for
/// the 20,000-node graph expanded that is 30,000 edges a frame, and a BSP index does not help
/// either, since a long edge's box spans most of the scene and sits in most of the tree's leaves
/// (14-18 ms a frame while panning, most of it finding the handful of items to draw). The layer
/// keeps its own grid of which edges pass through which cell, following each edge's curve rather
/// than its box, rebuilt lazily after edges move, and draws only the edges in the exposed cells.
/// Hovering an edge shows its tensor type as before; clicks go through to what lies below.
#include <QGraphicsItem>
#include <QHash>

#include <QRectF>

#include <utility>
#include <vector>

namespace fxray::views {

class EdgeItem;
class GraphScene;

class EdgeLayer : public QGraphicsItem {
public:
    enum { Type = UserType + 5 };
    /// Side of a grid cell in scene units (a few node widths).
    static constexpr double kCell = 1024;
    /// Edges longer than this many cells are kept in a list of their own, tested by their box.
    static constexpr double kLongCells = 24;

    explicit EdgeLayer(const std::vector<EdgeItem*>* edges);
    int type() const override { return Type; }
    /// The area the edges may cover (the scene rect).
    void setBounds(const QRectF& r);
    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    /// True over a drawn edge (tooltips and hover find the layer only there).
    bool contains(const QPointF& point) const override;
    /// An edge's path changed: the grid is rebuilt before the next paint.
    void edgesMoved();
    /// The visible, drawn edge under `point`, or null.
    EdgeItem* edgeAt(const QPointF& point) const;
    /// The edges whose curves may pass through `area` (each once, by index): what a paint of that
    /// area considers.
    std::vector<int> edgesIn(const QRectF& area) const { return candidates(area); }
    /// Edges the last paint considered and drew (tests, bench_gui).
    int lastCandidates() const { return m_lastCandidates; }
    int lastDrawn() const { return m_lastDrawn; }

protected:
    void hoverMoveEvent(QGraphicsSceneHoverEvent* e) override;

private:
    static qint64 cellKey(qint64 cx, qint64 cy) { return (cx << 32) ^ (cy & 0xffffffff); }
    void rebuild() const;
    /// Edge indices in the cells touching `area`, each once, in index order.
    std::vector<int> candidates(const QRectF& area) const;
    bool drawn(const EdgeItem* e) const;

    const std::vector<EdgeItem*>* m_edges;
    QRectF m_bounds;
    mutable QHash<qint64, std::vector<int>> m_cells;
    mutable std::vector<std::pair<int, QRectF>> m_long;
    mutable bool m_dirty = true;
    mutable std::vector<unsigned> m_seen;
    mutable unsigned m_stamp = 0;
    int m_lastCandidates = 0, m_lastDrawn = 0;
};

}  // namespace fxray::views
