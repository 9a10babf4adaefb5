#pragma once
/// GraphView: the QGraphicsView of the canvas — wheel zoom around the cursor (Ctrl+wheel, or a
/// pinch), drag on the background to pan, fit to the graph, and a minimap in the corner.
#include <QGraphicsView>

namespace fxray::views {

class Minimap;

/// On-screen height of node label text below which it counts as unreadable (issue 18).
constexpr double kReadableTextPx = 8.0;

class GraphView : public QGraphicsView {
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);

    void zoomBy(double factor);
    /// Fits the graph, but never below readableZoom(): a graph too big for that is shown from
    /// its top at the readable zoom, and the rest is reached by scrolling (or the minimap).
    void fitGraph();
    /// The smallest zoom at which node label text is kReadableTextPx high on screen.
    static double readableZoom();
    double zoom() const { return transform().m11(); }
    Minimap* minimap() const { return m_minimap; }
    /// Centres on a rectangle, zooming in so that a node is readable (used by search).
    void focusOn(const QRectF& r);

Q_SIGNALS:
    void viewChanged();

protected:
    void wheelEvent(QWheelEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void scrollContentsBy(int dx, int dy) override;
    /// Antialiasing only where text is drawn (kTextLod): the overview is plain boxes.
    void paintEvent(QPaintEvent* e) override;

private:
    void placeMinimap();
    Minimap* m_minimap = nullptr;
};

/// A thumbnail of the whole scene with the visible area framed; click or drag to move there.
class Minimap : public QWidget {
    Q_OBJECT
public:
    explicit Minimap(GraphView* view);
    /// Re-renders the thumbnail (after a layout or colouring change); cheap to call often.
    void invalidate();

protected:
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;

private:
    QRectF thumbRect() const;
    void moveTo(QPointF widgetPos);
    GraphView* m_view;
    QPixmap m_thumb;
    bool m_dirty = true;
};

}  // namespace fxray::views
