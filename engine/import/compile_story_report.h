#pragma once
/// A self-contained Markdown report of a compile story (compile_story.h) that a user can attach
/// to a bug: the compile tree, distinct graph breaks with their user lines, recompile reasons
/// and failed guards, failures with their stacks, a phase-timing table, kernels, symbols, and
/// the graphs the trace holds written next to it as FX text (`graphs/*.py`).
#include "import/compile_story.h"

#include <filesystem>
#include <string>
#include <vector>

namespace fxray {

/// The report's Markdown text. Graph links point to `graphPaths` (relative to the report),
/// one per (compile, graph) in story order, as writeCompileReport names them.
std::string compileReportMarkdown(const CompileStory& s, const std::string& title,
                                  const std::vector<std::vector<std::string>>& graphPaths);

/// Writes DIR/report.md and DIR/graphs/<compile>_<stage>.py (the story must have been read with
/// keepGraphs to have graphs). Fills `written` with the files, report first.
Status writeCompileReport(const CompileStory& s, const std::string& title, const std::filesystem::path& dir,
                          std::vector<std::string>* written = nullptr);

} // namespace fxray
