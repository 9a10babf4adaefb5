// Runs a sweep: workers take graphs from one queue and check each in a child `fxray` process (a
// long-lived one per worker, sweep/serve_worker.h, or a fresh one per graph; either in its own
// process group, killed at the timeout), then classify how it ended.
#include "sweep/serve_worker.h"
#include "sweep/sweep.h"

#include "minify/subprocess.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fxray::sweep {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string readText(const fs::path& p, size_t limit = 1 << 20) {
    std::ifstream in(p, std::ios::binary);
    std::string s(limit, '\0');
    in.read(s.data(), static_cast<std::streamsize>(limit));
    s.resize(static_cast<size_t>(in.gcount()));
    return s;
}

/// The last non-empty line, without fxray's "fxray: " prefix.
std::string lastLine(const std::string& text) {
    std::istringstream in(text);
    std::string line, last;
    while (std::getline(in, line))
        if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
    if (last.rfind("fxray: ", 0) == 0) last = last.substr(7);
    return last;
}

bool unsupportedMessage(const std::string& m) {
    for (const char* k :
         {"unknown op", "not supported", "unsupported", "not implemented", "not available in this build"})
        if (m.find(k) != std::string::npos) return true;
    return false;
}

std::vector<std::string> commandFor(const GraphEntry& e, const RunOptions& o, const fs::path& reproDir) {
    std::vector<std::string> argv = {o.fxray.string()};
    const std::string file = e.file.string();
    switch (o.check.kind) {
    case Check::Kind::Run:
        argv.insert(argv.end(), {"run", file, "--backend", o.check.arg, "--json"});
        if (!e.inputs.empty()) argv.insert(argv.end(), {"--inputs", e.inputs.string()});
        if (!e.expect.empty()) argv.insert(argv.end(), {"--expect", e.expect.string()});
        break;
    case Check::Kind::Compare:
        argv.insert(argv.end(), {"compare", file, "--backends", o.check.arg, "--json"});
        if (!e.inputs.empty()) argv.insert(argv.end(), {"--inputs", e.inputs.string()});
        break;
    case Check::Kind::Compile: argv.insert(argv.end(), {"compile", file, "--pipeline", o.check.arg, "--json"}); break;
    case Check::Kind::Minify:
        argv.insert(argv.end(), {"minify", file, "--check", o.check.arg, "--out", reproDir.string(), "--json"});
        break;
    }
    return argv;
}

/// The largest output error the child reported (run and compare JSON).
double maxRelErr(const json& j) {
    double m = 0;
    if (j.contains("outputs") && j["outputs"].is_array())
        for (const auto& o : j["outputs"])
            if (o.contains("rel_err") && o["rel_err"].is_number()) m = std::max(m, o["rel_err"].get<double>());
    return m;
}

json classify(const GraphEntry& e, const RunOptions& o, const minify::ProcessResult& pr, const fs::path& outFile,
              const fs::path& errFile) {
    json r;
    r["id"] = e.id;
    r["file"] = e.file.string();
    r["check"] = o.check.text;
    r["seconds"] = pr.seconds;
    const std::string stdoutText = readText(outFile), stderrText = readText(errFile);
    json child = json::parse(stdoutText, nullptr, false);
    if (child.is_discarded() || !child.is_object()) child = json();
    switch (pr.end) {
    case minify::ProcessResult::End::TimedOut:
        r["status"] = "timeout";
        r["message"] = pr.describe();
        break;
    case minify::ProcessResult::End::Signaled:
        r["status"] = "crash";
        r["signal"] = pr.signal;
        r["message"] = pr.describe() + (lastLine(stderrText).empty() ? "" : ": " + lastLine(stderrText));
        break;
    case minify::ProcessResult::End::SpawnFailed:
        r["status"] = "error";
        r["message"] = pr.describe();
        break;
    case minify::ProcessResult::End::Exited: {
        r["exit"] = pr.exitCode;
        const std::string msg = lastLine(stderrText);
        if (pr.exitCode == 0) {
            r["status"] = "ok";
            // A compiled backend that ran ops on the reference (or the host) says so.
            if (child.contains("fallbacks") && child["fallbacks"].is_object() && !child["fallbacks"].empty())
                r["fallbacks"] = child["fallbacks"];
        } else if (pr.exitCode == 1) {
            // run/compare: the numbers differ; minify: nothing to minify (the check passes).
            r["status"] = o.check.kind == Check::Kind::Minify ? "ok" : "differ";
            r["message"] = msg.empty() ? "outputs differ" : msg;
        } else {
            r["status"] = unsupportedMessage(msg) ? "unsupported" : "error";
            r["message"] = msg;
        }
        break;
    }
    }
    if (!child.is_null()) {
        r["max_rel_err"] = maxRelErr(child);
        if (child.contains("ms")) r["ms"] = child["ms"];
        // What a script needs from the child; per-node lists are left out (they can be large).
        // The device a GPU check ran on, as the child saw it (run: "device", compare: "devices"):
        // with --gpus, the proof of which physical GPU each worker used.
        for (const char* k : {"device", "devices", "fp64_rerun_ms"})
            if (child.contains(k)) r[k] = child[k];
        for (const char* k : {"outputs", "first_divergent", "nodes_before", "nodes_after", "signature", "out"})
            if (child.contains(k)) r["detail"][k] = child[k];
        if (r["status"] == "differ" && r.value("message", "") == "outputs differ") {
            std::string m;
            for (const auto& out : child.value("outputs", json::array()))
                if (!out.value("ok", true))
                    m += (m.empty() ? "" : "; ") + std::string("output ") + std::to_string(out.value("index", 0)) +
                         " rel_err " + std::to_string(out.value("rel_err", 0.0));
            if (!m.empty()) r["message"] = m;
        }
    }
    return r;
}

}  // namespace

Expected<RunSummary> runSweep(const std::vector<GraphEntry>& all, const RunOptions& opts) {
    const auto t0 = std::chrono::steady_clock::now();
    RunSummary sum;
    if (opts.fxray.empty()) return makeError("no fxray executable to run the checks with (set FXRAY_EXE)");
    std::vector<GraphEntry> mine = shardEntries(all, opts.shard);
    sum.selected = mine.size();
    std::vector<GraphEntry> todo;
    for (auto& e : mine) {
        if (!opts.rerun && hasResult(opts.resultsDir, e.id)) {
            ++sum.skipped;
            continue;
        }
        todo.push_back(std::move(e));
    }
    // Longest processing time first: by weight (file and input bytes), ties by id.
    std::stable_sort(todo.begin(), todo.end(),
                     [](const GraphEntry& a, const GraphEntry& b) { return a.weight > b.weight; });
    std::error_code ec;
    fs::create_directories(opts.resultsDir, ec);
    if (ec) {
        Diagnostic d = makeError("cannot create the results folder: " + ec.message());
        d.file = opts.resultsDir.string();
        return d;
    }
    const int workers = opts.gpus.empty() ? std::max(1, opts.jobs) : static_cast<int>(opts.gpus.size());
    std::atomic<size_t> next{0}, done{0};
    std::mutex mu;
    Status firstError = Status::success();
    auto work = [&](int w) {
        const fs::path scratch = opts.resultsDir / (".work-" + std::to_string(::getpid()) + "-" + std::to_string(w));
        std::error_code wec;
        fs::create_directories(scratch, wec);
        minify::SpawnOptions so;
        so.timeoutSeconds = opts.timeoutSeconds;
        so.stdoutFile = scratch / "stdout";
        so.stderrFile = scratch / "stderr";
        if (!opts.gpus.empty()) so.extraEnv.push_back("CUDA_VISIBLE_DEVICES=" + opts.gpus[static_cast<size_t>(w)]);
        std::unique_ptr<ServeWorker> worker;
        if (!opts.processPerGraph)
            worker = std::make_unique<ServeWorker>(opts.fxray, so.extraEnv, scratch / "worker.log");
        for (size_t i; (i = next++) < todo.size();) {
            const GraphEntry& e = todo[i];
            const fs::path reproDir = opts.resultsDir / "repros" / resultPath("", e.id).stem();
            const auto argv = commandFor(e, opts, reproDir);
            minify::ProcessResult pr;
            if (worker) {
                pr = worker->run(std::vector<std::string>(argv.begin() + 1, argv.end()), so.timeoutSeconds,
                                 so.stdoutFile, so.stderrFile);
                // Anything but a verdict (0: ok, 1: differs) gets a fresh worker for the next graph.
                if (pr.end != minify::ProcessResult::End::Exited || pr.exitCode > 1) worker->recycle();
            } else {
                pr = minify::spawnAndWait(argv, so);
            }
            json r = classify(e, opts, pr, so.stdoutFile, so.stderrFile);
            r["worker"] = w;
            if (!opts.gpus.empty()) r["gpu"] = opts.gpus[static_cast<size_t>(w)];
            r["shard"] = {{"index", opts.shard.index}, {"count", opts.shard.count}, {"source", opts.shard.source}};
            Status s = writeResult(opts.resultsDir, r);
            std::lock_guard<std::mutex> lock(mu);
            if (!s.ok() && firstError.ok()) firstError = s;
            ++done;
            if (opts.progress) opts.progress(done, todo.size(), r);
        }
        worker.reset();  // before its log goes with the scratch folder
        fs::remove_all(scratch, wec);
    };
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w) threads.emplace_back(work, w);
    for (auto& t : threads) t.join();
    if (!firstError.ok()) return firstError.error();
    sum.ran = done;
    sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return sum;
}

}  // namespace fxray::sweep
