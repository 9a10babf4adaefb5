// The compile story pane on the real PyTorch 2.11 TORCH_TRACE logs of ../traces: the compile
// tree's frames, attempts, statuses, graph-break reasons and user lines as the logs record them
// (compile ids of the envelopes, compilation_metrics' restart_reasons and fail_type, the
// dynamo_graph_break_reason payloads, the recompile_reasons artifact, the provenance mapping's
// cppCodeToPost), and kernels <-> nodes linked both ways through the Document.
#include "test_util.h"

#include "document.h"
#include "import/compile_story.h"
#include "import/loader.h"
#include "main_window.h"
#include "minify/minifier.h"
#include "models/compile_tree_model.h"
#include "panels/compile_story_panel.h"
#include "panels/minifier_panel.h"
#include "panels/output_code_view.h"
#include "panels/phase_chart.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTreeView>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using namespace fxray;
using namespace fxray::views;

namespace {

fs::path traces() { return fxtest::corpus().parent_path() / "traces"; }

std::shared_ptr<const CompileStory> story(const char* name) {
    auto s = readCompileStory(traces() / name / "trace");
    if (!s.ok()) return nullptr;
    return std::make_shared<const CompileStory>(std::move(*s));
}

QString text(const QAbstractItemModel& m, const QModelIndex& parent, int row, int col, int role = Qt::DisplayRole) {
    return m.index(row, col, parent).data(role).toString();
}

/// Row names of the attempts under each frame, and the frames' statuses.
struct Shape {
    QStringList frames, frameStatus;
    std::vector<QStringList> attempts, attemptStatus;
};

Shape shapeOf(const CompileTreeModel& m) {
    Shape s;
    for (int f = 0; f < m.rowCount(); ++f) {
        const QModelIndex fi = m.index(f, 0);
        s.frames << fi.data().toString();
        s.frameStatus << fi.data(CompileTreeModel::StatusRole).toString();
        QStringList a, as;
        for (int r = 0; r < m.rowCount(fi); ++r) {
            a << text(m, fi, r, CompileTreeModel::NameColumn);
            as << text(m, fi, r, CompileTreeModel::StatusColumn);
        }
        s.attempts.push_back(a);
        s.attemptStatus.push_back(as);
    }
    return s;
}

/// A record line in PyTorch's format (glog prefix, JSON envelope), payload lines tab-indented.
std::string record(const std::string& envelope, const std::string& payload = "") {
    std::string out = "V1125 06:01:28.506000 770 torch/_dynamo/convert_frame.py:1011] " + envelope + "\n";
    std::istringstream in(payload);
    for (std::string l; std::getline(in, l);) out += "\t" + l + "\n";
    return out;
}

/// The graph_breaks log with 2/0's compilation_metrics saying it failed (fail_type and fail_reason
/// set, as a failing run logs them), written to dir/failed.log; empty on a mismatch.
fs::path failedGraphBreaksLog(const QTemporaryDir& dir) {
    fs::path src;
    for (const auto& f : fs::directory_iterator(traces() / "graph_breaks/trace")) src = f.path();
    std::ifstream in(src, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string log = ss.str();
    const std::string key = R"({"compilation_metrics": {"compile_id": "2/0")";
    const size_t at = log.find(key);
    if (at == std::string::npos) return {};
    const std::string from = R"("fail_type": null, "fail_reason": null)";
    const size_t f = log.find(from, at);
    if (f == std::string::npos || f > log.find('\n', at)) return {};
    log.replace(f, from.size(),
                R"("fail_type": "BackendCompilerFailed", "fail_reason": "RuntimeError: Cannot view a tensor")");
    const fs::path path = fs::path(dir.path().toStdString()) / "failed.log";
    std::ofstream(path, std::ios::binary) << log;
    return path;
}

}  // namespace

class TestCompileTree : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fs::exists(traces() / "graph_breaks")) QSKIP("traces not found next to FXRAY_CORPUS_DIR");
    }

    // program.py: print() at line 5 and `if y.sum().item() > 0:` at line 6. The log's envelopes
    // hold compile ids 0/0, 0/0_1, 1/0, 1/0_1, 2/0; attempts 0/0 and 1/0 logged a
    // dynamo_graph_break_reason and no metrics (Dynamo restarted), 0/0_1 and 1/0_1 have
    // metrics whose restart_reasons is the break, 2/0 has metrics without one.
    void graphBreaks() {
        auto s = story("graph_breaks");
        QVERIFY(s);
        CompileTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setStory(s);
        const Shape sh = shapeOf(m);
        QCOMPARE(sh.frames.size(), 3);  // frame ids 0, 1, 2
        QCOMPARE(sh.attempts[0], QStringList({"0/0", "0/0_1"}));
        QCOMPARE(sh.attempts[1], QStringList({"1/0", "1/0_1"}));
        QCOMPARE(sh.attempts[2], QStringList({"2/0"}));
        QCOMPARE(sh.attemptStatus[0], QStringList({"restarted", "graph_break"}));
        QCOMPARE(sh.attemptStatus[1], QStringList({"restarted", "graph_break"}));
        QCOMPARE(sh.attemptStatus[2], QStringList({"ok"}));
        QCOMPARE(sh.frameStatus, QStringList({"graph_break", "graph_break", "ok"}));
        // The frames are named by co_name: f, then the resume functions Dynamo generated.
        QVERIFY(sh.frames[0].endsWith(QStringLiteral(" f")));
        QVERIFY(sh.frames[1].contains(QStringLiteral("torch_dynamo_resume_in_f_at_5")));
        QVERIFY(sh.frames[2].contains(QStringLiteral("torch_dynamo_resume_in_f_at_6")));
        // The "why" column: the break's first line and the user's line.
        const QModelIndex f0 = m.index(0, 0), f1 = m.index(1, 0);
        QCOMPARE(text(m, f0, 1, CompileTreeModel::SummaryColumn),
                 QStringLiteral("Failed to trace builtin operator — program.py:5"));
        QCOMPARE(text(m, f1, 1, CompileTreeModel::SummaryColumn),
                 QStringLiteral("Unsupported Tensor.item() call with capture_scalar_outputs=False — program.py:6"));
        // Status colours differ, so the tree reads at a glance.
        QVERIFY(m.index(0, 0).data(Qt::ForegroundRole).value<QColor>() !=
                m.index(2, 0).data(Qt::ForegroundRole).value<QColor>());
        // Stages of an attempt: the graphs it logged (0/0_1 compiled with Inductor).
        const QModelIndex a01 = m.index(1, 0, f0);
        QStringList stages;
        for (int r = 0; r < m.rowCount(a01); ++r) stages << text(m, a01, r, 0);
        QVERIFY(stages.contains(QStringLiteral("dynamo_output_graph")));
        QVERIFY(stages.contains(QStringLiteral("inductor_post_grad_graph")));

        // The pane's details: the user's source line as the traceback printed it.
        CompileStoryPanel panel(nullptr);
        panel.setStory(s);
        QCOMPARE(panel.currentCompile(), 1);  // opens on the first graph break
        const QString html = panel.details()->toPlainText();
        QVERIFY2(html.contains(QStringLiteral("print(\"side effect\")")), qPrintable(html));
        QVERIFY(html.contains(QStringLiteral("program.py:5")));
        QVERIFY(html.contains(QStringLiteral("12 guard")));  // guard_count of 0/0's metrics
        // Phase timings: entire_frame_compile_time_s of the metrics is 2.949858 s, the longest.
        QVERIFY(!panel.chart()->phases().empty());
        QCOMPARE(panel.chart()->phases().front().first, QStringLiteral("entire_frame_compile_time"));
        QVERIFY(qAbs(panel.chart()->phases().front().second - 2.949858) < 1e-6);
        panel.selectCompile(3);
        QVERIFY(panel.details()->toPlainText().contains(QStringLiteral("if y.sum().item() > 0:")));
        QVERIFY(!panel.minifyButton()->isEnabled());
    }

    // One frame compiled twice: 0/1's recompile_reasons artifact says the batch size changed.
    void recompiles() {
        auto s = story("recompiles");
        QVERIFY(s);
        CompileTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setStory(s);
        const Shape sh = shapeOf(m);
        QCOMPARE(sh.frames.size(), 1);
        QCOMPARE(sh.attempts[0], QStringList({"0/0", "0/1"}));
        QCOMPARE(sh.attemptStatus[0], QStringList({"ok", "ok"}));
        QCOMPARE(text(m, m.index(0, 0), 1, CompileTreeModel::SummaryColumn),
                 QStringLiteral("recompiled: 0/0: tensor 'args[0]' size mismatch at index 0. expected 8, actual 16"));
        CompileStoryPanel panel(nullptr);
        panel.setStory(s);
        panel.selectCompile(1);
        QVERIFY(panel.details()->toPlainText().contains(QStringLiteral("74 guard")));
    }

    /// Each of the four traces opened in the window: the story is the entry point (its dock
    /// shown, a compile chosen). With FXRAY_SHOT_DIR the window is saved as story_NAME.png.
    void windowShowsEveryTrace_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"graph_breaks", "recompiles", "inductor_provenance", "inductor_failure"})
            QTest::newRow(n) << n;
    }
    void windowShowsEveryTrace() {
        QFETCH(QString, name);
        MainWindow w;
        w.setQuiet(true);
        QVERIFY(w.openFile(QString::fromStdString((traces() / name.toStdString() / "trace").string())));
        QVERIFY(w.storyPanel()->waitForStory());
        QVERIFY(!w.storyDock()->isHidden());
        QVERIFY(w.storyPanel()->model()->rowCount() >= 1);
        QVERIFY(w.storyPanel()->currentCompile() >= 0);
        if (const QString dir = qEnvironmentVariable("FXRAY_SHOT_DIR"); !dir.isEmpty()) {
            w.resize(1600, 1000);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.storyDock()->setMinimumSize(620, 700);
            w.storyDock()->raise();
            QTest::qWait(300);
            w.grab().save(dir + QStringLiteral("/story_") + name + QStringLiteral(".png"));
        }
    }

    // One compile; provenance (cppCodeToPost) maps 5 kernels to post-grad nodes. Choosing the
    // layer-norm kernel selects its 7 nodes on the canvas's Document; selecting `addmm`
    // there selects extern_kernels.addmm in the list.
    void provenanceLinksKernelsAndNodes() {
        Document doc;
        QVERIFY2(doc.loadSync(QString::fromStdString((traces() / "inductor_provenance/trace").string())),
                 qPrintable(doc.lastError()));
        CompileStoryPanel panel(&doc);
        QVERIFY(panel.waitForStory());
        QVERIFY(panel.model()->story());
        QCOMPARE(panel.model()->rowCount(), 1);
        QCOMPARE(panel.model()->index(0, CompileTreeModel::StatusColumn).data().toString(), QStringLiteral("ok"));
        QCOMPARE(panel.currentCompile(), 0);
        QListWidget* k = panel.kernelList();
        int ln = -1, addmm = -1;
        for (int r = 0; r < k->count(); ++r) {
            if (k->item(r)->text().startsWith(QStringLiteral("triton_per_fused_native_layer_norm_0"))) ln = r;
            if (k->item(r)->text().startsWith(QStringLiteral("extern_kernels.addmm"))) addmm = r;
        }
        QVERIFY(ln >= 0 && addmm >= 0);
        k->item(ln)->setSelected(true);
        QStringList sel = doc.selection();
        std::set<QString> got(sel.begin(), sel.end());
        QCOMPARE(got, (std::set<QString>{"var_mean", "rsqrt", "add", "add_1", "mul_1", "mul", "sub"}));
        // The Document shows a graph of this compile that has those nodes.
        QVERIFY(doc.currentGraph());
        QCOMPARE(doc.currentGraph()->compileId, std::string("0/0"));
        QVERIFY(doc.currentGraph()->graph->find("var_mean"));
        k->clearSelection();
        doc.setSelection({QStringLiteral("addmm")}, nullptr);
        QVERIFY(k->item(addmm)->isSelected());
        QVERIFY(!k->item(ln)->isSelected());
    }

    // Inductor's output code beside the graph, linked both ways. Expected lines and nodes are
    // worked out from the log by tests/views/data/story_output_code_expect.py (not by fxray):
    // the forward output code has 302 lines; triton_poi_fused_gelu_view_1 is defined on lines
    // 120-167 (kernel-path comment to the closing quotes) and launched on 258-261 (source-nodes
    // comment to .run), its provenance nodes are add_2, erf, mul_2, mul_3, mul_4, view_1;
    // extern_kernels.addmm is called on 253-255 for node addmm; libdevice.erf is on line 162.
    void outputCodeBesideTheGraph() {
        Document doc;
        QVERIFY2(doc.loadSync(QString::fromStdString((traces() / "inductor_provenance/trace").string())),
                 qPrintable(doc.lastError()));
        CompileStoryPanel panel(&doc);
        QVERIFY(panel.waitForStory());
        panel.resize(900, 800);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        OutputCodeView* v = panel.outputCode();
        QCOMPARE(v->count(), 2);  // forward and backward
        panel.tabs()->setCurrentWidget(v);
        // The forward's post-grad graph on the canvas, erf selected there.
        int fwd = -1;
        for (size_t g = 0; g < doc.file()->graphs.size() && fwd < 0; ++g)
            if (doc.file()->graphs[g].compileId == "0/0" && doc.file()->graphs[g].stage == "inductor_post_grad_graph")
                fwd = int(g);
        QVERIFY(fwd >= 0);
        doc.setGraphIndex(fwd);
        doc.setSelection({QStringLiteral("erf")}, nullptr);
        QCOMPARE(v->currentCode(), 0);
        QCOMPARE(v->chooser()->currentText(), QStringLiteral("0_forward"));
        QPlainTextEdit* e = v->editor();
        QVERIFY2(e->blockCount() == 302 || (e->blockCount() == 303 && e->document()->lastBlock().text().isEmpty()),
                 qPrintable(QString::number(e->blockCount())));
        QList<int> want;
        for (int l = 120; l <= 167; ++l) want << l;
        for (int l = 258; l <= 261; ++l) want << l;
        QCOMPARE(v->highlightedLines(), want);
        QVERIFY(e->document()->findBlockByNumber(120).text().startsWith(QStringLiteral("# kernel path:")));
        // Scrolled to the kernel: its first line is in view.
        QVERIFY(
            e->viewport()->rect().contains(e->cursorRect(QTextCursor(e->document()->findBlockByNumber(120))).center()));
        // A click on a line of the kernel selects its nodes on the canvas (a post-grad graph).
        auto click = [&](int line) {
            QTextCursor c(e->document()->findBlockByNumber(line));
            e->setTextCursor(c);
            e->ensureCursorVisible();
            QTest::mouseClick(e->viewport(), Qt::LeftButton, {}, e->cursorRect(c).center());
            const QStringList sel = doc.selection();
            return std::set<QString>(sel.begin(), sel.end());
        };
        doc.setSelection({}, nullptr);
        QCOMPARE(click(162), (std::set<QString>{"add_2", "erf", "mul_2", "mul_3", "mul_4", "view_1"}));
        QCOMPARE(doc.graphIndex(), fwd);
        bool geluListed = false;
        for (QListWidgetItem* it : panel.kernelList()->selectedItems())
            geluListed = geluListed || it->text().startsWith(QStringLiteral("triton_poi_fused_gelu_view_1"));
        QVERIFY(geluListed);
        QCOMPARE(click(254), (std::set<QString>{"addmm"}));
        QCOMPARE(v->highlightedLines(), (QList<int>{253, 254, 255}));
        // A line outside every kernel selects nothing new.
        QCOMPARE(click(0), (std::set<QString>{"addmm"}));
        // The backward's code (line 46 of it defines triton_per_fused_sum_view_0, whose graph
        // fragment computes sum_1 and view_4) goes with the compile's second post-grad graph.
        v->chooser()->setCurrentIndex(1);
        v->showCode(1);
        QCOMPARE(v->chooser()->currentText(), QStringLiteral("0_backward"));
        QVERIFY(
            e->document()->findBlockByNumber(46).text().startsWith(QStringLiteral("triton_per_fused_sum_view_0 =")));
        QCOMPARE(click(46), (std::set<QString>{"sum_1", "view_4"}));
        QCOMPARE(doc.currentGraph()->stage, std::string("inductor_post_grad_graph"));
        QVERIFY(doc.graphIndex() > fwd);
        QVERIFY(doc.currentGraph()->graph->find("sum_1"));
        // With FXRAY_SHOT_DIR: the window as a user sees it, erf's kernel marked.
        if (const QString dir = qEnvironmentVariable("FXRAY_SHOT_DIR"); !dir.isEmpty()) {
            MainWindow w;
            w.setQuiet(true);
            QVERIFY(w.openFile(QString::fromStdString((traces() / "inductor_provenance/trace").string())));
            QVERIFY(w.storyPanel()->waitForStory());
            w.resize(1600, 1000);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            // The story column wide and tall enough to read the code beside the canvas.
            w.storyDock()->setMinimumSize(760, 820);
            w.storyDock()->raise();
            w.storyPanel()->tabs()->setCurrentWidget(w.storyPanel()->outputCode());
            w.document()->setGraphIndex(fwd);
            w.document()->setSelection({QStringLiteral("erf")}, nullptr);
            QTest::qWait(300);
            w.grab().save(dir + QStringLiteral("/story_output_code.png"));
        }
    }

    // The recorded gpt2 run did not fail in PyTorch 2.11: its compilation_metrics has
    // "fail_type": null and the program printed no "compile failed" line. One ok compile
    // with forward and backward Inductor kernels and 690 guards.
    void inductorFailureTrace() {
        auto s = story("inductor_failure");
        QVERIFY(s);
        CompileTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setStory(s);
        const Shape sh = shapeOf(m);
        QCOMPARE(sh.frames.size(), 1);
        QCOMPARE(sh.attempts[0], QStringList({"0/0"}));
        QCOMPARE(sh.attemptStatus[0], QStringList({"ok"}));
        QVERIFY(sh.frames[0].contains(QStringLiteral("wrapper")));  // co_name of the metrics
        CompileStoryPanel panel(nullptr);
        panel.setStory(s);
        QVERIFY(panel.details()->toPlainText().contains(QStringLiteral("690 guard")));
        QVERIFY(!panel.minifyButton()->isEnabled());
    }

    // A failure as PyTorch logs it (dynamo_error + fail_type): red, the exception and the
    // user's line in the details; Minify needs the failing graph, which this log lacks.
    void failedCompile() {
        const std::string ids = R"("frame_id": 0, "frame_compile_id": 0, "attempt": 0)";
        std::string log;
        log += record(R"({"str": ["/work/program.py", 0]})");
        log += record(
            R"J({"dynamo_start": {"stack": [{"line": 7, "name": "<module>", "filename": 0, "loc": "torch.compile(m)(x)"}]}, )J" +
            ids + "}");
        log += record(
            R"({"compilation_metrics": {"compile_id": "0/0", "co_name": "forward", "guard_count": null, )"
            R"J("fail_type": "BackendCompilerFailed", "fail_reason": "RuntimeError: Cannot view a tensor", )J"
            R"("fail_user_frame_filename": "/work/program.py", "fail_user_frame_lineno": 7, "restart_reasons": []}, )" +
            ids + "}");
        auto s = std::make_shared<const CompileStory>(compileStoryFromText(log, "failure.log"));
        CompileTreeModel m;
        m.setStory(s);
        QCOMPARE(m.index(0, CompileTreeModel::StatusColumn).data().toString(), QStringLiteral("failed"));
        QCOMPARE(m.index(0, 0).data(Qt::ForegroundRole).value<QColor>(),
                 CompileTreeModel::statusColor(CompileStatus::Failed));
        CompileStoryPanel panel(nullptr);
        panel.setStory(s);
        const QString t = panel.details()->toPlainText();
        QVERIFY2(t.contains(QStringLiteral("BackendCompilerFailed")), qPrintable(t));
        QVERIFY(t.contains(QStringLiteral("Cannot view a tensor")));
        QVERIFY(t.contains(QStringLiteral("/work/program.py:7")));
        QVERIFY(!panel.minifyButton()->isEnabled());
    }

    // The window opens a trace on its story: the pane is shown, filled, and its first graph break's
    // graph is the canvas's; Ctrl+Shift+Y is the pane's keyboard way in.
    void windowOpensOnTheStory() {
        MainWindow w;
        w.setQuiet(true);
        QVERIFY(w.openFile(QString::fromStdString((traces() / "graph_breaks/trace").string())));
        QVERIFY(w.storyPanel()->waitForStory());
        QVERIFY(!w.storyDock()->isHidden());
        QCOMPARE(w.storyPanel()->model()->rowCount(), 3);
        QCOMPARE(w.storyPanel()->currentCompile(), 1);
        QCOMPARE(w.document()->currentGraph()->compileId, std::string("0/0_1"));
        QCOMPARE(w.storyDock()->toggleViewAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Y));
        // Choosing a stage row shows that stage's graph.
        const QModelIndex attempt = w.storyPanel()->model()->indexOfCompile(4);  // 2/0
        int dyn = -1;
        for (int r = 0; r < w.storyPanel()->model()->rowCount(attempt); ++r)
            if (attempt.model()->index(r, 0, attempt).data().toString() == QLatin1String("dynamo_output_graph"))
                dyn = r;
        QVERIFY(dyn >= 0);
        w.storyPanel()->tree()->setCurrentIndex(attempt.model()->index(dyn, 0, attempt));
        QCOMPARE(w.document()->currentGraph()->compileId, std::string("2/0"));
        QCOMPARE(w.document()->currentGraph()->stage, std::string("dynamo_output_graph"));
    }

    // The graph_breaks log with 2/0's compilation_metrics saying it failed (fail_type and
    // fail_reason set, as a failing run logs them): the compile is red, the details name the
    // graph it failed on, and Minify asks for that compile with its graph current.
    void minifyAFailedCompile() {
        QTemporaryDir dir;
        const fs::path path = failedGraphBreaksLog(dir);
        QVERIFY(!path.empty());
        Document doc;
        QVERIFY2(doc.loadSync(QString::fromStdString(path.string())), qPrintable(doc.lastError()));
        CompileStoryPanel panel(&doc);
        QVERIFY(panel.waitForStory());
        QCOMPARE(panel.currentCompile(), 4);  // a failure comes first
        QCOMPARE(panel.model()->index(2, CompileTreeModel::StatusColumn).data().toString(), QStringLiteral("failed"));
        QVERIFY(doc.currentGraph());
        QCOMPARE(doc.currentGraph()->compileId, std::string("2/0"));
        const QString t = panel.details()->toPlainText();
        QVERIFY2(t.contains(QStringLiteral("Cannot view a tensor")), qPrintable(t));
        QVERIFY(t.contains(QStringLiteral("Failed on graph")));
        QVERIFY(t.contains(QString::fromStdString(doc.currentGraph()->stage)));
        QVERIFY(panel.minifyButton()->isEnabled());
        // With PyTorch (the fake interpreter of the CLI tests plays it), Minify asks for the
        // torch-compile check; without Python, it says so and asks for the Minifier alone.
        const QByteArray fake = QByteArray(FXRAY_TESTS_DIR) + "/app/data/fake_torch_python.sh";
        for (const QByteArray& python : {fake, QByteArray("/nonexistent/python3")}) {
            qputenv("FXRAY_PYTHON", python);
            QSignalSpy spy(&panel, &CompileStoryPanel::minifyRequested);
            panel.minifyButton()->click();
            QVERIFY(spy.wait(30000));
            QCOMPARE(spy.size(), 1);
            QCOMPARE(spy.front().at(0).toInt(), 4);
            const bool have = python == fake;
            QCOMPARE(spy.front().at(1).toString(), have ? QStringLiteral("torch-compile") : QString());
            const QString note = panel.minifyNote()->text();
            QVERIFY2(note.contains(have ? QStringLiteral("PyTorch 2.11.0+fake") : QStringLiteral("pip install torch")),
                     qPrintable(note));
            QVERIFY(panel.minifyButton()->isEnabled());
        }
        qunsetenv("FXRAY_PYTHON");
    }

    // The window's Minify on that failed compile, with "PyTorch" there (the fake interpreter of the
    // CLI tests, whose torch.compile fails on graphs that call aten.tanh): the Minifier pane runs
    // the torch-compile check on its JobLane and ends at tanh alone (its input, tanh, output).
    void minifyAgainstPyTorchInTheWindow() {
        QTemporaryDir dir;
        const fs::path path = failedGraphBreaksLog(dir);
        QVERIFY(!path.empty());
        qputenv("FXRAY_PYTHON", QByteArray(FXRAY_TESTS_DIR) + "/app/data/fake_torch_python.sh");
        qputenv("FAKE_TORCH_FAIL_OP", "aten.tanh.default");
        MainWindow w;
        w.setQuiet(true);
        QVERIFY(w.openFile(QString::fromStdString(path.string())));
        QVERIFY(w.storyPanel()->waitForStory());
        QCOMPARE(w.storyPanel()->currentCompile(), 4);
        auto* minifier = w.findChild<MinifierPanel*>();
        QVERIFY(minifier);
        QSignalSpy done(minifier, &MinifierPanel::finished);
        w.storyPanel()->minifyButton()->click();
        QVERIFY(done.wait(120000));
        qunsetenv("FXRAY_PYTHON");
        qunsetenv("FAKE_TORCH_FAIL_OP");
        QCOMPARE(minifier->checkBox()->currentData().toInt(), int(MinifierPanel::TorchCompile));
        QVERIFY(minifier->timeoutSpin()->value() >= 300.0);  // a cold torch.compile takes minutes
        const minify::MinifyResult* r = minifier->result();
        QVERIFY2(r && r->reproduced, qPrintable(minifier->statusLabel()->text()));
        QVERIFY2(r->signature.rfind("torch-compile:inductor:torch._inductor.exc.CppCompileError", 0) == 0,
                 r->signature.c_str());
        QCOMPARE(r->nodesAfter, size_t(3));
        QVERIFY(minifier->codeView()->toPlainText().contains(QStringLiteral("torch.ops.aten.tanh.default(")));
        QVERIFY(!minifier->isRunning());
    }

    // Garbage never crashes: no compiles, an empty tree.
    void garbage() {
        auto s = std::make_shared<const CompileStory>(
            compileStoryFromText("not a log\n\t{\"x\": 1\nV1125 06:01 x] {\"frame_id\": ", "bad.log"));
        CompileTreeModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setStory(s);
        QCOMPARE(m.rowCount(), 0);
        m.setStory(nullptr);
        QCOMPARE(m.rowCount(), 0);
    }
};

QTEST_MAIN(TestCompileTree)
#include "tst_compile_tree.moc"
