// VJP rules of reductions and normalising reductions (softmax, log_softmax).
#include "autodiff/geometry.h"
#include "autodiff/vjp.h"

#include <algorithm>

namespace fxray {

namespace {

/// sum_backward(grad, sizes, dims, keepdim): unsqueeze the reduced dims back (ascending) unless
/// kept, then expand to the input's sizes.
Node* sumBackward(GraphEmitter& e, Node* g, const std::vector<int64_t>& sizes, const Argument& dimArg, bool keepdim) {
    std::vector<int64_t> dims = intsOf(dimArg);
    const auto ndim = static_cast<int64_t>(sizes.size());
    if (!keepdim && ndim > 0 && !dims.empty()) {
        std::vector<bool> mark(static_cast<size_t>(ndim), false);
        for (auto d : dims) {
            int64_t w = wrapDimIndex(d, ndim);
            if (w >= 0 && w < ndim) mark[static_cast<size_t>(w)] = true;
        }
        for (int64_t d = 0; d < ndim; ++d)
            if (mark[static_cast<size_t>(d)]) g = e.unsqueeze(g, d);
    }
    return e.expand(g, sizes);
}

// sum.dim_IntList: sum_backward(grad, self.sizes(), dim, keepdim).
void sumDim(VjpCall& c) {
    const auto& sizes = c.meta(c.input(0)).shape;
    c.give(0, sumBackward(c.e, c.grad(), sizes, c.arg(1), c.arg(2).kind == Argument::Kind::Bool && c.arg(2).b));
}

// sum.default: grad.expand(self.sizes()).
void sumAll(VjpCall& c) { c.give(0, c.e.expand(c.grad(), c.meta(c.input(0)).shape)); }

/// Number of elements a mean over dims averages (all elements for no dims).
int64_t reducedCount(const std::vector<int64_t>& sizes, const std::vector<int64_t>& dims) {
    int64_t n = 1;
    const auto ndim = static_cast<int64_t>(sizes.size());
    if (dims.empty()) {
        for (auto s : sizes) n *= s;
        return n;
    }
    std::vector<bool> mark(sizes.size(), false);
    for (auto d : dims) {
        int64_t w = wrapDimIndex(d, ndim);
        if (w >= 0 && w < ndim) mark[static_cast<size_t>(w)] = true;
    }
    for (size_t i = 0; i < sizes.size(); ++i)
        if (mark[i]) n *= sizes[i];
    return n;
}

// mean.dim: mean_backward = sum_backward(grad, sizes, dim, keepdim) / numel-of-reduced-dims.
void meanDim(VjpCall& c) {
    const auto& sizes = c.meta(c.input(0)).shape;
    bool keepdim = c.arg(2).kind == Argument::Kind::Bool && c.arg(2).b;
    Node* s = sumBackward(c.e, c.grad(), sizes, c.arg(1), keepdim);
    int64_t n = reducedCount(sizes, intsOf(c.arg(1)));
    c.give(0, c.e.op("aten.div.Scalar", {nodeArg(s), Argument::ofInt(n)}));
}

// mean.default: grad.expand(sizes) / numel.
void meanAll(VjpCall& c) {
    const auto& sizes = c.meta(c.input(0)).shape;
    Node* s = c.e.expand(c.grad(), sizes);
    c.give(0, c.e.op("aten.div.Scalar", {nodeArg(s), Argument::ofInt(reducedCount(sizes, {}))}));
}

// _softmax: _softmax_backward_data(grad, result, dim, self.scalar_type()).
void softmax(VjpCall& c) {
    DType in = c.meta(c.input(0)).dtype;
    c.give(0, c.e.op("aten._softmax_backward_data.default",
                     {nodeArg(c.grad()), nodeArg(c.savedResult()), c.arg(1), Argument::ofDType(in)}));
}

// _log_softmax: _log_softmax_backward_data(grad, result, dim, self.scalar_type()).
void logSoftmax(VjpCall& c) {
    DType in = c.meta(c.input(0)).dtype;
    c.give(0, c.e.op("aten._log_softmax_backward_data.default",
                     {nodeArg(c.grad()), nodeArg(c.savedResult()), c.arg(1), Argument::ofDType(in)}));
}

/// restore_reduced_dims(t, dims, keepdim): t viewed with the reduced dims back as size 1.
Node* restoreReducedDims(GraphEmitter& e, Node* t, std::vector<int64_t> dims, bool keepdim, int64_t inDim) {
    if (keepdim) return t;
    std::vector<int64_t> target(static_cast<size_t>(inDim), 0);
    for (auto d : dims) target[static_cast<size_t>(wrapDimIndex(d, inDim))] = 1;
    size_t j = 0;
    for (auto s : e.shape(t)) {
        while (j < target.size() && target[j] > 0) ++j;
        if (j < target.size()) target[j++] = s;
    }
    return e.reshape(t, target);
}

/// amax / amin: scale_grad_by_count(restore(grad), restore(result) == self, dim): the gradient
/// shared evenly among the elements equal to the extremum.
void amaxLike(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& inShape = c.meta(c.input(0)).shape;
    const auto ndim = static_cast<int64_t>(inShape.size());
    auto dims = intsOf(c.arg(1));
    if (dims.empty())
        for (int64_t d = 0; d < ndim; ++d) dims.push_back(d);
    const bool keepdim = c.arg(2).kind == Argument::Kind::Bool && c.arg(2).b;
    Node* g = restoreReducedDims(e, c.grad(), dims, keepdim, ndim);
    Node* r = restoreReducedDims(e, c.savedResult(), dims, keepdim, ndim);
    Node* mask = e.op("aten.eq.Tensor", {nodeArg(r), c.arg(0)});
    Node* count = e.op("aten.sum.dim_IntList", {nodeArg(mask), intList(dims), Argument::ofBool(true)});
    Node* share = e.op("aten.div.Tensor", {nodeArg(g), nodeArg(count)});
    c.give(0, e.mul(share, nodeArg(mask)));
}

}  // namespace

void addReductionVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.sum.dim_IntList", sumDim});
    out.push_back({"aten.sum.default", sumAll});
    out.push_back({"aten.mean.dim", meanDim});
    out.push_back({"aten.mean.default", meanAll});
    out.push_back({"aten.amax.default", amaxLike, true});
    out.push_back({"aten.amin.default", amaxLike, true});
    out.push_back({"aten._softmax.default", softmax, true});
    out.push_back({"aten._log_softmax.default", logSoftmax, true});
}

}  // namespace fxray
