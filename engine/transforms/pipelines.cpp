// The named pipelines and the pass-by-name table (for --skip, the GUI's pass list and tests).
#include "transforms/passes.h"

#include <functional>

namespace fxray {

namespace {

struct PassEntry {
    const char* name;
    std::unique_ptr<Pass> (*create)();
};

const PassEntry kPasses[] = {
    {"remove_noop_ops", createRemoveNoopOpsPass},
    {"constant_fold_uniform_value", createConstantFoldUniformValuePass},
    {"pointless_view_patterns", createPointlessViewPatternsPass},
    {"fuse_attention", createFuseAttentionPass},
    {"misc_patterns", createMiscPatternsPass},
    {"dce", createDeadCodeEliminationPass},
    {"cse", createCommonSubexpressionEliminationPass},
    {"remove_assert_ops", createRemoveAssertOpsPass},
    {"stable_topological_sort", createStableTopologicalSortPass},
    {"pad_mm", createPadMmPass},
    {"remove_eval_dropout", createRemoveEvalDropoutPass},
    {"lower_to_aten", createLowerToAtenPass},
    {"freeze", [] { return createFreezePass(); }},
    {"constant_folding", createConstantFoldingPass},
    {"conv_bn_folding", createConvBnFoldingPass},
    {"binary_folding", createBinaryFoldingPass},
    {"addmm_patterns", createConcatLinearPatternsPass},
};

struct PipelineEntry {
    const char* name;
    std::vector<const char*> passes;
};

const std::vector<PipelineEntry>& pipelines() {
    // joint: joint_graph_passes' order; dce stands for what the partitioner drops (PyTorch's
    // joint passes leave dead nodes to it). post-grad: post_grad_passes' clean-ups.
    static const std::vector<PipelineEntry> p = {
        {"joint",
         {"remove_noop_ops", "constant_fold_uniform_value", "pointless_view_patterns", "fuse_attention", "pad_mm",
          "misc_patterns", "dce", "stable_topological_sort"}},
        {"post-grad", {"dce", "cse", "remove_noop_ops", "remove_assert_ops", "stable_topological_sort"}},
        {"pre-grad", {"remove_eval_dropout", "stable_topological_sort"}},
        // freeze() then freezing_passes(): constant folding between the folding passes stands
        // for PyTorch's rounds of constant_fold + fake_tensor_prop.
        {"freezing",
         {"freeze", "cse", "constant_folding", "conv_bn_folding", "binary_folding", "constant_folding",
          "addmm_patterns", "constant_folding", "stable_topological_sort"}},
        {"inductor",
         {"remove_eval_dropout", "lower_to_aten", "remove_noop_ops", "constant_fold_uniform_value",
          "pointless_view_patterns", "fuse_attention", "pad_mm", "misc_patterns", "dce", "stable_topological_sort",
          "dce", "cse", "remove_noop_ops", "remove_assert_ops", "stable_topological_sort"}},
    };
    return p;
}

}  // namespace

std::unique_ptr<Pass> createPassByName(std::string_view name) {
    for (const auto& e : kPasses)
        if (name == e.name) return e.create();
    return nullptr;
}

std::vector<std::string> knownPassNames() {
    std::vector<std::string> out;
    for (const auto& e : kPasses) out.emplace_back(e.name);
    return out;
}

std::vector<std::string> knownPipelines() {
    std::vector<std::string> out;
    for (const auto& p : pipelines()) out.emplace_back(p.name);
    return out;
}

std::vector<std::string> pipelinePasses(std::string_view name) {
    std::vector<std::string> out;
    for (const auto& p : pipelines())
        if (name == p.name)
            for (const char* pass : p.passes) out.emplace_back(pass);
    return out;
}

Expected<std::unique_ptr<PassManager>> buildPipeline(std::string_view name, PassManagerOptions opts,
                                                     const PipelineConfig& cfg) {
    for (const auto& p : pipelines()) {
        if (name != p.name) continue;
        auto pm = std::make_unique<PassManager>(p.name, opts);
        for (const char* pass : p.passes)
            pm->addPass(std::string_view(pass) == "freeze" ? createFreezePass(cfg.freeze) : createPassByName(pass));
        return pm;
    }
    std::string known;
    for (const auto& p : pipelines()) known += (known.empty() ? "" : ", ") + std::string(p.name);
    return makeError("unknown pipeline '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace fxray
