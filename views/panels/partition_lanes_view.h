#pragma once
/// The partition drawn to explain itself (graph/partition_lanes.h lays it out): forward lane |
/// saved-tensor cards | backward lane, the cut bundled per block with count and bytes, recomputed
/// nodes counted on their blocks. After a budget change the cards that joined the saved set are
/// marked green, those that left come back as red ghost cards, and the summary line says
/// "saved 52.4 MB → 31.0 MB, +12 recomputed".
///
/// Keyboard: the canvas takes focus; arrows move between cards (Up/Down by row, Left/Right by
/// card), Home/End go to the first/last card, J/L to the next card that joined/left, Enter
/// selects the card's node everywhere (as a click does). Card columns follow the width; below
/// about 1,100 px a compact form with one column keeps all three lanes in ~650 px.
#include "graph/partition_lanes.h"

#include <QScrollArea>

#include <memory>
#include <optional>

class QLabel;
class QToolButton;

namespace fxray {
class Graph;
struct PartitionResult;
}  // namespace fxray

namespace fxray::views {

class LanesCanvas;

class PartitionLanesView : public QWidget {
    Q_OBJECT
public:
    explicit PartitionLanesView(QWidget* parent = nullptr);
    ~PartitionLanesView() override;

    /// Shows `result`, a partition of `graph` at `budget`. When the previous one was of the same
    /// graph, the change of the saved set is shown. Null clears the view.
    void setPartition(std::shared_ptr<const PartitionResult> result, const Graph* graph, double budget);
    const PartitionLanes& lanes() const;
    /// The one-line summary of the budget change (or of the saved set when there is none).
    QString summary() const;
    QLabel* summaryLabel() const { return m_summary; }
    /// "Open large": asks the window to give the lanes room (the partition dock floats).
    QToolButton* enlargeButton() const { return m_enlarge; }
    QScrollArea* scrollArea() const { return m_scroll; }
    QWidget* canvas() const;
    /// Index into lanes().cards, -1 for none.
    int currentCard() const;
    void setCurrentCard(int card);

Q_SIGNALS:
    /// A card or block was clicked or Enter pressed on it: the node names to select.
    void activated(const QStringList& nodeNames);
    void enlargeRequested();

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void updateSummary();
    /// Lays the shown partition out again, with as many card columns as the width takes.
    void relayout();
    /// The lanes' geometry for the current width.
    LaneMetrics metrics() const;

    QLabel* m_summary;
    QToolButton* m_enlarge;
    QScrollArea* m_scroll;
    LanesCanvas* m_canvas;
    CanvasGraph m_graph;
    const Graph* m_graphPtr = nullptr;
    std::optional<SavedSnapshot> m_last;  ///< the saved set shown last, of m_graph
    std::shared_ptr<const PartitionResult> m_result;
    std::optional<SavedSnapshot> m_before;  ///< what m_result is compared with
    int m_layoutKey = 0;                    ///< columns and lane width of the current layout
};

}  // namespace fxray::views
