// fxray's own kernels in the kernel pane (issue 8) and the numerics pane with the canvas's heat
// map (issue 9), offscreen: mlp's forward graph compiles to one fused kernel (relu) with both
// addmm as extern GEMMs and both t as views — what its five nodes must become, since only relu
// is pointwise; the kernel's LLVM IR and CUDA C++ are shown and selection follows both ways.
// The numerics model is checked on hand-written compare JSON (errors chosen to exercise
// sorting, NaN and the heat colours), and, where the fxray executable is built, on a real child.
#include "test_util.h"

#include "document.h"
#include "graph/canvas_colors.h"
#include "graph/graph_canvas.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "ir/graph.h"
#include "main_window.h"
#include "models/kernel_report.h"
#include "models/numerics_model.h"
#include "models/string_table_model.h"
#include "panels/kernel_panel.h"
#include "panels/numerics_panel.h"
#include "panels/panels.h"
#include "settings.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMainWindow>
#include <QPlainTextEdit>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace fxray;
using namespace fxray::views;

static void initRes() { Q_INIT_RESOURCE(resources); }

namespace {

QString corpusFile(const char* rel) { return QString::fromStdString((fxtest::corpus() / rel).string()); }

/// The window as the application builds it: canvas in the middle, panes docked around.
struct Harness {
    Document doc;
    QMainWindow window;
    GraphCanvas* canvas;
    Panels panels;
    Harness() : canvas(new GraphCanvas(&doc)) {
        window.resize(1400, 900);
        window.setCentralWidget(canvas);
        panels = installPanels(&window, &doc);
        for (QAbstractItemModel* m : {static_cast<QAbstractItemModel*>(kernels()->kernelModel()),
                                      static_cast<QAbstractItemModel*>(kernels()->groupModel()),
                                      static_cast<QAbstractItemModel*>(numerics()->model()),
                                      static_cast<QAbstractItemModel*>(numerics()->proxy())})
            new QAbstractItemModelTester(m, QAbstractItemModelTester::FailureReportingMode::QtTest, m);
    }
    KernelPanel* kernels() { return qobject_cast<KernelPanel*>(panels.kernels->widget()); }
    NumericsPanel* numerics() { return qobject_cast<NumericsPanel*>(panels.numerics->widget()); }
};

/// compare's JSON for mlp's forward graph on ref, cpu and cuda, written by hand.
QByteArray handJson() {
    return R"({
 "ok": false, "graph": "0", "backends": ["ref", "cpu", "cuda"],
 "outputs": [{"index": 0, "backend": "cpu", "rel_err": 1e-7, "max_abs_err": 2e-7, "ok": true},
             {"index": 0, "backend": "cuda", "rel_err": 3e-2, "max_abs_err": 0.5, "ok": false}],
 "first_divergent_node": {"node": "relu", "target": "aten.relu.default", "backend": "cuda", "rel_err": 5e-3},
 "nodes": {},
 "node_errors": [
  {"node": "addmm", "target": "aten.addmm.default", "backend": "cpu", "rel_err": 1e-7, "max_abs_err": 3e-7, "ok": true},
  {"node": "addmm", "target": "aten.addmm.default", "backend": "cuda", "rel_err": 2e-6, "max_abs_err": 4e-6, "ok": true},
  {"node": "relu", "target": "aten.relu.default", "backend": "cpu", "rel_err": 0, "max_abs_err": 0, "ok": true},
  {"node": "relu", "target": "aten.relu.default", "backend": "cuda", "rel_err": 5e-3, "max_abs_err": 1e-2, "ok": false},
  {"node": "addmm_1", "target": "aten.addmm.default", "backend": "cpu", "rel_err": null, "max_abs_err": null, "ok": false},
  {"node": "addmm_1", "target": "aten.addmm.default", "backend": "cuda", "rel_err": 1e-8, "max_abs_err": 1e-8, "ok": true}
 ]})";
}

/// With FXRAY_SHOT_DIR set, saves a picture of a widget there (to look at the panes by eye).
void shoot(QWidget* w, const char* name, QSize size = {1000, 520}) {
    const QString dir = qEnvironmentVariable("FXRAY_SHOT_DIR");
    if (dir.isEmpty()) return;
    w->resize(size);
    w->grab().save(dir + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".png"));
}

int groupRow(const KernelReport& r, const QString& node) {
    for (size_t i = 0; i < r.groups.size(); ++i)
        if (r.groups[i].node == node) return static_cast<int>(i);
    return -1;
}

}  // namespace

class TestKernelNumerics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { initRes(); }

    void kernelPaneCompilesMlpForward() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Harness h;
        QVERIFY(h.doc.loadSync(corpusFile("mlp/graphs/aot_forward_graph.py")));
        KernelPanel* k = h.kernels();
        k->compileNow();
        QVERIFY(k->compiling());
        QVERIFY(k->waitForCompile());
        const KernelReport* r = k->report();
        QVERIFY(r);
        QVERIFY2(r->error.isEmpty(), qPrintable(r->error));
        QCOMPARE(r->fingerprint, h.doc.shownGraph()->fingerprint());
        // NVRTC's verdict on the CUDA module follows as a second job: compiled, or source only.
        QVERIFY(!k->checkingCuda());
        const QString status = k->statusLabel()->text();
        QVERIFY2(status.contains(QStringLiteral("NVRTC")) || status.contains(QStringLiteral("CUDA source only")),
                 qPrintable(status));
        // Only relu is pointwise: one kernel; the GEMMs are extern calls and the transposes views.
        QCOMPARE(static_cast<int>(r->kernels.size()), 1);
        QCOMPARE(k->kernelModel()->rowCount(), 1);
        QVERIFY(r->kernels[0].nodes.contains(QStringLiteral("relu")));
        // The group map has every call node of the graph exactly once.
        int calls = 0;
        for (const auto& n : h.doc.shownGraph()->nodes())
            if (n->kind() == NodeKind::CallFunction) {
                ++calls;
                QVERIFY2(groupRow(*r, QString::fromStdString(n->name())) >= 0, n->name().c_str());
            }
        QCOMPARE(calls, 5);
        QCOMPARE(k->groupModel()->rowCount(), static_cast<int>(r->groups.size()));
        const auto kindOf = [&](const char* node) {
            return r->groups[static_cast<size_t>(groupRow(*r, QString::fromLatin1(node)))].kind;
        };
        QCOMPARE(kindOf("relu"), QStringLiteral("kernel"));
        QCOMPARE(kindOf("addmm"), QStringLiteral("extern"));
        QCOMPARE(kindOf("addmm_1"), QStringLiteral("extern"));
        QCOMPARE(kindOf("t"), QStringLiteral("view"));
        QCOMPARE(r->groups[static_cast<size_t>(groupRow(*r, QStringLiteral("relu")))].kernel, 0);

        // Selecting the node shows the kernel that computes it, on each backend.
        h.doc.setSelection({QStringLiteral("relu")});
        QCOMPARE(k->currentKernel(), 0);
        QVERIFY(k->codeView(KernelPanel::KernelIrTab)->toPlainText().contains(QStringLiteral("relu")));
        QVERIFY(k->codeView(KernelPanel::CudaTab)->toPlainText().contains(QStringLiteral("__global__")));
        if (kernelReportHasCpuBackend()) {
            QVERIFY(r->haveCpu);
            QVERIFY(k->codeView(KernelPanel::LlvmIrTab)->toPlainText().contains(QStringLiteral("define")));
            k->codeTabs()->setCurrentIndex(KernelPanel::AssemblyTab);
            QVERIFY(!k->codeView(KernelPanel::AssemblyTab)->toPlainText().trimmed().isEmpty());
        }
        shoot(k, "kernel_pane_llvm");
        // A node no kernel computes says how it runs instead of showing another node's kernel.
        h.doc.setSelection({QStringLiteral("addmm")});
        QCOMPARE(k->currentKernel(), -1);
        QVERIFY(k->codeView(KernelPanel::KernelIrTab)->toPlainText().isEmpty());
        QVERIFY(k->codeView(KernelPanel::KernelIrTab)->placeholderText().contains(QStringLiteral("extern")));
        // Choosing a kernel selects its nodes (the canvas highlights them).
        h.doc.setSelection({QStringLiteral("t")});
        k->kernelView()->selectionModel()->clearCurrentIndex();
        k->kernelView()->selectionModel()->setCurrentIndex(k->kernelModel()->index(0, 0),
                                                           QItemSelectionModel::ClearAndSelect);
        QCOMPARE(h.doc.selection(), r->kernels[0].nodes);
        QVERIFY(h.canvas->waitForLayout());
        QVERIFY(h.canvas->scene()->selectedNames().contains(QStringLiteral("relu")));
        // Same graph again: nothing to do.
        k->compileNow();
        QVERIFY(!k->compiling());
    }

    void kernelPaneCompilesWhenShown() {
        // In the window: the pane compiles by itself once it is on screen, and again (on the
        // worker) when the user steps to a pass that changed the graph.
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        MainWindow w;
        w.setQuiet(true);
        w.resize(1500, 950);
        QVERIFY(w.openFile(corpusFile("gpt2/numerics/forward.py")));
        w.show();
        QVERIFY(w.canvas()->waitForLayout());
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("dock.kernels"));
        QVERIFY(dock);
        dock->show();
        dock->raise();
        auto* k = qobject_cast<KernelPanel*>(dock->widget());
        // The status bar says it is compiling, with Cancel.
        if (k->compiling()) QVERIFY(w.statusText().contains(QStringLiteral("Compiling kernels")));
        QTRY_VERIFY_WITH_TIMEOUT(k->report() != nullptr, 60000);
        QVERIFY(k->waitForCompile());
        QVERIFY2(k->report()->error.isEmpty(), qPrintable(k->report()->error));
        QVERIFY(k->report()->kernels.size() > 5);
        // Every kernel lists nodes of the graph, and the group map points back at it.
        for (size_t i = 0; i < k->report()->kernels.size(); ++i)
            for (const QString& n : k->report()->kernels[i].nodes)
                QVERIFY2(w.document()->shownGraph()->find(n.toStdString()), qPrintable(n));
        const QString node = k->report()->kernels.back().nodes.first();
        w.document()->setSelection({node});
        QCOMPARE(k->currentKernel(), static_cast<int>(k->report()->kernels.size()) - 1);
        QVERIFY(w.canvas()->waitForLayout());
        shoot(&w, "window_kernels", {1500, 950});
    }

    void overviewSkipsEdgesButExportKeepsThem() {
        // Zoomed out, the view stops drawing edges (issue 6's 60 fps); an export still has them.
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Document doc;
        GraphCanvas canvas(&doc);
        canvas.resize(900, 700);
        canvas.show();
        QVERIFY(doc.loadSync(corpusFile("mlp/graphs/aot_forward_graph.py")));
        QVERIFY(canvas.waitForLayout());
        canvas.view()->setTransform(QTransform::fromScale(1.0, 1.0));
        canvas.view()->viewport()->grab();
        QVERIFY(canvas.scene()->edgesDrawn());
        canvas.view()->setTransform(QTransform::fromScale(kEdgeLod / 2, kEdgeLod / 2));
        canvas.view()->viewport()->grab();
        QVERIFY(!canvas.scene()->edgesDrawn());
        QTemporaryDir dir;
        QString err;
        QVERIFY2(canvas.exportTo(dir.filePath(QStringLiteral("g.svg")), &err), qPrintable(err));
        QVERIFY(canvas.scene()->edgesDrawn());
        for (EdgeItem* e : canvas.scene()->edgeItems()) QVERIFY(!(e->flags() & QGraphicsItem::ItemHasNoContents));
    }

    void kernelPaneDropsStaleResults() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Harness h;
        QVERIFY(h.doc.loadSync(corpusFile("mlp/graphs/aot_forward_graph.py")));
        KernelPanel* k = h.kernels();
        k->compileNow();
        k->cancelCompile();
        QVERIFY(!k->compiling());
        QTest::qWait(200);
        QVERIFY(k->waitForCompile());
        QVERIFY(!k->report());  // the cancelled result never arrives
        // A newer graph supersedes the older one.
        k->compileNow();
        QVERIFY(h.doc.loadSync(corpusFile("mlp/graphs/aot_backward_graph.py")));
        k->compileNow();
        QVERIFY(k->waitForCompile());
        QVERIFY(k->report());
        QCOMPARE(k->report()->fingerprint, h.doc.shownGraph()->fingerprint());
    }

    void kernelPaneReportsFailure() {
        // A placeholder without a shape annotation cannot be compiled: the message says which.
        auto file = std::make_shared<LoadedFile>();
        LoadedGraph lg;
        lg.id = "0";
        lg.stage = "hand";
        lg.graph = std::make_unique<Graph>();
        Node* x = lg.graph->append(NodeKind::Placeholder, "x", "x");
        Node* r = lg.graph->append(NodeKind::CallFunction, "relu", "torch.ops.aten.relu.default");
        r->args = {Argument::ofNode(x)};
        Node* out = lg.graph->append(NodeKind::Output, "output", "output");
        out->args = {Argument::ofList({Argument::ofNode(r)}, true)};
        lg.graph->rebuildUsers();
        file->graphs.push_back(std::move(lg));
        Harness h;
        h.doc.setFile(file, QStringLiteral("hand.py"));
        h.kernels()->compileNow();
        QVERIFY(h.kernels()->waitForCompile());
        QVERIFY(h.kernels()->report());
        QVERIFY(h.kernels()->report()->error.contains(QStringLiteral("'x'")));
        QVERIFY(h.kernels()->statusLabel()->text().contains(QStringLiteral("'x'")));
    }

    void pluralsOfNewStrings() {
        // "1 clusters" was a bug: each count has its own plural now, in every language.
        const struct {
            const char* lang;
            const char* one;
            const char* many;
        } rows[] = {{"en", "1 cluster", "3 clusters"}, {"de", "1 Cluster", "3 Cluster"}, {"zh_CN", "1 个簇", "3 个簇"}};
        for (const auto& r : rows) {
            QVERIFY(settings::installTranslator(QString::fromLatin1(r.lang)));
            QCOMPARE(QCoreApplication::translate("fxray::views::GraphCanvas", "%n cluster(s)", nullptr, 1),
                     QString::fromUtf8(r.one));
            QCOMPARE(QCoreApplication::translate("fxray::views::GraphCanvas", "%n cluster(s)", nullptr, 3),
                     QString::fromUtf8(r.many));
        }
        QVERIFY(settings::installTranslator(QStringLiteral("de")));
        QCOMPARE(QCoreApplication::translate("fxray::views::KernelPanel", "%n kernel(s)", nullptr, 2),
                 QStringLiteral("2 Kernel"));
        QCOMPARE(QCoreApplication::translate("fxray::views::NumericsPanel", "Compare"), QStringLiteral("Vergleichen"));
        settings::installTranslator(QStringLiteral("en"));
    }

    void missingCjkFontIsSaid() {
        QVERIFY(settings::missingFontNote(QStringLiteral("zh_CN"), false).contains(QStringLiteral("fonts-noto-cjk")));
        QVERIFY(settings::missingFontNote(QStringLiteral("zh_CN"), true).isEmpty());
        QVERIFY(settings::missingFontNote(QStringLiteral("de"), false).isEmpty());
        QVERIFY(settings::installTranslator(QStringLiteral("zh_CN")));
        QCOMPARE(settings::installedLanguage(), QStringLiteral("zh_CN"));
        QVERIFY(settings::installTranslator(QStringLiteral("en")));
        QCOMPARE(settings::installedLanguage(), QStringLiteral("en"));
    }

    void numericsModelFromJson() {
        QString error;
        auto r = NumericsReport::parse(handJson(), &error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->compared(), (QStringList{QStringLiteral("cpu"), QStringLiteral("cuda")}));
        QCOMPARE(static_cast<int>(r->rows.size()), 3);
        QCOMPARE(r->firstDivergentNode, QStringLiteral("relu"));
        const QHash<QString, double> worst = r->worstByNode();
        QCOMPARE(worst.value(QStringLiteral("addmm")), 2e-6);
        QCOMPARE(worst.value(QStringLiteral("relu")), 5e-3);
        QVERIFY(std::isnan(worst.value(QStringLiteral("addmm_1"))));
        QVERIFY(!NumericsReport::parse("{not json", &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!NumericsReport::parse(R"({"ok": true})", &error));

        NumericsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setReport(std::move(r));
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.columnCount(), 5);  // node, op, rel_err cpu, rel_err cuda, agree
        QCOMPARE(m.headerData(2, Qt::Horizontal).toString(), QStringLiteral("rel_err cpu"));
        QCOMPARE(m.headerData(3, Qt::Horizontal).toString(), QStringLiteral("rel_err cuda"));
        QCOMPARE(m.index(1, NumericsModel::OpColumn).data().toString(), QStringLiteral("aten.relu.default"));
        QCOMPARE(m.index(1, m.okColumn()).data().toString(), QStringLiteral("DIFFERS"));
        QCOMPARE(m.index(0, m.okColumn()).data().toString(), QStringLiteral("ok"));
        QCOMPARE(m.index(2, 2).data().toString(), QStringLiteral("nan"));

        // Sorted by the cpu error, worst first: NaN, then 1e-7, then 0.
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&m);
        proxy.setSortRole(NumericsModel::SortRole);
        proxy.sort(2, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("addmm_1"));
        QCOMPARE(proxy.index(1, 0).data().toString(), QStringLiteral("addmm"));
        QCOMPARE(proxy.index(2, 0).data().toString(), QStringLiteral("relu"));
        proxy.sort(3, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("relu"));
    }

    void heatColours() {
        using namespace canvas_colors;
        // Green at the bottom of the scale and below, red at the top and above.
        QCOMPARE(heat(0, false).hue(), 120);
        QCOMPARE(heat(1e-12, false).hue(), 120);
        QCOMPARE(heat(1e-1, false).hue(), 0);
        QCOMPARE(heat(10, false).hue(), 0);
        QCOMPARE(heat(1e-5, false).hue(), 60);  // halfway in log10 between 1e-9 and 1e-1
        QVERIFY(heat(std::nan(""), false) != heat(1, false));
    }

    void numericsPanelDrivesCanvasAndSelection() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Harness h;
        QVERIFY(h.doc.loadSync(corpusFile("mlp/graphs/aot_forward_graph.py")));
        QVERIFY(h.canvas->waitForLayout());
        NumericsPanel* p = h.numerics();
        QVERIFY(p->loadJson(handJson()));
        QCOMPARE(p->model()->rowCount(), 3);
        // Graph order until the user sorts.
        QCOMPARE(p->view()->model()->index(0, 0).data().toString(), QStringLiteral("addmm"));
        QCOMPARE(p->view()->model()->index(2, 0).data().toString(), QStringLiteral("addmm_1"));
        QVERIFY(p->summaryLabel()->text().contains(QStringLiteral("relu")));
        // The heat map is on, and each node is coloured by its worst error.
        QCOMPARE(h.canvas->mode(), GraphCanvas::Mode::Numerics);
        const bool dark = h.canvas->scene()->dark();
        QCOMPARE(h.canvas->scene()->nodeItem(QStringLiteral("relu"))->fill(), canvas_colors::heat(5e-3, dark));
        QCOMPARE(h.canvas->scene()->nodeItem(QStringLiteral("addmm"))->fill(), canvas_colors::heat(2e-6, dark));
        QCOMPARE(h.canvas->scene()->nodeItem(QStringLiteral("t"))->fill(), canvas_colors::unchanged(dark));
        // Back to categories and forth with the View menu's action.
        h.canvas->setMode(GraphCanvas::Mode::Category);
        QVERIFY(h.canvas->scene()->nodeItem(QStringLiteral("relu"))->fill() != canvas_colors::heat(5e-3, dark));
        QAction* heat = h.window.findChild<QAction*>(QStringLiteral("actionColourNumerics"));
        QVERIFY(heat);
        QCOMPARE(heat->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_4));
        heat->trigger();
        QCOMPARE(h.canvas->scene()->nodeItem(QStringLiteral("relu"))->fill(), canvas_colors::heat(5e-3, dark));

        // Clicking a row selects the node everywhere; the kernel pane shows its kernel.
        h.kernels()->compileNow();
        QVERIFY(h.kernels()->waitForCompile());
        const QModelIndex relu =
            p->proxy()->mapFromSource(p->model()->index(p->model()->rowOf(QStringLiteral("relu")), 0));
        p->view()->selectionModel()->setCurrentIndex(relu,
                                                     QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QCOMPARE(h.doc.selection(), QStringList{QStringLiteral("relu")});
        QCOMPARE(h.canvas->scene()->selectedNames(), QStringList{QStringLiteral("relu")});
        QCOMPARE(h.kernels()->currentKernel(), 0);
        shoot(p, "numerics_pane");
        shoot(h.canvas, "numerics_heat", {900, 700});
        // And the other way: a node selected elsewhere selects its row.
        h.doc.setSelection({QStringLiteral("addmm")});
        QCOMPARE(p->view()->currentIndex().data(NumericsModel::NodeNameRole).toString(), QStringLiteral("addmm"));

        // A child without a GPU turns the cuda box off, saying why.
        p->cudaBox()->setChecked(true);
        QVERIFY(p->compareArguments().join(QLatin1Char(' ')).contains(QStringLiteral("ref,cpu,cuda")));
        p->childFailed(2, QStringLiteral("fxray: backend 'cuda': no CUDA device: libcuda.so.1 not found"));
        QVERIFY(!p->cudaBox()->isEnabled());
        QVERIFY(p->cudaBox()->toolTip().contains(QStringLiteral("libcuda.so.1")));
        QVERIFY(p->statusLabel()->text().contains(QStringLiteral("exit 2")));
        QVERIFY(!p->compareArguments().join(QLatin1Char(' ')).contains(QStringLiteral("cuda")));

        // Another file: the old errors are gone.
        QVERIFY(h.doc.loadSync(corpusFile("mlp/graphs/aot_backward_graph.py")));
        QCOMPARE(p->model()->rowCount(), 0);
        QVERIFY(h.doc.nodeErrors().isEmpty());
    }

    void numericsPanelRunsCompare() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Harness h;
        NumericsPanel* p = h.numerics();
        if (p->executable().isEmpty()) QSKIP("fxray executable not built beside the tests");
        if (!kernelReportHasCpuBackend()) QSKIP("built without the CPU backend (LLVM): compare has no 'cpu'");
        QVERIFY(h.doc.loadSync(corpusFile("mlp/numerics/forward.py")));
        // The corpus records this case's inputs beside it.
        const QStringList args = p->compareArguments();
        QVERIFY(args.contains(QStringLiteral("--inputs")));
        QVERIFY(args.at(args.indexOf(QStringLiteral("--inputs")) + 1).endsWith(QStringLiteral("forward/inputs")));
        QVERIFY(p->run());
        QVERIFY(p->running());
        QVERIFY(p->waitForRun(120000));
        QVERIFY2(p->model()->report(), qPrintable(p->statusLabel()->text()));
        // Our CPU backend agrees with the reference on the recorded inputs (issue 8's bar).
        const NumericsReport* r = p->model()->report();
        QCOMPARE(r->backends, (QStringList{QStringLiteral("ref"), QStringLiteral("cpu")}));
        QVERIFY(!r->outputs.empty());
        for (const auto& o : r->outputs) QVERIFY2(o.relErr <= 1e-4, qPrintable(QString::number(o.relErr)));
        for (const auto& row : r->rows) QVERIFY2(row.ok(), qPrintable(row.node));
        if (!r->rows.empty()) {
            // node_errors (the compare contract): a row for every call node, coloured on the canvas.
            for (const auto& n : h.doc.shownGraph()->nodes())
                if (n->kind() == NodeKind::CallFunction)
                    QVERIFY2(p->model()->rowOf(QString::fromStdString(n->name())) >= 0, n->name().c_str());
            QCOMPARE(h.doc.nodeErrors().size(), static_cast<qsizetype>(r->rows.size()));
        }
        QCOMPARE(h.canvas->mode(), GraphCanvas::Mode::Numerics);
        shoot(&h.window, "window_numerics", {1400, 900});
        // Cancelling a running child leaves no result and no process.
        QVERIFY(p->run());
        p->cancel();
        QVERIFY(!p->running());
    }
};

QTEST_MAIN(TestKernelNumerics)
#include "tst_kernel_numerics.moc"
