// fxray minify on dynamic-shape graphs (issue 15 item 5): a fault injected into a graph made with
// torch.compile(dynamic=True), minified at the sizes of PyTorch's recorded run, must end in a
// small graph that still holds the faulty op, whose inputs bind every symbol at the recorded
// sizes (the cut values keep symbolic annotations, SymInt nodes become Sym placeholders, a symbol
// nothing else binds gets its own), that still fails when read back, and whose repro.py runs it
// under torch.compile(dynamic=True) at those sizes. Queries run in ../app/fxray.
#include "cli_test_util.h"

#include "cli/common.h"
#include "exec/shape_binding.h"
#include "import/npy.h"
#include "minify/subprocess.h"
#include "minify/sym_inputs.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using fxtest::cli;

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

fs::path dyn() { return fxtest::corpus().parent_path() / "corpus_dynamic"; }
std::string d(const std::string& rel) { return (dyn() / rel).string(); }

fs::path tempDir(const std::string& name) {
    auto p = fs::temp_directory_path() / ("fxray_tst_minify_dyn_" + name);
    fs::remove_all(p);
    return p;
}

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
    return n;
}

}  // namespace

class TestCliMinifyDynamic : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fs::exists(dyn() / "README.md")) QSKIP("corpus_dynamic not found next to the corpus");
        if (fxray::minify::findFxrayExecutable().empty())
            QSKIP("the fxray executable is not built next to this test (ninja fxray); queries run in it");
    }

    /// A cut tensor keeps its symbolic sizes; strides follow its layout as expressions.
    void cutMetaStaysSymbolic() {
        using namespace fxray;
        TensorMeta ann;
        ann.shape = {0, 4, 0, 0};
        ann.strides = {0, 0, 0, 1};
        const char* sizes[] = {"s77", "4", "s27", "s27"};
        const char* strides[] = {"4*s27**2", "s27**2", "s27", "1"};
        for (size_t d = 0; d < 4; ++d) {
            ann.setSize(d, SymInt::parse(sizes[d]).value());
            ann.setStride(d, SymInt::parse(strides[d]).value());
        }
        sym::Binding b{{"s77", sym::Num::ofInt(5)}, {"s27", sym::Num::ofInt(32)}};
        TensorMeta val = TensorMeta::contiguous({5, 4, 32, 32}, DType::Float32);
        TensorMeta m = minify::symbolicCutMeta(ann, val, b);
        QCOMPARE(QString::fromStdString(m.annotation(true, false)),
                 QString("f32[s77, 4, s27, s27][4*s27*s27, s27*s27, s27, 1]"));
        auto bound = bindMeta(m, b);
        QVERIFY(bound.ok());
        QCOMPARE(bound->strides, val.strides);
        // A transposed value: strides in its own order.
        TensorMeta t = TensorMeta::contiguous({5, 32, 4, 32}, DType::Float32);
        std::swap(t.shape[1], t.shape[2]);
        std::swap(t.strides[1], t.strides[2]);
        TensorMeta mt = minify::symbolicCutMeta(ann, t, b);
        QCOMPARE(QString::fromStdString(mt.annotation(true, false)),
                 QString("f32[s77, 4, s27, s27][4*s27*s27, s27, 4*s27, 1]"));
        // A size that does not evaluate to the value's stays static.
        sym::Binding wrong{{"s77", sym::Num::ofInt(6)}, {"s27", sym::Num::ofInt(32)}};
        QCOMPARE(QString::fromStdString(minify::symbolicCutMeta(ann, val, wrong).annotation(true, false)),
                 QString("f32[5, 4, s27, s27][4*s27*s27, s27*s27, s27, 1]"));
    }

    void injectedFault_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("mustHold");  // text the minified graph must hold
        QTest::addColumn<int>("maxNodes");
        // bmm reads [4*s77, s27, 16] values: 4*s77 is bound by no size, so s77's Sym placeholder
        // (primals_1) must come along.
        QTest::newRow("bmm") << "aten.bmm.default"
                             << "\"Sym(s77)\"" << 5;
        // The first view reads the SymInt mul_6 = s77*s27: it is cut into a Sym placeholder.
        QTest::newRow("view") << "aten.view.default"
                              << "\"Sym(s27*s77)\"" << 4;
    }
    void injectedFault() {
        QFETCH(QString, op);
        QFETCH(QString, mustHold);
        QFETCH(int, maxNodes);
        const std::string bugOp = op.toStdString();
        const fs::path rec = dyn() / "attention/numerics/forward_2/inputs";
        // The recorded sizes: numerics.json lists each run's inputs; the first two are the
        // SymInts s77 (primals_1) and s27 (primals_2).
        auto runs = nlohmann::json::parse(slurp(dyn() / "attention/numerics/numerics.json"))["runs"]["forward_2"];
        const int s77 = runs[0].get<int>(), s27 = runs[1].get<int>();
        QVERIFY(s77 != 2);  // the second size, not the first run's

        auto out = tempDir(QTest::currentDataTag());
        auto r = cli({"minify", d("attention/numerics/forward.py"), "--inputs", rec.string(), "--inject",
                      bugOp + ":scale=1.01", "--out", out.string(), "--json", "--quiet"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        auto info = cli({"info", d("attention/numerics/forward.py"), "--json"});
        QCOMPARE(j["nodes_before"].get<int>(), nlohmann::json::parse(info.out)["graphs"][0]["nodes"].get<int>());
        QVERIFY2(j["nodes_before"].get<int>() >= 10 * maxNodes, r.out.c_str());
        QVERIFY2(j["nodes_after"].get<int>() <= maxNodes, r.out.c_str());
        QCOMPARE(j["signature"].get<std::string>(), "accuracy:ref-vs-ref:mismatch@" + bugOp);
        QCOMPARE(j["recorded_sizes"]["s77"].get<int>(), s77);
        QCOMPARE(j["recorded_sizes"]["s27"].get<int>(), s27);
        QCOMPARE(j["sizes"]["s77"].get<int>(), s77);
        QCOMPARE(j["sizes"]["s27"].get<int>(), s27);

        // The faulty op is still there, with symbolic inputs.
        const std::string text = slurp(out / "minified.py");
        QVERIFY2(count(text, "torch.ops." + bugOp + "(") >= 1, text.c_str());
        QVERIFY2(text.find(mustHold.toStdString()) != std::string::npos, text.c_str());
        QVERIFY2(text.find("s27") != std::string::npos, text.c_str());

        // Its inputs, read back as the CLI reads them, bind every symbol at the recorded sizes.
        auto f = fxray::loadFile(out / "minified.py");
        QVERIFY(f.ok());
        auto lg = fxray::selectGraph(*f, "");
        QVERIFY(lg.ok());
        const fxray::Graph& g = (*lg)->executable();
        QVERIFY(fxray::graphIsSymbolic(g));
        QVERIFY(fxray::minify::unboundInputSymbols(g).empty());
        auto inputs = fxray::cli::loadInputs(g, (out / "inputs").string(), 0, nullptr);
        QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
        auto b = fxray::bindInputs(g, *inputs, /*withStrides=*/true);
        QVERIFY2(b.ok(), b.ok() ? "" : b.error().str().c_str());
        QCOMPARE(b->at("s77").i, int64_t(s77));
        QCOMPARE(b->at("s27").i, int64_t(s27));

        // It runs on its own, and still fails the same way.
        auto run = cli({"run", (out / "minified.py").string(), "--inputs", (out / "inputs").string()});
        QVERIFY2(run.status == 0, run.err.c_str());
        auto again = cli({"minify", (out / "minified.py").string(), "--inputs", (out / "inputs").string(), "--inject",
                          bugOp + ":scale=1.01", "--max-queries", "1", "--json", "--quiet"});
        QVERIFY2(again.status == 0, again.err.c_str());
        QCOMPARE(nlohmann::json::parse(again.out)["signature"].get<std::string>(), j["signature"].get<std::string>());

        // repro.py runs the faulty side under torch.compile(dynamic=True) at the recorded sizes.
        const std::string repro = slurp(out / "repro.py");
        QVERIFY2(repro.find("dynamic=True") != std::string::npos, repro.c_str());
        const std::string sizes = "SIZES = {'s27': " + std::to_string(s27) + ", 's77': " + std::to_string(s77) + "}";
        QVERIFY2(repro.find(sizes) != std::string::npos, repro.c_str());
        QVERIFY2(repro.find("ress = run(compiled(ReproInjected()), args)") != std::string::npos, repro.c_str());
        auto session = nlohmann::json::parse(slurp(out / "session.json"));
        QCOMPARE(session["sizes"]["s77"].get<int>(), s77);
        fs::remove_all(out);
    }

    /// The text report names the binding.
    void reportShowsSizes() {
        auto r = cli({"minify", d("mlp/numerics/forward.py"), "--inputs", d("mlp/numerics/forward_2/inputs"),
                      "--inject", "aten.relu.default:scale=1.01", "--quiet"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto runs = nlohmann::json::parse(slurp(dyn() / "mlp/numerics/numerics.json"))["runs"]["forward_2"];
        const int s33 = runs[2].get<int>();  // primals_3: Sym(s33)
        QVERIFY2(r.out.find("sizes: s33=" + std::to_string(s33)) != std::string::npos, r.out.c_str());
        QVERIFY2(r.out.find("aten.relu.default") != std::string::npos, r.out.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCliMinifyDynamic)
#include "tst_cli_minify_dynamic.moc"
