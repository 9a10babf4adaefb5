// fxray minify and debug-compile: the PyTorch minifier anchors of the corpus (the same fault —
// the op's output scaled by 1.01 — on the same joint graphs must end at no more nodes, with no
// more queries, and never slip to another op), pass failures, crashes and hangs found in isolated
// query processes, command checks, the written repro folder, and the messages for bad specs.
// Queries run in the fxray executable of this build tree (../app/fxray), which must be built.
#include "cli_test_util.h"

#include "cli/cli.h"
#include "minify/subprocess.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
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

fs::path tempDir(const std::string& name) {
    auto d = fs::temp_directory_path() / ("fxray_tst_minify_" + name);
    fs::remove_all(d);
    return d;
}

size_t countOp(const std::string& text, const std::string& op) {
    size_t n = 0;
    for (size_t p = text.find("torch.ops." + op + "("); p != std::string::npos;
         p = text.find("torch.ops." + op + "(", p + 1))
        ++n;
    return n;
}

}  // namespace

class TestCliMinify : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        if (fxray::minify::findFxrayExecutable().empty())
            QSKIP("the fxray executable is not built next to this test (ninja fxray); queries run in it");
    }

    void pytorchAnchors_data() {
        QTest::addColumn<QString>("model");
        // resnet18 (527 nodes) runs in bench_minify: its joint graph takes seconds per query on
        // the reference executor.
        QTest::newRow("mlp") << "mlp";
        QTest::newRow("attention") << "attention";
        QTest::newRow("ln_gelu") << "ln_gelu";
    }
    void pytorchAnchors() {
        QFETCH(QString, model);
        const std::string m = model.toStdString();
        auto summary = nlohmann::json::parse(slurp(fxtest::corpus() / m / "summary.json"))["minifier"];
        const std::string bugOp = summary["bug_op"].get<std::string>();
        auto out = tempDir(m);
        auto r = cli({"minify", c(m + "/graphs/aot_joint_graph.py"), "--inject", bugOp + ":scale=1.01", "--out",
                      out.string(), "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        // The same joint graph as PyTorch's run.
        QCOMPARE(j["nodes_before"].get<int>(), summary["nodes_before"].get<int>());
        QVERIFY2(j["nodes_after"].get<int>() <= summary["nodes_after"].get<int>(), r.out.c_str());
        QVERIFY2(j["queries"].get<int>() <= summary["queries"].get<int>(), r.out.c_str());
        // Never slipping: the failure is still the injected op's.
        QCOMPARE(j["signature"].get<std::string>(), "accuracy:ref-vs-ref:mismatch@" + bugOp);
        std::string text = slurp(out / "minified.py");
        QCOMPARE(countOp(text, bugOp), size_t(1));
        // The progress line.
        QVERIFY(r.err.find("minify: ") != std::string::npos);
        // The repro folder.
        std::string repro = slurp(out / "repro.py");
        QVERIFY(repro.find("class Repro(torch.nn.Module):") != std::string::npos);
        QVERIFY(repro.find("class ReproInjected(torch.nn.Module):") != std::string::npos);
        QVERIFY(repro.find("torch.ops." + bugOp + "(") != std::string::npos);
        QVERIFY(repro.find("* 1.01  # injected fault") != std::string::npos);
        QVERIFY(fs::exists(out / "inputs" / "000.npy"));
        auto session = nlohmann::json::parse(slurp(out / "session.json"));
        QCOMPARE(session["nodes_after"].get<int>(), j["nodes_after"].get<int>());
        // The fxray session of the result opens like any file: the same graph, same size.
        auto info = cli({"info", (out / "minified.fxray").string(), "--json"});
        QVERIFY2(info.status == 0, info.err.c_str());
        QCOMPARE(nlohmann::json::parse(info.out)["graphs"][0]["nodes"].get<int>(), j["nodes_after"].get<int>());
        // The minimized folder minifies again to itself and still fails the same way.
        auto again = cli({"minify", (out / "minified.py").string(), "--inputs", (out / "inputs").string(), "--inject",
                          bugOp + ":scale=1.01", "--json", "--quiet"});
        QVERIFY2(again.status == 0, again.err.c_str());
        auto j2 = nlohmann::json::parse(again.out);
        QCOMPARE(j2["nodes_after"].get<int>(), j["nodes_after"].get<int>());
        QCOMPARE(j2["signature"].get<std::string>(), j["signature"].get<std::string>());
        fs::remove_all(out);
    }

    /// The compiled CPU backend as one side of the accuracy check: an injected fault on the CPU
    /// side shrinks like on the reference side, and with no fault the two sides agree (exit 1:
    /// nothing to minify), which is itself a check of the CPU backend.
    void cpuBackendSide() {
#ifndef FXRAY_HAVE_CPU_BACKEND
        QSKIP("this build has no CPU backend");
#else
        auto r = cli({"minify", c("mlp/graphs/aot_joint_graph.py"), "--check", "accuracy:ref-vs-cpu", "--inject",
                      "aten.relu.default:scale=1.01", "--json", "--quiet", "--out", tempDir("cpu").string()});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["nodes_before"].get<int>(), 29);
        QVERIFY(j["nodes_after"].get<int>() <= 4);  // PyTorch's minifier: 29 -> 4
        QVERIFY(j["signature"].get<std::string>().find("ref-vs-cpu") != std::string::npos);
        auto clean = cli({"minify", c("mlp/graphs/aot_joint_graph.py"), "--check", "accuracy:ref-vs-cpu", "--quiet"});
        QCOMPARE(clean.status, 1);
#endif
    }

    void parallelJobsGiveTheSameResult() {
        auto r =
            cli({"minify", c("mlp/graphs/aot_joint_graph.py"), "--inject", "aten.threshold_backward.default:scale=1.01",
                 "--jobs", "2", "--no-localize", "--json", "--quiet"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["nodes_after"].get<int>(), 4);  // threshold_backward(mm, detach_1, 0): PyTorch's result
        QCOMPARE(j["jobs"].get<int>(), 2);
    }

    void passFailureIsBisectedAndMinified() {
        auto out = tempDir("passfail");
        auto r = cli({"minify", c("ln_gelu/graphs/aot_joint_graph.py"), "--check", "pass-fails:dce:holds aten.gelu",
                      "--inject", "aten.gelu.default:fail-in=dce", "--out", out.string(), "--json", "--quiet"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["signature"].get<std::string>(), std::string("pass-fails:dce:failed"));
        QCOMPARE(j["nodes_after"].get<int>(), 3);  // an input, gelu, output
        QVERIFY(j["bisection"].get<std::string>().find("(dce)") != std::string::npos);
        QVERIFY(j["passes"] == nlohmann::json({"dce"}));
        QCOMPARE(countOp(slurp(out / "minified.py"), "aten.gelu.default"), size_t(1));
        // Not PyTorch-visible: the repro says so and names the fxray command.
        std::string repro = slurp(out / "repro.py");
        QVERIFY(repro.find("not visible in PyTorch eager") != std::string::npos);
        QVERIFY(repro.find("--passes dce") != std::string::npos);
        fs::remove_all(out);
    }

    void crashInAPassIsAResult() {
        auto r = cli({"minify", c("ln_gelu/graphs/aot_joint_graph.py"), "--check", "pass-fails:dce:SIGSEGV", "--inject",
                      "aten.gelu.default:crash-in=dce", "--json", "--quiet"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["signature"].get<std::string>(), std::string("pass-fails:dce:crashed(SIGSEGV)"));
        QCOMPARE(j["nodes_after"].get<int>(), 3);
    }

    void hangIsATimeout() {
        auto r = cli({"minify", c("mlp/graphs/aot_joint_graph.py"), "--check", "pass-fails:dce:timed out", "--inject",
                      "aten.threshold_backward.default:hang-in=dce", "--timeout", std::to_string(fxtest::slowdown()),
                      "--json", "--quiet"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["signature"].get<std::string>(), std::string("pass-fails:dce:timed-out"));
        QVERIFY(j["nodes_after"].get<int>() <= 4);
    }

    void commandCheck() {
        auto r = cli({"minify", c("ln_gelu/graphs/aot_joint_graph.py"), "--check",
                      "command:grep -q 'aten.gelu.default(' graph.py", "--json", "--quiet"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["signature"].get<std::string>(), std::string("command:exit-0"));
        QCOMPARE(j["nodes_after"].get<int>(), 3);
    }

    void fp32CancellationNeedsTwoNodes() {
        // (x * relu(w) + 1e8) - 1e8 in fp32 keeps multiples of 8; fp64 keeps x * relu(w). The
        // sides first part at sub, but sub alone on fp32 inputs is exact in both precisions: the
        // smallest failing graph is add and sub together (an input, add, sub, output).
        auto file = fs::temp_directory_path() / "fxray_tst_minify_cancel.py";
        std::ofstream(file) << "class GraphModule(torch.nn.Module):\n"
                               "    def forward(self, x: \"f32[64][1]cpu\", w: \"f32[64][1]cpu\"):\n"
                               "        relu: \"f32[64][1]cpu\" = torch.ops.aten.relu.default(w)\n"
                               "        mul: \"f32[64][1]cpu\" = torch.ops.aten.mul.Tensor(x, relu)\n"
                               "        add: \"f32[64][1]cpu\" = torch.ops.aten.add.Tensor(mul, 100000000.0)\n"
                               "        sub: \"f32[64][1]cpu\" = torch.ops.aten.sub.Tensor(add, 100000000.0)\n"
                               "        exp: \"f32[64][1]cpu\" = torch.ops.aten.exp.default(w)\n"
                               "        mul_1: \"f32[64][1]cpu\" = torch.ops.aten.mul.Tensor(sub, exp)\n"
                               "        neg: \"f32[64][1]cpu\" = torch.ops.aten.neg.default(mul_1)\n"
                               "        return (neg, exp)\n";
        auto r = cli({"minify", file.string(), "--check", "accuracy:ref64-vs-ref32", "--json", "--quiet"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["signature"].get<std::string>(), std::string("accuracy:ref64-vs-ref:mismatch@aten.sub.Tensor"));
        QCOMPARE(j["nodes_after"].get<int>(), 4);
        fs::remove(file);
    }

    void graphThatDoesNotFailExitsOne() {
        auto r = cli({"minify", c("mlp/graphs/aot_joint_graph.py"), "--inject", "aten.gelu.default:scale=1.01"});
        QCOMPARE(r.status, 1);
        QVERIFY2(r.err.find("does not show the failure") != std::string::npos, r.err.c_str());
    }

    void badSpecsExitTwo_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown kind") << QStringList{"--check", "speed:fast"} << "unknown check kind 'speed'";
        QTest::newRow("unknown pass") << QStringList{"--check", "pass-fails:frob:x"} << "unknown pass 'frob'";
        QTest::newRow("bad side") << QStringList{"--check", "accuracy:ref-vs-tpu"} << "unknown side";
        QTest::newRow("no cpu backend") << QStringList{"--check", "accuracy:ref-vs-cpu"}
                                        << "backend 'cpu' is not available";
        QTest::newRow("bad scale") << QStringList{"--inject", "aten.tanh.default:scale=x"} << "finite number";
        QTest::newRow("nothing to check") << QStringList{} << "at least one --check";
        QTest::newRow("bad jobs") << QStringList{"--inject", "aten.tanh.default:scale=2", "--jobs", "0"} << "--jobs";
    }
    void badSpecsExitTwo() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
#ifdef FXRAY_HAVE_CPU_BACKEND
        if (message.contains("backend 'cpu'")) QSKIP("this build has the CPU backend");
#endif
        std::vector<std::string> a = {"minify", c("mlp/graphs/aot_joint_graph.py")};
        for (const auto& s : args) a.push_back(s.toStdString());
        auto r = cli(a);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find(message.toStdString()) != std::string::npos, r.err.c_str());
        QCOMPARE(std::count(r.err.begin(), r.err.end(), '\n'), 1L);  // one line
    }

    void debugCompileSavesAndPrintsCommands() {
        auto out = tempDir("debug_compile");
        auto r = cli({"debug-compile", c("mlp/graphs/aot_joint_graph.py"), "--out", out.string()});
        QVERIFY2(r.status == 0, r.err.c_str());
        QVERIFY(fs::exists(out / "graph.py"));
        QVERIFY(fs::exists(out / "inputs" / "005.npy"));  // six placeholders
        QVERIFY(!fs::exists(out / "inputs" / "006.npy"));
        QVERIFY(fs::exists(out / "repro.py"));
        QVERIFY(r.out.find("fxray minify " + (out / "graph.py").string()) != std::string::npos);
        QVERIFY(r.out.find("--check accuracy:ref64-vs-ref32") != std::string::npos);
        // The saved folder is a valid minify input: the printed fault-injection command works.
        auto m = cli({"minify", (out / "graph.py").string(), "--inputs", (out / "inputs").string(), "--inject",
                      "aten.threshold_backward.default:scale=1.01", "--json", "--quiet"});
        QVERIFY2(m.status == 0, m.err.c_str());
        QCOMPARE(nlohmann::json::parse(m.out)["nodes_after"].get<int>(), 4);
        fs::remove_all(out);
    }
};

QTEST_GUILESS_MAIN(TestCliMinify)
#include "tst_cli_minify.moc"
