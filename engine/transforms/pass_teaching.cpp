// The paragraphs of pass_teaching.h. Each names the PyTorch 2.11 file and function the pass
// follows; the file paths were checked against the pytorch tree (tst_pass_teaching keeps the
// list). Where fxray differs from PyTorch, the difference is said here too: a learner reading
// PyTorch next to this must not be surprised.
#include "transforms/pass_teaching.h"

namespace fxray {

const std::vector<PassTeaching>& passTeachings() {
    static const std::vector<PassTeaching> t = {
        {"remove_noop_ops",
         "Replaces nodes that return their input unchanged: a clone, alias, detach or copy with the same layout, a "
         "view or reshape to the shape it already has, a slice over the whole dimension, a cat of one tensor. Their "
         "users read the input directly.",
         "Each such node would otherwise become a kernel or at least a buffer; removing them early also lets the "
         "pattern passes that follow see the ops the patterns were written for.",
         "torch/_inductor/fx_passes/post_grad.py", "remove_noop_ops"},
        {"constant_fold_uniform_value",
         "Finds tensors that hold one value everywhere (a full, zeros or ones, and pointwise ops and views of them) "
         "and replaces them by a single full() call; then removes arithmetic that does nothing, such as x + 0, "
         "x - 0, x * 1 and x / 1.",
         "Backward graphs are full of such tensors (the gradient of a sum is ones). A full() is generated inside the "
         "kernel that uses it instead of being read from memory.",
         "torch/_inductor/fx_passes/joint_graph.py", "constant_fold_uniform_value"},
        {"pointless_view_patterns",
         "Removes a view to the shape the tensor already has, two views in a row that return to the first shape, "
         "and two permutes that undo each other.",
         "Tracing produces these pairs around module boundaries; they cost nothing to run but hide the real "
         "structure from the attention and matmul patterns.",
         "torch/_inductor/fx_passes/joint_graph.py", "pointless_view"},
        {"fuse_attention",
         "Recognises scaled dot-product attention written out by hand, softmax(q·kᵀ·scale [+ mask]) [dropout] · v, "
         "in its forward and backward forms, and replaces it by one scaled_dot_product_attention call (and its "
         "fused backward).",
         "The fused kernel never writes the sequence × sequence score matrix to memory, which saves memory and time "
         "that grow with the square of the sequence length.",
         "torch/_inductor/fx_passes/fuse_attention.py", "_sfdp_init"},
        {"misc_patterns",
         "Uses that an index drawn from randperm is unique and in bounds: index_add(x, 0, randperm(n)[:k], y) "
         "becomes an index_put of x gathered plus y, and an index with such an index becomes _unsafe_index.",
         "With unique indices no two writes collide, so the kernels need no atomic adds and no bounds checks.",
         "torch/_inductor/fx_passes/misc_patterns.py", "_misc_patterns_init"},
        {"dce",
         "Erases nodes whose values nothing uses, last first, so that a chain of dead nodes goes in one sweep. "
         "Random and in-place ops stay, because removing them would change the program.",
         "Earlier passes leave dead nodes behind; every one removed is a kernel or buffer that is not built.",
         "torch/fx/graph.py", "Graph.eliminate_dead_code"},
        {"cse",
         "Merges two calls of the same op on the same arguments into the first. Random ops, in-place ops and "
         "nodes mutated in place are never merged.",
         "The joint forward and backward graph often recomputes the same value (a transpose, a cast); computing it "
         "once saves the work and a buffer.",
         "torch/_functorch/compile_utils.py", "fx_graph_cse"},
        {"remove_assert_ops", "Erases aten._assert_tensor_metadata checks.",
         "Inductor lowers them to nothing; left in the graph they only block fusion decisions.",
         "torch/_inductor/fx_passes/post_grad.py", "remove_assert_ops"},
        {"stable_topological_sort",
         "Reorders nodes so that every node comes after its inputs, moving as few nodes as possible: a node already "
         "after its inputs keeps its place.",
         "Pattern replacements insert nodes where the match was; this restores a valid order without shuffling the "
         "rest of the graph, so diffs stay small.",
         "torch/_inductor/pattern_matcher.py", "stable_topological_sort"},
        {"pad_mm",
         "Pads a matrix multiply (mm, bmm, addmm) on CUDA whose sizes are not a multiple of the alignment, then "
         "slices the result back, when an estimate says the padded product plus the pad copies is faster.",
         "Tensor cores run aligned shapes much faster; a misaligned K or N can halve the speed of a large product.",
         "torch/_inductor/fx_passes/pad_mm.py", "_pad_mm_init"},
        {"remove_eval_dropout",
         "Removes torch.nn.functional.dropout calls with training=False or p=0 from a torch-level graph; their users "
         "read the input. PyTorch's default pre-grad passes leave them, and they vanish later when AOT autograd "
         "traces them to nothing; fxray does it first so that the lowered graph has no identity in it.",
         "A dropout in evaluation mode returns its input; keeping it costs a copy.",
         "torch/fx/experimental/optimization.py", "remove_dropout"},
        {"lower_to_aten",
         "Lowers torch-level calls of a Dynamo graph (torch.nn.functional.linear, tensor methods) to ATen ops, node "
         "by node. It does not build the joint forward and backward graph (fxray autodiff does).",
         "The joint-graph passes and the code generators work on ATen ops; PyTorch gets them by tracing the Dynamo "
         "graph under AOT autograd.",
         "torch/_functorch/aot_autograd.py", "aot_module_simplified"},
        {"freeze",
         "For inference: replaces parameters and buffers that the model never mutates by constants "
         "(_frozen_param). User inputs and mutated buffers stay inputs (the preserved inputs).",
         "Once weights are constants, the folding passes that follow can compute with them at compile time.",
         "torch/_inductor/freezing.py", "replace_params_with_constants"},
        {"constant_folding",
         "Evaluates nodes whose inputs are all constants and stores the results as new constants. Constructors "
         "and large broadcasts of small constants are not folded.",
         "Work that depends only on the weights (a transpose, a cast, a folded batch norm) is done once at compile "
         "time instead of on every call.",
         "torch/_inductor/constant_folding.py", "constant_fold"},
        {"conv_bn_folding",
         "Folds an inference batch norm with constant statistics into the convolution before it: the weight is "
         "scaled by weight / sqrt(var + eps) and the bias adjusted. PyTorch reaches the same graph by decomposing "
         "the batch norm and binary-folding its four ops; fxray folds it whole.",
         "The batch norm disappears: one convolution instead of a convolution plus a pass over its output.",
         "torch/_inductor/fx_passes/binary_folding.py", "binary_folding_init"},
        {"binary_folding",
         "Folds an add, sub, mul or div by a constant into the constant weight or bias of the convolution, addmm or "
         "mm before it, when the constant only varies along the output channels.",
         "The elementwise op disappears into the weights, computed once at compile time.",
         "torch/_inductor/fx_passes/binary_folding.py", "binary_folding_init"},
        {"addmm_patterns",
         "For inference: three addmm (or two or three mm) that share their input and have constant weights become "
         "one product on the concatenated weights, followed by a split.",
         "One large matrix multiply uses the GPU better than three small ones and reads the input once.",
         "torch/_inductor/fx_passes/freezing_patterns.py", "addmm_patterns_init"},
    };
    return t;
}

const PassTeaching* passTeaching(std::string_view pass) {
    for (const auto& e : passTeachings())
        if (e.pass == pass) return &e;
    return nullptr;
}

}  // namespace fxray
