// The panes docked around a bare QMainWindow, driven through their widgets (offscreen): the
// timeline steps and filters passes, the match explorer selects the attention match, the diff
// counts lines, the partition panel's totals and budget slider, the code pane's selection sync,
// the inspector's provenance and the kernel pane.
#include "test_util.h"

#include "document.h"
#include "ir/printer.h"
#include "models/changed_pass_filter.h"
#include "models/kernel_artifact_model.h"
#include "models/match_model.h"
#include "models/node_inspector_model.h"
#include "models/pass_timeline_model.h"
#include "models/saved_tensor_model.h"
#include "models/string_table_model.h"
#include "models/text_diff_model.h"
#include "panels/code_panel.h"
#include "panels/diff_panel.h"
#include "panels/inspector_panel.h"
#include "panels/kernel_panel.h"
#include "panels/match_panel.h"
#include "panels/panels.h"
#include "panels/partition_panel.h"
#include "panels/timeline_panel.h"
#include "partition/partitioner.h"
#include "pass/compile_trace.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QSlider>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTreeView>

using namespace fxray;
using namespace fxray::views;

namespace {

QString corpusFile(const char* rel) { return QString::fromStdString((fxtest::corpus() / rel).string()); }

/// A window with the panels, as the main window builds it.
struct Harness {
    Document doc;  // outlives the window, as in the application
    QMainWindow window;
    Panels panels;
    Harness() {
        window.resize(1400, 900);
        panels = installPanels(&window, &doc);
        // Every model of every pane stays consistent through the whole scenario.
        const QList<QAbstractItemModel*> models = {timeline()->model(),
                                                   timeline()->filter(),
                                                   matches()->model(),
                                                   diff()->model(),
                                                   partition()->savedModel(),
                                                   partition()->bannedModel(),
                                                   partition()->recomputedModel(),
                                                   inspector()->model(),
                                                   kernels()->model()};
        for (QAbstractItemModel* m : models)
            new QAbstractItemModelTester(m, QAbstractItemModelTester::FailureReportingMode::QtTest, m);
    }
    template <typename T>
    T* pane(QDockWidget* d) {
        return qobject_cast<T*>(d->widget());
    }
    TimelinePanel* timeline() { return pane<TimelinePanel>(panels.timeline); }
    MatchPanel* matches() { return pane<MatchPanel>(panels.matches); }
    DiffPanel* diff() { return pane<DiffPanel>(panels.diff); }
    PartitionPanel* partition() { return pane<PartitionPanel>(panels.partition); }
    CodePanel* code() { return pane<CodePanel>(panels.code); }
    InspectorPanel* inspector() { return pane<InspectorPanel>(panels.inspector); }
    KernelPanel* kernels() { return pane<KernelPanel>(panels.kernels); }
};

/// Waits for the Document's worker to deliver what the panes asked for (partition jobs).
bool settle(Document& doc, int ms = 20000) {
    QElapsedTimer t;
    t.start();
    while (doc.isBusy() && t.elapsed() < ms) QTest::qWait(10);
    QCoreApplication::processEvents();
    return !doc.isBusy();
}

/// With FXRAY_SHOT_DIR set, saves a picture of a pane there (to look at the panes by eye).
void shoot(QWidget* w, const char* name) {
    const QString dir = qEnvironmentVariable("FXRAY_SHOT_DIR");
    if (dir.isEmpty()) return;
    w->resize(900, 500);
    w->grab().save(dir + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".png"));
}

QJsonObject summaryOf(const char* model) {
    QFile f(QString::fromStdString((fxtest::corpus() / model / "summary.json").string()));
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

}  // namespace

class TestPanels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void docksHaveStableNames() {
        Harness h;
        QSet<QString> names;
        for (QDockWidget* d : h.panels.docks()) {
            QVERIFY(d);
            QVERIFY(d->objectName().startsWith(QStringLiteral("dock.")));
            QVERIFY(d->widget());
            QVERIFY(!d->windowTitle().isEmpty());
            QVERIFY(!d->toggleViewAction()->objectName().isEmpty());
            names.insert(d->objectName());
        }
        QCOMPARE(names.size(), 9);  // timeline, matches, diff, code, inspector, partition, kernels, numerics, minifier
        QVERIFY(names.contains(QStringLiteral("dock.minifier")));
        QVERIFY(names.contains(QStringLiteral("dock.numerics")));
        QVERIFY(names.contains(QStringLiteral("dock.timeline")));
        QCOMPARE(h.panels.nextPass->objectName(), QStringLiteral("action.nextPass"));
        QVERIFY(h.window.actions().contains(h.panels.nextPass));
        QVERIFY(h.panels.nextPass->shortcuts().contains(QKeySequence(Qt::Key_F8)));
        QVERIFY(h.panels.previousPass->shortcuts().contains(QKeySequence(Qt::ALT | Qt::Key_Left)));
        // The dock layout survives a save/restore round trip.
        const QByteArray state = h.window.saveState();
        QVERIFY(h.window.restoreState(state));
    }

    void timelineStepsAndFilters() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Harness h;
        QVERIFY(h.doc.loadSync(corpusFile("attention/graphs/aot_joint_graph.py")));
        QVERIFY(h.doc.compileSync(QStringLiteral("joint")));
        TimelinePanel* t = h.timeline();
        const auto& passes = h.doc.trace()->passes;
        QCOMPARE(t->model()->rowCount(), int(passes.size()));
        QCOMPARE(t->view()->model()->rowCount(), int(passes.size()));
        QCOMPARE(t->pipelineBox()->currentText(), QStringLiteral("joint"));
        QCOMPARE(h.doc.passIndex(), -1);

        // Stepping forward and back, through the actions the shortcuts trigger.
        h.panels.nextPass->trigger();
        QCOMPARE(h.doc.passIndex(), 0);
        h.panels.nextPass->trigger();
        QCOMPARE(h.doc.passIndex(), 1);
        h.panels.previousPass->trigger();
        QCOMPARE(h.doc.passIndex(), 0);
        // The row follows the Document.
        QCOMPARE(t->view()->currentIndex().data(PassTimelineModel::PassIndexRole).toInt(), 0);
        // Clicking a row sets the pass.
        t->view()->setCurrentIndex(t->view()->model()->index(3, 0));
        QCOMPARE(h.doc.passIndex(), 3);

        // Changed passes only: stepping skips the others.
        t->setChangedOnly(true);
        std::vector<int> changed;
        for (size_t i = 0; i < passes.size(); ++i)
            if (passes[i].changed || passes[i].failed) changed.push_back(int(i));
        QCOMPARE(t->view()->model()->rowCount(), int(changed.size()));
        h.doc.setPassIndex(-1);
        for (int expected : changed) {
            t->step(+1);
            QCOMPARE(h.doc.passIndex(), expected);
        }
        t->step(+1);
        QCOMPARE(h.doc.passIndex(), changed.back());  // stays at the last one
        t->step(-1);
        QCOMPARE(h.doc.passIndex(), changed[changed.size() - 2]);
        t->setChangedOnly(false);
        QCOMPARE(t->view()->model()->rowCount(), int(passes.size()));
    }

    void keyboardShortcutsStep() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Harness h;
        QVERIFY(h.doc.loadSync(corpusFile("mlp/graphs/aot_joint_graph.py")));
        QVERIFY(h.doc.compileSync(QStringLiteral("joint")));
        h.window.show();
        h.window.activateWindow();
        if (!QTest::qWaitForWindowActive(&h.window)) QSKIP("the platform does not activate windows");
        QTest::keyClick(&h.window, Qt::Key_F8);
        QCOMPARE(h.doc.passIndex(), 0);
        QTest::keyClick(&h.window, Qt::Key_Right, Qt::AltModifier);
        QCOMPARE(h.doc.passIndex(), 1);
        QTest::keyClick(&h.window, Qt::Key_F8, Qt::ShiftModifier);
        QCOMPARE(h.doc.passIndex(), 0);
        QTest::keyClick(&h.window, Qt::Key_Left, Qt::AltModifier);
        QCOMPARE(h.doc.passIndex(), -1);
    }

    void matchExplorerSelectsAttention() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Harness h;
        QVERIFY(h.doc.loadSync(corpusFile("attention/graphs/aot_joint_graph.py")));
        QVERIFY(h.doc.compileSync(QStringLiteral("joint")));
        MatchPanel* m = h.matches();
        int fusePass = -1;
        for (size_t i = 0; i < h.doc.trace()->passes.size(); ++i)
            if (h.doc.trace()->passes[i].name == "fuse_attention") fusePass = int(i);
        QVERIFY(fusePass >= 0);
        const QModelIndex pass = m->model()->indexOfPass(fusePass);
        QVERIFY(pass.isValid());
        QCOMPARE(pass.data().toString(), QStringLiteral("fuse_attention"));
        const QModelIndex pattern = m->model()->index(0, 0, pass);
        QVERIFY(pattern.data(MatchModel::PatternRole).toString().startsWith(QStringLiteral("sfdp")));
        const QModelIndex match = m->model()->index(0, 0, pattern);
        QCOMPARE(MatchModel::Kind(match.data(MatchModel::KindRole).toInt()), MatchModel::Kind::Match);
        const MatchRecord& rec = h.doc.trace()->passes[size_t(fusePass)].matches.front();

        QSignalSpy sel(&h.doc, &Document::selectionChanged);
        m->view()->setCurrentIndex(match);
        QCOMPARE(h.doc.passIndex(), fusePass);
        QVERIFY(sel.count() >= 1);
        const QStringList selection = h.doc.selection();
        for (const std::string& n : rec.nodes) QVERIFY2(selection.contains(QString::fromStdString(n)), n.c_str());
        for (const std::string& n : rec.newNodes) QVERIFY2(selection.contains(QString::fromStdString(n)), n.c_str());
        QVERIFY(selection.contains(QStringLiteral("_softmax")));
        // The matched nodes are in the graph before the pass; the replacement in the one after.
        QVERIFY(h.doc.previousGraph()->find("_softmax"));
        QVERIFY(!h.doc.shownGraph()->find("_softmax"));
        QVERIFY(h.doc.shownGraph()->find("_scaled_dot_product_efficient_attention_default"));
        // "Select matched" narrows the selection to the matched side.
        auto* selectMatched = m->findChild<QPushButton*>(QStringLiteral("matches.selectMatched"));
        QVERIFY(selectMatched && selectMatched->isEnabled());
        shoot(m, "matches");
        selectMatched->click();
        QCOMPARE(h.doc.selection().size(), qsizetype(rec.nodes.size()));
        shoot(h.inspector(), "inspector_removed");
    }

    void diffCountsLines() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Harness h;
        QVERIFY(h.doc.loadSync(corpusFile("attention/graphs/aot_joint_graph.py")));
        QVERIFY(h.doc.compileSync(QStringLiteral("joint")));
        DiffPanel* d = h.diff();
        QCOMPARE(d->model()->rowCount(), 0);  // the input graph: nothing to compare
        int checked = 0;
        const auto& passes = h.doc.trace()->passes;
        for (size_t i = 0; i < passes.size(); ++i) {
            h.doc.setPassIndex(int(i));
            const PassRecord& p = passes[i];
            const DiffSummary s = d->model()->summary();
            if (!p.changed) {
                QCOMPARE(s.added + s.removed, size_t(0));
                continue;
            }
            if (!p.graph.empty()) continue;  // a subgraph's diff: checked by the counts below only at top level
            // Without comments one line per node: the net change is the node count's, and every
            // node that disappeared (appeared) takes at least one removed (added) line.
            QCOMPARE(qint64(s.removed) - qint64(s.added), qint64(p.nodesBefore) - qint64(p.nodesAfter));
            const Graph* before = h.doc.previousGraph();
            const Graph* after = h.doc.shownGraph();
            size_t gone = 0, born = 0;
            for (const auto& n : before->nodes()) gone += after->find(n->name()) == nullptr;
            for (const auto& n : after->nodes()) born += before->find(n->name()) == nullptr;
            QVERIFY(s.removed >= gone);
            QVERIFY(s.added >= born);
            QVERIFY(s.removed + s.added > 0);
            qInfo("%s: +%zu -%zu lines, %zu -> %zu nodes", p.name.c_str(), s.added, s.removed, p.nodesBefore,
                  p.nodesAfter);
            QVERIFY(d->summaryLabel()->text().contains(QStringLiteral("+%1").arg(s.added)));
            QVERIFY(d->summaryLabel()->text().contains(QStringLiteral("−%1").arg(s.removed)));
            ++checked;
        }
        QVERIFY(checked >= 2);  // remove_noop_ops, fuse_attention, dce
        // remove_noop_ops drops detach and detach_1: at least two removed lines mention them.
        h.doc.setPassIndex(0);
        QCOMPARE(passes[0].name, std::string("remove_noop_ops"));
        int detachRemoved = 0;
        for (int r = 0; r < d->model()->rowCount(); ++r) {
            const QModelIndex left = d->model()->index(r, TextDiffModel::ColLeft);
            if (DiffLine::Kind(left.data(TextDiffModel::KindRole).toInt()) == DiffLine::Kind::Removed &&
                left.data().toString().trimmed().startsWith(QStringLiteral("detach")))
                ++detachRemoved;
        }
        QCOMPARE(detachRemoved, 2);
        for (size_t i = 0; i < passes.size(); ++i)
            if (passes[i].name == "fuse_attention") h.doc.setPassIndex(int(i));
        shoot(d, "diff");
        shoot(h.timeline(), "timeline");
    }

    void partitionPanelTotalsAndBudget() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Harness h;
        QVERIFY(h.doc.loadSync(corpusFile("mlp/graphs/aot_joint_graph.py")));
        // Opening a joint graph partitions it on the worker.
        QVERIFY(settle(h.doc));
        QVERIFY(h.doc.partition());
        PartitionPanel* p = h.partition();
        const auto result = h.doc.partition();
        const auto totals = p->savedModel()->totals();
        QCOMPARE(totals.oursBytes, result->savedBytes);
        QCOMPARE(totals.ours, int(result->saved.size()));
        qint64 rowSum = 0;
        for (int r = 0; r < p->savedModel()->rowCount(); ++r)
            if (p->savedModel()->index(r, 0).data(SavedTensorModel::OursRole).toBool())
                rowSum += p->savedModel()->index(r, 0).data(SavedTensorModel::BytesRole).toLongLong();
        QCOMPARE(rowSum, result->savedBytes);
        // PyTorch's figures, read from the corpus by hand.
        const QJsonObject summary = summaryOf("mlp");
        QVERIFY(p->savedModel()->hasReference());
        QCOMPARE(totals.pytorchBytes, summary.value(QStringLiteral("saved_bytes")).toInteger());
        QCOMPARE(totals.pytorch, int(summary.value(QStringLiteral("saved")).toArray().size()));
        QVERIFY(p->totalsLabel()->text().contains(
            QLocale().toString(summary.value(QStringLiteral("saved_bytes")).toInteger())));
        QVERIFY(p->totalsLabel()->text().contains(QLocale().toString(result->savedBytes)));
        qInfo("mlp: fxray saves %d values / %lld bytes, PyTorch %d / %lld; only fxray %d, only PyTorch %d", totals.ours,
              (long long)totals.oursBytes, totals.pytorch, (long long)totals.pytorchBytes, totals.onlyOurs,
              totals.onlyPyTorch);
        QCOMPARE(p->bannedModel()->rowCount(), int(result->banned.size()));
        QCOMPARE(p->recomputedModel()->rowCount(), int(result->recomputed.size()));

        shoot(p, "partition");
        // The budget slider re-partitions (debounced): at 0 nothing but inputs is saved.
        QSignalSpy changed(&h.doc, &Document::partitionChanged);
        p->budgetSlider()->setValue(30);
        p->budgetSlider()->setValue(0);  // within the debounce: one job for the last value
        QCOMPARE(p->budgetSpin()->value(), 0.0);
        QVERIFY(changed.wait(20000));
        QVERIFY(settle(h.doc));
        QCOMPARE(h.doc.memoryBudget(), 0.0);
        QCOMPARE(h.doc.partition()->activationBytes, int64_t(0));
        QCOMPARE(p->savedModel()->totals().oursActivationBytes, qint64(0));
        QCOMPARE(changed.count(), 1);
        // The spin box drives the slider too.
        p->budgetSpin()->setValue(1.0);
        QCOMPARE(p->budgetSlider()->value(), 100);
        QVERIFY(changed.wait(20000));
        QVERIFY(settle(h.doc));
        QCOMPARE(h.doc.partition()->savedBytes, result->savedBytes);
    }

    // A backward graph takes tangents too, but PyTorch already partitioned it: the pane must not
    // cut it again on its own. checkpointed's backward saves nothing but primals, so only its
    // outputs (one gradient per primal, no forward output) tell it from a joint graph.
    void partitionPanelLeavesBackwardGraphs() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        for (const char* file : {"checkpointed/numerics/backward.py", "mlp/numerics/backward.py"}) {
            Harness h;
            // Copied under a neutral name, so that the graph's shape decides and not its file name.
            QTemporaryDir dir;
            const QString copy = dir.filePath(QStringLiteral("graph.py"));
            QVERIFY(QFile::copy(corpusFile(file), copy));
            QVERIFY(h.doc.loadSync(copy));
            QVERIFY(settle(h.doc));
            QVERIFY2(!h.doc.partition(), file);
            const QString status = h.partition()->statusLabel()->text();
            QVERIFY2(status.contains(QStringLiteral("Nothing to partition")) && status.contains(QStringLiteral("backward")),
                     qPrintable(status));
        }
        Harness h;
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("graph.py"));
        QVERIFY(QFile::copy(corpusFile("checkpointed/numerics/joint.py"), copy));
        QVERIFY(h.doc.loadSync(copy));
        QVERIFY(settle(h.doc));
        QVERIFY(h.doc.partition());
    }

    void codePaneSelectionSync() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Harness h;
        h.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&h.window));
        QVERIFY(h.doc.loadSync(corpusFile("mlp/graphs/aot_joint_graph.py")));
        CodePanel* c = h.code();
        h.panels.code->raise();
        QPlainTextEdit* e = c->editor();
        QVERIFY(e->toPlainText().contains(QStringLiteral("torch.ops.aten.threshold_backward.default")));
        // Document -> code: the line is highlighted and made current.
        h.doc.setSelection({QStringLiteral("relu")});
        const int reluLine = c->lineIndex().lineOf(QStringLiteral("relu"));
        QVERIFY(reluLine > 0);
        QVERIFY(e->document()->findBlockByNumber(reluLine).text().trimmed().startsWith(QStringLiteral("relu: ")));
        QCOMPARE(c->highlightedLines(), QList<int>{reluLine});
        QCOMPARE(e->textCursor().blockNumber(), reluLine);
        QCOMPARE(e->extraSelections().size(), qsizetype(1));
        // Code -> Document: a click on a line selects its node.
        const int tLine = c->lineIndex().lineOf(QStringLiteral("t"));
        QVERIFY(tLine > 0);
        QTextCursor cur(e->document()->findBlockByNumber(tLine));
        cur.movePosition(QTextCursor::NextWord);
        e->setTextCursor(cur);
        e->ensureCursorVisible();
        QTest::qWait(10);
        const QPoint at = e->cursorRect(cur).center();
        QTest::mouseClick(e->viewport(), Qt::LeftButton, {}, at);
        QCOMPARE(h.doc.selection(), QStringList{QStringLiteral("t")});
        QCOMPARE(c->highlightedLines(), QList<int>{tLine});
    }

    void inspectorShowsProvenance() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Harness h;
        QVERIFY(h.doc.loadSync(corpusFile("attention/graphs/aot_joint_graph.py")));
        QVERIFY(h.doc.compileSync(QStringLiteral("joint")));
        int fusePass = -1;
        for (size_t i = 0; i < h.doc.trace()->passes.size(); ++i)
            if (h.doc.trace()->passes[i].name == "fuse_attention") fusePass = int(i);
        h.doc.setPassIndex(fusePass);
        const QString sdpa = QStringLiteral("_scaled_dot_product_efficient_attention_default");
        h.doc.setSelection({sdpa});
        NodeInspectorModel* m = h.inspector()->model();
        QCOMPARE(m->nodeName(), sdpa);
        const QModelIndex prov = m->section(QStringLiteral("provenance"));
        QVERIFY(prov.isValid());
        bool created = false;
        for (int r = 0; r < m->rowCount(prov); ++r) {
            const QString where = m->index(r, 0, prov).data().toString();
            const QString what = m->index(r, 1, prov).data().toString();
            if (where.contains(QStringLiteral("fuse_attention")) && what.contains(QStringLiteral("created")) &&
                what.contains(QStringLiteral("sfdp")))
                created = true;
        }
        QVERIFY(created);
        shoot(h.inspector(), "inspector");
        QVERIFY(m->section(QStringLiteral("schema"))
                    .siblingAtColumn(1)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("_scaled_dot_product_efficient_attention(")));
        // Double-clicking a user selects it.
        const QModelIndex users = m->section(QStringLiteral("users"));
        QVERIFY(m->rowCount(users) > 0);
        const QString user = m->index(0, 0, users).data(NodeInspectorModel::NodeNameRole).toString();
        Q_EMIT h.inspector()->view()->doubleClicked(m->index(0, 0, users));
        QCOMPARE(h.doc.selection(), QStringList{user});
    }

    void kernelPaneShowsInductorCode() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Harness h;
        QVERIFY(h.doc.loadSync(corpusFile("attention/debug/model__1_forward_5.0")));
        KernelPanel* k = h.kernels();
        QVERIFY(k->model()->rowCount() >= 1);
        const int row =
            k->chooser()->findData(QStringLiteral("inductor_output_code"), KernelArtifactModel::ArtifactNameRole);
        QVERIFY(row >= 0);
        k->chooser()->setCurrentIndex(row);
        QVERIFY(k->editor()->isReadOnly());
        QVERIFY(k->editor()->toPlainText().contains(QStringLiteral("def call(")));
        k->findBox()->setText(QStringLiteral("def call("));
        QVERIFY(k->editor()->textCursor().selectedText() == QStringLiteral("def call("));
        shoot(k, "kernels");
        k->findBox()->setText(QStringLiteral("no such text anywhere"));
        QVERIFY(!k->findNext());
        // A plain FX file has no kernels.
        QVERIFY(h.doc.loadSync(corpusFile("mlp/graphs/aot_joint_graph.py")));
        QCOMPARE(k->model()->rowCount(), 0);
        QVERIFY(k->editor()->toPlainText().isEmpty());
        QVERIFY(settle(h.doc));
    }
};

QTEST_MAIN(TestPanels)
#include "tst_panels.moc"
