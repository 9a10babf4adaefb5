#include "panels/kernel_panel.h"

#include "document.h"
#include "import/loader.h"
#include "ir/graph.h"
#include "models/kernel_artifact_model.h"
#include "models/kernel_report.h"
#include "models/string_table_model.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QThreadPool>

#include "jobs/job_lane.h"
#include <QVBoxLayout>

namespace fxray::views {

namespace {

QPlainTextEdit* codeEdit(QWidget* parent, const QString& name) {
    auto* e = new QPlainTextEdit(parent);
    e->setObjectName(name);
    e->setReadOnly(true);
    e->setLineWrapMode(QPlainTextEdit::NoWrap);
    e->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return e;
}

QTableView* tableView(QWidget* parent, const QString& name, QAbstractItemModel* model) {
    auto* v = new QTableView(parent);
    v->setObjectName(name);
    v->setModel(model);
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setSelectionMode(QAbstractItemView::SingleSelection);
    v->setEditTriggers(QAbstractItemView::NoEditTriggers);
    v->verticalHeader()->hide();
    v->horizontalHeader()->setStretchLastSection(true);
    v->setWordWrap(false);
    return v;
}

}  // namespace

KernelPanel::KernelPanel(Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
    setObjectName(QStringLiteral("kernelPanel"));
    // One worker each: the newest request wins anyway, and LLVM already compiles on several
    // threads. The NVRTC check runs on its own lane so that the kernels show before it ends.
    m_compileLane = new JobLane(this, nullptr, 1);
    m_cudaLane = new JobLane(this, nullptr, 1);
    connect(m_compileLane, &JobLane::busyChanged, this, &KernelPanel::busy);
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("kernel.tabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(buildFxrayTab(), tr("fxray kernels"));
    m_tabs->addTab(buildInductorTab(), tr("Inductor code"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);

    connect(m_doc, &Document::fileChanged, this, [this] {
        m_model->setFile(m_doc->file());
        showArtifact(m_chooser->currentIndex());
        // Inductor's code first where the file carries some: that is what the user opened.
        m_tabs->setCurrentIndex(m_model->rowCount() > 0 ? 1 : 0);
        onGraphMaybeChanged();
    });
    // A trace holds the code of several compiles: show the current graph's first.
    connect(m_doc, &Document::graphChanged, this, [this] {
        const LoadedGraph* g = m_doc->currentGraph();
        if (g && !g->compileId.empty()) {
            const int row =
                m_chooser->findData(QString::fromStdString(g->compileId), KernelArtifactModel::CompileIdRole);
            if (row >= 0) m_chooser->setCurrentIndex(row);
        }
        onGraphMaybeChanged();
    });
    connect(m_doc, &Document::traceChanged, this, &KernelPanel::onGraphMaybeChanged);
    connect(m_doc, &Document::passChanged, this, &KernelPanel::onGraphMaybeChanged);
    connect(m_doc, &Document::selectionChanged, this, [this](const QStringList&, QObject* origin) {
        if (origin != this) followSelection();
    });
    m_model->setFile(m_doc->file());
    showArtifact(m_chooser->currentIndex());
}

KernelPanel::~KernelPanel() {
    m_compileLane->abandon();
    m_cudaLane->abandon();
}

// ---- building ---------------------------------------------------------------------------------

QWidget* KernelPanel::buildFxrayTab() {
    auto* w = new QWidget(this);
    m_compileButton = new QPushButton(tr("Compile"), w);
    m_compileButton->setObjectName(QStringLiteral("kernel.compile"));
    m_compileButton->setToolTip(tr("Compile the shown graph with fxray's backends (lowering, fusion, LLVM, CUDA C++)"));
    m_status = new QLabel(w);
    m_status->setObjectName(QStringLiteral("kernel.status"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);
    connect(m_compileButton, &QPushButton::clicked, this, [this] {
        if (m_compiling || m_checkingCuda)
            cancelCompile();
        else {
            m_stale = true;
            compileNow();
        }
    });

    m_kernelModel = new StringTableModel({tr("Kernel"), tr("Nodes"), tr("Iteration space"), tr("Fused nodes")}, this);
    m_groupModel = new StringTableModel({tr("Node"), tr("Runs as"), tr("Kernel")}, this);
    m_kernelView = tableView(w, QStringLiteral("kernel.kernels"), m_kernelModel);
    m_groupView = tableView(w, QStringLiteral("kernel.groups"), m_groupModel);
    auto* lists = new QTabWidget(w);
    lists->setObjectName(QStringLiteral("kernel.lists"));
    lists->addTab(m_kernelView, tr("Kernels"));
    lists->addTab(m_groupView, tr("Group map"));

    m_codeTabs = new QTabWidget(w);
    m_codeTabs->setObjectName(QStringLiteral("kernel.code"));
    const std::pair<CodeTab, QString> tabs[] = {{KernelIrTab, tr("Kernel IR")},
                                                {LlvmIrTab, tr("LLVM IR")},
                                                {AssemblyTab, tr("Assembly")},
                                                {CudaTab, tr("CUDA C++")}};
    const char* names[] = {"kernel.ir", "kernel.llvm", "kernel.asm", "kernel.cuda"};
    for (const auto& [t, title] : tabs) {
        m_code[t] = codeEdit(w, QString::fromLatin1(names[t]));
        m_codeTabs->addTab(m_code[t], title);
    }
    // Assembly is generated when first looked at: it costs a code generation per kernel.
    connect(m_codeTabs, &QTabWidget::currentChanged, this, &KernelPanel::updateCodeTab);

    auto* split = new QSplitter(Qt::Horizontal, w);
    split->addWidget(lists);
    split->addWidget(m_codeTabs);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);

    auto* top = new QHBoxLayout;
    top->addWidget(m_compileButton);
    top->addWidget(m_status, 1);
    auto* layout = new QVBoxLayout(w);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(split, 1);

    connect(m_kernelView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& cur) {
                if (m_syncing || !cur.isValid() || !m_report) return;
                const int k = cur.row();
                showKernel(k);
                // Choosing a kernel selects the nodes it computes (the canvas highlights them).
                if (m_doc && k < static_cast<int>(m_report->kernels.size()))
                    m_doc->setSelection(m_report->kernels[static_cast<size_t>(k)].nodes, this);
            });
    connect(m_groupView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& cur) {
                if (m_syncing || !cur.isValid() || !m_report || cur.row() >= static_cast<int>(m_report->groups.size()))
                    return;
                const KernelReport::Group& g = m_report->groups[static_cast<size_t>(cur.row())];
                if (g.kernel >= 0) {
                    const QSignalBlocker block(m_kernelView->selectionModel());
                    showKernel(g.kernel);
                }
                if (m_doc) m_doc->setSelection({g.node}, this);
            });
    m_status->setText(tr("Not compiled yet."));
    return w;
}

QWidget* KernelPanel::buildInductorTab() {
    auto* w = new QWidget(this);
    m_model = new KernelArtifactModel(this);
    m_chooser = new QComboBox(w);
    m_find = new QLineEdit(w);
    m_findStatus = new QLabel(w);
    m_edit = codeEdit(w, QStringLiteral("kernel.editor"));
    m_chooser->setObjectName(QStringLiteral("kernel.chooser"));
    m_chooser->setModel(m_model);
    m_chooser->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_find->setObjectName(QStringLiteral("kernel.find"));
    m_find->setPlaceholderText(tr("Find in code (Enter: next, Shift+Enter: previous)"));
    m_find->setClearButtonEnabled(true);
    m_findStatus->setObjectName(QStringLiteral("kernel.findStatus"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_chooser, 2);
    top->addWidget(m_find, 1);
    top->addWidget(m_findStatus);
    auto* layout = new QVBoxLayout(w);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_edit, 1);

    connect(m_chooser, &QComboBox::currentIndexChanged, this, &KernelPanel::showArtifact);
    connect(m_find, &QLineEdit::returnPressed, this,
            [this] { findNext(QGuiApplication::keyboardModifiers() & Qt::ShiftModifier); });
    connect(m_find, &QLineEdit::textChanged, this, [this] {
        // Search again from the top as the text is typed.
        QTextCursor c = m_edit->textCursor();
        c.movePosition(QTextCursor::Start);
        m_edit->setTextCursor(c);
        if (!m_find->text().isEmpty())
            findNext();
        else
            m_findStatus->clear();
    });
    auto* findShortcut = new QShortcut(QKeySequence::Find, w, [this] {
        m_find->setFocus();
        m_find->selectAll();
    });
    findShortcut->setContext(Qt::WidgetWithChildrenShortcut);
    return w;
}

// ---- Inductor's code ----------------------------------------------------------------------------

void KernelPanel::showArtifact(int row) {
    const LoadedFile* f = m_doc ? m_doc->file() : nullptr;
    const int index = m_model->index(row, 0).data(KernelArtifactModel::ArtifactIndexRole).toInt();
    if (!f || row < 0 || index < 0 || index >= static_cast<int>(f->artifacts.size())) {
        m_edit->clear();
        m_edit->setPlaceholderText(
            f ? tr("This file carries no generated kernel code (inductor_output_code, output_code.py).") : QString());
        return;
    }
    m_edit->setPlainText(QString::fromStdString(f->artifacts[static_cast<size_t>(index)].text));
}

bool KernelPanel::findNext(bool backward) {
    const QString text = m_find->text();
    if (text.isEmpty()) return false;
    const QTextDocument::FindFlags flags = backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    bool found = m_edit->find(text, flags);
    if (!found) {
        // Wrap around.
        QTextCursor c = m_edit->textCursor();
        c.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
        m_edit->setTextCursor(c);
        found = m_edit->find(text, flags);
    }
    m_findStatus->setText(found ? QString() : tr("not found"));
    return found;
}

// ---- fxray's kernels ----------------------------------------------------------------------------

void KernelPanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    if (m_stale) compileNow();
}

void KernelPanel::onGraphMaybeChanged() {
    const Graph* g = m_doc ? m_doc->shownGraph() : nullptr;
    if (m_report && g && m_report->fingerprint == g->fingerprint() && !m_compiling) return;
    m_stale = true;
    // Compiling costs seconds on a big graph: only while somebody looks at the result.
    if (isVisible()) compileNow();
}

void KernelPanel::compileNow() {
    const Graph* g = m_doc ? m_doc->shownGraph() : nullptr;
    m_stale = false;
    if (!g) {
        m_compileLane->cancel();
        m_cudaLane->cancel();
        m_compiling = false;
        install(nullptr);
        return;
    }
    const uint64_t fp = g->fingerprint();
    if (m_compiling ? m_requestedFp == fp : (m_report && m_report->fingerprint == fp)) return;
    m_requestedFp = fp;
    m_cudaLane->cancel();  // a check of the previous report means nothing now
    // The worker gets its own copy: the user may step passes or switch graphs while it runs.
    std::shared_ptr<const Graph> copy = g->clone();
    m_compiling = true;
    m_checkingCuda = false;
    m_compileButton->setText(tr("Cancel"));
    m_status->setText(tr("Compiling %n node(s)...", nullptr, static_cast<int>(g->size())));
    using ReportP = std::shared_ptr<const KernelReport>;
    m_compileLane->start<ReportP>(
        tr("Compiling kernels"), [copy](const JobContext&) { return ReportP(buildKernelReport(*copy)); },
        [this](ReportP& r) {
            m_compiling = false;
            m_compileButton->setText(tr("Compile"));
            install(r);
        });
}

void KernelPanel::cancelCompile() {
    if (!m_compiling && !m_checkingCuda) return;
    m_cudaLane->cancel();
    m_checkingCuda = false;
    if (!m_compiling) {
        m_compileButton->setText(tr("Compile"));
        updateStatus();
        return;
    }
    m_compileLane->cancel();
    m_compiling = false;
    m_stale = true;
    m_compileButton->setText(tr("Compile"));
    m_status->setText(tr("Cancelled."));
}

bool KernelPanel::waitForCompile(int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while ((m_compiling || m_checkingCuda) && t.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (m_compiling || m_checkingCuda) QThread::msleep(5);
    }
    return !m_compiling && !m_checkingCuda;
}

void KernelPanel::install(std::shared_ptr<const KernelReport> r) {
    m_report = std::move(r);
    m_kernel = -1;
    std::vector<QStringList> kernels, groups;
    if (m_report) {
        for (const KernelReport::Kernel& k : m_report->kernels) {
            QStringList shown = k.nodes.mid(0, 6);
            if (k.nodes.size() > 6) shown << QStringLiteral("…");
            kernels.push_back({k.name, QString::number(k.nodes.size()), k.shape, shown.join(QStringLiteral(", "))});
        }
        for (const KernelReport::Group& g : m_report->groups) groups.push_back({g.node, g.kind, g.target});
    }
    m_kernelModel->setRows(std::move(kernels));
    m_groupModel->setRows(std::move(groups));
    m_kernelView->resizeColumnToContents(0);
    m_groupView->resizeColumnToContents(0);
    for (QPlainTextEdit* e : m_code) e->clear();
    m_nvrtcStatus.clear();
    if (m_report) {
        const QString none =
            m_report->error.isEmpty() ? tr("Select a kernel, or a node on the canvas.") : m_report->error;
        for (QPlainTextEdit* e : m_code) e->setPlaceholderText(none);
    }
    updateStatus();
    startCudaCheck();
    followSelection();
    Q_EMIT kernelsReady();
}

void KernelPanel::updateStatus() {
    if (!m_report) {
        m_status->setText(tr("No graph."));
        return;
    }
    QStringList parts;
    parts << tr("%n kernel(s)", nullptr, static_cast<int>(m_report->kernels.size()))
          << tr("compiled in %1 ms").arg(m_report->ms, 0, 'f', 0);
    if (m_report->haveCpu)
        parts << tr("LLVM for %1").arg(m_report->cpuTarget);
    else if (!kernelReportHasCpuBackend())
        parts << tr("this build has no CPU backend: no LLVM IR or assembly");
    if (m_checkingCuda)
        parts << tr("checking the CUDA C++ with NVRTC...");
    else if (!m_nvrtcStatus.isEmpty())
        parts << m_nvrtcStatus;
    else if (!m_report->nvrtcStatus.isEmpty())
        parts << m_report->nvrtcStatus;
    QString text = parts.join(QStringLiteral(" · "));
    if (!m_report->error.isEmpty()) text = tr("Compile failed: %1").arg(m_report->error) + QStringLiteral("\n") + text;
    m_status->setText(text);
    m_status->setToolTip(m_report->error);
}

void KernelPanel::startCudaCheck() {
    // NVRTC takes seconds on a big module: the kernels are shown first, its verdict follows.
    if (!m_report || m_report->cudaModule.empty() || !m_report->nvrtcStatus.isEmpty()) return;
    m_checkingCuda = true;
    m_compileButton->setText(tr("Cancel"));
    updateStatus();
    std::shared_ptr<const KernelReport> r = m_report;
    m_cudaLane->start<QString>(
        QString(), [r](const JobContext&) { return checkCudaModule(r->cudaModule); },
        [this](QString& verdict) {
            m_checkingCuda = false;
            m_compileButton->setText(tr("Compile"));
            m_nvrtcStatus = verdict;
            updateStatus();
        });
}

void KernelPanel::showKernel(int k) {
    if (!m_report || k < 0 || k >= static_cast<int>(m_report->kernels.size())) return;
    m_kernel = k;
    {
        const QSignalBlocker block(m_kernelView->selectionModel());
        m_kernelView->selectRow(k);
        m_kernelView->selectionModel()->setCurrentIndex(m_kernelModel->index(k, 0), QItemSelectionModel::NoUpdate);
        m_kernelView->scrollTo(m_kernelModel->index(k, 0));
    }
    const KernelReport::Kernel& kr = m_report->kernels[static_cast<size_t>(k)];
    m_code[KernelIrTab]->setPlainText(kr.listing);
    m_code[LlvmIrTab]->setPlainText(kr.llvmIr.isEmpty() ? QString() : kr.llvmIr);
    if (kr.llvmIr.isEmpty())
        m_code[LlvmIrTab]->setPlaceholderText(
            kernelReportHasCpuBackend() ? m_report->error : tr("This build has no CPU backend (LLVM)."));
    m_code[AssemblyTab]->clear();
    m_code[CudaTab]->setPlainText(kr.cuda);
    updateCodeTab();
}

void KernelPanel::updateCodeTab() {
    if (!m_report || m_kernel < 0 || m_codeTabs->currentIndex() != AssemblyTab) return;
    if (!m_code[AssemblyTab]->document()->isEmpty()) return;
    m_code[AssemblyTab]->setPlainText(m_report->assembly(m_kernel));
}

void KernelPanel::followSelection() {
    if (!m_report || !m_doc) return;
    const QStringList sel = m_doc->selection();
    if (sel.isEmpty()) return;
    const QString node = sel.first();
    const std::vector<int> ks = m_report->kernelsOf(node);
    m_syncing = true;
    const KernelReport::Group* group = nullptr;
    for (size_t i = 0; i < m_report->groups.size(); ++i)
        if (m_report->groups[i].node == node) {
            group = &m_report->groups[i];
            m_groupView->selectRow(static_cast<int>(i));
            m_groupView->scrollTo(m_groupModel->index(static_cast<int>(i), 0));
            break;
        }
    if (!ks.empty()) {
        showKernel(ks.front());
    } else {
        // No kernel computes it (an extern GEMM, a view, an input): say so rather than leave
        // another node's kernel on screen.
        m_kernel = -1;
        m_kernelView->clearSelection();
        const QString why = group ? tr("%1 runs as %2 (%3): no generated kernel.").arg(node, group->kind, group->target)
                                  : tr("%1 is not computed by a kernel.").arg(node);
        for (QPlainTextEdit* e : m_code) {
            e->clear();
            e->setPlaceholderText(why);
        }
    }
    m_syncing = false;
    if (ks.size() > 1)
        m_status->setToolTip(tr("%1 is computed in %n kernel(s)", nullptr, static_cast<int>(ks.size())).arg(node));
}

}  // namespace fxray::views
