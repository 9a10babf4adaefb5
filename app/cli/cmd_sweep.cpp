// fxray sweep DIR...: one check over every graph found under the folders, in child processes, one
// JSON result per graph; shards by the scheduler's variables; --report summarises a results
// folder and compares it with an earlier one.
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "minify/subprocess.h"
#include "sweep/serve_worker.h"
#include "sweep/sweep.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <sstream>

namespace fxray::cli {

namespace {

const char* kSweepUsage =
    "usage: fxray sweep DIR... --check CHECK --out RESULTS [--jobs N] [--gpus LIST] [--timeout S]\n"
    "                  [--num-shards N --shard-index I] [--rerun] [--list] [--json]\n"
    "       fxray sweep --report RESULTS [--compare OLD_RESULTS] [--json]\n"
    "  CHECK          run[:ref|cpu|cuda] | compare:B1,B2[,...] | compile:PIPELINE | minify:SPEC\n"
    "  DIR            folders searched for FX graph files (.py); <stem>/inputs and <stem>/outputs\n"
    "                 beside a graph are its recorded inputs and PyTorch's outputs (corpus layout)\n"
    "  --jobs N       child processes at once (default 1)\n"
    "  --gpus LIST    one worker per entry, each with CUDA_VISIBLE_DEVICES set to it (e.g. 0,1 or 0,0)\n"
    "  --num-shards N --shard-index I   this process's part; without them SLURM_ARRAY_TASK_ID/\n"
    "                 SLURM_ARRAY_TASK_COUNT (Slurm job arrays) or JOB_COMPLETION_INDEX with\n"
    "                 --num-shards (Kubernetes indexed jobs) decide. Shards share one RESULTS folder.\n"
    "  --timeout S    seconds per graph before it counts as a hang (default 300)\n"
    "  --rerun        run graphs that already have a result (default: skip them, which resumes)\n"
    "  --process-per-graph   a fresh fxray process for every graph (default: one long-lived process\n"
    "                 per worker, replaced after a crash, hang or error; same results, no per-graph start)\n"
    "  --list         print this shard's graphs and exit\n"
    "  --report       counts, worst and slowest graphs, failures; with --compare also newly failing,\n"
    "                 newly passing and slower graphs (exit 1 when any graph newly fails)\n";

std::optional<int> intOpt(const Args& a, const std::string& name, std::string& perr) {
    if (!a.has(name)) return std::nullopt;
    try {
        size_t used = 0;
        int v = std::stoi(a.get(name), &used);
        if (used == a.get(name).size()) return v;
    } catch (...) {}
    perr = name + " takes an integer, got '" + a.get(name) + "'";
    return std::nullopt;
}

int runReport(const Args& a, std::ostream& out, std::ostream& err) {
    const std::filesystem::path dir = a.get("--report");
    if (!std::filesystem::is_directory(dir)) {
        Diagnostic d = makeError("no such results folder");
        d.file = dir.string();
        return reportError(err, d);
    }
    std::vector<std::string> bad;
    auto results = sweep::readResults(dir, &bad);
    for (const auto& b : bad) err << "fxray: warning: " << b << ": not a sweep result, ignored\n";
    std::vector<nlohmann::json> old;
    const bool comparing = a.has("--compare");
    if (comparing) {
        const std::filesystem::path od = a.get("--compare");
        if (!std::filesystem::is_directory(od)) {
            Diagnostic d = makeError("no such results folder");
            d.file = od.string();
            return reportError(err, d);
        }
        old = sweep::readResults(od);
    }
    auto rep = sweep::report(results, comparing ? &old : nullptr);
    if (a.has("--json"))
        out << rep.dump(1) << "\n";
    else
        out << sweep::reportText(rep);
    if (comparing && !rep["compare"]["newly_failing"].empty()) return 1;
    return Ok;
}

}  // namespace

int cmdSweep(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(
        argv,
        {"--check", "--out", "--jobs", "--gpus", "--timeout", "--num-shards", "--shard-index", "--report", "--compare"},
        {"--json", "--help", "--rerun", "--list", "--process-per-graph"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << kSweepUsage;
        return Ok;
    }
    if (a->has("--report")) return runReport(*a, out, err);
    if (a->positional.empty()) return reportError(err, makeError("sweep takes at least one DIR (or --report RESULTS)"));
    std::vector<std::filesystem::path> roots(a->positional.begin(), a->positional.end());
    auto entries = sweep::discoverGraphs(roots);
    if (!entries.ok()) return reportError(err, entries.error());
    const auto count = intOpt(*a, "--num-shards", perr);
    const auto index = intOpt(*a, "--shard-index", perr);
    if (!perr.empty()) return reportError(err, makeError(perr));
    auto shard = sweep::resolveShard(count, index);
    if (!shard.ok()) return reportError(err, shard.error());
    if (a->has("--list")) {
        for (const auto& e : sweep::shardEntries(*entries, *shard))
            out << e.id << "\t" << e.file.string() << (e.inputs.empty() ? "\t(random inputs)" : "") << "\n";
        return Ok;
    }
    if (!a->has("--check"))
        return reportError(err, makeError("sweep needs --check (run, compare:B1,B2, compile:P, minify:SPEC)"));
    if (!a->has("--out"))
        return reportError(err, makeError("sweep needs --out RESULTS (a folder; shards may share it)"));
    auto check = sweep::parseCheck(a->get("--check"));
    if (!check.ok()) return reportError(err, check.error());

    sweep::RunOptions opts;
    opts.check = *check;
    opts.resultsDir = a->get("--out");
    opts.fxray = minify::findFxrayExecutable();
    opts.shard = *shard;
    opts.rerun = a->has("--rerun");
    opts.processPerGraph = a->has("--process-per-graph");
    const auto jobs = intOpt(*a, "--jobs", perr);
    if (!perr.empty()) return reportError(err, makeError(perr));
    opts.jobs = jobs.value_or(1);
    if (opts.jobs < 1) return reportError(err, makeError("--jobs must be at least 1"));
    if (a->has("--gpus")) {
        opts.gpus = splitComma(a->get("--gpus"));
        if (opts.gpus.empty()) return reportError(err, makeError("--gpus takes a list of device ids, e.g. 0,1"));
    }
    if (a->has("--timeout")) {
        try {
            opts.timeoutSeconds = std::stod(a->get("--timeout"));
        } catch (...) {
            return reportError(err, makeError("--timeout takes seconds"));
        }
    }
    const bool quiet = a->has("--json");
    opts.progress = [&](size_t done, size_t total, const nlohmann::json& r) {
        if (quiet) return;
        const std::string status = sweep::statusOf(r);
        // Every failure, and a heartbeat every 50 graphs, so long sweeps show they are alive.
        if (status != "ok" || done % 50 == 0 || done == total)
            err << "[" << done << "/" << total << "] " << status << "  " << r.value("id", "")
                << (r.contains("message") ? "  " + r.value("message", "").substr(0, 140) : "") << "\n";
    };
    if (!quiet)
        err << "sweep: " << entries->size() << " graphs found, shard " << opts.shard.index << " of " << opts.shard.count
            << " (" << opts.shard.source << "), check " << opts.check.text << ", "
            << (opts.gpus.empty() ? std::to_string(opts.jobs) + " worker(s)"
                                  : std::to_string(opts.gpus.size()) + " GPU worker(s)")
            << "\n";
    auto sum = sweep::runSweep(*entries, opts);
    if (!sum.ok()) return reportError(err, sum.error());
    auto results = sweep::readResults(opts.resultsDir);
    auto rep = sweep::report(results);
    if (quiet) {
        nlohmann::json j = {
            {"selected", sum->selected},
            {"skipped", sum->skipped},
            {"ran", sum->ran},
            {"seconds", sum->seconds},
            {"shard", {{"index", opts.shard.index}, {"count", opts.shard.count}, {"source", opts.shard.source}}},
            {"report", rep}};
        out << j.dump(1) << "\n";
    } else {
        out << "this shard: " << sum->selected << " graphs, " << sum->skipped << " already had a result, " << sum->ran
            << " ran in " << sum->seconds << " s\n"
            << "results folder " << opts.resultsDir.string() << ":\n"
            << sweep::reportText(rep);
    }
    return Ok;
}

int cmdSweepServe(const std::vector<std::string>& args, std::ostream&, std::ostream& err) {
    if (!args.empty()) return reportError(err, makeError("__sweep-serve takes no arguments (the sweep starts it)"));
    return sweep::serveChecks(runCli);
}

}  // namespace fxray::cli
