// `fxray compile FILE --backend cuda`: without a device it says "no CUDA device" (exit 2) unless
// --arch asks for code without one; with --arch compute_90 it lowers, fuses and compiles the
// graph with NVRTC to PTX and reports the kernels (mlp's forward: the bias-add GEMMs are extern
// calls, relu is the one generated kernel), the compile times and the PTX, and writes the
// source and PTX with --dump-dir; cond_subgraph's cond (its branches compiled as subgraphs of
// their own) is no fallback. CI has NVRTC but no GPU: the PTX path is what runs there.
#include "cli_test_util.h"

#include "codegen/cuda/cuda_backend.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

using fxtest::c;
using fxtest::cli;

class TestCliCompileCuda : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
    }

    void noDeviceWithoutArchIsBadSetup() {
        if (fxray::cg::cuda::requireDevice().ok()) QSKIP("a CUDA device is present");
        auto r = cli({"compile", c("mlp/numerics/forward.py"), "--backend", "cuda"});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find("no CUDA device") != std::string::npos, r.err.c_str());
        QVERIFY(r.err.find("--arch compute_90") != std::string::npos);  // says what works instead
    }

    void badArguments() {
        auto r = cli({"compile", c("mlp/numerics/forward.py"), "--arch", "compute_90"});
        QCOMPARE(r.status, 2);
        QVERIFY(r.err.find("--arch is for --backend cuda") != std::string::npos);
        r = cli({"compile", c("mlp/numerics/forward.py"), "--backend", "cuda", "--arch", "volta"});
        QCOMPARE(r.status, 2);
        QVERIFY(r.err.find("compute_XX") != std::string::npos);
    }

    void ptxWithoutDevice() {
        const auto& rt = fxray::cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        fs::path dump = fs::temp_directory_path() / "fxray_compile_cuda_dump";
        fs::remove_all(dump);
        auto r = cli({"compile", c("mlp/numerics/forward.py"), "--pipeline", "post-grad", "--backend", "cuda", "--arch",
                      "compute_90", "--dump-dir", dump.string(), "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        const auto& b = j["backend"];
        QCOMPARE(b["arch"].get<std::string>(), std::string("compute_90"));
        QVERIFY(!b["device"].get<bool>());
        QVERIFY(b["ptx_bytes"].get<size_t>() > 0);
        QVERIFY(b["nvrtc_ms"].get<double>() > 0);
        QVERIFY(b["compile_ms"].get<double>() >= b["nvrtc_ms"].get<double>());
        QVERIFY(b["fallbacks"].empty());
        QCOMPARE(b["kernels"].size(), size_t(1));
        QVERIFY(b["kernels"][0]["nodes"] == nlohmann::json::array({"relu"}));
        // The PTX is for the asked architecture and holds the kernel.
        std::ifstream ptx(dump / "module.ptx");
        std::stringstream text;
        text << ptx.rdbuf();
        QVERIFY(text.str().find(".target sm_90") != std::string::npos);
        QVERIFY(text.str().find(b["kernels"][0]["name"].get<std::string>()) != std::string::npos);
        QVERIFY(fs::exists(dump / "module.cu"));
        fs::remove_all(dump);
        // Text mode says it needed no device.
        auto t = cli({"compile", c("mlp/numerics/forward.py"), "--pipeline", "post-grad", "--backend", "cuda", "--arch",
                      "compute_90"});
        QVERIFY2(t.status == 0, t.err.c_str());
        QVERIFY(t.out.find("cuda backend (compute_90, no device needed): 1 kernels") != std::string::npos);
    }

    void condIsNoFallback() {
        const auto& rt = fxray::cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        auto r = cli({"compile", c("cond_subgraph/numerics/inference.py"), "--backend", "cuda", "--arch", "compute_90",
                      "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QVERIFY2(j["backend"]["fallbacks"].empty(), j["backend"]["fallbacks"].dump().c_str());
        // The branches' own kernels: relu in the true branch, sigmoid in the false one.
        const auto& subs = j["backend"]["subgraphs"];
        QCOMPARE(subs.size(), size_t(1));
        QCOMPARE(subs[0]["node"].get<std::string>(), std::string("cond"));
        QCOMPARE(subs[0]["graphs"].size(), size_t(2));
        auto hasKernelFor = [](const nlohmann::json& graph, const std::string& node) {
            for (const auto& k : graph["kernels"])
                for (const auto& n : k["nodes"])
                    if (n.get<std::string>() == node) return true;
            return false;
        };
        QCOMPARE(subs[0]["graphs"][0]["role"].get<std::string>(), std::string("true branch"));
        QCOMPARE(subs[0]["graphs"][0]["graph"].get<std::string>(), std::string("true_graph_0"));
        QVERIFY(hasKernelFor(subs[0]["graphs"][0], "relu"));
        QVERIFY(hasKernelFor(subs[0]["graphs"][1], "sigmoid"));
        QVERIFY(subs[0]["graphs"][1]["subgraphs"].empty());
        auto t =
            cli({"compile", c("cond_subgraph/numerics/inference.py"), "--backend", "cuda", "--arch", "compute_90"});
        QVERIFY2(t.status == 0, t.err.c_str());
        QVERIFY2(t.out.find("no fallback") != std::string::npos, t.out.c_str());
        QVERIFY2(t.out.find("extern subgraph") != std::string::npos, t.out.c_str());
        QVERIFY2(
            t.out.find("subgraph op cond (compiled ahead): the true branch 1 kernels, the false branch 1 kernels") !=
                std::string::npos,
            t.out.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCliCompileCuda)
#include "tst_cli_compile_cuda.moc"
