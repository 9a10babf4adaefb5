#include "panels/partition_lanes_view.h"

#include "graph/canvas_colors.h"
#include "ir/graph.h"
#include "partition/partitioner.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fxray::views {

namespace {

QString bytesText(qint64 b) { return QLocale().formattedDataSize(b, 1, QLocale::DataSizeTraditionalFormat); }

constexpr double kMargin = 12;

/// Bundle thickness: grows with the log of the bytes, so one big tensor does not hide the rest.
double thickness(qint64 bytes) {
    return std::clamp(1.5 + std::log2(1.0 + static_cast<double>(bytes) / 65536.0), 2.0, 14.0);
}

}  // namespace

/// The painted lanes (inside the scroll area).
class LanesCanvas : public QWidget {
public:
    explicit LanesCanvas(PartitionLanesView* owner) : QWidget(owner), m_owner(owner) {
        setObjectName(QStringLiteral("partition.lanesCanvas"));
        setFocusPolicy(Qt::StrongFocus);
        setAccessibleName(PartitionLanesView::tr("Partition lanes: forward, saved tensors, backward"));
    }
    void setLanes(PartitionLanes l) {
        m_lanes = std::move(l);
        m_current = m_lanes.cards.empty() ? -1 : std::min(m_current, static_cast<int>(m_lanes.cards.size()) - 1);
        setFixedSize(QSize(static_cast<int>(m_lanes.size.width() + 2 * kMargin),
                           static_cast<int>(m_lanes.size.height() + 2 * kMargin)));
        update();
    }
    const PartitionLanes& lanes() const { return m_lanes; }
    int current() const { return m_current; }
    void setCurrent(int c) {
        m_current = c >= 0 && c < static_cast<int>(m_lanes.cards.size()) ? c : -1;
        if (m_current >= 0) {
            const QRect r =
                m_lanes.cards[static_cast<size_t>(m_current)].rect.translated(kMargin, kMargin).toAlignedRect();
            m_owner->scrollArea()->ensureVisible(r.center().x(), r.center().y(), r.width() / 2 + 20,
                                                 r.height() / 2 + 40);
        }
        update();
    }

protected:
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;

private:
    void activate(int card) {
        if (card < 0) return;
        Q_EMIT m_owner->activated({m_lanes.cards[static_cast<size_t>(card)].name});
    }
    /// The next card (from the current one, in `step` direction) whose state is `s`.
    int nextWith(LaneCard::State s, int step) const {
        const int count = static_cast<int>(m_lanes.cards.size());
        for (int k = 1; k <= count; ++k) {
            const int c = ((m_current < 0 ? -1 : m_current) + k * step + count * 2) % count;
            if (m_lanes.cards[static_cast<size_t>(c)].state == s) return c;
        }
        return m_current;
    }
    void paintBlock(QPainter& p, const LaneBlock& b, bool dark) const;
    void paintCard(QPainter& p, const LaneCard& c, bool current, bool dark) const;
    void paintBundle(QPainter& p, const LaneBundle& b, bool cut, bool dark) const;

    PartitionLanesView* m_owner;
    PartitionLanes m_lanes;
    int m_current = -1;
};

void LanesCanvas::paintBlock(QPainter& p, const LaneBlock& b, bool dark) const {
    const bool fwd = b.lane == LaneBlock::Lane::Forward;
    p.setPen(QPen(canvas_colors::edge(dark), 1));
    p.setBrush(fwd ? canvas_colors::forward(dark) : canvas_colors::backward(dark));
    p.drawRoundedRect(b.rect, 6, 6);
    const QRectF in = b.rect.adjusted(8, 4, -8, -4);
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(canvas_colors::text(dark));
    const QFontMetricsF fm(bold);
    p.drawText(QRectF(in.left(), in.top(), in.width(), fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(b.label, Qt::ElideRight, in.width()));
    p.setFont(font());
    QString line = PartitionLanesView::tr("%n node(s)", nullptr, b.nodes);
    if (b.recomputed > 0)
        line += QStringLiteral(" · ") + PartitionLanesView::tr("↻ %n recomputed", nullptr, b.recomputed);
    const QFontMetricsF fr(font());
    p.drawText(QRectF(in.left(), in.top() + fm.height() + 1, in.width(), fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
               fr.elidedText(line, Qt::ElideRight, in.width()));
    // The block's bundle, labelled on the block (labels on the bundles would cover the cards).
    if (b.bundled > 0) {
        const QString bundle = (fwd ? PartitionLanesView::tr("✂ %n cut edge(s)", nullptr, b.bundled)
                                    : PartitionLanesView::tr("reads %n saved", nullptr, b.bundled)) +
                               QStringLiteral(" · ") + bytesText(b.bundledBytes);
        p.setPen(fwd ? canvas_colors::cut(dark) : canvas_colors::text(dark));
        p.drawText(QRectF(in.left(), in.top() + 2 * fm.height() + 2, in.width(), fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, fr.elidedText(bundle, Qt::ElideRight, in.width()));
    }
    if (b.recomputed > 0) {
        // The recomputed marker: the same dashed border as recomputed nodes on the canvas.
        p.setPen(QPen(canvas_colors::recomputed(dark), 2, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(b.rect.adjusted(2, 2, -2, -2), 5, 5);
    }
}

void LanesCanvas::paintCard(QPainter& p, const LaneCard& c, bool current, bool dark) const {
    QColor fill = canvas_colors::classFill(c.input ? NodeClass::Input : NodeClass::Other, dark);
    QColor border = canvas_colors::saved(dark);
    Qt::PenStyle style = Qt::SolidLine;
    QString tag = c.input ? PartitionLanesView::tr("input") : PartitionLanesView::tr("saved");
    switch (c.state) {
    case LaneCard::State::Saved: break;
    case LaneCard::State::Joined:
        fill = canvas_colors::added(dark);
        tag = PartitionLanesView::tr("+ saved");
        break;
    case LaneCard::State::Left:
        fill = canvas_colors::background(dark);
        border = canvas_colors::removed(dark);
        style = Qt::DashLine;
        tag = c.recomputed ? PartitionLanesView::tr("− recomputed") : PartitionLanesView::tr("− not saved");
        break;
    }
    p.setPen(QPen(border, current ? 3 : 1.5, style));
    p.setBrush(fill);
    p.drawRoundedRect(c.rect, 4, 4);
    if (current) {
        p.setPen(QPen(canvas_colors::selection(dark), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(c.rect.adjusted(-3, -3, 3, 3), 6, 6);
    }
    const QRectF in = c.rect.adjusted(6, 2, -6, -2);
    QFont bold = font();
    bold.setBold(true);
    const QFontMetricsF fb(bold), fm(font());
    p.setPen(c.state == LaneCard::State::Left ? canvas_colors::removed(dark) : canvas_colors::text(dark));
    p.setFont(font());
    const double tagW = fm.horizontalAdvance(tag) + 2;
    p.drawText(QRectF(in.right() - tagW, in.top(), tagW, fb.height()), Qt::AlignRight | Qt::AlignVCenter, tag);
    p.setFont(bold);
    p.setPen(canvas_colors::text(dark));
    p.drawText(QRectF(in.left(), in.top(), in.width() - tagW - 4, fb.height()), Qt::AlignLeft | Qt::AlignVCenter,
               fb.elidedText(c.name, Qt::ElideMiddle, in.width() - tagW - 4));
    p.setFont(font());
    const QString bytes = bytesText(c.bytes);
    const double bytesW = fm.horizontalAdvance(bytes) + 2;
    const QRectF second(in.left(), in.bottom() - fm.height(), in.width(), fm.height());
    p.drawText(second.adjusted(0, 0, -bytesW - 4, 0), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(c.type, Qt::ElideRight, second.width() - bytesW - 4));
    p.drawText(second, Qt::AlignRight | Qt::AlignVCenter, bytes);
}

void LanesCanvas::paintBundle(QPainter& p, const LaneBundle& b, bool cut, bool dark) const {
    // Cut bundles run from a forward block to its cards; read bundles from the cards a backward
    // block reads (their mean height) to that block.
    const QPointF a(b.from.right(), b.from.center().y());
    const QPointF z = cut ? QPointF(b.to.left(), std::min(b.to.center().y(), b.from.center().y() + 10))
                          : QPointF(b.to.left(), b.to.center().y());
    const double dx = (z.x() - a.x()) / 2;
    QPainterPath path(a);
    path.cubicTo(a + QPointF(dx, 0), z - QPointF(dx, 0), z);
    QColor c = cut ? canvas_colors::cut(dark) : canvas_colors::edge(dark);
    c.setAlpha(170);
    p.setPen(QPen(c, thickness(b.bytes), Qt::SolidLine, Qt::FlatCap));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
}

void LanesCanvas::paintEvent(QPaintEvent* e) {
    QPainter p(this);
    const bool dark = canvas_colors::darkPalette();
    p.fillRect(e->rect(), canvas_colors::background(dark));
    p.setRenderHint(QPainter::Antialiasing);
    p.translate(kMargin, kMargin);
    const QRectF exposed = QRectF(e->rect()).translated(-kMargin, -kMargin).adjusted(-40, -40, 40, 40);

    // Lane headers.
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(canvas_colors::text(dark));
    const QFontMetricsF fm(bold);
    auto header = [&](const QRectF& lane, const QString& title, const QString& sub, const QString& third = {}) {
        p.setFont(bold);
        // The header may run into the gap beside its lane (the compact form is narrow).
        p.drawText(QRectF(lane.left(), 0, lane.width(), fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter | Qt::TextDontClip, title);
        p.setFont(font());
        p.drawText(QRectF(lane.left(), fm.height() + 2, lane.width(), fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter | Qt::TextDontClip, sub);
        if (!third.isEmpty())
            p.drawText(QRectF(lane.left(), 2 * fm.height() + 2, lane.width(), fm.height()),
                       Qt::AlignLeft | Qt::AlignVCenter | Qt::TextDontClip, third);
    };
    header(m_lanes.forwardLane, PartitionLanesView::tr("Forward"),
           PartitionLanesView::tr("%n node(s)", nullptr, m_lanes.forwardNodes));
    header(m_lanes.savedColumn, PartitionLanesView::tr("Saved for the backward"),
           PartitionLanesView::tr("%n tensor(s)", nullptr, m_lanes.savedCount) + QStringLiteral(" · ") +
               bytesText(m_lanes.savedBytes),
           PartitionLanesView::tr("%n cut edge(s)", nullptr, m_lanes.cutEdges));
    header(m_lanes.backwardLane, PartitionLanesView::tr("Backward"),
           PartitionLanesView::tr("%n node(s)", nullptr, m_lanes.backwardNodes));
    // The lanes' backgrounds: the forward and backward tints, faint.
    for (const auto& [lane, colour] : {std::pair{m_lanes.forwardLane, canvas_colors::forward(dark)},
                                       std::pair{m_lanes.backwardLane, canvas_colors::backward(dark)}}) {
        QColor c = colour;
        c.setAlpha(60);
        p.fillRect(lane.adjusted(-6, 2 * fm.height() + 8, 6, 0), c);
    }

    for (const LaneBundle& b : m_lanes.readBundles)
        if (exposed.intersects(b.from.united(b.to))) paintBundle(p, b, false, dark);
    for (const LaneBundle& b : m_lanes.cutBundles)
        if (exposed.intersects(b.from.united(b.to))) paintBundle(p, b, true, dark);
    for (const LaneBlock& b : m_lanes.blocks)
        if (exposed.intersects(b.rect)) paintBlock(p, b, dark);
    for (size_t c = 0; c < m_lanes.cards.size(); ++c)
        if (exposed.intersects(m_lanes.cards[c].rect))
            paintCard(p, m_lanes.cards[c], static_cast<int>(c) == m_current && hasFocus(), dark);
}

void LanesCanvas::mousePressEvent(QMouseEvent* e) {
    const QPointF at = e->position() - QPointF(kMargin, kMargin);
    for (size_t c = 0; c < m_lanes.cards.size(); ++c)
        if (m_lanes.cards[c].rect.contains(at)) {
            setCurrent(static_cast<int>(c));
            activate(m_current);
            return;
        }
    QWidget::mousePressEvent(e);
}

void LanesCanvas::keyPressEvent(QKeyEvent* e) {
    const int count = static_cast<int>(m_lanes.cards.size());
    if (count == 0) return QWidget::keyPressEvent(e);
    const int cur = m_current;
    auto nearestBelow = [&](int dir) {
        // The card of the next row in `dir` closest in x (rows are groups of cards, not a grid).
        if (cur < 0) return 0;
        const QRectF r = m_lanes.cards[static_cast<size_t>(cur)].rect;
        int best = cur;
        double bestD = 1e18;
        for (int c = 0; c < count; ++c) {
            const QRectF o = m_lanes.cards[static_cast<size_t>(c)].rect;
            const double dy = (o.center().y() - r.center().y()) * dir;
            if (dy <= 1) continue;
            const double d = dy * 4 + std::abs(o.center().x() - r.center().x());
            if (d < bestD) bestD = d, best = c;
        }
        return best;
    };
    switch (e->key()) {
    case Qt::Key_Down: setCurrent(nearestBelow(1)); break;
    case Qt::Key_Up: setCurrent(nearestBelow(-1)); break;
    case Qt::Key_Right: setCurrent(std::min(cur + 1, count - 1)); break;
    case Qt::Key_Left: setCurrent(std::max(cur - 1, 0)); break;
    case Qt::Key_Home: setCurrent(0); break;
    case Qt::Key_End: setCurrent(count - 1); break;
    case Qt::Key_J: setCurrent(nextWith(LaneCard::State::Joined, e->modifiers() & Qt::ShiftModifier ? -1 : 1)); break;
    case Qt::Key_L: setCurrent(nextWith(LaneCard::State::Left, e->modifiers() & Qt::ShiftModifier ? -1 : 1)); break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
    case Qt::Key_Space: activate(cur); break;
    default: QWidget::keyPressEvent(e); return;
    }
    e->accept();
}

PartitionLanesView::PartitionLanesView(QWidget* parent)
        : QWidget(parent), m_summary(new QLabel(this)), m_enlarge(new QToolButton(this)),
          m_scroll(new QScrollArea(this)), m_canvas(new LanesCanvas(this)) {
    setObjectName(QStringLiteral("partition.lanes"));
    m_summary->setObjectName(QStringLiteral("partition.lanesSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setToolTip(tr("Keys: arrows move between saved tensors, J / L jump to the next that joined / left the "
                             "saved set (Shift: previous), Enter selects it in the graph."));
    m_scroll->setObjectName(QStringLiteral("partition.lanesScroll"));
    m_scroll->setWidget(m_canvas);
    m_scroll->setWidgetResizable(false);
    m_scroll->setFocusProxy(m_canvas);
    setFocusProxy(m_canvas);
    m_enlarge->setObjectName(QStringLiteral("partition.lanesEnlarge"));
    m_enlarge->setText(tr("Open &large"));
    m_enlarge->setToolTip(tr("Float the partition pane at a size that shows all three lanes"));
    connect(m_enlarge, &QToolButton::clicked, this, &PartitionLanesView::enlargeRequested);
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_enlarge, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_scroll, 1);
    updateSummary();
}

PartitionLanesView::~PartitionLanesView() = default;

const PartitionLanes& PartitionLanesView::lanes() const { return m_canvas->lanes(); }
QWidget* PartitionLanesView::canvas() const { return m_canvas; }
int PartitionLanesView::currentCard() const { return m_canvas->current(); }
void PartitionLanesView::setCurrentCard(int card) { m_canvas->setCurrent(card); }

void PartitionLanesView::setPartition(std::shared_ptr<const PartitionResult> result, const Graph* graph,
                                      double budget) {
    if (!result || !graph) {
        m_last.reset();
        m_result.reset();
        m_before.reset();
        m_canvas->setLanes({});
        updateSummary();
        return;
    }
    CanvasGraph cg = buildCanvasGraph(*graph);
    // A partition of another graph starts afresh; of the same graph, it is a budget change.
    const bool same = graph == m_graphPtr && cg.fingerprint == m_graph.fingerprint && m_last;
    std::optional<SavedSnapshot> before;
    if (same && std::abs(m_last->budget - budget) > 1e-12)
        before = m_last;
    else if (same)
        before = m_before;  // the same budget again: keep the change shown
    m_graph = std::move(cg);
    m_graphPtr = graph;
    m_result = std::move(result);
    m_before = std::move(before);
    m_last = snapshotOf(*m_result, m_graph, budget);
    relayout();
    updateSummary();
}

LaneMetrics PartitionLanesView::metrics() const {
    // As many card columns (2 to 4) as fit beside the two lanes; narrower than two columns, a
    // compact form with one column and narrower lanes, so that all three lanes fit in ~650 px.
    LaneMetrics m;
    const double width = m_scroll->viewport()->width() - 2 * kMargin;
    const double room = width - 2 * (m.blockWidth + m.laneGap);
    const int columns = static_cast<int>((room + m.gap) / (m.cardWidth + m.gap));
    if (columns >= 2) {
        m.cardColumns = std::min(columns, 4);
        return m;
    }
    m.blockWidth = 170;
    m.laneGap = 48;
    m.cardWidth = 190;
    m.cardColumns = 1;
    return m;
}

void PartitionLanesView::relayout() {
    if (!m_result) return;
    const LaneMetrics m = metrics();
    m_layoutKey = m.cardColumns * 1000 + static_cast<int>(m.blockWidth);
    const int current = m_canvas->current();
    m_canvas->setLanes(layoutPartitionLanes(m_graph, *m_result, m_before, m));
    if (current >= 0) m_canvas->setCurrent(current);
}

void PartitionLanesView::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    if (!m_result) return;
    const LaneMetrics m = metrics();
    if (m.cardColumns * 1000 + static_cast<int>(m.blockWidth) != m_layoutKey) relayout();
}

QString PartitionLanesView::summary() const { return m_summary->text(); }

void PartitionLanesView::updateSummary() {
    const PartitionLanes& l = m_canvas->lanes();
    if (l.savedCount == 0 && l.cards.empty()) {
        m_summary->setText(tr("No partition: open a joint graph (one with tangents)."));
        return;
    }
    if (!l.before) {
        m_summary->setText(tr("Saved %1 in %n tensor(s); %2 recomputed. Move the memory budget to see what changes.",
                              nullptr, l.savedCount)
                               .arg(bytesText(l.savedBytes))
                               .arg(l.recomputedNow));
        return;
    }
    const int delta = l.recomputedNow - l.before->recomputed;
    const QString signedDelta = delta > 0   ? QStringLiteral("+%1").arg(delta)
                                : delta < 0 ? QStringLiteral("−%1").arg(-delta)
                                            : QStringLiteral("±0");
    m_summary->setText(tr("Budget %1 → %2: saved %3 → %4, %5 recomputed · %6 joined, %7 left the saved set")
                           .arg(l.before->budget, 0, 'f', 2)
                           .arg(QString::number(m_last ? m_last->budget : 1.0, 'f', 2), bytesText(l.before->savedBytes),
                                bytesText(l.savedBytes), signedDelta)
                           .arg(l.joined.size())
                           .arg(l.left.size()));
}

}  // namespace fxray::views
