#pragma once
/// What a user did with a loaded file that is worth keeping between runs: which graph they were
/// looking at, which pipeline and pass, what was selected, the partitioner's budget, the passes
/// they skipped, and notes they wrote on nodes. Saved with the graphs in an fxray session file
/// (import/session_file.h); the GUI restores it, the CLI ignores it.
#include <map>
#include <string>
#include <vector>

namespace fxray {

struct SessionState {
    std::string graph;                             ///< LoadedGraph::id of the current graph ("" = the default choice)
    std::string pipeline;                          ///< pipeline last compiled ("" = none)
    int passIndex = -1;                            ///< pass looked at in that pipeline's trace (-1 = before the first)
    std::vector<std::string> selection;            ///< selected node names
    double memoryBudget = 1.0;                     ///< partitioner budget
    std::vector<std::string> skippedPasses;        ///< `--skip` list in effect
    std::map<std::string, std::string> nodeNotes;  ///< node name -> the user's note
    /// View settings of the GUI (zoom, colouring mode, ...), kept verbatim as strings so that a
    /// newer GUI's keys survive a round trip through an older one.
    std::map<std::string, std::string> view;
};

}  // namespace fxray
