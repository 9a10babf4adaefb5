// Per-node overlays on the canvas: node fills follow the values along the gradient (green at the
// low threshold, red at the high one, muted without a value), a block shows the max (or sum) of
// its children on its collapsed box, and the numerics heat map is the same mechanism.
#include "test_util.h"

#include "document.h"
#include "graph/canvas_colors.h"
#include "graph/graph_canvas.h"
#include "graph/graph_items.h"
#include "graph/graph_scene.h"
#include "graph/node_overlay.h"
#include "partition/partitioner.h"
#include "pass/compile_trace.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace fxray::views;

namespace {

QString corpusPath(const char* rel) { return QString::fromStdString((fxtest::corpus() / rel).string()); }

/// Hue in degrees (green 120, yellow 60, red 0).
double hue(const QColor& c) { return c.hsvHueF() * 360.0; }

}  // namespace

class TestNodeOverlay : public QObject {
    Q_OBJECT
private slots:
    void positionsAndAggregates() {
        NodeOverlay o;
        o.low = 1;
        o.high = 3;
        QCOMPARE(o.position(0), 0.0);
        QCOMPARE(o.position(2), 0.5);
        QCOMPARE(o.position(5), 1.0);
        QCOMPARE(o.position(std::numeric_limits<double>::quiet_NaN()), 1.0);
        o.logScale = true;
        o.low = 1e-6;
        o.high = 1e-2;
        QCOMPARE(o.position(1e-4), 0.5);
        QCOMPARE(o.position(0), 0.0);  // an exact match is as good as it gets
        // Green below the low threshold, red above the high one, yellow half way.
        QVERIFY(std::abs(hue(o.colour(1e-9, false)) - 120) < 1);
        QVERIFY(std::abs(hue(o.colour(1e-4, false)) - 60) < 1);
        QVERIFY(hue(o.colour(1.0, false)) < 1);

        CanvasGraph g;
        for (const char* n : {"a", "b", "c"}) g.nodes.push_back(CanvasNode{.name = QString::fromLatin1(n)});
        NodeOverlay m;
        m.values = {{"a", 2.0}, {"b", 7.0}};
        QCOMPARE(*m.aggregateOf(g, {0, 1, 2}), 7.0);  // c has no value: skipped
        m.aggregate = NodeOverlay::Aggregate::Sum;
        QCOMPARE(*m.aggregateOf(g, {0, 1, 2}), 9.0);
        QVERIFY(!m.aggregateOf(g, {2}));
        m.aggregate = NodeOverlay::Aggregate::Max;
        m.values["c"] = std::numeric_limits<double>::quiet_NaN();
        QVERIFY(std::isnan(*m.aggregateOf(g, {0, 1, 2})));  // a block hiding a NaN is not fine
    }

    void canvasColoursFollowValuesAndBlocksShowTheirMax() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Document doc;
        GraphCanvas canvas(&doc);
        canvas.resize(1200, 800);
        QVERIFY(doc.loadSync(corpusPath("gpt2_12/graphs/aot_joint_graph.py")));
        QVERIFY(canvas.waitForLayout());
        GraphScene* s = canvas.scene();
        const CanvasGraph& g = *s->graph();
        QVERIFY(!g.clusters.empty() && !g.stacks.empty());

        // A time per node that grows along the graph; the last node is left without one.
        QHash<QString, double> ms;
        for (size_t i = 0; i + 1 < g.nodes.size(); ++i) ms[g.nodes[i].name] = 0.01 * double(i);
        const NodeOverlay o = NodeOverlay::kernelTime(ms);
        s->colourOverlay(o);
        QCOMPARE(s->colouring(), GraphScene::Colouring::Overlay);

        // Node fills: the overlay's colour of the value, the hue never rising with the value
        // (green → red), the extremes green and red, the node without a value muted.
        double lastHue = 361;
        for (size_t i = 0; i + 1 < g.nodes.size(); ++i) {
            const QColor fill = s->nodeItem(int(i))->fill();
            QCOMPARE(fill, o.colour(ms[g.nodes[i].name], false));
            QVERIFY2(hue(fill) <= lastHue + 1e-9, qPrintable(g.nodes[i].name));
            lastHue = hue(fill);
        }
        QVERIFY(std::abs(hue(s->nodeItem(0)->fill()) - 120) < 1);
        QVERIFY(hue(s->nodeItem(int(g.nodes.size()) - 2)->fill()) < 1);
        QCOMPARE(s->nodeItem(int(g.nodes.size()) - 1)->fill(), canvas_colors::unchanged(false));

        // Blocks: each cluster and stack carries the max of its children's values, computed here
        // from the cluster lists, not by the overlay.
        for (ClusterItem* c : s->clusterItems()) {
            double max = -1;
            for (int n : g.clusters[size_t(c->index())].nodes) {
                const auto it = ms.constFind(g.nodes[size_t(n)].name);
                if (it != ms.constEnd()) max = std::max(max, *it);
            }
            QVERIFY(max >= 0);
            QCOMPARE(c->overlayFill(), o.colour(max, false));
            QCOMPARE(c->overlayValue(), o.format(max));
        }
        for (ClusterItem* st : s->stackItems()) {
            double max = -1;
            for (int c : g.stacks[size_t(st->index())].clusters)
                for (int n : g.clusters[size_t(c)].nodes) max = std::max(max, ms.value(g.nodes[size_t(n)].name, -1));
            QCOMPARE(st->overlayFill(), o.colour(max, false));
        }
        // One hot child makes its block red while a sibling block stays green.
        QHash<QString, double> hot;
        for (const CanvasNode& n : g.nodes) hot[n.name] = 0;
        const CanvasCluster& first = g.clusters.front();
        hot[g.nodes[size_t(first.nodes[first.nodes.size() / 2])].name] = 5;
        s->colourOverlay(NodeOverlay::kernelTime(hot));
        QVERIFY(hue(s->clusterItems().front()->overlayFill()) < 1);
        QVERIFY(std::abs(hue(s->clusterItems().back()->overlayFill()) - 120) < 1);

        // Saved bytes add up in a block.
        QHash<QString, double> bytes;
        for (const CanvasNode& n : g.nodes) bytes[n.name] = 1024;
        const NodeOverlay b = NodeOverlay::savedBytes(bytes);
        s->colourOverlay(b);
        ClusterItem* c0 = s->clusterItems().front();
        QCOMPARE(c0->overlayValue(), b.format(1024.0 * double(g.clusters[size_t(c0->index())].nodes.size())));

        // Another colouring clears the blocks' overlay.
        s->colourByCategory();
        QVERIFY(!c0->overlayFill().isValid());

        // Through the canvas: the overlay and its legend (title, thresholds, what blocks show).
        canvas.setOverlay(o);
        QCOMPARE(s->colouring(), GraphScene::Colouring::Overlay);
        auto* legend = canvas.findChild<QLabel*>(QStringLiteral("canvasLegend"));
        QVERIFY(legend);
        QVERIFY2(legend->text().contains(o.title) && legend->text().contains(o.format(o.high)),
                 qPrintable(legend->text()));
        QVERIFY(legend->text().contains(QStringLiteral("max of their nodes")));
        QCOMPARE(o.valueAt(o.position(0.37)), 0.37);
        // Numerics mode keeps the heat map; back in Category the overlay returns.
        canvas.setMode(GraphCanvas::Mode::Numerics);
        QCOMPARE(s->colouring(), GraphScene::Colouring::Numerics);
        canvas.setMode(GraphCanvas::Mode::Category);
        QCOMPARE(s->colouring(), GraphScene::Colouring::Overlay);
        canvas.setOverlay(NodeOverlay());
        QCOMPARE(s->colouring(), GraphScene::Colouring::Category);

        const QString dir = qEnvironmentVariable("FXRAY_SHOT_DIR");
        if (!dir.isEmpty()) {
            canvas.setOverlay(NodeOverlay::kernelTime(ms));
            canvas.show();
            QVERIFY(QTest::qWaitForWindowExposed(&canvas));
            canvas.grab().save(dir + QStringLiteral("/teach_overlay.png"));
        }
    }

    /// The toolbar's sources: the pass that last changed a node (read from the trace's
    /// provenance, not from the overlay) and the partition's saved bytes.
    void sourcesFollowTheDocument() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Document doc;
        GraphCanvas canvas(&doc);
        QVERIFY(doc.loadSync(corpusPath("attention/graphs/aot_joint_graph.py")));
        QVERIFY(doc.compileSync(QStringLiteral("joint")));
        const auto& passes = doc.trace()->passes;
        int fuse = -1;
        for (size_t i = 0; i < passes.size(); ++i)
            if (passes[i].name == "fuse_attention") fuse = int(i);
        QVERIFY(fuse >= 0);
        doc.setPassIndex(int(passes.size()) - 1);
        QVERIFY(canvas.waitForLayout());
        canvas.setOverlaySource(GraphCanvas::OverlaySource::LastChangedBy);
        const NodeOverlay& o = canvas.overlay();
        QCOMPARE(o.categories.size(), qsizetype(passes.size()));
        // Every node fuse_attention created is marked with it, unless a later pass changed it.
        int checked = 0;
        for (const fxray::ProvenanceEvent& e : passes[size_t(fuse)].events) {
            if (e.kind != fxray::ProvenanceEvent::Kind::Created || !e.graph.empty()) continue;
            bool later = false;
            for (size_t j = size_t(fuse) + 1; j < passes.size(); ++j)
                for (const fxray::ProvenanceEvent& f : passes[j].events)
                    later = later || f.node == e.node || f.replacement == e.node;
            if (later) continue;
            const QString name = QString::fromStdString(e.node);
            QCOMPARE(o.format(o.values.value(name)), QStringLiteral("fuse_attention"));
            if (NodeItem* n = canvas.scene()->nodeItem(name)) QCOMPARE(n->fill(), o.colour(fuse + 1, false));
            ++checked;
        }
        QVERIFY(checked > 0);
        // Stepping back before fuse_attention: nothing carries its name any more.
        doc.setPassIndex(fuse - 1);
        QVERIFY(!canvas.overlay().categories.contains(QStringLiteral("fuse_attention")));

        // Saved bytes: the partition's values, asked for when there is none yet.
        doc.setPassIndex(int(passes.size()) - 1);
        canvas.setOverlaySource(GraphCanvas::OverlaySource::SavedBytes);
        QElapsedTimer t;
        t.start();
        while (!doc.partition() && t.elapsed() < 30000) QTest::qWait(20);
        QTest::qWait(50);
        QVERIFY(doc.partition());
        const auto part = doc.partition();
        QVERIFY(!part->saved.empty());
        for (const fxray::SavedValue& v : part->saved)
            QCOMPARE(canvas.overlay().values.value(QString::fromStdString(v.name), -1), double(v.bytes));
        canvas.setOverlaySource(GraphCanvas::OverlaySource::None);
        QVERIFY(canvas.overlay().empty());
    }

    /// Kernel time from `fxray bench --json` (tests/views/data/bench_mlp_cpu.json is its real
    /// output for the corpus's mlp joint graph on the CPU backend): every node of a step carries
    /// that step's time; a file that is not bench output fails with a message naming it.
    void kernelTimeFromBench() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        const QString bench = QStringLiteral(FXRAY_SOURCE_DIR "/tests/views/data/bench_mlp_cpu.json");
        Document doc;
        GraphCanvas canvas(&doc);
        QVERIFY(doc.loadSync(corpusPath("mlp/graphs/aot_joint_graph.py")));
        QVERIFY(canvas.waitForLayout());
        QString error;
        QVERIFY2(canvas.loadBenchProfile(bench, &error), qPrintable(error));
        QCOMPARE(canvas.overlaySource(), GraphCanvas::OverlaySource::KernelTime);
        QFile f(bench);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray steps = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("steps")).toArray();
        QVERIFY(!steps.isEmpty());
        double slowest = 0;
        int drawn = 0;
        for (const QJsonValue& st : steps) {
            const double ms = st[QStringLiteral("ms")].toDouble();
            slowest = std::max(slowest, ms);
            for (const QJsonValue& n : st[QStringLiteral("nodes")].toArray()) {
                QCOMPARE(canvas.overlay().values.value(n.toString(), -1), ms);
                if (NodeItem* item = canvas.scene()->nodeItem(n.toString())) {
                    QCOMPARE(item->fill(), canvas.overlay().colour(ms, false));
                    ++drawn;
                }
            }
        }
        QVERIFY(drawn > 0);
        QCOMPARE(canvas.overlay().high, slowest);  // the slowest kernel is the red end

        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("not_bench.json"));
        QFile b(bad);
        QVERIFY(b.open(QIODevice::WriteOnly));
        b.write("{\"median_ms\": 1}");
        b.close();
        QVERIFY(!canvas.loadBenchProfile(bad, &error));
        QVERIFY2(error.contains(bad) && error.contains(QStringLiteral("steps")), qPrintable(error));
        QCOMPARE(canvas.overlaySource(), GraphCanvas::OverlaySource::None);
        QVERIFY(!canvas.loadBenchProfile(dir.filePath(QStringLiteral("missing.json")), &error));
        QVERIFY(error.contains(QStringLiteral("missing.json")));

        // With FXRAY_SHOT_DIR: gpt2's joint graph under its real CPU bench profile
        // (data/bench_gpt2_cpu.json), blocks collapsed, for a look by eye.
        const QString shots = qEnvironmentVariable("FXRAY_SHOT_DIR");
        if (!shots.isEmpty()) {
            QVERIFY(doc.loadSync(corpusPath("gpt2/graphs/aot_joint_graph.py")));
            QVERIFY(canvas.waitForLayout());
            QVERIFY(canvas.loadBenchProfile(QStringLiteral(FXRAY_SOURCE_DIR "/tests/views/data/bench_gpt2_cpu.json"),
                                            &error));
            canvas.scene()->setAllCollapsed(true);
            canvas.resize(1200, 800);
            canvas.show();
            QVERIFY(QTest::qWaitForWindowExposed(&canvas));
            QVERIFY(canvas.waitForLayout());
            canvas.grab().save(shots + QStringLiteral("/teach_overlay_bench_gpt2.png"));
        }
    }
};

QTEST_MAIN(TestNodeOverlay)
#include "tst_node_overlay.moc"
