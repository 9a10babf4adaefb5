// The CUDA backend on the corpus's training graphs (every model with numerics/forward.py and
// numerics/backward.py) against PyTorch on the same GPU: fxray's cold compile time and its time
// per run with device-resident inputs (CompiledGraph::benchmark: median of timed runs, no
// transfers, no per-step synchronisation), next to PyTorch eager and torch.compile (Inductor)
// timed by bench/torch_anchor.py on the same recorded inputs. Prints one table with geomeans;
// issue 9's targets: >= 1.2x faster than eager, <= 1.25x Inductor's time, compile >= 10x faster.
//
// Usage: bench_cuda [corpus dir] [--anchor PATH | --no-anchor] [--iters N] [--models a,b] [--no-cold] [--check]
// (--check: each graph's outputs against PyTorch's recorded numerics/<stage>/outputs, in the notes)
// "compile" is fxray's compile in this process (NVRTC warm from earlier graphs), "cold" the same
// compile as the first thing a fresh process does (bench_cuda --compile-once), which the
// compile ratio uses.
// The anchor script is found at --anchor, $FXRAY_TORCH_ANCHOR or $FXRAY_ANCHOR_SCRIPT, next to the binary
// (../bench/torch_anchor.py, the .ci/gpu-run bundle) or in the source tree; a missing script,
// python3 or torch makes the PyTorch columns "n/a", never a failure. $FXRAY_PYTHON names the
// interpreter (default python3: on the GPU machine that is the one with torch); $FXRAY_ANCHOR_TIMEOUT
// bounds it in seconds (default 300). Unlike anchor.h's one-shot runAnchor, the script runs one
// model at a time under that budget (Inductor's cold compiles), so a short device lease still
// gets the models it had time for.
#include "anchor.h"
#include "codegen/cuda/cuda_backend.h"
#include "exec/compare.h"
#include "import/loader.h"
#include "import/npy.h"
#include "import/recorded_pins.h"
#include "registry/assemble.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

using fxbench::quote;

std::string envOr(const char* var, const std::string& dflt) {
    const char* v = std::getenv(var);
    return v && *v ? std::string(v) : dflt;
}

/// One recorded run: the graph, its inputs laid out as annotated, the random pins.
struct Case {
    std::unique_ptr<LoadedFile> file;
    std::vector<Value> inputs;
    std::map<std::string, Value> pins;
    std::string error;
};

Case loadCase(const fs::path& corpus, const std::string& model, const std::string& stage) {
    Case c;
    fs::path num = corpus / model / "numerics";
    auto f = loadFile(num / (stage + ".py"));
    if (!f.ok()) {
        c.error = "load: " + f.error().message;
        return c;
    }
    c.file = std::make_unique<LoadedFile>(std::move(f).value());
    Graph& g = *c.file->graphs[0].graph;
    auto phs = g.placeholders();
    auto inputs = readNpyFolder(num / stage / "inputs", phs.size());
    if (!inputs.ok()) {
        c.error = "inputs: " + inputs.error().message;
        return c;
    }
    for (size_t i = 0; i < inputs->size(); ++i)
        if ((*inputs)[i].isTensor()) (*inputs)[i].t = withAnnotatedStrides((*inputs)[i].t, *phs[i]);
    c.inputs = std::move(inputs).value();
    c.pins = recordedRandomPins(g, num).value_or(std::map<std::string, Value>{});
    return c;
}

/// `bench_cuda DIR --compile-once model/stage`: one compile in a fresh process, printed as
/// "COMPILE_MS x". The main table's compile column is measured in the benchmark's process,
/// where NVRTC and the allocator are warm from earlier graphs; this is the first-use cost.
int compileOnce(const fs::path& corpus, const std::string& graph) {
    size_t slash = graph.find('/');
    Case c = loadCase(corpus, graph.substr(0, slash), graph.substr(slash + 1));
    if (!c.error.empty()) return 2;
    cg::cuda::CompileOptions opts;
    for (const auto& [k, v] : c.pins) opts.pinned.push_back(k);
    auto cg = cg::cuda::CompiledGraph::compile(*c.file->graphs[0].graph, c.inputs, opts);
    if (!cg.ok()) return 2;
    std::printf("COMPILE_MS %.3f\n", (*cg)->stats().totalMs);
    return 0;
}

/// --check: fxray's outputs against PyTorch's recorded ones (numerics/<stage>/outputs),
/// so that a table of times also says the times are of right answers. "n/m outputs
/// match (worst rel_err x)", or why there is no check.
std::string checkOutputs(const cg::cuda::CompiledGraph& cg, const Case& c, const fs::path& outputs) {
    auto outs = cg.run(c.inputs, c.pins);
    if (!outs.ok()) return "check run failed: " + outs.error().message.substr(0, 80);
    // outputs/NNN.npy is PyTorch's output NNN (no file for a None output).
    auto expect = readNpyFolder(outputs, outs->size());
    if (!expect.ok()) return "no check: " + expect.error().message.substr(0, 60);
    size_t n = 0, bad = 0;
    double worst = 0;
    for (size_t i = 0; i < outs->size(); ++i) {
        if (!(*outs)[i].isTensor() || !(*expect)[i].isTensor()) continue;
        auto cmp = compareValues(i, (*outs)[i], (*expect)[i]);
        bad += cmp.ok ? 0 : 1;
        worst = std::max(worst, cmp.relErr);
        ++n;
    }
    char b[96];
    std::snprintf(b, sizeof b, "%zu/%zu outputs match (worst rel_err %.1e)", n - bad, n, worst);
    return b;
}

double coldCompile(const std::string& self, const fs::path& corpus, const std::string& graph) {
    FILE* p = popen(
        (quote(self) + " " + quote(corpus.string()) + " --compile-once " + quote(graph) + " 2>/dev/null").c_str(), "r");
    if (!p) return NAN;
    char buf[256] = {};
    double ms = NAN;
    while (std::fgets(buf, sizeof buf, p))
        if (std::string(buf).rfind("COMPILE_MS ", 0) == 0) ms = std::atof(buf + 11);
    pclose(p);
    return ms;
}

struct Row {
    std::string graph;
    size_t nodes = 0, kernels = 0, launches = 0, gemms = 0;
    double compileMs = NAN, coldCompileMs = NAN, runMs = NAN;
    std::string host, error, check;
    double eagerMs = NAN, inductorMs = NAN, inductorCompileS = NAN;
    std::string anchorError;
};

using fxbench::Anchor;

fs::path findAnchor(const std::string& argv0, const std::string& flag) {
    if (!flag.empty()) return flag;
    if (auto e = envOr("FXRAY_TORCH_ANCHOR", envOr("FXRAY_ANCHOR_SCRIPT", "")); !e.empty()) return e;
    std::error_code ec;
    fs::path self = fs::canonical(fs::path(argv0), ec);
    if (!ec) {
        fs::path p = self.parent_path().parent_path() / "bench" / "torch_anchor.py";
        if (fs::exists(p)) return p;
    }
#ifdef FXRAY_SOURCE_DIR
    return fs::path(FXRAY_SOURCE_DIR) / "bench" / "torch_anchor.py";
#else
    return {};
#endif
}

/// One anchor process for `models`, bounded by `timeoutS`; its rows are merged into a.
void runAnchorOnce(Anchor& a, const fs::path& script, const fs::path& corpus, const std::string& models, int timeoutS) {
    std::string cmd = "timeout " + std::to_string(timeoutS) + " " + envOr("FXRAY_PYTHON", "python3") + " " +
                      quote(script.string()) +
                      " --device cuda --modes eager,inductor --json --stages forward,backward --corpus " +
                      quote(corpus.string()) + " --models " + quote(models) + " 2>/dev/null";
    int rc = 0;
    std::string out = fxbench::runCapture(cmd, rc);
    fxbench::parseAnchorOutput(out, rc, a);
    if (!a.problem.empty() && WIFEXITED(rc) && WEXITSTATUS(rc) == 124) a.problem += " for " + models + ", timed out";
}

/// The anchor one model at a time (Inductor's cold compiles take seconds to minutes each), so
/// that a time budget ($FXRAY_ANCHOR_TIMEOUT seconds in all) still leaves the models done.
Anchor runAnchor(const fs::path& script, const fs::path& corpus, const std::vector<std::string>& models) {
    Anchor a;
    if (script.empty() || !fs::exists(script)) {
        a.problem = "anchor script not found (" + script.string() + ")";
        return a;
    }
    const double budget = std::atof(envOr("FXRAY_ANCHOR_TIMEOUT", "300").c_str());
    auto t0 = std::chrono::steady_clock::now();
    for (const auto& m : models) {
        double left = budget - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (left < 5) {
            a.problem = "anchor time budget (" + std::to_string(static_cast<int>(budget)) + " s) spent before " + m;
            break;
        }
        std::fprintf(stderr, "anchor: %s (%.0f s left)\n", m.c_str(), left);
        runAnchorOnce(a, script, corpus, m, static_cast<int>(left));
        if (a.problem.rfind("cannot import", 0) == 0 || a.problem.rfind("torch sees no", 0) == 0) break;
    }
    return a;
}

std::string fmt(double v, const char* f) {
    if (std::isnan(v)) return "n/a";
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

struct Geo {
    double logSum = 0;
    int n = 0;
    void add(double v) {
        if (std::isfinite(v) && v > 0) logSum += std::log(v), ++n;
    }
    std::string str(const char* f) const {
        return n ? fmt(std::exp(logSum / n), f) + " (" + std::to_string(n) + ")" : "n/a";
    }
};

}  // namespace

int main(int argc, char** argv) {
    fxray::initOpRegistry();
    fs::path corpus = envOr("FXRAY_CORPUS_DIR", FXRAY_CORPUS_DIR);
    std::string anchorFlag, onlyModels;
    bool noAnchor = false, cold = true, check = false;
    std::string once;
    int iters = 50;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--anchor" && i + 1 < argc)
            anchorFlag = argv[++i];
        else if (a == "--no-anchor")
            noAnchor = true;
        else if (a == "--no-cold")
            cold = false;
        else if (a == "--check")
            check = true;
        else if (a == "--compile-once" && i + 1 < argc)
            once = argv[++i];
        else if (a == "--iters" && i + 1 < argc)
            iters = std::max(1, std::atoi(argv[++i]));
        else if (a == "--models" && i + 1 < argc)
            onlyModels = argv[++i];
        else
            corpus = a;
    }
    if (Status s = cg::cuda::requireDevice(); !s.ok()) {
        std::printf("bench_cuda: %s\n", s.error().message.c_str());
        return 0;
    }
    if (!once.empty()) return compileOnce(corpus, once);
    const auto& rt = cg::cuda::runtime();
    std::printf("CUDA backend on the corpus training graphs: %s (sm_%d%d, %d SMs), NVRTC %d.%d, %d timed runs each\n",
                rt.deviceName.c_str(), rt.ccMajor, rt.ccMinor, rt.smCount, rt.nvrtcMajor, rt.nvrtcMinor, iters);

    std::vector<std::string> models;
    for (const auto& m : fs::directory_iterator(corpus)) {
        fs::path num = m.path() / "numerics";
        std::string name = m.path().filename().string();
        if (!onlyModels.empty() && ("," + onlyModels + ",").find("," + name + ",") == std::string::npos) continue;
        if (fs::exists(num / "forward.py") && fs::exists(num / "backward.py") &&
            fs::is_directory(num / "forward" / "inputs") && fs::is_directory(num / "backward" / "inputs"))
            models.push_back(name);
    }
    std::sort(models.begin(), models.end());

    std::error_code ec;
    const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
    cold = cold && !ec;
    std::vector<Row> rows;
    for (const auto& model : models) {
        for (const char* stage : {"forward", "backward"}) {
            Row row;
            row.graph = model + "/" + stage;
            Case c = loadCase(corpus, model, stage);
            if (!c.error.empty()) {
                row.error = c.error;
                rows.push_back(row);
                continue;
            }
            Graph& g = *c.file->graphs[0].graph;
            row.nodes = g.computeNodeCount();
            auto inputs = &c.inputs;
            const auto& pins = c.pins;
            cg::cuda::CompileOptions opts;
            for (const auto& [k, v] : pins) opts.pinned.push_back(k);
            auto cg = cg::cuda::CompiledGraph::compile(g, *inputs, opts);
            if (!cg.ok()) {
                row.error = "compile: " + cg.error().message.substr(0, 120);
                rows.push_back(row);
                continue;
            }
            if (cold) row.coldCompileMs = coldCompile(self, corpus, row.graph);
            row.compileMs = (*cg)->stats().totalMs;
            row.kernels = (*cg)->program().kernels.size();
            auto b = (*cg)->benchmark(*inputs, pins, iters, 5);
            if (!b.ok()) {
                row.error = "run: " + b.error().str().substr(0, 160);
                rows.push_back(row);
                continue;
            }
            row.runMs = b->medianMs;
            if (check) row.check = checkOutputs(**cg, c, corpus / model / "numerics" / stage / "outputs");
            row.launches = b->run.kernelLaunches;
            row.gemms = b->run.gemms;
            for (const auto& [op, count] : b->run.hostOps)
                row.host += (row.host.empty() ? "" : ",") + (op.rfind("aten.", 0) == 0 ? op.substr(5) : op) + "x" +
                            std::to_string(count);
            rows.push_back(row);
            std::fprintf(stderr, "%s: compile %.0f ms, run %.3f ms\n", row.graph.c_str(), row.compileMs, row.runMs);
        }
    }

    Anchor anchor;
    // Smallest models first: Inductor's cold compile grows with the graph, and a time budget
    // that runs out should cost the fewest rows.
    std::map<std::string, size_t> size;
    for (const auto& r : rows) size[r.graph.substr(0, r.graph.find('/'))] += r.nodes;
    std::vector<std::string> order = models;
    std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) { return size[a] < size[b]; });
    if (noAnchor)
        anchor.problem = "--no-anchor";
    else
        anchor = runAnchor(findAnchor(argv[0], anchorFlag), corpus, order);
    for (auto& r : rows)
        if (auto it = anchor.rows.find(r.graph); it != anchor.rows.end()) {
            r.eagerMs = it->second.eagerMs.value_or(NAN);
            r.inductorMs = it->second.inductorMs.value_or(NAN);
            r.inductorCompileS = it->second.inductorCompileS.value_or(NAN);
            r.anchorError = it->second.error;
        }

    std::printf("\n%-26s %5s %7s %8s %8s %9s %9s %9s %9s %8s %8s %8s  %s\n", "graph", "nodes", "kernels", "compile",
                "cold", "fxray", "eager", "inductor", "ind.comp", "vs eager", "vs ind.", "compile", "notes");
    std::printf("%-26s %5s %7s %8s %8s %9s %9s %9s %9s %8s %8s %8s\n", "", "", "", "ms", "ms", "ms", "ms", "ms", "s",
                "speed-up", "ratio", "ratio");
    Geo gEager, gInd, gComp, gCompWarm;
    for (const auto& r : rows) {
        double vsEager = r.eagerMs / r.runMs, vsInd = r.runMs / r.inductorMs;
        // Conservative: against fxray's first-use (fresh process) compile when measured.
        double compRatio = r.inductorCompileS * 1000.0 / (std::isnan(r.coldCompileMs) ? r.compileMs : r.coldCompileMs);
        std::string notes = r.error.empty() ? r.check : r.error;
        if (!r.host.empty()) notes += (notes.empty() ? "host: " : "; host: ") + r.host;
        if (!r.anchorError.empty()) notes += (notes.empty() ? "torch: " : "; torch: ") + r.anchorError.substr(0, 80);
        std::printf("%-26s %5zu %7zu %8s %8s %9s %9s %9s %9s %8s %8s %8s  %s\n", r.graph.c_str(), r.nodes, r.kernels,
                    fmt(r.compileMs, "%.0f").c_str(), fmt(r.coldCompileMs, "%.0f").c_str(),
                    fmt(r.runMs, "%.3f").c_str(), fmt(r.eagerMs, "%.3f").c_str(), fmt(r.inductorMs, "%.3f").c_str(),
                    fmt(r.inductorCompileS, "%.1f").c_str(), fmt(vsEager, "%.2fx").c_str(), fmt(vsInd, "%.2fx").c_str(),
                    fmt(compRatio, "%.0fx").c_str(), notes.c_str());
        gEager.add(vsEager);
        gInd.add(vsInd);
        gComp.add(compRatio);
        gCompWarm.add(r.inductorCompileS * 1000.0 / r.compileMs);
    }
    std::printf("\ngeomean over the training graphs (forward + backward), graphs counted in ():\n");
    std::printf("  speed-up vs eager (eager ms / fxray ms; target >= 1.2x):        %s\n", gEager.str("%.2fx").c_str());
    std::printf("  time vs inductor (fxray ms / inductor ms; target <= 1.25x):    %s\n", gInd.str("%.2fx").c_str());
    std::printf("  compile ratio (inductor cold s / fxray cold ms; target >= 10x): %s\n", gComp.str("%.0fx").c_str());
    std::printf("  compile ratio against fxray's in-process compile:               %s\n",
                gCompWarm.str("%.0fx").c_str());
    if (!anchor.problem.empty()) std::printf("  PyTorch anchor n/a: %s\n", anchor.problem.c_str());
    return 0;
}
