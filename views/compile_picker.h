#pragma once
/// The compile picker: for a TORCH_TRACE log or a debug folder holding several graphs, a tree
/// of compile id → stage → graph with the compile's metrics (`compilation_metrics` artifacts:
/// frame, compile times, graph size, failure). Choosing a graph makes it the Document's
/// current graph.
#include <QWidget>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace fxray::views {

class Document;

class CompilePicker : public QWidget {
    Q_OBJECT
public:
    explicit CompilePicker(Document* doc, QWidget* parent = nullptr);
    QTreeWidget* tree() const { return m_tree; }
    /// Number of graph entries listed (leaves).
    int graphEntryCount() const;

private:
    void rebuild();
    void syncCurrent();
    void showDetails(QTreeWidgetItem* item);

    Document* m_doc;
    QTreeWidget* m_tree = nullptr;
    QLabel* m_details = nullptr;
    bool m_syncing = false;
};

}  // namespace fxray::views
