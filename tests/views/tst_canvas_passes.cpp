// Stepping through a compile on the canvas: the diff colouring marks the nodes a pass added
// (green), removed (red ghosts where they were, their edges dashed) and rewrote (amber);
// untouched nodes keep their place from pass to pass; the partition colouring follows
// Document::partition(). Incremental layouts end up with Graphviz's routes for every edge (from the
// worker, within a bounded wait, without moving a node), and so do the blocks opened in the
// overview of a big graph, whose nodes keep their places from pass to pass.
#include "test_util.h"

#include "document.h"
#include "graph/canvas_colors.h"
#include "graph/graph_canvas.h"
#include "graph/graph_layout.h"
#include "graph/graph_scene.h"

#include "partition/partitioner.h"
#include "pass/compile_trace.h"

#include <QApplication>
#include <QElapsedTimer>

using namespace fxray;
using namespace fxray::views;

namespace {
QString corpusPath(const char* rel) { return QString::fromStdString((fxtest::corpus() / rel).string()); }

QSet<QString> names(const Graph& g) {
    QSet<QString> out;
    for (const auto& n : g.nodes()) out.insert(QString::fromStdString(n->name()));
    return out;
}

bool haveGraphviz() {
    CanvasGraph two;
    two.nodes.resize(2);
    two.edges.push_back({0, 1, {}});
    return !routeWithGraphviz(two, {QPointF(0, 0), QPointF(0, 200)}, {QSizeF(100, 50), QSizeF(100, 50)}).empty();
}

/// An edge drawn along a route of Graphviz's that starts on its source's box and ends on its
/// target's; a description of what is wrong, empty when nothing is.
QString routedBoxToBox(EdgeItem* e) {
    const auto boxOf = [](QGraphicsItem* it) { return it->sceneBoundingRect().adjusted(4, 4, -4, -4); };
    const QPolygonF& r = e->route();
    if (r.size() < 4) return QStringLiteral("not routed: ") + e->toolTip();
    if (!boxOf(e->from()).adjusted(-3, -3, 3, 3).contains(r.first()) ||
        !boxOf(e->to()).adjusted(-12, -12, 12, 12).contains(r.last()))
        return QStringLiteral("route does not join the boxes: ") + e->toolTip();
    return {};
}

/// Processes events until the layout (not its routes) is installed.
bool waitForPlacement(GraphCanvas& canvas) {
    QElapsedTimer t;
    t.start();
    while (canvas.layoutPending() && t.elapsed() < 30000) QTest::qWait(5);
    return !canvas.layoutPending();
}

int passNamed(const CompileTrace& t, const std::string& name) {
    for (size_t i = 0; i < t.passes.size(); ++i)
        if (t.passes[i].name == name && t.passes[i].graph.empty()) return static_cast<int>(i);
    return -1;
}
}  // namespace

class TestCanvasPasses : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
    }

    void diffMarksAddedRemovedRewritten() {
        Document doc;
        GraphCanvas canvas(&doc);
        canvas.setMode(GraphCanvas::Mode::Diff);
        QVERIFY(doc.loadSync(corpusPath("attention/graphs/aot_joint_graph.py")));
        QVERIFY(doc.compileSync("joint"));
        QVERIFY(canvas.waitForLayout());
        const int fuse = passNamed(*doc.trace(), "fuse_attention");
        QVERIFY(fuse > 0);
        QVERIFY(doc.trace()->passes[static_cast<size_t>(fuse)].changed);
        // Step pass by pass, as a user would, up to the attention fusion.
        QHash<QString, QPointF> before;
        for (int i = 0; i <= fuse; ++i) {
            if (i == fuse) before = canvas.scene()->positions();
            doc.setPassIndex(i);
            QVERIFY(canvas.waitForLayout());
        }
        const Graph* cur = doc.shownGraph();
        const Graph* prev = doc.previousGraph();
        QVERIFY(cur && prev && cur != prev);
        const QSet<QString> now = names(*cur), then = names(*prev);
        const QSet<QString> added = now - then, removed = then - now;
        // The sfdp fusion replaces the hand-written softmax attention: some nodes go, sdpa comes.
        QVERIFY(!added.isEmpty());
        QVERIFY(!removed.isEmpty());
        GraphScene* s = canvas.scene();
        QCOMPARE(s->nodeItemCount(), static_cast<int>(cur->size()));
        int greens = 0;
        for (int i = 0; i < s->nodeItemCount(); ++i) {
            NodeItem* it = s->nodeItem(i);
            if (added.contains(it->name())) {
                QCOMPARE(it->mark(), DiffMark::Added);
                QCOMPARE(it->fill(), canvas_colors::added(s->dark()));
                ++greens;
            } else {
                QVERIFY(it->mark() != DiffMark::Added);
            }
        }
        QCOMPARE(greens, added.size());
        bool sdpa = false;
        for (const QString& a : added) sdpa |= s->nodeItem(a)->node()->op.contains("scaled_dot_product");
        QVERIFY(sdpa);
        // Every removed node is a red ghost where it was drawn before.
        QCOMPARE(static_cast<int>(s->ghostItems().size()), removed.size());
        for (NodeItem* g : s->ghostItems()) {
            QVERIFY(removed.contains(g->name()));
            QCOMPARE(g->mark(), DiffMark::Removed);
            QCOMPARE(g->fill(), canvas_colors::removed(s->dark()));
            QCOMPARE(g->pos(), before.value(g->name()));
        }
        // The removed nodes' edges, dashed red, one per edge of the previous snapshot with a
        // removed end (both ends drawn: a kept node, or another ghost).
        int ghostEdges = 0;
        for (const auto& n : prev->nodes())
            for (const Node* in : n->inputNodes())
                if (removed.contains(QString::fromStdString(n->name())) ||
                    removed.contains(QString::fromStdString(in->name())))
                    ++ghostEdges;
        QCOMPARE(static_cast<int>(s->ghostEdgeItems().size()), ghostEdges);
        for (EdgeItem* e : s->ghostEdgeItems()) {
            QVERIFY(e->dashed());
            QCOMPARE(e->highlight(), canvas_colors::removed(s->dark()));
            auto* a = qgraphicsitem_cast<NodeItem*>(e->from());
            auto* b = qgraphicsitem_cast<NodeItem*>(e->to());
            QVERIFY(a && b);  // the attention graph is small: nothing collapsed
            QVERIFY(a->isGhost() || b->isGhost());
            // Joins what the previous snapshot joined.
            const Node* to = prev->find(b->name().toStdString());
            QVERIFY(to);
            bool input = false;
            for (const Node* in : to->inputNodes()) input |= QString::fromStdString(in->name()) == a->name();
            QVERIFY(input);
        }
        // Consumers of the fused result now read another node: rewritten (amber).
        int amber = 0;
        for (int i = 0; i < s->nodeItemCount(); ++i)
            if (s->nodeItem(i)->mark() == DiffMark::Rewritten) {
                QCOMPARE(s->nodeItem(i)->fill(), canvas_colors::rewritten(s->dark()));
                QVERIFY(then.contains(s->nodeItem(i)->name()));
                ++amber;
            }
        QVERIFY(amber > 0);
        // Stable layout: nodes the pass did not create are exactly where they were.
        for (int i = 0; i < s->nodeItemCount(); ++i) {
            NodeItem* it = s->nodeItem(i);
            if (added.contains(it->name())) continue;
            QCOMPARE(it->pos(), before.value(it->name()));
        }
        // Back to category colours: no marks, no ghosts.
        canvas.setMode(GraphCanvas::Mode::Category);
        QVERIFY(s->ghostItems().empty());
        QVERIFY(s->ghostEdgeItems().empty());
        QCOMPARE(s->nodeItem(0)->mark(), DiffMark::None);
    }

    void incrementalLayoutsAreRouted() {
        if (!haveGraphviz()) QSKIP("built without Graphviz");
        Document doc;
        GraphCanvas canvas(&doc);
        QVERIFY(doc.loadSync(corpusPath("attention/graphs/aot_joint_graph.py")));
        QVERIFY(doc.compileSync("joint"));
        QVERIFY(canvas.waitForLayout());
        const int fuse = passNamed(*doc.trace(), "fuse_attention");
        QVERIFY(fuse > 0);
        int incremental = 0;
        for (int i = 0; i <= fuse; ++i) {
            doc.setPassIndex(i);
            QVERIFY(waitForPlacement(canvas));
            const QHash<QString, QPointF> placed = canvas.scene()->positions();
            const bool fresh = canvas.layoutEngine() == QLatin1String("incremental");
            incremental += fresh ? 1 : 0;
            // The routes come from the worker within a bounded wait, and no node moves for them.
            QElapsedTimer t;
            t.start();
            QVERIFY(canvas.waitForLayout(20000));
            if (fresh) qInfo("pass %d: routes after %lld ms", i, static_cast<long long>(t.elapsed()));
            QCOMPARE(canvas.scene()->positions(), placed);
            int routed = 0;
            for (EdgeItem* e : canvas.scene()->edgeItems()) {
                if (!e->isVisible()) continue;
                const QString why = routedBoxToBox(e);
                QVERIFY2(why.isEmpty(), qPrintable(QStringLiteral("pass %1: %2").arg(i).arg(why)));
                ++routed;
            }
            QVERIFY(routed > 0);
        }
        // The passes that changed the graph were laid out incrementally (routes added afterwards).
        QVERIFY(incremental > 0);
        QCOMPARE(canvas.layoutEngine(), QStringLiteral("incremental"));
    }

    void openBlocksKeepTheirNodesAcrossPasses() {
        if (!haveGraphviz()) QSKIP("built without Graphviz");
        Document doc;
        GraphCanvas canvas(&doc);
        canvas.setCollapseLimit(100);  // gpt2's joint graph opens as the overview
        QVERIFY(doc.loadSync(corpusPath("gpt2/graphs/aot_joint_graph.py")));
        QVERIFY(doc.compileSync("joint"));
        QVERIFY(canvas.waitForLayout());
        GraphScene* s = canvas.scene();
        // A pass that creates a node inside a block that was there before it.
        int pass = -1;
        QString label, created;
        for (int i = 0; i < static_cast<int>(doc.trace()->passes.size()) && pass < 0; ++i) {
            const PassRecord& pr = doc.trace()->passes[static_cast<size_t>(i)];
            if (!pr.changed || !pr.graph.empty()) continue;
            doc.setPassIndex(i);
            QVERIFY(canvas.waitForLayout());
            QSet<QString> before;
            for (const CanvasCluster& c : s->graph()->clusters) before.insert(c.label);
            for (const ProvenanceEvent& e : pr.events) {
                if (!e.graph.empty() || e.kind != ProvenanceEvent::Kind::Created) continue;
                const int n = s->graph()->indexOf(QString::fromStdString(e.node));
                if (n < 0 || s->graph()->nodes[static_cast<size_t>(n)].cluster < 0) continue;
                label =
                    s->graph()->clusters[static_cast<size_t>(s->graph()->nodes[static_cast<size_t>(n)].cluster)].label;
                created = QString::fromStdString(e.node);
                pass = i;
                break;
            }
        }
        QVERIFY2(pass > 0, "no pass creates a node inside a block");
        // The pass before: open that block and let the worker lay it out.
        doc.setPassIndex(pass - 1);
        QVERIFY(canvas.waitForLayout());
        int cluster = -1;
        for (size_t c = 0; c < s->graph()->clusters.size(); ++c)
            if (s->graph()->clusters[c].label == label) cluster = static_cast<int>(c);
        QVERIFY2(cluster >= 0, qPrintable(label));
        s->revealNode(s->graph()->clusters[static_cast<size_t>(cluster)].nodes.front());
        QVERIFY(canvas.waitForLayout());
        QVERIFY(s->blockLayout(cluster) && s->blockLayout(cluster)->routed());
        QHash<QString, QPointF> was;
        for (int n : s->graph()->clusters[static_cast<size_t>(cluster)].nodes)
            was.insert(s->nodeItem(n)->name(), s->nodeItem(n)->pos());

        // The pass: the block stays open and its nodes keep their places relative to each other
        // at once (the block may move as one to make room), and when the routes come.
        doc.setPassIndex(pass);
        QVERIFY(waitForPlacement(canvas));
        cluster = -1;
        for (size_t c = 0; c < s->graph()->clusters.size(); ++c)
            if (s->graph()->clusters[c].label == label) cluster = static_cast<int>(c);
        QVERIFY(cluster >= 0);
        QVERIFY(!s->clusterItems()[static_cast<size_t>(cluster)]->collapsed());
        QVERIFY(s->nodeItem(created) && s->nodeItem(created)->isVisible());
        const auto keptPlaces = [&] {
            QString ref;
            QPointF shift;
            int kept = 0;
            for (int n : s->graph()->clusters[static_cast<size_t>(cluster)].nodes) {
                const QString& name = s->nodeItem(n)->name();
                if (!was.contains(name)) continue;
                if (ref.isEmpty()) {
                    ref = name;
                    shift = s->nodeItem(n)->pos() - was.value(name);
                }
                if ((s->nodeItem(n)->pos() - was.value(name) - shift).manhattanLength() > 0.01)
                    return QStringLiteral("%1 moved in its block").arg(name);
                ++kept;
            }
            return kept > 0 ? QString() : QStringLiteral("no node kept");
        };
        QString why = keptPlaces();
        QVERIFY2(why.isEmpty(), qPrintable(why));
        QVERIFY(canvas.waitForLayout(20000));
        why = keptPlaces();
        QVERIFY2(why.isEmpty(), qPrintable(why));
        const BlockLayout* block = s->blockLayout(cluster);
        QVERIFY(block && block->routed());
        for (int e : block->edges) {
            why = routedBoxToBox(s->edgeItems()[static_cast<size_t>(e)]);
            QVERIFY2(why.isEmpty(), qPrintable(why));
        }
    }

    void revisitingAPassUsesTheCache() {
        Document doc;
        GraphCanvas canvas(&doc);
        QVERIFY(doc.loadSync(corpusPath("gpt2/graphs/aot_joint_graph.py")));
        QVERIFY(doc.compileSync("joint"));
        QVERIFY(canvas.waitForLayout());
        const int last = static_cast<int>(doc.trace()->passes.size()) - 1;
        doc.setPassIndex(last);
        QVERIFY(canvas.waitForLayout());
        const QHash<QString, QPointF> atEnd = canvas.scene()->positions();
        doc.setPassIndex(-1);
        QVERIFY(canvas.waitForLayout());
        QCOMPARE(canvas.layoutEngine(), QStringLiteral("cache"));
        doc.setPassIndex(last);
        QVERIFY(!canvas.layoutPending());  // installed at once, no worker round trip
        QCOMPARE(canvas.layoutEngine(), QStringLiteral("cache"));
        QCOMPARE(canvas.scene()->positions(), atEnd);
    }

    void partitionColours() {
        Document doc;
        GraphCanvas canvas(&doc);
        QVERIFY(doc.loadSync(corpusPath("mlp/graphs/aot_joint_graph.py")));
        QVERIFY(canvas.waitForLayout());
        QVERIFY(doc.partitionSync(1.0));
        canvas.setMode(GraphCanvas::Mode::Partition);
        GraphScene* s = canvas.scene();
        const PartitionResult& pr = *doc.partition();
        QVERIFY(!pr.saved.empty());
        for (const auto& [name, region] : pr.regions) {
            NodeItem* it = s->nodeItem(QString::fromStdString(name));
            if (!it) continue;
            const QColor want = region == NodeRegion::Forward    ? canvas_colors::forward(s->dark())
                                : region == NodeRegion::Backward ? canvas_colors::backward(s->dark())
                                                                 : canvas_colors::unclaimed(s->dark());
            QCOMPARE(it->fill(), want);
        }
        for (const SavedValue& v : pr.saved)
            if (NodeItem* it = s->nodeItem(QString::fromStdString(v.name)))
                QCOMPARE(it->frame(), canvas_colors::saved(s->dark()));
        // The cut: some edge from a saved value into the backward is drawn in the cut colour.
        int cutEdges = 0;
        for (EdgeItem* e : s->edgeItems())
            if (e->highlight() == canvas_colors::cut(s->dark())) ++cutEdges;
        QVERIFY(cutEdges > 0);
    }
};

QTEST_MAIN(TestCanvasPasses)
#include "tst_canvas_passes.moc"
