#pragma once
/// Opens whatever the user points fxray at and returns its graphs, resolved and with metadata.
/// This readers: FX text files (`.py`). Other formats plug in here.
#include "exec/shape_inference.h"
#include "ir/graph.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace fxray {

/// One graph of a loaded file.
struct LoadedGraph {
    std::string id;     ///< "0/0/aot_joint_graph" style when the file has compile ids, else index
    std::string stage;  ///< "aot_joint_graph", "dynamo_output_graph", ...
    std::unique_ptr<Graph> graph;
    std::vector<std::string> unknownOps;  ///< op targets not in the registry
    InferenceReport inference;
    std::vector<std::string> notes;       ///< things the user should know (constants linked, ...)
};

/// All graphs of one file or folder.
struct LoadedFile {
    std::filesystem::path path;
    std::vector<LoadedGraph> graphs;
};

/// Loads a file: parses, resolves ops, infers metadata, links lifted constants from a sibling
/// Dynamo graph when one exists.
Expected<LoadedFile> loadFile(const std::filesystem::path& path);

/// Picks a graph by SEL (stage name, id, or index); empty SEL: the only graph, else the first
/// joint graph, else the first.
Expected<LoadedGraph*> selectGraph(LoadedFile& f, const std::string& sel);

/// Stage name implied by an FX file's name (`joint.py` -> "aot_joint_graph").
std::string stageFromFileName(const std::filesystem::path& p);

} // namespace fxray
