#include "graph/edge_layer.h"

#include "graph/graph_items.h"
#include "graph/graph_scene.h"

#include <QGraphicsSceneHoverEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace fxray::views {

namespace {

QPointF bezier(const QPointF& a, const QPointF& b, const QPointF& c, const QPointF& d, double t) {
    const double u = 1 - t;
    return u * u * u * a + 3 * u * u * t * b + 3 * u * t * t * c + t * t * t * d;
}

qint64 cellOf(double v) { return static_cast<qint64>(std::floor(v / EdgeLayer::kCell)); }

}  // namespace

EdgeLayer::EdgeLayer(const std::vector<EdgeItem*>* edges) : m_edges(edges) {
    setZValue(0);  // where the edges were: below nodes and collapsed blocks, above open frames
    setFlag(ItemUsesExtendedStyleOption);
    setAcceptedMouseButtons(Qt::NoButton);
    setAcceptHoverEvents(true);
}

void EdgeLayer::setBounds(const QRectF& r) {
    if (r == m_bounds) return;
    prepareGeometryChange();
    m_bounds = r;
}

void EdgeLayer::edgesMoved() {
    if (m_dirty) return;
    m_dirty = true;
    update();
}

namespace {

/// Length of the polygon through the path's points (Bezier control points included): at least
/// the curve's length.
double controlLength(const QPainterPath& path) {
    double len = 0;
    for (int k = 1; k < path.elementCount(); ++k)
        len += QLineF(QPointF(path.elementAt(k - 1)), QPointF(path.elementAt(k))).length();
    return len;
}

}  // namespace

void EdgeLayer::rebuild() const {
    m_cells.clear();
    m_long.clear();
    // Points along each curve no further apart than a quarter cell, each marking the cells within
    // a quarter cell of it: every cell the curve (its arrowhead and pen included) enters is marked.
    const double step = kCell / 2, margin = kCell / 2;
    std::vector<QPointF> pts;
    std::vector<qint64> keys;
    for (size_t i = 0; i < m_edges->size(); ++i) {
        const QPainterPath& path = (*m_edges)[i]->path();
        const int n = path.elementCount();
        if (n < 2) continue;
        // An edge across much of the graph would mark hundreds of cells (a joint graph has
        // thousands, from the forward into the backward): its box is tested instead.
        if (controlLength(path) > kLongCells * kCell) {
            m_long.emplace_back(static_cast<int>(i),
                                path.controlPointRect().adjusted(-margin, -margin, margin, margin));
            continue;
        }
        pts.clear();
        QPointF last = path.elementAt(0);
        pts.push_back(last);
        for (int k = 1; k < n;) {
            const QPainterPath::Element el = path.elementAt(k);
            if (el.type == QPainterPath::CurveToElement && k + 2 < n) {
                const QPointF c1 = el, c2 = path.elementAt(k + 1), end = path.elementAt(k + 2);
                // The control polygon is at least as long as the curve.
                const double len = QLineF(last, c1).length() + QLineF(c1, c2).length() + QLineF(c2, end).length();
                const int segs = std::clamp(static_cast<int>(std::ceil(len / step)), 1, 4096);
                for (int s = 1; s <= segs; ++s) pts.push_back(bezier(last, c1, c2, end, static_cast<double>(s) / segs));
                last = end;
                k += 3;
            } else {
                const QPointF to = el;
                const int segs = std::clamp(static_cast<int>(std::ceil(QLineF(last, to).length() / step)), 1, 4096);
                for (int s = 1; s <= segs; ++s) pts.push_back(last + (to - last) * (static_cast<double>(s) / segs));
                last = to;
                ++k;
            }
        }
        keys.clear();
        for (const QPointF& q : pts)
            for (qint64 cx = cellOf(q.x() - margin); cx <= cellOf(q.x() + margin); ++cx)
                for (qint64 cy = cellOf(q.y() - margin); cy <= cellOf(q.y() + margin); ++cy)
                    keys.push_back(cellKey(cx, cy));
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
        for (qint64 key : keys) m_cells[key].push_back(static_cast<int>(i));
    }
    m_seen.assign(m_edges->size(), 0);
    m_stamp = 0;
    m_dirty = false;
}

std::vector<int> EdgeLayer::candidates(const QRectF& area) const {
    if (m_dirty) rebuild();
    std::vector<int> out;
    if (++m_stamp == 0) {
        std::fill(m_seen.begin(), m_seen.end(), 0u);
        m_stamp = 1;
    }
    const auto take = [&](const std::vector<int>& cell) {
        for (int i : cell)
            if (m_seen[static_cast<size_t>(i)] != m_stamp) {
                m_seen[static_cast<size_t>(i)] = m_stamp;
                out.push_back(i);
            }
    };
    const qint64 x0 = cellOf(area.left()), x1 = cellOf(area.right()), y0 = cellOf(area.top()),
                 y1 = cellOf(area.bottom());
    for (const auto& [i, box] : m_long)
        if (box.intersects(area)) {
            m_seen[static_cast<size_t>(i)] = m_stamp;
            out.push_back(i);
        }
    if ((x1 - x0 + 1) * (y1 - y0 + 1) > static_cast<qint64>(m_cells.size())) {
        // A large area (the minimap, an export): every cell, tested against it.
        for (auto it = m_cells.constBegin(); it != m_cells.constEnd(); ++it) take(*it);
    } else {
        for (qint64 cx = x0; cx <= x1; ++cx)
            for (qint64 cy = y0; cy <= y1; ++cy) {
                auto it = m_cells.constFind(cellKey(cx, cy));
                if (it != m_cells.constEnd()) take(*it);
            }
    }
    // Index order: the order the edges were drawn in as items of their own.
    std::sort(out.begin(), out.end());
    return out;
}

bool EdgeLayer::drawn(const EdgeItem* e) const {
    if (!e->isVisible()) return false;
    const auto* s = static_cast<const GraphScene*>(scene());
    return e->highlight().isValid() || !s || s->edgesDrawn();
}

void EdgeLayer::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget* widget) {
    const QRectF area = option->exposedRect;
    const std::vector<int> cand = candidates(area);
    m_lastCandidates = static_cast<int>(cand.size());
    m_lastDrawn = 0;
    for (int i : cand) {
        EdgeItem* e = (*m_edges)[static_cast<size_t>(i)];
        if (!drawn(e) || !e->boundingRect().intersects(area)) continue;
        e->paint(p, option, widget);
        ++m_lastDrawn;
    }
}

EdgeItem* EdgeLayer::edgeAt(const QPointF& point) const {
    const std::vector<int> cand = candidates(QRectF(point, QSizeF(0.01, 0.01)));
    // Topmost first: the last drawn.
    for (auto it = cand.rbegin(); it != cand.rend(); ++it) {
        EdgeItem* e = (*m_edges)[static_cast<size_t>(*it)];
        if (drawn(e) && e->boundingRect().adjusted(-4, -4, 4, 4).contains(point) && e->shape().contains(point))
            return e;
    }
    return nullptr;
}

bool EdgeLayer::contains(const QPointF& point) const { return edgeAt(point) != nullptr; }

void EdgeLayer::hoverMoveEvent(QGraphicsSceneHoverEvent* e) {
    const EdgeItem* edge = edgeAt(e->pos());
    setToolTip(edge ? edge->toolTip() : QString());
    QGraphicsItem::hoverMoveEvent(e);
}

}  // namespace fxray::views
