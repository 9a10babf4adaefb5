#pragma once
/// Sweeps: one check (run, compare, compile, minify) over every graph found under some folders,
/// each graph in its own child process (a crash or a hang is a result, not the end), one JSON
/// result file per graph written atomically into a results folder that several shards (Slurm
/// array tasks, Kubernetes indexed-job pods, CI matrix jobs) share without clashing. A rerun
/// skips graphs that already have a result, so a preempted shard resumes where it stopped.
#include "support/diagnostic.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fxray::sweep {

/// One graph found by discovery.
struct GraphEntry {
    std::string id;                ///< "opinfo/abs__default__s0/numerics/forward": root's name + relative path, no .py
                                   ///< (a file root: its last two folders + stem, "mlp_4k/numerics/forward")
    std::filesystem::path file;    ///< the FX text file
    std::filesystem::path inputs;  ///< <stem>/inputs when recorded, else empty (seeded random inputs)
    std::filesystem::path expect;  ///< <stem>/outputs when recorded, else empty
    uint64_t weight = 0;           ///< size estimate for balancing shards (file + input bytes)
};

/// Finds every FX graph file (`.py` holding `def forward(`) under the roots (a root may also be
/// one file), sorted by id. Unreadable roots are an error naming them.
Expected<std::vector<GraphEntry>> discoverGraphs(const std::vector<std::filesystem::path>& roots);

/// The check a sweep runs on each graph.
struct Check {
    enum class Kind { Run, Compare, Compile, Minify };
    Kind kind = Kind::Run;
    std::string arg;   ///< compare: "ref,cpu"; compile: pipeline; minify: the minifier's --check spec; run: backend
    std::string text;  ///< as given ("compare:ref,cpu")
    bool usesGpu() const;
};
/// Parses "run", "run:cpu", "compare:ref,cpu[,cuda]", "compile:joint", "minify:SPEC".
Expected<Check> parseCheck(const std::string& text);

/// Which part of the graph list this process takes.
struct Shard {
    int count = 1;
    int index = 0;
    std::string source = "single";  ///< "flags", "slurm", "kubernetes" or "single"
};
/// The shard from explicit values (when given) or the scheduler's environment: Slurm job arrays
/// (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT), Kubernetes indexed jobs
/// (JOB_COMPLETION_INDEX, with the count given). `env` looks a variable up (getenv by default).
Expected<Shard> resolveShard(std::optional<int> count, std::optional<int> index,
                             const std::function<const char*(const char*)>& env = nullptr);
/// The entries of one shard: graphs are dealt to shards by weight (largest first, each to the
/// least loaded shard, ties to the lowest index), so shards take about the same time and every
/// shard computes the same assignment from the same graph list. Returned sorted by id.
std::vector<GraphEntry> shardEntries(const std::vector<GraphEntry>& all, const Shard& shard);

/// The result file of a graph inside the results folder ('/' and '%' escaped).
std::filesystem::path resultPath(const std::filesystem::path& resultsDir, const std::string& id);
/// Writes a result atomically (a temporary file renamed into place).
Status writeResult(const std::filesystem::path& resultsDir, const nlohmann::json& result);
/// Reads every result of a folder; files that do not parse are reported in `bad`.
std::vector<nlohmann::json> readResults(const std::filesystem::path& resultsDir,
                                        std::vector<std::string>* bad = nullptr);
/// The graph has a complete result already (resume).
bool hasResult(const std::filesystem::path& resultsDir, const std::string& id);

/// Options of one sweep run.
struct RunOptions {
    Check check;
    std::filesystem::path resultsDir;
    std::filesystem::path fxray;    ///< the executable answering the checks
    int jobs = 1;                   ///< workers (with gpus: one per listed GPU)
    std::vector<std::string> gpus;  ///< CUDA_VISIBLE_DEVICES value per worker
    double timeoutSeconds = 300;
    Shard shard;
    bool rerun = false;  ///< ignore existing results
    /// A fresh child process per graph. Default off: each worker is one long-lived child
    /// (sweep/serve_worker.h) that answers graph after graph and is replaced after a crash, a
    /// hang or an error, which gives the same results without paying a process start (a CUDA
    /// context) per graph.
    bool processPerGraph = false;
    /// Called after each graph (from worker threads, serialised): done, total, the result.
    std::function<void(size_t, size_t, const nlohmann::json&)> progress;
};
/// What a run did.
struct RunSummary {
    size_t selected = 0, skipped = 0, ran = 0;
    double seconds = 0;
};
/// Runs the check on every entry of the shard that has no result yet, largest first (so that
/// the longest graphs do not start last and leave the other workers idle at the end).
Expected<RunSummary> runSweep(const std::vector<GraphEntry>& all, const RunOptions& opts);

/// Status of one result: ok, differ, unsupported, error, crash, timeout.
std::string statusOf(const nlohmann::json& result);

/// The report over a results folder: counts, the worst and slowest graphs, and, with an older
/// folder, what changed (newly failing, newly passing, slower beyond noise).
nlohmann::json report(const std::vector<nlohmann::json>& results, const std::vector<nlohmann::json>* old = nullptr);
/// The report as text.
std::string reportText(const nlohmann::json& report);

}  // namespace fxray::sweep
