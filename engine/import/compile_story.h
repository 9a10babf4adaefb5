#pragma once
/// The story of a `torch.compile` run told by its TORCH_TRACE log: one entry per compile id
/// (frame, recompile, restart attempt) with its status, graph breaks, recompile reasons, guards,
/// failure, phase timings, kernels and symbols. What tlparse shows as HTML pages, as data.
///
/// Sources (PyTorch 2.11): `dynamo_start` (the stack, for the tree), `compilation_metrics`,
/// `bwd_compilation_metrics` and their `_runtime` twins (status, guard count, timings, failure),
/// `artifact`s `dynamo_graph_break_reason`, `recompile_reasons`, `dynamo_error`,
/// `inductor_provenance_tracking_node_mappings`, `*_cache_hit/_miss`, `inductor_output_code`
/// (kernels with their source nodes), `create_symbol`, `create_unbacked_symbol`,
/// `symbolic_shape_specialization`. Records of kinds fxray does not know, lines that are not
/// records and envelopes cut short are kept as raw entries; nothing in a log is fatal.
#include "support/diagnostic.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxray {

/// How a compile ended.
enum class CompileStatus {
    Ok,          ///< compiled (possibly an empty graph)
    GraphBreak,  ///< compiled a graph that ends at a graph break (Dynamo restarted to get here)
    Failed,      ///< raised: fail_type in the metrics or a dynamo_error artifact
    Restarted,   ///< an attempt Dynamo abandoned and restarted (its break is the reason)
    CacheHit,    ///< the compiled artifact came from the FX graph or AOTAutograd cache
};

/// "ok", "graph_break", "failed", "restarted", "cache_hit".
const char* compileStatusName(CompileStatus s);

/// A line of user code.
struct UserFrame {
    std::string file;
    int line = 0;      ///< 0 when unknown
    std::string code;  ///< the source line as the traceback prints it, trimmed
    std::string name;  ///< the function, when known
};

/// A graph break, counted over the places it was logged.
struct GraphBreak {
    std::string reason;                   ///< the break's first line ("Failed to trace builtin operator")
    std::string detail;                   ///< the whole message PyTorch logged (explanation, hints)
    UserFrame userFrame;                  ///< the innermost user frame of the break
    int count = 0;                        ///< times logged (with the same reason at the same line)
    std::vector<std::string> compileIds;  ///< where it was logged (story-level list only)
};

/// Why a compile failed.
struct CompileFailure {
    std::string type;                ///< fail_type ("BackendCompilerFailed") or the exception's type
    std::string message;             ///< fail_reason, or the traceback's last line
    std::vector<std::string> stack;  ///< traceback frames, outermost first ("file:line in fn")
    UserFrame userFrame;             ///< fail_user_frame_*, when logged
};

/// A generated kernel and the graph nodes it computes.
struct KernelInfo {
    std::string name;                ///< "triton_poi_fused_relu_0", "extern_kernels.mm"
    std::vector<std::string> nodes;  ///< post-grad nodes (provenance) or source nodes (output code)
};

/// A symbol of the shape environment.
struct SymbolInfo {
    std::string name;          ///< "s33", "u0"
    std::string hint;          ///< value when created, or the specialized value
    std::string source;        ///< "L['args'][0].size()[0]"
    std::string range;         ///< "[2, int_oo]", empty when not logged
    bool specialized = false;  ///< from symbolic_shape_specialization
    std::string reason;        ///< why it was specialized
};

/// A frame of the stack that started a compile (dynamo_start).
struct StackFrame {
    std::string file;
    int line = 0;
    std::string name;
    std::string code;  ///< "loc", when logged
    bool operator==(const StackFrame& o) const { return file == o.file && line == o.line && name == o.name; }
};

/// One compile id: a frame (frame_id), its n-th compile (frame_compile_id), one attempt.
struct CompileEntry {
    std::string id;    ///< "0/0", "1/0_1" (attempt 1), "!0/2/0" (compiled autograd 0)
    int rank = -1;     ///< rank of a multi-rank folder, -1 otherwise
    std::string file;  ///< the log it came from
    int line = 0;      ///< first record of it
    int64_t frameId = -1, frameCompileId = -1, attempt = 0, compiledAutogradId = -1;
    CompileStatus status = CompileStatus::Ok;
    std::string function;                       ///< co_name
    std::vector<StackFrame> stack;              ///< from dynamo_start
    std::vector<GraphBreak> graphBreaks;        ///< deduplicated, with counts
    std::vector<std::string> restartReasons;    ///< compilation_metrics restart_reasons
    std::vector<std::string> recompileReasons;  ///< why this compile happened (failed guards)
    std::optional<int64_t> guardCount;          ///< guard_count of the metrics
    std::vector<std::string> failedGuards;      ///< this compile's guards that failed later
    std::optional<CompileFailure> failure;
    std::vector<std::pair<std::string, double>> metrics;  ///< phase -> seconds, in log order
    std::vector<KernelInfo> kernels;
    std::vector<SymbolInfo> symbols;
    std::vector<std::string> stages;  ///< graph and artifact kinds logged, first occurrence order
    /// Graph payloads (stage, FX text), kept only when CompileStoryOptions::keepGraphs.
    std::vector<std::pair<std::string, std::string>> graphs;
    bool hasMetrics = false;
    bool cacheHit = false, cacheMiss = false;
};

/// A record (or line) that did not fit the story: kept for display, never fatal.
struct RawTraceEntry {
    std::string file;
    int line = 0;
    std::string kind;       ///< record kind, "" when the line is no record
    std::string compileId;  ///< when the envelope had one
    std::string why;        ///< "unknown record kind", "not a record", "truncated envelope", ...
    std::string text;       ///< the line, cut to 300 bytes
};

/// Everything read from one TORCH_TRACE file or folder.
struct CompileStory {
    std::vector<std::string> files;       ///< logs read, in order
    std::vector<CompileEntry> compiles;   ///< by rank, then in order of first appearance
    std::vector<GraphBreak> graphBreaks;  ///< distinct breaks of the whole run, with compile ids
    std::vector<RawTraceEntry> raw;       ///< capped at kMaxRaw; rawDropped counts the rest
    size_t rawDropped = 0;
    size_t records = 0;
    size_t bytes = 0;
    bool multiRank = false;  ///< several logs (ranks) grouped by rank
    static constexpr size_t kMaxRaw = 1000;
};

/// What to keep beyond the story itself.
struct CompileStoryOptions {
    bool keepGraphs = false;  ///< keep each compile's graph payloads (for reports)
};

/// Reads the story of one log's text. `fileName` names it in raw entries; `rank` is stored on
/// each entry (-1: none). Never fails: garbage gives raw entries and no compiles.
CompileStory compileStoryFromText(std::string_view text, const std::string& fileName, int rank = -1,
                                  const CompileStoryOptions& opts = {});

/// Reads a `.log` file or a TORCH_TRACE folder (its `dedicated_log_torch_trace_*.log`, else its
/// `*.log`); several logs are grouped by rank (`..._rank_N_...`, else the envelope's rank, else
/// the file's position). Error only when nothing can be read.
Expected<CompileStory> readCompileStory(const std::filesystem::path& fileOrFolder,
                                        const CompileStoryOptions& opts = {});

/// The rank named by a log's file name (`dedicated_log_torch_trace_rank_3_x.log` -> 3), or -1.
int rankOfTraceFile(const std::filesystem::path& p);

}  // namespace fxray
