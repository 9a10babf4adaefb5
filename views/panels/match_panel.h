#pragma once
/// The match explorer: for each pass run, each pattern that fired (and where) and each
/// near-miss with the check that rejected it. Selecting a match goes to its pass and selects
/// the nodes it matched (the before-snapshot's subgraph, drawn as ghosts once removed) together
/// with the nodes its replacement created; the buttons below narrow the selection to one side.
/// The details show a match as pattern → replacement side by side (each node with its op), and a
/// near-miss with the reason its check gave.
#include <QPointer>
#include <QStringList>
#include <QWidget>

class QLabel;
class QTextBrowser;
class QPushButton;
class QTreeView;

namespace fxray::views {

class Document;
class MatchModel;

class MatchPanel : public QWidget {
    Q_OBJECT
public:
    explicit MatchPanel(Document* doc, QWidget* parent = nullptr);

    MatchModel* model() const { return m_model; }
    QTreeView* view() const { return m_view; }
    /// The details of the current row (objectName "matches.detail").
    QTextBrowser* detail() const { return m_detail; }

private:
    void onCurrentChanged();
    void onPassChanged();
    /// The two-column table of a match: matched nodes (graph before the pass) → created nodes.
    QString sideBySide(const QString& pattern) const;

    /// Guarded: item views emit signals while the window tears down, possibly after the
    /// Document is gone.
    QPointer<Document> m_doc;
    MatchModel* m_model;
    QTreeView* m_view;
    QLabel* m_empty;
    QTextBrowser* m_detail;
    QPushButton* m_selectMatched;
    QPushButton* m_selectCreated;
    QStringList m_matched, m_created;
};

}  // namespace fxray::views
