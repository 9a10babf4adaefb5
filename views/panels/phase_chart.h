#pragma once
/// A small horizontal bar chart of a compile's phase timings (compilation_metrics' `*_time`
/// fields): one row per phase, longest first, with its seconds; bars share one scale so the
/// phase that dominates is seen at a glance.
#include <QWidget>

#include <utility>
#include <vector>

namespace fxray::views {

class PhaseChart : public QWidget {
    Q_OBJECT
public:
    explicit PhaseChart(QWidget* parent = nullptr);
    /// Phases in any order; shown longest first, at most kMaxRows.
    void setPhases(std::vector<std::pair<QString, double>> phases);
    const std::vector<std::pair<QString, double>>& phases() const { return m_phases; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    static constexpr int kMaxRows = 14;

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    std::vector<std::pair<QString, double>> m_phases;
};

}  // namespace fxray::views
