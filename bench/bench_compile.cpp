// The joint pipeline on large joint graphs (issue target: gpt2_12's joint graph under 200 ms on
// the 2-core machine), per pass, with the full instrumentation (verify, snapshots, failure
// capture) and bare. Prints medians of N runs; each run starts from a fresh clone.
#include "exec/compare.h"
#include "import/loader.h"
#include "import/npy.h"
#include "ir/printer.h"
#include "registry/assemble.h"
#include "transforms/passes.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <vector>

using namespace fxray;
using Clock = std::chrono::steady_clock;

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

static double timeMs(const std::function<void()>& f) {
    auto a = Clock::now();
    f();
    return std::chrono::duration<double, std::milli>(Clock::now() - a).count();
}

int main(int argc, char** argv) {
    fxray::initOpRegistry();
    std::filesystem::path corpus = argc > 1 ? argv[1] : FXRAY_CORPUS_DIR;
    const int reps = 9;
    for (const char* rel : {"gpt2_12/graphs/aot_joint_graph.py", "gpt2/graphs/aot_joint_graph.py",
                            "bert/graphs/aot_joint_graph.py", "resnet18/graphs/aot_joint_graph.py"}) {
        auto f = loadFile(corpus / rel);
        if (!f.ok()) {
            std::printf("%s: %s\n", rel, f.error().str().c_str());
            continue;
        }
        const Graph& src = *f->graphs[0].graph;
        std::printf("\n%s (%zu nodes, %zu without placeholders and output)\n", rel, src.size(), src.computeNodeCount());
        std::printf("  fingerprint %.2f ms, clone %.2f ms, print %.2f ms, verify %.2f ms\n",
                    median({timeMs([&] { (void)src.fingerprint(); }), timeMs([&] { (void)src.fingerprint(); }),
                            timeMs([&] { (void)src.fingerprint(); })}),
                    median({timeMs([&] { (void)src.clone(); }), timeMs([&] { (void)src.clone(); }),
                            timeMs([&] { (void)src.clone(); })}),
                    median({timeMs([&] { (void)printGraph(src); }), timeMs([&] { (void)printGraph(src); }),
                            timeMs([&] { (void)printGraph(src); })}),
                    median({timeMs([&] { (void)src.verify(); }), timeMs([&] { (void)src.verify(); }),
                            timeMs([&] { (void)src.verify(); })}));
        for (const char* pipeline : {"joint", "inductor"})
            for (bool instrumented : {true, false}) {
                if (std::string(pipeline) == "inductor" && instrumented) continue;
                PassManagerOptions opts;
                opts.verifyEach = opts.snapshots = opts.captureFailures = instrumented;
                std::map<std::string, std::vector<double>> perPass;
                std::vector<std::string> order;
                std::vector<double> totals;
                size_t after = 0, matches = 0;
                // Pattern matches of the last run, per pass.
                for (int r = 0; r < reps; ++r) {
                    auto g = src.clone();
                    auto pm = buildPipeline(pipeline, opts);
                    CompileTrace t = (*pm)->run(*g);
                    totals.push_back(t.ms);
                    after = t.nodesAfter;
                    matches = 0;
                    for (const auto& p : t.passes) {
                        if (r == 0) order.push_back(p.name);
                        perPass[p.name].push_back(p.ms);
                        if (p.name == "fuse_attention") matches += p.matches.size();
                    }
                }
                std::printf(
                    "  %s pipeline, %s: %.1f ms total (median of %d), %zu -> %zu nodes, %zu attention matches\n",
                    pipeline, instrumented ? "verify + snapshots + failure capture" : "bare", median(totals), reps,
                    src.computeNodeCount(), after, matches);
                // A pass that runs twice (dce, stable_topological_sort in inductor) shows the median of its runs.
                std::vector<std::string> seen;
                for (const auto& name : order) {
                    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
                    seen.push_back(name);
                    std::printf("    %-30s %8.2f ms\n", name.c_str(), median(perPass[name]));
                }
            }
    }
    // The freezing pipeline on the freeze models' inference graphs, parameters from the
    // recorded inputs (numerics layout).
    for (const char* model : {"convbn_freeze", "three_linear_freeze"}) {
        std::filesystem::path num = corpus / model / "numerics";
        auto f = loadFile(num / "inference.py");
        auto d = loadFile(num / "dynamo.py");
        if (!f.ok() || !d.ok()) continue;
        const Graph& src = *f->graphs[0].graph;
        auto isParam = parameterPlaceholders(src, *d->graphs[0].graph);
        auto values = readNpyFolder(num / "inference" / "inputs", src.placeholders().size());
        if (!isParam.ok() || !values.ok()) continue;
        auto fi = freezeInputsFromValues(src, *isParam, *values);
        if (!fi.ok()) continue;
        PipelineConfig cfg;
        cfg.freeze = std::make_shared<FreezeInputs>(std::move(fi).value());
        std::map<std::string, std::vector<double>> perPass;
        std::vector<std::string> order;
        std::vector<double> totals;
        size_t after = 0;
        for (int r = 0; r < reps; ++r) {
            auto g = src.clone();
            auto pm = buildPipeline("freezing", {}, cfg);
            CompileTrace t = (*pm)->run(*g);
            totals.push_back(t.ms);
            after = t.nodesAfter;
            std::map<std::string, double> sum;
            for (const auto& p : t.passes) {
                if (r == 0 && std::find(order.begin(), order.end(), p.name) == order.end()) order.push_back(p.name);
                sum[p.name] += p.ms;
            }
            for (const auto& [n, ms] : sum) perPass[n].push_back(ms);
        }
        std::printf("\n%s inference graph, freezing pipeline: %.1f ms total (median of %d), %zu -> %zu nodes\n", model,
                    median(totals), reps, src.computeNodeCount(), after);
        for (const auto& name : order) std::printf("    %-30s %8.2f ms\n", name.c_str(), median(perPass[name]));
    }
    std::printf("\ntarget: joint pipeline on gpt2_12's joint graph under 200 ms (2-core machine)\n");
    return 0;
}
