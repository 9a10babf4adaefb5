// `fxray compare`: backends run with the same inputs agree on the corpus graphs (ref vs ref64,
// ref vs the compiled CPU backend) on the outputs and on every node ("node_errors"), and where
// they do not, the first divergent node is the one where the difference starts (fp32
// cancellation: x + 1e8 - 1e8), on the reference and on the CPU backend alike. Random ops give
// the same values on both sides for one seed (the CPU backend's random extern kernels draw from
// fxray's generator as the reference does). Without a GPU, a cuda side is bad setup (exit 2).
#include "cli_test_util.h"

#include "cli/cli.h"
#include "codegen/cuda/cuda_backend.h"
#include "import/npy.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using fxtest::c;
using fxtest::cli;
using Result = fxtest::CliResult;

fs::path writeGraph(const std::string& name, const std::string& text) {
    fs::path p = fs::temp_directory_path() / name;
    std::ofstream(p) << text;
    return p;
}

const char* kCancellation =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, x: \"f32[64][1]cpu\"):\n"
    "        add: \"f32[64][1]cpu\" = torch.ops.aten.add.Tensor(x, 100000000.0);  x = None\n"
    "        sub: \"f32[64][1]cpu\" = torch.ops.aten.sub.Tensor(add, 100000000.0);  add = None\n"
    "        mul: \"f32[64][1]cpu\" = torch.ops.aten.mul.Tensor(sub, 2.0);  sub = None\n"
    "        return (mul,)\n";

/// Every entry of "node_errors" has the contract's keys; returns how many are not ok.
int checkNodeErrors(const nlohmann::json& j) {
    int bad = 0;
    for (const auto& e : j["node_errors"]) {
        if (!e.contains("node") || !e.contains("target") || !e.contains("backend") || !e.contains("rel_err") ||
            !e.contains("max_abs_err") || !e.contains("ok"))
            return -1;
        bad += !e["ok"].get<bool>();
    }
    return bad;
}

}  // namespace

class TestCliCompare : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
    }

    void referenceAgreesWithFp64OnRecordedInputs() {
        auto r = cli({"compare", c("mlp/numerics/forward.py"), "--backends", "ref,ref64", "--inputs",
                      c("mlp/numerics/forward/inputs"), "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(j["ok"].get<bool>());
        QVERIFY(j["first_divergent_node"].is_null());
        QVERIFY(j["first_divergent"]["ref64"].is_null());
        // mlp's forward: t, addmm, relu, t_1, addmm_1.
        QCOMPARE(j["nodes"]["ref64"]["compared"].get<int>(), 5);
        QCOMPARE(j["nodes"]["ref64"]["differ"].get<int>(), 0);
        QCOMPARE(j["node_errors"].size(), size_t(5));
        QCOMPARE(checkNodeErrors(j), 0);
        QCOMPARE(j["node_errors"][1]["node"].get<std::string>(), std::string("addmm"));
        QCOMPARE(j["node_errors"][1]["target"].get<std::string>(), std::string("aten.addmm.default"));
        QCOMPARE(j["node_errors"][1]["backend"].get<std::string>(), std::string("ref64"));
    }

    void cpuBackendAgreesWithReferenceOnEveryNode_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("mlp forward") << "mlp/numerics/forward.py";
        QTest::newRow("gpt2 forward") << "gpt2/numerics/forward.py";
        QTest::newRow("ln_gelu backward") << "ln_gelu/numerics/backward.py";
        QTest::newRow("cond inference") << "cond_subgraph/numerics/inference.py";
    }
    void cpuBackendAgreesWithReferenceOnEveryNode() {
#ifndef FXRAY_HAVE_CPU_BACKEND
        QSKIP("this build has no CPU backend");
#else
        QFETCH(QString, file);
        auto r = cli({"compare", c(file.toStdString()), "--backends", "ref,cpu", "--seed", "3", "--json"});
        QVERIFY2(r.status == 0, (r.err + r.out).c_str());
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(j["ok"].get<bool>());
        QVERIFY(!j["outputs"].empty());
        QVERIFY(!j.contains("outputs_only"));
        QVERIFY(j["node_errors"].size() >= 3);
        QCOMPARE(j["node_errors"].size(), j["nodes"]["cpu"]["compared"].get<size_t>());
        QCOMPARE(checkNodeErrors(j), 0);
        QVERIFY(j["first_divergent"]["cpu"].is_null());
#endif
    }

    void firstDivergentNodeIsWhereCancellationHappens() {
        fs::path p = writeGraph("fxray_compare_cancel.py", kCancellation);
        auto r = cli({"compare", p.string(), "--backends", "ref64,ref", "--json"});
        QCOMPARE(r.status, 1);
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(!j["ok"].get<bool>());
        // x + 1e8 keeps about 8 significant digits in fp32 either way; subtracting 1e8 leaves
        // only the rounding error, so `sub` is the first node whose values disagree.
        QCOMPARE(j["first_divergent_node"]["node"].get<std::string>(), std::string("sub"));
        QCOMPARE(j["first_divergent"]["ref"]["node"].get<std::string>(), std::string("sub"));
        QCOMPARE(j["node_errors"].size(), size_t(3));
        QCOMPARE(j["node_errors"][0]["node"].get<std::string>(), std::string("add"));
        QVERIFY(j["node_errors"][0]["ok"].get<bool>());
        QVERIFY(!j["node_errors"][1]["ok"].get<bool>());
        QVERIFY(!j["node_errors"][2]["ok"].get<bool>());
        // Text mode names it too, with the worst nodes.
        auto t = cli({"compare", p.string(), "--backends", "ref64,ref"});
        QCOMPARE(t.status, 1);
        QVERIFY2(t.out.find("first divergent node: sub (aten.sub.Tensor") != std::string::npos, t.out.c_str());
        QVERIFY(t.out.find("worst nodes:") != std::string::npos);
        fs::remove(p);
    }

    /// A node that an in-place op later writes over has two values: the reference reports it when
    /// it runs, a compiled backend its buffer at the end. Such nodes, and unwritten `empty`
    /// buffers, are not judged; the writing node is. PyTorch's OpInfo graphs do this (fmax's
    /// backward: `logical_or_(ge_1, ...)` then `logical_not_`; quantile's: `squeeze_(lerp_, -1)`;
    /// addcdiv's: `fill_(empty_like, 3.14)` then `div_`), and compare called them divergent.
    void nodesOverwrittenInPlaceAreNotJudged_data() {
        QTest::addColumn<QString>("dir");
        QTest::addColumn<QString>("skipped");
        QTest::addColumn<QString>("judged");
        QTest::newRow("fmax backward") << "fmax__default__s0"
                                       << "logical_or__1"
                                       << "logical_not_";
        QTest::newRow("quantile backward") << "quantile__default__s0"
                                           << "lerp_"
                                           << "squeeze_";
        QTest::newRow("addcdiv backward") << "addcdiv__default__s1"
                                          << "fill_"
                                          << "div_";
    }
    void nodesOverwrittenInPlaceAreNotJudged() {
#ifndef FXRAY_HAVE_CPU_BACKEND
        QSKIP("this build has no CPU backend");
#else
        QFETCH(QString, dir);
        QFETCH(QString, skipped);
        QFETCH(QString, judged);
        const fs::path num = fxtest::corpus().parent_path() / "opinfo" / dir.toStdString() / "numerics";
        if (!fs::exists(num)) QSKIP("../shared/opinfo not found beside the corpus");
        auto r = cli({"compare", (num / "backward.py").string(), "--backends", "ref,cpu", "--inputs",
                      (num / "backward/inputs").string(), "--json"});
        QVERIFY2(r.status == 0, (r.err + r.out).c_str());
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(j["ok"].get<bool>());
        QCOMPARE(checkNodeErrors(j), 0);
        bool sawSkipped = false, sawJudged = false;
        for (const auto& e : j["node_errors"]) {
            sawSkipped |= e["node"] == skipped.toStdString();
            sawJudged |= e["node"] == judged.toStdString();
        }
        QVERIFY2(!sawSkipped, qPrintable(skipped));
        QVERIFY2(sawJudged, qPrintable(judged));
#endif
    }

    /// A wrong value is still found when an in-place op follows: `add` is not judged (mul_ writes
    /// over it), and `mul_`, which holds the wrong number on one side, is.
    void inPlaceWriterIsStillJudged() {
        fs::path p = writeGraph("fxray_compare_inplace.py",
                                "class GraphModule(torch.nn.Module):\n"
                                "    def forward(self, x: \"f32[64][1]cpu\"):\n"
                                "        add: \"f32[64][1]cpu\" = torch.ops.aten.add.Tensor(x, 100000000.0)\n"
                                "        mul_: \"f32[64][1]cpu\" = torch.ops.aten.mul_.Tensor(add, 1.0)\n"
                                "        sub: \"f32[64][1]cpu\" = torch.ops.aten.sub.Tensor(mul_, 100000000.0)\n"
                                "        return (sub,)\n");
        auto r = cli({"compare", p.string(), "--backends", "ref64,ref", "--json"});
        QCOMPARE(r.status, 1);
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["node_errors"].size(), size_t(2));
        QCOMPARE(j["node_errors"][0]["node"].get<std::string>(), std::string("mul_"));
        QCOMPARE(j["first_divergent_node"]["node"].get<std::string>(), std::string("sub"));
        fs::remove(p);
    }

    /// An in-place write through a view overwrites the view's base too: neither is judged.
    void inPlaceWriteThroughAViewLeavesItsBase() {
#ifndef FXRAY_HAVE_CPU_BACKEND
        QSKIP("this build has no CPU backend");
#else
        fs::path p = writeGraph("fxray_compare_inplace_view.py",
                                "class GraphModule(torch.nn.Module):\n"
                                "    def forward(self, x: \"f32[2, 4][4, 1]cpu\"):\n"
                                "        add: \"f32[2, 4][4, 1]cpu\" = torch.ops.aten.add.Tensor(x, 1.0)\n"
                                "        view: \"f32[8][1]cpu\" = torch.ops.aten.view.default(add, [8])\n"
                                "        exp: \"f32[8][1]cpu\" = torch.ops.aten.exp.default(view)\n"
                                "        mul_: \"f32[8][1]cpu\" = torch.ops.aten.mul_.Tensor(view, 2.0)\n"
                                "        sum_1: \"f32[][]cpu\" = torch.ops.aten.sum.default(mul_)\n"
                                "        return (exp, sum_1)\n");
        auto r = cli({"compare", p.string(), "--backends", "ref,cpu", "--seed", "2", "--json"});
        QVERIFY2(r.status == 0, (r.err + r.out).c_str());
        auto j = nlohmann::json::parse(r.out);
        std::set<std::string> judged;
        for (const auto& e : j["node_errors"]) judged.insert(e["node"].get<std::string>());
        QCOMPARE(judged, (std::set<std::string>{"exp", "mul_", "sum_1"}));
        fs::remove(p);
#endif
    }

    /// A relu decision on a near-tie moves one whole gradient element: x[5] = 1e-8 survives
    /// (x + 1) - 1 in fp64 but rounds to 0 in fp32, so threshold_backward passes its gradient on
    /// one side and zeroes it on the other, while every other element agrees. This is how
    /// resnet18's joint graph diverged on an OpenBLAS-Prescott host (1 of 16384 elements of
    /// threshold_backward_9); compare says how many elements are off and shows the worst.
    void divergenceOnANearTieIsOneElement() {
        fs::path p = writeGraph("fxray_compare_near_tie.py",
                                "class GraphModule(torch.nn.Module):\n"
                                "    def forward(self, x: \"f32[64][1]cpu\", g: \"f32[64][1]cpu\"):\n"
                                "        add: \"f32[64][1]cpu\" = torch.ops.aten.add.Tensor(x, 1.0);  x = None\n"
                                "        sub: \"f32[64][1]cpu\" = torch.ops.aten.sub.Tensor(add, 1.0);  add = None\n"
                                "        relu: \"f32[64][1]cpu\" = torch.ops.aten.relu.default(sub);  sub = None\n"
                                "        threshold_backward: \"f32[64][1]cpu\" = "
                                "torch.ops.aten.threshold_backward.default(g, relu, 0);  g = relu = None\n"
                                "        return (threshold_backward,)\n");
        fs::path in = fs::temp_directory_path() / "fxray_compare_near_tie_in";
        fs::create_directories(in);
        fxray::Tensor x = fxray::Tensor::empty({64}, fxray::DType::Float32),
                      g = fxray::Tensor::empty({64}, fxray::DType::Float32);
        for (int i = 0; i < 64; ++i) {
            x.data<float>()[i] = i == 5 ? 1e-8f : 0.5f + 0.01f * static_cast<float>(i);
            g.data<float>()[i] = 1.0f + 0.1f * static_cast<float>(i);
        }
        QVERIFY(fxray::writeNpy(in / "000.npy", x).ok());
        QVERIFY(fxray::writeNpy(in / "001.npy", g).ok());
        auto r = cli({"compare", p.string(), "--backends", "ref64,ref", "--inputs", in.string(), "--json"});
        QCOMPARE(r.status, 1);
        auto j = nlohmann::json::parse(r.out);
        // add, sub and relu agree (1e-8 is far below the tolerance); the mask does not.
        QCOMPARE(j["first_divergent_node"]["node"].get<std::string>(), std::string("threshold_backward"));
        const auto& f = j["first_divergent"]["ref"];
        QCOMPARE(f["elements"].get<int64_t>(), int64_t(64));
        QCOMPARE(f["elements_off"].get<int64_t>(), int64_t(1));
        QVERIFY2(f["worst_element"]["index"] == nlohmann::json::array({5}), f.dump().c_str());
        QCOMPARE(f["worst_element"]["value"].get<double>(), 0.0);
        QCOMPARE(f["worst_element"]["base"].get<double>(), static_cast<double>(1.5f));
        for (const auto& e : j["node_errors"])
            if (e["ok"].get<bool>()) QVERIFY(!e.contains("elements_off"));
        auto t = cli({"compare", p.string(), "--backends", "ref64,ref", "--inputs", in.string()});
        QCOMPARE(t.status, 1);
        QVERIFY2(t.out.find("1 of 64 elements off; worst at [5]: ref 0, ref64 1.5") != std::string::npos,
                 t.out.c_str());
        fs::remove_all(in);
        fs::remove(p);
    }

    /// The same cancellation through the compiled CPU backend: its node values (from the compile
    /// with every node an output) localise the divergence at `sub` as the reference's do.
    void cpuBackendLocalisesTheDivergence() {
#ifndef FXRAY_HAVE_CPU_BACKEND
        QSKIP("this build has no CPU backend");
#else
        fs::path p = writeGraph("fxray_compare_cancel_cpu.py", kCancellation);
        auto r = cli({"compare", p.string(), "--backends", "ref64,ref,cpu", "--json"});
        QCOMPARE(r.status, 1);
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["first_divergent"]["cpu"]["node"].get<std::string>(), std::string("sub"));
        QCOMPARE(j["first_divergent"]["ref"]["node"].get<std::string>(), std::string("sub"));
        QCOMPARE(j["nodes"]["cpu"]["compared"].get<int>(), 3);
        // Graph order, then backend order: add/ref, add/cpu, sub/ref, ...
        QCOMPARE(j["node_errors"].size(), size_t(6));
        QCOMPARE(j["node_errors"][1]["node"].get<std::string>(), std::string("add"));
        QCOMPARE(j["node_errors"][1]["backend"].get<std::string>(), std::string("cpu"));
        QVERIFY(j["node_errors"][1]["ok"].get<bool>());
        fs::remove(p);
#endif
    }

    /// randperm and native_dropout on the CPU backend are extern kernels drawing from fxray's
    /// generator in the reference's order: with one seed, the permutation and the mask are the
    /// same as the reference's (compared exactly: int64 and bool), and nothing falls back.
    void randomOpsMatchTheReferenceForOneSeed() {
#ifndef FXRAY_HAVE_CPU_BACKEND
        QSKIP("this build has no CPU backend");
#else
        fs::path p =
            writeGraph("fxray_compare_random.py",
                       "class GraphModule(torch.nn.Module):\n"
                       "    def forward(self, x: \"f32[512][1]cpu\"):\n"
                       "        randperm: \"i64[100][1]cpu\" = torch.ops.aten.randperm.default(100, device = "
                       "device(type='cpu'), pin_memory = False)\n"
                       "        native_dropout = torch.ops.aten.native_dropout.default(x, 0.5, True);  x = None\n"
                       "        getitem: \"f32[512][1]cpu\" = native_dropout[0]\n"
                       "        getitem_1: \"b8[512][1]cpu\" = native_dropout[1];  native_dropout = None\n"
                       "        return (randperm, getitem, getitem_1)\n");
        auto r = cli({"compare", p.string(), "--backends", "ref,cpu", "--seed", "7", "--json"});
        QVERIFY2(r.status == 0, (r.err + r.out).c_str());
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["nodes"]["cpu"]["compared"].get<int>(), 3);  // randperm, getitem, getitem_1
        QCOMPARE(checkNodeErrors(j), 0);
        fs::path out = fs::temp_directory_path() / "fxray_compare_random_out";
        auto run = cli({"run", p.string(), "--backend", "cpu", "--seed", "7", "--json", "--out", out.string()});
        QVERIFY2(run.status == 0, run.err.c_str());
        auto jr = nlohmann::json::parse(run.out);
        QVERIFY(jr["fallbacks"].empty());
        QCOMPARE(jr["extern_calls"].get<int>(), 2);
        // The mask is a real draw: about half of 512 kept, and the permutation is one.
        auto mask = fxray::readNpy(out / "002.npy");
        QVERIFY(mask.ok());
        double kept = 0;
        for (double v : fxtest::values(fxray::Value::ofTensor(*mask))) kept += v;
        QVERIFY(kept > 200 && kept < 312);
        auto perm = fxray::readNpy(out / "000.npy");
        QVERIFY(perm.ok());
        auto pv = fxtest::values(fxray::Value::ofTensor(*perm));
        std::sort(pv.begin(), pv.end());
        for (size_t i = 0; i < pv.size(); ++i) QCOMPARE(pv[i], double(i));
        fs::remove_all(out);
        fs::remove(p);
#endif
    }

    /// One input loader (cli/common.h) for run, compare and debug-compile: a folder with another
    /// number of files than the graph has inputs is bad input everywhere.
    void inputFolderWithWrongCountIsBadInput() {
        const std::string wrong = c("mlp/numerics/forward/outputs");  // 4 files, the graph takes 5 inputs
        for (std::vector<std::string> args :
             {std::vector<std::string>{"compare", c("mlp/numerics/forward.py"), "--backends", "ref,ref64"},
              std::vector<std::string>{"run", c("mlp/numerics/forward.py")},
              std::vector<std::string>{"debug-compile", c("mlp/numerics/forward.py"), "--out",
                                       (fs::temp_directory_path() / "fxray_dc_wrong").string()}}) {
            args.push_back("--inputs");
            args.push_back(wrong);
            auto r = cli(args);
            QCOMPARE(r.status, 2);
            QVERIFY2(r.err.find("has 4 input files but the graph takes 5 inputs") != std::string::npos, r.err.c_str());
        }
    }

    void cudaWithoutDeviceIsBadSetup() {
        if (fxray::cg::cuda::requireDevice().ok()) QSKIP("a CUDA device is present");
        auto r = cli({"compare", c("mlp/numerics/forward.py"), "--backends", "ref,cuda", "--json"});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find("no CUDA device") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("cuda") != std::string::npos, r.err.c_str());
        QVERIFY(r.out.empty());
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"
