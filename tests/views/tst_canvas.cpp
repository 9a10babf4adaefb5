// The graph canvas opens corpus files of every format, draws one item per node, clusters
// large graphs by layer, syncs its selection with the Document, searches and exports.
#include "test_util.h"

#include "document.h"
#include "graph/canvas_graph.h"
#include "graph/graph_canvas.h"
#include "graph/graph_export.h"
#include "graph/graph_layout.h"
#include "graph/graph_scene.h"

#include "import/loader.h"

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QTemporaryDir>

using namespace fxray;
using namespace fxray::views;

namespace {
QString corpusPath(const char* rel) { return QString::fromStdString((fxtest::corpus() / rel).string()); }

/// Edges the canvas must draw: one per distinct node input (FX's `all_input_nodes`).
size_t expectedEdges(const Graph& g) {
    size_t n = 0;
    for (const auto& node : g.nodes()) n += node->inputNodes().size();
    return n;
}
}  // namespace

class TestCanvas : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
    }

    void opensEachFormat_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("format");
        QTest::newRow("fx-text") << corpusPath("mlp/graphs/aot_joint_graph.py") << "fx-text";
        QTest::newRow("torch-trace") << corpusPath("mlp/trace") << "torch-trace";
        QTest::newRow("debug-dir") << corpusPath("attention/debug") << "debug-dir";
        QTest::newRow("pt2") << corpusPath("mlp/export/exported.pt2") << "pt2";
        QTest::newRow("repro") << corpusPath("mlp/debug/model__1_forward_5.0/fx_graph_runnable.py") << "repro";
        QTest::newRow("to-folder") << corpusPath("mlp/to_folder") << "to-folder";
    }
    void opensEachFormat() {
        QFETCH(QString, path);
        QFETCH(QString, format);
        Document doc;
        GraphCanvas canvas(&doc);
        QVERIFY2(doc.loadSync(path), qPrintable(doc.lastError()));
        QCOMPARE(QString::fromStdString(doc.file()->format), format);
        QVERIFY(canvas.waitForLayout());
        const Graph* g = doc.shownGraph();
        QVERIFY(g);
        QCOMPARE(canvas.scene()->nodeItemCount(), static_cast<int>(g->size()));
        QCOMPARE(canvas.scene()->edgeItems().size(), expectedEdges(*g));
        // Every node has a distinct place.
        QSet<QPair<qint64, qint64>> places;
        for (int i = 0; i < canvas.scene()->nodeItemCount(); ++i) {
            const QPointF p = canvas.scene()->nodeItem(i)->pos();
            places.insert({qRound64(p.x()), qRound64(p.y())});
        }
        QCOMPARE(places.size(), canvas.scene()->nodeItemCount());
        // Switching graphs (trace and debug folders hold several) redraws the new one.
        if (doc.graphCount() > 1) {
            doc.setGraphIndex(doc.graphIndex() == 0 ? 1 : 0);
            QVERIFY(canvas.waitForLayout());
            QCOMPARE(canvas.scene()->nodeItemCount(), static_cast<int>(doc.shownGraph()->size()));
        }
    }

    void smallGraphsUseGraphviz() {
        Document doc;
        GraphCanvas canvas(&doc);
        QVERIFY(doc.loadSync(corpusPath("mlp/graphs/aot_joint_graph.py")));
        QVERIFY(canvas.waitForLayout());
#ifdef FXRAY_TEST_EXPECT_GRAPHVIZ
        QCOMPARE(canvas.layoutEngine(), QStringLiteral("dot"));
#endif
        QVERIFY(!canvas.layoutEngine().isEmpty());
        // Top to bottom: every edge points down (dot ranks; the layered layout layers).
        const CanvasGraph* cg = canvas.scene()->graph();
        for (const CanvasEdge& e : cg->edges)
            QVERIFY(canvas.scene()->nodeItem(e.from)->pos().y() < canvas.scene()->nodeItem(e.to)->pos().y());
    }

    void categoryColours() {
        Document doc;
        GraphCanvas canvas(&doc);
        QVERIFY(doc.loadSync(corpusPath("mlp/graphs/aot_joint_graph.py")));
        QVERIFY(canvas.waitForLayout());
        // mlp's joint graph: addmm is a matmul (extern), relu pointwise, primals inputs.
        const CanvasGraph* cg = canvas.scene()->graph();
        QCOMPARE(cg->nodes[static_cast<size_t>(cg->indexOf("addmm"))].cls, NodeClass::Extern);
        QCOMPARE(cg->nodes[static_cast<size_t>(cg->indexOf("relu"))].cls, NodeClass::Pointwise);
        QCOMPARE(cg->nodes[static_cast<size_t>(cg->indexOf("primals_1"))].cls, NodeClass::Input);
        QCOMPARE(cg->nodes[static_cast<size_t>(cg->indexOf("relu"))].type, QStringLiteral("f32[16, 128]"));
        QVERIFY(canvas.scene()->nodeItem("addmm")->fill() != canvas.scene()->nodeItem("relu")->fill());
    }

    void clustersFollowLayers_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("layers");
        // The corpus README: gpt2 has 2 layers, gpt2_12 has 12.
        QTest::newRow("gpt2") << corpusPath("gpt2/graphs/aot_joint_graph.py") << 2;
        QTest::newRow("gpt2_12") << corpusPath("gpt2_12/graphs/aot_joint_graph.py") << 12;
    }
    void clustersFollowLayers() {
        QFETCH(QString, path);
        QFETCH(int, layers);
        auto f = loadFile(path.toStdString());
        QVERIFY(f.ok());
        CanvasGraph cg = buildCanvasGraph(*f->graphs[0].graph);
        int fwd = 0, bwd = 0;
        for (const CanvasCluster& c : cg.clusters) {
            if (c.label.startsWith("forward block")) ++fwd;
            if (c.label.startsWith("backward block")) ++bwd;
        }
        QCOMPARE(fwd, layers);
        QCOMPARE(bwd, layers);
        // Each clustered node belongs to exactly the cluster listing it.
        size_t listed = 0;
        for (size_t c = 0; c < cg.clusters.size(); ++c)
            for (int n : cg.clusters[c].nodes) {
                QCOMPARE(cg.nodes[static_cast<size_t>(n)].cluster, static_cast<int>(c));
                ++listed;
            }
        QVERIFY(listed > cg.nodes.size() / 2);
    }

    void repeatedLayersStack_data() { clustersFollowLayers_data(); }
    void repeatedLayersStack() {
        QFETCH(QString, path);
        QFETCH(int, layers);
        auto f = loadFile(path.toStdString());
        QVERIFY(f.ok());
        CanvasGraph cg = buildCanvasGraph(*f->graphs[0].graph);
        // One stack of all the layers in the forward, one in the backward.
        QCOMPARE(cg.stacks.size(), size_t(2));
        for (const CanvasStack& st : cg.stacks) {
            QCOMPARE(static_cast<int>(st.clusters.size()), layers);
            QStringList first;
            for (int n : cg.clusters[static_cast<size_t>(st.clusters.front())].nodes)
                first << cg.nodes[static_cast<size_t>(n)].op;
            QCOMPARE(static_cast<int>(first.size()), st.nodesEach);
            for (int c : st.clusters) {
                QCOMPARE(cg.clusters[static_cast<size_t>(c)].stack, static_cast<int>(&st - cg.stacks.data()));
                QStringList ops;
                for (int n : cg.clusters[static_cast<size_t>(c)].nodes) ops << cg.nodes[static_cast<size_t>(n)].op;
                QCOMPARE(ops, first);
            }
            // Consecutive: the clusters of one stack follow each other.
            for (size_t k = 1; k < st.clusters.size(); ++k) QCOMPARE(st.clusters[k], st.clusters[k - 1] + 1);
        }
        QVERIFY(cg.stacks[0].label.startsWith("forward blocks 1–"));
        QVERIFY(cg.stacks[1].label.startsWith("backward blocks 1–"));
    }

    void collapsedOverviewIsCompact() {
        Document doc;
        GraphCanvas canvas(&doc);
        QVERIFY(doc.loadSync(corpusPath("gpt2_12/graphs/aot_joint_graph.py")));
        QVERIFY(canvas.waitForLayout());
        GraphScene* s = canvas.scene();
        QVERIFY(s->overview().active);
        // Boxes of what is shown (nodes, bundles, blocks): none overlaps another.
        auto shownBoxes = [&] {
            QList<QRectF> boxes;
            for (int i = 0; i < s->nodeItemCount(); ++i)
                if (s->nodeItem(i)->isVisible()) boxes << s->nodeItem(i)->sceneBoundingRect().adjusted(4, 4, -4, -4);
            for (NodeItem* b : s->bundleItems()) boxes << b->sceneBoundingRect().adjusted(4, 4, -4, -4);
            for (ClusterItem* c : s->clusterItems())
                if (c->isVisible() && c->collapsed()) boxes << c->box();
            for (ClusterItem* c : s->stackItems())
                if (c->isVisible() && c->collapsed()) boxes << c->box();
            return boxes;
        };
        auto overlaps = [](const QList<QRectF>& boxes) {
            for (int i = 0; i < boxes.size(); ++i)
                for (int j = i + 1; j < boxes.size(); ++j)
                    if (boxes[i].intersects(boxes[j])) return true;
            return false;
        };
        const QList<QRectF> first = shownBoxes();
        QVERIFY(first.size() >= 6);
        QVERIFY(first.size() < 40);
        QVERIFY(!overlaps(first));
        // The overview is a fraction of the full layout's height.
        const GraphLayout full = layoutFresh(*s->graph(), canvas.layoutParams());
        double top = 1e300, bottom = -1e300;
        for (const QPointF& q : full.pos) top = std::min(top, q.y()), bottom = std::max(bottom, q.y());
        QVERIFY2(s->graphRect().height() * 4 < bottom - top, qPrintable(QString::number(s->graphRect().height())));
        // Both stacks are there, collapsed, and say how many layers they hold.
        QCOMPARE(s->stackItems().size(), size_t(2));
        for (ClusterItem* st : s->stackItems()) {
            QVERIFY(st->isVisible() && st->collapsed());
            QCOMPARE(st->stackCount(), 12);
        }
        // Expanding the forward stack shows its 12 clusters, collapsed, apart from each other.
        s->setStackCollapsed(0, false);
        int shownLayers = 0;
        for (int c : s->graph()->stacks[0].clusters) {
            ClusterItem* ci = s->clusterItems()[static_cast<size_t>(c)];
            QVERIFY(ci->isVisible() && ci->collapsed());
            ++shownLayers;
        }
        QCOMPARE(shownLayers, 12);
        QVERIFY(!overlaps(shownBoxes()));
        // Opening one layer shows its nodes inside its frame, clear of the other blocks.
        const int layer = s->graph()->stacks[0].clusters[3];
        s->setClusterCollapsed(layer, false);
        const QRectF frame = s->clusterItems()[static_cast<size_t>(layer)]->box();
        for (int n : s->graph()->clusters[static_cast<size_t>(layer)].nodes) {
            QVERIFY(s->nodeItem(n)->isVisible());
            QVERIFY(frame.contains(s->nodeItem(n)->pos()));
        }
        for (ClusterItem* c : s->clusterItems())
            if (c->isVisible() && c->collapsed()) QVERIFY(!c->box().intersects(frame));
        // Expanding everything restores the full layout.
        s->setAllCollapsed(false);
        QVERIFY(!s->overview().active);
        for (int i = 0; i < s->nodeItemCount(); ++i) QVERIFY(s->nodeItem(i)->isVisible());
    }

    void largeGraphsOpenCollapsed() {
        Document doc;
        GraphCanvas canvas(&doc);
        canvas.setCollapseLimit(100);
        QVERIFY(doc.loadSync(corpusPath("gpt2/graphs/aot_joint_graph.py")));
        QVERIFY(canvas.waitForLayout());
        GraphScene* s = canvas.scene();
        QVERIFY(!s->clusterItems().empty());
        int hidden = 0;
        for (ClusterItem* c : s->clusterItems()) QVERIFY(c->collapsed());
        for (int i = 0; i < s->nodeItemCount(); ++i)
            if (!s->nodeItem(i)->isVisible()) ++hidden;
        size_t clustered = 0;
        for (const CanvasCluster& c : s->graph()->clusters) clustered += c.nodes.size();
        // Hidden: the clustered nodes, and the inputs drawn as bundles (they feed only blocks).
        size_t bundled = 0;
        for (const auto& b : s->overview().bundles) {
            bundled += b.size();
            for (int n : b) QCOMPARE(s->graph()->nodes[static_cast<size_t>(n)].cls, NodeClass::Input);
        }
        QCOMPARE(s->bundleItems().size(), s->overview().bundles.size());
        QCOMPARE(static_cast<size_t>(hidden), clustered + bundled);
        // No edge joins a collapsed cluster to itself, and each shown edge has visible ends.
        for (EdgeItem* e : s->edgeItems())
            if (e->isVisible()) {
                QVERIFY(e->from() != e->to());
                QVERIFY(e->from()->isVisible() && e->to()->isVisible());
            }
        // Expanding one cluster shows its nodes.
        const int c0 = 0;
        s->setClusterCollapsed(c0, false);
        for (int n : s->graph()->clusters[0].nodes) QVERIFY(s->nodeItem(n)->isVisible());
        // Selecting a node inside a collapsed cluster opens that cluster.
        const CanvasCluster& last = s->graph()->clusters.back();
        doc.setSelection({s->graph()->nodes[static_cast<size_t>(last.nodes.front())].name});
        QVERIFY(!s->clusterItems().back()->collapsed());
    }

    void selectionSyncsBothWays() {
        Document doc;
        GraphCanvas canvas(&doc);
        QVERIFY(doc.loadSync(corpusPath("mlp/graphs/aot_joint_graph.py")));
        QVERIFY(canvas.waitForLayout());
        doc.setSelection({"addmm", "relu"});
        QVERIFY(canvas.scene()->nodeItem("addmm")->isSelected());
        QVERIFY(canvas.scene()->nodeItem("relu")->isSelected());
        QVERIFY(!canvas.scene()->nodeItem("primals_1")->isSelected());
        // A click in the scene (item selection) becomes the Document's selection.
        canvas.scene()->clearSelection();
        QCOMPARE(doc.selection(), QStringList());
        canvas.scene()->nodeItem("t")->setSelected(true);
        QCOMPARE(doc.selection(), QStringList({"t"}));
    }

    void searchFindsByNameOpAndShape() {
        Document doc;
        GraphCanvas canvas(&doc);
        QVERIFY(doc.loadSync(corpusPath("mlp/graphs/aot_joint_graph.py")));
        QVERIFY(canvas.waitForLayout());
        const Graph* g = doc.shownGraph();
        int addmms = 0;
        for (const auto& n : g->nodes())
            if (n->target() == "torch.ops.aten.addmm.default") ++addmms;
        QCOMPARE(canvas.findNodes("ADDMM").size(), addmms);
        QCOMPARE(canvas.findNodes("threshold_backward").size(), 1);
        // The mlp's hidden activation is f32[16, 128] (aot_joint_graph.py).
        QVERIFY(canvas.findNodes("[16, 128]").contains(canvas.scene()->graph()->indexOf("relu")));
        canvas.setSearchText("addmm");
        canvas.findNext();
        QCOMPARE(doc.selection().size(), 1);
        const QString first = doc.selection().first();
        canvas.findNext();
        canvas.findPrevious();
        QCOMPARE(doc.selection().first(), first);
        canvas.findPrevious();
        QVERIFY(doc.selection().first() != first);  // wraps to the last hit
    }

    void exportsParse() {
        Document doc;
        GraphCanvas canvas(&doc);
        QVERIFY(doc.loadSync(corpusPath("mlp/graphs/aot_joint_graph.py")));
        QVERIFY(canvas.waitForLayout());
        QTemporaryDir dir;
        QString err;
        const QString svg = dir.filePath("g.svg"), png = dir.filePath("g.png"), dot = dir.filePath("g.dot");
        QVERIFY2(canvas.exportTo(svg, &err), qPrintable(err));
        QVERIFY2(canvas.exportTo(png, &err), qPrintable(err));
        QVERIFY2(canvas.exportTo(dot, &err), qPrintable(err));
        QVERIFY(!canvas.exportTo(dir.filePath("g.bmpx"), &err));
        QFile s(svg);
        QVERIFY(s.open(QIODevice::ReadOnly));
        const QByteArray svgText = s.readAll();
        QVERIFY(svgText.contains("<svg"));
        QVERIFY(svgText.contains("threshold_backward"));
        QImage img(png);
        QVERIFY(!img.isNull());
        QVERIFY(img.width() > 100 && img.height() > 100);
        QFile d(dot);
        QVERIFY(d.open(QIODevice::ReadOnly));
        const QString dotText = QString::fromUtf8(d.readAll());
        QVERIFY(dotText.startsWith("digraph"));
        QCOMPARE(dotText.count(" -> "), static_cast<int>(expectedEdges(*doc.shownGraph())));
        QVERIFY(dotText.contains("\"addmm\" [label=\"addmm\\naddmm\\nf32[16, 128]\""));
    }
};

QTEST_MAIN(TestCanvas)
#include "tst_canvas.moc"
