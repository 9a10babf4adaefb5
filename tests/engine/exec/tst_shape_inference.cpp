// Shape, dtype and stride inference against the annotations PyTorch printed on every ATen graph
// of the corpus.
#include "test_util.h"

#include "exec/shape_inference.h"
#include "import/loader.h"

#include <filesystem>
#include <functional>

using namespace fxray;
namespace fs = std::filesystem;

class TestShapeInference : public QObject {
    Q_OBJECT
private slots:
    void corpusAtenGraphs_data() {
        QTest::addColumn<QString>("path");
        if (!fxtest::haveCorpus()) return;
        std::vector<fs::path> files;
        for (const auto& model : fs::directory_iterator(fxtest::corpus()))
            for (const char* sub : {"graphs", "numerics"}) {
                fs::path d = model.path() / sub;
                if (!fs::is_directory(d)) continue;
                for (const auto& f : fs::directory_iterator(d)) {
                    auto stem = f.path().stem().string();
                    // Torch-level Dynamo graphs are lowered to ATen by the importers; not here.
                    if (f.path().extension() == ".py" && stem != "dynamo" && stem != "dynamo_graph")
                        files.push_back(f.path());
                }
            }
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            auto rel = fs::relative(f, fxtest::corpus()).string();
            QTest::newRow(rel.c_str()) << QString::fromStdString(f.string());
        }
    }
    void corpusAtenGraphs() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, path);
        auto f = loadFile(path.toStdString());
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        const LoadedGraph& lg = f->graphs[0];
        std::string unknown;
        for (auto& u : lg.unknownOps) unknown += u + " ";
        QVERIFY2(lg.unknownOps.empty(), ("unknown ops: " + unknown).c_str());
        std::string unresolved;
        for (auto& u : lg.inference.unresolved) unresolved += u + " ";
        QVERIFY2(lg.inference.unresolved.empty(), ("inference failed for: " + unresolved).c_str());
        std::string mism;
        for (auto& m : lg.inference.mismatches)
            mism += m.node + " (" + m.what + ": annotated " + m.annotated + ", inferred " + m.inferred + ")\n";
        QVERIFY2(lg.inference.mismatches.empty(), mism.c_str());
        // Every annotated node was compared.
        std::function<int(const Graph&)> annotated = [&](const Graph& g) {
            int c = 0;
            for (const auto& n : g.nodes())
                c += n->annotated && n->kind() != NodeKind::Placeholder && n->kind() != NodeKind::Output;
            for (const auto& [k, sub] : g.subgraphs()) c += annotated(*sub);
            return c;
        };
        QCOMPARE(lg.inference.checked, annotated(*lg.graph));
    }

    void tupleOutputsGetMetadata() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        auto f = loadFile(fxtest::corpus() / "gpt2/numerics/forward.py");
        QVERIFY(f.ok());
        Node* split = f->graphs[0].graph->find("split");
        QVERIFY(split);
        QVERIFY(split->metaIsTuple);
        QCOMPARE(split->meta.size(), size_t(3));
        // getitem lines after it say f32[2, 32, 128][12288, 384, 1] for each piece.
        QCOMPARE(split->meta[1].strides, f->graphs[0].graph->find("getitem_4")->meta[0].strides);
        QCOMPARE(split->meta[1].offset, int64_t(128));
    }
};

QTEST_GUILESS_MAIN(TestShapeInference)
#include "tst_shape_inference.moc"
