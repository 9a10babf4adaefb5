// Dynamic shapes in the GUI (issue 15), offscreen, on PyTorch's torch.compile(dynamic=True)
// graphs of ../shared/corpus_dynamic: the inspector and the canvas print symbolic sizes as
// PyTorch does ("f32[s33, 64]", "Sym(s33)", strides "[128*s27, 128, 1]"), never -1; SymInt
// inputs and sym_size/operator nodes are drawn as scalars. The numerics pane's size picker lists
// the graph's symbols, reads them off the recorded inputs (the sizes numerics.json records for
// each run), refuses negative and folder-inconsistent sizes with a sentence, and a comparison at
// s33=3 holds outputs of shape [3, 32] and says which binding it ran.
#include "test_util.h"

#include "document.h"
#include "graph/canvas_graph.h"
#include "graph/graph_canvas.h"
#include "ir/graph.h"
#include "models/kernel_report.h"
#include "models/node_inspector_model.h"
#include "models/numerics_model.h"
#include "panels/numerics_panel.h"
#include "panels/panels.h"
#include "panels/size_picker.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMainWindow>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>
#include <QTreeView>

using namespace fxray;
using namespace fxray::views;

static void initRes() { Q_INIT_RESOURCE(resources); }

namespace {

std::filesystem::path dynCorpus() { return fxtest::corpus().parent_path() / "corpus_dynamic"; }
bool haveDynCorpus() { return std::filesystem::exists(dynCorpus() / "mlp/numerics/forward.py"); }
QString dynFile(const char* rel) { return QString::fromStdString((dynCorpus() / rel).string()); }

/// The value of row `property` in the inspector's section `key`, or a null string.
QString inspectorValue(const NodeInspectorModel& m, const char* key, const char* property) {
    const QModelIndex s = m.section(QString::fromLatin1(key));
    for (int r = 0; r < m.rowCount(s); ++r)
        if (m.index(r, 0, s).data().toString() == QLatin1String(property)) return m.index(r, 1, s).data().toString();
    return {};
}

/// numerics.json's record of run `run` (forward, forward_2): the size PyTorch gave input `i`
/// in dimension `d` (a SymInt input's value when d < 0).
qint64 recordedSize(const char* model, const char* run, int i, int d) {
    QFile f(dynFile(model) + QStringLiteral("/numerics/numerics.json"));
    if (!f.open(QIODevice::ReadOnly)) return -1;
    const QJsonValue v = QJsonDocument::fromJson(f.readAll())
                             .object()[QStringLiteral("runs")]
                             .toObject()[QLatin1String(run)]
                             .toArray()[i];
    return d < 0 ? v.toInteger(-1) : v.toArray()[d].toInteger(-1);
}

/// With FXRAY_SHOT_DIR set, saves a picture of a widget there.
void shoot(QWidget* w, const char* name, QSize size) {
    const QString dir = qEnvironmentVariable("FXRAY_SHOT_DIR");
    if (dir.isEmpty()) return;
    w->resize(size);
    w->grab().save(dir + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".png"));
}

struct Harness {
    Document doc;
    QMainWindow window;
    GraphCanvas* canvas;
    Panels panels;
    Harness() : canvas(new GraphCanvas(&doc)) {
        window.resize(1400, 900);
        window.setCentralWidget(canvas);
        panels = installPanels(&window, &doc);
    }
    NumericsPanel* numerics() { return qobject_cast<NumericsPanel*>(panels.numerics->widget()); }
};

}  // namespace

class TestDynamicShapesGui : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { initRes(); }

    void inspectorShowsSymbolicSizes() {
        if (!haveDynCorpus()) QSKIP("corpus_dynamic not found");
        Document doc;
        QVERIFY(doc.loadSync(dynFile("mlp/numerics/forward.py")));
        const Graph* g = doc.shownGraph();
        NodeInspectorModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setNode(g, QStringLiteral("primals_4"), nullptr, -1);
        QCOMPARE(model.section(QStringLiteral("output")).siblingAtColumn(1).data().toString(),
                 QStringLiteral("f32[s33, 64][64, 1]cuda:0"));
        QCOMPARE(inspectorValue(model, "output", "shape"), QStringLiteral("[s33, 64]"));
        QCOMPARE(inspectorValue(model, "output", "symbols"), QStringLiteral("s33"));
        QVERIFY(inspectorValue(model, "output", "bytes").isNull());  // no number of bytes without a size
        // The SymInt input: its type and the expression it holds.
        model.setNode(g, QStringLiteral("primals_3"), nullptr, -1);
        QCOMPARE(model.section(QStringLiteral("output")).siblingAtColumn(1).data().toString(),
                 QStringLiteral("Sym(s33)"));
        QCOMPARE(inspectorValue(model, "output", "expression"), QStringLiteral("s33"));
        if (!qEnvironmentVariable("FXRAY_SHOT_DIR").isEmpty()) {
            model.setNode(g, QStringLiteral("primals_4"), nullptr, -1);
            QTreeView view;
            view.setModel(&model);
            view.expandAll();
            view.resize(560, 520);
            view.resizeColumnToContents(0);
            shoot(&view, "dyn_inspector_primals_4", {560, 520});
        }

        // Symbolic strides print as expressions too (gpt2's backward saves clone as
        // "f32[s23, s27, 128][128*s27, 128, 1]"), and a product of symbols stays one.
        QVERIFY(doc.loadSync(dynFile("gpt2/numerics/backward.py")));
        g = doc.shownGraph();
        model.setNode(g, QStringLiteral("clone"), nullptr, -1);
        QCOMPARE(inspectorValue(model, "output", "shape"), QStringLiteral("[s23, s27, 128]"));
        QCOMPARE(inspectorValue(model, "output", "strides"), QStringLiteral("[128*s27, 128, 1]"));
        QCOMPARE(inspectorValue(model, "output", "symbols"), QStringLiteral("s23, s27"));
        model.setNode(g, QStringLiteral("sym_size_int_8"), nullptr, -1);
        QCOMPARE(inspectorValue(model, "output", "expression"), QStringLiteral("s23*s27"));
    }

    void canvasLabelsAreSymbolic() {
        if (!haveDynCorpus()) QSKIP("corpus_dynamic not found");
        Document doc;
        QVERIFY(doc.loadSync(dynFile("mlp/numerics/forward.py")));
        CanvasGraph cg = buildCanvasGraph(*doc.shownGraph());
        const CanvasNode& p4 = cg.nodes[static_cast<size_t>(cg.indexOf(QStringLiteral("primals_4")))];
        QCOMPARE(p4.type, QStringLiteral("f32[s33, 64]"));
        QVERIFY(!p4.scalar);
        const CanvasNode& p3 = cg.nodes[static_cast<size_t>(cg.indexOf(QStringLiteral("primals_3")))];
        QCOMPARE(p3.type, QStringLiteral("Sym(s33)"));
        QVERIFY(p3.scalar);
        QCOMPARE(p3.cls, NodeClass::Input);
        QCOMPARE(cg.nodes[static_cast<size_t>(cg.indexOf(QStringLiteral("addmm_1")))].type,
                 QStringLiteral("f32[s33, 32]"));

        // gpt2's forward computes sizes: aten.sym_size.int and operator.mul are scalar nodes.
        QVERIFY(doc.loadSync(dynFile("gpt2/numerics/forward.py")));
        const Graph* g = doc.shownGraph();
        cg = buildCanvasGraph(*g);
        int symSize = 0, arith = 0;
        for (const auto& n : g->nodes()) {
            const CanvasNode& cn = cg.nodes[static_cast<size_t>(cg.indexOf(QString::fromStdString(n->name())))];
            if (n->opName() == "aten.sym_size.int") {
                ++symSize;
                QCOMPARE(cn.cls, NodeClass::Scalar);
                QVERIFY2(cn.type.startsWith(QStringLiteral("Sym(")), qPrintable(cn.type));
            }
            if (n->target().rfind("operator.", 0) == 0 && n->target() != "operator.getitem") {
                ++arith;
                QCOMPARE(cn.cls, NodeClass::Scalar);
            }
            // Tensor nodes are not scalars.
            if (!n->meta.empty()) QVERIFY2(!cn.scalar, qPrintable(cn.name));
        }
        QVERIFY(symSize > 0);
        QVERIFY(arith > 0);
        // split is unannotated and its symbolic sizes are beyond inference: its getitems say
        // what PyTorch printed for each element.
        QCOMPARE(cg.nodes[static_cast<size_t>(cg.indexOf(QStringLiteral("split")))].type,
                 QStringLiteral("(f32[s23, s27, 128], f32[s23, s27, 128], f32[s23, s27, 128])"));

        // No label of any dynamic graph shows a -1 size.
        for (const char* model : {"mlp", "attention", "ln_gelu", "gpt2", "checkpointed", "resnet18"})
            for (const char* file : {"forward.py", "backward.py", "dynamo.py"}) {
                const QString path = dynFile(model) + QStringLiteral("/numerics/") + QLatin1String(file);
                if (!QFile::exists(path)) continue;
                QVERIFY2(doc.loadSync(path), qPrintable(path + QStringLiteral(": ") + doc.lastError()));
                for (const CanvasNode& n : buildCanvasGraph(*doc.shownGraph()).nodes)
                    QVERIFY2(!n.type.contains(QStringLiteral("-1")),
                             qPrintable(path + QLatin1Char(' ') + n.name + QLatin1Char(' ') + n.type));
            }
    }

    void sizePickerListsAndChecksSymbols() {
        if (!haveDynCorpus()) QSKIP("corpus_dynamic not found");
        Harness h;
        h.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&h.window));
        NumericsPanel* p = h.numerics();
        SizePicker* sizes = p->sizePicker();
        // A static graph has no sizes to pick.
        if (fxtest::haveCorpus()) {
            QVERIFY(h.doc.loadSync(QString::fromStdString((fxtest::corpus() / "mlp/numerics/forward.py").string())));
            QVERIFY(sizes->isHidden());
            QVERIFY(sizes->symbols().isEmpty());
        }
        QVERIFY(h.doc.loadSync(dynFile("mlp/numerics/forward.py")));
        QVERIFY(!sizes->isHidden());
        QCOMPARE(sizes->symbols(), QStringList{QStringLiteral("s33")});
        QSpinBox* s33 = sizes->spinBox(QStringLiteral("s33"));
        QVERIFY(s33);
        QCOMPARE(s33->objectName(), QStringLiteral("numerics.size.s33"));

        // The recorded run comes first, and its files say s33 (numerics.json: input 3's size).
        QComboBox* source = p->sourceBox();
        QVERIFY(p->inputsDir().endsWith(QStringLiteral("forward/inputs")));
        QVERIFY(sizes->pinned());
        QCOMPARE(qint64(s33->value()), recordedSize("mlp", "forward", 3, 0));
        QCOMPARE(qint64(s33->value()), recordedSize("mlp", "forward", 2, -1));
        QVERIFY(p->problem().isEmpty());
        // The second recorded run, at another size.
        int second = -1;
        for (int i = 0; i < source->count(); ++i)
            if (source->itemData(i).toString().endsWith(QStringLiteral("mlp/numerics/forward_2/inputs"))) second = i;
        QVERIFY(second >= 0);
        QCOMPARE(source->itemText(second), QStringLiteral("recorded: forward_2/inputs"));
        source->setCurrentIndex(second);
        Q_EMIT source->activated(second);
        QCOMPARE(qint64(s33->value()), recordedSize("mlp", "forward_2", 3, 0));
        QVERIFY(recordedSize("mlp", "forward_2", 3, 0) != recordedSize("mlp", "forward", 3, 0));
        {
            const QStringList args = p->compareArguments();
            QVERIFY(args.at(args.indexOf(QStringLiteral("--inputs")) + 1).endsWith(QStringLiteral("forward_2/inputs")));
            QVERIFY(!args.contains(QStringLiteral("--sizes")));
        }
        // Another size than the folder's is refused with the folder's value.
        s33->setValue(5);
        QVERIFY2(p->problem().contains(QStringLiteral("inputs folder")), qPrintable(p->problem()));
        QVERIFY(p->problem().contains(QString::number(recordedSize("mlp", "forward_2", 3, 0))));
        QVERIFY(!p->runButton()->isEnabled());
        QVERIFY(!p->run());
        QCOMPARE(p->statusLabel()->text(), p->problem());
        QVERIFY(!sizes->findChild<QLabel*>(QStringLiteral("numerics.sizesMessage"))->text().isEmpty());

        // Random inputs take any size; the child gets --sizes.
        p->setInputsDir({});
        QVERIFY(p->inputsDir().isEmpty());
        QVERIFY(!sizes->pinned());
        QVERIFY(p->problem().isEmpty());
        QVERIFY(p->runButton()->isEnabled() || p->executable().isEmpty());
        QVERIFY(!p->seedBox()->isHidden());
        const QStringList args = p->compareArguments();
        QCOMPARE(args.at(args.indexOf(QStringLiteral("--sizes")) + 1), QStringLiteral("s33=5"));
        // Keyboard: the spin box steps with the arrow keys.
        s33->setFocus();
        QTest::keyClick(s33, Qt::Key_Up);
        QCOMPARE(s33->value(), 6);
        // A negative size is refused, saying so; nothing starts.
        s33->setValue(-2);
        QVERIFY2(p->problem().contains(QStringLiteral("negative")), qPrintable(p->problem()));
        QVERIFY(!p->runButton()->isEnabled());
        QVERIFY(!p->run());
        QVERIFY(!p->running());
        // A folder that does not fit the graph (the static mlp's inputs: no SymInt) is refused too.
        if (fxtest::haveCorpus()) {
            s33->setValue(4);
            p->setInputsDir(QString::fromStdString((fxtest::corpus() / "mlp/numerics/forward/inputs").string()));
            QVERIFY2(!p->problem().isEmpty(), "a static graph's inputs bound a dynamic graph");
            QVERIFY(!p->runButton()->isEnabled());
        }
    }

    void runsAtChosenSizes() {
        if (!haveDynCorpus()) QSKIP("corpus_dynamic not found");
        Harness h;
        NumericsPanel* p = h.numerics();
        if (p->executable().isEmpty()) QSKIP("fxray executable not built beside the tests");
        if (!kernelReportHasCpuBackend()) QSKIP("built without the CPU backend (LLVM): compare has no 'cpu'");
        QVERIFY(h.doc.loadSync(dynFile("mlp/numerics/forward.py")));
        p->setInputsDir({});
        p->sizePicker()->spinBox(QStringLiteral("s33"))->setValue(3);
        QVERIFY(p->run());
        QVERIFY(p->waitForRun(120000));
        const NumericsReport* r = p->model()->report();
        QVERIFY2(r, qPrintable(p->statusLabel()->text()));
        QVERIFY(!r->outputShapes.empty());
        QVERIFY(r->outputShapes[0].has_value());
        QCOMPARE(*r->outputShapes[0], (std::vector<qint64>{3, 32}));
        QCOMPARE(r->bindingText(), QStringLiteral("s33=3"));
        // The result says which binding it holds for, and the output's shape.
        QVERIFY2(p->summaryLabel()->text().contains(QStringLiteral("s33=3")), qPrintable(p->summaryLabel()->text()));
        QVERIFY2(p->summaryLabel()->text().contains(QStringLiteral("[3, 32]")), qPrintable(p->summaryLabel()->text()));
        for (const auto& o : r->outputs) QVERIFY2(o.ok, qPrintable(QString::number(o.relErr)));
        shoot(p, "dyn_numerics_pane", {1100, 420});
        shoot(&h.window, "dyn_window", {1400, 900});
        // The canvas (primals_3, the SymInt input, is a pill) and the inspector on primals_4.
        h.doc.setSelection({QStringLiteral("primals_4")});
        QVERIFY(h.canvas->waitForLayout());
        if (const QString dir = qEnvironmentVariable("FXRAY_SHOT_DIR"); !dir.isEmpty()) {
            h.canvas->setMode(GraphCanvas::Mode::Category);
            QVERIFY(h.canvas->exportTo(dir + QStringLiteral("/dyn_canvas_mlp.png")));
            // gpt2's forward: sym_size and operator.mul nodes among the tensors.
            QVERIFY(h.doc.loadSync(dynFile("gpt2/numerics/forward.py")));
            QVERIFY(h.canvas->waitForLayout());
            QVERIFY(h.canvas->exportTo(dir + QStringLiteral("/dyn_canvas_gpt2.png")));
            QVERIFY(h.doc.loadSync(dynFile("mlp/numerics/forward.py")));
            h.doc.setSelection({QStringLiteral("primals_4")});
        }
    }
};

QTEST_MAIN(TestDynamicShapesGui)
#include "tst_dynamic_shapes_gui.moc"
