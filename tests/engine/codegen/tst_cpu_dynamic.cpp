// The CPU backend on a dynamic-shape graph: compiled code is specialized to the binding of its
// example inputs; run on inputs of another binding it refuses with a message naming the symbol
// (the guard), and a SizeSpecializedCache compiles once per binding so that the one graph file
// serves both recorded sizes of PyTorch's run (../shared/corpus_dynamic).
#include "test_util.h"

#include "codegen/cpu/cpu_backend.h"
#include "codegen/size_guard.h"
#include "exec/compare.h"
#include "exec/shape_binding.h"
#include "import/loader.h"
#include "import/npy.h"

#include <filesystem>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

fs::path mlp() { return fxtest::corpus().parent_path() / "corpus_dynamic/mlp/numerics"; }

/// The recorded inputs of one run, SymInts as Python ints.
std::vector<Value> inputsOf(const Graph& g, const std::string& run) {
    auto v = readNpyFolder(mlp() / run / "inputs", g.placeholders().size());
    if (!v.ok()) QTest::qFail(v.error().str().c_str(), __FILE__, __LINE__);
    std::vector<Value> in = v.ok() ? std::move(v).value() : std::vector<Value>{};
    scalarizeSymInputs(g, in);
    return in;
}

bool matches(const std::vector<Value>& outs, const std::string& run, size_t n) {
    auto expect = readNpyFolder(mlp() / run / "outputs", n);
    if (!expect.ok() || outs.size() != n) return false;
    for (size_t i = 0; i < n; ++i)
        if (!compareValues(i, outs[i], (*expect)[i]).ok) return false;
    return true;
}

}  // namespace

class TestCpuDynamic : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fs::exists(mlp() / "forward.py")) QSKIP("no corpus_dynamic next to the corpus");
    }
    void guardRefusesAnotherBinding() {
        auto f = loadFile((mlp() / "forward.py").string());
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        Graph& g = f->graphs[0].executable();
        QVERIFY(graphIsSymbolic(g));
        auto small = inputsOf(g, "forward");
        auto large = inputsOf(g, "forward_2");
        auto c = cg::cpu::CompiledGraph::compile(g, small);
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().str().c_str());
        QCOMPARE((*c)->sizeGuard().binding().size(), size_t(1));
        auto ok = (*c)->run(small);
        QVERIFY(ok.ok());
        QVERIFY(matches(*ok, "forward", ok->size()));
        auto refused = (*c)->run(large);
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find("compiled for s33=") != std::string::npos,
                 refused.error().message.c_str());
    }
    void oneCompilePerBinding() {
        auto f = loadFile((mlp() / "forward.py").string());
        QVERIFY(f.ok());
        Graph& g = f->graphs[0].executable();
        int compiles = 0;
        cg::SizeSpecializedCache<cg::cpu::CompiledGraph> cache(g, [&](const std::vector<Value>& in) {
            ++compiles;
            return cg::cpu::CompiledGraph::compile(g, in);
        });
        for (const char* run : {"forward", "forward_2", "forward", "forward_2"}) {
            auto in = inputsOf(g, run);
            auto c = cache.get(in);
            QVERIFY2(c.ok(), c.ok() ? "" : c.error().str().c_str());
            auto outs = (*c)->run(in);
            QVERIFY2(outs.ok(), outs.ok() ? "" : outs.error().str().c_str());
            QVERIFY2(matches(*outs, run, outs->size()), run);
        }
        QCOMPARE(compiles, 2);
        QCOMPARE(cache.size(), size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestCpuDynamic)
#include "tst_cpu_dynamic.moc"
