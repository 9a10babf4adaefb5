#pragma once
/// The text diff of the current pass: the FX code of the graph before the pass (left) against
/// the graph after it (right), side by side, removed lines red, added lines green, with a
/// "+n −m" summary and buttons to jump between changes. Provenance comments are left out by
/// default (moving nodes would make every comment line differ); a check box brings them back.
#include <QPointer>
#include <QWidget>

class QCheckBox;
class QLabel;
class QTableView;
class QToolButton;

namespace fxray {
class Graph;
}

namespace fxray::views {

class Document;
class TextDiffModel;

class DiffPanel : public QWidget {
    Q_OBJECT
public:
    explicit DiffPanel(Document* doc, QWidget* parent = nullptr);

    TextDiffModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QLabel* summaryLabel() const { return m_summary; }
    void setShowComments(bool on);

private:
    void refresh();
    void jump(int direction);

    /// Guarded: item views emit signals while the window tears down, possibly after the
    /// Document is gone.
    QPointer<Document> m_doc;
    TextDiffModel* m_model;
    QLabel* m_summary;
    QCheckBox* m_comments;
    QToolButton* m_prevChange;
    QToolButton* m_nextChange;
    QTableView* m_view;
    const Graph* m_before = nullptr;
    const Graph* m_after = nullptr;
    int m_change = -1;
};

}  // namespace fxray::views
