// Parse + verify of large FX text graphs (issue target: gpt2_12's 2,176-node joint graph under
// 100 ms on the 2-core machine). Prints the median of N runs per stage.
#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"
#include "ir/printer.h"
#include "registry/assemble.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <vector>

using namespace fxray;
using Clock = std::chrono::steady_clock;

static double medianMs(int reps, const std::function<void()>& f) {
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        auto a = Clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char** argv) {
    fxray::initOpRegistry();
    std::filesystem::path corpus = argc > 1 ? argv[1] : FXRAY_CORPUS_DIR;
    const int reps = 15;
    std::printf("%-44s %7s %9s %9s %9s %9s %9s\n", "graph", "nodes", "read ms", "parse ms", "verify ms", "infer ms",
                "print ms");
    for (const char* rel : {"gpt2_12/graphs/aot_joint_graph.py", "gpt2_12/graphs/aot_forward_graph.py",
                            "resnet18/graphs/aot_joint_graph.py", "bert/graphs/aot_joint_graph.py"}) {
        auto path = corpus / rel;
        auto text = readTextFile(path);
        if (!text.ok()) {
            std::printf("%-44s missing (%s)\n", rel, text.error().str().c_str());
            continue;
        }
        std::unique_ptr<Graph> g;
        double readMs = medianMs(reps, [&] {
            auto t = readTextFile(path);
            (void)t;
        });
        double parseMs = medianMs(reps, [&] { g = std::move(readFxText(*text, path.string())).value(); });
        double verifyMs = medianMs(reps, [&] {
            auto s = g->verify();
            if (!s.ok()) std::printf("verify failed: %s\n", s.error().str().c_str());
        });
        resolveOps(*g);
        double inferMs = medianMs(reps, [&] {
            auto r = inferMeta(*g);
            (void)r;
        });
        double printMs = medianMs(reps, [&] {
            auto s = printGraph(*g);
            (void)s;
        });
        std::printf("%-44s %7zu %9.2f %9.2f %9.2f %9.2f %9.2f\n", rel, g->size(), readMs, parseMs, verifyMs, inferMs,
                    printMs);
    }
    std::printf("\ntarget: read + parse + verify of gpt2_12 aot_joint_graph under 100 ms (2-core machine)\n");
    return 0;
}
