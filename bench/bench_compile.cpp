// The joint pipeline on large joint graphs (issue target: gpt2_12's joint graph under 200 ms on
// the 2-core machine), per pass, with the full instrumentation (verify, snapshots, failure
// capture) and bare. Prints medians of N runs; each run starts from a fresh clone.
#include "import/loader.h"
#include "ir/printer.h"
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
        for (bool instrumented : {true, false}) {
            PassManagerOptions opts;
            opts.verifyEach = opts.snapshots = opts.captureFailures = instrumented;
            std::map<std::string, std::vector<double>> perPass;
            std::vector<std::string> order;
            std::vector<double> totals;
            size_t after = 0, matches = 0;
            // Pattern matches of the last run, per pass.
            for (int r = 0; r < reps; ++r) {
                auto g = src.clone();
                auto pm = buildPipeline("joint", opts);
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
            std::printf("  joint pipeline, %s: %.1f ms total (median of %d), %zu -> %zu nodes, %zu attention matches\n",
                        instrumented ? "verify + snapshots + failure capture" : "bare", median(totals), reps, src.computeNodeCount(),
                        after, matches);
            for (const auto& name : order) std::printf("    %-30s %8.2f ms\n", name.c_str(), median(perPass[name]));
        }
    }
    std::printf("\ntarget: joint pipeline on gpt2_12's joint graph under 200 ms (2-core machine)\n");
    return 0;
}
