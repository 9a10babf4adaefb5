// Stepping through a compile on the canvas: the diff colouring marks the nodes a pass added
// (green), removed (red ghosts where they were, their edges dashed) and rewrote (amber);
// untouched nodes keep their place from pass to pass; the partition colouring follows
// Document::partition().
#include "test_util.h"

#include "document.h"
#include "graph/canvas_colors.h"
#include "graph/graph_canvas.h"
#include "graph/graph_scene.h"

#include "partition/partitioner.h"
#include "pass/compile_trace.h"

#include <QApplication>

using namespace fxray;
using namespace fxray::views;

namespace {
QString corpusPath(const char* rel) { return QString::fromStdString((fxtest::corpus() / rel).string()); }

QSet<QString> names(const Graph& g) {
    QSet<QString> out;
    for (const auto& n : g.nodes()) out.insert(QString::fromStdString(n->name()));
    return out;
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
