// fxray bench FILE: where a compiled graph's time goes. Compiles the graph for a backend, times
// whole runs (median of --iters; on CUDA with inputs resident on the device, as
// CompiledProgram::benchmark), then times each step of one more run (CUDA events; the host clock
// on the CPU) and prints the steps sorted by time with what they move and compute: achieved
// GB/s and FLOP/s and, on a GPU, their share of the device's peak (issue 17 item 5).
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "codegen/backend.h"
#include "exec/shape_binding.h"
#include "import/lifted_constants.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace fxray::cli {

namespace {

const char* kBenchUsage =
    "usage: fxray bench FILE [--graph SEL] [--backend cpu|cuda] [--inputs DIR] [--iters N] [--top N]\n"
    "                   [--seed N] [--sizes S=N,...] [--json]\n"
    "  --backend B   cpu (default where built) or cuda\n"
    "  --inputs DIR  NNN.npy per placeholder (default: seeded random inputs from the annotations)\n"
    "  --iters N     timed runs for the median (default 20)\n"
    "  --top N       steps listed in the text table (default 25; --json lists all)\n"
    "Per step (generated kernel, extern kernel, fallback): time, share of the run, bytes of its\n"
    "operands and results, achieved GB/s and GFLOP/s (GEMMs, convolutions, attention) and, on a\n"
    "GPU, the share of the device's peak bandwidth / fp32 FLOP/s.\n";

std::string fixed(double v, int prec) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", prec, v);
    return buf;
}

std::string fmtBytes(double b) {
    const char* unit[] = {"B", "KB", "MB", "GB"};
    int u = 0;
    while (b >= 1000 && u < 3) b /= 1000, ++u;
    return fixed(b, b < 10 ? 2 : b < 100 ? 1 : 0) + " " + unit[u];
}

}  // namespace

int cmdBench(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(argv, {"--graph", "--inputs", "--backend", "--iters", "--top", "--seed", "--sizes"},
                       {"--json", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << kBenchUsage;
        return Ok;
    }
    if (a->positional.size() != 1) return reportError(err, makeError("bench takes one FILE"));
    const std::string backend = a->get("--backend", backendAvailable("cpu") ? "cpu" : "cuda");
    // An unknown backend, one this build lacks, or CUDA without a device: exit 2 before loading.
    auto backendE = makeBackend(backend);
    if (!backendE.ok()) return reportError(err, backendE.error());
    Backend& runner = **backendE;
    if (!runner.caps().compiles)
        return reportError(err,
                           makeError("--backend takes cpu or cuda (the reference executor is not a compiled backend)"));
    auto intOpt = [&](const char* name, int dflt, int lo) -> Expected<int> {
        if (!a->has(name)) return dflt;
        try {
            int v = std::stoi(a->get(name));
            if (v < lo) throw std::out_of_range(name);
            return v;
        } catch (...) {
            return makeError(std::string(name) + " takes an integer >= " + std::to_string(lo));
        }
    };
    auto iters = intOpt("--iters", 20, 1), top = intOpt("--top", 25, 1), seedI = intOpt("--seed", 0, 0);
    for (auto* e : {&iters, &top, &seedI})
        if (!e->ok()) return reportError(err, e->error());
    const uint64_t seed = static_cast<uint64_t>(*seedI);

    std::optional<LoadedFile> file;
    auto lgE = loadRunnable(*a, file, "compile");
    if (!lgE.ok()) return reportError(err, lgE.error());
    LoadedGraph& lg = **lgE;
    Graph& g = lg.executable();
    if (auto missing = missingConstants(g); !missing.empty()) {
        Diagnostic d = makeError("the file does not carry the value of constant '" + missing[0] +
                                 "'; `fxray run --constants DIR` explains how to give it");
        d.file = g.sourceFile;
        return reportError(err, d);
    }
    auto sizes = sizesOption(*a, g);
    if (!sizes.ok()) return reportError(err, sizes.error());
    auto inputs = loadInputs(g, a->get("--inputs"), seed, &*sizes);
    if (!inputs.ok()) return reportError(err, inputs.error());

    const cg::PeakRates peak = runner.peak();
    auto t0 = SteadyClock::now();
    auto program = runner.compile(g, *inputs);
    if (!program.ok()) return reportError(err, program.error());
    const double compileMs = msSince(t0);
    // Device backends keep the values resident (no transfer timed); 3 warm-up runs.
    auto timing = (*program)->benchmark(*inputs, *iters, 3, seed);
    if (!timing.ok()) return reportError(err, timing.error());
    const Timing t = *timing;
    auto profiledSteps = (*program)->profile(*inputs, seed);
    if (!profiledSteps.ok()) return reportError(err, profiledSteps.error());
    const std::vector<cg::StepProfile> steps = std::move(profiledSteps).value();
    const double profiled =
        std::accumulate(steps.begin(), steps.end(), 0.0, [](double s, const auto& st) { return s + st.ms; });
    std::vector<size_t> order(steps.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return steps[x].ms > steps[y].ms; });
    std::map<std::string, int> kinds;
    for (const auto& st : steps) ++kinds[st.kind];

    if (a->has("--json")) {
        nlohmann::json j;
        j["file"] = a->positional[0];
        j["graph"] = lg.id;
        j["backend"] = backend;
        j["device"] = peak.device;
        j["compile_ms"] = compileMs;
        j["iters"] = t.iters;
        j["median_ms"] = t.medianMs;
        j["min_ms"] = t.minMs;
        j["max_ms"] = t.maxMs;
        j["profiled_ms"] = profiled;
        j["peak"] = {{"bytes_per_s", peak.bytesPerSecond}, {"flops_per_s", peak.flopsPerSecond}};
        j["steps"] = nlohmann::json::array();
        for (size_t r = 0; r < order.size(); ++r) {
            const auto& st = steps[order[r]];
            const double s = st.ms / 1e3;
            nlohmann::json js = {{"rank", r + 1},
                                 {"step", order[r]},
                                 {"name", st.name},
                                 {"kind", st.kind},
                                 {"nodes", st.nodes},
                                 {"ms", st.ms},
                                 {"bytes", st.bytes},
                                 {"flops", st.flops},
                                 {"gb_per_s", s > 0 ? st.bytes / s / 1e9 : 0.0},
                                 {"gflop_per_s", s > 0 ? st.flops / s / 1e9 : 0.0}};
            if (peak.bytesPerSecond > 0 && s > 0) js["pct_peak_bandwidth"] = 100.0 * st.bytes / s / peak.bytesPerSecond;
            if (peak.flopsPerSecond > 0 && s > 0 && st.flops > 0)
                js["pct_peak_flops"] = 100.0 * st.flops / s / peak.flopsPerSecond;
            j["steps"].push_back(js);
        }
        out << j.dump(1) << "\n";
        return Ok;
    }
    out << "fxray bench " << a->positional[0] << " (graph " << lg.id << ") on " << backend << ": " << peak.device
        << "\n";
    out << "  median " << fixed(t.medianMs, 3) << " ms over " << t.iters << " runs (min " << fixed(t.minMs, 3)
        << ", max " << fixed(t.maxMs, 3) << "); compile " << fixed(compileMs, 0) << " ms\n";
    out << "  profiled run: " << fixed(profiled, 3) << " ms in " << steps.size() << " steps (";
    bool first = true;
    for (const auto& [k, n] : kinds) out << (first ? "" : ", ") << n << " " << k, first = false;
    out << ")";
    if (peak.bytesPerSecond > 0)
        out << "; peak " << fixed(peak.bytesPerSecond / 1e9, 0) << " GB/s, " << fixed(peak.flopsPerSecond / 1e12, 1)
            << " TFLOP/s fp32";
    out << "\n\n";
    char line[512];
    std::snprintf(line, sizeof line, "%4s %9s %6s  %-8s %10s %8s %6s %9s %6s  %s\n", "#", "ms", "%", "kind", "bytes",
                  "GB/s", "%bw", "GFLOP/s", "%fl", "step (nodes)");
    out << line;
    for (size_t r = 0; r < order.size() && r < static_cast<size_t>(*top); ++r) {
        const auto& st = steps[order[r]];
        const double s = st.ms / 1e3;
        const double gbs = s > 0 ? st.bytes / s / 1e9 : 0, gfl = s > 0 ? st.flops / s / 1e9 : 0;
        std::string bw = peak.bytesPerSecond > 0 && s > 0 ? fixed(100.0 * st.bytes / s / peak.bytesPerSecond, 1) : "-";
        std::string fl = peak.flopsPerSecond > 0 && s > 0 && st.flops > 0
                             ? fixed(100.0 * st.flops / s / peak.flopsPerSecond, 1)
                             : "-";
        std::string nodes;
        for (size_t i = 0; i < st.nodes.size() && i < 3; ++i) nodes += (i ? ", " : "") + st.nodes[i];
        if (st.nodes.size() > 3) nodes += ", +" + std::to_string(st.nodes.size() - 3);
        std::snprintf(line, sizeof line, "%4zu %9.3f %5.1f%%  %-8s %10s %8.1f %6s %9s %6s  %s (%s)\n", r + 1, st.ms,
                      profiled > 0 ? 100.0 * st.ms / profiled : 0.0, st.kind.c_str(), fmtBytes(st.bytes).c_str(), gbs,
                      bw.c_str(), st.flops > 0 ? fixed(gfl, 0).c_str() : "-", fl.c_str(), st.name.c_str(),
                      nodes.c_str());
        out << line;
    }
    if (order.size() > static_cast<size_t>(*top))
        out << "  ... " << order.size() - static_cast<size_t>(*top) << " more steps (--top N, --json)\n";
    return Ok;
}

}  // namespace fxray::cli
