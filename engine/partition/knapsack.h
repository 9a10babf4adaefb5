#pragma once
/// 0-1 knapsack solvers of PyTorch's activation-memory budget
/// (torch/_functorch/_activation_checkpointing/knapsack.py): which banned-from-recompute values
/// to keep saved (maximising the runtime they save) within a normalised memory budget.
#include <string_view>
#include <vector>

namespace fxray::partition {

/// A knapsack answer: the runtime of the saved items and the two index lists.
struct KnapsackResult {
    double runtime = 0.0;
    std::vector<int> saved;       ///< item indices kept saved
    std::vector<int> recomputed;  ///< item indices allowed to be recomputed
};

/// Greedy by runtime/memory ratio, descending (`greedy_knapsack`).
KnapsackResult greedyKnapsack(const std::vector<double>& memory, const std::vector<double>& runtimes, double maxMemory);

/// Quantised pseudo-polynomial DP (`dp_knapsack`): memory scaled by 10,000 and rounded half to
/// even as Python's round() does, runtimes in float32 as PyTorch's torch.float32 table holds
/// them, so ties break the same way.
KnapsackResult dpKnapsack(const std::vector<double>& memory, const std::vector<double>& runtimes, double maxMemory);

}  // namespace fxray::partition
