#include "panels/diff_panel.h"

#include "document.h"
#include "ir/printer.h"
#include "models/text_diff_model.h"
#include "pass/compile_trace.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <tuple>

namespace fxray::views {

namespace {

/// The subgraph `path` ("true_graph_0", "body.inner") of `g`, or null.
const Graph* subgraphAt(const Graph* g, const std::string& path) {
    size_t start = 0;
    while (g && start <= path.size()) {
        const size_t dot = path.find('.', start);
        g = g->subgraph(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return g;
}

/// For a pass run on a subgraph, that subgraph before and after the pass (the Document's
/// snapshots are of the top graph only): the latest earlier snapshot of the same subgraph, else
/// the subgraph in the input graph.
std::pair<const Graph*, const Graph*> subgraphPair(const CompileTrace& t, int index) {
    const PassRecord& p = t.passes[static_cast<size_t>(index)];
    const Graph* before = nullptr;
    for (int i = index - 1; i >= 0 && !before; --i) {
        const PassRecord& q = t.passes[static_cast<size_t>(i)];
        if (q.graph == p.graph && q.changed && q.snapshot) before = q.snapshot->graph.get();
    }
    if (!before && t.initial) before = subgraphAt(t.initial->graph.get(), p.graph);
    const Graph* after = p.changed && p.snapshot ? p.snapshot->graph.get() : before;
    return {before, after};
}

}  // namespace

DiffPanel::DiffPanel(Document* doc, QWidget* parent)
        : QWidget(parent), m_doc(doc), m_model(new TextDiffModel(this)), m_summary(new QLabel(this)),
          m_comments(new QCheckBox(tr("Comments"), this)), m_prevChange(new QToolButton(this)),
          m_nextChange(new QToolButton(this)), m_view(new QTableView(this)) {
    setObjectName(QStringLiteral("diffPanel"));
    m_summary->setObjectName(QStringLiteral("diff.summary"));
    m_summary->setTextFormat(Qt::RichText);
    m_comments->setObjectName(QStringLiteral("diff.comments"));
    m_comments->setToolTip(tr("Include the # File: provenance comments in the diff"));
    m_prevChange->setObjectName(QStringLiteral("diff.previousChange"));
    m_prevChange->setArrowType(Qt::UpArrow);
    m_prevChange->setToolTip(tr("Previous change"));
    m_nextChange->setObjectName(QStringLiteral("diff.nextChange"));
    m_nextChange->setArrowType(Qt::DownArrow);
    m_nextChange->setToolTip(tr("Next change"));

    m_view->setObjectName(QStringLiteral("diff.view"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 2);
    m_view->horizontalHeader()->setSectionResizeMode(TextDiffModel::ColLeftLine, QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(TextDiffModel::ColRightLine, QHeaderView::ResizeToContents);
    m_view->horizontalHeader()->setSectionResizeMode(TextDiffModel::ColLeft, QHeaderView::Stretch);
    m_view->horizontalHeader()->setSectionResizeMode(TextDiffModel::ColRight, QHeaderView::Stretch);

    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_comments);
    top->addWidget(m_prevChange);
    top->addWidget(m_nextChange);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);

    connect(m_comments, &QCheckBox::toggled, this, [this] {
        m_before = m_after = nullptr;  // force a re-diff
        refresh();
    });
    connect(m_prevChange, &QToolButton::clicked, this, [this] { jump(-1); });
    connect(m_nextChange, &QToolButton::clicked, this, [this] { jump(+1); });
    connect(m_doc, &Document::passChanged, this, &DiffPanel::refresh);
    // A new trace or graph may reuse the addresses of the old snapshots: forget them.
    auto reset = [this] {
        m_before = m_after = nullptr;
        refresh();
    };
    connect(m_doc, &Document::graphChanged, this, reset);
    connect(m_doc, &Document::traceChanged, this, reset);
    refresh();
}

void DiffPanel::setShowComments(bool on) { m_comments->setChecked(on); }

void DiffPanel::refresh() {
    const Graph* before = m_doc->previousGraph();
    const Graph* after = m_doc->shownGraph();
    const PassRecord* pass = m_doc->currentPass();
    if (pass && !pass->graph.empty()) std::tie(before, after) = subgraphPair(*m_doc->trace(), m_doc->passIndex());
    if (!before || !after || !pass) {
        m_before = m_after = nullptr;
        m_model->clear();
        m_summary->setText(after ? tr("The input graph: step to a pass to see what it changed.") : QString());
        m_prevChange->setEnabled(false);
        m_nextChange->setEnabled(false);
        return;
    }
    const bool rediff = before != m_before || after != m_after;
    if (rediff) {
        m_before = before;
        m_after = after;
        m_change = -1;
        if (before == after) {
            m_model->clear();  // an unchanged or failed pass: nothing to print twice
        } else {
            PrintOptions opts;
            opts.comments = m_comments->isChecked();
            m_model->setTexts(printGraph(*before, opts), printGraph(*after, opts));
        }
    }
    const DiffSummary s = m_model->summary();
    QString name = QString::fromStdString(pass->name).toHtmlEscaped();
    if (!pass->graph.empty()) name += tr(" on %1").arg(QString::fromStdString(pass->graph).toHtmlEscaped());
    if (before == after) {
        m_summary->setText(pass->failed ? tr("<b>%1</b> failed and was undone: no change").arg(name)
                                        : tr("<b>%1</b> left the graph unchanged").arg(name));
    } else {
        m_summary->setText(tr("<b>%1</b>: <span style='color:#2e7d32'>+%2</span> "
                              "<span style='color:#c62828'>−%3</span> lines, %4 → %5 nodes")
                               .arg(name)
                               .arg(s.added)
                               .arg(s.removed)
                               .arg(pass->nodesBefore)
                               .arg(pass->nodesAfter));
    }
    m_prevChange->setEnabled(m_model->changeCount() > 0);
    m_nextChange->setEnabled(m_model->changeCount() > 0);
    if (rediff && m_model->changeCount() > 0) jump(+1);
}

void DiffPanel::jump(int direction) {
    const int n = m_model->changeCount();
    if (n == 0) return;
    m_change = m_change < 0 ? 0 : (m_change + direction + n) % n;
    const QModelIndex i = m_model->index(m_model->changeRow(m_change), TextDiffModel::ColLeft);
    m_view->scrollTo(i, QAbstractItemView::PositionAtCenter);
    m_view->setCurrentIndex(i);
}

}  // namespace fxray::views
