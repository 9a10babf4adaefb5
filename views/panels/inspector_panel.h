#pragma once
/// The node inspector: everything known about the first selected node of the shown graph — op,
/// schema, arguments by schema name, keyword arguments, output metadata, inputs, users, the
/// source comment, and its provenance (which pass and pattern created or replaced it). A
/// double-click on an input, user or related node selects that node.
#include <QPointer>
#include <QWidget>

class QLabel;
class QTreeView;

namespace fxray::views {

class Document;
class NodeInspectorModel;

class InspectorPanel : public QWidget {
    Q_OBJECT
public:
    explicit InspectorPanel(Document* doc, QWidget* parent = nullptr);

    NodeInspectorModel* model() const { return m_model; }
    QTreeView* view() const { return m_view; }

private:
    void refresh();

    /// Guarded: item views emit signals while the window tears down, possibly after the
    /// Document is gone.
    QPointer<Document> m_doc;
    NodeInspectorModel* m_model;
    QLabel* m_title;
    QTreeView* m_view;
};

}  // namespace fxray::views
