#include "panels/phase_chart.h"

#include <QPaintEvent>
#include <QPainter>

#include <algorithm>

namespace fxray::views {

namespace {
constexpr int kPad = 4;
int rowHeight(const QFontMetrics& fm) { return fm.height() + 4; }
}  // namespace

PhaseChart::PhaseChart(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("phaseChart"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void PhaseChart::setPhases(std::vector<std::pair<QString, double>> phases) {
    std::stable_sort(phases.begin(), phases.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (phases.size() > size_t(kMaxRows)) phases.resize(size_t(kMaxRows));
    m_phases = std::move(phases);
    updateGeometry();
    update();
}

QSize PhaseChart::sizeHint() const {
    const int rows = std::max<int>(1, int(m_phases.size()));
    return {320, 2 * kPad + rows * rowHeight(fontMetrics())};
}

QSize PhaseChart::minimumSizeHint() const { return {160, sizeHint().height()}; }

void PhaseChart::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QFontMetrics fm = fontMetrics();
    const QPalette pal = palette();
    if (m_phases.empty()) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(kPad, kPad, -kPad, -kPad), Qt::AlignLeft | Qt::AlignTop,
                   tr("No phase timings logged for this compile."));
        return;
    }
    int labelW = 0, valueW = 0;
    QStringList values;
    for (const auto& [name, s] : m_phases) {
        labelW = std::max(labelW, fm.horizontalAdvance(name));
        values << tr("%1 s").arg(s, 0, 'f', s < 0.1 ? 3 : 2);
        valueW = std::max(valueW, fm.horizontalAdvance(values.back()));
    }
    labelW = std::min(labelW, width() / 2);
    const double maxS = std::max(m_phases.front().second, 1e-9);
    const int barX = kPad + labelW + kPad;
    const int barMax = std::max(10, width() - barX - valueW - 2 * kPad);
    const int rh = rowHeight(fm);
    QColor bar = pal.color(QPalette::Highlight);
    for (size_t i = 0; i < m_phases.size(); ++i) {
        const int y = kPad + int(i) * rh;
        p.setPen(pal.color(QPalette::WindowText));
        p.drawText(QRect(kPad, y, labelW, rh), Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(m_phases[i].first, Qt::ElideMiddle, labelW));
        const int w = std::max(1, int(barMax * m_phases[i].second / maxS));
        p.fillRect(QRect(barX, y + 3, w, rh - 6), bar);
        p.drawText(QRect(barX + w + kPad, y, valueW + kPad, rh), Qt::AlignVCenter | Qt::AlignLeft, values[int(i)]);
    }
}

}  // namespace fxray::views
