// VJP rules of the fused matrix products (addmv, addr, baddbmm, addbmm), vdot, trace,
// linalg_cross and block_diag, as tools/autograd/derivatives.yaml writes them.
#include "autodiff/geometry.h"
#include "autodiff/vjp.h"

#include <algorithm>

namespace fxray {

namespace {

/// maybe_multiply(t, s): t itself when s is 1.
Node* scaled(GraphEmitter& e, Node* t, const Argument& s) {
    if (!t || s.isNone() || numberOf(s) == 1.0) return t;
    return e.op("aten.mul.Scalar", {nodeArg(t), s});
}

// addmv(self, mat, vec, beta, alpha): self: grad * beta; mat: grad.ger(vec) * alpha;
// vec: mat.t().mv(grad) * alpha.
void addmv(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0)) c.give(0, scaled(e, c.grad(), c.arg(3)));
    if (c.needs(1)) {
        Node* outer = e.mul(e.unsqueeze(c.grad(), 1), nodeArg(e.unsqueeze(c.input(2), 0)));
        c.give(1, scaled(e, outer, c.arg(4)));
    }
    if (c.needs(2)) c.give(2, scaled(e, e.op("aten.mv.default", {nodeArg(e.t(c.input(1))), nodeArg(c.grad())}), c.arg(4)));
}

// addr(self, vec1, vec2, beta, alpha): self: grad * beta; vec1: grad.mv(vec2) * alpha;
// vec2: grad.t().mv(vec1) * alpha.
void addr(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0)) c.give(0, scaled(e, c.grad(), c.arg(3)));
    if (c.needs(1)) c.give(1, scaled(e, e.op("aten.mv.default", {nodeArg(c.grad()), c.arg(2)}), c.arg(4)));
    if (c.needs(2)) c.give(2, scaled(e, e.op("aten.mv.default", {nodeArg(e.t(c.grad())), c.arg(1)}), c.arg(4)));
}

// baddbmm(self, batch1, batch2, beta, alpha): self: grad * beta; batch1: grad.bmm(batch2^T) * alpha;
// batch2: batch1^T.bmm(grad) * alpha.
void baddbmm(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0)) c.give(0, scaled(e, c.grad(), c.arg(3)));
    if (c.needs(1)) c.give(1, scaled(e, e.bmm(c.grad(), e.transpose(c.input(2), 1, 2)), c.arg(4)));
    if (c.needs(2)) c.give(2, scaled(e, e.bmm(e.transpose(c.input(1), 1, 2), c.grad()), c.arg(4)));
}

// addbmm(self, batch1, batch2, beta, alpha): as baddbmm with grad expanded over the batch.
void addbmm(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0)) c.give(0, scaled(e, c.grad(), c.arg(3)));
    const auto& b1 = c.meta(c.input(1)).shape;
    const auto& b2 = c.meta(c.input(2)).shape;
    if (b1.size() != 3 || b2.size() != 3) return;
    auto batched = [&] { return e.expand(e.unsqueeze(c.grad(), 0), {b1[0], b1[1], b2[2]}); };
    if (c.needs(1)) c.give(1, scaled(e, e.bmm(batched(), e.transpose(c.input(2), 1, 2)), c.arg(4)));
    if (c.needs(2)) c.give(2, scaled(e, e.bmm(e.transpose(c.input(1), 1, 2), batched()), c.arg(4)));
}

// vdot(self, other) (real): self: grad * other; other: grad * self.
void vdot(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.mul(c.grad(), c.arg(1)));
    if (c.needs(1)) c.give(1, c.e.mul(c.grad(), c.arg(0)));
}

// trace(self): trace_backward: zeros of self's size with grad on the main diagonal.
void trace(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(c.input(0)).shape;
    if (shape.size() != 2) return e.fail("trace of a tensor that is not a matrix", c.fwd.name());
    Node* z = e.zerosLike(c.grad(), shape);
    Node* d = e.expand(c.grad(), {std::min(shape[0], shape[1])});
    c.give(0, e.op("aten.diagonal_scatter.default", {nodeArg(z), nodeArg(d)}));
}

// linalg_cross(self, other, dim): self: linalg_cross(other, grad, dim); other: linalg_cross(grad, self, dim).
void linalgCross(VjpCall& c) {
    GraphEmitter& e = c.e;
    Kwargs dim = {{"dim", c.arg(2)}};
    if (c.needs(0)) c.give(0, e.op("aten.linalg_cross.default", {c.arg(1), nodeArg(c.grad())}, dim));
    if (c.needs(1)) c.give(1, e.op("aten.linalg_cross.default", {nodeArg(c.grad()), c.arg(0)}, dim));
}

// block_diag(tensors): block_diag_backward: each input's block sliced out of grad (0-d and 1-d
// inputs are 1 x 1 and 1 x n blocks), reshaped to the input.
void blockDiag(VjpCall& c) {
    GraphEmitter& e = c.e;
    int64_t row = 0, col = 0;
    for (size_t k = 0; k < c.arg(0).items.size(); ++k) {
        Node* t = c.inputAt(0, k);
        if (!t) continue;
        const auto& s = c.meta(t).shape;
        const int64_t rows = s.size() == 2 ? s[0] : 1;
        const int64_t cols = s.size() == 2 ? s[1] : (s.size() == 1 ? s[0] : 1);
        if (c.needsNode(t)) {
            Node* g = e.op("aten.slice.Tensor", {nodeArg(c.grad()), Argument::ofInt(0), Argument::ofInt(row),
                                                 Argument::ofInt(row + rows)});
            g = e.op("aten.slice.Tensor", {nodeArg(g), Argument::ofInt(1), Argument::ofInt(col), Argument::ofInt(col + cols)});
            if (s.size() != 2) g = e.reshape(g, s);
            c.giveAt(0, k, g);
        }
        row += rows;
        col += cols;
    }
}

} // namespace

void addProductVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.addmv.default", addmv});
    out.push_back({"aten.addr.default", addr});
    out.push_back({"aten.baddbmm.default", baddbmm});
    out.push_back({"aten.addbmm.default", addbmm});
    out.push_back({"aten.vdot.default", vdot});
    out.push_back({"aten.trace.default", trace});
    out.push_back({"aten.linalg_cross.default", linalgCross});
    out.push_back({"aten.block_diag.default", blockDiag});
}

} // namespace fxray
