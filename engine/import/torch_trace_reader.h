#pragma once
/// Reader for `TORCH_TRACE` structured logs (what tlparse reads).
///
/// A log is a sequence of records: a glog prefix line
/// `V1121 22:31:44.976000 3016 torch/_dynamo/utils.py:2126] {"key": {...}, "frame_id": 0, ...}`
/// followed by payload lines that each start with a tab. `has_payload` is the MD5 of the payload
/// lines (tab removed) joined by newlines; it is checked, and a mismatch (a truncated or edited
/// log) is a warning naming the line. Graph records (dynamo_output_graph, aot_*_graph, the
/// Inductor pass artifacts, FX `graph_dump`s) become graphs grouped by compile id; kernel code,
/// metrics and other artifacts are kept as text. Unknown keys are counted, never fatal.
#include "import/loader.h"

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fxray {

/// Time spent in each phase of reading a trace (milliseconds), for the benchmark.
struct TraceTimings {
    double readMs = 0;    ///< reading the file(s)
    double splitMs = 0;   ///< splitting lines into records and parsing their JSON envelopes
    double md5Ms = 0;     ///< checking payload digests
    double parseMs = 0;   ///< parsing FX graphs and building artifacts
    double finishMs = 0;  ///< finishGraph: op resolution, constant linking, shape inference
    size_t bytes = 0;
    size_t records = 0;
};

/// True when `head` (the first bytes of a file) starts with a TORCH_TRACE record.
bool looksLikeTorchTrace(std::string_view head);

/// The log files of a TORCH_TRACE folder: `dedicated_log_torch_trace_*.log` if any, else every
/// `*.log`, sorted by name. Not recursive.
std::vector<std::filesystem::path> traceLogFiles(const std::filesystem::path& dir);
/// The logs to read for a file or folder argument: the file itself, or the folder's logs (an
/// error naming the folder when it has none).
Expected<std::vector<std::filesystem::path>> traceLogsOf(const std::filesystem::path& fileOrFolder);

/// Reads trace text already in memory. `fileName` names the file in warnings
/// ("trace.log:LINE: ..."). Error only when the text holds no record at all.
Expected<LoadedFile> readTorchTraceText(std::string_view text, const std::string& fileName,
                                        TraceTimings* timings = nullptr);

/// Reads one `.log` file or a folder of them. Graph ids are "<compile id>/<stage>" (compile id
/// "F/C", "F/C_A" for attempt A > 0, "!CA/F/C" under compiled autograd, "unknown" for records
/// without one), with "#2", "#3", ... when a stage repeats within a compile id (PyTorch reuses
/// ids after torch._dynamo.reset()). With several files, ids get a "<rank or file>:" prefix.
/// Format "torch-trace".
Expected<LoadedFile> readTorchTrace(const std::filesystem::path& fileOrFolder, TraceTimings* timings = nullptr);

}  // namespace fxray
