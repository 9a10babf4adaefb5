#pragma once
/// One min-cut solve of PyTorch's `solve_min_cut`: the network with in/out node split, the ban
/// heuristics, and the saved set read off the minimum cut.
#include "partition/joint_analysis.h"

#include <string>
#include <vector>

namespace fxray::partition {

/// Which ban heuristics apply (PyTorch's MinCutOptions).
struct MinCutOptions {
    bool banIfUsedFarApart = true;
    bool banIfLongFusibleChains = true;
    bool banIfMaterializedBackward = true;
    bool banIfNotInAllowlist = true;
    bool banIfReduction = true;
};

/// Why a node was banned from recomputation.
enum class BanRule : uint8_t {
    Input,
    MustSave,
    NotInAllowlist,
    Random,
    ComputeIntensive,
    MaterializedInBackward,
    Reduction,
    UsedFarApart,
    LongFusibleChain,
};
const char* banRuleText(BanRule r);

/// Result of one solve.
struct MinCutSolution {
    std::vector<int> saved;                       ///< node indices, graph order
    std::vector<std::pair<int, BanRule>> banned;  ///< in ban order
    std::vector<std::pair<int, int64_t>> cut;     ///< node, capacity of its in->out edge
    int64_t cutValue = 0;
    size_t vertices = 0, edges = 0;
};

/// Builds the network and cuts it. `dontBan` (by node index, may be empty) lists nodes the
/// memory-budget knapsack allows to be recomputed despite the heuristics. A network whose
/// source reaches its sink through infinite edges only gives a Diagnostic naming the path.
Expected<MinCutSolution> solveMinCut(const JointAnalysis& ja, const MinCutOptions& options,
                                     const std::vector<char>& dontBan, bool parametersFree);

}  // namespace fxray::partition
