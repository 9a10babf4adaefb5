// The CPU backend against the reference executor on every forward, backward and inference
// graph of the corpus (graphs/aot_*_graph.py) with seeded random inputs: run time of each (the
// reference: one run; the backend: median of 3 after a warm-up), the backend's compile time, kernels, and the geomean speed-up.
// Also the GEMM choice (OpenBLAS vs our blocked kernel, see codegen/cpu/extern_kernels.cpp).
// Usage: bench_cpu_backend [corpus dir]
#include "codegen/cpu/cpu_backend.h"
#include "codegen/cpu/extern_kernels.h"
#include "exec/compare.h"
#include "exec/run_check.h"
#include "import/loader.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

double ms(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

template <typename F> double median3(F&& f) {
    f();  // warm-up
    std::vector<double> t;
    for (int i = 0; i < 3; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(ms(t0));
    }
    std::sort(t.begin(), t.end());
    return t[1];
}

void gemmTable() {
    std::printf("\nGEMM (fp32, ms, median of 3): linked implementation: %s\n", cg::cpu::gemmImplementation());
    std::printf("%-20s %10s %10s\n", "M x N x K", "sgemm", "blocked");
    for (auto [M, N, K] : std::vector<std::tuple<int, int, int>>{{128, 512, 128}, {512, 512, 512}, {1023, 1001, 511}}) {
        std::vector<float> a(size_t(M) * K, 0.5f), b(size_t(K) * N, 0.25f), c(size_t(M) * N);
        double t1 = median3([&] { cg::cpu::sgemm(M, N, K, 1, a.data(), K, 1, b.data(), N, 1, 0, c.data(), N); });
        double t2 = median3([&] { cg::cpu::sgemmBlocked(M, N, K, 1, a.data(), K, 1, b.data(), N, 1, 0, c.data(), N); });
        std::printf("%-20s %10.2f %10.2f\n", (std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K)).c_str(), t1, t2);
    }
}

/// Compile time of gpt2_12's joint graph (12 identical layers) through CPU codegen, by LLVM
/// setting: the target is under 2 s on the 2-core machine.
void compileTable(const fs::path& corpus) {
    fs::path p = corpus / "gpt2_12" / "graphs" / "aot_joint_graph.py";
    auto f = loadFile(p);
    if (!f.ok()) return;
    Graph& g = f->graphs[0].executable();
    auto inputs = cg::cpu::CompiledGraph::annotatedInputs(g);
    if (!inputs.ok()) return;
    std::printf("\ngpt2_12 joint graph compile time (ms, %zu nodes)\n", g.computeNodeCount());
    std::printf("%-34s %8s %9s %8s %8s %8s %8s\n", "setting", "kernels", "distinct", "lower", "sched", "llvm", "total");
    struct Row {
        const char* name;
        int opt, threads;
        bool dedupe;
    };
    for (Row r : {Row{"O3, 1 module, no dedupe (before)", 3, 1, false}, Row{"O3, dedupe, 1 thread", 3, 1, true},
                  Row{"O3, dedupe, parallel", 3, 0, true}, Row{"O2, dedupe, parallel", 2, 0, true}}) {
        cg::cpu::CompileOptions o;
        o.jit.optLevel = r.opt;
        o.jit.threads = r.threads;
        o.jit.dedupe = r.dedupe;
        auto cg = cg::cpu::CompiledGraph::compile(g, *inputs, o);
        if (!cg.ok()) {
            std::printf("%-34s failed: %s\n", r.name, cg.error().message.c_str());
            continue;
        }
        const auto& s = (*cg)->stats();
        std::printf("%-34s %8zu %9zu %8.0f %8.0f %8.0f %8.0f\n", r.name, (*cg)->program().kernels.size(),
                    (*cg)->jit().distinctKernels(), s.lowerMs, s.scheduleMs, s.llvmMs, s.totalMs);
    }
}

} // namespace

int main(int argc, char** argv) {
    fs::path corpus = argc > 1 ? fs::path(argv[1]) : fs::path(FXRAY_CORPUS_DIR);
    std::printf("CPU backend vs reference executor (threads: %d)\n", cg::cpu::CompiledGraph::threads());
    std::printf("%-40s %6s %8s %10s %10s %8s %10s %s\n", "graph", "nodes", "kernels", "ref ms", "cpu ms", "speedup",
                "compile ms", "fallbacks");
    std::vector<fs::path> files;
    for (const auto& m : fs::directory_iterator(corpus))
        for (const char* s : {"aot_forward_graph.py", "aot_backward_graph.py", "aot_inference_graph.py"})
            if (fs::exists(m.path() / "graphs" / s)) files.push_back(m.path() / "graphs" / s);
    std::sort(files.begin(), files.end());
    double logSum = 0;
    int n = 0;
    for (const auto& p : files) {
        std::string name = p.parent_path().parent_path().filename().string() + "/" + p.stem().string();
        auto f = loadFile(p);
        if (!f.ok()) continue;
        LoadedGraph& lg = f->graphs[0];
        Graph& g = lg.executable();
        auto inputs = randomInputs(g, 1);
        if (!inputs.ok()) {
            std::printf("%-40s skipped: %s\n", name.c_str(), inputs.error().message.c_str());
            continue;
        }
        RunRequest req;
        req.inputs = *inputs;
        auto ref = runAndCheck(g, req, nullptr);
        if (!ref.ok()) {
            std::printf("%-40s skipped (reference): %s\n", name.c_str(), ref.error().message.c_str());
            continue;
        }
        auto cg = cg::cpu::CompiledGraph::compile(g, *inputs);
        if (!cg.ok()) {
            std::printf("%-40s compile failed: %s\n", name.c_str(), cg.error().str().c_str());
            continue;
        }
        bool ok = true;
        double cpuMs = median3([&] { ok = ok && (*cg)->run(*inputs, {}, 0).ok(); });
        double refMs = ref->ms;
        std::string fb;
        for (const auto& [op, c] : (*cg)->fallbackOps()) fb += (fb.empty() ? "" : ",") + (op.rfind("aten.", 0) == 0 ? op.substr(5) : op) + "x" + std::to_string(c);
        std::printf("%-40s %6zu %8zu %10.2f %10.2f %7.1fx %10.0f %s\n", name.c_str(), g.computeNodeCount(),
                    (*cg)->program().kernels.size(), refMs, cpuMs, refMs / cpuMs, (*cg)->stats().totalMs,
                    ok ? fb.c_str() : "RUN FAILED");
        if (ok && cpuMs > 0) logSum += std::log(refMs / cpuMs), ++n;
    }
    if (n) std::printf("geomean speed-up over the reference executor: %.1fx over %d graphs\n", std::exp(logSum / n), n);
    gemmTable();
    compileTable(corpus);
    return 0;
}
