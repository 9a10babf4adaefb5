// `fxray compile`: the JSON of CLI.md (nodes_before, nodes_after, ms, passes with matches),
// --dump-dir (one FX file per pass that changed the graph, trace.json with near-misses and
// provenance), --skip, --print-after-all, --out, and exit statuses for bad usage.
#include "cli_test_util.h"

#include "cli/cli.h"
#include "import/fx_text_reader.h"

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

fs::path freshDir(const std::string& name) {
    auto d = fs::temp_directory_path() / name;
    fs::remove_all(d);
    return d;
}

}  // namespace

class TestCliCompile : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
    }

    void jsonHasTheDocumentedKeys() {
        auto r = cli({"compile", c("attention/numerics/joint.py"), "--pipeline", "joint", "--json"});
        QCOMPARE(r.status, 0);
        auto j = nlohmann::json::parse(r.out);
        // 84 op nodes + 3 getitem of split in the corpus joint graph.
        QCOMPARE(j["nodes_before"].get<int>(), 87);
        QVERIFY(j["nodes_after"].get<int>() < 87);
        QVERIFY(j["ms"].is_number());
        bool attention = false;
        for (const auto& p : j["passes"]) {
            QVERIFY(p.contains("name") && p.contains("changed") && p.contains("ms") && p.contains("matches"));
            if (p["name"] == "fuse_attention") {
                QCOMPARE(p["matches"].size(), size_t(1));
                QCOMPARE(p["matches"][0]["pattern"].get<std::string>(), std::string("sfdp_mul_training"));
                // The match covers both softmax and its backward.
                auto nodes = p["matches"][0]["nodes"].get<std::vector<std::string>>();
                QVERIFY(std::find(nodes.begin(), nodes.end(), "_softmax") != nodes.end());
                QVERIFY(std::find(nodes.begin(), nodes.end(), "_softmax_backward_data") != nodes.end());
                attention = p["changed"].get<bool>();
            }
        }
        QVERIFY(attention);
    }

    void dumpDirHoldsOneFilePerChange() {
        auto dir = freshDir("fxray_compile_dump");
        auto r = cli({"compile", c("attention_infer/numerics/inference.py"), "--dump-dir", dir.string(), "--json"});
        QCOMPARE(r.status, 0);
        QVERIFY(fs::exists(dir / "00_input.py"));
        QVERIFY(fs::exists(dir / "trace.json"));
        std::ifstream tf(dir / "trace.json");
        auto trace = nlohmann::json::parse(tf);
        size_t changed = 0;
        for (const auto& p : trace["passes"]) changed += p["changed"].get<bool>();
        auto files = trace["files"].get<std::vector<std::string>>();
        QCOMPARE(files.size(), changed + 1);
        for (const auto& f : files) {
            // Every dump is FX text the reader accepts.
            std::ifstream in(dir / f);
            std::stringstream ss;
            ss << in.rdbuf();
            QVERIFY2(fxray::readFxText(ss.str(), f).ok(), f.c_str());
        }
        // The pass files are named after the pass, numbered by position in the pipeline.
        QVERIFY(fs::exists(dir / "04_fuse_attention.py"));
        // trace.json carries provenance events and near-misses in full.
        bool created = false;
        for (const auto& p : trace["passes"])
            for (const auto& e : p["events"])
                created = created || (e["kind"] == "created" &&
                                      e["target"] == "aten._scaled_dot_product_efficient_attention.default");
        QVERIFY(created);
    }

    void skipAndOut() {
        auto out = fs::temp_directory_path() / "fxray_compile_out.py";
        auto r = cli({"compile", c("attention_infer/numerics/inference.py"), "--skip", "fuse_attention", "--out",
                      out.string(), "--json"});
        QCOMPARE(r.status, 0);
        auto j = nlohmann::json::parse(r.out);
        for (const auto& p : j["passes"])
            if (p["name"] == "fuse_attention") QVERIFY(p["skipped"].get<bool>());
        std::ifstream in(out);
        std::stringstream ss;
        ss << in.rdbuf();
        QVERIFY(ss.str().find("_softmax") != std::string::npos);
        QVERIFY(ss.str().find("scaled_dot_product") == std::string::npos);
    }

    void printAfterAll() {
        auto r = cli({"compile", c("mlp/numerics/joint.py"), "--print-after-all"});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.find("# ----- after remove_noop_ops -----\n") != std::string::npos);
        QVERIFY(r.out.find("# ----- after stable_topological_sort -----\n") != std::string::npos);
    }

    /// Freezing with the recorded parameter values: the three linears sharing x become one
    /// addmm on concatenated weights (PyTorch's fx_graph_transformed has one mm on a [64, 96]
    /// frozen weight); the preserved inputs are reported as a match of `freeze`.
    void freezingPipeline() {
        auto r = cli({"compile", c("three_linear_freeze/numerics/inference.py"), "--pipeline", "freezing", "--inputs",
                      c("three_linear_freeze/numerics/inference/inputs"), "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        std::set<std::string> patterns;
        for (const auto& p : j["passes"])
            for (const auto& m : p["matches"]) patterns.insert(m["pattern"].get<std::string>());
        QVERIFY(patterns.count("addmm_fuse_pattern_second"));
        QVERIFY(patterns.count("preserved_inputs"));
    }

    /// The inductor pipeline on a torch-level Dynamo graph: pre-grad passes, lowering to ATen,
    /// then the joint and post-grad passes.
    void inductorPipeline() {
        auto r = cli({"compile", c("mlp/numerics/dynamo.py"), "--pipeline", "inductor", "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        std::vector<std::string> names;
        for (const auto& p : j["passes"]) names.push_back(p["name"].get<std::string>());
        auto at = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
        QVERIFY(at("remove_eval_dropout") < at("lower_to_aten"));
        QVERIFY(at("lower_to_aten") < at("fuse_attention"));
        QVERIFY(at("fuse_attention") < at("remove_assert_ops"));
        QVERIFY(at("remove_assert_ops") < long(names.size()));
    }

    /// A Dynamo graph compiled for a backend is lowered to ATen first, as `fxray run` runs it:
    /// its conv2d, batch_norm and flatten reach the CPU backend's kernels, not the fallback list
    /// as torch.conv2d and friends.
    void dynamoGraphCompilesLoweredForABackend() {
#if defined(FXRAY_HAVE_CPU_BACKEND)
        auto r = cli({"compile", c("convbn_freeze/numerics/dynamo.py"), "--backend", "cpu", "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j.value("lowered_to_aten", false), true);
        QVERIFY2(j["backend"]["fallbacks"].empty(), j["backend"]["fallbacks"].dump().c_str());
        bool conv = false;
        for (const auto& gr : j["backend"]["groups"]) conv = conv || gr.value("name", "") == "conv2d";
        QVERIFY2(conv, j["backend"]["groups"].dump().c_str());
#else
        QSKIP("built without the CPU backend (LLVM)");
#endif
    }

    void badUsageExits2() {
        auto r = cli({"compile", c("mlp/numerics/joint.py"), "--skip", "no_such_pass"});
        QCOMPARE(r.status, 2);
        QVERIFY(r.err.find("no pass 'no_such_pass'") != std::string::npos);
        r = cli({"compile", c("mlp/numerics/joint.py"), "--pipeline", "nonsense"});
        QCOMPARE(r.status, 2);
        QVERIFY(r.err.find("unknown pipeline 'nonsense'") != std::string::npos);
        r = cli({"compile", c("mlp/numerics/joint.py"), "--backend", "cuda"});
        QCOMPARE(r.status, 2);
        r = cli({"compile", "/no/such/file.py"});
        QCOMPARE(r.status, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliCompile)
#include "tst_cli_compile.moc"
