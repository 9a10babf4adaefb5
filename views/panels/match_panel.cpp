#include "panels/match_panel.h"

#include "document.h"
#include "ir/graph.h"
#include "models/match_model.h"

#include <algorithm>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>

namespace fxray::views {

MatchPanel::MatchPanel(Document* doc, QWidget* parent)
        : QWidget(parent), m_doc(doc), m_model(new MatchModel(this)), m_view(new QTreeView(this)),
          m_empty(new QLabel(this)), m_detail(new QTextBrowser(this)),
          m_selectMatched(new QPushButton(tr("Select matched"), this)),
          m_selectCreated(new QPushButton(tr("Select replacement"), this)) {
    setObjectName(QStringLiteral("matchPanel"));
    m_view->setObjectName(QStringLiteral("matches.view"));
    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->header()->setStretchLastSection(true);
    m_empty->setObjectName(QStringLiteral("matches.empty"));
    m_empty->setWordWrap(true);
    m_detail->setObjectName(QStringLiteral("matches.detail"));
    m_detail->setOpenLinks(false);
    m_detail->setMaximumHeight(180);
    m_selectMatched->setObjectName(QStringLiteral("matches.selectMatched"));
    m_selectMatched->setToolTip(tr("Select only the nodes the pattern matched"));
    m_selectCreated->setObjectName(QStringLiteral("matches.selectReplacement"));
    m_selectCreated->setToolTip(tr("Select only the nodes the replacement created"));
    m_selectMatched->setEnabled(false);
    m_selectCreated->setEnabled(false);

    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_selectMatched);
    buttons->addWidget(m_selectCreated);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_empty);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_detail);
    layout->addLayout(buttons);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &MatchPanel::onCurrentChanged);
    connect(m_selectMatched, &QPushButton::clicked, this, [this] { m_doc->setSelection(m_matched, this); });
    connect(m_selectCreated, &QPushButton::clicked, this, [this] { m_doc->setSelection(m_created, this); });
    connect(m_doc, &Document::traceChanged, this, [this] {
        m_model->setTrace(m_doc->trace());
        m_empty->setText(!m_doc->trace()            ? tr("Compile the graph to see which patterns fire.")
                         : m_model->rowCount() == 0 ? tr("No pattern matched or nearly matched in this run.")
                                                    : QString());
        m_empty->setVisible(!m_empty->text().isEmpty());
        m_detail->clear();
        m_matched.clear();
        m_created.clear();
        m_selectMatched->setEnabled(false);
        m_selectCreated->setEnabled(false);
        onPassChanged();
    });
    connect(m_doc, &Document::passChanged, this, &MatchPanel::onPassChanged);
    m_model->setTrace(m_doc->trace());
    m_empty->setText(tr("Compile the graph to see which patterns fire."));
}

void MatchPanel::onPassChanged() {
    m_model->setCurrent(m_doc->passIndex());
    const QModelIndex pass = m_model->indexOfPass(m_doc->passIndex());
    if (pass.isValid()) {
        m_view->expand(pass);
        m_view->scrollTo(pass);
    }
}

void MatchPanel::onCurrentChanged() {
    const QModelIndex i = m_view->currentIndex();
    if (!i.isValid() || !m_doc) return;
    const auto kind = static_cast<MatchModel::Kind>(i.data(MatchModel::KindRole).toInt());
    const int pass = i.data(MatchModel::PassIndexRole).toInt();
    m_matched.clear();
    m_created.clear();
    QString detail;
    switch (kind) {
    case MatchModel::Kind::Pass: detail = i.siblingAtColumn(MatchModel::ColName).data().toString(); break;
    case MatchModel::Kind::Pattern: {
        // Every match of the pattern in this pass.
        const QModelIndex first = i.siblingAtColumn(0);
        for (int r = 0; r < m_model->rowCount(first); ++r) {
            const QModelIndex c = m_model->index(r, 0, first);
            if (static_cast<MatchModel::Kind>(c.data(MatchModel::KindRole).toInt()) != MatchModel::Kind::Match)
                continue;
            m_matched << c.data(MatchModel::NodesRole).toStringList();
            m_created << c.data(MatchModel::NewNodesRole).toStringList();
        }
        break;
    }
    case MatchModel::Kind::Match:
        m_matched = i.data(MatchModel::NodesRole).toStringList();
        m_created = i.data(MatchModel::NewNodesRole).toStringList();
        break;
    case MatchModel::Kind::NearMiss:
        m_matched = i.data(MatchModel::NodesRole).toStringList();
        detail = tr("Pattern %1 rejected the candidate at %2:\n%3")
                     .arg(i.data(MatchModel::PatternRole).toString(), m_matched.value(0),
                          i.data(MatchModel::ReasonRole).toString());
        break;
    }
    m_selectMatched->setEnabled(!m_matched.isEmpty());
    m_selectCreated->setEnabled(!m_created.isEmpty());
    // Show the pass the row belongs to, then what it touched: the canvas draws the matched
    // nodes that the pass removed as ghosts next to the nodes that replaced them.
    m_doc->setPassIndex(pass);
    // A match (or all matches of a pattern) reads as pattern → replacement; the ops come from
    // the graphs before and after the pass, which setPassIndex has just made current.
    if (kind == MatchModel::Kind::Pattern || kind == MatchModel::Kind::Match)
        m_detail->setHtml(sideBySide(i.data(MatchModel::PatternRole).toString()));
    else
        m_detail->setPlainText(detail);
    QStringList selection = m_matched;
    for (const QString& n : m_created)
        if (!selection.contains(n)) selection << n;
    if (!selection.isEmpty()) m_doc->setSelection(selection, this);
}

QString MatchPanel::sideBySide(const QString& pattern) const {
    // One cell per node: its name and the op it calls, looked up in the graph where it lives.
    const auto cell = [](const Graph* g, const QString& name) {
        const Node* n = g ? g->find(name.toStdString()) : nullptr;
        QString text = QStringLiteral("<code>%1</code>").arg(name.toHtmlEscaped());
        if (n && !n->target().empty())
            text += QStringLiteral(" <span style='color:gray'>%1</span>")
                        .arg(QString::fromStdString(n->target()).toHtmlEscaped());
        return text;
    };
    const Graph* before = m_doc->previousGraph();
    const Graph* after = m_doc->shownGraph();
    QString html = QStringLiteral("<p><b>%1</b> %2</p><table cellspacing='0' cellpadding='2' border='1' width='100%'>")
                       .arg(tr("Pattern").toHtmlEscaped(), pattern.toHtmlEscaped());
    html += QStringLiteral("<tr><th>%1</th><th>→</th><th>%2</th></tr>")
                .arg(tr("Matched (%n node(s))", nullptr, static_cast<int>(m_matched.size())).toHtmlEscaped(),
                     tr("Replacement (%n node(s))", nullptr, static_cast<int>(m_created.size())).toHtmlEscaped());
    const qsizetype rows = std::max(m_matched.size(), m_created.size());
    for (qsizetype r = 0; r < rows; ++r)
        html += QStringLiteral("<tr><td>%1</td><td></td><td>%2</td></tr>")
                    .arg(r < m_matched.size() ? cell(before, m_matched[r]) : QString(),
                         r < m_created.size() ? cell(after, m_created[r]) : QString());
    return html + QStringLiteral("</table>");
}

}  // namespace fxray::views
