// The compile story of a large TORCH_TRACE log (issue 16: a 100 MB log well under 5 s). The four
// real PyTorch 2.11 logs of ../traces are repeated with fresh frame ids until the log reaches the
// target size, then read as text (compileStoryFromText) and as a file (readCompileStory, which
// adds the read). Prints the median of 3 runs per size.
#include "import/compile_story.h"
#include "registry/assemble.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace fxray;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// `log` with every `"frame_id": N` replaced by N + offset (new compile ids per copy).
static void appendShifted(std::string& out, const std::string& log, long offset) {
    static const std::string key = "\"frame_id\": ";
    size_t pos = 0;
    while (true) {
        size_t k = log.find(key, pos);
        if (k == std::string::npos) break;
        size_t b = k + key.size(), e = b;
        while (e < log.size() && log[e] >= '0' && log[e] <= '9') ++e;
        out.append(log, pos, b - pos);
        if (e > b) out += std::to_string(std::stol(log.substr(b, e - b)) + offset);
        pos = e;
    }
    out.append(log, pos, std::string::npos);
}

int main(int argc, char** argv) {
    fxray::initOpRegistry();
    fs::path traces = argc > 1 ? fs::path(argv[1]) : fs::path(FXRAY_CORPUS_DIR).parent_path() / "traces";
    std::vector<std::string> logs;
    for (const char* t : {"graph_breaks", "recompiles", "inductor_provenance", "inductor_failure"}) {
        fs::path dir = traces / t / "trace";
        if (!fs::is_directory(dir)) continue;
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().extension() == ".log") logs.push_back(slurp(e.path()));
    }
    if (logs.empty()) {
        std::printf("no logs under %s\n", traces.string().c_str());
        return 1;
    }
    std::printf("%-10s %8s %9s %9s %10s %10s %10s %8s\n", "target MB", "MB", "records", "compiles", "text ms",
                "file ms", "cpu ms", "MB/s");
    for (double targetMb : {10.0, 100.0}) {
        std::string big;
        long offset = 0;
        while (double(big.size()) < targetMb * 1e6) {
            for (const auto& l : logs) appendShifted(big, l, offset);
            offset += 1000;
        }
        fs::path tmp = fs::temp_directory_path() / ("fxray_bench_story_" + std::to_string(int(targetMb)) + ".log");
        {
            std::ofstream o(tmp, std::ios::binary);
            o.write(big.data(), std::streamsize(big.size()));
        }
        std::vector<double> textMs, fileMs, cpuMs;
        size_t records = 0, compiles = 0;
        for (int i = 0; i < 3; ++i) {
            auto a = Clock::now();
            std::clock_t c0 = std::clock();
            CompileStory s = compileStoryFromText(big, "big.log");
            textMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
            cpuMs.push_back(1000.0 * double(std::clock() - c0) / CLOCKS_PER_SEC);
            records = s.records;
            compiles = s.compiles.size();
            a = Clock::now();
            auto f = readCompileStory(tmp);
            fileMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
            if (!f.ok() || f->compiles.size() != compiles) {
                std::printf("file read disagrees with text read\n");
                return 1;
            }
        }
        fs::remove(tmp);
        double ms = median(textMs);
        std::printf("%-10.0f %8.1f %9zu %9zu %10.1f %10.1f %10.1f %8.0f\n", targetMb, double(big.size()) / 1e6, records,
                    compiles, ms, median(fileMs), median(cpuMs), double(big.size()) / 1e6 / (ms / 1000.0));
    }
    std::printf("\ntarget: the 100 MB log well under 5000 ms (file ms) on the 2-core machine\n");
    return 0;
}
