// VJP rules of ops that move elements without arithmetic: flip, roll, rot90, repeat, tril/triu,
// diagonals, unfold, pixel and channel shuffles. Each gradient moves the gradient back the way
// tools/autograd/derivatives.yaml says.
#include "autodiff/geometry.h"
#include "autodiff/vjp.h"

#include <algorithm>

namespace fxray {

namespace {

// flip(self, dims): grad.flip(dims).
void flip(VjpCall& c) { c.give(0, c.e.op("aten.flip.default", {nodeArg(c.grad()), c.arg(1)})); }

// roll(self, shifts, dims): grad.roll(-shifts, dims).
void roll(VjpCall& c) {
    auto shifts = intsOf(c.arg(1));
    for (auto& s : shifts) s = -s;
    c.give(0, c.e.op("aten.roll.default", {nodeArg(c.grad()), intList(shifts), c.arg(2)}));
}

// rot90(self, k, dims): grad.rot90(-k, dims).
void rot90(VjpCall& c) {
    c.give(0, c.e.op("aten.rot90.default", {nodeArg(c.grad()), Argument::ofInt(-c.arg(1).i), c.arg(2)}));
}

// repeat(self, repeats): repeat_backward: leading new dims summed away, then each repeated dim
// split into (repeat, size) and the repeat axes summed.
void repeat(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& in = c.meta(c.input(0)).shape;
    const auto reps = intsOf(c.arg(1));
    if (std::find(reps.begin(), reps.end(), 0) != reps.end()) return c.give(0, e.zerosLike(c.grad(), in));
    Node* g = c.grad();
    const size_t lead = reps.size() - in.size();
    for (size_t i = 0; i < lead; ++i) g = e.op("aten.sum.dim_IntList", {nodeArg(g), intList({0})});
    std::vector<int64_t> split, sumDims;
    for (size_t d = 0; d < in.size(); ++d) {
        const int64_t r = reps[d + lead];
        if (r != 1) {
            split.push_back(r);
            sumDims.push_back(static_cast<int64_t>(split.size()) - 1);
        }
        split.push_back(in[d]);
    }
    g = e.reshape(g, split);
    if (!sumDims.empty()) g = e.op("aten.sum.dim_IntList", {nodeArg(g), intList(sumDims)});
    c.give(0, g);
}

// tril / triu(self, diagonal): grad.tril(diagonal) / grad.triu(diagonal).
void tril(VjpCall& c) { c.give(0, c.e.op("aten.tril.default", {nodeArg(c.grad()), c.arg(1)})); }
void triu(VjpCall& c) { c.give(0, c.e.op("aten.triu.default", {nodeArg(c.grad()), c.arg(1)})); }

// diag_embed(self, offset, dim1, dim2): grad.diagonal(offset, dim1, dim2).
void diagEmbed(VjpCall& c) {
    c.give(0, c.e.op("aten.diagonal.default", {nodeArg(c.grad()), c.arg(1), c.arg(2), c.arg(3)}));
}

// diagonal(self, offset, dim1, dim2): diagonal_backward(grad, self.sizes(), offset, dim1, dim2).
void diagonal(VjpCall& c) {
    c.give(0, c.e.op("aten.diagonal_backward.default",
                     {nodeArg(c.grad()), intList(c.meta(c.input(0)).shape), c.arg(1), c.arg(2), c.arg(3)}));
}

// unfold(self, dimension, size, step): unfold_backward(grad, self.sizes(), dimension, size, step).
void unfold(VjpCall& c) {
    c.give(0, c.e.op("aten.unfold_backward.default",
                     {nodeArg(c.grad()), intList(c.meta(c.input(0)).shape), c.arg(1), c.arg(2), c.arg(3)}));
}

// pixel_shuffle(self, r): pixel_unshuffle(grad, r); pixel_unshuffle: pixel_shuffle(grad, r).
void pixelShuffle(VjpCall& c) { c.give(0, c.e.op("aten.pixel_unshuffle.default", {nodeArg(c.grad()), c.arg(1)})); }
void pixelUnshuffle(VjpCall& c) { c.give(0, c.e.op("aten.pixel_shuffle.default", {nodeArg(c.grad()), c.arg(1)})); }

// channel_shuffle(self, groups): the inverse shuffle, channel_shuffle(grad, channels / groups).
void channelShuffle(VjpCall& c) {
    const auto& shape = c.meta(c.input(0)).shape;
    const int64_t groups = c.arg(1).i;
    if (shape.size() < 2 || groups <= 0) return c.e.fail("channel_shuffle of an input without channels", c.fwd.name());
    c.give(0, c.e.op("aten.channel_shuffle.default", {nodeArg(c.grad()), Argument::ofInt(shape[1] / groups)}));
}

}  // namespace

void addReorderVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.flip.default", flip});
    out.push_back({"aten.roll.default", roll});
    out.push_back({"aten.rot90.default", rot90});
    out.push_back({"aten.repeat.default", repeat});
    out.push_back({"aten.tril.default", tril});
    out.push_back({"aten.triu.default", triu});
    out.push_back({"aten.diag_embed.default", diagEmbed});
    out.push_back({"aten.diagonal.default", diagonal});
    out.push_back({"aten.unfold.default", unfold});
    out.push_back({"aten.pixel_shuffle.default", pixelShuffle});
    out.push_back({"aten.pixel_unshuffle.default", pixelUnshuffle});
    out.push_back({"aten.channel_shuffle.default", channelShuffle});
}

}  // namespace fxray
