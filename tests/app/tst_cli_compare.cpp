// `fxray compare`: backends run with the same inputs agree on the corpus graphs (ref vs ref64,
// ref vs the compiled CPU backend), and where they do not, the first divergent node is the one
// where the difference starts (fp32 cancellation: x + 1e8 - 1e8).
#include "cli_test_util.h"

#include "cli/backends.h"
#include "cli/cli.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using fxtest::c;
using fxtest::cli;
using Result = fxtest::CliResult;

} // namespace

class TestCliCompare : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        fxray::cli::registerCompiledBackends();
    }

    void referenceAgreesWithFp64OnRecordedInputs() {
        auto r = cli({"compare", c("mlp/numerics/forward.py"), "--backends", "ref,ref64", "--inputs",
                      c("mlp/numerics/forward/inputs"), "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(j["ok"].get<bool>());
        QVERIFY(j["first_divergent_node"].is_null());
        QVERIFY(j["nodes"]["ref64"]["compared"].get<int>() > 3);
        QCOMPARE(j["nodes"]["ref64"]["differ"].get<int>(), 0);
    }

    void cpuBackendAgreesWithReference_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("mlp forward") << "mlp/numerics/forward.py";
        QTest::newRow("gpt2 forward") << "gpt2/numerics/forward.py";
        QTest::newRow("ln_gelu backward") << "ln_gelu/numerics/backward.py";
    }
    void cpuBackendAgreesWithReference() {
#ifndef FXRAY_HAVE_CPU_BACKEND
        QSKIP("this build has no CPU backend");
#else
        QFETCH(QString, file);
        auto r = cli({"compare", c(file.toStdString()), "--backends", "ref,cpu", "--seed", "3", "--json"});
        QVERIFY2(r.status == 0, (r.err + r.out).c_str());
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(j["ok"].get<bool>());
        QVERIFY(!j["outputs"].empty());
        QCOMPARE(j["outputs_only"][0].get<std::string>(), std::string("cpu"));
#endif
    }

    void firstDivergentNodeIsWhereCancellationHappens() {
        fs::path p = fs::temp_directory_path() / "fxray_compare_cancel.py";
        std::ofstream(p) << "class GraphModule(torch.nn.Module):\n"
                            "    def forward(self, x: \"f32[64][1]cpu\"):\n"
                            "        add: \"f32[64][1]cpu\" = torch.ops.aten.add.Tensor(x, 100000000.0);  x = None\n"
                            "        sub: \"f32[64][1]cpu\" = torch.ops.aten.sub.Tensor(add, 100000000.0);  add = None\n"
                            "        mul: \"f32[64][1]cpu\" = torch.ops.aten.mul.Tensor(sub, 2.0);  sub = None\n"
                            "        return (mul,)\n";
        auto r = cli({"compare", p.string(), "--backends", "ref64,ref", "--json"});
        QCOMPARE(r.status, 1);
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(!j["ok"].get<bool>());
        // x + 1e8 keeps about 8 significant digits in fp32 either way; subtracting 1e8 leaves
        // only the rounding error, so `sub` is the first node whose values disagree.
        QCOMPARE(j["first_divergent_node"]["node"].get<std::string>(), std::string("sub"));
        fs::remove(p);
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"
