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
///  - "pre-grad": `pre_grad_passes` on torch-level (Dynamo) graphs — remove_eval_dropout,
///    stable_topological_sort (PyTorch's default pre-grad passes changed no corpus graph).
///  - "freezing": `freeze` + `freezing_passes` — freeze (parameters -> constants, preserved
///    inputs reported), cse, constant_folding, conv_bn_folding, binary_folding,
///    constant_folding, addmm_patterns, constant_folding, stable_topological_sort.
///  - "inductor": what `compile_fx` runs for the graph given — the pre-grad passes and
///    lower_to_aten when it is torch-level (AOT tracing's stand-in), the joint passes, then the
///    post-grad clean-ups.
/// pad_mm runs after fuse_attention: PyTorch applies both in one pattern pass walking from the
/// last node, so attention's bmm's are fused before pad_mm could pad them.
#include "pass/pass_manager.h"

#include "transforms/freezing.h"

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
std::unique_ptr<Pass> createPadMmPass();
std::unique_ptr<Pass> createRemoveEvalDropoutPass();
std::unique_ptr<Pass> createLowerToAtenPass();
/// Freezing passes. `freeze` without inputs inlines nothing (and reports every input preserved).
std::unique_ptr<Pass> createFreezePass(std::shared_ptr<const FreezeInputs> in = nullptr);
std::unique_ptr<Pass> createConstantFoldingPass();
std::unique_ptr<Pass> createConvBnFoldingPass();
std::unique_ptr<Pass> createBinaryFoldingPass();
std::unique_ptr<Pass> createConcatLinearPatternsPass();

/// What some pipelines need besides the graph.
struct PipelineConfig {
    /// Parameters the `freeze` pass inlines (freezing pipeline); null: none.
    std::shared_ptr<const FreezeInputs> freeze;
};

/// A pass by its name ("remove_noop_ops", "fuse_attention", ...), or null.
std::unique_ptr<Pass> createPassByName(std::string_view name);
/// Every pass name createPassByName knows, in pipeline order.
std::vector<std::string> knownPassNames();

/// Pipelines by name ("joint", "post-grad", "pre-grad", "freezing", "inductor"); fails naming
/// the known ones otherwise.
Expected<std::unique_ptr<PassManager>> buildPipeline(std::string_view name, PassManagerOptions opts = {},
                                                     const PipelineConfig& cfg = {});
/// The pass names of a pipeline, in order (empty for an unknown one).
std::vector<std::string> pipelinePasses(std::string_view name);
/// Names buildPipeline accepts.
std::vector<std::string> knownPipelines();

}  // namespace fxray
