// AOT compile with the persistent cache: cold compile (LLVM object emission + link + publish)
// vs cache hit (metadata + checksum) vs hit-and-load (dlopen + re-derived plan), next to the
// JIT's compile time and PyTorch's AOTInductor compile where the corpus recorded it
// (summary.json: aoti_compile_s, GPU host). Then the JIT's LLVM O2 vs O3: compile time and run
// time on the recorded forward inputs, which decided JitOptions::optLevel's default.
// Run: build/<preset>/bench/bench_aot [corpus dir]
#include "codegen/cpu/aot_cache.h"
#include "exec/compare.h"
#include "import/loader.h"
#include "import/npy.h"
#include "registry/assemble.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <unistd.h>

using namespace fxray;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

static double timeMs(const std::function<void()>& f) {
    auto a = Clock::now();
    f();
    return std::chrono::duration<double, std::milli>(Clock::now() - a).count();
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

static double aotiSeconds(const fs::path& model) {
    std::ifstream f(model / "summary.json");
    auto j = nlohmann::json::parse(f, nullptr, false);
    if (j.is_discarded() || !j.contains("aoti_compile_s") || !j["aoti_compile_s"].is_number()) return -1;
    return j["aoti_compile_s"].get<double>();
}

int main(int argc, char** argv) {
    fxray::initOpRegistry();
    fs::path corpus = argc > 1 ? argv[1] : FXRAY_CORPUS_DIR;
    const char* models[] = {"mlp", "gpt2", "gpt2_12"};

    std::printf("AOT compile, cold vs cache hit (ms; %d CPUs)\n", static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)));
    std::printf("%-18s %7s %9s %8s %8s %9s %9s %11s\n", "graph", "kernels", "cold", "llvm", "link", "hit", "hit+load",
                "AOTI (GPU)");
    for (const char* m : models) {
        fs::path file = corpus / m / "numerics" / "forward.py";
        if (!fs::exists(file)) file = corpus / m / "graphs" / "aot_forward_graph.py";
        auto f = loadFile(file);
        if (!f.ok()) {
            std::printf("%-18s %s\n", m, f.error().str().c_str());
            continue;
        }
        const Graph& g = *f->graphs[0].graph;
        cg::cpu::AotOptions o;
        o.cacheDir = (fs::temp_directory_path() / ("fxray_bench_aot_" + std::to_string(::getpid()))).string();
        fs::remove_all(o.cacheDir);
        Expected<cg::cpu::AotEntry> cold = makeError("not run");
        double coldMs = timeMs([&] { cold = cg::cpu::aotCompile(g, o); });
        if (!cold.ok()) {
            std::printf("%-18s %s\n", m, cold.error().str().c_str());
            continue;
        }
        std::vector<double> hits, loads;
        for (int r = 0; r < 5; ++r) {
            Expected<cg::cpu::AotEntry> hit = makeError("not run");
            hits.push_back(timeMs([&] { hit = cg::cpu::aotCompile(g, o); }));
            if (!hit.ok() || !hit->hit) {
                std::printf("%-18s second call was not a hit\n", m);
                break;
            }
            loads.push_back(hits.back() + timeMs([&] { (void)cg::cpu::aotLoad(g, *hit, o); }));
        }
        double aoti = aotiSeconds(corpus / m);
        char aotiText[32] = "-";
        if (aoti > 0) std::snprintf(aotiText, sizeof aotiText, "%.1f s", aoti);
        std::printf("%-18s %7zu %9.1f %8.1f %8.1f %9.2f %9.1f %11s\n", (std::string(m) + "/forward").c_str(),
                    cold->kernels, coldMs, cold->compileMs, cold->linkMs, median(hits), median(loads), aotiText);
        fs::remove_all(o.cacheDir);
    }

    std::printf("\nJIT LLVM O2 vs O3 (compile ms; run ms: median of 15, interleaved, recorded forward inputs or seeded "
                "random ones)\n");
    std::printf("%-24s %9s %9s %9s %9s %8s\n", "graph", "O2 comp", "O3 comp", "O2 run", "O3 run", "O2/O3");
    std::vector<double> ratios;
    for (const char* m : {"mlp", "ln_gelu", "attention", "gpt2", "bert", "resnet18", "gpt2_12"}) {
        fs::path num = corpus / m / "numerics";
        bool recorded = fs::exists(num / "forward.py");
        auto f = loadFile(recorded ? num / "forward.py" : corpus / m / "graphs" / "aot_forward_graph.py");
        if (!f.ok()) continue;
        const Graph& g = *f->graphs[0].graph;
        auto phs = g.placeholders();
        auto inputs = recorded ? readNpyFolder(num / "forward" / "inputs", phs.size()) : randomInputs(g, 0);
        if (!inputs.ok()) continue;
        for (size_t i = 0; i < inputs->size(); ++i)
            if ((*inputs)[i].isTensor()) (*inputs)[i].t = withAnnotatedStrides((*inputs)[i].t, *phs[i]);
        double comp[2] = {0, 0}, run[2] = {0, 0};
        std::unique_ptr<cg::cpu::CompiledGraph> cgs[2];
        bool ok = true;
        for (int lvl : {2, 3}) {
            cg::cpu::CompileOptions co;
            co.jit.optLevel = lvl;
            Expected<std::unique_ptr<cg::cpu::CompiledGraph>> cgE = makeError("not run");
            comp[lvl - 2] = timeMs([&] { cgE = cg::cpu::CompiledGraph::compile(g, *inputs, co); });
            if (!cgE.ok()) {
                ok = false;
                break;
            }
            cgs[lvl - 2] = std::move(cgE).value();
            (void)cgs[lvl - 2]->run(*inputs);  // warm-up
        }
        if (!ok) continue;
        // Interleaved, so that load from other processes hits both levels alike.
        std::vector<double> t[2];
        for (int r = 0; r < 15; ++r)
            for (int l = 0; l < 2; ++l) t[l].push_back(timeMs([&] { (void)cgs[l]->run(*inputs); }));
        run[0] = median(t[0]);
        run[1] = median(t[1]);
        ratios.push_back(run[0] / run[1]);
        std::printf("%-24s %9.1f %9.1f %9.2f %9.2f %8.3f\n", (std::string(m) + "/forward").c_str(), comp[0], comp[1],
                    run[0], run[1], run[0] / run[1]);
    }
    double lg = 0;
    for (double r : ratios) lg += std::log(r);
    if (!ratios.empty())
        std::printf("geomean O2/O3 run time: %.3f\n", std::exp(lg / static_cast<double>(ratios.size())));
    return 0;
}
