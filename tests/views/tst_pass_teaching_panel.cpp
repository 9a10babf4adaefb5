// The timeline's teaching pane: selecting a pass shows its paragraph (what, why, the PyTorch
// file and function) and nothing of another pass; every pass of a real compile has one; the
// input graph (no pass) shows the hint instead.
#include "test_util.h"

#include "document.h"
#include "graph/graph_canvas.h"
#include "ir/graph.h"
#include "main_window.h"
#include "models/match_model.h"
#include "models/pass_timeline_model.h"
#include "panels/match_panel.h"
#include "panels/panels.h"
#include "panels/timeline_panel.h"
#include "pass/compile_trace.h"
#include "settings.h"
#include "transforms/pass_teaching.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QSplitter>
#include <QTableView>
#include <QTest>
#include <QTextBrowser>
#include <QTextTable>
#include <QTreeView>

using namespace fxray;
using namespace fxray::views;

static void initRes() { Q_INIT_RESOURCE(resources); }

namespace {

QString corpusFile(const char* rel) { return QString::fromStdString((fxtest::corpus() / rel).string()); }
QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

}  // namespace

class TestPassTeachingPanel : public QObject {
    Q_OBJECT
private slots:
    void selectedPassShowsItsParagraph() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Document doc;
        QMainWindow window;
        window.resize(1400, 900);
        const Panels panels = installPanels(&window, &doc);
        auto* t = qobject_cast<TimelinePanel*>(panels.timeline->widget());
        QVERIFY(t);
        QVERIFY(doc.loadSync(corpusFile("attention/graphs/aot_joint_graph.py")));
        QVERIFY(doc.compileSync(QStringLiteral("joint")));
        const auto& passes = doc.trace()->passes;
        QVERIFY(passes.size() >= 5);

        // No pass selected: the hint, not a paragraph.
        QCOMPARE(doc.passIndex(), -1);
        QVERIFY(!t->teaching()->toPlainText().contains(QStringLiteral("PyTorch:")));
        QVERIFY(!t->teaching()->toPlainText().isEmpty());

        int fuseRow = -1;
        for (int i = 0; i < int(passes.size()); ++i) {
            // Selecting the row (as a click does) moves the Document and the pane follows.
            t->view()->setCurrentIndex(t->view()->model()->index(i, 0));
            QCOMPARE(doc.passIndex(), i);
            const QString text = t->teaching()->toPlainText();
            const PassTeaching* p = passTeaching(passes[size_t(i)].name);
            QVERIFY2(p, passes[size_t(i)].name.c_str());
            QVERIFY2(text.contains(qs(p->what)), qPrintable(text));
            QVERIFY(text.contains(qs(p->why)));
            QVERIFY(text.contains(qs(p->pytorchFile)));
            QVERIFY(text.contains(qs(p->pytorchFunction)));
            if (passes[size_t(i)].name == "fuse_attention") fuseRow = i;
        }
        QVERIFY2(fuseRow >= 0, "the joint pipeline runs fuse_attention");

        // The pane shows the selected pass only: fuse_attention's file, not the one of the pass
        // selected next (the text changed rather than accumulating).
        t->view()->setCurrentIndex(t->view()->model()->index(fuseRow, 0));
        QVERIFY(t->teaching()->toPlainText().contains(QStringLiteral("torch/_inductor/fx_passes/fuse_attention.py")));
        QVERIFY(t->teaching()->toPlainText().contains(QStringLiteral("_sfdp_init")));
        const int other = fuseRow == 0 ? 1 : 0;
        t->view()->setCurrentIndex(t->view()->model()->index(other, 0));
        QVERIFY(!t->teaching()->toPlainText().contains(QStringLiteral("fuse_attention.py")));
        QVERIFY(!t->teaching()->toPlainText().contains(QStringLiteral("_sfdp_init")));

        // Beside the table in a wide pane, under it in a narrow one.
        auto* split = t->findChild<QSplitter*>(QStringLiteral("timeline.split"));
        QVERIFY(split);
        t->setParent(nullptr);
        t->resize(1000, 420);
        t->show();
        QVERIFY(QTest::qWaitForWindowExposed(t));
        QCOMPARE(split->orientation(), Qt::Horizontal);
        const QString dir = qEnvironmentVariable("FXRAY_SHOT_DIR");
        t->view()->setCurrentIndex(t->view()->model()->index(fuseRow, 0));
        if (!dir.isEmpty()) t->grab().save(dir + QStringLiteral("/teach_timeline.png"));
        t->resize(380, 700);
        QCoreApplication::processEvents();
        QCOMPARE(split->orientation(), Qt::Vertical);
        panels.timeline->setWidget(t);  // back where the window owns it
    }

    /// A match reads pattern → replacement: the matched nodes (with their ops in the graph
    /// before the pass) in the left column, the created ones (ops of the graph after) in the right.
    void matchShowsPatternBesideReplacement() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        initRes();
        QVERIFY(settings::installTranslator(QStringLiteral("en")));  // the English plural forms
        Document doc;
        MatchPanel m(&doc);
        QVERIFY(doc.loadSync(corpusFile("attention/graphs/aot_joint_graph.py")));
        QVERIFY(doc.compileSync(QStringLiteral("joint")));
        int fusePass = -1;
        for (size_t i = 0; i < doc.trace()->passes.size(); ++i)
            if (doc.trace()->passes[i].name == "fuse_attention") fusePass = int(i);
        QVERIFY(fusePass >= 0);
        const QModelIndex pattern = m.model()->index(0, 0, m.model()->indexOfPass(fusePass));
        const QModelIndex match = m.model()->index(0, 0, pattern);
        QCOMPARE(MatchModel::Kind(match.data(MatchModel::KindRole).toInt()), MatchModel::Kind::Match);
        const MatchRecord& rec = doc.trace()->passes[size_t(fusePass)].matches.front();
        m.view()->setCurrentIndex(match);

        QTextTable* table = nullptr;
        for (QTextFrame* f : m.detail()->document()->rootFrame()->childFrames())
            if ((table = qobject_cast<QTextTable*>(f))) break;
        QVERIFY2(table, qPrintable(m.detail()->toPlainText()));
        QCOMPARE(table->columns(), 3);
        QCOMPARE(table->rows(), 1 + int(std::max(rec.nodes.size(), rec.newNodes.size())));
        const auto text = [&](int r, int c) {
            QString out;
            const QTextTableCell cell = table->cellAt(r, c);
            for (auto it = cell.begin(); !it.atEnd(); ++it) out += it.currentBlock().text();
            return out;
        };
        QVERIFY(rec.nodes.size() > 1 && rec.newNodes.size() > 1);
        QCOMPARE(text(0, 0), QStringLiteral("Matched (%1 nodes)").arg(rec.nodes.size()));
        QCOMPARE(text(0, 2), QStringLiteral("Replacement (%1 nodes)").arg(rec.newNodes.size()));
        for (size_t r = 0; r < rec.nodes.size(); ++r) {
            const Node* n = doc.previousGraph()->find(rec.nodes[r]);
            QVERIFY(n);
            QVERIFY2(text(int(r) + 1, 0).contains(QString::fromStdString(rec.nodes[r])),
                     qPrintable(text(int(r) + 1, 0)));
            QVERIFY(text(int(r) + 1, 0).contains(QString::fromStdString(n->target())));
        }
        for (size_t r = 0; r < rec.newNodes.size(); ++r) {
            const Node* n = doc.shownGraph()->find(rec.newNodes[r]);
            QVERIFY(n);
            QVERIFY(text(int(r) + 1, 2).contains(QString::fromStdString(rec.newNodes[r])));
            QVERIFY(text(int(r) + 1, 2).contains(QString::fromStdString(n->target())));
        }
        // The fused attention is on the replacement side, the softmax it replaced on the pattern side.
        QString left, right;
        for (int r = 1; r < table->rows(); ++r) {
            left += text(r, 0);
            right += text(r, 2);
        }
        QVERIFY(left.contains(QStringLiteral("_softmax")) && !right.contains(QStringLiteral("_softmax")));
        QVERIFY(right.contains(QStringLiteral("scaled_dot_product")) &&
                !left.contains(QStringLiteral("scaled_dot_product")));
        const QString dir = qEnvironmentVariable("FXRAY_SHOT_DIR");
        if (!dir.isEmpty()) {
            m.resize(900, 560);
            m.grab().save(dir + QStringLiteral("/teach_match.png"));
        }
    }

    /// With FXRAY_SHOT_DIR: the whole window on the Learn tour at fuse_attention, in each
    /// language (teach_tour_<lang>.png), for a look by eye at where the explanation sits.
    void windowShot_data() {
        QTest::addColumn<QString>("lang");
        for (const char* l : {"en", "de", "zh_CN"}) QTest::newRow(l) << QString::fromLatin1(l);
    }
    void windowShot() {
        QFETCH(QString, lang);
        const QString dir = qEnvironmentVariable("FXRAY_SHOT_DIR");
        if (dir.isEmpty()) QSKIP("FXRAY_SHOT_DIR not set");
        initRes();
        QVERIFY(settings::installTranslator(lang));
        {
            MainWindow w;
            w.setQuiet(true);
            w.resize(1600, 1000);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(w.startTour());
            Document* doc = w.document();
            for (size_t i = 0; i < doc->trace()->passes.size(); ++i)
                if (doc->trace()->passes[i].name == "fuse_attention") doc->setPassIndex(int(i));
            if (auto* c = w.findChild<GraphCanvas*>()) QVERIFY(c->waitForLayout());
            QTest::qWait(100);
            w.grab().save(dir + QStringLiteral("/teach_tour_%1.png").arg(lang));
        }
        QVERIFY(settings::installTranslator(QStringLiteral("en")));
    }

    /// File → Learn: the bundled sample opens compiled at its first pass with the explanation
    /// beside the timeline, and the next-pass action steps the explanation along.
    void learnTourSteps() {
        MainWindow w;
        w.setQuiet(true);
        auto* learn = w.findChild<QAction*>(QStringLiteral("actionLearn"));
        QVERIFY(learn);
        learn->trigger();
        Document* doc = w.document();
        QVERIFY(doc->trace());
        QCOMPARE(QString::fromStdString(doc->trace()->pipeline), QStringLiteral("joint"));
        QCOMPARE(doc->passIndex(), 0);
        auto* t = w.findChild<TimelinePanel*>();
        QVERIFY(t);
        const auto& passes = doc->trace()->passes;
        QVERIFY(t->teaching()->toPlainText().contains(qs(passTeaching(passes[0].name)->what)));
        QVERIFY(w.statusText().contains(QStringLiteral("F8")));
        // The sample is the corpus's attention model: the tour reaches fuse_attention and it fires.
        auto* next = w.findChild<QAction*>(QStringLiteral("action.nextPass"));
        QVERIFY(next);
        bool fused = false;
        while (doc->passIndex() + 1 < int(passes.size())) {
            next->trigger();
            const PassRecord& p = passes[size_t(doc->passIndex())];
            QVERIFY(t->teaching()->toPlainText().contains(qs(passTeaching(p.name)->why)));
            fused = fused || (p.name == "fuse_attention" && p.changed);
        }
        QVERIFY(fused);
    }

    /// The tour in the three languages: its menu entry, note and the teaching headings are in
    /// the language chosen (the expected words are the catalogues' hand-written translations).
    void learnTourInEachLanguage_data() {
        QTest::addColumn<QString>("lang");
        QTest::addColumn<QString>("menu");
        QTest::addColumn<QString>("heading");
        QTest::newRow("en") << "en"
                            << "Lear&n: a Guided Compile"
                            << "What it does:";
        QTest::newRow("de") << "de"
                            << "&Lernen: eine geführte Kompilierung"
                            << "Was er tut:";
        QTest::newRow("zh_CN") << "zh_CN"
                               << "学习：引导式编译(&N)"
                               << "作用：";
    }
    void learnTourInEachLanguage() {
        QFETCH(QString, lang);
        QFETCH(QString, menu);
        QFETCH(QString, heading);
        initRes();
        QVERIFY(settings::installTranslator(lang));
        {
            MainWindow w;
            w.setQuiet(true);
            auto* learn = w.findChild<QAction*>(QStringLiteral("actionLearn"));
            QVERIFY(learn);
            QCOMPARE(learn->text(), menu);
            learn->trigger();
            QCOMPARE(w.document()->passIndex(), 0);
            QVERIFY(w.statusText().contains(QStringLiteral("F8")));
            auto* t = w.findChild<TimelinePanel*>();
            QVERIFY2(t->teaching()->toPlainText().contains(heading), qPrintable(t->teaching()->toPlainText()));
        }
        QVERIFY(settings::installTranslator(QStringLiteral("en")));
    }

    /// The headings are translated, the paragraph (engine text) stays English beside them.
    void headingsFollowTheLanguage() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        initRes();
        QVERIFY(settings::installTranslator(QStringLiteral("de")));
        Document doc;
        TimelinePanel t(&doc);
        QVERIFY(t.teaching()->toPlainText().contains(QStringLiteral("Wählen Sie einen Pass")));
        QVERIFY(doc.loadSync(corpusFile("attention/graphs/aot_joint_graph.py")));
        QVERIFY(doc.compileSync(QStringLiteral("joint")));
        doc.setPassIndex(0);
        const QString text = t.teaching()->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("Was er tut:")), qPrintable(text));
        QVERIFY(!text.contains(QStringLiteral("What it does:")));
        QVERIFY(text.contains(qs(passTeaching(doc.trace()->passes[0].name)->what)));
        QVERIFY(settings::installTranslator(QStringLiteral("en")));
    }
};

QTEST_MAIN(TestPassTeachingPanel)
#include "tst_pass_teaching_panel.moc"
