// VJP rules of view ops. Gradients of views are views (or reshapes) of the gradient, except
// expand (a sum back to the input's shape) and slicing (zero-padding back to the input's shape).
#include "autodiff/geometry.h"
#include "autodiff/vjp.h"

#include <algorithm>

namespace fxray {

namespace {

// view / _unsafe_view / reshape: grad.reshape(self.sizes()).
void reshapeBack(VjpCall& c) { c.give(0, c.e.reshape(c.grad(), c.meta(c.input(0)).shape)); }

// t: grad.t().
void t(VjpCall& c) { c.give(0, c.e.t(c.grad())); }

// transpose.int: grad.transpose(dim0, dim1).
void transpose(VjpCall& c) { c.give(0, c.e.op("aten.transpose.int", {nodeArg(c.grad()), c.arg(1), c.arg(2)})); }

// permute: permute_backwards(grad, dims): the inverse permutation.
void permute(VjpCall& c) {
    auto dims = intsOf(c.arg(1));
    const auto n = static_cast<int64_t>(dims.size());
    std::vector<int64_t> inv(dims.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
        int64_t w = wrapDimIndex(dims[static_cast<size_t>(i)], n);
        if (w < 0 || w >= n) {
            c.e.fail("permute dims out of range", c.fwd.name());
            return;
        }
        inv[static_cast<size_t>(w)] = i;
    }
    c.give(0, c.e.op("aten.permute.default", {nodeArg(c.grad()), intList(inv)}));
}

// unsqueeze: grad.squeeze(dim).
void unsqueeze(VjpCall& c) { c.give(0, c.e.op("aten.squeeze.dim", {nodeArg(c.grad()), c.arg(1)})); }

/// unsqueeze_to(grad, dims, sizes): unsqueeze (ascending) the listed dims that had size 1.
Node* unsqueezeTo(GraphEmitter& e, Node* g, std::vector<int64_t> dims, const std::vector<int64_t>& sizes) {
    const auto n = static_cast<int64_t>(sizes.size());
    for (auto& d : dims) d = wrapDimIndex(d, n);
    std::sort(dims.begin(), dims.end());
    for (auto d : dims)
        if (d >= 0 && d < n && sizes[static_cast<size_t>(d)] == 1) g = e.unsqueeze(g, d);
    return g;
}

// squeeze.dim: unsqueeze_to(grad, dim, self.sizes()).
void squeezeDim(VjpCall& c) {
    const auto& sizes = c.meta(c.input(0)).shape;
    c.give(0, unsqueezeTo(c.e, c.grad(), intsOf(c.arg(1)), sizes));
}

// squeeze.default: unsqueeze_to(grad, self.sizes()): every size-1 dim comes back.
void squeezeAll(VjpCall& c) {
    const auto& sizes = c.meta(c.input(0)).shape;
    std::vector<int64_t> dims;
    for (size_t i = 0; i < sizes.size(); ++i) dims.push_back(static_cast<int64_t>(i));
    c.give(0, unsqueezeTo(c.e, c.grad(), dims, sizes));
}

// expand: at::sum_to(grad, self.sizes()).
void expand(VjpCall& c) { c.give(0, c.e.sumTo(c.grad(), c.meta(c.input(0)).shape)); }

/// slice_backward(grad, sizes, dim, start, end, 1): the gradient zero-padded back to the input's
/// extent along dim. fxray has no slice_backward op; constant_pad_nd computes the same values.
Node* padBack(GraphEmitter& e, Node* g, const std::vector<int64_t>& sizes, int64_t dim, int64_t start, int64_t len) {
    const auto n = static_cast<int64_t>(sizes.size());
    std::vector<int64_t> pad;
    for (int64_t d = n - 1; d >= dim; --d) {
        if (d == dim) {
            pad.push_back(start);
            pad.push_back(sizes[static_cast<size_t>(d)] - start - len);
        } else {
            pad.push_back(0);
            pad.push_back(0);
        }
    }
    return e.op("aten.constant_pad_nd.default", {nodeArg(g), intList(pad)});
}

// slice.Tensor: slice_backward(grad, self.sizes(), dim, start, end, step).
void slice(VjpCall& c) {
    const auto& sizes = c.meta(c.input(0)).shape;
    const auto n = static_cast<int64_t>(sizes.size());
    int64_t dim = wrapDimIndex(intsOf(c.arg(1)).empty() ? 0 : intsOf(c.arg(1))[0], n);
    if (dim < 0 || dim >= n) return c.e.fail("slice dim out of range", c.fwd.name());
    const int64_t size = sizes[static_cast<size_t>(dim)];
    int64_t step = c.arg(4).kind == Argument::Kind::Int ? c.arg(4).i : 1;
    if (step != 1) return c.e.fail("no VJP for a slice with step " + std::to_string(step), c.fwd.name());
    int64_t start = c.arg(2).kind == Argument::Kind::Int ? c.arg(2).i : 0;
    int64_t end = c.arg(3).kind == Argument::Kind::Int ? c.arg(3).i : size;
    if (start < 0) start += size;
    if (end < 0) end += size;
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, start, size);
    c.give(0, padBack(c.e, c.grad(), sizes, dim, start, end - start));
}

// select.int: select_backward(grad, self.sizes(), dim, index): unsqueeze, then zero-pad.
void select(VjpCall& c) {
    const auto& sizes = c.meta(c.input(0)).shape;
    const auto n = static_cast<int64_t>(sizes.size());
    int64_t dim = wrapDimIndex(c.arg(1).i, n);
    if (dim < 0 || dim >= n) return c.e.fail("select dim out of range", c.fwd.name());
    int64_t index = c.arg(2).i;
    if (index < 0) index += sizes[static_cast<size_t>(dim)];
    Node* g = c.e.unsqueeze(c.grad(), dim);
    c.give(0, padBack(c.e, g, sizes, dim, index, 1));
}

}  // namespace

void addViewVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.view.default", reshapeBack});
    out.push_back({"aten._unsafe_view.default", reshapeBack});
    out.push_back({"aten.reshape.default", reshapeBack});
    out.push_back({"aten.t.default", t});
    out.push_back({"aten.transpose.int", transpose});
    out.push_back({"aten.permute.default", permute});
    out.push_back({"aten.unsqueeze.default", unsqueeze});
    out.push_back({"aten.squeeze.dim", squeezeDim});
    out.push_back({"aten.squeeze.dims", squeezeDim});
    out.push_back({"aten.squeeze.default", squeezeAll});
    out.push_back({"aten.expand.default", expand});
    out.push_back({"aten.slice.Tensor", slice});
    out.push_back({"aten.select.int", select});
}

}  // namespace fxray
