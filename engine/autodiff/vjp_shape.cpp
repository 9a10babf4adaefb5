// VJP rules of ops that join, split or pad tensors.
#include "autodiff/geometry.h"
#include "autodiff/vjp.h"

namespace fxray {

namespace {

// cat: cat_tensors_backward: one narrow (slice) of the gradient per input; empty 1-D inputs
// (legacy empties) get none. Slices are emitted for every input, as autograd computes them all,
// and those nobody needs are removed with the rest of the dead code.
void cat(VjpCall& c) {
    const Argument& tensors = c.arg(0);
    int64_t ndim = -1;
    for (size_t k = 0; k < tensors.items.size(); ++k) {
        Node* t = c.inputAt(0, k);
        if (!t) continue;
        const auto& sh = c.meta(t).shape;
        if (!(sh.size() == 1 && sh[0] == 0)) {
            ndim = static_cast<int64_t>(sh.size());
            break;
        }
    }
    if (ndim < 0) return;
    const int64_t dim = wrapDimIndex(c.arg(1).i, ndim);
    int64_t offset = 0;
    for (size_t k = 0; k < tensors.items.size(); ++k) {
        Node* t = c.inputAt(0, k);
        if (!t) continue;
        const auto& sh = c.meta(t).shape;
        if (sh.size() == 1 && sh[0] == 0) continue;
        const int64_t size = sh[static_cast<size_t>(dim)];
        Node* g = c.e.op("aten.slice.Tensor", {nodeArg(c.grad()), Argument::ofInt(dim), Argument::ofInt(offset),
                                               Argument::ofInt(offset + size)});
        offset += size;
        c.giveAt(0, k, g);
    }
}

/// split_with_sizes_backward: missing gradients become zeros, then one cat along dim.
void splitBackward(VjpCall& c, const std::vector<int64_t>& sizes, int64_t dim) {
    const auto& inShape = c.meta(c.input(0)).shape;
    std::vector<Argument> parts;
    for (size_t k = 0; k < sizes.size(); ++k) {
        Node* g = c.grad(k);
        if (!g) {
            auto shape = inShape;
            shape[static_cast<size_t>(dim)] = sizes[k];
            g = c.e.zerosLike(c.result(k), shape);
        }
        parts.push_back(nodeArg(g));
    }
    c.give(0, c.e.op("aten.cat.default", {Argument::ofList(std::move(parts)), Argument::ofInt(dim)}));
}

// split.Tensor: split_backward(grads, split_size, dim, sizes).
void split(VjpCall& c) {
    const auto& inShape = c.meta(c.input(0)).shape;
    const int64_t dim = wrapDimIndex(c.arg(2).i, static_cast<int64_t>(inShape.size()));
    const int64_t total = inShape[static_cast<size_t>(dim)];
    const int64_t chunk = c.arg(1).i;
    std::vector<int64_t> sizes;
    for (int64_t off = 0; off < total || (total == 0 && sizes.empty()); off += chunk)
        sizes.push_back(std::min(chunk, total - off));
    splitBackward(c, sizes, dim);
}

// split_with_sizes: split_with_sizes_backward(grads, split_sizes, dim, sizes).
void splitWithSizes(VjpCall& c) {
    const auto& inShape = c.meta(c.input(0)).shape;
    splitBackward(c, intsOf(c.arg(1)), wrapDimIndex(c.arg(2).i, static_cast<int64_t>(inShape.size())));
}

// unbind.int: unbind_backward: stack of the gradients (zeros for missing ones).
void unbind(VjpCall& c) {
    const auto& inShape = c.meta(c.input(0)).shape;
    const int64_t dim = wrapDimIndex(c.arg(1).i, static_cast<int64_t>(inShape.size()));
    std::vector<Argument> parts;
    for (int64_t k = 0; k < inShape[static_cast<size_t>(dim)]; ++k) {
        Node* g = c.grad(static_cast<size_t>(k));
        if (!g) g = c.e.zerosLike(c.result(static_cast<size_t>(k)), c.meta(c.result(static_cast<size_t>(k))).shape);
        parts.push_back(nodeArg(g));
    }
    c.give(0, c.e.op("aten.stack.default", {Argument::ofList(std::move(parts)), Argument::ofInt(dim)}));
}

// stack: stack_tensors_backward: grad.select(dim, i) for each input.
void stack(VjpCall& c) {
    const Argument& tensors = c.arg(0);
    for (size_t k = 0; k < tensors.items.size(); ++k) {
        if (!c.needsNode(c.inputAt(0, k))) continue;
        c.giveAt(0, k,
                 c.e.op("aten.select.int", {nodeArg(c.grad()), c.arg(1), Argument::ofInt(static_cast<int64_t>(k))}));
    }
}

// constant_pad_nd: constant_pad_nd_backward(grad, pad): the negated padding crops it back.
void constantPad(VjpCall& c) {
    auto pad = intsOf(c.arg(1));
    for (auto& p : pad) p = -p;
    c.give(0, c.e.op("aten.constant_pad_nd.default", {nodeArg(c.grad()), intList(pad)}));
}

}  // namespace

void addShapeVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.cat.default", cat});
    out.push_back({"aten.split.Tensor", split});
    out.push_back({"aten.split_with_sizes.default", splitWithSizes});
    // The unsafe variants differ only in skipping autograd's view tracking.
    out.push_back({"aten.unsafe_split.Tensor", split});
    out.push_back({"aten.unsafe_split_with_sizes.default", splitWithSizes});
    out.push_back({"aten.unbind.int", unbind});
    out.push_back({"aten.stack.default", stack});
    out.push_back({"aten.constant_pad_nd.default", constantPad});
}

}  // namespace fxray
