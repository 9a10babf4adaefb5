#include "graph/graph_items.h"

#include "graph/canvas_colors.h"
#include "graph/edge_layer.h"
#include "graph/graph_scene.h"

#include <QFontMetricsF>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

#include <cmath>

namespace fxray::views {

const QFont& nodeLabelFont() {
    static const QFont f = [] {
        QFont x;
        x.setPointSizeF(9.5);
        x.setBold(true);
        return x;
    }();
    return f;
}

namespace {

const QFont& opFont() { return nodeLabelFont(); }
const QFont& smallFont() {
    static const QFont f = [] {
        QFont x;
        x.setPointSizeF(8);
        return x;
    }();
    return f;
}

QColor contrastText(QColor fill) {
    return fill.lightness() < 120 ? QColor(0xee, 0xee, 0xee) : QColor(0x1c, 0x1c, 0x1c);
}

}  // namespace

// ---- NodeItem -----------------------------------------------------------------------------

NodeItem::NodeItem(int index, const CanvasNode* node, QSizeF size, bool ghost)
        : m_index(index), m_node(node), m_name(node->name), m_op(node->op), m_type(node->type), m_size(size),
          m_ghost(ghost) {
    setFlag(ItemIsSelectable, !ghost);
    setZValue(ghost ? 0.5 : 1);
    QString tip = QStringLiteral("<b>%1</b> = %2<br>%3")
                      .arg(m_name.toHtmlEscaped(), m_op.toHtmlEscaped(), m_type.toHtmlEscaped());
    if (!node->source.isEmpty())
        tip += QStringLiteral("<br><small>%1</small>").arg(node->source.left(300).toHtmlEscaped());
    if (ghost) tip += QStringLiteral("<br><i>%1</i>").arg(QObject::tr("removed by this pass"));
    setToolTip(tip);
}

QRectF NodeItem::boundingRect() const {
    // The frame is drawn 3px outside the box.
    return QRectF(-m_size.width() / 2 - 4, -m_size.height() / 2 - 4, m_size.width() + 8, m_size.height() + 8);
}

void NodeItem::setFill(QColor c) {
    if (c == m_fill) return;
    m_fill = c;
    update();
}

void NodeItem::setFrame(QColor c, bool dashed) {
    m_frame = c;
    m_dashedFrame = dashed;
    update();
}

void NodeItem::setSearchHit(bool on) {
    if (on == m_searchHit) return;
    m_searchHit = on;
    update();
}

void NodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
    const bool dark = static_cast<GraphScene*>(scene())->dark();
    const double lod = option->levelOfDetailFromTransform(p->worldTransform());
    const QRectF r(-m_size.width() / 2, -m_size.height() / 2, m_size.width(), m_size.height());
    QColor fill = m_fill.isValid() ? m_fill : canvas_colors::classFill(NodeClass::Other, dark);
    if (m_ghost) fill.setAlpha(90);
    const bool selected = isSelected();
    if (lod < kTextLod) {
        // Zoomed out: one fill per node. Selection and marks must stay visible, as a colour.
        QColor c = selected ? canvas_colors::selection(dark) : m_searchHit ? canvas_colors::searchHit(dark) : fill;
        if (m_frame.isValid() && !selected && !m_searchHit) c = m_frame;
        p->fillRect(r, c);
        return;
    }
    QPen border(canvas_colors::edge(dark), 1.0);
    if (m_ghost) {
        border = QPen(canvas_colors::removed(dark), 1.6, Qt::DashLine);
    }
    // Symbolic scalars (SymInt inputs, sym_size, operator.mul on sizes) are pills: they carry a
    // number, not a tensor, and read apart from the boxes at a glance.
    const bool pill = m_node && m_node->scalar;
    const double radius = pill ? r.height() / 2 : 6;
    if (pill && !m_ghost) border.setStyle(Qt::DotLine);
    p->setPen(border);
    p->setBrush(fill);
    p->drawRoundedRect(r, radius, radius);
    auto frameWith = [&](QColor c, double w, Qt::PenStyle style) {
        QPen pen(c, w, style);
        pen.setCosmetic(false);
        p->setPen(pen);
        p->setBrush(Qt::NoBrush);
        p->drawRoundedRect(r.adjusted(-1.5, -1.5, 1.5, 1.5), radius + 1, radius + 1);
    };
    if (m_frame.isValid()) frameWith(m_frame, 3.0, m_dashedFrame ? Qt::DashLine : Qt::SolidLine);
    if (m_searchHit) frameWith(canvas_colors::searchHit(dark), 3.0, Qt::SolidLine);
    if (selected) frameWith(canvas_colors::selection(dark), 3.5, Qt::SolidLine);

    QColor ink = contrastText(fill);
    if (m_ghost) ink = canvas_colors::removed(dark);
    p->setPen(ink);
    const QRectF inner = r.adjusted(8, 4, -8, -4);
    const double lh = inner.height() / 3;
    if (!m_linesReady) {
        m_linesReady = true;
        const auto line = [](QStaticText& st, const QString& text, const QFont& font) {
            st.setText(text);
            st.setTextFormat(Qt::PlainText);
            st.prepare(QTransform(), font);
        };
        const QFontMetricsF fm(smallFont());
        line(m_opLine, QFontMetricsF(opFont()).elidedText(m_op, Qt::ElideRight, inner.width()), opFont());
        line(m_nameLine, fm.elidedText(m_name, Qt::ElideMiddle, inner.width()), smallFont());
        line(m_typeLine, fm.elidedText(m_type, Qt::ElideRight, inner.width()), smallFont());
    }
    // Each line centred in its third of the box.
    const auto draw = [&](const QStaticText& st, int row) {
        const QSizeF size = st.size();
        p->drawStaticText(QPointF(inner.left() + (inner.width() - size.width()) / 2,
                                  inner.top() + row * lh + (lh - size.height()) / 2),
                          st);
    };
    p->setFont(opFont());
    draw(m_opLine, 0);
    p->setFont(smallFont());
    draw(m_nameLine, 1);
    QColor typeInk = ink;
    typeInk.setAlpha(170);
    p->setPen(typeInk);
    draw(m_typeLine, 2);
}

// ---- NodeTile -----------------------------------------------------------------------------

NodeTile::NodeTile() {
    setFlag(ItemContainsChildrenInShape);
    setAcceptedMouseButtons(Qt::NoButton);
    // The nodes' own stacking (they were top-level items at this z).
    setZValue(1);
}

void NodeTile::fitChildren() {
    QRectF r;
    for (QGraphicsItem* c : childItems())
        if (c->isVisible()) r |= c->boundingRect().translated(c->pos());
    // A unit to spare: sums of coordinates near a million units round differently.
    if (!r.isNull()) r.adjust(-1, -1, 1, 1);
    if (r == m_rect) return;
    prepareGeometryChange();
    m_rect = r;
}

// ---- EdgeItem -----------------------------------------------------------------------------

EdgeItem::EdgeItem(int index, const QString& typeText) : m_index(index) {
    setZValue(0);
    // paint() reads the exposed area to stroke only that part of a long edge.
    setFlag(ItemUsesExtendedStyleOption);
    setToolTip(typeText.isEmpty() ? QObject::tr("(no type)") : typeText);
    setAcceptHoverEvents(true);
}

void EdgeItem::setEnds(QGraphicsItem* from, QGraphicsItem* to, const QPolygonF& route) {
    m_from = from;
    m_to = to;
    m_route = route;
    updatePath();
}

void EdgeItem::setHighlight(QColor c, double width) {
    if (c == m_highlight && width == m_width) return;
    m_highlight = c;
    m_width = width;
    // Highlighted edges (the partition's cut) stay drawn in the overview.
    if (auto* s = static_cast<GraphScene*>(scene()); s && !s->edgesDrawn()) setFlag(ItemHasNoContents, !c.isValid());
    if (m_layer)
        m_layer->update(boundingRect());
    else
        update();
}

namespace {
QRectF boxOf(const QGraphicsItem* it) {
    if (it->type() == ClusterItem::Type) return static_cast<const ClusterItem*>(it)->box();
    const QRectF b = it->boundingRect().adjusted(4, 4, -4, -4);
    return b.translated(it->pos());
}
}  // namespace

void EdgeItem::updatePath() {
    if (!m_from || !m_to) return;
    QPainterPath path;
    if (m_route.size() >= 4) {
        path.moveTo(m_route[0]);
        int k = 1;
        for (; k + 2 < m_route.size(); k += 3) path.cubicTo(m_route[k], m_route[k + 1], m_route[k + 2]);
        for (; k < m_route.size(); ++k) path.lineTo(m_route[k]);
    } else {
        const QRectF a = boxOf(m_from), b = boxOf(m_to);
        const QPointF s(a.center().x(), a.bottom());
        const QPointF e(b.center().x(), b.top());
        const double dy = std::max(30.0, std::abs(e.y() - s.y()) * 0.45);
        path.moveTo(s);
        path.cubicTo(s + QPointF(0, dy), e - QPointF(0, dy), e);
    }
    setPath(path);
    if (m_layer) m_layer->edgesMoved();
    m_flat.clear();
    m_along.clear();
    // Arrowhead along the last tangent: from the last control point to the end. (pointAtPercent
    // would measure the whole Bezier length each paint; that dominated panning.)
    m_head.clear();
    const int n = path.elementCount();
    if (n >= 2) {
        const QPointF tip = path.elementAt(n - 1);
        QPointF from = path.elementAt(n - 2);
        for (int i = n - 2; i >= 0 && QLineF(from, tip).length() < 1e-6; --i) from = path.elementAt(i);
        const double ang = std::atan2(tip.y() - from.y(), tip.x() - from.x());
        const double s = 7;
        m_head << tip << tip - QPointF(std::cos(ang - 0.4) * s, std::sin(ang - 0.4) * s)
               << tip - QPointF(std::cos(ang + 0.4) * s, std::sin(ang + 0.4) * s);
    }
}

QPainterPath EdgeItem::shape() const {
    // A wide hit area so hovering shows the tensor type without pixel hunting.
    QPainterPathStroker st;
    st.setWidth(8);
    return st.createStroke(path());
}

void EdgeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
    const double lod = option->levelOfDetailFromTransform(p->worldTransform());
    if (lod < kEdgeLod && !m_highlight.isValid()) return;
    const QGraphicsScene* s = m_layer ? m_layer->scene() : scene();
    const bool dark = s && static_cast<const GraphScene*>(s)->dark();
    QColor c = m_highlight.isValid() ? m_highlight : canvas_colors::edge(dark);
    QPen pen(c, m_highlight.isValid() ? m_width : 1.2);
    if (m_dashed) pen.setStyle(Qt::DashLine);
    if (lod < kTextLod) pen.setCosmetic(true);
    p->setPen(pen);
    p->setBrush(Qt::NoBrush);
    // Level of detail for long edges: a joint graph's edges from the forward into the backward
    // cross a readable view by the thousand (densenet: 1,300 in one screen), a wall of parallel
    // lines that says nothing and took 60 ms a frame to stroke. An edge longer than a few
    // screens is drawn only within `reach` of its ends, where it says where it goes; the tooltip
    // of the edge and the inspector name both ends. Cut bundles (highlighted) are always whole.
    const QRectF bounds = path().controlPointRect();
    const double screen = std::max(p->viewport().width(), p->viewport().height()) / std::max(lod, 1e-3);
    const double reach = 1.5 * screen;
    if (!m_highlight.isValid() && std::max(bounds.width(), bounds.height()) > 2 * reach) {
        if (m_flat.isEmpty()) {
            const QList<QPolygonF> parts = path().toSubpathPolygons();
            if (!parts.isEmpty()) m_flat = parts.first();
            m_along.assign(static_cast<size_t>(m_flat.size()), 0.0);
            for (qsizetype i = 1; i < m_flat.size(); ++i)
                m_along[static_cast<size_t>(i)] =
                    m_along[static_cast<size_t>(i - 1)] + QLineF(m_flat[i - 1], m_flat[i]).length();
        }
        const double total = m_along.empty() ? 0 : m_along.back();
        const double margin = 4.0 / std::max(lod, 1e-3);
        const QRectF area = option->exposedRect.adjusted(-margin, -margin, margin, margin);
        // Runs of segments near an end and touching the exposed area, each one polyline.
        qsizetype start = -1;
        auto flush = [&](qsizetype end) {
            if (start >= 0) p->drawPolyline(m_flat.constData() + start, static_cast<int>(end - start + 1));
            start = -1;
        };
        for (qsizetype i = 0; i + 1 < m_flat.size(); ++i) {
            const QPointF& a = m_flat[i];
            const QPointF& b = m_flat[i + 1];
            const bool nearEnd =
                m_along[static_cast<size_t>(i)] < reach || total - m_along[static_cast<size_t>(i + 1)] < reach;
            const bool touches = nearEnd && std::max(a.x(), b.x()) >= area.left() &&
                                 std::min(a.x(), b.x()) <= area.right() && std::max(a.y(), b.y()) >= area.top() &&
                                 std::min(a.y(), b.y()) <= area.bottom();
            if (touches && start < 0) start = i;
            if (!touches) flush(i);
        }
        flush(m_flat.size() - 1);
    } else {
        p->drawPath(path());
    }
    if (lod >= kTextLod && !m_head.isEmpty()) {
        p->setBrush(c);
        p->drawPolygon(m_head);
    }
}

// ---- EdgeLabelItem ------------------------------------------------------------------------

const QFont& EdgeLabelItem::font() { return nodeLabelFont(); }

EdgeLabelItem::EdgeLabelItem(const QString& text, QColor ink, QGraphicsItem* parent)
        : QGraphicsItem(parent), m_text(text), m_ink(ink) {
    setFlag(ItemIgnoresTransformations);
    // Above the edges and blocks it crosses.
    setZValue(1);
    const QFontMetricsF fm(font());
    const double w = fm.horizontalAdvance(text) + 12, h = fm.height() + 6;
    m_rect = QRectF(-w / 2, -h / 2, w, h);
}

void EdgeLabelItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) {
    auto* s = static_cast<GraphScene*>(scene());
    // Drawn at screen size, it would cover the minimap's thumbnail.
    if (s->drawingThumbnail()) return;
    const bool dark = s->dark();
    p->setRenderHint(QPainter::Antialiasing);
    p->setRenderHint(QPainter::TextAntialiasing);
    p->setPen(QPen(m_ink, 1.5));
    p->setBrush(canvas_colors::background(dark));
    p->drawRoundedRect(m_rect.adjusted(0.75, 0.75, -0.75, -0.75), 5, 5);
    p->setFont(font());
    p->setPen(dark ? m_ink.lighter(140) : m_ink.darker(130));
    p->drawText(m_rect, Qt::AlignCenter, m_text);
}

// ---- ClusterItem --------------------------------------------------------------------------

ClusterItem::ClusterItem(int index, const QString& label, int nodeCount, int stackCount)
        : m_index(index), m_label(label), m_count(nodeCount), m_stackCount(stackCount) {
    // An expanded stack frames its clusters, so it lies below them.
    setZValue(isStack() ? -20 : -10);
    if (isStack())
        setToolTip(
            QObject::tr("%1: %2 blocks of the same %n op(s) each (repeated layers) — click to expand or collapse",
                        nullptr, nodeCount)
                .arg(label)
                .arg(stackCount));
    else
        setToolTip(QObject::tr("%1 (%n node(s)) — double-click to collapse or expand", nullptr, nodeCount).arg(label));
}

void ClusterItem::setBox(const QRectF& r) {
    if (r == m_rect) return;
    prepareGeometryChange();
    m_rect = r;
}

void ClusterItem::setMembersRect(const QRectF& r) { setBox(r.adjusted(-12, -30, 12, 12)); }

void ClusterItem::setCollapsed(bool c) {
    if (c == m_collapsed) return;
    m_collapsed = c;
    // Collapsed, it stands in for its nodes and must sit above the edges.
    setZValue(c ? 2 : isStack() ? -20 : -10);
    update();
}

QRectF ClusterItem::boundingRect() const {
    // A collapsed stack draws its pile of cards below and right of the box.
    const double pile = isStack() && m_collapsed ? 12 : 0;
    return m_rect.adjusted(-2, -2, 2 + pile, 2 + pile);
}

void ClusterItem::setOverlay(const QColor& fill, const QString& value) {
    if (fill == m_overlayFill && value == m_overlayValue) return;
    m_overlayFill = fill;
    m_overlayValue = value;
    update();
}

double ClusterItem::labelPointSize(double lod, const QRectF& box) {
    return std::clamp(11.0 / std::max(lod, 0.01), 11.0, std::max(11.0, box.height() / 6));
}

void ClusterItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) {
    const bool dark = static_cast<GraphScene*>(scene())->dark();
    const double lod = option->levelOfDetailFromTransform(p->worldTransform());
    QColor frame = dark ? QColor(0x80, 0x90, 0xa8) : QColor(0x60, 0x78, 0x98);
    if (m_collapsed) {
        const QColor fill = m_overlayFill.isValid() ? m_overlayFill
                            : dark                  ? QColor(0x2c, 0x3a, 0x4c)
                                                    : QColor(0xe3, 0xea, 0xf4);
        p->setPen(QPen(frame, 2));
        p->setBrush(fill);
        if (isStack())
            for (double d : {12.0, 6.0}) p->drawRoundedRect(m_rect.translated(d, d), 10, 10);
        p->drawRoundedRect(m_rect, 10, 10);
        QFont f;
        f.setPointSizeF(labelPointSize(lod, m_rect));
        f.setBold(true);
        p->setFont(f);
        p->setPen(dark ? QColor(0xdd, 0xe4, 0xee) : QColor(0x22, 0x33, 0x48));
        QString text =
            isStack() ? QObject::tr("⊞ %1\n× %2 · %n node(s) each", nullptr, m_count).arg(m_label).arg(m_stackCount)
                      : QObject::tr("⊞ %1\n%n node(s)", nullptr, m_count).arg(m_label);
        if (!m_overlayValue.isEmpty()) text += QLatin1Char('\n') + m_overlayValue;
        p->drawText(m_rect.adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, text);
        return;
    }
    QColor fill = frame;
    fill.setAlpha(dark ? 28 : 18);
    QPen pen(frame, 1.2, Qt::DashLine);
    pen.setCosmetic(true);
    p->setPen(pen);
    p->setBrush(fill);
    p->drawRoundedRect(m_rect, 10, 10);
    if (lod >= 0.2) {
        QFont f;
        f.setPointSizeF(10);
        f.setBold(true);
        p->setFont(f);
        p->setPen(frame);
        p->drawText(QRectF(m_rect.left() + 10, m_rect.top() + 4, m_rect.width() - 20, 22),
                    Qt::AlignLeft | Qt::AlignVCenter,
                    isStack() ? QObject::tr("⊟ %1 (× %2)").arg(m_label).arg(m_stackCount)
                              : QObject::tr("⊟ %1 (%2)").arg(m_label).arg(m_count));
    }
}

void ClusterItem::mousePressEvent(QGraphicsSceneMouseEvent* e) {
    // The header (expanded) or the whole box (collapsed) toggles; elsewhere clicks go through
    // to the view (panning).
    const bool header = e->pos().y() < m_rect.top() + 28;
    if (e->button() == Qt::LeftButton && (m_collapsed || header)) {
        toggle();
        e->accept();
        return;
    }
    e->ignore();
}

void ClusterItem::toggle() {
    auto* s = static_cast<GraphScene*>(scene());
    if (isStack())
        s->toggleStack(m_index);
    else
        s->toggleCluster(m_index);
}

void ClusterItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) {
    toggle();
    e->accept();
}

}  // namespace fxray::views
