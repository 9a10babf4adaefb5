// The item models and helpers behind the panels, checked without widgets: the line diff against
// hand-made texts and an independent LCS, each model under QAbstractItemModelTester with a real
// compile trace, the FX line index against the printed text.
#include "test_util.h"

#include "document.h"
#include "ir/printer.h"
#include "models/changed_pass_filter.h"
#include "models/fx_line_index.h"
#include "models/kernel_artifact_model.h"
#include "models/match_model.h"
#include "models/node_inspector_model.h"
#include "models/pass_timeline_model.h"
#include "models/pytorch_partition.h"
#include "models/saved_tensor_model.h"
#include "models/string_table_model.h"
#include "models/text_diff.h"
#include "models/text_diff_model.h"
#include "partition/partitioner.h"
#include "pass/compile_trace.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QBrush>
#include <QFont>
#include <QRandomGenerator>

using namespace fxray;
using namespace fxray::views;

namespace {

std::vector<std::string> chars(const char* s) {
    std::vector<std::string> out;
    for (; *s; ++s) out.emplace_back(1, *s);
    return out;
}

/// Longest common subsequence length by the textbook DP (independent of Myers).
size_t lcs(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::vector<size_t>> t(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j)
            t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    return t[a.size()][b.size()];
}

/// The script is a valid edit of a into b: Same lines are equal, every line of each side
/// appears once, in order.
bool validScript(const std::vector<DiffLine>& s, const std::vector<std::string>& a, const std::vector<std::string>& b) {
    int nextA = 0, nextB = 0;
    for (const DiffLine& d : s) {
        if (d.kind != DiffLine::Kind::Added) {
            if (d.left != nextA++) return false;
        }
        if (d.kind != DiffLine::Kind::Removed) {
            if (d.right != nextB++) return false;
        }
        if (d.kind == DiffLine::Kind::Same && a[static_cast<size_t>(d.left)] != b[static_cast<size_t>(d.right)])
            return false;
    }
    return nextA == static_cast<int>(a.size()) && nextB == static_cast<int>(b.size());
}

QString corpusFile(const char* rel) { return QString::fromStdString((fxtest::corpus() / rel).string()); }

}  // namespace

class TestPanelsModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void diffHandMade_data() {
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        QTest::addColumn<int>("added");
        QTest::addColumn<int>("removed");
        QTest::newRow("same") << "a\nb\nc\n"
                              << "a\nb\nc\n"
                              << 0 << 0;
        QTest::newRow("one changed") << "a\nb\nc\n"
                                     << "a\nx\nc\n"
                                     << 1 << 1;
        QTest::newRow("from empty") << ""
                                    << "a\nb\nc\n"
                                    << 3 << 0;
        QTest::newRow("to empty") << "a\nb\n"
                                  << "" << 0 << 2;
        QTest::newRow("insert middle") << "a\nb\nc\n"
                                       << "a\nb\nn\nm\nc\n"
                                       << 2 << 0;
        QTest::newRow("delete ends") << "x\na\nb\ny\n"
                                     << "a\nb\n"
                                     << 0 << 2;
        // Myers' paper: ABCABBA -> CBABAC has an LCS of 4 (CABA/BABA): 3 removed, 2 added.
        QTest::newRow("myers paper") << "A\nB\nC\nA\nB\nB\nA\n"
                                     << "C\nB\nA\nB\nA\nC\n"
                                     << 2 << 3;
        QTest::newRow("fx rewrite") << "x = f(a)\ny = g(x)\nz = h(y)\nreturn z\n"
                                    << "x = f(a)\nw = k(x)\nreturn w\n"
                                    << 2 << 3;
    }
    void diffHandMade() {
        QFETCH(QString, before);
        QFETCH(QString, after);
        QFETCH(int, added);
        QFETCH(int, removed);
        const auto a = splitLines(before.toStdString()), b = splitLines(after.toStdString());
        const auto script = diffLines(a, b);
        QVERIFY(validScript(script, a, b));
        const DiffSummary s = summarize(script);
        QCOMPARE(int(s.added), added);
        QCOMPARE(int(s.removed), removed);
        TextDiffModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTexts(before.toStdString(), after.toStdString());
        QCOMPARE(int(model.summary().added), added);
        QCOMPARE(int(model.summary().removed), removed);
        // Side by side, a changed block reads across: as many rows as its longer side.
        int removedCells = 0, addedCells = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            const auto l = DiffLine::Kind(model.index(r, TextDiffModel::ColLeft).data(TextDiffModel::KindRole).toInt());
            const auto rt =
                DiffLine::Kind(model.index(r, TextDiffModel::ColRight).data(TextDiffModel::KindRole).toInt());
            removedCells += l == DiffLine::Kind::Removed;
            addedCells += rt == DiffLine::Kind::Added;
            if (l == DiffLine::Kind::Removed)
                QCOMPARE(model.index(r, TextDiffModel::ColLeft).data(Qt::BackgroundRole).value<QBrush>().color().red(),
                         229);
            if (rt == DiffLine::Kind::Added)
                QCOMPARE(
                    model.index(r, TextDiffModel::ColRight).data(Qt::BackgroundRole).value<QBrush>().color().green(),
                    160);
        }
        QCOMPARE(removedCells, removed);
        QCOMPARE(addedCells, added);
        QVERIFY(model.rowCount() >= int(std::max(a.size(), b.size())));
        QVERIFY(model.rowCount() <= int(a.size() + b.size()));
    }

    void diffIsMinimalOnRandomTexts() {
        // The edit script is a shortest one: removed = |a| - LCS, added = |b| - LCS.
        QRandomGenerator rng(1234);
        for (int trial = 0; trial < 300; ++trial) {
            std::vector<std::string> a, b;
            const int n = rng.bounded(0, 30), m = rng.bounded(0, 30);
            for (int i = 0; i < n; ++i) a.push_back(std::string(1, char('a' + rng.bounded(0, 4))));
            for (int i = 0; i < m; ++i) b.push_back(std::string(1, char('a' + rng.bounded(0, 4))));
            const auto script = diffLines(a, b);
            QVERIFY(validScript(script, a, b));
            const DiffSummary s = summarize(script);
            const size_t common = lcs(a, b);
            QCOMPARE(s.removed, a.size() - common);
            QCOMPARE(s.added, b.size() - common);
        }
    }

    void sideBySidePairsBlocks() {
        const auto a = chars("abXYc"), b = chars("abZc");
        const auto rows = sideBySide(diffLines(a, b));
        // a, b, (X|Z), (Y|-), c
        QCOMPARE(rows.size(), size_t(5));
        QCOMPARE(rows[2].left, 2);
        QCOMPARE(rows[2].right, 2);
        QCOMPARE(rows[3].left, 3);
        QCOMPARE(rows[3].right, -1);
        QCOMPARE(rows[4].left, 4);
        QCOMPARE(rows[4].right, 3);
    }

    void timelineModelAndFilter() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Document doc;
        QVERIFY(doc.loadSync(corpusFile("attention/graphs/aot_joint_graph.py")));
        QVERIFY(doc.compileSync(QStringLiteral("joint")));
        PassTimelineModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        ChangedPassFilter filter;
        QAbstractItemModelTester proxyTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        filter.setSourceModel(&model);
        model.setTrace(doc.trace());
        const auto& passes = doc.trace()->passes;
        QCOMPARE(model.rowCount(), int(passes.size()));
        int changed = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            QCOMPARE(model.index(r, PassTimelineModel::ColName).data().toString(),
                     QString::fromStdString(passes[size_t(r)].name));
            QCOMPARE(model.index(r, 0).data(PassTimelineModel::ChangedRole).toBool(), passes[size_t(r)].changed);
            changed += passes[size_t(r)].changed || passes[size_t(r)].failed;
        }
        QCOMPARE(filter.rowCount(), model.rowCount());
        filter.setChangedOnly(true);
        QCOMPARE(filter.rowCount(), changed);
        QVERIFY(changed > 0 && changed < model.rowCount());
        for (int r = 0; r < filter.rowCount(); ++r)
            QVERIFY(filter.index(r, 0).data(PassTimelineModel::ChangedRole).toBool());
        model.setCurrent(1);
        QVERIFY(model.index(1, 1).data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(!model.index(0, 1).data(Qt::FontRole).value<QFont>().bold());
    }

    void timelineMarksFailedPass() {
        // A hand-made trace: the middle pass failed.
        auto t = std::make_shared<CompileTrace>();
        t->pipeline = "test";
        for (const char* n : {"a", "b", "c"}) {
            PassRecord p;
            p.name = n;
            t->passes.push_back(p);
        }
        t->passes[1].failed = true;
        t->passes[1].error = "graph does not verify: node x uses y before it is defined";
        PassTimelineModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTrace(t);
        const QModelIndex status = model.index(1, PassTimelineModel::ColStatus);
        QVERIFY(status.data().toString().contains(QStringLiteral("uses y before it is defined")));
        QCOMPARE(status.data(Qt::ForegroundRole).value<QBrush>().color(), QColor(0xc6, 0x28, 0x28));
        QVERIFY(status.data(PassTimelineModel::FailedRole).toBool());
        QVERIFY(!model.index(0, 0).data(PassTimelineModel::FailedRole).toBool());
        ChangedPassFilter filter;
        filter.setSourceModel(&model);
        filter.setChangedOnly(true);
        QCOMPARE(filter.rowCount(), 1);  // the failed one stays visible
    }

    void matchModelOnAttention() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Document doc;
        QVERIFY(doc.loadSync(corpusFile("attention/graphs/aot_joint_graph.py")));
        QVERIFY(doc.compileSync(QStringLiteral("joint")));
        MatchModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTrace(doc.trace());
        // Every pass run with a match or near-miss is a top-level row, and only those.
        int expectedPasses = 0;
        size_t expectedMatches = 0;
        for (const auto& p : doc.trace()->passes) {
            expectedPasses += !p.matches.empty() || !p.nearMisses.empty();
            expectedMatches += p.matches.size();
        }
        QCOMPARE(model.rowCount(), expectedPasses);
        size_t matches = 0;
        bool sawAttention = false;
        for (int r = 0; r < model.rowCount(); ++r) {
            const QModelIndex pass = model.index(r, 0);
            for (int pr = 0; pr < model.rowCount(pass); ++pr) {
                const QModelIndex pat = model.index(pr, 0, pass);
                for (int mr = 0; mr < model.rowCount(pat); ++mr) {
                    const QModelIndex m = model.index(mr, 0, pat);
                    if (MatchModel::Kind(m.data(MatchModel::KindRole).toInt()) != MatchModel::Kind::Match) {
                        QVERIFY(!m.data(MatchModel::ReasonRole).toString().isEmpty());
                        continue;
                    }
                    ++matches;
                    if (m.data(MatchModel::PatternRole).toString().startsWith(QStringLiteral("sfdp"))) {
                        sawAttention = true;
                        QVERIFY(m.data(MatchModel::NodesRole).toStringList().contains(QStringLiteral("_softmax")));
                        QVERIFY(m.data(MatchModel::NewNodesRole)
                                    .toStringList()
                                    .contains(QStringLiteral("_scaled_dot_product_efficient_attention_default")));
                    }
                }
            }
        }
        QCOMPARE(matches, expectedMatches);
        QVERIFY(sawAttention);
    }

    void savedTensorModelAgainstPyTorch() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Document doc;
        QVERIFY(doc.loadSync(corpusFile("attention/graphs/aot_joint_graph.py")));
        QVERIFY(doc.partitionSync(1.0));
        auto ref = findPyTorchPartition(doc.path());
        QVERIFY(ref.has_value());
        SavedTensorModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPartition(doc.partition(), doc.shownGraph(), ref);
        const auto t = model.totals();
        QCOMPARE(t.oursBytes, doc.partition()->savedBytes);
        QCOMPARE(t.oursActivationBytes, doc.partition()->activationBytes);
        QCOMPARE(t.ours, int(doc.partition()->saved.size()));
        // attention/summary.json: 7 values, 131072 bytes (read here by hand, see the corpus).
        QCOMPARE(t.pytorch, 7);
        QCOMPARE(t.pytorchBytes, qint64(131072));
        QCOMPARE(ref->savedBytes, qint64(131072));
        // Rows: ours, then PyTorch's others; a row is marked exactly when one side lacks it.
        QCOMPARE(model.rowCount(), t.ours + t.onlyPyTorch);
        int marked = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            const QModelIndex i = model.index(r, 0);
            const bool diff =
                i.data(SavedTensorModel::OursRole).toBool() != i.data(SavedTensorModel::PyTorchRole).toBool();
            QCOMPARE(i.data(SavedTensorModel::DifferentRole).toBool(), diff);
            marked += diff;
        }
        QCOMPARE(marked, t.onlyOurs + t.onlyPyTorch);
        // _softmax is saved by PyTorch; its type is f32[2, 4, 32, 32] either way.
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.index(r, 0).data().toString() == QLatin1String("_softmax"))
                QVERIFY(model.index(r, SavedTensorModel::ColType)
                            .data()
                            .toString()
                            .startsWith(QStringLiteral("f32[2, 4, 32, 32]")));

        StringTableModel banned({QStringLiteral("Node"), QStringLiteral("Rule")});
        QAbstractItemModelTester tb(&banned, QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<QStringList> rows;
        for (const auto& b : doc.partition()->banned)
            rows.push_back({QString::fromStdString(b.name), QString::fromStdString(b.rule)});
        banned.setRows(rows);
        QCOMPARE(banned.rowCount(), int(doc.partition()->banned.size()));
    }

    void inspectorModel() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Document doc;
        QVERIFY(doc.loadSync(corpusFile("mlp/graphs/aot_joint_graph.py")));
        NodeInspectorModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const Graph* g = doc.shownGraph();
        const Node* addmm = g->find("addmm");
        QVERIFY(addmm);
        model.setNode(g, QStringLiteral("addmm"), nullptr, -1);
        const QModelIndex node = model.section(QStringLiteral("node"));
        QVERIFY(node.isValid());
        const QModelIndex schema = model.section(QStringLiteral("schema"));
        QVERIFY(schema.siblingAtColumn(1).data().toString().startsWith(
            QStringLiteral("addmm(Tensor self, Tensor mat1, Tensor mat2")));
        const QModelIndex args = model.section(QStringLiteral("args"));
        QCOMPARE(model.rowCount(args), int(addmm->args.size()));
        // Positional arguments carry the schema's names: self, mat1, mat2.
        QCOMPARE(model.index(1, 0, args).data().toString(), QStringLiteral("mat1"));
        QCOMPARE(model.index(1, 1, args).data(NodeInspectorModel::NodeNameRole).toString(),
                 QString::fromStdString(addmm->args[1].node->name()));
        QCOMPARE(model.rowCount(model.section(QStringLiteral("users"))), int(addmm->users.size()));
        QVERIFY(model.section(QStringLiteral("output"))
                    .siblingAtColumn(1)
                    .data()
                    .toString()
                    .startsWith(QStringLiteral("f32[")));
        model.setNode(g, QStringLiteral("no_such_node"), nullptr, -1);
        QCOMPARE(model.rowCount(), 0);
    }

    void lineIndexMatchesPrintedText() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Document doc;
        QVERIFY(doc.loadSync(corpusFile("attention/graphs/aot_joint_graph.py")));
        const Graph* g = doc.shownGraph();
        const QString text = QString::fromStdString(printGraph(*g));
        const QStringList lines = text.split(QLatin1Char('\n'));
        FxLineIndex index(text, *g);
        // Every node of the graph but the output is found on a line that defines it.
        for (const auto& n : g->nodes()) {
            if (n->kind() == NodeKind::Output) continue;
            const QString name = QString::fromStdString(n->name());
            const int line = index.lineOf(name);
            QVERIFY2(line >= 0, qPrintable(name));
            QVERIFY2(lines[line].contains(name + QStringLiteral(": ")) ||
                         lines[line].trimmed().startsWith(name + QStringLiteral(" =")),
                     qPrintable(lines[line]));
            QCOMPARE(index.nodeAt(line, lines[line].indexOf(name)), name);
        }
        QVERIFY(index.nodeAt(0).isEmpty());  // `class inner_f(...)`
    }

    void kernelArtifacts() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Document doc;
        QVERIFY(doc.loadSync(corpusFile("attention/debug/model__1_forward_5.0")));
        KernelArtifactModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFile(doc.file());
        int expected = 0;
        for (const auto& a : doc.file()->artifacts) expected += KernelArtifactModel::isKernelArtifact(a.name);
        QCOMPARE(model.rowCount(), expected);
        QStringList names;
        for (int r = 0; r < model.rowCount(); ++r)
            names << model.index(r).data(KernelArtifactModel::ArtifactNameRole).toString();
        QVERIFY2(names.contains(QStringLiteral("inductor_output_code")), qPrintable(names.join(",")));
        QVERIFY(names.contains(QStringLiteral("ir_post_fusion")));
        // A TORCH_TRACE log carries Inductor's code per compile.
        QVERIFY(doc.loadSync(corpusFile("mlp/trace/torch_trace.log")));
        model.setFile(doc.file());
        QVERIFY(model.rowCount() >= 1);
        QCOMPARE(model.index(0).data(KernelArtifactModel::ArtifactNameRole).toString(),
                 QStringLiteral("inductor_output_code"));
        QVERIFY(!model.index(0).data(KernelArtifactModel::CompileIdRole).toString().isEmpty());
    }
};

QTEST_MAIN(TestPanelsModels)
#include "tst_panels_models.moc"
