#pragma once
/// The pass timeline: choose a pipeline, compile the current graph with it (on the Document's
/// worker), and step through the passes — one row per pass run with its time, node counts and
/// outcome. Selecting a row, Alt+Right / Alt+Left or F8 / Shift+F8 set the Document's pass; the
/// "changed passes only" filter hides (and stepping skips) passes that changed nothing. A failed
/// pass is red, its message is shown below the table, and "Show graph before" goes to the
/// graph that the pass was given. Beside the table, the teaching pane explains the selected pass:
/// what it does, why, and the PyTorch function it mirrors (transforms/pass_teaching.h).
#include <QPointer>
#include <QWidget>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSplitter;
class QTextBrowser;
class QTableView;

namespace fxray::views {

class ChangedPassFilter;
class Document;
class PassTimelineModel;

class TimelinePanel : public QWidget {
    Q_OBJECT
public:
    explicit TimelinePanel(Document* doc, QWidget* parent = nullptr);

    PassTimelineModel* model() const { return m_model; }
    ChangedPassFilter* filter() const { return m_filter; }
    QTableView* view() const { return m_view; }
    /// The explanation of the current pass (objectName "timeline.teaching").
    QTextBrowser* teaching() const { return m_teaching; }
    QComboBox* pipelineBox() const { return m_pipeline; }
    /// Window-wide actions (the main window adds them to its menu and to itself).
    QAction* nextAction() const { return m_next; }
    QAction* previousAction() const { return m_previous; }

    /// One step through the passes the filter shows (-1, the input graph, comes before the
    /// first).
    void step(int direction);
    void setChangedOnly(bool on);

private:
    void onTraceChanged();
    void onPassChanged();
    void onRowActivated();
    void updateFailure();
    void updateTeaching();
    void resizeEvent(QResizeEvent* e) override;

    /// Guarded: item views emit signals while the window tears down, possibly after the
    /// Document is gone.
    QPointer<Document> m_doc;
    PassTimelineModel* m_model;
    ChangedPassFilter* m_filter;
    QComboBox* m_pipeline;
    QPushButton* m_compile;
    QCheckBox* m_changedOnly;
    QLabel* m_summary;
    QTableView* m_view;
    QTextBrowser* m_teaching;
    QSplitter* m_split;
    QLabel* m_failure;
    QPushButton* m_showBefore;
    QAction* m_next;
    QAction* m_previous;
    bool m_syncing = false;
};

}  // namespace fxray::views
