#pragma once
/// fxray session files (`*.fxray`): the graphs of a loaded file plus the user's state, in one
/// file that opens without the original artifacts.
///
/// Format (version 1). A zip archive with these members:
///   session.json                 {"format": "fxray-session", "version": 1,
///                                 "fxray": "<version that wrote it>",
///                                 "source": {"path": "...", "format": "torch-trace"},
///                                 "graphs": [{"id", "stage", "compile_id", "file": "graphs/0.py",
///                                             "notes": [...], "inputs": [<input spec>...],
///                                             "constants": [{"name", "graph": "" | subgraph path,
///                                                            "file", "dtype", "shape", "strides",
///                                                            "offset"}]}],
///                                 "artifacts": [{"compile_id", "name", "encoding", "file"}],
///                                 "warnings": [...],
///                                 "state": {"graph", "pipeline", "pass", "selection",
///                                           "memory_budget", "skip", "node_notes", "view"}}
///   graphs/<k>.py                the graph in PyTorch's print_readable form (what fxray prints)
///   constants/<k>/<n>.npy        graph constants (weights), C order; bf16 stored as f32 and
///                                restored from the recorded dtype, strides restored likewise
///   artifacts/<k>.txt            kernel code, IR dumps, metrics, verbatim
/// An input spec is {"name", "tensor": "f32[2, 3][3, 1]cuda:0", "requires_grad"} or
/// {"name", "symint": N}. Readers refuse another "format" and a newer major version with a
/// message; unknown keys are ignored, so minor additions stay readable by older builds.
#include "import/loader.h"
#include "import/session_state.h"

#include <filesystem>

namespace fxray {

inline constexpr int kSessionVersion = 1;

/// Writes `file`'s graphs (as printed FX text, with their constants, input specs and notes),
/// artifacts and `state` to `path`, atomically: the previous file stays intact on failure.
Status saveSession(const std::filesystem::path& path, const LoadedFile& file, const SessionState& state);

/// A loaded session: the graphs, finished like any other load, and the saved state.
struct LoadedSession {
    LoadedFile file;  ///< format "session"; `path` is the session file
    SessionState state;
    std::filesystem::path sourcePath;  ///< what the session was made from
    std::string sourceFormat;
};

/// Reads a session file. Damage (not a zip, missing or bad session.json, a graph that does not
/// parse, a constant whose bytes disagree with its recorded shape) gives a Diagnostic naming
/// the session file and the member.
Expected<LoadedSession> loadSession(const std::filesystem::path& path);

/// The same for a session held in memory (`name` is used in messages).
Expected<LoadedSession> loadSessionBuffer(std::string bytes, const std::string& name);

/// True when the zip at `path` has a session.json member (cheap: reads the directory only).
bool isSessionFile(const std::filesystem::path& path);

}  // namespace fxray
