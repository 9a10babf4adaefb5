// The Minifier panel docked by installPanels (offscreen): a 1.01 scale injected into
// aten.relu.default of mlp's joint graph is minified on the panel's worker while the UI keeps
// running — the corpus records PyTorch's minifier taking that graph from 29 to 4 nodes, and the
// panel must end at no more (relu alone: one input, relu, output = 3), keep the failure on relu,
// show the graph, export the repro folder and open the result; a run cancelled at once ends
// cleanly. Queries run in the fxray executable of this build tree (../../app/fxray).
#include "test_util.h"

#include "document.h"
#include "minify/minifier.h"
#include "minify/subprocess.h"
#include "panels/minifier_panel.h"
#include "panels/panels.h"

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QMainWindow>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTimer>

using namespace fxray;
using namespace fxray::views;

namespace {

QString corpusFile(const char* rel) { return QString::fromStdString((fxtest::corpus() / rel).string()); }

QJsonObject minifierAnchor(const char* model) {
    QFile f(QString::fromStdString((fxtest::corpus() / model / "summary.json").string()));
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("minifier")).toObject();
}

int count(const QString& text, const QString& what) { return int(text.count(what)); }

/// With FXRAY_SHOT_DIR set, saves a picture of the panel there (to look at it by eye).
void shoot(QWidget* w, const char* name) {
    const QString dir = qEnvironmentVariable("FXRAY_SHOT_DIR");
    if (dir.isEmpty()) return;
    w->resize(700, 700);
    w->grab().save(dir + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".png"));
}

struct Harness {
    Document doc;
    QMainWindow window;
    Panels panels;
    MinifierPanel* panel = nullptr;
    Harness() {
        panels = installPanels(&window, &doc);
        panel = panels.minifier ? qobject_cast<MinifierPanel*>(panels.minifier->widget()) : nullptr;
    }
    /// Loads mlp's joint graph and sets up the injected fault on relu.
    bool setUp(int jobs) {
        if (!panel || !doc.loadSync(corpusFile("mlp/graphs/aot_joint_graph.py"))) return false;
        panel->setExecutable(QString::fromStdString(minify::findFxrayExecutable().string()));
        panel->checkBox()->setCurrentIndex(panel->checkBox()->findData(int(MinifierPanel::InjectedFault)));
        const int op = panel->opBox()->findData(QStringLiteral("aten.relu.default"));
        if (op < 0) return false;
        panel->opBox()->setCurrentIndex(op);
        panel->scaleSpin()->setValue(1.01);
        panel->jobsSpin()->setValue(jobs);
        panel->timeoutSpin()->setValue(60);
        return true;
    }
};

}  // namespace

class TestMinifierPanel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        if (minify::findFxrayExecutable().empty())
            QSKIP("the fxray executable is not built in this build tree (ninja fxray); queries run in it");
    }

    void dockIsInstalled() {
        Harness h;
        QVERIFY(h.panels.minifier);
        QCOMPARE(h.panels.minifier->objectName(), QStringLiteral("dock.minifier"));
        QVERIFY(h.panels.docks().contains(h.panels.minifier));
        QVERIFY(h.panel);
        // Nothing to minify before a graph is open.
        QVERIFY(!h.panel->runButton()->isEnabled());
        QVERIFY(!h.panel->start());
        QVERIFY(!h.panel->statusLabel()->text().isEmpty());
        QVERIFY(!h.panel->exportButton()->isEnabled());
    }

    void injectedFaultOnReluShrinks() {
        const QJsonObject anchor = minifierAnchor("mlp");
        QVERIFY(!anchor.isEmpty());
        Harness h;
        QVERIFY(h.setUp(2));
        // The op chooser lists the graph's ops (mlp's joint graph has relu and threshold_backward).
        QVERIFY(h.panel->opBox()->findData(QStringLiteral("aten.threshold_backward.default")) >= 0);
        QSignalSpy done(h.panel, &MinifierPanel::finished);
        h.panel->runButton()->click();
        QVERIFY(h.panel->isRunning());
        QVERIFY(!h.panel->runButton()->isEnabled());
        QVERIFY(h.panel->cancelButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!h.panel->isRunning(), 120000);
        QCOMPARE(done.count(), 1);
        const minify::MinifyResult* r = h.panel->result();
        QVERIFY2(r, qPrintable(h.panel->statusLabel()->text()));
        QVERIFY(r->reproduced);
        QVERIFY(!r->cancelled);
        QCOMPARE(r->nodesBefore, size_t(anchor.value(QStringLiteral("nodes_before")).toInt()));
        QVERIFY(r->nodesAfter <= size_t(anchor.value(QStringLiteral("nodes_after")).toInt()));
        // Never slipping: the failure stays relu's.
        QCOMPARE(QString::fromStdString(r->signature),
                 QStringLiteral("accuracy:ref-vs-ref:mismatch@aten.relu.default"));
        // The panel reports it: "29 → N nodes", the final graph in its code view, the steps.
        const QString status = h.panel->statusLabel()->text();
        qInfo().noquote() << status;
        QVERIFY2(status.contains(QStringLiteral("29 → %1 nodes").arg(r->nodesAfter)), qPrintable(status));
        QCOMPARE(h.panel->shownNodes(), r->nodesAfter);
        const QString code = h.panel->codeView()->toPlainText();
        QCOMPARE(count(code, QStringLiteral("torch.ops.aten.relu.default(")), 1);
        QVERIFY(h.panel->stepsList()->count() > 0);
        QVERIFY(h.panel->exportButton()->isEnabled());
        QVERIFY(h.panel->openButton()->isEnabled());
        shoot(h.panel, "minifier");

        // Export: the repro folder.
        QTemporaryDir tmp;
        const QString out = tmp.filePath(QStringLiteral("repro"));
        QVERIFY(h.panel->exportTo(out));
        for (const char* f : {"minified.py", "repro.py", "session.json", "minified.fxray", "inputs/000.npy"})
            QVERIFY2(QFile::exists(out + QLatin1Char('/') + QLatin1String(f)), f);
        QFile repro(out + QStringLiteral("/repro.py"));
        QVERIFY(repro.open(QIODevice::ReadOnly));
        const QString reproText = QString::fromUtf8(repro.readAll());
        QVERIFY(reproText.contains(QStringLiteral("class Repro(torch.nn.Module):")));
        QVERIFY(reproText.contains(QStringLiteral("* 1.01  # injected fault")));
        QFile minified(out + QStringLiteral("/minified.py"));
        QVERIFY(minified.open(QIODevice::ReadOnly));
        QCOMPARE(count(QString::fromUtf8(minified.readAll()), QStringLiteral("torch.ops.aten.relu.default(")), 1);

        // Open result: the minimized graph becomes the Document's file.
        QSignalSpy loaded(&h.doc, &Document::fileChanged);
        QVERIFY(h.panel->openResult());
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() == 1, 20000);
        QVERIFY(h.doc.currentGraph());
        QCOMPARE(h.doc.currentGraph()->executable().nodes().size(), r->nodesAfter);
        // The op chooser follows the new graph.
        QVERIFY(h.panel->opBox()->findData(QStringLiteral("aten.relu.default")) >= 0);
        QVERIFY(h.panel->opBox()->findData(QStringLiteral("aten.threshold_backward.default")) < 0);
    }

    void cancelStopsCleanly() {
        Harness h;
        QVERIFY(h.setUp(1));
        // The UI thread keeps serving events while the minifier runs (a zero timer fires on every
        // pass of the event loop; the run's end is reported through that same loop).
        int ticksWhileRunning = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, this, [&] {
            if (h.panel->isRunning()) ++ticksWhileRunning;
        });
        timer.start(0);
        QVERIFY(h.panel->start());
        QVERIFY(h.panel->isRunning());
        QVERIFY(!h.panel->start());  // one run at a time
        // Cancelled before the first query can answer: the run must notice it.
        h.panel->cancelButton()->click();
        QVERIFY(!h.panel->cancelButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!h.panel->isRunning(), 60000);
        timer.stop();
        QVERIFY(ticksWhileRunning > 0);
        QVERIFY(h.panel->runButton()->isEnabled());
        // The first query (does the graph fail?) always finishes; the reducer stops after it.
        const minify::MinifyResult* r = h.panel->result();
        if (r) {
            QVERIFY(r->cancelled);
            QVERIFY(h.panel->statusLabel()->text().startsWith(QStringLiteral("Cancelled")));
        }
        qInfo().noquote() << h.panel->statusLabel()->text();
        QVERIFY(!h.panel->statusLabel()->text().isEmpty());
    }

    void destroyedWhileRunning() {
        // The panel's destructor cancels and waits: no crash, no thread left behind.
        auto* h = new Harness;
        QVERIFY(h->setUp(1));
        QVERIFY(h->panel->start());
        QTest::qWait(20);
        delete h;
    }
};

QTEST_MAIN(TestMinifierPanel)
#include "tst_minifier_panel.moc"
