// VJP rules of resampling ops whose backward is the op's own `*_backward` (upsampling, reflection
// and replication padding, adaptive and fractional max pooling) and of max_unpool.
#include "autodiff/vjp.h"

#include <string>

namespace fxray {

namespace {

/// "aten.upsample_nearest1d.default" -> "aten.upsample_nearest1d_backward.default".
std::string backwardOf(const Node& fwd) {
    std::string q = fwd.opName();
    const size_t dot = q.rfind('.');
    return q.substr(0, dot) + "_backward" + q.substr(dot);
}

// upsample_*(self, output_size, [align_corners,] scales...): upsample_*_backward(grad,
// output_size, self.sizes(), [align_corners,] scales...).
void upsample(VjpCall& c) {
    std::vector<Argument> args = {nodeArg(c.grad()), c.arg(1), intList(c.meta(c.input(0)).shape)};
    for (size_t i = 2; i < c.fwd.op()->schema.args.size(); ++i) args.push_back(c.arg(i));
    c.give(0, c.e.op(backwardOf(c.fwd), std::move(args)));
}

// reflection_pad / replication_pad(self, padding): *_backward(grad, self, padding).
void pad(VjpCall& c) { c.give(0, c.e.op(backwardOf(c.fwd), {nodeArg(c.grad()), c.arg(0), c.arg(1)})); }

// adaptive_max_poolNd(self, output_size) -> (out, indices): *_backward(grad, self, indices).
void adaptiveMaxPool(VjpCall& c) {
    if (!c.grad(0)) return;
    c.give(0, c.e.op(backwardOf(c.fwd), {nodeArg(c.grad(0)), c.arg(0), nodeArg(c.result(1))}));
}

// fractional_max_poolNd(self, kernel_size, output_size, random_samples) -> (out, indices):
// *_backward(grad, self, kernel_size, output_size, indices).
void fractionalMaxPool(VjpCall& c) {
    if (!c.grad(0)) return;
    c.give(0, c.e.op(backwardOf(c.fwd), {nodeArg(c.grad(0)), c.arg(0), c.arg(1), c.arg(2), nodeArg(c.result(1))}));
}

/// max_unpoolNd(self, indices, output_size, ...): max_pool_double_backward(grad, indices, N): each
/// input element reads the gradient at the flat spatial position its index names.
void maxUnpool(VjpCall& c, size_t spatial) {
    GraphEmitter& e = c.e;
    const auto& in = c.meta(c.input(0)).shape;
    const auto& out = e.shape(c.grad());
    if (in.size() < spatial || out.size() != in.size()) return e.fail("max_unpool of unexpected rank", c.fwd.name());
    std::vector<int64_t> lead(in.begin(), in.end() - static_cast<std::ptrdiff_t>(spatial));
    auto flat = [&](const std::vector<int64_t>& shape) {
        int64_t n = 1;
        for (size_t i = shape.size() - spatial; i < shape.size(); ++i) n *= shape[i];
        auto s = lead;
        s.push_back(n);
        return s;
    };
    Node* g = e.reshape(c.grad(), flat(out));
    Node* idx = e.reshape(c.input(1), flat(in));
    Node* picked = e.op("aten.gather.default", {nodeArg(g), Argument::ofInt(-1), nodeArg(idx)});
    c.give(0, e.reshape(picked, in));
}
void maxUnpool2d(VjpCall& c) { maxUnpool(c, 2); }

// max_pool2d_with_indices_backward(grad_output, self, kernel, stride, padding, dilation,
// ceil_mode, indices): grad_output: max_pool_double_backward(grad, indices, 2), each pooled
// position reading the gradient at its argmax; self: zeros_like(self).
void maxPool2dBackward(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(1)) c.give(1, e.op("aten.zeros_like.default", {c.arg(1)}));
    if (!c.needs(0)) return;
    const auto& out = c.meta(c.input(0)).shape;
    const auto& in = e.shape(c.grad());
    if (out.size() < 2 || in.size() != out.size())
        return e.fail("max_pool2d backward of unexpected rank", c.fwd.name());
    auto flat = [&](const std::vector<int64_t>& shape) {
        std::vector<int64_t> s(shape.begin(), shape.end() - 2);
        s.push_back(shape[shape.size() - 2] * shape.back());
        return s;
    };
    Node* g = e.reshape(c.grad(), flat(in));
    Node* idx = e.reshape(c.input(7), flat(out));
    Node* picked = e.op("aten.gather.default", {nodeArg(g), Argument::ofInt(-1), nodeArg(idx)});
    c.give(0, e.reshape(picked, out));
}
void maxUnpool3d(VjpCall& c) { maxUnpool(c, 3); }

}  // namespace

void addResampleVjps(std::vector<VjpRule>& out) {
    for (auto op :
         {"aten.upsample_nearest1d.default", "aten.upsample_nearest2d.default", "aten.upsample_nearest3d.default",
          "aten._upsample_nearest_exact1d.default", "aten._upsample_nearest_exact2d.default",
          "aten._upsample_nearest_exact3d.default", "aten.upsample_linear1d.default",
          "aten.upsample_bilinear2d.default", "aten.upsample_trilinear3d.default", "aten.upsample_bicubic2d.default",
          "aten._upsample_bilinear2d_aa.default"})
        out.push_back({op, upsample});
    for (auto op :
         {"aten.reflection_pad1d.default", "aten.reflection_pad2d.default", "aten.reflection_pad3d.default",
          "aten.replication_pad1d.default", "aten.replication_pad2d.default", "aten.replication_pad3d.default"})
        out.push_back({op, pad});
    out.push_back({"aten.adaptive_max_pool2d.default", adaptiveMaxPool, false, 0b10});
    out.push_back({"aten.adaptive_max_pool3d.default", adaptiveMaxPool, false, 0b10});
    out.push_back({"aten.fractional_max_pool2d.default", fractionalMaxPool, false, 0b10});
    out.push_back({"aten.fractional_max_pool3d.default", fractionalMaxPool, false, 0b10});
    out.push_back({"aten.max_unpool2d.default", maxUnpool2d});
    out.push_back({"aten.max_pool2d_with_indices_backward.default", maxPool2dBackward});
    out.push_back({"aten.max_unpool3d.default", maxUnpool3d});
}

}  // namespace fxray
