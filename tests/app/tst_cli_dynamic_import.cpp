// The command line on Dynamo graphs of dynamic shapes and on a TORCH_TRACE that recompiled
// with a dynamic batch: `fxray run dynamo.py` lowers a torch.compile(dynamic=True) graph and
// reproduces what PyTorch's AOT forward graph recorded at both recorded sizes; `fxray info
// TRACE` shows the traced symbols and `fxray run TRACE --graph 0/1/...` draws inputs at them.
#include "cli_test_util.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace fs = std::filesystem;

namespace {

using fxtest::cli;

std::string dyn(const std::string& rel) { return (fxtest::corpus().parent_path() / "corpus_dynamic" / rel).string(); }
std::string trace() { return (fxtest::corpus().parent_path() / "traces" / "recompiles" / "trace").string(); }

}  // namespace

class TestCliDynamicImport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fs::exists(dyn("README.md"))) QSKIP("corpus_dynamic not found beside the corpus");
    }

    /// dynamo.py takes the same inputs in the same order as forward.py; its one output is
    /// forward's first (the model output): both recorded sizes of mlp and ln_gelu match.
    void dynamoGraphMatchesForwardAtBothSizes_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("run");
        for (const char* m : {"mlp", "ln_gelu", "attention"})
            for (const char* r : {"forward", "forward_2"}) QTest::newRow((std::string(m) + "/" + r).c_str()) << m << r;
    }
    void dynamoGraphMatchesForwardAtBothSizes() {
        QFETCH(QString, model);
        QFETCH(QString, run);
        std::string num = model.toStdString() + "/numerics/";
        auto r = cli({"run", dyn(num + "dynamo.py"), "--inputs", dyn(num + run.toStdString() + "/inputs"), "--expect",
                      dyn(num + run.toStdString() + "/outputs"), "--json"});
        QVERIFY2(r.status == 0, (r.err + r.out).c_str());
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(j["ok"].get<bool>());
    }

    /// Random inputs at a chosen size: the binding is printed and the run succeeds.
    void dynamoGraphRunsAtChosenSizes() {
        auto r = cli({"run", dyn("gpt2/numerics/dynamo.py"), "--sizes", "s23=2,s27=5"});
        QVERIFY2(r.status == 0, (r.err + r.out).c_str());
        QVERIFY2(r.err.find("dynamic shapes: random inputs at s23=2, s27=5") != std::string::npos, r.err.c_str());
    }

    void traceShowsSymbols() {
        if (!fs::exists(trace())) QSKIP("traces/recompiles not found");
        auto r = cli({"info", trace(), "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        bool found = false;
        for (const auto& c : j["compiles"])
            if (c["id"] == "0/1")
                for (const auto& s : c["symbols"])
                    found = found || (s["name"] == "s33" && s["hint"] == "16" &&
                                      s["source"] == "L['args'][0].size()[0]" && s["range"] == "[2, int_oo]");
        QVERIFY(found);
        auto t = cli({"info", trace()});
        QVERIFY2(t.out.find("symbol s33 = 16 from L['args'][0].size()[0] in [2, int_oo]") != std::string::npos,
                 t.out.c_str());
    }

    void traceRunUsesTheTracedSize() {
        if (!fs::exists(trace())) QSKIP("traces/recompiles not found");
        auto r = cli({"run", trace(), "--graph", "0/1/dynamo_output_graph", "--json"});
        QVERIFY2(r.status == 0, (r.err + r.out).c_str());
        QVERIFY2(r.err.find("dynamic shapes: random inputs at s33=16") != std::string::npos, r.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCliDynamicImport)
#include "tst_cli_dynamic_import.moc"
