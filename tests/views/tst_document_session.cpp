// The Document saves where the user was (graph, pipeline, pass, selection, budget) with the
// graphs in an .fxray session and brings it back when the session is opened; the partition
// treats parameters as free to save when a Dynamo graph says which primals they are.
#include "test_util.h"

#include "document.h"
#include "import/loader.h"
#include "partition/partitioner.h"
#include "pass/compile_trace.h"

#include <nlohmann/json.hpp>

#include <QSignalSpy>
#include <QTemporaryDir>

#include <algorithm>
#include <fstream>

using namespace fxray;
using fxray::views::Document;

class TestDocumentSession : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void saveAndRestore() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        QTemporaryDir dir;
        const QString session = dir.filePath(QStringLiteral("mlp.fxray"));
        {
            Document doc;
            QVERIFY(doc.loadSync(QString::fromStdString((fxtest::corpus() / "mlp/trace").string())));
            // Pick the first forward graph, compile it, step to pass 2, select two nodes.
            int fwd = -1;
            for (int i = 0; i < doc.graphCount() && fwd < 0; ++i)
                if (doc.file()->graphs[size_t(i)].stage == "aot_forward_graph") fwd = i;
            QVERIFY(fwd >= 0);
            doc.setGraphIndex(fwd);
            QVERIFY(doc.compileSync(QStringLiteral("post-grad")));
            QVERIFY(doc.trace()->passes.size() >= 3);
            doc.setPassIndex(2);
            doc.setSelection({QStringLiteral("mm"), QStringLiteral("relu")});
            QVERIFY(doc.saveSessionTo(session));
        }
        Document back;
        QSignalSpy failed(&back, &Document::failed);
        QVERIFY(back.loadSync(session));
        QCOMPARE(failed.count(), 0);
        QVERIFY(back.currentGraph());
        QCOMPARE(back.currentGraph()->stage, std::string("aot_forward_graph"));
        QCOMPARE(back.pipeline(), QStringLiteral("post-grad"));
        QVERIFY(back.trace());
        QCOMPARE(back.passIndex(), 2);
        QCOMPARE(back.selection(), (QStringList{QStringLiteral("mm"), QStringLiteral("relu")}));
        // Saving again (Ctrl+S on the open session) keeps it loadable.
        QVERIFY(back.saveSessionTo(session));
        Document again;
        QVERIFY(again.loadSync(session));
        QCOMPARE(again.passIndex(), 2);
    }

    void savingWithoutAFileFails() {
        Document doc;
        QSignalSpy failed(&doc, &Document::failed);
        QTemporaryDir dir;
        QVERIFY(!doc.saveSessionTo(dir.filePath(QStringLiteral("x.fxray"))));
        QCOMPARE(failed.count(), 1);
    }

    /// mlp: PyTorch (summary.json) saves 3 values, 28,672 bytes, with parameters free to save;
    /// the document finds the Dynamo graph beside graphs/aot_joint_graph.py and saves the same set.
    void partitionUsesParametersAsStaticInputs() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        Document doc;
        QVERIFY(doc.loadSync(QString::fromStdString((fxtest::corpus() / "mlp/graphs/aot_joint_graph.py").string())));
        QVERIFY(doc.partitionSync(1.0));
        QVERIFY(doc.partition());
        std::vector<std::string> ours;
        for (const auto& s : doc.partition()->saved) ours.push_back(s.name);
        std::sort(ours.begin(), ours.end());
        std::ifstream in(fxtest::corpus() / "mlp/summary.json");
        const auto summary = nlohmann::json::parse(in);
        std::vector<std::string> pytorch;
        for (const auto& s : summary["saved"]) pytorch.push_back(s["name"].get<std::string>());
        std::sort(pytorch.begin(), pytorch.end());
        QCOMPARE(ours, pytorch);
        QCOMPARE(doc.partition()->savedBytes, summary["saved_bytes"].get<int64_t>());
    }
};

QTEST_MAIN(TestDocumentSession)
#include "tst_document_session.moc"
