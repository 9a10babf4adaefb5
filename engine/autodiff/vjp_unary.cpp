// VJP rules of unary math: trigonometric and hyperbolic functions, exp/log variants, special
// functions, and the rounding ops whose gradient is zero. Formulas follow
// tools/autograd/derivatives.yaml (and FunctionsManual.cpp where an entry calls a helper); each
// comment names the entry's expression.
#include "autodiff/vjp.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace fxray {

namespace {

Argument num(double v) { return Argument::ofFloat(v); }

Node* unary(GraphEmitter& e, std::string_view op, const Argument& x) { return e.op(op, {x}); }
Node* mulS(GraphEmitter& e, Node* x, double s) { return e.op("aten.mul.Scalar", {nodeArg(x), num(s)}); }
Node* addS(GraphEmitter& e, Node* x, double s) { return e.op("aten.add.Scalar", {nodeArg(x), num(s)}); }
Node* div(GraphEmitter& e, Node* a, Node* b) { return e.op("aten.div.Tensor", {nodeArg(a), nodeArg(b)}); }

// ceil, floor, round, trunc, sign, sgn (real): zeros_like(grad).
void zeroGrad(VjpCall& c) { c.give(0, c.e.op("aten.zeros_like.default", {nodeArg(c.grad())})); }

// frac: grad.
void passGrad(VjpCall& c) { c.give(0, c.grad()); }

// abs: grad * self.sgn().
void abs(VjpCall& c) { c.give(0, c.e.mul(c.grad(), nodeArg(unary(c.e, "aten.sgn.default", c.arg(0))))); }

// sin: grad * self.cos().
void sin(VjpCall& c) { c.give(0, c.e.mul(c.grad(), nodeArg(unary(c.e, "aten.cos.default", c.arg(0))))); }

// cos: grad * -self.sin().
void cos(VjpCall& c) {
    Node* s = c.e.neg(unary(c.e, "aten.sin.default", c.arg(0)));
    c.give(0, c.e.mul(c.grad(), nodeArg(s)));
}

// tan: grad * (1 + result.pow(2)).
void tan(VjpCall& c) {
    Node* sq = c.e.op("aten.pow.Tensor_Scalar", {nodeArg(c.savedResult()), Argument::ofInt(2)});
    c.give(0, c.e.mul(c.grad(), nodeArg(addS(c.e, sq, 1.0))));
}

// sinh: grad * self.cosh(); cosh: grad * self.sinh().
void sinh(VjpCall& c) { c.give(0, c.e.mul(c.grad(), nodeArg(unary(c.e, "aten.cosh.default", c.arg(0))))); }
void cosh(VjpCall& c) { c.give(0, c.e.mul(c.grad(), nodeArg(unary(c.e, "aten.sinh.default", c.arg(0))))); }

/// 1 - self^2 (sign +1) or self^2 - 1 (sign -1), or self^2 + 1 (plusOne).
Node* squareShift(GraphEmitter& e, const Argument& self, double add, bool negate) {
    Node* sq = e.op("aten.pow.Tensor_Scalar", {self, Argument::ofInt(2)});
    if (negate) sq = e.neg(sq);
    return addS(e, sq, add);
}

// asin: grad * (-self * self + 1).rsqrt(); acos: grad * -((-self * self + 1).rsqrt()).
void asin(VjpCall& c) {
    Node* r = unary(c.e, "aten.rsqrt.default", nodeArg(squareShift(c.e, c.arg(0), 1.0, true)));
    c.give(0, c.e.mul(c.grad(), nodeArg(r)));
}
void acos(VjpCall& c) {
    Node* r = unary(c.e, "aten.rsqrt.default", nodeArg(squareShift(c.e, c.arg(0), 1.0, true)));
    c.give(0, c.e.mul(c.grad(), nodeArg(c.e.neg(r))));
}

// atan: grad / (self * self + 1).
void atan(VjpCall& c) { c.give(0, div(c.e, c.grad(), squareShift(c.e, c.arg(0), 1.0, false))); }

// asinh: grad * (self.pow(2) + 1).rsqrt(); acosh: grad * (self.pow(2) - 1).rsqrt().
void asinh(VjpCall& c) {
    Node* r = unary(c.e, "aten.rsqrt.default", nodeArg(squareShift(c.e, c.arg(0), 1.0, false)));
    c.give(0, c.e.mul(c.grad(), nodeArg(r)));
}
void acosh(VjpCall& c) {
    Node* r = unary(c.e, "aten.rsqrt.default", nodeArg(squareShift(c.e, c.arg(0), -1.0, false)));
    c.give(0, c.e.mul(c.grad(), nodeArg(r)));
}

// atanh: grad * 1 / (1 - self.pow(2)).
void atanh(VjpCall& c) { c.give(0, div(c.e, c.grad(), squareShift(c.e, c.arg(0), 1.0, true))); }

// expm1: grad * (result + 1).
void expm1(VjpCall& c) { c.give(0, c.e.mul(c.grad(), nodeArg(addS(c.e, c.savedResult(), 1.0)))); }

// exp2: grad * result * M_LN2.
void exp2(VjpCall& c) { c.give(0, mulS(c.e, c.e.mul(c.grad(), nodeArg(c.savedResult())), std::numbers::ln2)); }

// log1p: log1p_backward: grad / (self + 1).
void log1p(VjpCall& c) {
    Node* s = c.e.op("aten.add.Scalar", {c.arg(0), num(1.0)});
    c.give(0, div(c.e, c.grad(), s));
}

// log2: grad / (self * M_LN2); log10: grad / (self * M_LN10).
void logBase(VjpCall& c, double ln) {
    Node* s = c.e.op("aten.mul.Scalar", {c.arg(0), num(ln)});
    c.give(0, div(c.e, c.grad(), s));
}
void log2(VjpCall& c) { logBase(c, std::numbers::ln2); }
void log10(VjpCall& c) { logBase(c, std::numbers::ln10); }

// erfc: -2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad.
void erfc(VjpCall& c) {
    Node* sq = c.e.op("aten.pow.Tensor_Scalar", {c.arg(0), Argument::ofInt(2)});
    Node* ex = unary(c.e, "aten.exp.default", nodeArg(c.e.neg(sq)));
    c.give(0, c.e.mul(mulS(c.e, ex, -2.0 / std::sqrt(std::numbers::pi)), nodeArg(c.grad())));
}

// erfinv: 0.5 * sqrt(M_PI) * exp(self.erfinv().pow(2)) * grad.
void erfinv(VjpCall& c) {
    Node* inv = unary(c.e, "aten.erfinv.default", c.arg(0));
    Node* sq = c.e.op("aten.pow.Tensor_Scalar", {nodeArg(inv), Argument::ofInt(2)});
    Node* ex = unary(c.e, "aten.exp.default", nodeArg(sq));
    c.give(0, c.e.mul(mulS(c.e, ex, 0.5 * std::sqrt(std::numbers::pi)), nodeArg(c.grad())));
}

// digamma: grad * polygamma(1, self); lgamma: grad * digamma(self).
void digamma(VjpCall& c) {
    Node* p = c.e.op("aten.polygamma.default", {Argument::ofInt(1), c.arg(0)});
    c.give(0, c.e.mul(c.grad(), nodeArg(p)));
}
void lgamma(VjpCall& c) { c.give(0, c.e.mul(c.grad(), nodeArg(unary(c.e, "aten.digamma.default", c.arg(0))))); }

// polygamma(n, self): self: grad * polygamma(n + 1, self).
void polygamma(VjpCall& c) {
    Node* p = c.e.op("aten.polygamma.default", {Argument::ofInt(c.arg(0).i + 1), c.arg(1)});
    c.give(1, c.e.mul(c.grad(), nodeArg(p)));
}

// mvlgamma(self, p): mvlgamma_backward: grad * digamma(self.unsqueeze(-1) + arange(-p/2 + 0.5,
// 0.5, 0.5)).sum(-1).
void mvlgamma(VjpCall& c) {
    GraphEmitter& e = c.e;
    const int64_t p = c.arg(1).i;
    const TensorMeta& m = c.meta(c.input(0));
    Node* r = e.op("aten.arange.start_step", {num(-static_cast<double>(p) / 2.0 + 0.5), num(0.5), num(0.5)},
                   {{"dtype", Argument::ofDType(m.dtype)}, {"device", Argument::ofDevice(m.device)}});
    Node* args = e.op("aten.add.Tensor", {nodeArg(r), nodeArg(e.unsqueeze(c.input(0), -1))});
    Node* dg = unary(e, "aten.digamma.default", nodeArg(args));
    Node* s = e.op("aten.sum.dim_IntList", {nodeArg(dg), intList({-1})});
    c.give(0, e.mul(c.grad(), nodeArg(s)));
}

// i0: grad * at::special_i1(self).
void i0(VjpCall& c) { c.give(0, c.e.mul(c.grad(), nodeArg(unary(c.e, "aten.special_i1.default", c.arg(0))))); }

// sinc: sinc_backward: grad * ((pi*self*cos(pi*self) - sin(pi*self)) / (pi*self*self)), 0 at 0.
void sinc(VjpCall& c) {
    GraphEmitter& e = c.e;
    const double pi = std::numbers::pi;
    Node* px = e.op("aten.mul.Scalar", {c.arg(0), num(pi)});
    Node* top = e.op("aten.sub.Tensor", {nodeArg(e.mul(px, nodeArg(unary(e, "aten.cos.default", nodeArg(px))))),
                                         nodeArg(unary(e, "aten.sin.default", nodeArg(px)))});
    Node* bottom = e.mul(px, c.arg(0));
    Node* q = div(e, top, bottom);
    Node* zero = e.op("aten.eq.Scalar", {c.arg(0), num(0.0)});
    Node* safe = e.op("aten.masked_fill.Scalar", {nodeArg(q), nodeArg(zero), num(0.0)});
    c.give(0, e.mul(c.grad(), nodeArg(safe)));
}

// deg2rad: grad * (M_PI / 180); rad2deg: grad * (180 / M_PI).
void deg2rad(VjpCall& c) { c.give(0, mulS(c.e, c.grad(), std::numbers::pi / 180.0)); }
void rad2deg(VjpCall& c) { c.give(0, mulS(c.e, c.grad(), 180.0 / std::numbers::pi)); }

// angle (real): angle_backward: zeros_like(self).
void angle(VjpCall& c) { c.give(0, c.e.op("aten.zeros_like.default", {c.arg(0)})); }

// nan_to_num: grad * at::isfinite(self); isfinite as abs(self) < inf (false for NaN and +-inf),
// fxray having no isfinite op.
void nanToNum(VjpCall& c) {
    Node* fin = c.e.op("aten.lt.Scalar", {nodeArg(unary(c.e, "aten.abs.default", c.arg(0))),
                                          num(std::numeric_limits<double>::infinity())});
    c.give(0, c.e.mul(c.grad(), nodeArg(fin)));
}

// logit(self, eps): logit_backward(grad, self, eps).
void logit(VjpCall& c) { c.give(0, c.e.op("aten.logit_backward.default", {nodeArg(c.grad()), c.arg(0), c.arg(1)})); }

}  // namespace

void addUnaryVjps(std::vector<VjpRule>& out) {
    for (auto op : {"aten.ceil.default", "aten.floor.default", "aten.round.default", "aten.round.decimals",
                    "aten.trunc.default", "aten.sign.default", "aten.sgn.default"})
        out.push_back({op, zeroGrad});
    out.push_back({"aten.frac.default", passGrad});
    out.push_back({"aten.abs.default", abs});
    out.push_back({"aten.sin.default", sin});
    out.push_back({"aten.cos.default", cos});
    out.push_back({"aten.tan.default", tan, true});
    out.push_back({"aten.sinh.default", sinh});
    out.push_back({"aten.cosh.default", cosh});
    out.push_back({"aten.asin.default", asin});
    out.push_back({"aten.acos.default", acos});
    out.push_back({"aten.atan.default", atan});
    out.push_back({"aten.asinh.default", asinh});
    out.push_back({"aten.acosh.default", acosh});
    out.push_back({"aten.atanh.default", atanh});
    out.push_back({"aten.expm1.default", expm1, true});
    out.push_back({"aten.exp2.default", exp2, true});
    out.push_back({"aten.log1p.default", log1p});
    out.push_back({"aten.log2.default", log2});
    out.push_back({"aten.log10.default", log10});
    out.push_back({"aten.erfc.default", erfc});
    out.push_back({"aten.erfinv.default", erfinv});
    out.push_back({"aten.digamma.default", digamma});
    out.push_back({"aten.lgamma.default", lgamma});
    out.push_back({"aten.polygamma.default", polygamma});
    out.push_back({"aten.mvlgamma.default", mvlgamma});
    out.push_back({"aten.i0.default", i0});
    out.push_back({"aten.sinc.default", sinc});
    out.push_back({"aten.deg2rad.default", deg2rad});
    out.push_back({"aten.rad2deg.default", rad2deg});
    out.push_back({"aten.angle.default", angle});
    out.push_back({"aten.nan_to_num.default", nanToNum});
    out.push_back({"aten.logit.default", logit});
}

}  // namespace fxray
