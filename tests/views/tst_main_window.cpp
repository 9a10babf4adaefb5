// The main window: opens files of each kind through its Document, lists the graphs of a trace
// in the compile picker, reports bad files in the status bar, keeps stable object names on
// its docks and actions, and switches themes.
#include "test_util.h"

#include "compile_picker.h"
#include "document.h"
#include "graph/canvas_colors.h"
#include "graph/graph_canvas.h"
#include "main_window.h"
#include "theme.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTreeWidget>

using namespace fxray::views;

static void initRes() { Q_INIT_RESOURCE(resources); }

namespace {
QString corpusPath(const char* rel) { return QString::fromStdString((fxtest::corpus() / rel).string()); }
}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        initRes();
        // Tests must not read or write the user's settings.
        QCoreApplication::setOrganizationName(QStringLiteral("fxray-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_main_window"));
        QSettings().clear();
    }
    void resourcesAreLinked() {
        QVERIFY(QFile::exists(QStringLiteral(":/icons/fxray.svg")));
        QVERIFY(QFile::exists(QStringLiteral(":/layout/default_layout.json")));
    }
    void opensAGraph() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        MainWindow w;
        QVERIFY(w.openFile(corpusPath("mlp/numerics/joint.py")));
        QVERIFY(w.canvas()->waitForLayout());
        // mlp's joint graph as PyTorch recorded it: 29 nodes.
        QCOMPARE(w.canvas()->scene()->nodeItemCount(), 29);
        QVERIFY(w.windowTitle().startsWith("joint.py"));
        QVERIFY(w.statusText().contains("joint.py"));
    }
    void traceOpensThePicker() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        MainWindow w;
        QVERIFY(w.openFile(corpusPath("mlp/trace")));
        Document* doc = w.document();
        QVERIFY(doc->graphCount() > 1);
        QCOMPARE(w.picker()->graphEntryCount(), doc->graphCount());
        QVERIFY(!w.pickerDock()->isHidden());
        // Choosing another graph in the tree makes it current and redraws the canvas.
        QTreeWidget* tree = w.picker()->tree();
        QTreeWidgetItem* other = nullptr;
        for (QTreeWidgetItemIterator it(tree); *it; ++it) {
            const QVariant v = (*it)->data(0, Qt::UserRole + 1);
            if (v.isValid() && v.toInt() != doc->graphIndex()) {
                other = *it;
                break;
            }
        }
        QVERIFY(other);
        const int want = other->data(0, Qt::UserRole + 1).toInt();
        tree->setCurrentItem(other);
        QCOMPARE(doc->graphIndex(), want);
        QVERIFY(w.canvas()->waitForLayout());
        QCOMPARE(w.canvas()->scene()->nodeItemCount(), static_cast<int>(doc->shownGraph()->size()));
    }
    void asyncOpenReportsBusy() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        MainWindow w;
        QSignalSpy busy(w.document(), &Document::busy);
        QSignalSpy opened(w.document(), &Document::fileChanged);
        w.openFileAsync(corpusPath("mlp/graphs/aot_joint_graph.py"));
        QVERIFY(opened.wait(20000));
        QVERIFY(busy.count() >= 2);
        QVERIFY(busy.first().first().toString().startsWith("Loading"));
        bool ended = false;
        for (const auto& args : busy) ended |= args.first().toString().isEmpty();
        QVERIFY(ended);
        QVERIFY(w.canvas()->waitForLayout());
        QVERIFY(QSettings().value("recentFiles").toStringList().contains(corpusPath("mlp/graphs/aot_joint_graph.py")));
    }
    void cancelDropsTheResult() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        MainWindow w;
        w.openFileAsync(corpusPath("gpt2/graphs/aot_joint_graph.py"));
        w.cancelWork();
        QTest::qWait(1500);
        QCoreApplication::processEvents();
        QVERIFY(!w.document()->file());
        QCOMPARE(w.statusText(), QStringLiteral("Cancelled"));
    }
    void badFileIsReportedNotFatal() {
        MainWindow w;
        QVERIFY(!w.openFile(QStringLiteral("/nonexistent/graph.py")));
        QVERIFY(w.statusText().contains("graph.py"));
        QVERIFY(!w.document()->file());
    }
    void stableObjectNames() {
        MainWindow w;
        QSet<QString> names;
        const auto docks = w.findChildren<QDockWidget*>();
        QVERIFY(!docks.isEmpty());
        for (QDockWidget* d : docks) {
            QVERIFY2(!d->objectName().isEmpty(), qPrintable(d->windowTitle()));
            QVERIFY2(!names.contains(d->objectName()), qPrintable(d->objectName()));
            names.insert(d->objectName());
        }
        QVERIFY(names.contains("dock.compiles"));
        // Every action with a shortcut has a name (menus, shortcut help, saved state).
        for (QAction* a : w.findChildren<QAction*>())
            if (!a->shortcut().isEmpty())
                QVERIFY2(!a->objectName().isEmpty(), qPrintable(a->text() + " " + a->shortcut().toString() + " " +
                                                                a->parent()->metaObject()->className()));
        // Frequent things have keys.
        QCOMPARE(w.canvas()->fitAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_0));
        QCOMPARE(w.canvas()->findAction()->shortcut(), QKeySequence(QKeySequence::Find));
        QCOMPARE(w.canvas()->findNextAction()->shortcut(), QKeySequence(Qt::Key_F3));
    }
    void stateSurvivesRestart() {
        {
            MainWindow w;
            w.show();
            w.pickerDock()->hide();
            w.close();
        }
        MainWindow again;
        QVERIFY(again.pickerDock()->isHidden());
        again.applyDefaultLayout();
        QVERIFY(!again.pickerDock()->isHidden());
        QSettings().clear();
    }
    void themesSwitch() {
        MainWindow w;
        w.setTheme(Theme::Dark);
        QVERIFY(canvas_colors::darkPalette());
        QVERIFY(w.canvas()->scene()->dark());
        QCOMPARE(w.canvas()->scene()->backgroundBrush().color(), canvas_colors::background(true));
        w.setTheme(Theme::Light);
        QVERIFY(!canvas_colors::darkPalette());
        QVERIFY(!w.canvas()->scene()->dark());
        QCOMPARE(QSettings().value("ui/theme").toString(), QStringLiteral("light"));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
