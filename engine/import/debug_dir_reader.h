#pragma once
/// Reader for `TORCH_COMPILE_DEBUG=1` output: `torch_compile_debug/run_*/torchinductor/<graph>/`
/// folders, or any folder above or below them.
///
/// Every folder holding one of Inductor's debug files is a graph folder. From it:
/// `fx_graph_readable.py` (the AOT graph handed to Inductor; the folder name says forward,
/// backward or inference), `fx_graph_transformed.py` (after post-grad passes),
/// `fx_graph_runnable.py` (the same graph with input specs, via the repro reader), and as
/// artifacts `ir_pre_fusion.txt`, `ir_post_fusion.txt`, `output_code.py` / `output_code.cpp`,
/// `inductor_provenance_tracking_node_mappings.json`. A file that does not parse becomes a
/// warning; the others still load.
#include "import/loader.h"

#include <filesystem>
#include <string>

namespace fxray {

/// True when `dir` or a folder below it (a bounded walk) holds an Inductor debug graph folder.
bool isDebugDir(const std::filesystem::path& dir);

/// Stage implied by a debug graph folder's name: "model__1_forward_5.0" -> "aot_forward_graph",
/// "..._backward_..." -> "aot_backward_graph", "..._inference_..." -> "aot_inference_graph",
/// else "aot_graph".
std::string stageFromDebugFolder(const std::string& folderName);

/// Reads every graph folder at or below `dir`. Graph ids are "<folder>/<stage>" for
/// fx_graph_readable.py, "<folder>/inductor_post_grad_graph" and "<folder>/fx_graph_runnable",
/// where <folder> is the graph folder's path relative to `dir` (its own name when `dir` is the
/// graph folder). Format "debug-dir". Error when no graph folder is found.
Expected<LoadedFile> readDebugDir(const std::filesystem::path& dir);

}  // namespace fxray
