#include "panels/compile_story_panel.h"

#include "document.h"
#include "jobs/job_lane.h"
#include "models/compile_tree_model.h"
#include "panels/output_code_view.h"
#include "panels/phase_chart.h"

#include "import/compile_story.h"
#include "import/loader.h"
#include "ir/graph.h"
#include "minify/spec.h"
#include "minify/torch_check.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSet>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>

namespace fxray::views {

namespace {
using StoryP = std::shared_ptr<const CompileStory>;
constexpr int kNodesRole = Qt::UserRole + 1;

QString fromStd(const std::string& s) { return QString::fromStdString(s); }
QString esc(const std::string& s) { return fromStd(s).toHtmlEscaped(); }

QString userLine(const UserFrame& f) {
    if (f.file.empty() && f.line <= 0) return {};
    QString html = QStringLiteral("<div><tt>%1:%2</tt>").arg(esc(f.file)).arg(f.line);
    if (!f.name.empty()) html += QStringLiteral(" in <tt>%1</tt>").arg(esc(f.name));
    if (!f.code.empty()) html += QStringLiteral("<pre>    %1</pre>").arg(esc(f.code));
    return html + QStringLiteral("</div>");
}

/// The compile's story as rich text: what a user reads first comes first.
QString detailsHtml(const CompileEntry& e) {
    QString h = QStringLiteral("<h3>%1 <span style='color:%2'>%3</span></h3>")
                    .arg(esc(e.id), CompileTreeModel::statusColor(e.status).name(),
                         QString::fromLatin1(compileStatusName(e.status)));
    if (!e.function.empty()) h += QStringLiteral("<p>%1 <tt>%2</tt></p>").arg(QObject::tr("Frame:"), esc(e.function));
    if (e.failure) {
        const CompileFailure& f = *e.failure;
        h += QStringLiteral("<h4>%1</h4><p><b>%2</b>: %3</p>").arg(QObject::tr("Failure"), esc(f.type), esc(f.message));
        h += userLine(f.userFrame);
        if (!f.stack.empty()) {
            h += QStringLiteral("<pre>");
            for (const std::string& s : f.stack) h += esc(s) + QLatin1Char('\n');
            h += QStringLiteral("</pre>");
        }
    }
    if (!e.graphBreaks.empty()) {
        h += QStringLiteral("<h4>%1</h4>").arg(QObject::tr("Graph breaks"));
        for (const GraphBreak& b : e.graphBreaks) {
            h += QStringLiteral("<p><b>%1</b>").arg(esc(b.reason));
            if (b.count > 1) h += QStringLiteral(" ×%1").arg(b.count);
            h += QStringLiteral("</p>") + userLine(b.userFrame);
        }
    }
    if (!e.restartReasons.empty()) {
        h += QStringLiteral("<h4>%1</h4><ul>").arg(QObject::tr("Restart reasons"));
        for (const std::string& r : e.restartReasons) h += QStringLiteral("<li>%1</li>").arg(esc(r));
        h += QStringLiteral("</ul>");
    }
    if (!e.recompileReasons.empty()) {
        h += QStringLiteral("<h4>%1</h4><ul>").arg(QObject::tr("Recompiled because"));
        for (const std::string& r : e.recompileReasons) h += QStringLiteral("<li><tt>%1</tt></li>").arg(esc(r));
        h += QStringLiteral("</ul>");
    }
    h += QStringLiteral("<h4>%1</h4>").arg(QObject::tr("Guards"));
    h += e.guardCount ? QStringLiteral("<p>%1</p>").arg(QObject::tr("%n guard(s)", nullptr, int(*e.guardCount)))
                      : QStringLiteral("<p>%1</p>").arg(QObject::tr("no guard count logged"));
    if (!e.failedGuards.empty()) {
        h += QStringLiteral("<p>%1</p><ul>").arg(QObject::tr("Failed later:"));
        for (const std::string& g : e.failedGuards) h += QStringLiteral("<li><tt>%1</tt></li>").arg(esc(g));
        h += QStringLiteral("</ul>");
    }
    if (!e.symbols.empty()) {
        h += QStringLiteral("<h4>%1</h4><ul>").arg(QObject::tr("Symbols"));
        for (const SymbolInfo& s : e.symbols)
            h += QStringLiteral("<li><tt>%1</tt> = %2 <tt>%3</tt> %4</li>")
                     .arg(esc(s.name), esc(s.hint), esc(s.source), esc(s.range));
        h += QStringLiteral("</ul>");
    }
    if (!e.stages.empty()) {
        QStringList st;
        for (const std::string& s : e.stages) st << fromStd(s);
        h += QStringLiteral("<h4>%1</h4><p><tt>%2</tt></p>")
                 .arg(QObject::tr("Stages"), st.join(QStringLiteral(", ")).toHtmlEscaped());
    }
    return h;
}
}  // namespace

CompileStoryPanel::CompileStoryPanel(Document* doc, QWidget* parent)
        : QWidget(parent), m_doc(doc), m_model(new CompileTreeModel(this)), m_tree(new QTreeView(this)),
          m_summary(new QLabel(this)), m_tabs(new QTabWidget(this)), m_details(new QTextBrowser(this)),
          m_chart(new PhaseChart(this)), m_kernels(new QListWidget(this)),
          m_minify(new QPushButton(tr("&Minify failing graph"), this)), m_minifyNote(new QLabel(this)),
          m_code(new OutputCodeView(this)), m_lane(new JobLane(this, nullptr, 1)),
          m_probe(new JobLane(this, nullptr, 1)) {
    setObjectName(QStringLiteral("compileStoryPanel"));
    m_tree->setObjectName(QStringLiteral("compileStoryTree"));
    m_tree->setModel(m_model);
    m_tree->setUniformRowHeights(true);
    m_tree->setAllColumnsShowFocus(true);
    // Name and status always fit; the "why" column only where the pane is wide (narrow, the
    // details below say the same), so the status is never pushed out of sight.
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(CompileTreeModel::NameColumn, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(CompileTreeModel::StatusColumn, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(CompileTreeModel::SummaryColumn, QHeaderView::Interactive);
    m_tree->installEventFilter(this);
    m_summary->setObjectName(QStringLiteral("compileStorySummary"));
    m_summary->setWordWrap(true);
    m_details->setObjectName(QStringLiteral("compileStoryDetails"));
    m_details->setOpenLinks(false);
    m_kernels->setObjectName(QStringLiteral("compileStoryKernels"));
    m_kernels->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_minify->setObjectName(QStringLiteral("compileStoryMinify"));
    m_minify->setToolTip(tr("Make the graph this compile failed on current and minify it against PyTorch "
                            "(torch.compile with Inductor) when PyTorch is installed"));
    m_minify->setEnabled(false);
    m_minifyNote->setObjectName(QStringLiteral("compileStoryMinifyNote"));
    m_minifyNote->setWordWrap(true);
    m_minifyNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_minifyNote->hide();

    auto* detailsPage = new QWidget(this);
    auto* dl = new QVBoxLayout(detailsPage);
    dl->setContentsMargins(0, 0, 0, 0);
    dl->addWidget(m_details, 1);
    dl->addWidget(m_minify);
    dl->addWidget(m_minifyNote);
    m_tabs->addTab(detailsPage, tr("&Details"));
    m_tabs->addTab(m_chart, tr("&Timings"));
    m_tabs->addTab(m_kernels, tr("&Kernels"));
    m_tabs->addTab(m_code, tr("Output &code"));

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tree);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    // The tree and the reasons must be readable even where the pane shares its column: a floor.
    m_tree->setMinimumHeight(m_tree->fontMetrics().height() * 10);
    setMinimumWidth(m_tree->fontMetrics().averageCharWidth() * 56);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(m_summary);
    lay->addWidget(split, 1);

    connect(m_lane, &JobLane::busyChanged, this, &CompileStoryPanel::busy);
    connect(m_probe, &JobLane::busyChanged, this, &CompileStoryPanel::busy);
    connect(m_code, &OutputCodeView::kernelActivated, this, [this](const QStringList& nodes, int code) {
        showNodes(nodes, code);
        syncKernelList(nodes);  // the code keeps its own highlight: the user is reading there
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, &CompileStoryPanel::onCurrentChanged);
    connect(m_kernels, &QListWidget::itemSelectionChanged, this, &CompileStoryPanel::onKernelChosen);
    connect(m_minify, &QPushButton::clicked, this, &CompileStoryPanel::onMinifyClicked);
    if (m_doc) {
        connect(m_doc, &Document::fileChanged, this, &CompileStoryPanel::onFileChanged);
        connect(m_doc, &Document::selectionChanged, this, &CompileStoryPanel::onSelectionChanged);
    }
    onFileChanged();
}

CompileStoryPanel::~CompileStoryPanel() {
    m_lane->abandon();
    m_probe->abandon();
}

bool CompileStoryPanel::eventFilter(QObject* watched, QEvent* e) {
    if (watched == m_tree && e->type() == QEvent::Resize) {
        const int w = m_tree->viewport()->width();
        const bool wide = w >= m_tree->fontMetrics().averageCharWidth() * 80;
        m_tree->setColumnHidden(CompileTreeModel::SummaryColumn, !wide);
        if (wide) m_tree->setColumnWidth(CompileTreeModel::SummaryColumn, w * 45 / 100);
    }
    return QWidget::eventFilter(watched, e);
}

void CompileStoryPanel::onFileChanged() {
    const LoadedFile* f = m_doc ? m_doc->file() : nullptr;
    if (!f || f->format != "torch-trace") {
        m_lane->cancel();
        setStory(nullptr);
        return;
    }
    const std::string path = m_doc->path().toStdString();
    m_lane->start<StoryP>(
        tr("Reading the compile story"),
        [path](const JobContext&) -> StoryP {
            auto s = readCompileStory(path);
            return s.ok() ? std::make_shared<const CompileStory>(std::move(*s)) : nullptr;
        },
        [this](StoryP& s) { setStory(s); });
}

bool CompileStoryPanel::loadSync(const QString& path) {
    auto s = readCompileStory(path.toStdString());
    if (!s.ok()) return false;
    setStory(std::make_shared<const CompileStory>(std::move(*s)));
    return true;
}

bool CompileStoryPanel::waitForStory(int timeoutMs) { return m_lane->waitForIdle(timeoutMs); }

void CompileStoryPanel::setStory(std::shared_ptr<const CompileStory> story) {
    m_story = std::move(story);
    m_compile = -1;
    m_model->setStory(m_story);
    m_details->clear();
    m_kernels->clear();
    m_chart->setPhases({});
    m_code->setCodes({});
    m_minify->setEnabled(false);
    m_minifyNote->hide();
    if (!m_story) {
        m_summary->clear();
        return;
    }
    QHash<QString, int> byStatus;
    for (const CompileEntry& e : m_story->compiles) byStatus[QString::fromLatin1(compileStatusName(e.status))]++;
    QStringList parts;
    for (const char* s : {"ok", "graph_break", "restarted", "failed", "cache_hit"})
        if (byStatus.value(QString::fromLatin1(s)))
            parts << QStringLiteral("%1 %2").arg(byStatus.value(QString::fromLatin1(s))).arg(QString::fromLatin1(s));
    m_summary->setText(tr("%n compile(s): %1 · %2 distinct graph break(s)", nullptr, int(m_story->compiles.size()))
                           .arg(parts.join(QStringLiteral(", ")))
                           .arg(m_story->graphBreaks.size()));
    m_tree->expandToDepth(0);
    // Open on the compile that most needs a look: a failure, else the first graph break.
    int first = -1;
    for (CompileStatus want : {CompileStatus::Failed, CompileStatus::GraphBreak, CompileStatus::Ok})
        for (size_t i = 0; i < m_story->compiles.size() && first < 0; ++i)
            if (m_story->compiles[i].status == want) first = int(i);
    if (first < 0 && !m_story->compiles.empty()) first = 0;
    if (first >= 0) selectCompile(first);
}

void CompileStoryPanel::selectCompile(int index) {
    const QModelIndex i = m_model->indexOfCompile(index);
    if (i.isValid()) m_tree->setCurrentIndex(i);
}

int CompileStoryPanel::graphIndexOf(int index, const QString& stage) const {
    const LoadedFile* f = m_doc ? m_doc->file() : nullptr;
    if (!f || !m_story || index < 0 || size_t(index) >= m_story->compiles.size()) return -1;
    const std::string& id = m_story->compiles[size_t(index)].id;
    int found = -1;
    for (size_t g = 0; g < f->graphs.size(); ++g) {
        if (f->graphs[g].compileId != id) continue;
        if (!stage.isEmpty() && f->graphs[g].stage != stage.toStdString()) continue;
        found = int(g);  // the last matching graph: the one closest to what ran
        if (!stage.isEmpty()) break;
    }
    return found;
}

void CompileStoryPanel::onCurrentChanged() {
    const QModelIndex cur = m_tree->currentIndex();
    const int c = cur.data(CompileTreeModel::CompileIndexRole).toInt();
    if (!cur.isValid() || c < 0) return;
    showCompile(c);
    if (m_syncing || !m_doc) return;
    const QString stage = cur.data(CompileTreeModel::StageRole).toString();
    int g = graphIndexOf(c, stage);
    if (g < 0) g = graphIndexOf(c);
    if (g >= 0) m_doc->setGraphIndex(g);
}

void CompileStoryPanel::showCompile(int index) {
    if (index == m_compile) return;
    m_compile = index;
    const CompileEntry& e = m_story->compiles[size_t(index)];
    QString html = detailsHtml(e);
    if (e.failure) {
        // The graph it failed on: the compile's last logged graph, which choosing it made current.
        const int g = graphIndexOf(index);
        const LoadedFile* f = m_doc ? m_doc->file() : nullptr;
        if (g >= 0 && f) {
            const LoadedGraph& lg = f->graphs[size_t(g)];
            html += QStringLiteral("<h4>%1</h4><p><tt>%2</tt> — %3</p>")
                        .arg(tr("Failed on graph"), QString::fromStdString(lg.stage).toHtmlEscaped(),
                             tr("%n node(s), shown on the canvas", nullptr, int(lg.graph->size())));
        }
    }
    m_details->setHtml(html);
    std::vector<std::pair<QString, double>> phases;
    for (const auto& [name, s] : e.metrics)
        if (name.size() > 5 && name.compare(name.size() - 5, 5, "_time") == 0) phases.emplace_back(fromStd(name), s);
    m_chart->setPhases(std::move(phases));
    m_syncing = true;
    m_kernels->clear();
    for (const KernelInfo& k : e.kernels) {
        QStringList nodes;
        for (const std::string& n : k.nodes) nodes << fromStd(n);
        auto* item = new QListWidgetItem(
            nodes.isEmpty() ? fromStd(k.name)
                            : QStringLiteral("%1  ← %2").arg(fromStd(k.name), nodes.join(QStringLiteral(", "))),
            m_kernels);
        item->setData(kNodesRole, nodes);
        item->setToolTip(nodes.join(QLatin1Char('\n')));
    }
    m_syncing = false;
    m_tabs->setTabText(2, tr("&Kernels (%1)").arg(e.kernels.size()));
    fillOutputCode(index);
    m_minifyNote->hide();
    // A failed compile's graph is what the minifier shrinks; without one there is nothing to run.
    m_minify->setEnabled(e.status == CompileStatus::Failed && graphIndexOf(index) >= 0);
}

void CompileStoryPanel::onKernelChosen() {
    if (m_syncing || !m_doc || m_compile < 0) return;
    QStringList nodes;
    for (QListWidgetItem* it : m_kernels->selectedItems()) nodes << it->data(kNodesRole).toStringList();
    if (nodes.isEmpty()) return;
    showNodes(nodes);
    m_code->highlightNodes(nodes);
}

void CompileStoryPanel::showNodes(const QStringList& nodes, int code) {
    if (!m_doc || m_compile < 0 || nodes.isEmpty()) return;
    // Provenance names post-grad nodes: show the graph of this compile that has them (the
    // output code's own post-grad graph when the code is known).
    const LoadedFile* f = m_doc->file();
    const std::string& id = m_story->compiles[size_t(m_compile)].id;
    int best = -1, postGrad = -1;
    for (size_t g = 0; f && g < f->graphs.size(); ++g) {
        const LoadedGraph& lg = f->graphs[g];
        if (lg.compileId != id) continue;
        const bool isPostGrad = lg.stage == "inductor_post_grad_graph";
        postGrad += isPostGrad ? 1 : 0;
        if (!lg.graph->find(nodes.front().toStdString())) continue;
        if (code >= 0 && isPostGrad && postGrad == code) {
            best = int(g);
            break;
        }
        if (best < 0 || (isPostGrad && code < 0)) best = int(g);
        if (isPostGrad && code < 0) break;
    }
    m_syncing = true;
    if (best >= 0 && best != m_doc->graphIndex()) m_doc->setGraphIndex(best);
    m_doc->setSelection(nodes, this);
    m_syncing = false;
}

int CompileStoryPanel::codeOfCurrentGraph() const {
    const LoadedFile* f = m_doc ? m_doc->file() : nullptr;
    if (!f || m_compile < 0 || m_doc->graphIndex() < 0) return -1;
    const std::string& id = m_story->compiles[size_t(m_compile)].id;
    int rank = -1;
    for (int g = 0; g < int(f->graphs.size()); ++g) {
        const LoadedGraph& lg = f->graphs[size_t(g)];
        if (lg.compileId != id || lg.stage != "inductor_post_grad_graph") continue;
        ++rank;
        if (g == m_doc->graphIndex()) return rank;
    }
    return -1;
}

void CompileStoryPanel::fillOutputCode(int index) {
    std::vector<OutputCodeView::Code> codes;
    const LoadedFile* f = m_doc ? m_doc->file() : nullptr;
    std::vector<std::pair<const std::string*, const std::string*>> texts;  // code, its provenance
    if (f && index >= 0) {
        const std::string& id = m_story->compiles[size_t(index)].id;
        for (const Artifact& a : f->artifacts) {
            if (a.compileId != id) continue;
            if (a.name == "inductor_output_code")
                texts.emplace_back(&a.text, nullptr);
            else if (a.name == "inductor_provenance_tracking_node_mappings" && !texts.empty() && !texts.back().second)
                texts.back().second = &a.text;  // logged right after the code it maps
        }
    }
    for (const auto& [code, prov] : texts) {
        OutputCodeView::Code c;
        c.text = QString::fromStdString(*code);
        c.map = mapOutputCode(*code, prov ? std::string_view(*prov) : std::string_view());
        c.label = c.map.aotId.empty() ? tr("output code %1").arg(codes.size() + 1) : fromStd(c.map.aotId);
        codes.push_back(std::move(c));
    }
    const int n = int(codes.size());
    m_code->setCodes(std::move(codes));
    if (int c = codeOfCurrentGraph(); c >= 0) m_code->showCode(c);
    m_tabs->setTabText(3, n ? tr("Output &code (%1)").arg(n) : tr("Output &code"));
}

void CompileStoryPanel::onMinifyClicked() {
    if (m_compile < 0) return;
    const int index = m_compile;
    m_minify->setEnabled(false);
    m_minifyNote->setText(tr("Checking for Python with PyTorch…"));
    m_minifyNote->show();
    using Probe = std::pair<bool, QString>;  // available, what was found or why not
    m_probe->start<Probe>(
        tr("Checking for PyTorch"),
        [](const JobContext&) -> Probe {
            auto spec = minify::parseCheckSpec("torch-compile");
            auto info = minify::probeTorch(minify::torchPython(), *spec);
            if (!info.ok()) return {false, QString::fromStdString(info.error().message)};
            return {true, QString::fromStdString("PyTorch " + info->version + " (" + info->python + ")")};
        },
        [this, index](Probe& p) {
            m_minify->setEnabled(m_compile == index);
            if (p.first) {
                m_minifyNote->setText(
                    tr("Minifying against %1: torch.compile with Inductor, in the Minifier pane").arg(p.second));
                Q_EMIT minifyRequested(index, QStringLiteral("torch-compile"));
            } else {
                m_minifyNote->setText(tr("PyTorch is not available, so the graph cannot be minified against it: %1. "
                                         "The Minifier opens for another check.")
                                          .arg(p.second));
                Q_EMIT minifyRequested(index, QString());
            }
        });
}

void CompileStoryPanel::onSelectionChanged(const QStringList& nodes, QObject* origin) {
    if (origin == this || m_syncing) return;
    syncKernelList(nodes);
    // The output code that goes with the graph shown, its kernels of these nodes marked.
    if (int c = codeOfCurrentGraph(); c >= 0) m_code->showCode(c);
    m_code->highlightNodes(nodes);
}

void CompileStoryPanel::syncKernelList(const QStringList& nodes) {
    const QSet<QString> chosen(nodes.begin(), nodes.end());
    const bool was = m_syncing;
    m_syncing = true;
    for (int r = 0; r < m_kernels->count(); ++r) {
        QListWidgetItem* it = m_kernels->item(r);
        bool hit = false;
        for (const QString& n : it->data(kNodesRole).toStringList()) hit = hit || chosen.contains(n);
        it->setSelected(hit);
    }
    m_syncing = was;
}

}  // namespace fxray::views
