// Issue 18: a big graph's first view is readable at first sight. Each graph is opened the way the
// app opens a file (MainWindow::openFile at the default window size, no flags), the canvas area
// (the graph view's viewport, not the window) is rendered to an image, and the test fails when
// that image is blank or unreadable:
//  - painted: the fraction of pixels that differ from the canvas background;
//  - ink: the fraction of pixels in strong contrast with the background (text, borders, edges):
//    a light blob of cluster background alone has almost none;
//  - text scale: the on-screen height of node label text (the label font's pixel height times
//    the view's zoom) must reach the readable minimum of 8 px;
//  - something to read: several node or block boxes lie inside the visible area, the graph's
//    inputs among them, and its output is drawn (further down).
// Set FXRAY_SHOT_DIR to keep the rendered canvases as PNG files.
#include "test_util.h"

#include "canvas_measure.h"

#include "document.h"
#include "graph/graph_canvas.h"
#include "graph/graph_items.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "main_window.h"
#include "theme.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QFontInfo>
#include <QImage>
#include <QPainter>
#include <QSettings>

using namespace fxray::views;

static void initRes() { Q_INIT_RESOURCE(resources); }

namespace {

QString corpusPath(const QString& rel) {
    return QString::fromStdString((fxtest::corpus() / rel.toStdString()).string());
}

/// The smallest on-screen height of node label text that counts as readable (issue 18).
constexpr double kReadablePx = 8.0;

}  // namespace

class TestFirstView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        initRes();
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        // Tests must not read or write the user's settings; screenshots use the light theme.
        QCoreApplication::setOrganizationName(QStringLiteral("fxray-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_first_view"));
        QSettings().clear();
        applyTheme(Theme::Light);
    }

    void bigGraphOpensReadable_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("shot");
        QTest::newRow("gpt2_12 joint") << "gpt2_12/graphs/aot_joint_graph.py"
                                       << "gpt2_12_joint.png";
        QTest::newRow("bert joint") << "bert/graphs/aot_joint_graph.py"
                                    << "bert_joint.png";
    }

    void bigGraphOpensReadable() {
        QFETCH(QString, file);
        QFETCH(QString, shot);
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openFile(corpusPath(file)));
        GraphCanvas* canvas = w.canvas();
        QVERIFY(canvas->waitForLayout(120000));
        QCoreApplication::processEvents();
        GraphView* view = canvas->view();
        QWidget* area = view->viewport();
        QVERIFY(area->width() > 300 && area->height() > 200);

        const QImage img = fxtest::renderViewport(view);
        if (const QByteArray dir = qgetenv("FXRAY_SHOT_DIR"); !dir.isEmpty()) {
            QDir().mkpath(QString::fromLocal8Bit(dir));
            img.save(QDir(QString::fromLocal8Bit(dir)).filePath(shot));
        }
        const QRect minimap = view->minimap()->isVisible() ? view->minimap()->geometry() : QRect();
        const fxtest::CanvasMeasure m = fxtest::measureCanvas(img, canvas->scene()->backgroundBrush().color(), minimap);

        const double labelPx = QFontInfo(nodeLabelFont()).pixelSize();
        const double textPx = labelPx * view->zoom();

        // Boxes (nodes, or collapsed blocks) inside the visible area: there is something to read.
        const QRectF visible = view->mapToScene(area->rect()).boundingRect();
        int boxes = 0;
        for (int i = 0; i < canvas->scene()->nodeItemCount(); ++i) {
            NodeItem* n = canvas->scene()->nodeItem(i);
            if (n->isVisible() && visible.contains(n->sceneBoundingRect())) ++boxes;
        }
        for (ClusterItem* c : canvas->scene()->clusterItems())
            if (c->isVisible() && c->collapsed() && visible.intersects(c->box())) ++boxes;
        for (ClusterItem* c : canvas->scene()->stackItems())
            if (c->isVisible() && c->collapsed() && visible.intersects(c->box())) ++boxes;

        // The graph's inputs (as nodes, or bundles of inputs) are in view; its output is drawn.
        int inputsInView = 0;
        bool outputShown = false;
        for (int i = 0; i < canvas->scene()->nodeItemCount(); ++i) {
            NodeItem* n = canvas->scene()->nodeItem(i);
            if (!n->isVisible()) continue;
            if (n->node()->cls == NodeClass::Output) outputShown = true;
            if (n->node()->cls == NodeClass::Input && visible.intersects(n->sceneBoundingRect())) ++inputsInView;
        }
        for (NodeItem* b : canvas->scene()->bundleItems())
            if (b->isVisible() && visible.intersects(b->sceneBoundingRect())) ++inputsInView;
        QVERIFY(outputShown);
        QVERIFY(inputsInView >= 1);

        const QString report = QStringLiteral("%1: painted %2, ink %3, zoom %4, label text %5 px, %6 boxes in view")
                                   .arg(file)
                                   .arg(m.painted, 0, 'f', 3)
                                   .arg(m.ink, 0, 'f', 4)
                                   .arg(view->zoom(), 0, 'f', 3)
                                   .arg(textPx, 0, 'f', 1)
                                   .arg(boxes);
        qInfo("%s", qPrintable(report));
        QVERIFY2(m.painted > 0.08, qPrintable(report));
        QVERIFY2(m.ink > 0.004, qPrintable(report));
        QVERIFY2(textPx >= kReadablePx, qPrintable(report));
        QVERIFY2(boxes >= 3, qPrintable(report));
    }
};

QTEST_MAIN(TestFirstView)
#include "tst_first_view.moc"
