// VJP rules of reductions beyond sum/mean/amax: norms, variance and standard deviation,
// logsumexp, nansum, prod, max/min, and the cumulative scans. Formulas follow
// tools/autograd/derivatives.yaml and the FunctionsManual.cpp helpers they call.
#include "autodiff/geometry.h"
#include "autodiff/vjp.h"

#include <algorithm>
#include <cmath>

namespace fxray {

namespace {

Argument num(double v) { return Argument::ofFloat(v); }

bool flag(const Argument& a) { return a.kind == Argument::Kind::Bool && a.b; }

/// The reduced dims, wrapped and marked; none listed (or None) means every dim.
std::vector<bool> reducedDims(const Argument& dimArg, int64_t ndim) {
    std::vector<bool> mark(static_cast<size_t>(ndim), dimArg.isNone() || intsOf(dimArg).empty());
    for (auto d : intsOf(dimArg)) {
        int64_t w = wrapDimIndex(d, ndim);
        if (w >= 0 && w < ndim) mark[static_cast<size_t>(w)] = true;
    }
    return mark;
}

/// unsqueeze_multiple: t reshaped to the input's rank with the reduced dims as size 1 (t itself
/// when the reduction kept them, or reduced everything to a scalar, which broadcasts).
Node* keepDims(GraphEmitter& e, Node* t, const std::vector<int64_t>& inShape, const std::vector<bool>& mark,
               bool keepdim) {
    if (keepdim || !t || e.shape(t).size() == inShape.size()) return t;
    std::vector<int64_t> target = inShape;
    for (size_t i = 0; i < target.size(); ++i)
        if (mark[i]) target[i] = 1;
    return e.reshape(t, target);
}

int64_t reducedCount(const std::vector<int64_t>& shape, const std::vector<bool>& mark) {
    int64_t n = 1;
    for (size_t i = 0; i < shape.size(); ++i)
        if (mark[i]) n *= shape[i];
    return n;
}

std::vector<int64_t> markedList(const std::vector<bool>& mark) {
    std::vector<int64_t> out;
    for (size_t i = 0; i < mark.size(); ++i)
        if (mark[i]) out.push_back(static_cast<int64_t>(i));
    return out;
}

// logsumexp(self, dim, keepdim): logsumexp_backward: grad * (self - result).exp(), grad and
// result with the reduced dims restored.
void logsumexp(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(c.input(0)).shape;
    auto mark = reducedDims(c.arg(1), static_cast<int64_t>(shape.size()));
    Node* g = keepDims(e, c.grad(), shape, mark, flag(c.arg(2)));
    Node* r = keepDims(e, c.savedResult(), shape, mark, flag(c.arg(2)));
    Node* ex = e.op("aten.exp.default", {nodeArg(e.op("aten.sub.Tensor", {c.arg(0), nodeArg(r)}))});
    c.give(0, e.mul(g, nodeArg(ex)));
}

// nansum(self, dim, keepdim, dtype): nansum_backward: sum_backward(grad) * self.isnan().logical_not().
void nansum(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(c.input(0)).shape;
    auto mark = reducedDims(c.arg(1), static_cast<int64_t>(shape.size()));
    Node* g = e.expand(keepDims(e, c.grad(), shape, mark, flag(c.arg(2))), shape);
    Node* ok = e.op("aten.logical_not.default", {nodeArg(e.op("aten.isnan.default", {c.arg(0)}))});
    c.give(0, e.mul(g, nodeArg(ok)));
}

/// norm_backward(grad, self, p, norm, dim, keepdim), `self` the tensor whose norm was taken.
/// The gradient and the norm default to the op's gradient and saved result.
Node* normBackward(VjpCall& c, Node* selfNode, double p, const Argument& dimArg, bool keepdim, Node* gIn = nullptr,
                   Node* normIn = nullptr) {
    GraphEmitter& e = c.e;
    if (!selfNode) return nullptr;
    const auto shape = c.meta(selfNode).shape;
    auto mark = reducedDims(dimArg, static_cast<int64_t>(shape.size()));
    Node* g = keepDims(e, gIn ? gIn : c.grad(), shape, mark, keepdim);
    Node* norm = keepDims(e, normIn ? normIn : c.savedResult(), shape, mark, keepdim);
    const Argument self = nodeArg(selfNode);
    auto sgn = [&] { return e.op("aten.sgn.default", {self}); };
    auto absPow = [&](double q) {
        return e.op("aten.pow.Tensor_Scalar", {nodeArg(e.op("aten.abs.default", {self})), num(q)});
    };
    auto maskZero = [&](Node* x, Node* where) {
        return e.op("aten.masked_fill.Scalar", {nodeArg(x), nodeArg(where), num(0.0)});
    };
    if (p == 0.0) return e.op("aten.zeros_like.default", {self});
    if (p == 1.0) return e.mul(sgn(), nodeArg(g));
    if (p == 2.0) {
        Node* q = e.op("aten.div.Tensor", {self, nodeArg(norm)});
        return e.mul(g, nodeArg(maskZero(q, e.op("aten.eq.Scalar", {nodeArg(norm), num(0.0)}))));
    }
    if (std::isinf(p)) {
        Node* nan = e.op("aten.logical_and.default", {nodeArg(e.op("aten.isnan.default", {self})),
                                                      nodeArg(e.op("aten.isnan.default", {nodeArg(norm)}))});
        Node* isMax = e.op("aten.logical_or.default",
                           {nodeArg(e.op("aten.eq.Tensor", {nodeArg(e.op("aten.abs.default", {self})), nodeArg(norm)})),
                            nodeArg(nan)});
        Node* isMaxF =
            e.op("aten._to_copy.default", {nodeArg(isMax)}, {{"dtype", Argument::ofDType(c.meta(norm).dtype)}});
        Node* scaled = e.mul(sgn(), nodeArg(isMaxF));
        Node* count =
            e.op("aten.sum.dim_IntList", {nodeArg(isMaxF), intList(markedList(mark)), Argument::ofBool(true)});
        return e.mul(scaled, nodeArg(e.op("aten.div.Tensor", {nodeArg(g), nodeArg(count)})));
    }
    if (p < 1.0) {
        Node* zero = e.op("aten.eq.Scalar", {self, num(0.0)});
        Node* scaled = e.mul(sgn(), nodeArg(maskZero(absPow(p - 1.0), zero)));
        Node* np = e.op("aten.pow.Tensor_Scalar", {nodeArg(norm), num(1.0 - p)});
        return e.mul(e.mul(scaled, nodeArg(g)), nodeArg(np));
    }
    Node* scaled =
        p < 2.0 ? e.mul(sgn(), nodeArg(absPow(p - 1.0))) : e.op("aten.mul.Tensor", {self, nodeArg(absPow(p - 2.0))});
    Node* np = e.op("aten.pow.Tensor_Scalar", {nodeArg(norm), num(p - 1.0)});
    Node* scale = e.op("aten.div.Tensor", {nodeArg(g), nodeArg(np)});
    scale = maskZero(scale, e.op("aten.eq.Scalar", {nodeArg(norm), num(0.0)}));
    return e.mul(scaled, nodeArg(scale));
}

// linalg_vector_norm(self, ord, dim, keepdim, dtype): linalg_vector_norm_backward.
void vectorNorm(VjpCall& c) { c.give(0, normBackward(c, c.input(0), numberOf(c.arg(1)), c.arg(2), flag(c.arg(3)))); }

// norm.ScalarOpt_dim(self, p, dim, keepdim): norm_backward (p None is 2).
void normScalarOptDim(VjpCall& c) {
    c.give(0, normBackward(c, c.input(0), c.arg(1).isNone() ? 2.0 : numberOf(c.arg(1)), c.arg(2), flag(c.arg(3))));
}

// dist(self, other, p): self: norm_backward(grad, self - other, p, result); other: its negation.
void dist(VjpCall& c) {
    Node* d = c.e.op("aten.sub.Tensor", {c.arg(0), c.arg(1)});
    Node* g = normBackward(c, d, numberOf(c.arg(2)), Argument::none(), false);
    if (c.needs(0)) c.give(0, g);
    if (c.needs(1)) c.give(1, c.e.neg(g));
}

// renorm(self, p, dim, maxnorm): renorm_backward: where the sub-tensor's norm exceeds maxnorm,
// factor * grad - factor / norm * norm_backward(sum(self * grad)), factor = maxnorm / (norm + 1e-7).
void renorm(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(c.input(0)).shape;
    const auto ndim = static_cast<int64_t>(shape.size());
    const int64_t dim = wrapDimIndex(c.arg(2).i, std::max<int64_t>(ndim, 1));
    std::vector<int64_t> reduce;
    for (int64_t d = 0; d < ndim; ++d)
        if (d != dim) reduce.push_back(d);
    const Argument dims = intList(reduce);
    Node* norm = e.op("aten.linalg_vector_norm.default", {c.arg(0), c.arg(1), dims, Argument::ofBool(true)});
    Node* go = e.op("aten.sum.dim_IntList",
                    {nodeArg(e.op("aten.mul.Tensor", {c.arg(0), nodeArg(c.grad())})), dims, Argument::ofBool(true)});
    Node* nb = normBackward(c, c.input(0), numberOf(c.arg(1)), dims, true, go, norm);
    Node* inv = e.op("aten.reciprocal.default", {nodeArg(e.op("aten.add.Scalar", {nodeArg(norm), num(1e-7)}))});
    Node* factor = e.op("aten.mul.Scalar", {nodeArg(inv), c.arg(3)});
    Node* scaled = e.op("aten.sub.Tensor", {nodeArg(e.mul(factor, nodeArg(c.grad()))),
                                            nodeArg(e.mul(e.mul(factor, nodeArg(inv)), nodeArg(nb)))});
    Node* over = e.op("aten.gt.Scalar", {nodeArg(norm), c.arg(3)});
    c.give(0, e.op("aten.where.self", {nodeArg(over), nodeArg(scaled), nodeArg(c.grad())}));
}

/// var_backward(grad, self, dim, correction, keepdim): (2 / (N - correction)) * grad * (self - mean).
Node* varBackward(VjpCall& c, Node* g, const Argument& dimArg, const Argument& correction, bool keepdim) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(c.input(0)).shape;
    auto mark = reducedDims(dimArg, static_cast<int64_t>(shape.size()));
    g = keepDims(e, g, shape, mark, keepdim);
    const double corr = correction.isNone() ? 1.0 : numberOf(correction);
    const double n = static_cast<double>(reducedCount(shape, mark));
    Node* mean = e.op("aten.mean.dim", {c.arg(0), intList(markedList(mark)), Argument::ofBool(true)});
    Node* centred = e.op("aten.sub.Tensor", {c.arg(0), nodeArg(mean)});
    Node* scaled = e.op("aten.mul.Scalar", {nodeArg(g), num(2.0 / std::max(0.0, n - corr))});
    return e.mul(scaled, nodeArg(centred));
}

/// std_backward: var_backward of (grad / (2 * result)), 0 where result is 0.
Node* stdGrad(GraphEmitter& e, Node* g, Node* result) {
    Node* q = e.op("aten.div.Tensor", {nodeArg(g), nodeArg(e.op("aten.mul.Scalar", {nodeArg(result), num(2.0)}))});
    return e.op("aten.masked_fill.Scalar",
                {nodeArg(q), nodeArg(e.op("aten.eq.Scalar", {nodeArg(result), num(0.0)})), num(0.0)});
}

// var.correction(self, dim, correction, keepdim) / std.correction.
void var(VjpCall& c) { c.give(0, varBackward(c, c.grad(), c.arg(1), c.arg(2), flag(c.arg(3)))); }
void stdev(VjpCall& c) {
    c.give(0, varBackward(c, stdGrad(c.e, c.grad(), c.savedResult()), c.arg(1), c.arg(2), flag(c.arg(3))));
}

/// var_mean / std_mean: the spread's backward plus mean_backward of the mean's gradient.
void spreadMean(VjpCall& c, bool isStd) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(c.input(0)).shape;
    auto mark = reducedDims(c.arg(1), static_cast<int64_t>(shape.size()));
    Node* total = nullptr;
    if (Node* g0 = c.grad(0))
        total = varBackward(c, isStd ? stdGrad(e, g0, c.result(0)) : g0, c.arg(1), c.arg(2), flag(c.arg(3)));
    if (Node* g1 = c.grad(1)) {
        Node* m = e.expand(keepDims(e, g1, shape, mark, flag(c.arg(3))), shape);
        m = e.op("aten.div.Scalar", {nodeArg(m), Argument::ofInt(reducedCount(shape, mark))});
        total = total ? e.add(total, m) : m;
    }
    c.give(0, total);
}
void varMean(VjpCall& c) { spreadMean(c, false); }
void stdMean(VjpCall& c) { spreadMean(c, true); }

// max/min (all elements): evenly_distribute_backward: mask = self == result; mask * grad / mask.sum().
void extremumAll(VjpCall& c) {
    GraphEmitter& e = c.e;
    Node* mask = e.op("aten.eq.Tensor", {c.arg(0), nodeArg(c.savedResult())});
    Node* count = e.op("aten.sum.default", {nodeArg(mask)});
    Node* share = e.op("aten.div.Tensor", {nodeArg(c.grad()), nodeArg(count)});
    c.give(0, e.mul(mask, nodeArg(share)));
}

// max.dim / min.dim: value_selecting_reduction_backward: zeros(sizes).scatter(dim, indices, grad),
// grad and indices unsqueezed unless kept.
void extremumDim(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (!c.grad(0)) return;
    const auto& shape = c.meta(c.input(0)).shape;
    Node* g = c.grad(0);
    Node* idx = c.result(1);
    const int64_t dim = wrapDimIndex(c.arg(1).i, static_cast<int64_t>(std::max<size_t>(shape.size(), 1)));
    if (!flag(c.arg(2)) && !shape.empty()) {
        g = e.unsqueeze(g, dim);
        idx = e.unsqueeze(idx, dim);
    }
    Node* z = e.zerosLike(c.grad(0), shape);
    c.give(0, e.op("aten.scatter.src", {nodeArg(z), Argument::ofInt(dim), nodeArg(idx), nodeArg(g)}));
}

/// prod_safe_zeros_backward(grad, inp, dim): grad times the product of every other element along
/// dim, from exclusive cumulative products both ways (exact where inputs hold zeros).
Node* prodAlong(GraphEmitter& e, Node* g, Node* inp, int64_t dim) {
    const auto shape = e.shape(inp);
    const int64_t size = shape[static_cast<size_t>(dim)];
    if (size == 1) return g;
    auto onesShape = shape;
    onesShape[static_cast<size_t>(dim)] = 1;
    const TensorMeta& m = e.meta(inp);
    Node* ones = e.op("aten.ones.default", {intList(onesShape)},
                      {{"dtype", Argument::ofDType(m.dtype)}, {"device", Argument::ofDevice(m.device)}});
    auto narrow = [&](int64_t start, int64_t len) {
        return e.op("aten.slice.Tensor",
                    {nodeArg(inp), Argument::ofInt(dim), Argument::ofInt(start), Argument::ofInt(start + len)});
    };
    auto cat = [&](Node* a, Node* b) {
        return e.op("aten.cat.default", {Argument::ofList({nodeArg(a), nodeArg(b)}), Argument::ofInt(dim)});
    };
    auto cumprod = [&](Node* x) { return e.op("aten.cumprod.default", {nodeArg(x), Argument::ofInt(dim)}); };
    auto flip = [&](Node* x) { return e.op("aten.flip.default", {nodeArg(x), intList({dim})}); };
    Node* before = cumprod(cat(ones, narrow(0, size - 1)));
    Node* after = flip(cumprod(cat(ones, flip(narrow(1, size - 1)))));
    return e.mul(g, nodeArg(e.mul(before, nodeArg(after))));
}

// prod.default: prod_backward over the flattened input.
void prodAll(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(c.input(0)).shape;
    if (shape.empty()) return c.give(0, c.grad());
    const int64_t n = c.meta(c.input(0)).numel();
    Node* flat = e.reshape(c.input(0), {n});
    Node* g = e.expand(c.grad(), {n});
    c.give(0, e.reshape(prodAlong(e, g, flat, 0), shape));
}

// prod.dim_int(self, dim, keepdim): prod_backward along dim.
void prodDim(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(c.input(0)).shape;
    if (shape.empty()) return c.give(0, c.grad());
    const int64_t dim = wrapDimIndex(c.arg(1).i, static_cast<int64_t>(shape.size()));
    Node* g = flag(c.arg(2)) ? c.grad() : e.unsqueeze(c.grad(), dim);
    c.give(0, prodAlong(e, e.expand(g, shape), c.input(0), dim));
}

// cumsum(self, dim): cumsum_backward: grad.flip(dim).cumsum(dim).flip(dim).
void cumsum(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& shape = e.shape(c.grad());
    if (shape.empty()) return c.give(0, c.grad());
    const int64_t dim = wrapDimIndex(c.arg(1).i, static_cast<int64_t>(shape.size()));
    if (shape[static_cast<size_t>(dim)] == 1 || c.meta(c.grad()).numel() <= 1) return c.give(0, c.grad());
    Node* f = e.op("aten.flip.default", {nodeArg(c.grad()), intList({dim})});
    Node* s = e.op("aten.cumsum.default", {nodeArg(f), Argument::ofInt(dim)});
    c.give(0, e.op("aten.flip.default", {nodeArg(s), intList({dim})}));
}

// cummax / cummin(self, dim) -> (values, indices): cummaxmin_backward:
// zeros_like(self).scatter_add(dim, indices, grad).
void cumExtremum(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (!c.grad(0)) return;
    const auto& shape = c.meta(c.input(0)).shape;
    if (shape.empty()) return c.give(0, c.grad(0));
    const int64_t dim = wrapDimIndex(c.arg(1).i, static_cast<int64_t>(shape.size()));
    Node* z = e.op("aten.zeros_like.default", {c.arg(0)});
    c.give(0, e.op("aten.scatter_add.default",
                   {nodeArg(z), Argument::ofInt(dim), nodeArg(c.result(1)), nodeArg(c.grad(0))}));
}

}  // namespace

void addStatisticsVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.logsumexp.default", logsumexp, true});
    out.push_back({"aten.nansum.default", nansum});
    out.push_back({"aten.linalg_vector_norm.default", vectorNorm, true});
    out.push_back({"aten.norm.ScalarOpt_dim", normScalarOptDim, true});
    out.push_back({"aten.dist.default", dist, true});
    out.push_back({"aten.renorm.default", renorm});
    out.push_back({"aten.var.correction", var});
    out.push_back({"aten.std.correction", stdev, true});
    out.push_back({"aten.var_mean.correction", varMean});
    out.push_back({"aten.std_mean.correction", stdMean});
    out.push_back({"aten.max.default", extremumAll, true});
    out.push_back({"aten.min.default", extremumAll, true});
    out.push_back({"aten.max.dim", extremumDim, false, 0b10});
    out.push_back({"aten.min.dim", extremumDim, false, 0b10});
    out.push_back({"aten.prod.default", prodAll});
    out.push_back({"aten.prod.dim_int", prodDim});
    out.push_back({"aten.cumsum.default", cumsum});
    out.push_back({"aten.cummax.default", cumExtremum, false, 0b10});
    out.push_back({"aten.cummin.default", cumExtremum, false, 0b10});
}

}  // namespace fxray
