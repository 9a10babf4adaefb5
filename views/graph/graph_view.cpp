#include "graph/graph_view.h"

#include "graph/graph_items.h"
#include "graph/graph_scene.h"

#include <QFontInfo>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace fxray::views {

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent) {
    setObjectName(QStringLiteral("graphView"));
    setDragMode(QGraphicsView::ScrollHandDrag);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    // Items repaint themselves cheaply; repainting the exposed region beats tracking many
    // small rectangles when thousands of items move at once.
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState | QGraphicsView::DontAdjustForAntialiasing);
    setFocusPolicy(Qt::StrongFocus);
    m_minimap = new Minimap(this);
    connect(horizontalScrollBar(), &QScrollBar::valueChanged, this, &GraphView::viewChanged);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &GraphView::viewChanged);
}

void GraphView::zoomBy(double factor) {
    const double z = zoom() * factor;
    if (z < 0.002 || z > 8) return;
    scale(factor, factor);
    Q_EMIT viewChanged();
}

double GraphView::readableZoom() {
    const int px = QFontInfo(nodeLabelFont()).pixelSize();
    return std::max(kTextLod, kReadableTextPx / std::max(px, 1));
}

void GraphView::fitGraph() {
    auto* s = qobject_cast<GraphScene*>(scene());
    if (!s) return;
    QRectF r = s->graphRect();
    if (r.isEmpty()) return;
    fitInView(r.adjusted(-20, -20, 20, 20), Qt::KeepAspectRatio);
    // Fitted whole, a big graph is a texture of specks (issue 18): start at its top at the
    // smallest readable zoom instead, centred on what is there (the minimap shows the rest).
    const double z = readableZoom();
    if (zoom() < z) {
        setTransform(QTransform::fromScale(z, z));
        const double bandH = viewport()->height() / z;
        QRectF band;
        for (QGraphicsItem* it : s->items(QRectF(r.left(), r.top(), r.width(), bandH), Qt::IntersectsItemBoundingRect))
            if (it->isVisible() && (it->type() == NodeItem::Type || it->type() == ClusterItem::Type))
                band |= it->sceneBoundingRect();
        if (band.isEmpty()) band = r;
        // Wider than the view: start at the left end of the band, where the graph's inputs are.
        const double halfW = viewport()->width() / 2 / z;
        const double x = band.width() <= 2 * halfW ? band.center().x() : band.left() + halfW - 20 / z;
        centerOn(QPointF(x, r.top() + bandH / 2 - 20 / z));
    }
    Q_EMIT viewChanged();
}

void GraphView::focusOn(const QRectF& r) {
    // Readable, with the neighbourhood around it in view.
    if (zoom() < 0.5) setTransform(QTransform::fromScale(0.65, 0.65));
    centerOn(r.center());
    Q_EMIT viewChanged();
}

void GraphView::wheelEvent(QWheelEvent* e) {
    if (e->modifiers() & Qt::ControlModifier) {
        const double steps = e->angleDelta().y() / 120.0;
        zoomBy(std::pow(1.18, steps));
        e->accept();
        return;
    }
    QGraphicsView::wheelEvent(e);
}

void GraphView::resizeEvent(QResizeEvent* e) {
    QGraphicsView::resizeEvent(e);
    placeMinimap();
    Q_EMIT viewChanged();
}

void GraphView::paintEvent(QPaintEvent* e) {
    const bool detailed = zoom() >= kTextLod;
    setRenderHint(QPainter::Antialiasing, detailed);
    setRenderHint(QPainter::TextAntialiasing, detailed);
    if (auto* s = qobject_cast<GraphScene*>(scene())) s->setEdgesDrawn(zoom() >= kEdgeLod);
    QGraphicsView::paintEvent(e);
}

void GraphView::scrollContentsBy(int dx, int dy) {
    QGraphicsView::scrollContentsBy(dx, dy);
    m_minimap->update();
}

void GraphView::placeMinimap() {
    const int w = std::clamp(viewport()->width() / 5, 120, 240);
    const int h = std::clamp(viewport()->height() / 4, 90, 220);
    m_minimap->setGeometry(viewport()->width() - w - 10, viewport()->height() - h - 10, w, h);
    m_minimap->invalidate();
}

// ---- Minimap ------------------------------------------------------------------------------

Minimap::Minimap(GraphView* view) : QWidget(view->viewport()), m_view(view) {
    setObjectName(QStringLiteral("minimap"));
    setCursor(Qt::PointingHandCursor);
    setToolTip(tr("Overview: click or drag to move the view"));
    connect(view, &GraphView::viewChanged, this, qOverload<>(&QWidget::update));
}

void Minimap::invalidate() {
    m_dirty = true;
    update();
}

QRectF Minimap::thumbRect() const {
    auto* s = qobject_cast<GraphScene*>(m_view->scene());
    if (!s || s->graphRect().isEmpty()) return {};
    const QRectF g = s->graphRect();
    const double k = std::min((width() - 8) / g.width(), (height() - 8) / g.height());
    const QSizeF sz(g.width() * k, g.height() * k);
    return QRectF(QPointF((width() - sz.width()) / 2, (height() - sz.height()) / 2), sz);
}

void Minimap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    auto* s = qobject_cast<GraphScene*>(m_view->scene());
    QColor bg = palette().color(QPalette::Base);
    bg.setAlpha(225);
    p.fillRect(rect(), bg);
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(rect().adjusted(0, 0, -1, -1));
    if (!s || s->graphRect().isEmpty()) return;
    const QRectF tr = thumbRect();
    if (m_dirty || m_thumb.size() != tr.size().toSize()) {
        m_thumb = QPixmap(tr.size().toSize().expandedTo(QSize(1, 1)));
        m_thumb.fill(Qt::transparent);
        QPainter tp(&m_thumb);
        s->setDrawingThumbnail(true);
        s->render(&tp, QRectF(QPointF(0, 0), tr.size()), s->graphRect());
        s->setDrawingThumbnail(false);
        m_dirty = false;
    }
    p.drawPixmap(tr.topLeft(), m_thumb);
    // The visible area, mapped from scene to thumbnail coordinates.
    const QRectF g = s->graphRect();
    const QRectF vis = m_view->mapToScene(m_view->viewport()->rect()).boundingRect();
    const double k = tr.width() / g.width();
    QRectF box((vis.left() - g.left()) * k + tr.left(), (vis.top() - g.top()) * k + tr.top(), vis.width() * k,
               vis.height() * k);
    p.setPen(QPen(palette().color(QPalette::Highlight), 1.5));
    QColor fill = palette().color(QPalette::Highlight);
    fill.setAlpha(40);
    p.setBrush(fill);
    p.drawRect(box.intersected(QRectF(rect()).adjusted(1, 1, -1, -1)));
}

void Minimap::moveTo(QPointF pos) {
    auto* s = qobject_cast<GraphScene*>(m_view->scene());
    if (!s) return;
    const QRectF tr = thumbRect();
    if (tr.isEmpty()) return;
    const QRectF g = s->graphRect();
    const double k = g.width() / tr.width();
    m_view->centerOn(QPointF(g.left() + (pos.x() - tr.left()) * k, g.top() + (pos.y() - tr.top()) * k));
    update();
}

void Minimap::mousePressEvent(QMouseEvent* e) { moveTo(e->position()); }
void Minimap::mouseMoveEvent(QMouseEvent* e) {
    if (e->buttons() & Qt::LeftButton) moveTo(e->position());
}

}  // namespace fxray::views
