// fxray bench: a compiled graph's median time and its steps sorted by time, with the bytes and
// FLOPs each must move and compute. On the corpus's mlp forward (CPU backend): the two GEMMs'
// FLOPs are 2*M*N*K from the graph's annotations, their bytes at least their operands' and
// result's sizes, every computing node belongs to a step, the steps come sorted and add up to the
// profiled run; bad options and files exit 2 with a message.
#include "cli_test_util.h"

#include "codegen/cuda/cuda_api.h"

#include <nlohmann/json.hpp>

#include <set>

using fxtest::c;
using fxtest::cli;

class TestCliBench : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
    }

    void cpuStepsOfMlpForward() {
#if !defined(FXRAY_HAVE_CPU_BACKEND)
        QSKIP("no CPU backend in this build");
#endif
        auto r = cli({"bench", c("mlp/numerics/forward.py"), "--backend", "cpu", "--iters", "3", "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["backend"].get<std::string>(), std::string("cpu"));
        QCOMPARE(j["iters"].get<int>(), 3);
        QVERIFY(j["median_ms"].get<double>() > 0);
        QVERIFY(j["min_ms"].get<double>() <= j["median_ms"].get<double>());
        const auto& steps = j["steps"];
        QVERIFY(steps.size() >= 3);
        double sum = 0, prev = 1e300;
        std::set<std::string> nodes;
        std::map<std::string, nlohmann::json> byNode;
        for (const auto& s : steps) {
            QVERIFY(s["ms"].get<double>() <= prev);  // sorted by time, slowest first
            prev = s["ms"].get<double>();
            sum += prev;
            QVERIFY(!s["nodes"].empty());
            for (const auto& n : s["nodes"]) {
                nodes.insert(n.get<std::string>());
                byNode[n.get<std::string>()] = s;
            }
        }
        QVERIFY(std::abs(sum - j["profiled_ms"].get<double>()) < 1e-6 * std::max(1.0, sum));
        for (const char* n : {"addmm", "relu", "addmm_1"}) QVERIFY2(nodes.count(n), n);
        // addmm: [16, 64] @ [64, 128] + [128]; addmm_1: [16, 128] @ [128, 32] + [32] (the file's annotations).
        QCOMPARE(byNode["addmm"]["flops"].get<double>(), 2.0 * 16 * 128 * 64);
        QCOMPARE(byNode["addmm_1"]["flops"].get<double>(), 2.0 * 16 * 32 * 128);
        QVERIFY(byNode["addmm"]["bytes"].get<double>() >= 4.0 * (16 * 64 + 64 * 128 + 16 * 128 + 128));
        QCOMPARE(byNode["addmm"]["kind"].get<std::string>(), std::string("extern"));
        QCOMPARE(byNode["relu"]["flops"].get<double>(), 0.0);
    }

    void textTable() {
#if !defined(FXRAY_HAVE_CPU_BACKEND)
        QSKIP("no CPU backend in this build");
#endif
        auto r = cli({"bench", c("mlp/numerics/forward.py"), "--iters", "2", "--top", "1"});
        QVERIFY2(r.status == 0, r.err.c_str());
        QVERIFY(r.out.find("median") != std::string::npos);
        QVERIFY(r.out.find("GFLOP/s") != std::string::npos);
        // Rows start with their rank; "   2 " may also be a number in another column (2 GFLOP/s
        // under the sanitizers), so only the line starts count.
        QVERIFY(r.out.find("\n   1 ") != std::string::npos);
        QVERIFY(r.out.find("\n   2 ") == std::string::npos);  // --top 1
        QVERIFY(r.out.find("more steps") != std::string::npos);
    }

    void badInput() {
        auto missing = cli({"bench", "/nonexistent/graph.py"});
        QCOMPARE(missing.status, 2);
        QVERIFY(missing.err.find("/nonexistent/graph.py") != std::string::npos);
        auto ref = cli({"bench", c("mlp/numerics/forward.py"), "--backend", "ref"});
        QCOMPARE(ref.status, 2);
        QVERIFY(ref.err.find("cpu or cuda") != std::string::npos);
        auto iters = cli({"bench", c("mlp/numerics/forward.py"), "--iters", "0"});
        QCOMPARE(iters.status, 2);
        QVERIFY(iters.err.find("--iters") != std::string::npos);
        if (!fxray::cg::cuda::requireDevice().ok()) {
            auto cuda = cli({"bench", c("mlp/numerics/forward.py"), "--backend", "cuda"});
            QCOMPARE(cuda.status, 2);
            QVERIFY(cuda.err.find("CUDA") != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestCliBench)
#include "tst_cli_bench.moc"
