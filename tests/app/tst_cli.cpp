// The fxray command line: outputs, JSON shapes and exit statuses (0 ok, 1 check failed, 2 bad
// input), run in-process.
#include "cli_test_util.h"

#include "cli/cli.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using fxtest::c;
using fxtest::cli;
using Result = fxtest::CliResult;

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

fs::path writeTemp(const std::string& name, const std::string& text) {
    auto p = fs::temp_directory_path() / name;
    std::ofstream(p) << text;
    return p;
}

}  // namespace

class TestCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
    }

    void infoCountsNodesLikePyTorch() {
        auto r = cli({"info", c("mlp/graphs/aot_joint_graph.py"), "--json"});
        QCOMPARE(r.status, 0);
        auto j = nlohmann::json::parse(r.out);
        auto summary = nlohmann::json::parse(slurp(fxtest::corpus() / "mlp/summary.json"));
        QCOMPARE(j["graphs"][0]["nodes"].get<int>(), summary["nodes"]["joint"].get<int>());
        // Op histogram against a plain count of the file's text.
        std::string text = slurp(fxtest::corpus() / "mlp/graphs/aot_joint_graph.py");
        int mm = 0;
        for (size_t p = text.find("aten.mm.default("); p != std::string::npos; p = text.find("aten.mm.default(", p + 1))
            ++mm;
        QCOMPARE(j["graphs"][0]["ops"]["aten.mm.default"].get<int>(), mm);
        QCOMPARE(j["graphs"][0]["stage"].get<std::string>(), std::string("aot_joint_graph"));
    }

    /// `fxray info` lists graphs for everything PyTorch left in each model folder: the dumped
    /// graphs, the TORCH_TRACE log folder, the debug folder, the export archive, to_folder.
    void infoWalksTheWholeCorpus() {
        int folders = 0, graphs = 0;
        for (const auto& model : fs::directory_iterator(fxtest::corpus())) {
            if (!model.is_directory() || model.path().filename() == "tools") continue;
            std::vector<fs::path> targets;
            for (const char* sub : {"trace", "debug", "export", "to_folder"})
                if (fs::exists(model.path() / sub)) targets.push_back(model.path() / sub);
            for (const auto& f : fs::directory_iterator(model.path() / "graphs")) targets.push_back(f.path());
            for (const auto& t : targets) {
                auto r = cli({"info", t.string(), "--json"});
                QVERIFY2(r.status == 0, (t.string() + ": " + r.err).c_str());
                auto j = nlohmann::json::parse(r.out);
                QVERIFY2(!j["graphs"].empty(), t.string().c_str());
                for (const auto& g : j["graphs"]) {
                    QVERIFY(g["nodes"].get<int>() > 0);
                    QVERIFY(!g["stage"].get<std::string>().empty());
                    ++graphs;
                }
                ++folders;
            }
        }
        qInfo("info listed %d graphs from %d files and folders", graphs, folders);
        QVERIFY(folders >= 100);
    }

    /// Partitioning PyTorch's joint graph reproduces PyTorch's saved bytes (summary.json), with
    /// parameters identified from the same run's Dynamo graph as Inductor does.
    void partitionMatchesPyTorchSavedBytes() {
        auto r = cli({"partition", c("mlp/graphs/aot_joint_graph.py"), "--static-inputs-from",
                      c("mlp/graphs/dynamo_graph.py"), "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        auto summary = nlohmann::json::parse(slurp(fxtest::corpus() / "mlp/summary.json"));
        QVERIFY(j["saved_bytes"].get<int64_t>() <= summary["saved_bytes"].get<int64_t>());
        QVERIFY(j["forward_nodes"].get<int>() > 0 && j["backward_nodes"].get<int>() > 0);
    }

    void autodiffBuildsAJointGraph() {
        auto out = fs::temp_directory_path() / "fxray_joint.py";
        auto r = cli({"autodiff", c("mlp/numerics/dynamo.py"), "--out", out.string()});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto info = cli({"info", out.string(), "--json"});
        QCOMPARE(info.status, 0);
        auto j = nlohmann::json::parse(info.out);
        auto summary = nlohmann::json::parse(slurp(fxtest::corpus() / "mlp/summary.json"));
        QCOMPARE(j["graphs"][0]["nodes"].get<int>(), summary["nodes"]["joint"].get<int>());
    }

    void dynamoGraphRunsLoweredToAten() {
        auto r = cli({"run", c("ln_gelu/numerics/dynamo.py"), "--inputs", c("ln_gelu/numerics/dynamo/inputs"),
                      "--expect", c("ln_gelu/numerics/dynamo/outputs"), "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        QVERIFY(nlohmann::json::parse(r.out)["ok"].get<bool>());
    }

    void printReproducesTheFile() {
        auto r = cli({"print", c("attention/graphs/aot_forward_graph.py")});
        QCOMPARE(r.status, 0);
        std::string text = slurp(fxtest::corpus() / "attention/graphs/aot_forward_graph.py");
        while (!text.empty() && text.back() == '\n') text.pop_back();
        while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
        QCOMPARE(r.out, text);
    }

    void runMatchesPyTorch() {
        auto r = cli({"run", c("mlp/numerics/joint.py"), "--inputs", c("mlp/numerics/joint/inputs"), "--expect",
                      c("mlp/numerics/joint/outputs"), "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(j["ok"].get<bool>());
        QCOMPARE(j["outputs"].size(), size_t(6));
        QVERIFY(j["outputs"][0]["rel_err"].get<double>() <= 1e-4);
        // The fp64 reference run is made (and timed) only when an output is past its tolerance.
        bool past = false;
        for (const auto& o : j["outputs"]) past |= o["rel_err"].get<double>() > o["tolerance"].get<double>();
        QCOMPARE(j.contains("fp64_rerun_ms"), past);
    }

    void runReportsMismatchWithStatus1() {
        // Forward outputs are not the joint graph's outputs: the check must fail, not crash.
        auto r = cli({"run", c("mlp/numerics/forward.py"), "--inputs", c("mlp/numerics/forward/inputs"), "--expect",
                      c("mlp/numerics/backward/inputs")});
        QCOMPARE(r.status, 1);
        QVERIFY(r.out.find("FAIL") != std::string::npos);
        // Failing fp32 outputs are judged against an fp64 reference run, and the run says so.
        QVERIFY2(r.out.find("judged against an fp64 reference run (") != std::string::npos, r.out.c_str());
        auto jr = cli({"run", c("mlp/numerics/forward.py"), "--inputs", c("mlp/numerics/forward/inputs"), "--expect",
                       c("mlp/numerics/backward/inputs"), "--json"});
        QCOMPARE(jr.status, 1);
        auto j = nlohmann::json::parse(jr.out);
        QVERIFY(j.contains("fp64_rerun_ms"));
        QVERIFY(j["fp64_rerun_ms"].get<double>() >= 0.0);
    }

    void runWithoutInputsUsesSeededRandomInputs() {
        auto a = cli({"run", c("mlp/numerics/forward.py"), "--seed", "7", "--out",
                      (fs::temp_directory_path() / "fx_a").string()});
        auto b = cli({"run", c("mlp/numerics/forward.py"), "--seed", "7", "--out",
                      (fs::temp_directory_path() / "fx_b").string()});
        QCOMPARE(a.status, 0);
        QCOMPARE(b.status, 0);
        QCOMPARE(slurp(fs::temp_directory_path() / "fx_a/000.npy"), slurp(fs::temp_directory_path() / "fx_b/000.npy"));
    }

    void badInputExits2WithOneLine_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("pattern");
        QTest::newRow("missing file") << QStringList{"info", "/nonexistent/x.py"} << "/nonexistent/x.py: no such file";
        QTest::newRow("unknown option") << QStringList{"info", "--frob"} << "unknown option --frob";
        QTest::newRow("unknown command") << QStringList{"frobnicate"} << "unknown command 'frobnicate'";
        QTest::newRow("compare with one backend")
            << QStringList{"compare", QString::fromStdString(c("mlp/numerics/forward.py")), "--backends", "ref"}
            << "at least two backends";
        QTest::newRow("compare unknown backend")
            << QStringList{"compare", QString::fromStdString(c("mlp/numerics/forward.py")), "--backends", "ref,tpu"}
            << "unknown backend 'tpu'";
        QTest::newRow("budget out of range")
            << QStringList{"partition", QString::fromStdString(c("mlp/graphs/aot_joint_graph.py")), "--memory-budget",
                           "1.5"}
            << "budget";
        QTest::newRow("partition a forward graph")
            << QStringList{"partition", QString::fromStdString(c("mlp/graphs/aot_forward_graph.py"))}
            << "nothing to partition: a forward graph";
        // It takes tangents, yet PyTorch already partitioned it.
        QTest::newRow("partition a backward graph")
            << QStringList{"partition", QString::fromStdString(c("checkpointed/numerics/backward.py"))}
            << "nothing to partition: a backward graph";
        QTest::newRow("bad backend") << QStringList{"run", QString::fromStdString(c("mlp/numerics/forward.py")),
                                                    "--backend", "tpu"}
                                     << "unknown backend 'tpu'";
        QTest::newRow("input count") << QStringList{"run", QString::fromStdString(c("mlp/numerics/joint.py")),
                                                    "--inputs",
                                                    QString::fromStdString(c("mlp/numerics/forward/inputs"))}
                                     << "has 5 input files but the graph takes 6 inputs";
        QTest::newRow("input shape") << QStringList{"run", QString::fromStdString(c("mlp/numerics/backward.py")),
                                                    "--inputs", QString::fromStdString(c("mlp/numerics/joint/inputs"))}
                                     << "has 6 input files but the graph takes 4";
        QTest::newRow("pin unknown node")
            << QStringList{"run", QString::fromStdString(c("mlp/numerics/forward.py")), "--pin", "nope=x.npy"}
            << "no node 'nope'";
        QTest::newRow("bad graph selector")
            << QStringList{"print", QString::fromStdString(c("mlp/numerics/forward.py")), "--graph",
                           "aot_backward_graph"}
            << "no graph 'aot_backward_graph'";
        QTest::newRow("bad seed") << QStringList{"run", QString::fromStdString(c("mlp/numerics/forward.py")), "--seed",
                                                 "x"}
                                  << "--seed takes";
    }
    void badInputExits2WithOneLine() {
        QFETCH(QStringList, args);
        QFETCH(QString, pattern);
        std::vector<std::string> v;
        for (const auto& s : args) v.push_back(s.toStdString());
        auto r = cli(v);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find(pattern.toStdString()) != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.rfind("fxray: ", 0) == 0, r.err.c_str());
    }

    void syntaxErrorNamesLineAndColumn() {
        auto p = writeTemp("fxray_bad_syntax.py",
                           "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n"
                           "        y: \"f32[2]\" = torch.ops.aten.relu.default(x;\n        return (y,)\n");
        auto r = cli({"info", p.string()});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find(p.string() + ":3:9: unclosed bracket") != std::string::npos, r.err.c_str());
    }

    void wrongInputShapeIsABadInput() {
        // A graph taking f32[2, 3] given an f32[16, 64] file.
        auto dir = fs::temp_directory_path() / "fxray_wrong_shape";
        fs::create_directories(dir);
        fs::copy_file(fxtest::corpus() / "mlp/numerics/forward/inputs/002.npy", dir / "000.npy",
                      fs::copy_options::overwrite_existing);
        auto p =
            writeTemp("fxray_shape.py",
                      "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2, 3]\"):\n"
                      "        y: \"f32[2, 3]\" = torch.ops.aten.relu.default(x);  x = None\n        return (y,)\n");
        auto r = cli({"run", p.string(), "--inputs", dir.string()});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find("node 'x': input 0 expects f32[2, 3], got f32[16, 64]") != std::string::npos,
                 r.err.c_str());
    }

    void unknownOpLoadsButDoesNotRun() {
        auto p =
            writeTemp("fxray_unknown.py",
                      "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n"
                      "        y: \"f32[2]\" = torch.ops.aten.frobnicate.default(x);  x = None\n        return (y,)\n");
        auto info = cli({"info", p.string()});
        QCOMPARE(info.status, 0);
        QVERIFY(info.out.find("unknown ops (graph loads; execution refuses them): aten.frobnicate.default") !=
                std::string::npos);
        auto run = cli({"run", p.string()});
        QCOMPARE(run.status, 2);
        QVERIFY2(run.err.find("unknown op(s) aten.frobnicate.default") != std::string::npos, run.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
