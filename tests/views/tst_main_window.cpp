// The main window opens a corpus graph and shows its code and nodes (offscreen).
#include "test_util.h"

#include "main_window.h"

#include <QApplication>
#include <QFile>

static void initRes() { Q_INIT_RESOURCE(resources); }

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void iconResourceIsLinked() {
        initRes();
        QVERIFY(QFile::exists(QStringLiteral(":/icons/fxray.svg")));
    }
    void opensAGraph() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        fxray::views::MainWindow w;
        QVERIFY(w.openFile(QString::fromStdString((fxtest::corpus() / "mlp/numerics/joint.py").string())));
        QVERIFY(w.codeText().contains("torch.ops.aten.threshold_backward.default"));
        QCOMPARE(w.listedNodeCount(), 29);
        QVERIFY(w.windowTitle().startsWith("joint.py"));
    }
    void badFileIsReportedNotFatal() {
        fxray::views::MainWindow w;
        QVERIFY(!w.openFile(QStringLiteral("/nonexistent/graph.py")));
        QVERIFY(w.codeText().isEmpty());
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
