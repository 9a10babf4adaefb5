#include "panels/timeline_panel.h"

#include "document.h"
#include "models/changed_pass_filter.h"
#include "models/pass_timeline_model.h"
#include "pass/compile_trace.h"
#include "transforms/pass_teaching.h"
#include "transforms/passes.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QResizeEvent>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace fxray::views {

TimelinePanel::TimelinePanel(Document* doc, QWidget* parent)
        : QWidget(parent), m_doc(doc), m_model(new PassTimelineModel(this)), m_filter(new ChangedPassFilter(this)),
          m_pipeline(new QComboBox(this)), m_compile(new QPushButton(tr("Compile"), this)),
          m_changedOnly(new QCheckBox(tr("Changed passes only"), this)), m_summary(new QLabel(this)),
          m_view(new QTableView(this)), m_teaching(new QTextBrowser(this)), m_split(new QSplitter(this)),
          m_failure(new QLabel(this)), m_showBefore(new QPushButton(tr("Show graph before"), this)),
          m_next(new QAction(tr("Next Pass"), this)), m_previous(new QAction(tr("Previous Pass"), this)) {
    setObjectName(QStringLiteral("timelinePanel"));
    m_pipeline->setObjectName(QStringLiteral("timeline.pipeline"));
    for (const std::string& name : knownPipelines()) m_pipeline->addItem(QString::fromStdString(name));
    m_pipeline->setToolTip(tr("Pass pipeline to run on the current graph"));
    m_compile->setObjectName(QStringLiteral("timeline.compile"));
    m_compile->setToolTip(tr("Run the pipeline on the current graph and record every pass"));
    m_changedOnly->setObjectName(QStringLiteral("timeline.changedOnly"));
    m_summary->setObjectName(QStringLiteral("timeline.summary"));
    m_failure->setObjectName(QStringLiteral("timeline.failure"));
    m_failure->setWordWrap(true);
    m_failure->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_failure->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_failure->hide();
    m_showBefore->setObjectName(QStringLiteral("timeline.showBefore"));
    m_showBefore->setToolTip(tr("Show the graph the failed pass was given"));
    m_showBefore->hide();

    m_filter->setSourceModel(m_model);
    m_view->setObjectName(QStringLiteral("timeline.view"));
    m_view->setModel(m_filter);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // The result column takes the rest and elides a long failure message (shown in full below).
    m_view->horizontalHeader()->setSectionResizeMode(PassTimelineModel::ColStatus, QHeaderView::Stretch);
    m_view->horizontalHeader()->setMinimumSectionSize(24);
    m_view->setWordWrap(false);

    m_teaching->setObjectName(QStringLiteral("timeline.teaching"));
    m_teaching->setOpenLinks(false);
    m_teaching->setMinimumWidth(160);
    m_split->setObjectName(QStringLiteral("timeline.split"));
    m_split->setChildrenCollapsible(false);
    m_split->addWidget(m_view);
    m_split->addWidget(m_teaching);
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 2);

    m_next->setObjectName(QStringLiteral("action.nextPass"));
    m_next->setShortcuts({QKeySequence(Qt::ALT | Qt::Key_Right), QKeySequence(Qt::Key_F8)});
    m_next->setToolTip(tr("Step to the next pass (Alt+Right, F8)"));
    m_previous->setObjectName(QStringLiteral("action.previousPass"));
    m_previous->setShortcuts({QKeySequence(Qt::ALT | Qt::Key_Left), QKeySequence(Qt::SHIFT | Qt::Key_F8)});
    m_previous->setToolTip(tr("Step to the previous pass (Alt+Left, Shift+F8)"));
    connect(m_next, &QAction::triggered, this, [this] { step(+1); });
    connect(m_previous, &QAction::triggered, this, [this] { step(-1); });
    // Also reachable while the panel has focus when the window has not adopted the actions.
    addAction(m_next);
    addAction(m_previous);
    m_next->setShortcutContext(Qt::WindowShortcut);
    m_previous->setShortcutContext(Qt::WindowShortcut);

    auto* top = new QHBoxLayout;
    top->addWidget(m_pipeline, 1);
    top->addWidget(m_compile);
    top->addWidget(m_changedOnly);
    auto* fail = new QHBoxLayout;
    fail->addWidget(m_failure, 1);
    fail->addWidget(m_showBefore);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_summary);
    layout->addWidget(m_split, 1);
    layout->addLayout(fail);

    connect(m_compile, &QPushButton::clicked, this, [this] { m_doc->compileAsync(m_pipeline->currentText()); });
    connect(m_changedOnly, &QCheckBox::toggled, this, &TimelinePanel::setChangedOnly);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &TimelinePanel::onRowActivated);
    connect(m_showBefore, &QPushButton::clicked, this, [this] {
        // A failed pass was undone, so the graph it was given is the one after the pass before.
        m_doc->setPassIndex(m_doc->passIndex() - 1);
    });
    connect(m_doc, &Document::traceChanged, this, &TimelinePanel::onTraceChanged);
    connect(m_doc, &Document::passChanged, this, &TimelinePanel::onPassChanged);
    connect(m_doc, &Document::graphChanged, this, [this] { m_compile->setEnabled(m_doc->currentGraph() != nullptr); });
    m_compile->setEnabled(m_doc->currentGraph() != nullptr);
    onTraceChanged();
}

void TimelinePanel::setChangedOnly(bool on) {
    if (m_changedOnly->isChecked() != on) m_changedOnly->setChecked(on);  // re-enters via toggled
    m_filter->setChangedOnly(on);
    onPassChanged();
}

void TimelinePanel::step(int direction) {
    const int current = m_doc->passIndex();
    int target = current;
    if (direction > 0) {
        // The first shown pass after the current one.
        for (int r = 0; r < m_filter->rowCount(); ++r) {
            const int p = m_filter->index(r, 0).data(PassTimelineModel::PassIndexRole).toInt();
            if (p > current) {
                target = p;
                break;
            }
        }
    } else {
        target = -1;
        for (int r = m_filter->rowCount() - 1; r >= 0; --r) {
            const int p = m_filter->index(r, 0).data(PassTimelineModel::PassIndexRole).toInt();
            if (p < current) {
                target = p;
                break;
            }
        }
    }
    m_doc->setPassIndex(target);
}

void TimelinePanel::onTraceChanged() {
    const auto trace = m_doc->trace();
    m_model->setTrace(trace);
    if (trace) {
        const int i = m_pipeline->findText(m_doc->pipeline());
        if (i >= 0) {
            const QSignalBlocker block(m_pipeline);
            m_pipeline->setCurrentIndex(i);
        }
        int changed = 0, failed = 0;
        for (const PassRecord& p : trace->passes) {
            changed += p.changed ? 1 : 0;
            failed += p.failed ? 1 : 0;
        }
        // The subgraph column only matters when the pipeline recursed into one.
        bool subgraphs = false;
        for (const PassRecord& p : trace->passes) subgraphs = subgraphs || !p.graph.empty();
        m_view->setColumnHidden(PassTimelineModel::ColGraph, !subgraphs);
        QString text =
            tr("%1: %n pass run(s), ", nullptr, static_cast<int>(trace->passes.size()))
                .arg(QString::fromStdString(trace->pipeline)) +
            tr("%n changed, ", nullptr, changed) +
            tr("%1 → %2 nodes, %3 ms").arg(trace->nodesBefore).arg(trace->nodesAfter).arg(trace->ms, 0, 'f', 1);
        if (failed) text += tr(", %n failed", nullptr, failed);
        m_summary->setText(text);
    } else {
        m_summary->setText(m_doc->currentGraph() ? tr("Not compiled: choose a pipeline and press Compile.")
                                                 : QString());
    }
    onPassChanged();
}

void TimelinePanel::onPassChanged() {
    const int current = m_doc->passIndex();
    m_model->setCurrent(current);
    {
        m_syncing = true;
        const QModelIndex src = current >= 0 ? m_model->index(current, 0) : QModelIndex();
        const QModelIndex proxy = m_filter->mapFromSource(src);
        if (proxy.isValid()) {
            m_view->selectionModel()->setCurrentIndex(proxy,
                                                      QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_view->scrollTo(proxy);
        } else {
            m_view->selectionModel()->clear();
        }
        m_syncing = false;
    }
    const auto trace = m_doc->trace();
    const int count = trace ? static_cast<int>(trace->passes.size()) : 0;
    m_previous->setEnabled(current >= 0);
    m_next->setEnabled(current + 1 < count);
    updateFailure();
    updateTeaching();
}

void TimelinePanel::onRowActivated() {
    if (m_syncing || !m_doc) return;
    const QModelIndex i = m_view->selectionModel()->currentIndex();
    if (!i.isValid()) return;
    m_doc->setPassIndex(i.data(PassTimelineModel::PassIndexRole).toInt());
}

void TimelinePanel::updateFailure() {
    const PassRecord* p = m_doc->currentPass();
    const bool failed = p && p->failed;
    m_failure->setVisible(failed);
    m_showBefore->setVisible(failed);
    if (failed)
        m_failure->setText(
            tr("%1 failed and was undone: %2").arg(QString::fromStdString(p->name), QString::fromStdString(p->error)));
}

void TimelinePanel::updateTeaching() {
    const PassRecord* p = m_doc ? m_doc->currentPass() : nullptr;
    if (!p) {
        m_teaching->setHtml(QStringLiteral("<p>%1</p>")
                                .arg(tr("Select a pass in the timeline to read what it does, why, and which PyTorch "
                                        "function it mirrors.")
                                         .toHtmlEscaped()));
        return;
    }
    const QString name = QString::fromStdString(p->name);
    const PassTeaching* t = passTeaching(p->name);
    if (!t) {
        m_teaching->setHtml(
            QStringLiteral("<h3>%1</h3><p>%2</p>")
                .arg(name.toHtmlEscaped(), tr("No explanation is recorded for this pass.").toHtmlEscaped()));
        return;
    }
    // The paragraphs are engine text (English); the headings around them are translated.
    const auto html = [](std::string_view s) {
        return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())).toHtmlEscaped();
    };
    m_teaching->setHtml(
        QStringLiteral(
            "<h3>%1</h3><p><b>%2</b> %3</p><p><b>%4</b> %5</p><p><b>%6</b> <code>%7</code> · <code>%8</code></p>")
            .arg(name.toHtmlEscaped(), tr("What it does:").toHtmlEscaped(), html(t->what), tr("Why:").toHtmlEscaped(),
                 html(t->why), tr("In PyTorch:").toHtmlEscaped(), html(t->pytorchFile), html(t->pytorchFunction)));
}

void TimelinePanel::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    // Beside the table where the panel is wide, under it where it is tall and narrow (a side dock).
    m_split->setOrientation(e->size().width() >= 560 ? Qt::Horizontal : Qt::Vertical);
}

}  // namespace fxray::views
