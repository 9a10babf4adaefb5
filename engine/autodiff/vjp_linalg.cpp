// VJP rules of matrix products. mm_mat1_backward / mm_mat2_backward pick the transposed form
// when the input was column-major, as FunctionsManual.cpp does, which decides the t/mm pattern
// PyTorch's joint graphs show for Linear layers.
#include "autodiff/geometry.h"
#include "autodiff/vjp.h"

namespace fxray {

namespace {

bool columnMajor(const TensorMeta& m) {
    if (m.dim() != 2) return false;
    auto st = knownStrides(m);
    return st[0] == 1 && st[1] == m.shape[0];
}

Node* maybeMultiply(GraphEmitter& e, Node* t, const Argument& s) {
    if (s.isNone() || numberOf(s) == 1.0) return t;
    return e.op("aten.mul.Scalar", {nodeArg(t), s});
}

/// Gradient of mat1 in mat1 @ mat2.
Node* mat1Backward(GraphEmitter& e, Node* grad, Node* mat1, Node* mat2, const Argument& alpha) {
    Node* r;
    if (columnMajor(e.meta(mat1))) {
        Node* gt = e.t(grad);
        r = e.t(e.mm(mat2, gt));
    } else {
        r = e.mm(grad, e.t(mat2));
    }
    return maybeMultiply(e, r, alpha);
}

/// Gradient of mat2 in mat1 @ mat2.
Node* mat2Backward(GraphEmitter& e, Node* grad, Node* mat1, Node* mat2, const Argument& alpha) {
    Node* r;
    if (columnMajor(e.meta(mat2))) {
        Node* gt = e.t(grad);
        r = e.t(e.mm(gt, mat1));
    } else {
        r = e.mm(e.t(mat1), grad);
    }
    return maybeMultiply(e, r, alpha);
}

// mm: mat2: mm_mat2_backward(grad, self, ...); self: mm_mat1_backward(grad, mat2, ...).
void mm(VjpCall& c) {
    Node* self = c.input(0);
    Node* mat2 = c.input(1);
    if (c.needs(1)) c.give(1, mat2Backward(c.e, c.grad(), self, mat2, Argument::ofInt(1)));
    if (c.needs(0)) c.give(0, mat1Backward(c.e, c.grad(), self, mat2, Argument::ofInt(1)));
}

// addmm: mat1: mm_mat1_backward(grad, mat2, ..., alpha); mat2: mm_mat2_backward(grad, mat1, ...,
// alpha); self: maybe_multiply(grad, beta).
void addmm(VjpCall& c) {
    Node* mat1 = c.input(1);
    Node* mat2 = c.input(2);
    if (c.needs(1)) c.give(1, mat1Backward(c.e, c.grad(), mat1, mat2, c.arg(4)));
    if (c.needs(2)) c.give(2, mat2Backward(c.e, c.grad(), mat1, mat2, c.arg(4)));
    if (c.needs(0)) c.give(0, maybeMultiply(c.e, c.grad(), c.arg(3)));
}

// bmm: mat2: self.transpose(1, 2).bmm(grad); self: grad.bmm(mat2.transpose(1, 2)).
void bmm(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(1)) c.give(1, e.bmm(e.transpose(c.input(0), 1, 2), c.grad()));
    if (c.needs(0)) c.give(0, e.bmm(c.grad(), e.transpose(c.input(1), 1, 2)));
}

// dot: self: grad * tensor; tensor: grad * self.
void dot(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.mul(c.grad(), c.arg(1)));
    if (c.needs(1)) c.give(1, c.e.mul(c.grad(), c.arg(0)));
}

// mv: self: grad.ger(vec) (outer: grad.reshape({n, 1}) * vec); vec: self.t().mv(grad).
void mv(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0)) {
        Node* col = e.reshape(c.grad(), {e.shape(c.grad())[0], 1});
        c.give(0, e.mul(col, c.arg(1)));
    }
    if (c.needs(1)) c.give(1, e.op("aten.mv.default", {nodeArg(e.t(c.input(0))), nodeArg(c.grad())}));
}

}  // namespace

void addLinalgVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.mm.default", mm});
    out.push_back({"aten.addmm.default", addmm});
    out.push_back({"aten.bmm.default", bmm});
    out.push_back({"aten.dot.default", dot});
    out.push_back({"aten.mv.default", mv});
}

}  // namespace fxray
