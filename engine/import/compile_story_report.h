#pragma once
/// A self-contained Markdown report of a compile story (compile_story.h) that a user can attach
/// to a bug: the compile tree, distinct graph breaks with their user lines, recompile reasons
/// and failed guards, failures with their stacks, a phase-timing table, kernels, symbols, and
/// the graphs the trace holds written next to it as FX text (`graphs/*.py`).
#include "import/compile_story.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace fxray {

/// Draws a graph's FX text as an image: its bytes and the file suffix ("svg"), or empty bytes
/// with `why` saying why not. The engine draws nothing itself (the CLI renders with Graphviz).
struct GraphImage {
    std::string bytes;
    std::string suffix = "svg";
    std::string why;
    std::string path;  ///< where writeCompileReport put it, relative to the report
};
using GraphImageRenderer = std::function<GraphImage(const std::string& fxText)>;

/// The report's Markdown text. Graph links point to `graphPaths` (relative to the report),
/// one per (compile, graph) in story order, as writeCompileReport names them; `images`, when
/// given, holds per graph the image's path (shown inline) or, without an image, why not.
std::string compileReportMarkdown(const CompileStory& s, const std::string& title,
                                  const std::vector<std::vector<std::string>>& graphPaths,
                                  const std::vector<std::vector<GraphImage>>& images = {});

/// Writes DIR/report.md and DIR/graphs/<compile>_<stage>.py (the story must have been read with
/// keepGraphs to have graphs), and with `render` DIR/graphs/<compile>_<stage>.svg beside each.
/// Fills `written` with the files, report first.
Status writeCompileReport(const CompileStory& s, const std::string& title, const std::filesystem::path& dir,
                          std::vector<std::string>* written = nullptr, const GraphImageRenderer& render = {});

}  // namespace fxray
