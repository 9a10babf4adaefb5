#pragma once
/// Entry points of the graph passes (one file each) and the named pipelines built from them.
///
/// Pipelines (PyTorch's order):
///  - "joint": `joint_graph_passes` — remove_noop_ops, constant_fold_uniform_value (which runs
///    remove_no_ops), the early patterns (pointless_view, pointless_view_pair,
///    pointless_permute_pair), the pattern passes (fuse_attention, misc_patterns), dce (what the
///    partitioner drops), stable_topological_sort.
///  - "post-grad": the clean-ups of `post_grad_passes` — dce, cse, remove_noop_ops,
///    remove_assert_ops, stable_topological_sort.
#include "pass/pass_manager.h"

#include <memory>
#include <string>
#include <vector>

namespace fxray {

std::unique_ptr<Pass> createRemoveNoopOpsPass();
std::unique_ptr<Pass> createConstantFoldUniformValuePass();
std::unique_ptr<Pass> createPointlessViewPatternsPass();
std::unique_ptr<Pass> createFuseAttentionPass();
std::unique_ptr<Pass> createMiscPatternsPass();
std::unique_ptr<Pass> createStableTopologicalSortPass();
std::unique_ptr<Pass> createDeadCodeEliminationPass();
std::unique_ptr<Pass> createCommonSubexpressionEliminationPass();
std::unique_ptr<Pass> createRemoveAssertOpsPass();

/// A pass by its name ("remove_noop_ops", "fuse_attention", ...), or null.
std::unique_ptr<Pass> createPassByName(std::string_view name);
/// Every pass name createPassByName knows, in pipeline order.
std::vector<std::string> knownPassNames();

/// Pipelines by name ("joint", "post-grad"); fails naming the known ones otherwise.
Expected<std::unique_ptr<PassManager>> buildPipeline(std::string_view name, PassManagerOptions opts = {});
/// Names buildPipeline accepts.
std::vector<std::string> knownPipelines();

} // namespace fxray
