// VJP rules of convolution and pooling.
#include "autodiff/vjp.h"

namespace fxray {

namespace {

// convolution: convolution_backward(grad, input, weight, bias.sizes(), stride, padding,
// dilation, transposed, output_padding, groups, output_mask); a missing bias passes [0].
void convolution(VjpCall& c) {
    Node* bias = c.input(2);
    Argument biasSizes = bias ? intList(c.meta(bias).shape) : intList({0});
    Node* bw = c.e.op("aten.convolution_backward.default",
                      {nodeArg(c.grad()), c.arg(0), c.arg(1), biasSizes, c.arg(3), c.arg(4), c.arg(5), c.arg(6),
                       c.arg(7), c.arg(8), boolList({c.needs(0), c.needs(1), c.needs(2)})});
    if (!bw) return;
    Node* gi = c.e.getitem(bw, 0);
    Node* gw = c.e.getitem(bw, 1);
    Node* gb = c.e.getitem(bw, 2);
    c.give(0, gi);
    c.give(1, gw);
    c.give(2, gb);
}

// max_pool2d_with_indices: max_pool2d_with_indices_backward(grad, self, kernel_size, stride,
// padding, dilation, ceil_mode, result1).
void maxPool2dWithIndices(VjpCall& c) {
    if (!c.grad(0)) return;
    c.give(0, c.e.op("aten.max_pool2d_with_indices_backward.default",
                     {nodeArg(c.grad(0)), c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5),
                      nodeArg(c.result(1))}));
}

// avg_pool2d: avg_pool2d_backward(grad, self, kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override).
void avgPool2d(VjpCall& c) {
    c.give(0, c.e.op("aten.avg_pool2d_backward.default",
                     {nodeArg(c.grad()), c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6)}));
}

// _adaptive_avg_pool2d: _adaptive_avg_pool2d_backward(grad, self).
void adaptiveAvgPool2d(VjpCall& c) {
    c.give(0, c.e.op("aten._adaptive_avg_pool2d_backward.default", {nodeArg(c.grad()), c.arg(0)}));
}

}  // namespace

void addConvVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.convolution.default", convolution});
    out.push_back({"aten.max_pool2d_with_indices.default", maxPool2dWithIndices});
    out.push_back({"aten.avg_pool2d.default", avgPool2d});
    out.push_back({"aten._adaptive_avg_pool2d.default", adaptiveAvgPool2d});
}

}  // namespace fxray
