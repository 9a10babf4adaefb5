// VJP rules of binary and ternary pointwise math beyond the arithmetic of vjp_pointwise.cpp:
// maximum/minimum, pow with a tensor exponent, remainders, logaddexp, atan2, hypot, lerp,
// addcmul/addcdiv. Formulas follow tools/autograd/derivatives.yaml; broadcast inputs are summed
// back by the joint builder (autograd's validate_outputs).
#include "autodiff/vjp.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace fxray {

namespace {

Argument num(double v) { return Argument::ofFloat(v); }

Node* bin(GraphEmitter& e, std::string_view op, const Argument& a, const Argument& b) { return e.op(op, {a, b}); }
Node* div(GraphEmitter& e, const Argument& a, const Argument& b) { return bin(e, "aten.div.Tensor", a, b); }
Node* maskFill(GraphEmitter& e, Node* x, Node* mask) {
    return e.op("aten.masked_fill.Scalar", {nodeArg(x), nodeArg(mask), num(0.0)});
}

/// maybe_multiply(t, s): t itself when s is 1.
Node* maybeMultiply(GraphEmitter& e, Node* t, const Argument& s) {
    if (s.isNone() || numberOf(s) == 1.0) return t;
    return e.op("aten.mul.Scalar", {nodeArg(t), s});
}

/// maximum/minimum: at::where(self == other, grad / 2, grad).masked_fill_(cmp(self, other), 0),
/// the comparison zeroing the side that lost.
void extremum(VjpCall& c, const char* selfLoses, const char* otherLoses) {
    GraphEmitter& e = c.e;
    Node* eq = bin(e, "aten.eq.Tensor", c.arg(0), c.arg(1));
    Node* half = e.op("aten.div.Scalar", {nodeArg(c.grad()), num(2.0)});
    Node* shared = e.op("aten.where.self", {nodeArg(eq), nodeArg(half), nodeArg(c.grad())});
    if (c.needs(0)) c.give(0, maskFill(e, shared, bin(e, selfLoses, c.arg(0), c.arg(1))));
    if (c.needs(1)) c.give(1, maskFill(e, shared, bin(e, otherLoses, c.arg(0), c.arg(1))));
}
void maximum(VjpCall& c) { extremum(c, "aten.lt.Tensor", "aten.gt.Tensor"); }
void minimum(VjpCall& c) { extremum(c, "aten.gt.Tensor", "aten.lt.Tensor"); }

/// fmax/fmin: self: grad.masked_fill((cmp(self, other) | other.isnan()).logical_not(), 0);
/// other: grad.masked_fill(cmp(self, other) | other.isnan(), 0).
void fextremum(VjpCall& c, const char* cmp) {
    GraphEmitter& e = c.e;
    Node* selfWins = e.op("aten.logical_or.default",
                          {nodeArg(bin(e, cmp, c.arg(0), c.arg(1))), nodeArg(e.op("aten.isnan.default", {c.arg(1)}))});
    if (c.needs(0)) c.give(0, maskFill(e, c.grad(), e.op("aten.logical_not.default", {nodeArg(selfWins)})));
    if (c.needs(1)) c.give(1, maskFill(e, c.grad(), selfWins));
}
void fmax(VjpCall& c) { fextremum(c, "aten.ge.Tensor"); }
void fmin(VjpCall& c) { fextremum(c, "aten.le.Tensor"); }

// pow.Tensor_Tensor: self: pow_backward_self = where(exponent == 0, 0, grad * exponent *
// self.pow(exponent - 1)); exponent: pow_backward_exponent = grad * where(self == 0 & exponent >= 0,
// 0, result * self.log()).
void powTensorTensor(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0)) {
        Node* em1 = e.op("aten.sub.Scalar", {c.arg(1), num(1.0)});
        Node* p = bin(e, "aten.pow.Tensor_Tensor", c.arg(0), nodeArg(em1));
        Node* d = e.mul(c.grad(), nodeArg(e.mul(p, c.arg(1))));
        Node* z = e.op("aten.eq.Scalar", {c.arg(1), num(0.0)});
        c.give(0, e.op("aten.where.ScalarSelf", {nodeArg(z), num(0.0), nodeArg(d)}));
    }
    if (c.needs(1)) {
        Node* cond = e.op("aten.logical_and.default", {nodeArg(e.op("aten.eq.Scalar", {c.arg(0), num(0.0)})),
                                                       nodeArg(e.op("aten.ge.Scalar", {c.arg(1), num(0.0)}))});
        Node* rl = e.mul(c.savedResult(), nodeArg(e.op("aten.log.default", {c.arg(0)})));
        Node* w = e.op("aten.where.ScalarSelf", {nodeArg(cond), num(0.0), nodeArg(rl)});
        c.give(1, e.mul(c.grad(), nodeArg(w)));
    }
}

// pow.Scalar(self: Scalar, exponent): exponent: grad * where(self == 0 & exponent >= 0, 0,
// result * log(self)).
void powScalar(VjpCall& c) {
    GraphEmitter& e = c.e;
    const double base = numberOf(c.arg(0));
    if (base == 0.0) {
        Node* ge = e.op("aten.ge.Scalar", {c.arg(1), num(0.0)});
        Node* rl = e.op("aten.mul.Scalar", {nodeArg(c.savedResult()), num(-std::numeric_limits<double>::infinity())});
        Node* w = e.op("aten.where.ScalarSelf", {nodeArg(ge), num(0.0), nodeArg(rl)});
        c.give(1, e.mul(c.grad(), nodeArg(w)));
        return;
    }
    Node* rl = e.op("aten.mul.Scalar", {nodeArg(c.savedResult()), num(std::log(base))});
    c.give(1, e.mul(c.grad(), nodeArg(rl)));
}

// rsub.Tensor (other - alpha * self): self: -grad * alpha; other: grad.
void rsubTensor(VjpCall& c) {
    if (c.needs(1)) c.give(1, c.grad());
    if (c.needs(0)) c.give(0, maybeMultiply(c.e, c.e.neg(c.grad()), c.arg(2)));
}

/// remainder.Tensor / fmod.Tensor: self: grad; other: -grad * self.div(other, rounding_mode).
void remainderLike(VjpCall& c, const char* mode) {
    if (c.needs(1)) {
        Node* q = c.e.op("aten.div.Tensor_mode", {c.arg(0), c.arg(1)}, {{"rounding_mode", Argument::ofString(mode)}});
        c.give(1, c.e.mul(c.e.neg(c.grad()), nodeArg(q)));
    }
    c.give(0, c.grad());
}
void remainderTensor(VjpCall& c) { remainderLike(c, "floor"); }
void fmodTensor(VjpCall& c) { remainderLike(c, "trunc"); }

// remainder.Scalar / fmod.Scalar: self: grad.
void selfGrad(VjpCall& c) { c.give(0, c.grad()); }

// div.Tensor_mode: with a rounding mode both gradients are zeros_like(grad); without one as div.
void divTensorMode(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (!c.arg(2).isNone()) {
        if (c.needs(1)) c.give(1, e.op("aten.zeros_like.default", {nodeArg(c.grad())}));
        if (c.needs(0)) c.give(0, e.op("aten.zeros_like.default", {nodeArg(c.grad())}));
        return;
    }
    if (c.needs(1)) {
        Node* q = div(e, nodeArg(div(e, c.arg(0), c.arg(1))), c.arg(1));
        c.give(1, e.mul(e.neg(c.grad()), nodeArg(q)));
    }
    if (c.needs(0)) c.give(0, div(e, nodeArg(c.grad()), c.arg(1)));
}

// logaddexp: self: grad / (1 + exp(other - self)); other: grad / (1 + exp(self - other)).
// logaddexp2: the same with pow(2, .).
void logaddexpLike(VjpCall& c, bool base2) {
    GraphEmitter& e = c.e;
    auto side = [&](const Argument& a, const Argument& b) {
        Node* d = bin(e, "aten.sub.Tensor", a, b);
        Node* ex = base2 ? e.op("aten.pow.Scalar", {num(2.0), nodeArg(d)}) : e.op("aten.exp.default", {nodeArg(d)});
        return div(e, nodeArg(c.grad()), nodeArg(e.op("aten.add.Scalar", {nodeArg(ex), num(1.0)})));
    };
    if (c.needs(0)) c.give(0, side(c.arg(1), c.arg(0)));
    if (c.needs(1)) c.give(1, side(c.arg(0), c.arg(1)));
}
void logaddexp(VjpCall& c) { logaddexpLike(c, false); }
void logaddexp2(VjpCall& c) { logaddexpLike(c, true); }

// atan2: atan2_backward: recip = (self^2 + other^2).reciprocal(); self: grad * other * recip;
// other: grad * -self * recip.
void atan2(VjpCall& c) {
    GraphEmitter& e = c.e;
    Node* ss = bin(e, "aten.mul.Tensor", c.arg(0), c.arg(0));
    Node* oo = bin(e, "aten.mul.Tensor", c.arg(1), c.arg(1));
    Node* recip = e.op("aten.reciprocal.default", {nodeArg(e.add(ss, oo))});
    if (c.needs(0)) c.give(0, e.mul(e.mul(c.grad(), c.arg(1)), nodeArg(recip)));
    if (c.needs(1)) c.give(1, e.mul(e.mul(c.grad(), nodeArg(e.op("aten.neg.default", {c.arg(0)}))), nodeArg(recip)));
}

// hypot: self: grad * self / result; other: grad * other / result.
void hypot(VjpCall& c) {
    GraphEmitter& e = c.e;
    Node* r = c.savedResult();
    if (c.needs(0)) c.give(0, div(e, nodeArg(e.mul(c.grad(), c.arg(0))), nodeArg(r)));
    if (c.needs(1)) c.give(1, div(e, nodeArg(e.mul(c.grad(), c.arg(1))), nodeArg(r)));
}

// copysign.Tensor: self: grad * (result / self, 0 where self == 0); other: zeros_like(other).
void copysign(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(1)) c.give(1, e.op("aten.zeros_like.default", {c.arg(1)}));
    if (c.needs(0)) {
        Node* ratio = div(e, nodeArg(c.savedResult()), c.arg(0));
        ratio = maskFill(e, ratio, e.op("aten.eq.Scalar", {c.arg(0), num(0.0)}));
        c.give(0, e.mul(c.grad(), nodeArg(ratio)));
    }
}

// xlogy.Tensor: self: grad * at::xlogy((self != 0), other); other: grad * self / other.
void xlogy(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0)) {
        Node* nz = e.op("aten.ne.Scalar", {c.arg(0), num(0.0)});
        c.give(0, e.mul(c.grad(), nodeArg(bin(e, "aten.xlogy.Tensor", nodeArg(nz), c.arg(1)))));
    }
    if (c.needs(1)) c.give(1, div(e, nodeArg(e.mul(c.grad(), c.arg(0))), c.arg(1)));
}

// lerp.Scalar(self, end, weight): self: grad * (1 - weight); end: grad * weight.
void lerpScalar(VjpCall& c) {
    const double w = numberOf(c.arg(2));
    if (c.needs(0)) c.give(0, c.e.op("aten.mul.Scalar", {nodeArg(c.grad()), num(1.0 - w)}));
    if (c.needs(1)) c.give(1, c.e.op("aten.mul.Scalar", {nodeArg(c.grad()), c.arg(2)}));
}

// lerp.Tensor: self: grad * (1 - weight); end: grad * weight; weight: grad * (end - self).
void lerpTensor(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0)) c.give(0, e.mul(c.grad(), nodeArg(e.op("aten.rsub.Scalar", {c.arg(2), num(1.0)}))));
    if (c.needs(1)) c.give(1, e.mul(c.grad(), c.arg(2)));
    if (c.needs(2)) c.give(2, e.mul(c.grad(), nodeArg(bin(e, "aten.sub.Tensor", c.arg(1), c.arg(0)))));
}

// addcmul(self, tensor1, tensor2, value): self: grad; tensor1: grad * (tensor2 * value);
// tensor2: grad * (tensor1 * value).
void addcmul(VjpCall& c) {
    GraphEmitter& e = c.e;
    c.give(0, c.grad());
    if (c.needs(1)) c.give(1, e.mul(c.grad(), nodeArg(e.op("aten.mul.Scalar", {c.arg(2), c.arg(3)}))));
    if (c.needs(2)) c.give(2, e.mul(c.grad(), nodeArg(e.op("aten.mul.Scalar", {c.arg(1), c.arg(3)}))));
}

// addcdiv: self: grad; tensor1: grad * (value / tensor2); tensor2: -grad * value * tensor1 /
// (tensor2 * tensor2).
void addcdiv(VjpCall& c) {
    GraphEmitter& e = c.e;
    c.give(0, c.grad());
    if (c.needs(1)) {
        Node* r = e.op("aten.mul.Scalar", {nodeArg(e.op("aten.reciprocal.default", {c.arg(2)})), c.arg(3)});
        c.give(1, e.mul(c.grad(), nodeArg(r)));
    }
    if (c.needs(2)) {
        Node* ng = e.op("aten.mul.Scalar", {nodeArg(e.neg(c.grad())), c.arg(3)});
        Node* sq = bin(e, "aten.mul.Tensor", c.arg(2), c.arg(2));
        c.give(2, div(e, nodeArg(e.mul(ng, c.arg(1))), nodeArg(sq)));
    }
}

// ldexp.Tensor (self * 2^other, composite): self: grad * 2^other; other: grad * self * 2^other * ln 2.
void ldexp(VjpCall& c) {
    GraphEmitter& e = c.e;
    Node* p = e.op("aten.pow.Scalar", {num(2.0), c.arg(1)});
    if (c.needs(0)) c.give(0, e.mul(c.grad(), nodeArg(p)));
    if (c.needs(1)) {
        Node* d = e.op("aten.mul.Scalar", {nodeArg(e.mul(p, c.arg(0))), num(std::numbers::ln2)});
        c.give(1, e.mul(c.grad(), nodeArg(d)));
    }
}

}  // namespace

void addBinaryVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.maximum.default", maximum});
    out.push_back({"aten.minimum.default", minimum});
    out.push_back({"aten.fmax.default", fmax});
    out.push_back({"aten.fmin.default", fmin});
    out.push_back({"aten.pow.Tensor_Tensor", powTensorTensor, true});
    out.push_back({"aten.pow.Scalar", powScalar, true});
    out.push_back({"aten.rsub.Tensor", rsubTensor});
    out.push_back({"aten.remainder.Tensor", remainderTensor});
    out.push_back({"aten.remainder.Scalar", selfGrad});
    out.push_back({"aten.fmod.Tensor", fmodTensor});
    out.push_back({"aten.fmod.Scalar", selfGrad});
    out.push_back({"aten.div.Tensor_mode", divTensorMode});
    out.push_back({"aten.logaddexp.default", logaddexp});
    out.push_back({"aten.logaddexp2.default", logaddexp2});
    out.push_back({"aten.atan2.default", atan2});
    out.push_back({"aten.hypot.default", hypot, true});
    out.push_back({"aten.copysign.Tensor", copysign, true});
    out.push_back({"aten.xlogy.Tensor", xlogy});
    out.push_back({"aten.lerp.Scalar", lerpScalar});
    out.push_back({"aten.lerp.Tensor", lerpTensor});
    out.push_back({"aten.addcmul.default", addcmul});
    out.push_back({"aten.addcdiv.default", addcdiv});
    out.push_back({"aten.ldexp.Tensor", ldexp});
}

}  // namespace fxray
