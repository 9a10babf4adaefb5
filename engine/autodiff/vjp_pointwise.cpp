// VJP rules of pointwise ops: arithmetic, unary math, activations, where, dtype copies.
// Formulas follow tools/autograd/derivatives.yaml; each comment names the entry's expression.
#include "autodiff/vjp.h"

namespace fxray {

namespace {

Argument num(double v) { return Argument::ofFloat(v); }

/// maybe_multiply(t, s): t itself when s is 1, else `t * s` (a Scalar multiply).
Node* maybeMultiply(GraphEmitter& e, Node* t, const Argument& s) {
    if (s.isNone() || numberOf(s) == 1.0) return t;
    return e.op("aten.mul.Scalar", {nodeArg(t), s});
}

// add.Tensor: other: maybe_multiply(grad, alpha); self: grad.
void addTensor(VjpCall& c) {
    if (c.needs(1)) c.give(1, maybeMultiply(c.e, c.grad(), c.arg(2)));
    c.give(0, c.grad());
}

// add.Scalar / sub.Scalar / clone / alias / lift_fresh_copy: self: grad.
void identity(VjpCall& c) { c.give(0, c.grad()); }

// sub.Tensor: other: -grad * alpha; self: grad.
void subTensor(VjpCall& c) {
    if (c.needs(1)) c.give(1, maybeMultiply(c.e, c.e.neg(c.grad()), c.arg(2)));
    c.give(0, c.grad());
}

// rsub.Scalar (other - alpha * self): self: -grad * alpha.
void rsubScalar(VjpCall& c) {
    if (c.needs(0)) c.give(0, maybeMultiply(c.e, c.e.neg(c.grad()), c.arg(2)));
}

bool complexNode(const GraphEmitter& e, const Argument& a) { return a.isNode() && isComplex(e.dtype(a.node)); }

/// x.conj() as PyTorch's joint graphs show it (`_conj`, materialised by a clone); x itself when
/// it is real or a Python number.
Argument conjOf(GraphEmitter& e, const Argument& x) {
    if (!complexNode(e, x)) return x;
    return nodeArg(e.op("aten.clone.default", {nodeArg(e.op("aten._conj.default", {x}))}));
}

/// handle_r_to_c: the real part of a complex gradient for a real input.
Node* realFor(GraphEmitter& e, const Argument& input, Node* g) {
    if (!g || !input.isNode() || isComplex(e.dtype(input.node)) || !isComplex(e.dtype(g))) return g;
    return e.op("aten.real.default", {nodeArg(g)});
}

// mul.Tensor: other: mul_tensor_backward(grad, self, other.scalar_type()); self: likewise with
// other. That is grad * x.conj() (conj only of a complex x; a Python number stays a wrapped
// scalar), its real part for a real input of a complex product.
void mulTensor(VjpCall& c) {
    if (c.needs(1)) c.give(1, realFor(c.e, c.arg(1), c.e.mul(c.grad(), conjOf(c.e, c.arg(0)))));
    if (c.needs(0)) c.give(0, realFor(c.e, c.arg(0), c.e.mul(c.grad(), conjOf(c.e, c.arg(1)))));
}

// mul.Scalar: self: grad * other.
void mulScalar(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.op("aten.mul.Scalar", {nodeArg(c.grad()), c.arg(1)}));
}

// div.Tensor: other: -grad * ((self / other) / other).conj(); self: grad / other.conj() (the
// conjugates only for complex operands; real parts for real inputs, as mul's).
void divTensor(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(1)) {
        Node* q = e.op("aten.div.Tensor", {c.arg(0), c.arg(1)});
        Node* q2 = e.op("aten.div.Tensor", {nodeArg(q), c.arg(1)});
        c.give(1, realFor(e, c.arg(1), e.mul(e.neg(c.grad()), conjOf(e, nodeArg(q2)))));
    }
    if (c.needs(0)) c.give(0, realFor(e, c.arg(0), e.op("aten.div.Tensor", {nodeArg(c.grad()), conjOf(e, c.arg(1))})));
}

// div.Scalar: self: grad / other.
void divScalar(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.op("aten.div.Scalar", {nodeArg(c.grad()), c.arg(1)}));
}

// neg: -grad.
void neg(VjpCall& c) { c.give(0, c.e.neg(c.grad())); }

// exp: grad * result.
void exp(VjpCall& c) { c.give(0, c.e.mul(c.grad(), nodeArg(c.savedResult()))); }

// log: grad.div(self).
void log(VjpCall& c) { c.give(0, c.e.op("aten.div.Tensor", {nodeArg(c.grad()), c.arg(0)})); }

// sqrt: grad / (2 * result).
void sqrt(VjpCall& c) {
    Node* twice = c.e.op("aten.mul.Scalar", {nodeArg(c.savedResult()), Argument::ofInt(2)});
    c.give(0, c.e.op("aten.div.Tensor", {nodeArg(c.grad()), nodeArg(twice)}));
}

// rsqrt: -0.5 * grad * result.pow(3).
void rsqrt(VjpCall& c) {
    Node* scaled = c.e.op("aten.mul.Scalar", {nodeArg(c.grad()), num(-0.5)});
    Node* cube = c.e.op("aten.pow.Tensor_Scalar", {nodeArg(c.savedResult()), Argument::ofInt(3)});
    c.give(0, c.e.mul(scaled, nodeArg(cube)));
}

// reciprocal: -grad * (result * result).
void reciprocal(VjpCall& c) {
    Node* r = c.savedResult();
    Node* sq = c.e.mul(r, nodeArg(r));
    c.give(0, c.e.mul(c.e.neg(c.grad()), nodeArg(sq)));
}

// pow.Tensor_Scalar: pow_backward(grad, self, exponent) = grad * (exponent * self.pow(exponent - 1)).
void powTensorScalar(VjpCall& c) {
    GraphEmitter& e = c.e;
    const double p = numberOf(c.arg(1));
    if (p == 0.0) {
        c.give(0, e.op("aten.zeros_like.default", {c.arg(0)},
                       {{"memory_format", Argument::ofMemoryFormat(MemoryFormat::Contiguous)}}));
        return;
    }
    Node* powm1 = e.op("aten.pow.Tensor_Scalar", {c.arg(0), num(p - 1.0)});
    Node* d = e.op("aten.mul.Scalar", {nodeArg(powm1), num(p)});
    c.give(0, e.mul(c.grad(), nodeArg(d)));
}

// erf: 2.0 / sqrt(pi) * exp(-(self.pow(2))) * grad.
void erf(VjpCall& c) {
    GraphEmitter& e = c.e;
    Node* sq = e.op("aten.pow.Tensor_Scalar", {c.arg(0), Argument::ofInt(2)});
    Node* ex = e.op("aten.exp.default", {nodeArg(e.neg(sq))});
    Node* scaled = e.op("aten.mul.Scalar", {nodeArg(ex), num(1.1283791670955126)});
    c.give(0, e.mul(scaled, nodeArg(c.grad())));
}

// relu: threshold_backward(grad, result, 0).
void relu(VjpCall& c) {
    c.give(0, c.e.op("aten.threshold_backward.default",
                     {nodeArg(c.grad()), nodeArg(c.savedResult()), Argument::ofInt(0)}));
}

// sigmoid: sigmoid_backward(grad, result).
void sigmoid(VjpCall& c) {
    c.give(0, c.e.op("aten.sigmoid_backward.default", {nodeArg(c.grad()), nodeArg(c.savedResult())}));
}

// tanh: tanh_backward(grad, result).
void tanh(VjpCall& c) {
    c.give(0, c.e.op("aten.tanh_backward.default", {nodeArg(c.grad()), nodeArg(c.savedResult())}));
}

// gelu: gelu_backward(grad, self, approximate).
void gelu(VjpCall& c) {
    c.give(0, c.e.op("aten.gelu_backward.default", {nodeArg(c.grad()), c.arg(0)}, {{"approximate", c.arg(1)}}));
}

// silu: silu_backward(grad, self).
void silu(VjpCall& c) { c.give(0, c.e.op("aten.silu_backward.default", {nodeArg(c.grad()), c.arg(0)})); }

// where.self: other: where(condition, 0, grad); self: where(condition, grad, 0).
void whereSelf(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(2)) c.give(2, e.op("aten.where.ScalarSelf", {c.arg(0), num(0.0), nodeArg(c.grad())}));
    if (c.needs(1)) c.give(1, e.op("aten.where.ScalarOther", {c.arg(0), nodeArg(c.grad()), num(0.0)}));
}

// masked_fill.Scalar: self: grad.masked_fill(mask, 0).
void maskedFillScalar(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.op("aten.masked_fill.Scalar", {nodeArg(c.grad()), c.arg(1), Argument::ofInt(0)}));
}

// _to_copy: _to_copy_backward(grad, self.options()): a copy back to the input's dtype.
void toCopy(VjpCall& c) {
    Node* g = c.grad();
    DType from = c.meta(c.input(0)).dtype;
    if (c.e.dtype(g) != from) g = c.e.op("aten._to_copy.default", {nodeArg(g)}, {{"dtype", Argument::ofDType(from)}});
    c.give(0, g);
}

}  // namespace

void addPointwiseVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.add.Tensor", addTensor});
    out.push_back({"aten.add.Scalar", identity});
    out.push_back({"aten.sub.Tensor", subTensor});
    out.push_back({"aten.sub.Scalar", identity});
    out.push_back({"aten.rsub.Scalar", rsubScalar});
    out.push_back({"aten.mul.Tensor", mulTensor});
    out.push_back({"aten.mul.Scalar", mulScalar});
    out.push_back({"aten.div.Tensor", divTensor});
    out.push_back({"aten.div.Scalar", divScalar});
    out.push_back({"aten.neg.default", neg});
    out.push_back({"aten.exp.default", exp, true});
    out.push_back({"aten.log.default", log});
    out.push_back({"aten.sqrt.default", sqrt, true});
    out.push_back({"aten.rsqrt.default", rsqrt, true});
    out.push_back({"aten.reciprocal.default", reciprocal, true});
    out.push_back({"aten.pow.Tensor_Scalar", powTensorScalar});
    out.push_back({"aten.erf.default", erf});
    out.push_back({"aten.relu.default", relu, true});
    out.push_back({"aten.sigmoid.default", sigmoid, true});
    out.push_back({"aten.tanh.default", tanh, true});
    out.push_back({"aten.gelu.default", gelu});
    out.push_back({"aten.silu.default", silu});
    out.push_back({"aten.where.self", whereSelf});
    out.push_back({"aten.masked_fill.Scalar", maskedFillScalar});
    out.push_back({"aten.clone.default", identity});
    out.push_back({"aten.alias.default", identity});
    out.push_back({"aten.lift_fresh_copy.default", identity});
    out.push_back({"aten._to_copy.default", toCopy});
}

}  // namespace fxray
