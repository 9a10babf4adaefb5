// VJP rules of ops that write into a tensor at positions (scatter, index_copy/fill/put, put,
// masked_scatter, the *_scatter view inverses) and of the reads that pair with them (take,
// masked_select). The written-over positions of `self` get no gradient; the source gets the
// gradient read back from where it went. Formulas follow tools/autograd/derivatives.yaml.
#include "autodiff/vjp.h"

#include <algorithm>

namespace fxray {

namespace {

Argument num(double v) { return Argument::ofFloat(v); }
Node* zerosLikeArg(GraphEmitter& e, const Argument& a) { return e.op("aten.zeros_like.default", {a}); }

// scatter_add(self, dim, index, src): self: grad; src: grad.gather(dim, index).
void scatterAdd(VjpCall& c) {
    c.give(0, c.grad());
    if (c.needs(3)) c.give(3, c.e.op("aten.gather.default", {nodeArg(c.grad()), c.arg(1), c.arg(2)}));
}

// scatter.src(self, dim, index, src): self: grad.scatter(dim, index, 0); src: grad.gather(dim, index).
void scatterSrc(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.op("aten.scatter.value", {nodeArg(c.grad()), c.arg(1), c.arg(2), num(0.0)}));
    if (c.needs(3)) c.give(3, c.e.op("aten.gather.default", {nodeArg(c.grad()), c.arg(1), c.arg(2)}));
}

// scatter.value(self, dim, index, value): self: grad.scatter(dim, index, 0).
void scatterValue(VjpCall& c) {
    c.give(0, c.e.op("aten.scatter.value", {nodeArg(c.grad()), c.arg(1), c.arg(2), num(0.0)}));
}

/// grad.index_select(dim, index) shaped like `like` (a 0-d source takes the one element).
Node* selectBack(VjpCall& c, const Argument& dim, const Argument& index, Node* like) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(like).shape;
    Node* sel = e.op("aten.index_select.default", {nodeArg(c.grad()), dim, index});
    if (shape.empty()) return e.reshape(sel, {});
    return sel;
}

// index_copy(self, dim, index, source): self: grad.index_fill(dim, index, 0);
// source: grad.index_select(dim, index).
void indexCopy(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.op("aten.index_fill.int_Scalar", {nodeArg(c.grad()), c.arg(1), c.arg(2), num(0.0)}));
    if (c.needs(3)) c.give(3, selectBack(c, c.arg(1), c.arg(2), c.input(3)));
}

// index_fill.int_Scalar(self, dim, index, value): self: grad.index_fill(dim, index, 0).
void indexFillScalar(VjpCall& c) {
    c.give(0, c.e.op("aten.index_fill.int_Scalar", {nodeArg(c.grad()), c.arg(1), c.arg(2), num(0.0)}));
}

// index_fill.int_Tensor: self as above; value: grad.index_select(dim, unique(index)).sum(),
// computed as grad.sum() - grad.index_fill(dim, index, 0).sum() (the same sum over the filled
// positions, without unique's data-dependent shape).
void indexFillTensor(VjpCall& c) {
    GraphEmitter& e = c.e;
    Node* cleared = e.op("aten.index_fill.int_Scalar", {nodeArg(c.grad()), c.arg(1), c.arg(2), num(0.0)});
    if (c.needs(0)) c.give(0, cleared);
    if (c.needs(3))
        c.give(3, e.op("aten.sub.Tensor", {nodeArg(e.op("aten.sum.default", {nodeArg(c.grad())})),
                                           nodeArg(e.op("aten.sum.default", {nodeArg(cleared)}))}));
}

// index_put(self, indices, values, accumulate): self: accumulate ? grad :
// grad.index_put(indices, zeros_like(values), false); values: grad.index(indices).
void indexPut(VjpCall& c) {
    GraphEmitter& e = c.e;
    const bool acc = c.arg(3).kind == Argument::Kind::Bool && c.arg(3).b;
    if (c.needs(0))
        c.give(0, acc ? c.grad()
                      : e.op("aten.index_put.default", {nodeArg(c.grad()), c.arg(1), nodeArg(zerosLikeArg(e, c.arg(2))),
                                                        Argument::ofBool(false)}));
    if (c.needs(2)) c.give(2, e.op("aten.index.Tensor", {nodeArg(c.grad()), c.arg(1)}));
}

// index.Tensor(self, indices): index_backward: zeros_like(self).index_put(indices, grad, true).
void indexTensor(VjpCall& c) {
    Node* z = zerosLikeArg(c.e, c.arg(0));
    c.give(0, c.e.op("aten.index_put.default", {nodeArg(z), c.arg(1), nodeArg(c.grad()), Argument::ofBool(true)}));
}

// take(self, index): take_backward: zeros_like(self).put_(index, grad, accumulate=true).
void take(VjpCall& c) {
    Node* z = zerosLikeArg(c.e, c.arg(0));
    c.give(0, c.e.op("aten.put.default", {nodeArg(z), c.arg(1), nodeArg(c.grad()), Argument::ofBool(true)}));
}

// put(self, index, source, accumulate): self: accumulate ? grad : grad.put(index,
// zeros_like(source), false); source: grad.take(index).reshape_as(source).
void put(VjpCall& c) {
    GraphEmitter& e = c.e;
    const bool acc = c.arg(3).kind == Argument::Kind::Bool && c.arg(3).b;
    if (c.needs(0))
        c.give(0, acc ? c.grad()
                      : e.op("aten.put.default", {nodeArg(c.grad()), c.arg(1), nodeArg(zerosLikeArg(e, c.arg(2))),
                                                  Argument::ofBool(false)}));
    if (c.needs(2)) {
        Node* t = e.op("aten.take.default", {nodeArg(c.grad()), c.arg(1)});
        c.give(2, e.reshape(t, c.meta(c.input(2)).shape));
    }
}

// masked_fill.Tensor(self, mask, value): self: grad.masked_fill(mask, 0); value:
// masked_fill_backward: where(mask, grad, 0).sum().
void maskedFillTensor(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0)) c.give(0, e.op("aten.masked_fill.Scalar", {nodeArg(c.grad()), c.arg(1), num(0.0)}));
    if (c.needs(2)) {
        Node* w = e.op("aten.where.ScalarOther", {c.arg(1), nodeArg(c.grad()), num(0.0)});
        c.give(2, e.op("aten.sum.default", {nodeArg(w)}));
    }
}

// masked_scatter(self, mask, source): self: grad.masked_fill(mask, 0); source:
// masked_scatter_backward(grad, mask, source.sizes()).
void maskedScatter(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0)) c.give(0, e.op("aten.masked_fill.Scalar", {nodeArg(c.grad()), c.arg(1), num(0.0)}));
    if (c.needs(2))
        c.give(2, e.op("aten.masked_scatter_backward.default",
                       {nodeArg(c.grad()), c.arg(1), intList(c.meta(c.input(2)).shape)}));
}

// masked_select(self, mask): masked_select_backward: zeros of the broadcast shape with the
// gradient scattered into the masked positions (summed back to self's shape by the builder).
void maskedSelect(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& s = c.meta(c.input(0)).shape;
    const auto& m = c.meta(c.input(1)).shape;
    std::vector<int64_t> shape(std::max(s.size(), m.size()), 1);
    for (size_t i = 0; i < shape.size(); ++i) {
        const int64_t a = i < shape.size() - s.size() ? 1 : s[i - (shape.size() - s.size())];
        const int64_t b = i < shape.size() - m.size() ? 1 : m[i - (shape.size() - m.size())];
        shape[i] = a == 1 ? b : a;
    }
    Node* z = e.zerosLike(c.grad(), shape);
    Node* mask = e.expand(c.input(1), shape);
    c.give(0, e.op("aten.masked_scatter.default", {nodeArg(z), nodeArg(mask), nodeArg(c.grad())}));
}

// slice_scatter(self, src, dim, start, end, step): self: slice_scatter(grad, zeros_like(src), ...);
// src: grad.slice(dim, start, end, step).
void sliceScatter(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0))
        c.give(0, e.op("aten.slice_scatter.default", {nodeArg(c.grad()), nodeArg(zerosLikeArg(e, c.arg(1))), c.arg(2),
                                                      c.arg(3), c.arg(4), c.arg(5)}));
    if (c.needs(1)) c.give(1, e.op("aten.slice.Tensor", {nodeArg(c.grad()), c.arg(2), c.arg(3), c.arg(4), c.arg(5)}));
}

// select_scatter(self, src, dim, index): self: select_scatter(grad, zeros_like(src), dim, index);
// src: grad.select(dim, index).
void selectScatter(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0))
        c.give(0, e.op("aten.select_scatter.default",
                       {nodeArg(c.grad()), nodeArg(zerosLikeArg(e, c.arg(1))), c.arg(2), c.arg(3)}));
    if (c.needs(1)) c.give(1, e.op("aten.select.int", {nodeArg(c.grad()), c.arg(2), c.arg(3)}));
}

// diagonal_scatter(self, src, offset, dim1, dim2): self: diagonal_scatter(grad, zeros_like(src),
// ...); src: grad.diagonal(offset, dim1, dim2).
void diagonalScatter(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0))
        c.give(0, e.op("aten.diagonal_scatter.default",
                       {nodeArg(c.grad()), nodeArg(zerosLikeArg(e, c.arg(1))), c.arg(2), c.arg(3), c.arg(4)}));
    if (c.needs(1)) c.give(1, e.op("aten.diagonal.default", {nodeArg(c.grad()), c.arg(2), c.arg(3), c.arg(4)}));
}

}  // namespace

void addScatterVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.scatter_add.default", scatterAdd});
    out.push_back({"aten.scatter.src", scatterSrc});
    out.push_back({"aten.scatter.value", scatterValue});
    out.push_back({"aten.index_copy.default", indexCopy});
    out.push_back({"aten.index_fill.int_Scalar", indexFillScalar});
    out.push_back({"aten.index_fill.int_Tensor", indexFillTensor});
    out.push_back({"aten.index_put.default", indexPut});
    out.push_back({"aten.index.Tensor", indexTensor});
    out.push_back({"aten.take.default", take});
    out.push_back({"aten.put.default", put});
    out.push_back({"aten.masked_fill.Tensor", maskedFillTensor});
    out.push_back({"aten.masked_scatter.default", maskedScatter});
    out.push_back({"aten.masked_select.default", maskedSelect});
    out.push_back({"aten.slice_scatter.default", sliceScatter});
    out.push_back({"aten.select_scatter.default", selectScatter});
    out.push_back({"aten.diagonal_scatter.default", diagonalScatter});
}

}  // namespace fxray
