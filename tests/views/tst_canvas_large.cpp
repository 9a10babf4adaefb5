// A synthetic 20,000-node graph (a deep residual chain with long skip edges, like an unrolled
// transformer) is laid out by the own layered layout, drawn, and opens collapsed.
#include "test_util.h"

#include "document.h"
#include "graph/canvas_graph.h"
#include "graph/graph_canvas.h"
#include "graph/graph_layout.h"
#include "graph/graph_scene.h"

#include "import/loader.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QPainter>

using namespace fxray;
using namespace fxray::views;

namespace {
/// N call nodes after two inputs: each adds its predecessor and a node up to 40 back.
std::unique_ptr<Graph> syntheticGraph(int n) {
    auto g = std::make_unique<Graph>();
    Node* x = g->append(NodeKind::Placeholder, "x", "x");
    Node* w = g->append(NodeKind::Placeholder, "w", "w");
    std::vector<Node*> nodes{x, w};
    for (int i = 0; i < n; ++i) {
        Node* a = nodes.back();
        Node* b =
            nodes[nodes.size() - 1 - static_cast<size_t>((i * 7) % std::min<int>(40, static_cast<int>(nodes.size())))];
        Node* node = g->append(NodeKind::CallFunction, "add_" + std::to_string(i), "torch.ops.aten.add.Tensor");
        node->args = {Argument::ofNode(a), Argument::ofNode(b)};
        nodes.push_back(node);
    }
    Node* out = g->append(NodeKind::Output, "output", "output");
    out->args = {Argument::ofList({Argument::ofNode(nodes.back())}, true)};
    g->rebuildUsers();
    g->renumber();
    return g;
}
}  // namespace

class TestCanvasLarge : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void layeredLayoutOf20000Nodes() {
        auto g = syntheticGraph(20000);
        CanvasGraph cg = buildCanvasGraph(*g);
        QCOMPARE(cg.nodes.size(), size_t(20003));
        QVERIFY(cg.clusters.size() >= 20000 / 200);  // no provenance: runs of consecutive nodes
        LayoutParams p;
        QElapsedTimer t;
        t.start();
        GraphLayout l = layoutFresh(cg, p);
        const qint64 ms = t.elapsed();
        QCOMPARE(l.engine, QStringLiteral("layered"));  // far above the dot limit
        QVERIFY2(ms < 20000, qPrintable(QString::number(ms)));
        QCOMPARE(l.pos.size(), cg.nodes.size());
        // Layers: every edge points down; nodes of one layer do not overlap.
        for (const CanvasEdge& e : cg.edges)
            QVERIFY(l.pos[static_cast<size_t>(e.from)].y() < l.pos[static_cast<size_t>(e.to)].y());
        QHash<qint64, QList<double>> rows;
        for (const QPointF& q : l.pos) rows[qRound64(q.y())].append(q.x());
        for (auto& xs : rows) {
            std::sort(xs.begin(), xs.end());
            for (int i = 1; i < xs.size(); ++i) QVERIFY(xs[i] - xs[i - 1] >= p.nodeWidth);
        }
    }

    void opensThroughTheDocument() {
        auto file = std::make_shared<LoadedFile>();
        file->format = "fx-text";
        LoadedGraph lg;
        lg.id = "0";
        lg.stage = "synthetic";
        lg.graph = syntheticGraph(20000);
        file->graphs.push_back(std::move(lg));
        Document doc;
        GraphCanvas canvas(&doc);
        canvas.resize(1200, 800);
        canvas.show();
        QElapsedTimer t;
        t.start();
        doc.setFile(file, "synthetic.py");
        // The UI thread is free while the worker lays out: events keep flowing.
        QVERIFY(canvas.layoutPending());
        QVERIFY(canvas.waitForLayout(60000));
        QVERIFY2(t.elapsed() < 60000, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(canvas.scene()->nodeItemCount(), 20003);
        for (ClusterItem* c : canvas.scene()->clusterItems()) QVERIFY(c->collapsed());
        // A frame renders.
        QImage img(800, 600, QImage::Format_ARGB32_Premultiplied);
        QPainter p(&img);
        canvas.scene()->render(&p);
    }
};

QTEST_MAIN(TestCanvasLarge)
#include "tst_canvas_large.moc"
