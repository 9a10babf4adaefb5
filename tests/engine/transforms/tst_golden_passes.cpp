// Golden tests: every tests/golden/PASS/CASE.in.py is run through the single pass PASS and must
// print exactly as CASE.out.py (hand-written from what the PyTorch pass does). Also the
// stable topological sort, which FX text cannot express an input for (names must be defined
// before use), on a graph disordered in C++.
#include "test_util.h"

#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"
#include "import/loader.h"
#include "ir/printer.h"
#include "rewrite/pattern_rewriter.h"
#include "transforms/passes.h"

#include <filesystem>
#include <sstream>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

fs::path goldenDir() { return fs::path(FXRAY_TESTS_DIR) / "golden"; }

std::string firstDifference(const std::string& got, const std::string& want) {
    std::istringstream a(got), b(want);
    std::string la, lb;
    for (int line = 1;; ++line) {
        bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
        if (!ha && !hb) return "identical";
        if (la != lb || ha != hb)
            return "line " + std::to_string(line) + ":\n  got:  " + (ha ? la : "<end>") +
                   "\n  want: " + (hb ? lb : "<end>");
    }
}

}  // namespace

class TestGoldenPasses : public QObject {
    Q_OBJECT
private slots:
    void golden_data() {
        QTest::addColumn<QString>("pass");
        QTest::addColumn<QString>("input");
        std::vector<std::pair<std::string, fs::path>> rows;
        for (const auto& dir : fs::directory_iterator(goldenDir())) {
            if (!dir.is_directory()) continue;
            for (const auto& f : fs::directory_iterator(dir.path())) {
                const std::string name = f.path().filename().string();
                if (name.size() > 6 && name.compare(name.size() - 6, 6, ".in.py") == 0)
                    rows.emplace_back(dir.path().filename().string(), f.path());
            }
        }
        std::sort(rows.begin(), rows.end());
        for (const auto& [pass, path] : rows)
            QTest::newRow((pass + "/" + path.filename().string()).c_str())
                << QString::fromStdString(pass) << QString::fromStdString(path.string());
    }

    void golden() {
        QFETCH(QString, pass);
        QFETCH(QString, input);
        fs::path in = input.toStdString();
        std::string base = in.string().substr(0, in.string().size() - 6);
        auto expected = readTextFile(base + ".out.py");
        QVERIFY2(expected.ok(), "missing .out.py next to the input");
        auto f = loadFile(in);
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        QVERIFY(f->graphs[0].inference.mismatches.empty());
        Graph& g = *f->graphs[0].graph;
        auto p = createPassByName(pass.toStdString());
        QVERIFY2(p, "the folder name is not a pass name");
        PassManager pm("golden");
        pm.addPass(std::move(p));
        CompileTrace t = pm.run(g);
        QVERIFY(t.ok());
        std::string got = printGraph(g);
        QVERIFY2(got == *expected, firstDifference(got, *expected).c_str());
        // The result still infers to the metadata it prints.
        auto rep = inferMeta(g);
        QVERIFY(rep.mismatches.empty());
    }

    void stableTopologicalSort() {
        auto g = readFxText(R"(
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3][1]cpu"):
        exp: "f32[3][1]cpu" = torch.ops.aten.exp.default(x)
        relu: "f32[3][1]cpu" = torch.ops.aten.relu.default(x)
        neg: "f32[3][1]cpu" = torch.ops.aten.neg.default(exp);  exp = None
        tanh: "f32[3][1]cpu" = torch.ops.aten.tanh.default(relu);  relu = None
        add: "f32[3][1]cpu" = torch.ops.aten.add.Tensor(neg, tanh);  neg = tanh = None
        return (add,)
)",
                            "t.py");
        QVERIFY(g.ok());
        Graph& G = **g;
        resolveOps(G);
        // Move neg and tanh before the nodes they use: x, neg, tanh, exp, relu, add.
        G.moveBefore(G.find("neg"), G.find("exp"));
        G.moveBefore(G.find("tanh"), G.find("exp"));
        G.rebuildUsers();
        QVERIFY(!G.verify().ok());
        QVERIFY(fxray::stableTopologicalSort(G));
        // Each waiting node goes right after its last input, the others keep their order.
        std::vector<std::string> order;
        for (const auto& n : G.nodes()) order.push_back(n->name());
        QCOMPARE(order, (std::vector<std::string>{"x", "exp", "neg", "relu", "tanh", "add", "output"}));
        QVERIFY(G.verify().ok());
        QVERIFY(!fxray::stableTopologicalSort(G));
    }
};

QTEST_GUILESS_MAIN(TestGoldenPasses)
#include "tst_golden_passes.moc"
