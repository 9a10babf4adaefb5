#include "panels/inspector_panel.h"

#include "document.h"
#include "ir/graph.h"
#include "models/node_inspector_model.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

namespace fxray::views {

InspectorPanel::InspectorPanel(Document* doc, QWidget* parent)
        : QWidget(parent), m_doc(doc), m_model(new NodeInspectorModel(this)), m_title(new QLabel(this)),
          m_view(new QTreeView(this)) {
    setObjectName(QStringLiteral("inspectorPanel"));
    m_title->setObjectName(QStringLiteral("inspector.title"));
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_view->setObjectName(QStringLiteral("inspector.view"));
    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->header()->setSectionResizeMode(NodeInspectorModel::ColProperty, QHeaderView::ResizeToContents);
    m_view->header()->setStretchLastSection(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_title);
    layout->addWidget(m_view, 1);

    connect(m_view, &QTreeView::doubleClicked, this, [this](const QModelIndex& i) {
        const QString name = i.data(NodeInspectorModel::NodeNameRole).toString();
        if (!name.isEmpty()) m_doc->setSelection({name}, this);
    });
    connect(m_doc, &Document::selectionChanged, this, &InspectorPanel::refresh);
    connect(m_doc, &Document::passChanged, this, &InspectorPanel::refresh);
    connect(m_doc, &Document::graphChanged, this, &InspectorPanel::refresh);
    refresh();
}

void InspectorPanel::refresh() {
    const QStringList sel = m_doc->selection();
    const QString name = sel.value(0);
    // A node the current pass removed (the canvas draws it as a ghost) is shown as it was in
    // the graph before the pass.
    const Graph* shown = m_doc->shownGraph();
    const Graph* before = m_doc->previousGraph();
    const std::string key = name.toStdString();
    const bool removed = !name.isEmpty() && shown && !shown->find(key) && before && before->find(key);
    m_model->setNode(removed ? before : shown, name, m_doc->trace().get(), m_doc->passIndex());
    QString title;
    if (name.isEmpty())
        title = tr("Select a node to inspect it.");
    else if (m_model->nodeName().isEmpty())
        title = tr("%1 is not in the shown graph").arg(name);
    else if (removed)
        title = tr("%1 (removed by this pass; as it was before)").arg(name);
    else
        title = name;
    if (sel.size() > 1 && !name.isEmpty()) title += tr(" · first of %1 selected").arg(sel.size());
    m_title->setText(title);
    m_view->expandAll();
}

}  // namespace fxray::views
