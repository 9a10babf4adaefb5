// The sweep pane: an `fxray sweep` results folder opened in the main window shows every graph's
// result in a table that sorts numbers as numbers, filters to failures or by text, sums the
// statuses, and hands an activated row's graph and failure to the window (which opens it).
#include "test_util.h"

#include "document.h"
#include "main_window.h"
#include "models/sweep_results_model.h"
#include "panels/sweep_panel.h"
#include "sweep/sweep.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>

using namespace fxray;
using namespace fxray::views;
using nlohmann::json;

static void initRes() { Q_INIT_RESOURCE(resources); }

namespace {

/// A results folder as `fxray sweep` writes it: four graphs with different outcomes.
void writeFolder(const QString& dir) {
    const std::string mlp = (fxtest::corpus() / "mlp" / "numerics" / "forward.py").string();
    const std::vector<json> rs = {
        {{"id", "corpus/mlp/numerics/forward"},
         {"file", mlp},
         {"check", "run"},
         {"status", "ok"},
         {"seconds", 0.25},
         {"worker", 0},
         {"max_rel_err", 1e-7}},
        {{"id", "opinfo/acos/forward"},
         {"file", "/x/acos.py"},
         {"check", "run"},
         {"status", "unsupported"},
         {"seconds", 0.5},
         {"worker", 1},
         {"message", "cannot execute: unknown op(s) aten.acos.default"}},
        {{"id", "opinfo/sum/forward"},
         {"file", "/x/sum.py"},
         {"check", "run"},
         {"status", "differ"},
         {"seconds", 10.0},
         {"worker", 0},
         {"max_rel_err", 0.3},
         {"message", "output 0 rel_err 0.3"}},
        {{"id", "opinfo/conv/backward"},
         {"file", "/x/conv.py"},
         {"check", "run"},
         {"status", "crash"},
         {"seconds", 2.0},
         {"worker", 1},
         {"gpu", "1"},
         {"message", "signal 11 (SIGSEGV)"}},
    };
    for (const auto& r : rs) QVERIFY(sweep::writeResult(dir.toStdString(), r).ok());
}

}  // namespace

class TestSweepPanel : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { initRes(); }

    void folderIsRecognised() {
        QTemporaryDir tmp;
        QVERIFY(!SweepResultsModel::isResultsFolder(tmp.path()));
        writeFolder(tmp.path());
        QVERIFY(SweepResultsModel::isResultsFolder(tmp.path()));
        QVERIFY(!SweepResultsModel::isResultsFolder(QString::fromStdString(fxtest::corpus().string())));
    }

    void tableSortsFiltersAndSums() {
        QTemporaryDir tmp;
        writeFolder(tmp.path());
        SweepPanel panel;
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(panel.loadFolder(tmp.path()));
        QCOMPARE(panel.proxy()->rowCount(), 4);
        QVERIFY2(panel.summaryLabel()->text().contains("1 ok, 1 differ, 1 unsupported, 0 errors, 1 crashes"),
                 qPrintable(panel.summaryLabel()->text()));
        // Seconds sort as numbers: 10.0 is the largest, though "10.000" < "2.000" as text.
        panel.proxy()->sort(SweepResultsModel::Seconds, Qt::DescendingOrder);
        QCOMPARE(panel.proxy()->index(0, SweepResultsModel::Graph).data().toString(), QString("opinfo/sum/forward"));
        panel.failuresOnlyBox()->setChecked(true);
        QCOMPARE(panel.proxy()->rowCount(), 3);
        panel.filterEdit()->setText("unknown op");
        QCOMPARE(panel.proxy()->rowCount(), 1);
        QCOMPARE(panel.proxy()->index(0, SweepResultsModel::Status).data().toString(), QString("unsupported"));
        panel.filterEdit()->clear();
        panel.failuresOnlyBox()->setChecked(false);
        QCOMPARE(panel.proxy()->rowCount(), 4);
        // The GPU worker is shown with its device.
        bool sawGpu = false;
        for (int r = 0; r < 4; ++r)
            sawGpu |= panel.proxy()->index(r, SweepResultsModel::Worker).data().toString() == "1 (GPU 1)";
        QVERIFY(sawGpu);
    }

    void activatingARowNamesItsGraphAndFailure() {
        QTemporaryDir tmp;
        writeFolder(tmp.path());
        SweepPanel panel;
        QVERIFY(panel.loadFolder(tmp.path()));
        QSignalSpy spy(&panel, &SweepPanel::graphActivated);
        panel.filterEdit()->setText("sum");
        QCOMPARE(panel.proxy()->rowCount(), 1);
        Q_EMIT panel.view()->activated(panel.proxy()->index(0, 0));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy[0][0].toString(), QString("/x/sum.py"));
        QCOMPARE(spy[0][1].toString(), QString("differ"));
        QCOMPARE(spy[0][2].toString(), QString("output 0 rel_err 0.3"));
    }

    void emptyFolderSaysSo() {
        QTemporaryDir tmp;
        SweepPanel panel;
        QVERIFY(!panel.loadFolder(tmp.path()));
        QVERIFY(panel.summaryLabel()->text().contains("no sweep results"));
    }

    void mainWindowOpensResultsInThePane() {
        QTemporaryDir tmp;
        writeFolder(tmp.path());
        MainWindow w;
        w.setQuiet(true);
        w.show();
        QVERIFY(w.sweepDock()->isHidden() || !w.sweepDock()->isVisible());
        QVERIFY(w.openFile(tmp.path()));
        QVERIFY(w.sweepDock()->isVisible());
        QCOMPARE(w.sweepPanel()->model()->rowCount(), 4);
        QVERIFY(w.statusText().contains("double-click"));
        // The ok row's graph opens in the window.
        w.sweepPanel()->filterEdit()->setText("mlp");
        Q_EMIT w.sweepPanel()->view()->activated(w.sweepPanel()->proxy()->index(0, 0));
        QTRY_VERIFY_WITH_TIMEOUT(w.document()->file() != nullptr, 20000);
    }
};

QTEST_MAIN(TestSweepPanel)
#include "tst_sweep_panel.moc"
