// Loading a whole TORCH_TRACE log: gpt2_12's 11 MB trace (two compiles, 14 graphs, ~20k nodes),
// every graph parsed and finished (ops resolved, constants linked, metadata inferred). Issue
// target: under 0.5 s on the 2-core machine. Prints the median of 5 runs per phase.
#include "import/torch_trace_reader.h"
#include "registry/assemble.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <thread>
#include <vector>

using namespace fxray;
using Clock = std::chrono::steady_clock;

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv) {
    fxray::initOpRegistry();
    std::filesystem::path corpus = argc > 1 ? argv[1] : FXRAY_CORPUS_DIR;
    const int reps = 5;
    // cpu ms: process CPU time of the load (all threads); next to total ms it shows how much a
    // busy machine inflated the wall-clock figures.
    std::printf("%-36s %6s %6s %8s %8s %8s %8s %9s %8s %8s\n", "trace", "MB", "graphs", "read ms", "split ms", "md5 ms",
                "parse ms", "finish ms", "total ms", "cpu ms");
    for (const char* rel : {"gpt2_12/trace/torch_trace.log", "resnet18/trace/torch_trace.log",
                            "bert/trace/torch_trace.log", "mlp/trace/torch_trace.log"}) {
        auto path = corpus / rel;
        if (!std::filesystem::exists(path)) {
            std::printf("%-36s missing\n", rel);
            continue;
        }
        std::vector<double> read, split, md5, parse, finish, total, cpu;
        size_t graphs = 0, bytes = 0;
        for (int i = 0; i < reps; ++i) {
            TraceTimings t;
            std::clock_t c0 = std::clock();
            auto a = Clock::now();
            auto f = readTorchTrace(path, &t);
            total.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
            cpu.push_back(1000.0 * double(std::clock() - c0) / CLOCKS_PER_SEC);
            if (!f.ok()) {
                std::printf("%-36s error: %s\n", rel, f.error().str().c_str());
                return 1;
            }
            graphs = f->graphs.size();
            bytes = t.bytes;
            read.push_back(t.readMs);
            split.push_back(t.splitMs);
            md5.push_back(t.md5Ms);
            parse.push_back(t.parseMs);
            finish.push_back(t.finishMs);
        }
        std::printf("%-36s %6.1f %6zu %8.1f %8.1f %8.1f %8.1f %9.1f %8.1f %8.1f\n", rel, double(bytes) / 1e6, graphs,
                    median(read), median(split), median(md5), median(parse), median(finish), median(total),
                    median(cpu));
    }
    std::printf("\n%u hardware threads (parse and finish use them); target: gpt2_12 total under 500 ms on the "
                "2-core machine\n",
                std::thread::hardware_concurrency());
    return 0;
}
