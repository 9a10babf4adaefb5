#include "graph/graph_canvas.h"

#include "document.h"
#include "graph/canvas_colors.h"
#include "graph/graph_export.h"
#include "graph/graph_view.h"

#include "ir/graph.h"
#include "partition/partitioner.h"
#include "pass/compile_trace.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QThreadPool>

#include "jobs/job_lane.h"
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fxray::views {

namespace {

QAction* makeAction(QObject* parent, const QString& name, const QString& text, const QList<QKeySequence>& keys) {
    auto* a = new QAction(text, parent);
    a->setObjectName(name);
    a->setShortcuts(keys);
    if (!keys.isEmpty())
        a->setToolTip(QStringLiteral("%1 (%2)").arg(QString(text).remove(QLatin1Char('&')),
                                                    keys.first().toString(QKeySequence::NativeText)));
    return a;
}

QString swatch(QColor c, const QString& label) {
    return QStringLiteral("<span style='background:%1'>&nbsp;&nbsp;&nbsp;</span>&nbsp;%2&nbsp;&nbsp;")
        .arg(c.name(), label.toHtmlEscaped());
}

}  // namespace

GraphCanvas::GraphCanvas(Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
    setObjectName(QStringLiteral("graphCanvas"));
    // One worker: Graphviz is not thread-safe, and a newer request supersedes older ones.
    m_layoutLane = new JobLane(this, nullptr, 1);
    connect(m_layoutLane, &JobLane::busyChanged, this, &GraphCanvas::busy);
    m_routeLane = new JobLane(this, nullptr, 1);
    m_blockLane = new JobLane(this, nullptr, 1);
    m_edgeLane = new JobLane(this, nullptr, 1);
    m_crossLane = new JobLane(this, nullptr, 1);
    buildUi();
    connect(m_doc, &Document::fileChanged, this, &GraphCanvas::onGraphChanged);
    connect(m_doc, &Document::graphChanged, this, &GraphCanvas::onGraphChanged);
    connect(m_doc, &Document::traceChanged, this, &GraphCanvas::refresh);
    connect(m_doc, &Document::passChanged, this, &GraphCanvas::refresh);
    connect(m_doc, &Document::partitionChanged, this, [this] {
        if (m_mode == Mode::Partition) applyColouring();
        if (m_overlaySource == OverlaySource::SavedBytes) refreshOverlay();
    });
    // The overlays that depend on the pass follow it.
    for (auto signal : {&Document::traceChanged, &Document::passChanged})
        connect(m_doc, signal, this, [this] {
            if (m_overlaySource == OverlaySource::LastChangedBy) refreshOverlay();
        });
    connect(m_doc, &Document::nodeErrorsChanged, this, [this] {
        if (m_mode == Mode::Numerics) applyColouring();
    });
    connect(m_doc, &Document::selectionChanged, this, [this](const QStringList&, QObject* origin) {
        if (origin != this) applyDocumentSelection(true);
    });
    connect(m_scene, &GraphScene::selectionChangedByUser, this,
            [this](const QStringList& names) { m_doc->setSelection(names, this); });
    connect(m_scene, &GraphScene::overviewRoutesWanted, this, &GraphCanvas::routeOverview);
    connect(m_scene, &GraphScene::blockLayoutsWanted, this, &GraphCanvas::layOutBlocks);
    connect(m_scene, &GraphScene::crossRoutesWanted, this, &GraphCanvas::routeCrossEdges);
    connect(m_scene, &GraphScene::clustersChanged, this, [this] {
        m_collapsed = m_scene->collapsedLabels();
        m_view->minimap()->invalidate();
    });
    refresh();
}

GraphCanvas::~GraphCanvas() {
    // The layout in flight posts to the lane: it must end before the canvas goes.
    m_layoutLane->abandon();
    m_routeLane->abandon();
    m_blockLane->abandon();
    m_edgeLane->abandon();
    m_crossLane->abandon();
}

void GraphCanvas::buildUi() {
    m_scene = new GraphScene(this);
    m_view = new GraphView(this);
    m_view->setScene(m_scene);

    m_fit = makeAction(this, QStringLiteral("actionFit"), tr("&Fit to Window"), {QKeySequence(Qt::CTRL | Qt::Key_0)});
    m_zoomIn = makeAction(this, QStringLiteral("actionZoomIn"), tr("Zoom &In"),
                          {QKeySequence(Qt::CTRL | Qt::Key_Equal), QKeySequence(Qt::CTRL | Qt::Key_Plus)});
    m_zoomOut =
        makeAction(this, QStringLiteral("actionZoomOut"), tr("Zoom &Out"), {QKeySequence(Qt::CTRL | Qt::Key_Minus)});
    m_find = makeAction(this, QStringLiteral("actionFind"), tr("&Find Node..."), {QKeySequence::Find});
    m_findNext = makeAction(this, QStringLiteral("actionFindNext"), tr("Find &Next"), {QKeySequence(Qt::Key_F3)});
    m_findPrev = makeAction(this, QStringLiteral("actionFindPrevious"), tr("Find &Previous"),
                            {QKeySequence(Qt::SHIFT | Qt::Key_F3)});
    m_collapseAll = makeAction(this, QStringLiteral("actionCollapseAll"), tr("&Collapse All Clusters"),
                               {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C)});
    m_expandAll = makeAction(this, QStringLiteral("actionExpandAll"), tr("&Expand All Clusters"),
                             {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E)});
    connect(m_fit, &QAction::triggered, m_view, &GraphView::fitGraph);
    connect(m_zoomIn, &QAction::triggered, this, [this] { m_view->zoomBy(1.25); });
    connect(m_zoomOut, &QAction::triggered, this, [this] { m_view->zoomBy(0.8); });
    connect(m_find, &QAction::triggered, this, [this] {
        m_searchBar->show();
        m_searchEdit->setFocus();
        m_searchEdit->selectAll();
    });
    connect(m_findNext, &QAction::triggered, this, &GraphCanvas::findNext);
    connect(m_findPrev, &QAction::triggered, this, &GraphCanvas::findPrevious);
    connect(m_collapseAll, &QAction::triggered, this, [this] { m_scene->setAllCollapsed(true); });
    connect(m_expandAll, &QAction::triggered, this, [this] { m_scene->setAllCollapsed(false); });

    m_modeGroup = new QActionGroup(this);
    m_modeCategory = makeAction(this, QStringLiteral("actionColourCategory"), tr("Colour by &Category"),
                                {QKeySequence(Qt::CTRL | Qt::Key_1)});
    m_modeDiff = makeAction(this, QStringLiteral("actionColourDiff"), tr("Colour by &Diff"),
                            {QKeySequence(Qt::CTRL | Qt::Key_2)});
    m_modePartition = makeAction(this, QStringLiteral("actionColourPartition"), tr("Colour by &Partition"),
                                 {QKeySequence(Qt::CTRL | Qt::Key_3)});
    // The heat map of the numerics panel's last comparison (issue 9).
    m_modeNumerics = makeAction(this, QStringLiteral("actionColourNumerics"), tr("Colour by &Numeric Error"),
                                {QKeySequence(Qt::CTRL | Qt::Key_4)});
    for (QAction* a : {m_modeCategory, m_modeDiff, m_modePartition, m_modeNumerics}) {
        a->setCheckable(true);
        m_modeGroup->addAction(a);
    }
    m_modeCategory->setChecked(true);
    connect(m_modeCategory, &QAction::triggered, this, [this] { setMode(Mode::Category); });
    connect(m_modeDiff, &QAction::triggered, this, [this] { setMode(Mode::Diff); });
    connect(m_modePartition, &QAction::triggered, this, [this] { setMode(Mode::Partition); });
    connect(m_modeNumerics, &QAction::triggered, this, [this] { setMode(Mode::Numerics); });
    addActions({m_fit, m_zoomIn, m_zoomOut, m_find, m_findNext, m_findPrev, m_collapseAll, m_expandAll, m_modeCategory,
                m_modeDiff, m_modePartition, m_modeNumerics});
    for (QAction* a : actions()) a->setShortcutContext(Qt::WidgetWithChildrenShortcut);

    m_toolbar = new QToolBar(tr("Canvas"), this);
    m_toolbar->setObjectName(QStringLiteral("canvasToolBar"));
    m_toolbar->setIconSize(QSize(16, 16));
    m_toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto* cat = new QAction(tr("Category"), this);
    auto* diff = new QAction(tr("Diff"), this);
    auto* part = new QAction(tr("Partition"), this);
    auto* heat = new QAction(tr("Numerics"), this);
    // Short toolbar labels for the same checkable actions.
    for (auto [shortA, full] : {std::pair{cat, m_modeCategory}, std::pair{diff, m_modeDiff},
                                std::pair{part, m_modePartition}, std::pair{heat, m_modeNumerics}}) {
        shortA->setCheckable(true);
        shortA->setToolTip(full->toolTip());
        connect(shortA, &QAction::triggered, full, &QAction::trigger);
        connect(full, &QAction::toggled, shortA, &QAction::setChecked);
        m_toolbar->addAction(shortA);
    }
    cat->setChecked(true);
    m_toolbar->addSeparator();
    m_toolbar->addAction(tr("Fit"), m_fit, &QAction::trigger)->setToolTip(m_fit->toolTip());
    m_toolbar->addAction(tr("+"), m_zoomIn, &QAction::trigger)->setToolTip(m_zoomIn->toolTip());
    m_toolbar->addAction(tr("−"), m_zoomOut, &QAction::trigger)->setToolTip(m_zoomOut->toolTip());
    m_toolbar->addSeparator();
    m_toolbar->addAction(tr("Collapse"), m_collapseAll, &QAction::trigger)->setToolTip(m_collapseAll->toolTip());
    m_toolbar->addAction(tr("Expand"), m_expandAll, &QAction::trigger)->setToolTip(m_expandAll->toolTip());
    m_toolbar->addAction(tr("Find"), m_find, &QAction::trigger)->setToolTip(m_find->toolTip());
    m_toolbar->addSeparator();
    m_overlayBox = new QComboBox(this);
    m_overlayBox->setObjectName(QStringLiteral("canvas.overlay"));
    m_overlayBox->addItem(tr("No overlay"));
    m_overlayBox->addItem(tr("Saved bytes"));
    m_overlayBox->addItem(tr("Last changed by pass"));
    m_overlayBox->addItem(tr("Kernel time (fxray bench --json)…"));
    m_overlayBox->setToolTip(
        tr("Paint a value per node over the category colours; collapsed blocks show their nodes' max or sum"));
    m_toolbar->addWidget(m_overlayBox);
    connect(m_overlayBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        const auto source = static_cast<OverlaySource>(i);
        if (source == OverlaySource::KernelTime && m_overlaySource != source) {
            // Chosen in the box: ask for the profile (a test calls loadBenchProfile).
            const QString path = QFileDialog::getOpenFileName(this, tr("Open fxray bench --json output"), QString(),
                                                              tr("JSON (*.json);;All files (*)"));
            if (path.isEmpty())
                setOverlaySource(m_overlaySource);  // cancelled: back to what it was
            else
                loadBenchProfile(path);  // a bad file says why in the legend
            return;
        }
        setOverlaySource(source);
    });
    m_info = new QLabel(this);
    m_info->setObjectName(QStringLiteral("canvasInfo"));
    m_info->setContentsMargins(12, 0, 6, 0);
    m_toolbar->addWidget(m_info);

    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("canvasLegend"));
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setContentsMargins(6, 2, 6, 2);

    m_searchBar = new QWidget(this);
    m_searchBar->setObjectName(QStringLiteral("searchBar"));
    auto* sl = new QHBoxLayout(m_searchBar);
    sl->setContentsMargins(4, 2, 4, 2);
    m_searchEdit = new QLineEdit(m_searchBar);
    m_searchEdit->setObjectName(QStringLiteral("searchEdit"));
    m_searchEdit->setPlaceholderText(tr("Find node by name, op or shape (F3 next, Shift+F3 previous, Esc closes)"));
    m_searchEdit->setClearButtonEnabled(true);
    m_searchCount = new QLabel(m_searchBar);
    auto* prev = new QToolButton(m_searchBar);
    prev->setDefaultAction(m_findPrev);
    prev->setText(QStringLiteral("▲"));
    auto* next = new QToolButton(m_searchBar);
    next->setDefaultAction(m_findNext);
    next->setText(QStringLiteral("▼"));
    auto* close = new QToolButton(m_searchBar);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Close (Esc)"));
    sl->addWidget(new QLabel(tr("Find:"), m_searchBar));
    sl->addWidget(m_searchEdit, 1);
    sl->addWidget(m_searchCount);
    sl->addWidget(prev);
    sl->addWidget(next);
    sl->addWidget(close);
    m_searchBar->hide();
    connect(m_searchEdit, &QLineEdit::textChanged, this, &GraphCanvas::setSearchText);
    connect(m_searchEdit, &QLineEdit::returnPressed, this, &GraphCanvas::findNext);
    connect(close, &QToolButton::clicked, this, [this] {
        m_searchBar->hide();
        m_scene->setSearchHits({});
    });
    auto* esc = new QAction(tr("Close Find Bar"), this);
    esc->setObjectName(QStringLiteral("actionCloseFind"));
    esc->setShortcut(QKeySequence(Qt::Key_Escape));
    esc->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(esc, &QAction::triggered, close, &QToolButton::click);
    m_searchBar->addAction(esc);

    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(0);
    lay->addWidget(m_toolbar);
    lay->addWidget(m_searchBar);
    lay->addWidget(m_view, 1);
    lay->addWidget(m_legend);
    updateLegend();
}

QList<QAction*> GraphCanvas::modeActions() const {
    return {m_modeCategory, m_modeDiff, m_modePartition, m_modeNumerics};
}

void GraphCanvas::setMode(Mode m) {
    m_mode = m;
    (m == Mode::Category    ? m_modeCategory
     : m == Mode::Diff      ? m_modeDiff
     : m == Mode::Partition ? m_modePartition
                            : m_modeNumerics)
        ->setChecked(true);
    applyColouring();
}

bool GraphCanvas::setModeByName(const QString& name) {
    const QString n = name.toLower();
    if (n == QLatin1String("canvas") || n == QLatin1String("category") || n == QLatin1String("graph"))
        setMode(Mode::Category);
    else if (n == QLatin1String("diff"))
        setMode(Mode::Diff);
    else if (n == QLatin1String("partition"))
        setMode(Mode::Partition);
    else if (n == QLatin1String("numerics") || n == QLatin1String("heat"))
        setMode(Mode::Numerics);
    else
        return false;
    return true;
}

// ---- layout -------------------------------------------------------------------------------

void GraphCanvas::onGraphChanged() {
    // Another graph: nothing of the old one's layouts or clusters applies.
    m_layoutLane->cancel();
    m_routeLane->cancel();
    m_blockLane->cancel();
    m_edgeLane->cancel();
    m_crossLane->cancel();
    m_routePending = m_blockPending = m_edgesPending = m_crossPending = false;
    m_scene->forgetPlacement();
    m_cache.clear();
    m_graphs.clear();
    m_history.clear();
    m_routeHistory.clear();
    m_collapsed.clear();
    m_shown.reset();
    m_fitPending = true;
    m_collapseAllPending = true;
    m_partitionAskedFor = 0;
    refresh();
}

QSet<QString> GraphCanvas::movedByCurrentPass() const {
    QSet<QString> out;
    const PassRecord* pr = m_doc->currentPass();
    if (!pr) return out;
    for (const ProvenanceEvent& e : pr->events) {
        if (!e.graph.empty()) continue;
        if (e.kind == ProvenanceEvent::Kind::Created) out.insert(QString::fromStdString(e.node));
    }
    return out;
}

void GraphCanvas::refresh() {
    const Graph* g = m_doc->shownGraph();
    if (!g) {
        m_layoutLane->cancel();
        m_routeLane->cancel();
        m_blockLane->cancel();
        m_edgeLane->cancel();
        m_crossLane->cancel();
        m_pending = false;
        m_routePending = m_blockPending = m_edgesPending = m_crossPending = false;
        m_shown.reset();
        m_scene->clearGraph();
        m_info->clear();
        m_view->minimap()->invalidate();
        return;
    }
    const uint64_t fp = g->fingerprint();
    if (m_shown && m_shown->fingerprint == fp && !m_pending) {
        // Same graph (an unchanged pass): only the colours may differ.
        applyColouring();
        return;
    }
    std::shared_ptr<const CanvasGraph> cg = m_graphs.value(fp);
    if (!cg) {
        cg = std::make_shared<const CanvasGraph>(buildCanvasGraph(*g));
        m_graphs.insert(fp, cg);
    }
    auto hit = m_cache.constFind(fp);
    if (hit != m_cache.constEnd()) {
        m_layoutLane->cancel();
        m_pending = false;
        install(cg, **hit, QStringLiteral("cache"));
        routeLayout(cg, *hit);  // its routes were superseded by a newer pass before they came
        return;
    }
    startLayout(cg);
}

void GraphCanvas::startLayout(std::shared_ptr<const CanvasGraph> cg) {
    m_pending = true;
    m_requested = cg;
    const QHash<QString, QPointF> previous = m_history;
    const QSet<QString> moved = movedByCurrentPass();
    const LayoutParams params = m_params;
    using LayoutP = std::shared_ptr<GraphLayout>;
    m_layoutLane->start<LayoutP>(
        tr("Laying out %n node(s)", nullptr, static_cast<int>(cg->nodes.size())),
        [cg, previous, moved, params](const JobContext&) {
            return std::make_shared<GraphLayout>(previous.isEmpty() ? layoutFresh(*cg, params)
                                                                    : layoutIncremental(*cg, previous, moved, params));
        },
        [this, cg](LayoutP& layout) {
            m_pending = false;
            m_cache.insert(cg->fingerprint, layout);
            install(cg, *layout, layout->engine);
            routeLayout(cg, layout);
        });
}

void GraphCanvas::routeLayout(std::shared_ptr<const CanvasGraph> cg, std::shared_ptr<const GraphLayout> layout) {
    // The incremental layout keeps nodes in place but has no routes: Graphviz routes its edges
    // where the nodes are (no free curves), for the graphs dot lays out fresh.
    const bool hasRoutes =
        std::any_of(layout->routes.begin(), layout->routes.end(), [](const QPolygonF& r) { return !r.isEmpty(); });
    if (hasRoutes || !m_params.useDot || cg->edges.empty() ||
        static_cast<int>(cg->nodes.size()) > m_params.dotNodeLimit)
        return;
    const LayoutParams params = m_params;
    const RouteMemory memory = m_routeHistory;
    using RoutesP = std::shared_ptr<std::vector<QPolygonF>>;
    m_edgesPending = true;
    m_edgeLane->start<RoutesP>(
        QString(),
        [cg, layout, params, memory](const JobContext&) {
            // Edges whose ends stayed keep their routes; Graphviz routes the others one by one
            // (all at once it takes O(n^3): 32 s for gpt2's 326 nodes).
            const std::vector<QSizeF> sizes(cg->nodes.size(), QSizeF(params.nodeWidth, params.nodeHeight));
            return std::make_shared<std::vector<QPolygonF>>(routeKeeping(*cg, layout->pos, sizes, memory));
        },
        [this, cg, layout](RoutesP& routes) {
            m_edgesPending = false;
            if (routes->empty()) return;  // no Graphviz
            auto routed = std::make_shared<GraphLayout>(*layout);
            routed->routes = std::move(*routes);
            // A revisit of the pass (the cache) draws them at once.
            m_cache.insert(cg->fingerprint, routed);
            rememberRoutes(m_routeHistory, *cg, routed->pos, routed->routes);
            m_scene->setLayoutRoutes(cg.get(), routed->routes);
            m_view->minimap()->invalidate();
        });
}

void GraphCanvas::cancelLayout() {
    if (!m_pending) return;
    m_layoutLane->cancel();
    m_pending = false;
}

bool GraphCanvas::waitForLayout(int timeoutMs) {
    QDeadlineTimer deadline(timeoutMs);
    while ((m_pending || routingPending()) && !deadline.hasExpired()) {
        for (JobLane* lane : {m_layoutLane, m_routeLane, m_blockLane, m_edgeLane, m_crossLane})
            lane->pool()->waitForDone(5);
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    return !m_pending && !routingPending();
}

void GraphCanvas::routeCrossEdges() {
    const auto req = m_scene->crossRouteRequest();
    if (!req) return;
    using RoutesP = std::shared_ptr<std::vector<QPolygonF>>;
    m_crossPending = true;
    m_crossLane->start<RoutesP>(
        QString(),
        [req](const JobContext&) {
            return std::make_shared<std::vector<QPolygonF>>(
                routeEdgesLocally(req->graph, req->pos, req->sizes, req->which));
        },
        [this, req](RoutesP& routes) {
            m_crossPending = false;
            m_scene->setCrossRoutes(req->generation, *routes);
            m_view->minimap()->invalidate();
        });
}

void GraphCanvas::layOutBlocks() {
    // Every block still waiting, in one job: a newer request supersedes the one in flight.
    const auto wanted = m_scene->blocksWanted();
    // The scene's graph: this runs from setGraph, before m_shown follows.
    std::shared_ptr<const CanvasGraph> cg = m_scene->sharedGraph();
    if (wanted.empty() || !cg) return;
    const LayoutParams params = m_params;
    using BlocksP = std::shared_ptr<std::vector<BlockLayout>>;
    m_blockPending = true;
    m_blockLane->start<BlocksP>(
        QString(),
        [cg, wanted, params](const JobContext& ctx) {
            auto out = std::make_shared<std::vector<BlockLayout>>();
            for (const BlockRequest& r : wanted) {
                if (ctx.cancelled()) break;
                out->push_back(layoutBlock(*cg, r.cluster, params, r.placed.get(), r.memory));
            }
            return out;
        },
        [this, cg](BlocksP& blocks) {
            m_blockPending = false;
            m_scene->setBlockLayouts(cg.get(), *blocks);
            m_view->minimap()->invalidate();
        });
}

void GraphCanvas::routeOverview() {
    using RoutesP = std::shared_ptr<QHash<qint64, QPolygonF>>;
    const Overview ov = m_scene->overview();
    const int generation = m_scene->overviewGeneration();
    m_routePending = true;
    m_routeLane->start<RoutesP>(
        QString(),
        [ov](const JobContext&) { return std::make_shared<QHash<qint64, QPolygonF>>(fxray::views::routeOverview(ov)); },
        [this, generation](RoutesP& routes) {
            m_routePending = false;
            m_scene->setOverviewRoutes(generation, *routes);
            m_view->minimap()->invalidate();
        });
}

void GraphCanvas::install(std::shared_ptr<const CanvasGraph> cg, const GraphLayout& layout, const QString& engine) {
    QElapsedTimer t;
    t.start();
    const QPointF centre = m_view->mapToScene(m_view->viewport()->rect().center());
    if (m_collapseAllPending) {
        m_collapseAllPending = false;
        // Large graphs open as an overview of their clusters, repeated layers stacked.
        if (static_cast<int>(cg->nodes.size()) > m_collapseLimit) {
            for (const CanvasCluster& c : cg->clusters) m_collapsed.insert(c.label);
            for (const CanvasStack& st : cg->stacks) m_collapsed.insert(st.label);
        }
    }
    m_scene->setGraph(cg, layout, m_params, m_collapsed);
    m_shown = cg;
    for (size_t i = 0; i < cg->nodes.size() && i < layout.pos.size(); ++i)
        m_history.insert(cg->nodes[i].name, layout.pos[i]);
    rememberRoutes(m_routeHistory, *cg, layout.pos, layout.routes);
    applyColouring();
    applyDocumentSelection(false);
    if (!m_searchEdit->text().isEmpty()) setSearchText(m_searchEdit->text());
    if (m_fitPending) {
        m_fitPending = false;
        m_view->fitGraph();
    } else {
        // Stepping passes keeps the viewport where the user left it.
        m_view->centerOn(centre);
    }
    m_lastEngine = engine;
    m_lastLayoutMs = layout.ms;
    // Two plurals: Qt has one %n per string.
    m_info->setText(tr("%n node(s)", nullptr, static_cast<int>(cg->nodes.size())) + QStringLiteral(", ") +
                    tr("%n cluster(s)", nullptr, static_cast<int>(cg->clusters.size())) +
                    tr(" · layout: %1 %2 ms").arg(engine).arg(layout.ms, 0, 'f', 0));
    m_view->minimap()->invalidate();
    Q_EMIT layoutReady();
}

// ---- colouring ----------------------------------------------------------------------------

void GraphCanvas::applyColouring() {
    if (!m_shown) {
        updateLegend();
        return;
    }
    if (m_mode == Mode::Diff && m_doc->previousGraph()) {
        const Graph* prev = m_doc->previousGraph();
        const Graph* cur = m_doc->shownGraph();
        DiffInfo d;
        for (const auto& n : cur->nodes()) {
            const Node* before = prev->find(n->name());
            const QString name = QString::fromStdString(n->name());
            if (!before) {
                d.added.insert(name);
                continue;
            }
            // Same name, different computation: the pass rewrote it in place.
            bool changed = before->target() != n->target();
            if (!changed) {
                auto a = n->inputNodes();
                auto b = before->inputNodes();
                changed = a.size() != b.size();
                for (size_t i = 0; !changed && i < a.size(); ++i) changed = a[i]->name() != b[i]->name();
            }
            if (changed) d.rewritten.insert(name);
        }
        if (const PassRecord* pr = m_doc->currentPass())
            for (const ProvenanceEvent& e : pr->events) {
                if (!e.graph.empty() || e.kind != ProvenanceEvent::Kind::Replaced) continue;
                const QString rep = QString::fromStdString(e.replacement);
                if (m_shown->indexOf(rep) >= 0 && !d.added.contains(rep)) d.rewritten.insert(rep);
            }
        for (const auto& n : prev->nodes()) {
            const bool gone = !cur->find(n->name());
            for (const Node* in : n->inputNodes())
                if (gone || !cur->find(in->name()))
                    d.ghostEdges.emplace_back(QString::fromStdString(in->name()), QString::fromStdString(n->name()));
            if (!gone) continue;
            const QString name = QString::fromStdString(n->name());
            auto pos = m_history.constFind(name);
            if (pos == m_history.constEnd()) continue;  // never drawn: nowhere to put its ghost
            CanvasNode cn = describeNode(*n);
            d.removed.push_back({name, cn.op, cn.type, *pos});
        }
        m_scene->colourDiff(d);
        m_info->setToolTip(tr("+%1 −%2 ~%3").arg(d.added.size()).arg(d.removed.size()).arg(d.rewritten.size()));
    } else if (m_mode == Mode::Partition && m_doc->partition()) {
        const PartitionResult& pr = *m_doc->partition();
        PartitionInfo pi;
        for (const auto& [name, region] : pr.regions)
            pi.region.insert(QString::fromStdString(name), region == NodeRegion::Forward    ? 0
                                                           : region == NodeRegion::Backward ? 1
                                                                                            : 2);
        for (const SavedValue& s : pr.saved) {
            pi.saved.insert(QString::fromStdString(s.name));
            pi.bytes.insert(QString::fromStdString(s.name), s.bytes);
            if (s.input) pi.savedInputs.insert(QString::fromStdString(s.name));
        }
        for (const std::string& r : pr.recomputed) pi.recomputed.insert(QString::fromStdString(r));
        for (const CutEdge& c : pr.cut) pi.cut.insert(QString::fromStdString(c.node));
        if (pi.cut.isEmpty()) pi.cut = pi.saved;
        m_scene->colourPartition(pi);
    } else if (m_mode == Mode::Numerics) {
        m_scene->colourNumerics(m_doc->nodeErrors());
    } else {
        if (m_mode == Mode::Partition && m_partitionAskedFor != m_shown->fingerprint) {
            // No partition yet: ask for one (on the Document's worker); colours follow.
            m_partitionAskedFor = m_shown->fingerprint;
            m_doc->setMemoryBudget(m_doc->memoryBudget());
        }
        if (m_mode == Mode::Category && !m_overlay.empty())
            m_scene->colourOverlay(m_overlay);
        else
            m_scene->colourByCategory();
    }
    updateLegend();
    m_view->minimap()->invalidate();
}

bool GraphCanvas::loadBenchProfile(const QString& path, QString* error) {
    QString why;
    auto o = NodeOverlay::kernelTimeFromBench(path, &why);
    if (!o) {
        if (error) *error = why;
        setOverlaySource(OverlaySource::None);
        m_legend->setText(why.toHtmlEscaped());
        return false;
    }
    m_benchOverlay = std::move(*o);
    setOverlaySource(OverlaySource::KernelTime);
    return true;
}

void GraphCanvas::setOverlaySource(OverlaySource source) {
    m_overlaySource = source;
    if (m_overlayBox->currentIndex() != static_cast<int>(source))
        m_overlayBox->setCurrentIndex(static_cast<int>(source));
    refreshOverlay();
}

void GraphCanvas::refreshOverlay() {
    switch (m_overlaySource) {
    case OverlaySource::None: setOverlay(NodeOverlay()); break;
    case OverlaySource::SavedBytes:
        if (const auto p = m_doc->partition())
            setOverlay(NodeOverlay::savedBytes(*p));
        else {
            setOverlay(NodeOverlay());
            // Partitions on the worker (once per graph); partitionChanged brings the overlay.
            if (m_shown && m_partitionAskedFor != m_shown->fingerprint) {
                m_partitionAskedFor = m_shown->fingerprint;
                m_doc->setMemoryBudget(m_doc->memoryBudget());
            }
        }
        break;
    case OverlaySource::KernelTime: setOverlay(m_benchOverlay); break;
    case OverlaySource::LastChangedBy:
        if (const auto t = m_doc->trace())
            setOverlay(NodeOverlay::lastChangedBy(*t, m_doc->passIndex()));
        else
            setOverlay(NodeOverlay());
        break;
    }
}

void GraphCanvas::setOverlay(const NodeOverlay& overlay) {
    m_overlay = overlay;
    if (m_mode != Mode::Category) return;  // applied when the canvas goes back to Category
    if (m_overlay.empty())
        m_scene->colourByCategory();
    else
        m_scene->colourOverlay(m_overlay);
    updateLegend();
    m_view->minimap()->invalidate();
}

void GraphCanvas::updateLegend() {
    const bool dark = m_scene->dark();
    QString html;
    if (m_mode == Mode::Diff) {
        html = swatch(canvas_colors::added(dark), tr("added")) +
               swatch(canvas_colors::removed(dark), tr("removed (ghost)")) +
               swatch(canvas_colors::rewritten(dark), tr("rewritten")) +
               swatch(canvas_colors::unchanged(dark), tr("unchanged"));
        if (!m_doc->previousGraph()) html += tr("— no previous snapshot at this pass: step forward to see a diff");
    } else if (m_mode == Mode::Partition) {
        html = swatch(canvas_colors::forward(dark), tr("forward")) +
               swatch(canvas_colors::backward(dark), tr("backward")) +
               swatch(canvas_colors::saved(dark), tr("saved (framed)")) +
               swatch(canvas_colors::recomputed(dark), tr("recomputed (dashed)")) +
               swatch(canvas_colors::cut(dark),
                      tr("cut edges of activations, bundled per block: ✂ saved tensors · bytes"));
        if (!m_doc->partition()) html += tr("— partitioning…");
    } else if (m_mode == Mode::Numerics) {
        // One swatch per decade of the scale, as log10(rel_err).
        html = tr("rel_err:") + QStringLiteral("&nbsp;");
        for (int e = static_cast<int>(canvas_colors::kHeatLow); e <= static_cast<int>(canvas_colors::kHeatHigh); e += 2)
            html += swatch(canvas_colors::heat(std::pow(10.0, e), dark), QStringLiteral("1e%1").arg(e));
        html += swatch(canvas_colors::unchanged(dark), tr("not compared"));
        if (m_doc->nodeErrors().isEmpty()) html += tr("— run a comparison in the Numerics pane");
    } else if (m_scene->colouring() == GraphScene::Colouring::Overlay) {
        // The gradient at five points from the low to the high threshold, each labelled with
        // its value, then what blocks show.
        const NodeOverlay& o = m_scene->overlay();
        html = o.title.toHtmlEscaped() + QStringLiteral(":&nbsp;");
        for (int k = 0; k <= 4; ++k) {
            const double v = o.valueAt(k / 4.0);
            html += swatch(o.colour(v, dark), (k == 0   ? QStringLiteral("≤ ")
                                               : k == 4 ? QStringLiteral("≥ ")
                                                        : QString()) +
                                                  o.format(v));
        }
        html += swatch(canvas_colors::unchanged(dark), tr("no value"));
        html += o.aggregate == NodeOverlay::Aggregate::Sum ? tr("· blocks: sum of their nodes")
                                                           : tr("· blocks: max of their nodes");
    } else {
        for (NodeClass c :
             {NodeClass::Input, NodeClass::Extern, NodeClass::Pointwise, NodeClass::Reduction, NodeClass::View,
              NodeClass::Random, NodeClass::Creation, NodeClass::HigherOrder, NodeClass::Scalar, NodeClass::Other})
            html += swatch(canvas_colors::classFill(c, dark), nodeClassName(c));
    }
    m_legend->setText(html);
}

// ---- selection ----------------------------------------------------------------------------

void GraphCanvas::applyDocumentSelection(bool centre) {
    const QStringList names = m_doc->selection();
    m_scene->setSelectedNames(names);
    if (centre && !names.isEmpty())
        if (NodeItem* it = m_scene->nodeItem(names.first())) m_view->ensureVisible(it, 60, 60);
}

void GraphCanvas::centerOnSelection() {
    const QStringList names = m_doc->selection();
    if (names.isEmpty()) return;
    if (NodeItem* it = m_scene->nodeItem(names.first())) {
        m_scene->revealNode(it->index());
        m_view->focusOn(it->sceneBoundingRect());
    }
}

// ---- search -------------------------------------------------------------------------------

QList<int> GraphCanvas::findNodes(const QString& text) const {
    QList<int> out;
    if (!m_shown || text.trimmed().isEmpty()) return out;
    const QString t = text.trimmed();
    for (size_t i = 0; i < m_shown->nodes.size(); ++i) {
        const CanvasNode& n = m_shown->nodes[i];
        if (n.name.contains(t, Qt::CaseInsensitive) || n.op.contains(t, Qt::CaseInsensitive) ||
            n.type.contains(t, Qt::CaseInsensitive))
            out << static_cast<int>(i);
    }
    return out;
}

void GraphCanvas::setSearchText(const QString& text) {
    if (m_searchEdit->text() != text) {
        const QSignalBlocker block(m_searchEdit);
        m_searchEdit->setText(text);
    }
    m_hits = findNodes(text);
    m_hitPos = -1;
    m_scene->setSearchHits(m_hits);
    updateSearchLabel();
}

void GraphCanvas::updateSearchLabel() {
    if (m_searchEdit->text().isEmpty())
        m_searchCount->clear();
    else if (m_hits.isEmpty())
        m_searchCount->setText(tr("no match"));
    else
        m_searchCount->setText(tr("%1 / %2").arg(m_hitPos < 0 ? 0 : m_hitPos + 1).arg(m_hits.size()));
}

void GraphCanvas::jumpToHit() {
    if (m_hitPos < 0 || m_hitPos >= m_hits.size()) return;
    const int idx = m_hits[m_hitPos];
    m_scene->revealNode(idx);
    NodeItem* it = m_scene->nodeItem(idx);
    if (!it) return;
    m_view->focusOn(it->sceneBoundingRect());
    // The hit becomes the selection, so the inspector and the code pane follow.
    m_doc->setSelection({it->name()}, nullptr);
    updateSearchLabel();
}

void GraphCanvas::findNext() {
    if (m_hits.isEmpty()) {
        m_find->trigger();
        return;
    }
    m_hitPos = (m_hitPos + 1) % m_hits.size();
    jumpToHit();
}

void GraphCanvas::findPrevious() {
    if (m_hits.isEmpty()) {
        m_find->trigger();
        return;
    }
    m_hitPos = m_hitPos <= 0 ? m_hits.size() - 1 : m_hitPos - 1;
    jumpToHit();
}

// ---- export -------------------------------------------------------------------------------

bool GraphCanvas::exportTo(const QString& path, QString* error) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("svg")) return exportSvg(*m_scene, path, error);
    if (suffix == QLatin1String("png")) return exportPng(*m_scene, path, 8000, error);
    if (suffix == QLatin1String("dot") || suffix == QLatin1String("gv")) return exportDot(*m_scene, path, error);
    if (error) *error = tr("Unknown export format \"%1\" (use .svg, .png or .dot)").arg(suffix);
    return false;
}

}  // namespace fxray::views
