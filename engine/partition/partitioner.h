#pragma once
/// The min-cut rematerialization partitioner: splits a joint forward+backward graph into a
/// forward graph and a backward graph, choosing which forward values to save for the backward
/// and which to recompute there. Mirrors PyTorch's `min_cut_rematerialization_partition` and
/// `choose_saved_values_set` (torch/_functorch/partitioners.py) with its default configuration:
/// CSE, the ban heuristics (allowlist, compute-intensive, random, materialized in backward,
/// reductions, used far apart, long fusible chains), activation-checkpointing tags, the
/// distance-from-backward weighting, the memory budget with its knapsack, the backward reordering
/// that mimics the autograd engine and getitem raising.
#include "ir/graph.h"
#include "ir/sym_expr.h"
#include "support/diagnostic.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fxray {

/// 0-1 knapsack solver for memory budgets below 1 (`activation_memory_budget_solver`).
enum class KnapsackSolver : uint8_t { DP, Greedy };

/// Partitioner settings; the defaults are PyTorch's (torch._functorch.config).
struct PartitionOptions {
    /// `activation_memory_budget` in [0, 1]: 1 saves what the runtime-optimal cut saves, 0 saves
    /// only the inputs (recompute everything), in between trades memory for recomputation.
    double memoryBudget = 1.0;
    KnapsackSolver solver = KnapsackSolver::DP;
    /// Leading outputs of the joint graph that are forward outputs; -1 derives it as PyTorch's
    /// AOT metadata does: the joint graph returns one gradient per primal after them.
    int numFwdOutputs = -1;
    /// Run common-subexpression elimination first (`config.cse`).
    bool cse = true;
    /// `aggressive_recomputation`: drop every ban heuristic except reductions.
    bool aggressiveRecomputation = false;
    /// Primal placeholders with static lifetime (parameters and buffers under Inductor). With
    /// `treat_parameters_as_free_to_save` PyTorch saves them at zero cost. Empty: all inputs cost
    /// their size (fxray cannot tell parameters from user inputs in a joint graph).
    std::vector<std::string> staticLifetimeInputs;
    /// Dynamic shapes: the symbol values sizes are measured at (cut weights, the knapsack, the
    /// reported bytes), completed by the graph's hints (Graph::symbolHints), then 8 per symbol.
    /// PyTorch weighs with the hints too (`hint_int(numel, fallback=4096)`).
    sym::Binding sizes;
};

/// One value the forward saves for the backward.
struct SavedValue {
    std::string name;
    int64_t bytes = 0;  ///< at the binding (PartitionResult::binding) when the size is symbolic
    /// The bytes as an expression over the size symbols ("512*s33"); the number for static sizes.
    std::string bytesExpr;
    bool symbolic = false;  ///< a SymInt/SymFloat (saved in ctx, not as a tensor)
    /// A primal or a view of one: the caller keeps it alive anyway, so saving it costs no
    /// activation memory (PyTorch's memory budget measures from the inputs' size up).
    bool input = false;
};

/// A node the cut may not recompute, and the rule that banned it.
struct BannedNode {
    std::string name;
    std::string rule;  ///< "input", "not in recompute allowlist", "random op", ...
};

/// An edge of the minimum cut: the in->out edge of a node, i.e. saving that node.
struct CutEdge {
    std::string node;
    int64_t capacity = 0;  ///< size in bytes weighted by distance from backward (and 2x if fusible)
};

/// Per-node classification of the joint graph (for the partition view).
enum class NodeRegion : uint8_t { Forward, Backward, Unclaimed };

/// Everything the partition produced.
struct PartitionResult {
    /// `forward(primals...)` returning forward outputs then saved values; DCE'd.
    std::unique_ptr<Graph> forward;
    /// `forward(saved..., tangents...)` returning the gradients; DCE'd and reordered like the
    /// autograd engine would run it.
    std::unique_ptr<Graph> backward;
    std::vector<SavedValue> saved;  ///< in backward-placeholder order
    int64_t savedBytes = 0;
    /// Bytes of the saved values that are not inputs (nor views of inputs): the activation
    /// memory the partition adds. Budget 0 saves the inputs only, so this is 0 there.
    int64_t activationBytes = 0;
    /// savedBytes and activationBytes over the symbols, sympy's form ("1280*s33 + 32768"); the
    /// numbers for a static graph.
    std::string savedBytesExpr, activationBytesExpr;
    /// The binding sizes were measured at: PartitionOptions::sizes completed by the hints (then
    /// 8); empty for a static graph. `defaultedSymbols` took the 8.
    sym::Binding binding;
    std::vector<std::string> defaultedSymbols;
    /// Call nodes computed in both graphs (PyTorch's "remat" nodes), forward order.
    std::vector<std::string> recomputed;
    std::vector<BannedNode> banned;  ///< of the min-cut run that chose the saved set
    std::vector<CutEdge> cut;        ///< of that run (empty when budget 0 returned the inputs)
    int64_t cutValue = 0;
    size_t numFwdOutputs = 0;
    /// Which rule chose the saved set: "min-cut", "inputs", "more-aggressive", "aggressive",
    /// "knapsack", "default-partition" (no node needs the tangents).
    std::string strategy;
    size_t nodesBefore = 0;  ///< joint graph nodes (placeholders and output included)
    size_t removedByDce = 0;
    size_t removedByCse = 0;
    size_t networkVertices = 0;
    size_t networkEdges = 0;
    /// Node name -> region, for every node of the joint graph after DCE/CSE (placeholders too).
    std::vector<std::pair<std::string, NodeRegion>> regions;
};

/// The primals of `joint` that are parameters or buffers, read off a Dynamo graph whose
/// placeholders are the primals in order (`L_self_modules_fc_parameters_weight_`,
/// `L_self_modules_bn_buffers_running_mean_`): what Inductor passes as static inputs. Empty when
/// the placeholder counts differ.
std::vector<std::string> staticInputsFromDynamo(const Graph& joint, const Graph& dynamo);

/// Partitions a joint graph. Bad input (no tangents, a budget outside [0, 1], a forward output
/// that depends on the tangents, an impossible cut) gives a Diagnostic naming the node.
Expected<PartitionResult> partitionJoint(const Graph& joint, const PartitionOptions& options = {});

}  // namespace fxray
