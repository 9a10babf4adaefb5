// Issue 18 item 2: the partition view explains itself. Joint graphs of the corpus are opened in a
// Document with the partition panel, which partitions them on its worker; its lanes view is
// checked against the engine's PartitionResult and PyTorch's recorded partition:
//  - the forward lane, the saved-tensor column and the backward lane do not overlap, nor do the
//    blocks of a lane or the cards;
//  - every saved tensor of the partition has exactly one card;
//  - the cut bundles' counts sum to the number of cut edges, their bytes to the saved bytes of
//    the cut nodes; recomputed nodes are counted on their blocks;
//  - a budget move lists as joined / left exactly the tensors whose saved status changed between
//    the two engine results, and the diff against PyTorch's recorded saved set (summary.json)
//    is exactly the set difference read from that file;
//  - the keyboard moves between cards and selects their nodes.
// Set FXRAY_SHOT_DIR to keep pictures of the view (partition_<model>.png).
#include "test_util.h"

#include "document.h"
#include "graph/canvas_graph.h"
#include "graph/partition_lanes.h"
#include "ir/graph.h"
#include "main_window.h"
#include "models/pytorch_partition.h"
#include "panels/partition_lanes_view.h"
#include "panels/partition_panel.h"
#include "partition/partitioner.h"
#include "theme.h"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLocale>
#include <QScreen>
#include <QScrollArea>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QToolButton>

using namespace fxray;
using namespace fxray::views;

static void initRes() { Q_INIT_RESOURCE(resources); }

namespace {

QString corpusFile(const QString& rel) {
    return QString::fromStdString((fxtest::corpus() / rel.toStdString()).string());
}

bool settle(Document& doc, int ms = 120000) {
    QElapsedTimer t;
    t.start();
    while (doc.isBusy() && t.elapsed() < ms) QTest::qWait(10);
    QCoreApplication::processEvents();
    return !doc.isBusy();
}

QSet<QString> savedNames(const PartitionResult& r) {
    QSet<QString> s;
    for (const SavedValue& v : r.saved) s.insert(QString::fromStdString(v.name));
    return s;
}

QString bytesText(qint64 b) { return QLocale().formattedDataSize(b, 1, QLocale::DataSizeTraditionalFormat); }

void shoot(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("FXRAY_SHOT_DIR");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    QVERIFY(w->grab().save(QDir(dir).filePath(name)));
}

/// No two of `rects` intersect.
bool disjoint(const std::vector<QRectF>& rects) {
    for (size_t i = 0; i < rects.size(); ++i)
        for (size_t j = i + 1; j < rects.size(); ++j)
            if (rects[i].intersects(rects[j])) return false;
    return true;
}

struct Harness {
    Document doc;
    PartitionPanel panel{&doc};
    Harness() {
        panel.resize(1500, 1000);
        panel.show();
    }
    PartitionLanesView* view() { return panel.lanesView(); }
};

}  // namespace

class TestPartitionView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        initRes();
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        QCoreApplication::setOrganizationName(QStringLiteral("fxray-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_partition_view"));
        QSettings().clear();
        applyTheme(Theme::Light);
    }

    void lanesMatchThePartition_data() {
        QTest::addColumn<QString>("model");
        QTest::newRow("mlp") << "mlp";  // small: no clusters, one block per lane
        QTest::newRow("gpt2") << "gpt2";
        QTest::newRow("gpt2_12") << "gpt2_12";  // the corpus's largest joint graph
    }

    void lanesMatchThePartition() {
        QFETCH(QString, model);
        Harness h;
        QVERIFY(h.doc.loadSync(corpusFile(model + QStringLiteral("/graphs/aot_joint_graph.py"))));
        QVERIFY(settle(h.doc));
        const auto result = h.doc.partition();
        QVERIFY(result);
        const PartitionLanes& l = h.view()->lanes();
        QVERIFY(!l.before);  // the first partition of a graph shows no change

        // Lanes and their contents do not overlap.
        QVERIFY(l.forwardLane.right() < l.savedColumn.left());
        QVERIFY(l.savedColumn.right() < l.backwardLane.left());
        std::vector<QRectF> fwd, bwd, cards;
        int forwardBlocks = 0, backwardBlocks = 0, recomputedOnBlocks = 0;
        for (const LaneBlock& b : l.blocks) {
            QVERIFY(!b.rect.isEmpty());
            recomputedOnBlocks += b.recomputed;
            if (b.lane == LaneBlock::Lane::Forward) {
                QVERIFY(l.forwardLane.contains(b.rect));
                fwd.push_back(b.rect);
                ++forwardBlocks;
            } else {
                QVERIFY(l.backwardLane.contains(b.rect));
                bwd.push_back(b.rect);
                ++backwardBlocks;
            }
        }
        QVERIFY(forwardBlocks >= 1 && backwardBlocks >= 1);
        QVERIFY(disjoint(fwd));
        QVERIFY(disjoint(bwd));
        for (const LaneCard& c : l.cards) {
            QVERIFY(l.savedColumn.contains(c.rect));
            cards.push_back(c.rect);
        }
        QVERIFY(disjoint(cards));

        // One card per saved tensor, with its bytes.
        QHash<QString, qint64> bytes;
        for (const SavedValue& v : result->saved) bytes.insert(QString::fromStdString(v.name), v.bytes);
        QCOMPARE(int(l.cards.size()), int(result->saved.size()));
        QSet<QString> cardNames;
        for (const LaneCard& c : l.cards) {
            QVERIFY(c.state == LaneCard::State::Saved);
            QVERIFY2(bytes.contains(c.name), qPrintable(c.name));
            QCOMPARE(c.bytes, bytes.value(c.name));
            QVERIFY(l.blocks[size_t(c.block)].lane == LaneBlock::Lane::Forward);
            cardNames.insert(c.name);
        }
        QCOMPARE(cardNames, savedNames(*result));

        // The cut, bundled per forward block.
        int bundled = 0;
        qint64 bundledBytes = 0, cutBytes = 0;
        for (const LaneBundle& b : l.cutBundles) {
            QVERIFY(b.count > 0);
            QVERIFY(l.blocks[size_t(b.block)].lane == LaneBlock::Lane::Forward);
            bundled += b.count;
            bundledBytes += b.bytes;
        }
        for (const CutEdge& e : result->cut) cutBytes += bytes.value(QString::fromStdString(e.node));
        QCOMPARE(bundled, int(result->cut.size()));
        QCOMPARE(bundledBytes, cutBytes);
        for (const LaneBundle& b : l.readBundles) QVERIFY(l.blocks[size_t(b.block)].lane == LaneBlock::Lane::Backward);
        QCOMPARE(recomputedOnBlocks, int(result->recomputed.size()));
        QVERIFY(h.view()->summary().contains(bytesText(result->savedBytes)));

        // The diff machinery against PyTorch's recorded partition: with PyTorch's saved set as
        // "before", joined and left are the set differences read from summary.json.
        const auto ref = readPyTorchPartition(corpusFile(model + QStringLiteral("/summary.json")));
        QVERIFY(ref);
        SavedSnapshot pytorch;
        for (const PyTorchSavedValue& v : ref->saved) pytorch.bytes.insert(v.name, v.bytes);
        pytorch.savedBytes = ref->savedBytes;
        const CanvasGraph cg = buildCanvasGraph(*h.doc.shownGraph());
        const PartitionLanes vsPyTorch = layoutPartitionLanes(cg, *result, pytorch);
        QSet<QString> pt;
        for (const PyTorchSavedValue& v : ref->saved) pt.insert(v.name);
        const QSet<QString> ours = savedNames(*result);
        const QStringList joined = vsPyTorch.joined, left = vsPyTorch.left;
        QCOMPARE(QSet<QString>(joined.begin(), joined.end()), QSet<QString>(ours).subtract(pt));
        QCOMPARE(QSet<QString>(left.begin(), left.end()), QSet<QString>(pt).subtract(ours));
        qInfo("%s: %d blocks (%d fwd, %d bwd), %d cards, %d cut edges in %d bundles, %d recomputed; "
              "vs PyTorch (%lld saved): %lld only fxray, %lld only PyTorch; canvas %.0f x %.0f",
              qPrintable(model), int(l.blocks.size()), forwardBlocks, backwardBlocks, int(l.cards.size()),
              int(result->cut.size()), int(l.cutBundles.size()), int(result->recomputed.size()), (long long)pt.size(),
              (long long)joined.size(), (long long)left.size(), l.size.width(), l.size.height());
        if (qEnvironmentVariableIsSet("FXRAY_LANES_DUMP")) {  // where things went, to debug the layout
            for (const LaneBlock& b : l.blocks)
                qInfo("block %s lane %d nodes %d at %.0f", qPrintable(b.label), int(b.lane), b.nodes, b.rect.top());
            for (const LaneCard& c : l.cards)
                qInfo("card %s in %s at %.0f", qPrintable(c.name), qPrintable(l.blocks[size_t(c.block)].label),
                      c.rect.top());
        }
        if (model == QLatin1String("gpt2_12")) {
            QCoreApplication::processEvents();
            shoot(h.view(), QStringLiteral("partition_%1_top.png").arg(model));
        }
    }

    void budgetMoveShowsTheChange() {
        Harness h;
        QVERIFY(h.doc.loadSync(corpusFile(QStringLiteral("gpt2_12/graphs/aot_joint_graph.py"))));
        QVERIFY(settle(h.doc));
        const auto before = h.doc.partition();
        QVERIFY(before);
        QSignalSpy changed(&h.doc, &Document::partitionChanged);
        h.panel.budgetSpin()->setValue(0.5);
        QVERIFY(changed.wait(120000));
        QVERIFY(settle(h.doc));
        const auto after = h.doc.partition();
        QVERIFY(after && after != before);
        QCOMPARE(h.doc.memoryBudget(), 0.5);

        // Against PyTorch's recorded partition (at budget 1.0), the lanes at 0.5 differ by exactly
        // the set differences read from summary.json.
        {
            const auto ref = readPyTorchPartition(corpusFile(QStringLiteral("gpt2_12/summary.json")));
            QVERIFY(ref);
            SavedSnapshot pytorch;
            QSet<QString> pt;
            for (const PyTorchSavedValue& v : ref->saved) pytorch.bytes.insert(v.name, v.bytes), pt.insert(v.name);
            const PartitionLanes vs = layoutPartitionLanes(buildCanvasGraph(*h.doc.shownGraph()), *after, pytorch);
            const QSet<QString> ours = savedNames(*after);
            QCOMPARE(QSet<QString>(vs.joined.begin(), vs.joined.end()), QSet<QString>(ours).subtract(pt));
            QCOMPARE(QSet<QString>(vs.left.begin(), vs.left.end()), QSet<QString>(pt).subtract(ours));
            QVERIFY(!vs.left.isEmpty());  // PyTorch at 1.0 saves what fxray at 0.5 recomputes
        }

        // Exactly the tensors whose saved status changed, from the two engine results.
        const QSet<QString> b = savedNames(*before), a = savedNames(*after);
        const QSet<QString> wantJoined = QSet<QString>(a).subtract(b), wantLeft = QSet<QString>(b).subtract(a);
        QVERIFY(!wantJoined.isEmpty() || !wantLeft.isEmpty());  // budget 0.5 changes the set
        const PartitionLanes& l = h.view()->lanes();
        QVERIFY(l.before);
        QCOMPARE(QSet<QString>(l.joined.begin(), l.joined.end()), wantJoined);
        QCOMPARE(QSet<QString>(l.left.begin(), l.left.end()), wantLeft);
        QCOMPARE(int(l.joined.size()), int(wantJoined.size()));  // no name twice
        QCOMPARE(int(l.left.size()), int(wantLeft.size()));
        // Cards: the new saved set plus a ghost for each tensor that left it.
        int saved = 0, joinedCards = 0, ghosts = 0;
        QSet<QString> recomputed;
        for (const std::string& r : after->recomputed) recomputed.insert(QString::fromStdString(r));
        for (const LaneCard& c : l.cards) {
            if (c.state == LaneCard::State::Left) {
                ++ghosts;
                QVERIFY(wantLeft.contains(c.name));
                QCOMPARE(c.recomputed, recomputed.contains(c.name));
            } else {
                ++saved;
                QVERIFY(a.contains(c.name));
                QCOMPARE(c.state == LaneCard::State::Joined, wantJoined.contains(c.name));
                joinedCards += c.state == LaneCard::State::Joined;
            }
        }
        QCOMPARE(saved, int(after->saved.size()));
        QCOMPARE(joinedCards, int(wantJoined.size()));
        QCOMPARE(ghosts, int(wantLeft.size()));
        // The one-line summary: bytes before -> after and the change in recomputed nodes.
        const QString summary = h.view()->summary();
        const int delta = int(after->recomputed.size()) - int(before->recomputed.size());
        QVERIFY2(summary.contains(bytesText(before->savedBytes) + QStringLiteral(" → ") + bytesText(after->savedBytes)),
                 qPrintable(summary));
        if (delta > 0) QVERIFY2(summary.contains(QStringLiteral("+%1").arg(delta)), qPrintable(summary));
        QVERIFY2(summary.contains(QString::number(wantJoined.size())) &&
                     summary.contains(QString::number(wantLeft.size())),
                 qPrintable(summary));
        qInfo("gpt2_12 budget 1.0 -> 0.5: %s", qPrintable(summary));

        // Keyboard: J / L jump to the changes, Enter selects the node, Home/End the ends.
        QWidget* canvas = h.view()->canvas();
        canvas->setFocus();
        QTest::keyClick(canvas, Qt::Key_Home);
        QCOMPARE(h.view()->currentCard(), 0);
        QTest::keyClick(canvas, Qt::Key_End);
        QCOMPARE(h.view()->currentCard(), int(l.cards.size()) - 1);
        if (!wantLeft.isEmpty()) {
            QTest::keyClick(canvas, Qt::Key_L);
            QVERIFY(l.cards[size_t(h.view()->currentCard())].state == LaneCard::State::Left);
        }
        QTest::keyClick(canvas, Qt::Key_Home);
        if (!wantJoined.isEmpty()) {
            QTest::keyClick(canvas, Qt::Key_J);
            QVERIFY(l.cards[size_t(h.view()->currentCard())].state == LaneCard::State::Joined);
        }
        QTest::keyClick(canvas, Qt::Key_Down);
        const int cur = h.view()->currentCard();
        QVERIFY(cur >= 0);
        QTest::keyClick(canvas, Qt::Key_Return);
        QCOMPARE(h.doc.selection(), QStringList{l.cards[size_t(cur)].name});
        // The shot: the view scrolled to the first change.
        QTest::keyClick(canvas, Qt::Key_Home);
        QTest::keyClick(canvas, wantJoined.isEmpty() ? Qt::Key_L : Qt::Key_J);
        QCoreApplication::processEvents();
        shoot(h.view(), QStringLiteral("partition_gpt2_12.png"));

        // The same budget again keeps the change shown; another graph starts afresh.
        h.panel.budgetSpin()->setValue(1.0);
        QVERIFY(changed.wait(120000));
        QVERIFY(settle(h.doc));
        QVERIFY(h.view()->lanes().before);
        QVERIFY(h.view()->lanes().joined.size() == wantLeft.size());  // back: what left joins again
        QVERIFY(h.doc.loadSync(corpusFile(QStringLiteral("mlp/graphs/aot_joint_graph.py"))));
        QVERIFY(settle(h.doc));
        QVERIFY(!h.view()->lanes().before);
    }

    void partitionDockInTheWindow() {
        // The view as a user meets it: the main window with the partition dock raised.
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openFile(corpusFile(QStringLiteral("gpt2_12/graphs/aot_joint_graph.py"))));
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("dock.partition"));
        QVERIFY(dock);
        dock->raise();
        auto* panel = qobject_cast<PartitionPanel*>(dock->widget());
        QVERIFY(panel);
        QElapsedTimer t;
        t.start();
        while (panel->lanesView()->lanes().cards.empty() && t.elapsed() < 120000) QTest::qWait(20);
        QVERIFY(!panel->lanesView()->lanes().cards.empty());
        QCOMPARE(panel->tabs()->currentWidget(), panel->lanesView());  // the lanes are the first thing shown
        QCoreApplication::processEvents();
        shoot(&w, QStringLiteral("partition_gpt2_12_window.png"));
        // A side dock is too narrow for three lanes: "Open large" floats it at their width.
        QVERIFY(panel->lanesView()->scrollArea()->viewport()->width() < panel->lanesView()->lanes().size.width());
        panel->lanesView()->enlargeButton()->click();
        QVERIFY(dock->isFloating());
        QTest::qWait(50);
        // As wide as the lanes, unless that is wider than the screen (offscreen's is small).
        const int screenWidth = dock->screen()->availableGeometry().width();
        const int want = std::min(int(panel->lanesView()->lanes().size.width()) + 80, screenWidth * 9 / 10);
        QVERIFY2(dock->width() >= want - 1, qPrintable(QStringLiteral("%1 < %2").arg(dock->width()).arg(want)));
        QVERIFY(panel->lanesView()->canvas()->hasFocus());
        shoot(dock, QStringLiteral("partition_gpt2_12_large.png"));
    }
};

QTEST_MAIN(TestPartitionView)
#include "tst_partition_view.moc"
