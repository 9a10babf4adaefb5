#pragma once
/// The compile story (compile_story.h) as JSON (`fxray info --json`'s `compiles`) and as a
/// compact text tree like tlparse's stack trie: the stacks that started compiles, merged by
/// common prefix, with each compile's attempts, status, breaks, reasons and failure under them.
#include "import/compile_story.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace fxray {

/// One entry: id, status, graph_breaks, recompile_reasons, guards, failure (null unless it
/// failed), metrics, kernels, symbols; `rank` too when the story has several ranks.
nlohmann::json compileEntryJson(const CompileEntry& e, bool withRank);

/// Every entry, in story order.
nlohmann::json compilesJson(const CompileStory& s);

/// Raw entries (records that did not fit the story), with the count of those not kept.
nlohmann::json rawTraceJson(const CompileStory& s);

/// The tree, one compile per line plus one line per break, recompile reason and failure.
/// Paths are shortened to their file name when `shortPaths`.
std::string compileStoryTree(const CompileStory& s, bool shortPaths = true);

/// "3 compiles: 1 ok, 1 graph_break, 1 restarted".
std::string compileStorySummary(const CompileStory& s);

}  // namespace fxray
