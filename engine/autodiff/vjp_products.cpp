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
    if (c.needs(2))
        c.give(2, scaled(e, e.op("aten.mv.default", {nodeArg(e.t(c.input(1))), nodeArg(c.grad())}), c.arg(4)));
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
            Node* g = e.op("aten.slice.Tensor",
                           {nodeArg(c.grad()), Argument::ofInt(0), Argument::ofInt(row), Argument::ofInt(row + rows)});
            g = e.op("aten.slice.Tensor",
                     {nodeArg(g), Argument::ofInt(1), Argument::ofInt(col), Argument::ofInt(col + cols)});
            if (s.size() != 2) g = e.reshape(g, s);
            c.giveAt(0, k, g);
        }
        row += rows;
        col += cols;
    }
}

// _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim): each input's gradient
// is the same contraction with grad in its place, its expand dims and sumdim swapped.
void trilinear(VjpCall& c) {
    GraphEmitter& e = c.e;
    const Argument g = nodeArg(c.grad());
    const Argument &i1 = c.arg(0), &i2 = c.arg(1), &i3 = c.arg(2), &x1 = c.arg(3), &x2 = c.arg(4), &x3 = c.arg(5),
                   &sum = c.arg(6);
    auto tri = [&](const Argument& a, const Argument& b, const Argument& d, const Argument& ea, const Argument& eb,
                   const Argument& ed, const Argument& s) {
        return e.op("aten._trilinear.default", {a, b, d, ea, eb, ed, s});
    };
    if (c.needs(0)) c.give(0, tri(g, i2, i3, sum, x2, x3, x1));
    if (c.needs(1)) c.give(1, tri(i1, g, i3, x1, sum, x3, x2));
    if (c.needs(2)) c.give(2, tri(i1, i2, g, x1, x2, sum, x3));
}

// linalg_matrix_exp(self): the upper-right block of matrix_exp([[A^H, grad], [0, A^H]])
// (differential_analytic_matrix_function).
void matrixExp(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(c.input(0)).shape;
    if (shape.size() < 2) return e.fail("matrix_exp of a tensor that is not a matrix", c.fwd.name());
    const int64_t n = shape.back();
    Node* at = e.transpose(c.input(0), -2, -1);
    auto cat = [&](Node* a, Node* b, int64_t dim) {
        return e.op("aten.cat.default", {Argument::ofList({nodeArg(a), nodeArg(b)}), Argument::ofInt(dim)});
    };
    Node* top = cat(at, c.grad(), -1);
    Node* bottom = cat(e.op("aten.zeros_like.default", {nodeArg(at)}), at, -1);
    Node* big = e.op("aten.linalg_matrix_exp.default", {nodeArg(cat(top, bottom, -2))});
    Node* rows = e.op("aten.slice.Tensor", {nodeArg(big), Argument::ofInt(-2), Argument::ofInt(0), Argument::ofInt(n)});
    c.give(0,
           e.op("aten.slice.Tensor", {nodeArg(rows), Argument::ofInt(-1), Argument::ofInt(n), Argument::ofInt(2 * n)}));
}

/// a @ b for matrices or batches of them.
Node* matmul(GraphEmitter& e, Node* a, Node* b) { return e.shape(a).size() == 2 ? e.mm(a, b) : e.bmm(a, b); }

// triangular_solve(self, A, upper, transpose, unitriangular) -> (solution, cloned_coefficient):
// self: grad_b = triangular_solve(grad_x, A, upper, !transpose)[0]; A: -(grad_b x^T) (or
// -(x grad_b^T) transposed), its triangle kept, plus the cloned coefficient's gradient.
void triangularSolve(VjpCall& c) {
    GraphEmitter& e = c.e;
    const bool upper = c.arg(2).kind != Argument::Kind::Bool || c.arg(2).b;
    const bool trans = c.arg(3).kind == Argument::Kind::Bool && c.arg(3).b;
    const bool unit = c.arg(4).kind == Argument::Kind::Bool && c.arg(4).b;
    Node* gradA = c.grad(1);
    if (Node* gx = c.grad(0)) {
        Node* solve = e.op("aten.triangular_solve.default",
                           {nodeArg(gx), c.arg(1), Argument::ofBool(upper), Argument::ofBool(!trans)});
        Node* gb = e.getitem(solve, 0);
        if (c.needs(0)) c.give(0, gb);
        if (c.needs(1)) {
            Node* x = c.result(0);
            Node* ga = trans ? matmul(e, x, e.transpose(gb, -2, -1)) : matmul(e, gb, e.transpose(x, -2, -1));
            ga = e.neg(ga);
            ga = e.op(upper ? "aten.triu.default" : "aten.tril.default",
                      {nodeArg(ga), Argument::ofInt(upper ? (unit ? 1 : 0) : (unit ? -1 : 0))});
            gradA = gradA ? e.add(ga, gradA) : ga;
        }
    }
    if (c.needs(1) && gradA) c.give(1, gradA);
}

// _linalg_slogdet(A) -> (sign, logabsdet, LU, pivots): A: slogdet_backward (real): grad times
// A^-T, solved with the forward's LU factors: linalg_lu_solve(LU, pivots, diag_embed(grad)^T).
void slogdet(VjpCall& c) {
    GraphEmitter& e = c.e;
    Node* g = c.grad(1);
    if (!g) return;
    const auto& shape = c.meta(c.input(0)).shape;
    if (shape.size() < 2) return e.fail("slogdet of a tensor that is not a matrix", c.fwd.name());
    auto batch = e.shape(g);
    batch.push_back(shape.back());
    Node* d = e.op("aten.diag_embed.default", {nodeArg(e.expand(e.unsqueeze(g, -1), batch))});
    c.give(0, e.op("aten.linalg_lu_solve.default",
                   {nodeArg(c.result(2)), nodeArg(c.result(3)), nodeArg(e.transpose(d, -2, -1))}));
}

// linalg_pinv.atol_rtol_tensor(self, atol, rtol, hermitian): self: pinv_backward(grad, result, self),
// in the arrangement that keeps the products smallest (real: mH is the transpose).
void pinv(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(c.input(0)).shape;
    if (shape.size() < 2) return e.fail("pinv of a tensor that is not a matrix", c.fwd.name());
    const int64_t m = shape[shape.size() - 2], n = shape.back();
    Node* a = c.input(0);
    Node* p = c.savedResult();
    auto mT = [&](Node* x) { return e.transpose(x, -2, -1); };
    auto mul = [&](Node* x, Node* y) { return matmul(e, x, y); };
    auto sub = [&](Node* x, Node* y) { return e.op("aten.sub.Tensor", {nodeArg(x), nodeArg(y)}); };
    Node* ph = mT(p);
    Node* gh = mT(c.grad());
    Node* r;
    if (m <= n) {
        Node* k = mul(gh, p);
        Node* kph = mul(k, ph);
        r = sub(kph, mT(mul(p, k)));
        r = sub(r, mul(mul(a, p), kph));
        r = e.add(r, mul(mul(ph, p), sub(gh, mul(k, a))));
    } else {
        Node* k = mul(p, gh);
        Node* phk = mul(ph, k);
        r = sub(mul(mul(sub(gh, mul(a, k)), p), ph), mT(mul(k, p)));
        r = e.add(r, phk);
        r = sub(r, mul(mul(phk, p), a));
    }
    c.give(0, r);
}

// _linalg_svd(A, full_matrices, compute_uv, driver) -> (U, S, Vh): A: svd_backward, today its
// singular-values-only case (svdvals, nuclear norms): U diag(gS) Vh, U and Vh cut to the k
// singular vectors when full.
void svd(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.grad(0) || c.grad(2))
        return e.fail("no VJP rule for aten._linalg_svd.default with gradients of U or Vh yet", c.fwd.name());
    Node* gS = c.grad(1);
    if (!gS) return;
    const auto& shape = c.meta(c.input(0)).shape;
    if (shape.size() < 2) return e.fail("svd of a tensor that is not a matrix", c.fwd.name());
    const int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
    Node* u = c.result(0);
    Node* vh = c.result(2);
    if (e.shape(u).back() != k)
        u = e.op("aten.slice.Tensor", {nodeArg(u), Argument::ofInt(-1), Argument::ofInt(0), Argument::ofInt(k)});
    if (e.shape(vh)[e.shape(vh).size() - 2] != k)
        vh = e.op("aten.slice.Tensor", {nodeArg(vh), Argument::ofInt(-2), Argument::ofInt(0), Argument::ofInt(k)});
    c.give(0, m >= n ? matmul(e, u, e.mul(e.unsqueeze(gS, -1), nodeArg(vh)))
                     : matmul(e, e.mul(u, nodeArg(e.unsqueeze(gS, -2))), vh));
}

}  // namespace

void addProductVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.addmv.default", addmv});
    out.push_back({"aten.addr.default", addr});
    out.push_back({"aten.baddbmm.default", baddbmm});
    out.push_back({"aten.addbmm.default", addbmm});
    out.push_back({"aten.vdot.default", vdot});
    out.push_back({"aten.trace.default", trace});
    out.push_back({"aten.linalg_cross.default", linalgCross});
    out.push_back({"aten.block_diag.default", blockDiag});
    out.push_back({"aten._trilinear.default", trilinear});
    out.push_back({"aten.linalg_matrix_exp.default", matrixExp});
    out.push_back({"aten.triangular_solve.default", triangularSolve});
    out.push_back({"aten._linalg_slogdet.default", slogdet, false, 0b1101});
    out.push_back({"aten.linalg_pinv.atol_rtol_tensor", pinv, true});
    out.push_back({"aten._linalg_svd.default", svd});
}

}  // namespace fxray
