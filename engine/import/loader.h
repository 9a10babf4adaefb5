#pragma once
/// Opens whatever the user points fxray at and returns its graphs, resolved and with metadata.
/// This readers: FX text files (`.py`). Other formats plug in here.
#include "exec/shape_inference.h"
#include "import/session_state.h"
#include "ir/graph.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fxray {

/// How a repro or trace describes one graph input (runnable repros' `load_args`,
/// TORCH_TRACE's describe_tensor). Symbolic inputs carry their value.
struct InputSpec {
    std::string name;  ///< placeholder name when known
    bool isSymInt = false;
    int64_t symValue = 0;  ///< reader.symint(N)
    TensorMeta meta;       ///< shape, stride, dtype, device, storage offset
    bool requiresGrad = false;
    std::string storageHash;  ///< sha1 of saved storage contents; empty = random data
    int64_t storageBytes = 0;
};

/// A non-graph artifact kept for display (kernel code, IR dumps, metrics).
struct Artifact {
    std::string compileId;  ///< "0/0" (frame/compile[/attempt]) when known
    std::string name;       ///< "inductor_output_code", "compilation_metrics", "ir_post_fusion", ...
    std::string encoding;   ///< "string", "json"
    std::string text;
};

/// One graph of a loaded file.
struct LoadedGraph {
    std::string id;         ///< "0/0/aot_joint_graph" style when the file has compile ids, else index
    std::string stage;      ///< "aot_joint_graph", "dynamo_output_graph", ...
    std::string compileId;  ///< "0/0" when known
    std::unique_ptr<Graph> graph;
    std::vector<InputSpec> inputSpecs;    ///< when the source describes the inputs
    std::vector<std::string> unknownOps;  ///< op targets not in the registry
    InferenceReport inference;
    /// For torch-level (Dynamo) graphs: the same graph lowered to ATen, which is what runs.
    /// `graph` stays as written, for display and exact printing.
    std::unique_ptr<Graph> lowered;
    std::vector<std::string> loweredUnknownOps;
    InferenceReport loweredInference;
    /// The graph to execute: the lowered one when there is one.
    Graph& executable() const { return lowered ? *lowered : *graph; }
    const std::vector<std::string>& executableUnknownOps() const { return lowered ? loweredUnknownOps : unknownOps; }
    std::vector<std::string> notes;  ///< things the user should know (constants linked, ...)
};

/// All graphs of one file or folder.
struct LoadedFile {
    std::filesystem::path path;
    std::string format;  ///< "fx-text", "torch-trace", "debug-dir", "repro", "to-folder", "pt2", "session"
    std::vector<LoadedGraph> graphs;
    std::vector<Artifact> artifacts;
    std::vector<std::string> warnings;  ///< recoverable problems (unknown trace keys are not problems)
    /// Set when the file is an fxray session: the user's saved state (import/session_file.h).
    std::optional<SessionState> session;
};

/// Finishes a freshly read graph: resolves ops, links lifted constants from `dynamo` if given,
/// infers metadata, rebuilds users, and lowers torch-level graphs to ATen (into `lowered`; a
/// lowering failure becomes a note naming the node). Readers call this for each graph.
void finishGraph(LoadedGraph& lg, const Graph* dynamo = nullptr);

/// Loads a file: parses, resolves ops, infers metadata, links lifted constants from a sibling
/// Dynamo graph when one exists.
Expected<LoadedFile> loadFile(const std::filesystem::path& path);

/// Picks a graph by SEL, the one rule of the CLI and the app: an exact id, a stage name, an
/// index, or the end of an id after a '/' (`0/0/aot_joint_graph` as `0/aot_joint_graph`);
/// empty SEL: the only graph, else the first joint graph, else the first.
Expected<size_t> findGraphIndex(const LoadedFile& f, const std::string& sel);
/// The graph findGraphIndex picks.
Expected<LoadedGraph*> selectGraph(LoadedFile& f, const std::string& sel);

/// Stage name implied by an FX file's name (`joint.py` -> "aot_joint_graph").
std::string stageFromFileName(const std::filesystem::path& p);

}  // namespace fxray
