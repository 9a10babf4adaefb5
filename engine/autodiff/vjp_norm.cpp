// VJP rules of normalisations: one fused backward op per forward op, whose output mask says
// which of input / weight / bias need gradients.
#include "autodiff/vjp.h"

namespace fxray {

namespace {

/// Emits the fused backward, then gives input/weight/bias from its first three outputs. Every
/// output gets its getitem (as make_fx records them); unused ones are removed as dead code.
void giveFused(VjpCall& c, Node* bw, size_t inputArg, size_t weightArg, size_t biasArg) {
    if (!bw) return;
    Node* gi = c.e.getitem(bw, 0);
    Node* gw = c.e.getitem(bw, 1);
    Node* gb = c.e.getitem(bw, 2);
    c.give(inputArg, gi);
    c.give(weightArg, gw);
    c.give(biasArg, gb);
}

Argument mask(VjpCall& c, size_t a, size_t b, size_t d) { return boolList({c.needs(a), c.needs(b), c.needs(d)}); }

// native_layer_norm: native_layer_norm_backward(grad, input, normalized_shape, result1, result2,
// weight, bias, grad_input_mask).
void layerNorm(VjpCall& c) {
    if (!c.grad(0)) return;
    Node* bw =
        c.e.op("aten.native_layer_norm_backward.default", {nodeArg(c.grad(0)), c.arg(0), c.arg(1), nodeArg(c.result(1)),
                                                           nodeArg(c.result(2)), c.arg(2), c.arg(3), mask(c, 0, 2, 3)});
    giveFused(c, bw, 0, 2, 3);
}

/// native_batch_norm_backward(grad, input, weight, running_mean, running_var, save_mean,
/// save_invstd, train, eps, output_mask).
void batchNormBackward(VjpCall& c, const Argument& runMean, const Argument& runVar, const Argument& train,
                       const Argument& eps) {
    if (!c.grad(0)) return;
    Node* bw = c.e.op("aten.native_batch_norm_backward.default",
                      {nodeArg(c.grad(0)), c.arg(0), c.arg(1), runMean, runVar, nodeArg(c.result(1)),
                       nodeArg(c.result(2)), train, eps, mask(c, 0, 1, 2)});
    giveFused(c, bw, 0, 1, 2);
}

// _native_batch_norm_legit_functional(input, weight, bias, running_mean, running_var, training,
// momentum, eps): the backward reads the updated running statistics (outputs 3 and 4), which
// is what functionalisation leaves in place of the mutated buffers.
void batchNormFunctional(VjpCall& c) {
    batchNormBackward(c, nodeArg(c.result(3)), nodeArg(c.result(4)), c.arg(5), c.arg(7));
}

// _native_batch_norm_legit / native_batch_norm (input, weight, bias, running_mean, running_var,
// training, momentum, eps).
void batchNormWithStats(VjpCall& c) { batchNormBackward(c, c.arg(3), c.arg(4), c.arg(5), c.arg(7)); }

// _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps).
void batchNormNoStats(VjpCall& c) { batchNormBackward(c, Argument::none(), Argument::none(), c.arg(3), c.arg(5)); }

// _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var, momentum, eps).
// In eval mode the saved statistics are empty tensors that the backward does not read; fxray's
// native_batch_norm_backward checks their sizes, so they are passed as None.
void batchNormNoTraining(VjpCall& c) {
    if (!c.grad(0)) return;
    Node* bw = c.e.op("aten.native_batch_norm_backward.default",
                      {nodeArg(c.grad(0)), c.arg(0), c.arg(1), c.arg(3), c.arg(4), Argument::none(), Argument::none(),
                       Argument::ofBool(false), c.arg(6), mask(c, 0, 1, 2)});
    giveFused(c, bw, 0, 1, 2);
}

}  // namespace

void addNormVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.native_layer_norm.default", layerNorm});
    out.push_back({"aten._native_batch_norm_legit_functional.default", batchNormFunctional, false, 0b11000});
    out.push_back({"aten._native_batch_norm_legit.default", batchNormWithStats});
    out.push_back({"aten.native_batch_norm.default", batchNormWithStats});
    out.push_back({"aten._native_batch_norm_legit.no_stats", batchNormNoStats});
    out.push_back({"aten._native_batch_norm_legit_no_training.default", batchNormNoTraining});
}

}  // namespace fxray
