// Lifted tensor constants travel with the graphs fxray writes (a `<stem>_constants/` folder the
// loader reads back), and the loader computes those the graph text itself determines.
#include "numerics_case.h"

#include "import/constants_folder.h"
#include "import/fx_text_reader.h"
#include "import/lifted_constants.h"
#include "import/loader.h"
#include "import/npy.h"

#include <QTemporaryDir>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

/// A graph whose one constant carries `comment` as its provenance and `annotation` as its type.
std::string constantGraph(const std::string& annotation, const std::string& comment) {
    return "class GraphModule(torch.nn.Module):\n"
           "    def forward(self, x: \"f32[3][1]cpu\"):\n"
           "        # " +
           comment +
           "\n"
           "        _tensor_constant0: \"" +
           annotation +
           "\" = self._tensor_constant0\n"
           "        lift_fresh_copy: \"" +
           annotation +
           "\" = torch.ops.aten.lift_fresh_copy.default(_tensor_constant0);  _tensor_constant0 = None\n"
           "        return (lift_fresh_copy,)\n";
}

/// Loads text written to dir/name; the graph, or null with a test failure.
Graph* loadText(const fs::path& dir, const std::string& name, const std::string& text,
                std::unique_ptr<LoadedFile>& keep) {
    std::ofstream(dir / name) << text;
    auto f = loadFile(dir / name);
    if (!f.ok()) {
        QTest::qFail(f.error().str().c_str(), __FILE__, __LINE__);
        return nullptr;
    }
    keep = std::make_unique<LoadedFile>(std::move(f).value());
    return keep->graphs[0].graph.get();
}

}  // namespace

class TestConstantsFolder : public QObject {
    Q_OBJECT
private slots:
    /// gpt2's forward graph uses lifted constants (a torch.tensor(0.0) mask value and empty KV
    /// caches) whose values its own file does not carry. Written by fxray into another folder,
    /// it runs there alone and gives the same outputs as the original.
    void writtenGraphRunsOnItsOwn() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        fxtest::NumericsCase original;
        const std::string err = fxtest::loadNumericsCase("gpt2", "forward", original);
        QVERIFY2(err.empty(), err.c_str());
        Graph& g = original.graph();
        QVERIFY(!g.constants.empty());
        QVERIFY(missingConstants(g).empty());

        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const fs::path out = fs::path(tmp.path().toStdString()) / "written.py";
        auto st = writeGraphFile(out, g);
        QVERIFY2(st.ok(), st.ok() ? "" : st.error().str().c_str());
        QVERIFY(fs::exists(out.parent_path() / "written_constants" / "_tensor_constant0.npy"));

        // The bare text names the constants without their values; the loader finds the folder.
        auto bare = readFxFile(out);
        QVERIFY(bare.ok());
        QVERIFY(!missingConstants(**bare).empty());
        auto reread = loadFile(out);
        QVERIFY(reread.ok());
        Graph& g2 = *reread->graphs[0].graph;
        QVERIFY(missingConstants(g2).empty());
        QVERIFY(std::any_of(reread->graphs[0].notes.begin(), reread->graphs[0].notes.end(),
                            [](const std::string& n) { return n.find("written_constants") != std::string::npos; }));

        auto a = runAndCheck(g, original.req, &original.expect);
        auto b = runAndCheck(g2, original.req, &original.expect);
        QVERIFY2(a.ok() && b.ok(), a.ok() ? (b.ok() ? "" : b.error().str().c_str()) : a.error().str().c_str());
        QVERIFY(a->ok);
        QVERIFY(b->ok);
        QCOMPARE(b->outputs.size(), a->outputs.size());
        for (size_t i = 0; i < a->outputs.size(); ++i) {
            if (!a->outputs[i].isTensor()) continue;
            QVERIFY(b->outputs[i].isTensor());
            QCOMPARE(b->outputs[i].t.shape(), a->outputs[i].t.shape());
            QVERIFY2(kern::toDoubles(b->outputs[i].t) == kern::toDoubles(a->outputs[i].t),
                     qPrintable(QString::number(i)));
        }
    }

    /// The folder holds exact values, ahead of anything the text suggests; rewriting a graph
    /// without constants clears it.
    void folderValuesComeFirstAndStaleOnesGo() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        std::unique_ptr<LoadedFile> keep;
        Graph* g =
            loadText(dir, "g.py",
                     constantGraph("f32[3][1]cpu", "File: m.py:1 in f, code: c = torch.tensor([1.0, 2.0, 3.0])"), keep);
        QVERIFY(g);
        QCOMPARE(kern::toDoubles(g->constants.at("_tensor_constant0")), (std::vector<double>{1, 2, 3}));
        g->constants["_tensor_constant0"] = fxtest::tensor({3}, {7, 8, 9});
        QVERIFY(writeGraphFile(dir / "g.py", *g).ok());
        auto again = loadFile(dir / "g.py");
        QVERIFY(again.ok());
        QCOMPARE(kern::toDoubles(again->graphs[0].graph->constants.at("_tensor_constant0")),
                 (std::vector<double>{7, 8, 9}));

        QVERIFY(
            writeGraphFile(dir / "g.py", *readFxText(constantGraph("f32[3][1]cpu", "no provenance"), "x.py").value())
                .ok());
        QVERIFY(!fs::exists(dir / "g_constants"));
    }

    /// A file in the folder that does not fit the annotation is an error naming it.
    void mismatchedFileIsAnError() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        std::ofstream(dir / "g.py") << constantGraph("f32[3][1]cpu", "no provenance");
        fs::create_directories(dir / "g_constants");
        QVERIFY(writeNpy(dir / "g_constants" / "_tensor_constant0.npy", fxtest::tensor({2}, {1, 2})).ok());
        auto f = loadFile(dir / "g.py");
        QVERIFY(!f.ok());
        QVERIFY(f.error().file.find("_tensor_constant0.npy") != std::string::npos);
    }

    /// Values the graph text determines: empty tensors, the one literal factory call of the
    /// constant's shape and dtype on the quoted source line, and a 0-d constant's number assigned
    /// to a subscript there.
    void valuesFromTheGraphText() {
        QTemporaryDir tmp;
        const fs::path dir = tmp.path().toStdString();
        struct Case {
            const char* annotation;
            const char* comment;
            std::vector<double> values;  ///< empty: the constant stays missing (unless it has no elements)
        };
        const Case cases[] = {
            {"f32[][]cpu",
             "File: m.py:3 in f, code: mask = torch.where(mask, torch.tensor(0.0, device=d, dtype=dtype), m)",
             {0.0}},
            {"i64[2, 2][2, 1]cpu", "File: m.py:3 in f, code: t = torch.tensor([[1, -2], [3, 4]])", {1, -2, 3, 4}},
            {"f32[0][1]cpu", "File: m.py:9 in f, code: self.keys = torch.tensor([], dtype=self.dtype)", {}},
            {"f32[5][1]cpu", "No stacktrace found for following nodes", {}},
            {"f32[][]cpu", "File: m.py:1 in f, code: y = torch.tensor(-float('inf'))", {-INFINITY}},
            {"i64[4][1]cpu", "File: m.py:1 in f, code: r = torch.arange(2, 10, 2)", {2, 4, 6, 8}},
            {"f32[2, 2][2, 1]cpu", "File: m.py:1 in f, code: z = torch.ones(n, n)", {1, 1, 1, 1}},
            {"f32[][]cpu", "File: m.py:1 in f, code: z = torch.tensor(x)", {}},                          // a variable
            {"f32[][]cpu", "File: m.py:1 in f, code: a, b = torch.tensor(1.0), torch.tensor(2.0)", {}},  // ambiguous
            {"i64[][]cpu", "File: m.py:1 in f, code: a = torch.tensor(1.5)", {}},  // a float32 literal
            // Tensor.__setitem__ of a number, lifted for fill.Tensor (BART's shift_tokens_right).
            {"i64[][]cpu", "File: m.py:4 in f, code: dec_ids[:, 0] = 2", {2}},
            {"f32[][]cpu", "File: m.py:4 in f, code: x[mask == 1] = -0.5", {-0.5}},
            {"f32[2][1]cpu", "File: m.py:4 in f, code: x[:, 0] = 2", {}},  // not 0-d
            {"f32[][]cpu", "File: m.py:4 in f, code: y = x[0] == 2", {}},   // not an assignment to a subscript
        };
        int k = 0;
        for (const Case& c : cases) {
            std::unique_ptr<LoadedFile> keep;
            Graph* g = loadText(dir, "c" + std::to_string(k++) + ".py", constantGraph(c.annotation, c.comment), keep);
            QVERIFY(g);
            const bool noElements = std::string(c.annotation).find("[0]") != std::string::npos;
            const bool filled = g->constants.count("_tensor_constant0") != 0;
            QVERIFY2(filled == (noElements || !c.values.empty()), c.comment);
            if (filled) QCOMPARE(kern::toDoubles(g->constants.at("_tensor_constant0")), c.values);
        }
    }
};

QTEST_GUILESS_MAIN(TestConstantsFolder)
#include "tst_constants_folder.moc"
