#pragma once
/// The scene's items: a box per node (op, name, output type), an edge per use (its tensor type
/// on hover), and a frame per cluster that collapses into one box. Painting is level-of-detail:
/// zoomed out, nodes are plain coloured boxes and edges disappear, so a 20,000-node overview
/// still pans smoothly; text appears once it would be readable.
#include "graph/canvas_graph.h"

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QPolygonF>
#include <QStaticText>

#include <vector>

namespace fxray::views {

/// Below this zoom nodes are plain boxes without text, edges have no arrowheads and the view
/// draws without antialiasing: text would be unreadable anyway, and the overview must pan at
/// 60 fps on big graphs.
constexpr double kTextLod = 0.42;
/// Below this zoom edges are not drawn at all (the view marks them as having no contents, so
/// Qt skips them without a paint call each).
constexpr double kEdgeLod = 0.07;

/// The font of a node's first line (its op): the text that must stay readable on screen.
const QFont& nodeLabelFont();

/// What the diff colouring says about a node.
enum class DiffMark : uint8_t { None, Added, Removed, Rewritten };

class NodeItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    NodeItem(int index, const CanvasNode* node, QSizeF size, bool ghost = false);
    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

    int index() const { return m_index; }  ///< -1 for a ghost
    const CanvasNode* node() const { return m_node; }
    QString name() const { return m_name; }
    bool isGhost() const { return m_ghost; }

    QColor fill() const { return m_fill; }
    void setFill(QColor c);
    /// A coloured frame drawn over the normal border (saved value, recomputed, search hit).
    QColor frame() const { return m_frame; }
    void setFrame(QColor c, bool dashed = false);
    DiffMark mark() const { return m_mark; }
    void setMark(DiffMark m) { m_mark = m; }
    void setSearchHit(bool on);

private:
    int m_index;
    const CanvasNode* m_node;
    QString m_name, m_op, m_type;
    /// The three lines as drawn (elided to the box once: eliding per paint cost a third of a
    /// frame while panning at a readable zoom).
    /// Laid out once as static text: drawText shapes its string on every call, which made the
    /// text of a readable view most of a frame while panning (llama's joint graph: 10-19 ms).
    QStaticText m_opLine, m_nameLine, m_typeLine;
    bool m_linesReady = false;
    QSizeF m_size;
    bool m_ghost;
    bool m_dashedFrame = false;
    bool m_searchHit = false;
    DiffMark m_mark = DiffMark::None;
    QColor m_fill, m_frame;
};

class ClusterItem;
class EdgeLayer;

/// A group of node items (their parent) that draws nothing itself: its box holds its nodes, so
/// Qt skips all of them at once when the box is out of view (ItemContainsChildrenInShape). Qt
/// otherwise tests every node's bounding box in every frame, index or not (20,000 nodes: 6 ms,
/// and a BSP index was slower still on a graph a million units tall).
class NodeTile : public QGraphicsItem {
public:
    enum { Type = UserType + 6 };
    NodeTile();
    int type() const override { return Type; }
    QRectF boundingRect() const override { return m_rect; }
    void paint(QPainter*, const QStyleOptionGraphicsItem*, QWidget*) override {}
    /// Fits the box around the visible children.
    void fitChildren();

private:
    QRectF m_rect;
};

/// A short text on the canvas drawn at a fixed size on screen (it ignores the view's zoom), on a
/// box of the background colour: the count and bytes of a block's cut edges stay readable in the
/// overview, where node text is long gone.
class EdgeLabelItem : public QGraphicsItem {
public:
    enum { Type = UserType + 4 };
    /// QGraphicsItem::data keys of a cut label: its saved tensors' count (int) and bytes (qint64).
    enum DataKey { kLabelCount = 0, kLabelBytes = 1 };
    EdgeLabelItem(const QString& text, QColor ink, QGraphicsItem* parent);
    int type() const override { return Type; }
    QString text() const { return m_text; }
    QRectF boundingRect() const override { return m_rect; }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    /// The font: the node label's (nodeLabelFont), so its pixel height is the readable minimum.
    static const QFont& font();

private:
    QString m_text;
    QColor m_ink;
    QRectF m_rect;
};

/// An edge between two items (nodes, or collapsed clusters standing in for them).
class EdgeItem : public QGraphicsPathItem {
public:
    enum { Type = UserType + 2 };
    EdgeItem(int index, const QString& typeText);
    int type() const override { return Type; }
    int index() const { return m_index; }
    /// Endpoints: the items whose boxes it joins; `route` are dot's Bezier points (may be empty).
    void setEnds(QGraphicsItem* from, QGraphicsItem* to, const QPolygonF& route = {});
    QGraphicsItem* from() const { return m_from; }
    QGraphicsItem* to() const { return m_to; }
    /// Graphviz's Bezier points, or empty (then a plain curve joins the boxes).
    const QPolygonF& route() const { return m_route; }
    void setHighlight(QColor c, double width);
    QColor highlight() const { return m_highlight; }
    /// Dashed: an edge of a removed node (diff ghosts).
    void setDashed(bool on) { m_dashed = on; }
    bool dashed() const { return m_dashed; }
    void updatePath();
    /// Drawn by `layer` (not an item of the scene itself): it is told when the edge changes.
    void setLayer(EdgeLayer* layer) { m_layer = layer; }
    QPainterPath shape() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    int m_index;
    QGraphicsItem* m_from = nullptr;
    QGraphicsItem* m_to = nullptr;
    QPolygonF m_route;
    QPolygonF m_head;  ///< arrowhead at the end, computed with the path (not per paint)
    /// The path flattened once, with the length along it at each point, for edges longer than
    /// the view (paint() strokes only what is near their ends).
    QPolygonF m_flat;
    std::vector<double> m_along;
    QColor m_highlight;
    double m_width = 1.2;
    bool m_dashed = false;
    EdgeLayer* m_layer = nullptr;
};

/// A cluster's frame, or (with `stackCount` > 0) the frame of a stack of repeated clusters:
/// collapsed, a stack is drawn as a pile of cards labelled "× N" and `nodeCount` is per cluster.
class ClusterItem : public QGraphicsItem {
public:
    enum { Type = UserType + 3 };
    ClusterItem(int index, const QString& label, int nodeCount, int stackCount = 0);
    int type() const override { return Type; }
    int index() const { return m_index; }  ///< into clusters, or into stacks for a stack
    QString label() const { return m_label; }
    bool isStack() const { return m_stackCount > 0; }
    int stackCount() const { return m_stackCount; }
    /// Frames these nodes (their bounding rectangle), leaving room for the header.
    void setMembersRect(const QRectF& r);
    /// The box exactly (a collapsed block placed by the overview).
    void setBox(const QRectF& r);
    bool collapsed() const { return m_collapsed; }
    void setCollapsed(bool c);
    QRectF boundingRect() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
    /// The box edges attach to while collapsed.
    QRectF box() const { return m_rect; }
    /// An overlay's aggregate of the block's children: the collapsed box is filled with `fill`
    /// and shows `value` under its label; an invalid colour clears it.
    void setOverlay(const QColor& fill, const QString& value);
    QColor overlayFill() const { return m_overlayFill; }
    QString overlayValue() const { return m_overlayValue; }
    /// Point size of a collapsed block's label at this level of detail: it grows as the view
    /// zooms out, so that it stays readable from far away.
    static double labelPointSize(double lod, const QRectF& box);

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) override;
    void mousePressEvent(QGraphicsSceneMouseEvent* e) override;

private:
    void toggle();
    int m_index;
    QString m_label;
    int m_count;
    int m_stackCount;
    QRectF m_rect;
    bool m_collapsed = false;
    QColor m_overlayFill;
    QString m_overlayValue;
};

}  // namespace fxray::views
