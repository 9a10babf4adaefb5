// VJP rules of losses and of the nn ops with a fused backward op in derivatives.yaml (group and
// RMS norm, 3-d pooling, grid sampling, im2col, pdist, segment reductions).
#include "autodiff/vjp.h"

namespace fxray {

namespace {

Argument num(double v) { return Argument::ofFloat(v); }
constexpr int64_t kReductionMean = 1;

/// Losses of the form `self: loss_backward(grad, self, target, ...)`, `target:
/// loss_backward(grad, target, self, ...)`: the same op with the two swapped (the loss is
/// symmetric in them up to sign, and the op computes the sign).
void symmetricLoss(VjpCall& c, const char* backward, bool withParam) {
    GraphEmitter& e = c.e;
    auto call = [&](size_t a, size_t b) {
        std::vector<Argument> args = {nodeArg(c.grad()), c.arg(a), c.arg(b), c.arg(2)};
        if (withParam) args.push_back(c.arg(3));
        return e.op(backward, std::move(args));
    };
    if (c.needs(0)) c.give(0, call(0, 1));
    if (c.needs(1)) c.give(1, call(1, 0));
}
void mseLoss(VjpCall& c) { symmetricLoss(c, "aten.mse_loss_backward.default", false); }
void smoothL1Loss(VjpCall& c) { symmetricLoss(c, "aten.smooth_l1_loss_backward.default", true); }
void huberLoss(VjpCall& c) { symmetricLoss(c, "aten.huber_loss_backward.default", true); }

/// Multiplies by weight when given and divides by numel under mean reduction.
Node* weightAndReduce(GraphEmitter& e, Node* g, const Argument& weight, const Argument& reduction, const Node* like) {
    if (!weight.isNone()) g = e.mul(g, weight);
    if (reduction.kind == Argument::Kind::Int && reduction.i == kReductionMean)
        g = e.op("aten.div.Scalar", {nodeArg(g), Argument::ofInt(e.meta(like).numel())});
    return g;
}

// binary_cross_entropy(self, target, weight, reduction): self: binary_cross_entropy_backward;
// target: binary_cross_entropy_target_backward = -logit(self) * grad [* weight] [/ numel].
void binaryCrossEntropy(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0))
        c.give(0, e.op("aten.binary_cross_entropy_backward.default",
                       {nodeArg(c.grad()), c.arg(0), c.arg(1), c.arg(2), c.arg(3)}));
    if (c.needs(1)) {
        Node* t = e.neg(e.op("aten.logit.default", {c.arg(0)}));
        c.give(1, weightAndReduce(e, e.mul(t, nodeArg(c.grad())), c.arg(2), c.arg(3), c.input(1)));
    }
}

// binary_cross_entropy_with_logits(self, target, weight, pos_weight, reduction):
// self: (pos_weight ? (pos_weight * target + 1 - target) * sigmoid(self) - pos_weight * target
//                   : sigmoid(self) - target) * grad [* weight] [/ numel];
// target: (pos_weight ? log_sigmoid(-self) - log_sigmoid(self) * pos_weight : -self) * grad ...
void bceWithLogits(VjpCall& c) {
    GraphEmitter& e = c.e;
    const Argument &self = c.arg(0), &target = c.arg(1), &posWeight = c.arg(3);
    if (c.needs(0)) {
        Node* sig = e.op("aten.sigmoid.default", {self});
        Node* gi;
        if (!posWeight.isNone()) {
            Node* t = e.op("aten.mul.Tensor", {posWeight, target});
            Node* f = e.op("aten.sub.Tensor", {nodeArg(e.op("aten.add.Scalar", {nodeArg(t), num(1.0)})), target});
            gi = e.op("aten.sub.Tensor", {nodeArg(e.mul(f, nodeArg(sig))), nodeArg(t)});
        } else {
            gi = e.op("aten.sub.Tensor", {nodeArg(sig), target});
        }
        c.give(0, weightAndReduce(e, e.mul(gi, nodeArg(c.grad())), c.arg(2), c.arg(4), c.input(0)));
    }
    if (c.needs(1)) {
        Node* gt;
        if (!posWeight.isNone()) {
            Node* a = e.op("aten.log_sigmoid_forward.default", {nodeArg(e.op("aten.neg.default", {self}))});
            Node* b = e.op("aten.log_sigmoid_forward.default", {self});
            gt = e.op("aten.sub.Tensor", {nodeArg(e.getitem(a, 0)), nodeArg(e.mul(e.getitem(b, 0), posWeight))});
        } else {
            gt = e.op("aten.neg.default", {self});
        }
        c.give(1, weightAndReduce(e, e.mul(gt, nodeArg(c.grad())), c.arg(2), c.arg(4), c.input(1)));
    }
}

// nll_loss_forward(self, target, weight, reduction, ignore_index) -> (output, total_weight):
// self: nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight).
void nllLoss(VjpCall& c) {
    if (!c.grad(0)) return;
    c.give(0, c.e.op("aten.nll_loss_backward.default",
                     {nodeArg(c.grad(0)), c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), nodeArg(c.result(1))}));
}

// multi_margin_loss(self, target, p, margin, weight, reduction): multi_margin_loss_backward(grad,
// self, target, p, margin, weight, reduction).
void multiMarginLoss(VjpCall& c) {
    c.give(0, c.e.op("aten.multi_margin_loss_backward.default",
                     {nodeArg(c.grad()), c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5)}));
}

// multilabel_margin_loss_forward(self, target, reduction) -> (output, is_target):
// multilabel_margin_loss_backward(grad, self, target, reduction, is_target).
void multilabelMarginLoss(VjpCall& c) {
    if (!c.grad(0)) return;
    c.give(0, c.e.op("aten.multilabel_margin_loss_backward.default",
                     {nodeArg(c.grad(0)), c.arg(0), c.arg(1), c.arg(2), nodeArg(c.result(1))}));
}

// native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (out, mean, rstd):
// native_group_norm_backward(grad, input, mean, rstd, weight, N, C, HxW, group, mask).
void groupNorm(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (!c.grad(0)) return;
    Node* bw = e.op("aten.native_group_norm_backward.default",
                    {nodeArg(c.grad(0)), c.arg(0), nodeArg(c.result(1)), nodeArg(c.result(2)), c.arg(1), c.arg(3),
                     c.arg(4), c.arg(5), c.arg(6), boolList({c.needs(0), c.needs(1), c.needs(2)})});
    if (!bw) return;
    c.give(0, e.getitem(bw, 0));
    c.give(1, e.getitem(bw, 1));
    c.give(2, e.getitem(bw, 2));
}

// _fused_rms_norm(input, normalized_shape, weight, eps) -> (out, rstd): _fused_rms_norm_backward(
// grad, input, normalized_shape, rstd, weight, mask).
void rmsNorm(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (!c.grad(0)) return;
    Node* bw =
        e.op("aten._fused_rms_norm_backward.default", {nodeArg(c.grad(0)), c.arg(0), c.arg(1), nodeArg(c.result(1)),
                                                       c.arg(2), boolList({c.needs(0), c.needs(2)})});
    if (!bw) return;
    c.give(0, e.getitem(bw, 0));
    c.give(2, e.getitem(bw, 1));
}

// max_pool3d_with_indices(self, kernel, stride, padding, dilation, ceil_mode) -> (out, indices):
// max_pool3d_with_indices_backward(grad, self, kernel, stride, padding, dilation, ceil_mode, indices).
void maxPool3d(VjpCall& c) {
    if (!c.grad(0)) return;
    c.give(0, c.e.op("aten.max_pool3d_with_indices_backward.default",
                     {nodeArg(c.grad(0)), c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5),
                      nodeArg(c.result(1))}));
}

// avg_pool3d(self, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
// avg_pool3d_backward(grad, self, ...same).
void avgPool3d(VjpCall& c) {
    c.give(0, c.e.op("aten.avg_pool3d_backward.default",
                     {nodeArg(c.grad()), c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6)}));
}

// _adaptive_avg_pool3d(self, output_size): _adaptive_avg_pool3d_backward(grad, self).
void adaptiveAvgPool3d(VjpCall& c) {
    c.give(0, c.e.op("aten._adaptive_avg_pool3d_backward.default", {nodeArg(c.grad()), c.arg(0)}));
}

/// grid_sampler_Nd(input, grid, interpolation, padding, align_corners): grid_sampler_Nd_backward(
/// grad, input, grid, interpolation, padding, align_corners, mask) -> (grad_input, grad_grid).
void gridSampler(VjpCall& c, const char* backward) {
    GraphEmitter& e = c.e;
    Node* bw = e.op(backward, {nodeArg(c.grad()), c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4),
                               boolList({c.needs(0), c.needs(1)})});
    if (!bw) return;
    c.give(0, e.getitem(bw, 0));
    c.give(1, e.getitem(bw, 1));
}
void gridSampler2d(VjpCall& c) { gridSampler(c, "aten.grid_sampler_2d_backward.default"); }
void gridSampler3d(VjpCall& c) { gridSampler(c, "aten.grid_sampler_3d_backward.default"); }

// cudnn_grid_sampler(self, grid): cudnn_grid_sampler_backward(self, grid, grad).
void cudnnGridSampler(VjpCall& c) {
    GraphEmitter& e = c.e;
    Node* bw = e.op("aten.cudnn_grid_sampler_backward.default", {c.arg(0), c.arg(1), nodeArg(c.grad())});
    if (!bw) return;
    c.give(0, e.getitem(bw, 0));
    c.give(1, e.getitem(bw, 1));
}

// im2col(self, kernel_size, dilation, padding, stride): col2im(grad, {H, W}, kernel_size,
// dilation, padding, stride).
void im2col(VjpCall& c) {
    const auto& shape = c.meta(c.input(0)).shape;
    std::vector<int64_t> hw(shape.end() - 2, shape.end());
    c.give(0, c.e.op("aten.col2im.default", {nodeArg(c.grad()), intList(hw), c.arg(1), c.arg(2), c.arg(3), c.arg(4)}));
}

// _pdist_forward(self, p): _pdist_backward(grad, self, p, result).
void pdist(VjpCall& c) {
    c.give(0,
           c.e.op("aten._pdist_backward.default", {nodeArg(c.grad()), c.arg(0), c.arg(1), nodeArg(c.savedResult())}));
}

// segment_reduce(data, reduce, lengths, indices, offsets, axis, unsafe, initial): data:
// _segment_reduce_backward(grad, result, data, reduce, lengths, offsets, axis, initial).
void segmentReduce(VjpCall& c) {
    c.give(0, c.e.op("aten._segment_reduce_backward.default",
                     {nodeArg(c.grad()), nodeArg(c.savedResult()), c.arg(0), c.arg(1)},
                     {{"lengths", c.arg(2)}, {"offsets", c.arg(4)}, {"axis", c.arg(5)}, {"initial", c.arg(7)}}));
}

}  // namespace

void addLossVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.mse_loss.default", mseLoss});
    out.push_back({"aten.smooth_l1_loss.default", smoothL1Loss});
    out.push_back({"aten.huber_loss.default", huberLoss});
    out.push_back({"aten.binary_cross_entropy.default", binaryCrossEntropy});
    out.push_back({"aten.binary_cross_entropy_with_logits.default", bceWithLogits});
    out.push_back({"aten.nll_loss_forward.default", nllLoss, false, 0b10});
    out.push_back({"aten.multi_margin_loss.default", multiMarginLoss});
    out.push_back({"aten.multilabel_margin_loss_forward.default", multilabelMarginLoss, false, 0b10});
    out.push_back({"aten.native_group_norm.default", groupNorm, false, 0b110});
    out.push_back({"aten._fused_rms_norm.default", rmsNorm, false, 0b10});
    out.push_back({"aten.max_pool3d_with_indices.default", maxPool3d, false, 0b10});
    out.push_back({"aten.avg_pool3d.default", avgPool3d});
    out.push_back({"aten._adaptive_avg_pool3d.default", adaptiveAvgPool3d});
    out.push_back({"aten.grid_sampler_2d.default", gridSampler2d});
    out.push_back({"aten.grid_sampler_3d.default", gridSampler3d});
    out.push_back({"aten.cudnn_grid_sampler.default", cudnnGridSampler});
    out.push_back({"aten.im2col.default", im2col});
    out.push_back({"aten._pdist_forward.default", pdist, true});
    out.push_back({"aten.segment_reduce.default", segmentReduce, true});
}

}  // namespace fxray
