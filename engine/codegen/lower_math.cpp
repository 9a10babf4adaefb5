// Lowerings of elementwise math with PyTorch's semantics: trigonometric, hyperbolic and special
// functions, rounding, classification (isnan, isinf, signbit), two-operand math (atan2, hypot,
// copysign, fmax, logaddexp, xlogy, remainder, fmod, floor_divide), bitwise and logical ops,
// clamps with tensor bounds, masked_fill, lerp/addcmul/addcdiv. Float-only functions compute in
// the output's compute type (integer inputs are promoted first, as the output dtype says).
#include "codegen/lower_pw.h"

#include <cfloat>
#include <cmath>

namespace fxray::cg {

namespace {

using namespace pwl;

constexpr double kPi = 3.14159265358979323846;
constexpr double kLn2 = 0.69314718055994530942;

ExprP un(Op op, ExprP a) { return eunary(op, std::move(a)); }
ExprP bin(Op op, ExprP a, ExprP b) { return ebinary(op, std::move(a), std::move(b)); }
ExprP isNan(const ExprP& x) { return un(Op::IsNan, x); }
ExprP orB(ExprP a, ExprP b) { return bin(Op::Or, std::move(a), std::move(b)); }
ExprP andB(ExprP a, ExprP b) { return bin(Op::And, std::move(a), std::move(b)); }

/// f(x) for a floating output (sin, log2, ...); integer inputs are converted to it first.
std::optional<LValue> floatUnary(LowerCtx& c, Fn f) {
    if (!c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    return pw(c, {0}, std::move(f));
}

std::optional<LValue> floatUnaryOp(LowerCtx& c, Op op) {
    return floatUnary(c, [op](const auto& v) { return un(op, v[0]); });
}

/// Rounding: the op on floats, the identity on integers and bool.
std::optional<LValue> rounding(LowerCtx& c, Op op) {
    if (!c.out().isTensor()) return std::nullopt;
    bool fl = isFloating(c.outMeta().dtype);
    return pw(c, {0}, [op, fl](const auto& v) { return fl ? un(op, v[0]) : v[0]; });
}

/// A predicate of input 0 (computed in the input's type) into a bool output.
std::optional<LValue> predicate(LowerCtx& c, std::function<ExprP(const ExprP&)> f) {
    if (!c.args()[0].isTensor() || !c.out().isTensor()) return std::nullopt;
    DType it = c.args()[0].t.dtype();
    if (isComplex(it)) return std::nullopt;
    return pw(
        c, {0}, [f](const auto& v) { return f(v[0]); }, it);
}

// digamma, trigamma and the Hurwitz zeta function as PyTorch's CUDA kernels compute them
// (ATen's Math.cuh), their loops unrolled into selects: the recorded outputs come from there.

ExprP sel(const ExprP& c, const ExprP& a, const ExprP& b) { return ewhere(c, a, b); }

ExprP digamma(ExprP x) {
    const double A[] = {8.33333333333333333333E-2,  -2.10927960927960927961E-2, 7.57575757575757575758E-3,
                        -4.16666666666666666667E-3, 3.96825396825396825397E-3,  -8.33333333333333333333E-3,
                        8.33333333333333333333E-2};
    ExprP x0 = x;
    ExprP neg = bin(Op::Lt, x, k(0, x));
    // x < 0: -pi / tan(pi * frac(x)) and digamma(1 - x)
    ExprP r = sub(x, un(Op::Trunc, x));
    ExprP result = sel(neg, un(Op::Neg, bin(Op::Div, k(kPi, x), un(Op::Tan, mul(k(kPi, x), r)))), k(0, x));
    x = sel(neg, sub(k(1, x), x), x);
    // while (x < 10) { result -= 1 / x; x += 1; }: at most 10 rounds, each reading x + i (a
    // chain of selects would grow the expression tree exponentially)
    ExprP steps = k(0, x);
    for (int i = 0; i < 10; ++i) {
        ExprP xi = add(x, k(i, x));
        ExprP lt = bin(Op::Lt, xi, k(10, x));
        result = sub(result, sel(lt, bin(Op::Div, k(1, x), xi), k(0, x)));
        steps = add(steps, sel(lt, k(1, x), k(0, x)));
    }
    x = add(x, steps);
    ExprP z = bin(Op::Div, k(1, x), mul(x, x));
    ExprP poly = k(A[0], x);
    for (int i = 1; i < 7; ++i) poly = add(mul(poly, z), k(A[i], x));
    ExprP y = sel(bin(Op::Lt, x, k(1e17, x)), mul(z, poly), k(0, x));
    ExprP asym = sub(sub(add(result, un(Op::Log, x)), bin(Op::Div, k(0.5, x), x)), y);
    ExprP v = sel(bin(Op::Eq, x, k(10, x)), add(result, k(2.25175258906672110764, x)), asym);
    v = sel(andB(neg, bin(Op::Eq, x0, un(Op::Trunc, x0))), k(NAN, x), v);
    return sel(bin(Op::Eq, x0, k(0, x0)), bin(Op::Copysign, k(INFINITY, x0), un(Op::Neg, x0)), v);
}

ExprP trigamma(ExprP x) {
    ExprP small = bin(Op::Lt, x, k(0.5, x));
    ExprP sinpx = un(Op::Sin, mul(k(kPi, x), x));
    ExprP result = sel(small, un(Op::Neg, bin(Op::Div, k(kPi * kPi, x), mul(sinpx, sinpx))), k(0, x));
    ExprP sign = sel(small, k(-1, x), k(1, x));
    x = sel(small, sub(k(1, x), x), x);
    for (int i = 0; i < 6; ++i) {
        result = add(result, bin(Op::Div, k(1, x), mul(x, x)));
        x = add(x, k(1, x));
    }
    ExprP ixx = bin(Op::Div, k(1, x), mul(x, x));
    ExprP inner = sub(k(1.0 / 30, x), mul(ixx, k(1.0 / 42, x)));
    ExprP series =
        add(add(k(1, x), bin(Op::Div, k(1, x), mul(k(2, x), x))), mul(ixx, sub(k(1.0 / 6, x), mul(ixx, inner))));
    result = add(result, bin(Op::Div, series, x));
    return mul(sign, result);
}

/// zeta(s, q) for a constant integer s >= 2. Without PyTorch's early exits (terms below
/// 1.1e-16 of the sum), which would chain every round's selects into an exponentially large
/// expression tree; the rounds are read as q + i instead of a running a += 1.
ExprP zeta(double sv, ExprP q) {
    const double A[] = {12.0,
                        -720.0,
                        30240.0,
                        -1209600.0,
                        47900160.0,
                        -1.8924375803183791606e9,
                        7.47242496e10,
                        -2.950130727918164224e12,
                        1.1646782814350067249e14,
                        -4.5979787224074726105e15,
                        1.8152105401943546773e17,
                        -7.1661652561756670113e18};
    ExprP xs = k(sv, q), nx = k(-sv, q);
    ExprP s = bin(Op::Pow, q, nx), rounds = k(0, q);
    // while (i < 9 || a <= 9) { a += 1; s += a^-x }: 9 rounds, more for q < 0 (to q > -10)
    for (int i = 1; i <= 28; ++i) {
        ExprP run = i <= 9 ? econst(1, DType::Bool) : bin(Op::Le, add(q, k(i - 1, q)), k(9, q));
        s = add(s, sel(run, bin(Op::Pow, add(q, k(i, q)), nx), k(0, q)));
        rounds = add(rounds, sel(run, k(1, q), k(0, q)));
    }
    ExprP w = add(q, rounds);
    ExprP b = bin(Op::Pow, w, nx);
    ExprP tail = sub(add(s, bin(Op::Div, mul(b, w), k(sv - 1, w))), mul(k(0.5, b), b));
    ExprP ta = k(1, q), tb = b;
    double kk = 0;
    for (int i = 0; i < 12; ++i) {
        ta = mul(ta, add(xs, k(kk, q)));
        tb = bin(Op::Div, tb, w);
        tail = add(tail, bin(Op::Div, mul(ta, tb), k(A[i], q)));
        kk += 1;
        ta = mul(ta, add(xs, k(kk, q)));
        tb = bin(Op::Div, tb, w);
        kk += 1;
    }
    ExprP qint = bin(Op::Eq, q, un(Op::Floor, q));
    return sel(andB(bin(Op::Le, q, k(0, q)), qint), k(INFINITY, q), tail);
}

/// f(a, b) for a floating output.
std::optional<LValue> floatBinary(LowerCtx& c, Fn f) {
    if (!c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    return pw(c, {0, 1}, std::move(f));
}

/// A divisor that is never zero (integer division by zero is undefined in the generated code;
/// PyTorch raises there, so the value is never compared).
ExprP safeDivisor(const ExprP& y) { return ewhere(bin(Op::Eq, y, k(0, y)), k(1, y), y); }

/// fmax/fmin: NaN only where both operands are NaN.
ExprP nanIgnoring(Op op, const ExprP& a, const ExprP& b) {
    if (!isFloating(a->type)) return bin(op, a, b);
    return ewhere(isNan(a), b, ewhere(isNan(b), a, bin(op, a, b)));
}

/// PyTorch's div_floor_floating: floor division that agrees with Python's // on floats.
ExprP floorDivFloat(const ExprP& a, const ExprP& b) {
    ExprP mod = bin(Op::Fmod, a, b);
    ExprP div = bin(Op::Div, sub(a, mod), b);
    ExprP fix = andB(bin(Op::Ne, mod, k(0, mod)), bin(Op::Ne, bin(Op::Lt, b, k(0, b)), bin(Op::Lt, mod, k(0, mod))));
    div = ewhere(fix, sub(div, k(1, div)), div);
    ExprP fl = un(Op::Floor, div);
    fl = ewhere(bin(Op::Gt, sub(div, fl), k(0.5, div)), add(fl, k(1, fl)), fl);
    ExprP q = bin(Op::Div, a, b);
    ExprP r = ewhere(bin(Op::Ne, div, k(0, div)), fl, bin(Op::Copysign, k(0, q), q));
    return ewhere(bin(Op::Eq, b, k(0, b)), q, r);
}

ExprP logaddexp(const ExprP& a, const ExprP& b, bool base2) {
    ExprP m = bin(Op::Max, a, b);
    ExprP d = un(Op::Neg, un(Op::Abs, sub(a, b)));
    ExprP r =
        base2 ? add(m, mul(un(Op::Log1p, un(Op::Exp2, d)), k(1.0 / kLn2, d))) : add(m, un(Op::Log1p, un(Op::Exp, d)));
    ExprP sameInf = andB(bin(Op::Eq, un(Op::Abs, a), k(INFINITY, a)), bin(Op::Eq, a, b));
    return ewhere(sameInf, a, r);
}

ExprP xlogy(const ExprP& x, const ExprP& y) {
    return ewhere(isNan(y), y, ewhere(bin(Op::Eq, x, k(0, x)), k(0, x), mul(x, un(Op::Log, y))));
}

/// PyTorch's bitwise shifts: left by >= 64 (or negative) gives 0, right saturates at 63.
ExprP shift(bool left, const ExprP& x, const ExprP& y) {
    ExprP out = orB(bin(Op::Lt, y, k(0, y)), bin(Op::Gt, y, k(63, y)));
    if (left) return ewhere(out, k(0, x), bin(Op::Shl, x, ewhere(out, k(0, y), y)));
    return bin(Op::Shr, x, ewhere(out, k(63, y), y));
}

std::optional<LValue> integerOrBool(LowerCtx& c, const std::vector<size_t>& idx, Fn f) {
    if (!c.out().isTensor() || isFloating(c.outMeta().dtype)) return std::nullopt;
    return pw(c, idx, std::move(f));
}

/// clamp with optional tensor or number bounds at positions 1 and 2 (clamp.Tensor,
/// clamp_min.Tensor, clamp_max.Tensor): maximum/minimum, which propagate NaN.
std::optional<LValue> clampTensor(LowerCtx& c, bool hasLo, bool hasHi) {
    std::vector<size_t> idx{0};
    bool lo = hasLo && !c.args().isNone(1), hi = hasHi && !c.args().isNone(hasLo ? 2 : 1);
    if (lo) idx.push_back(1);
    if (hi) idx.push_back(hasLo ? 2 : 1);
    return pw(c, idx, [lo, hi](const auto& v) {
        ExprP x = v[0];
        if (lo) x = bin(Op::Max, x, v[1]);
        if (hi) x = bin(Op::Min, x, v[lo ? 2 : 1]);
        return x;
    });
}

/// masked_fill(self, mask, value): value where mask is set, else self.
std::optional<LValue> maskedFill(LowerCtx& c) {
    if (!c.out().isTensor()) return std::nullopt;
    auto self = opnd(c, 0), mask = opnd(c, 1), value = opnd(c, 2);
    if (!self || !mask || !value || isComplex(c.outMeta().dtype) || isComplex(self->dtype)) return std::nullopt;
    DType od = c.outMeta().dtype, ct = computeType(od);
    std::vector<int> inputs;
    for (auto* o : {&*self, &*mask, &*value})
        if (o->id >= 0) inputs.push_back(o->id);
    Operand os = *self, om = *mask, ov = *value;
    return tensorValue(c.pointwise(c.outMeta(), inputs, [=](Loader& L, const std::vector<Index>& x) {
        // The fill value is converted to self's dtype first (a float into an int tensor truncates).
        return ewhere(om.get(L, x, DType::Bool), eto(ecast(ov.get(L, x, computeType(ov.dtype)), od), ct),
                      os.get(L, x, ct));
    }));
}

/// The modified Bessel function I_nu(x), nu = 0 or 1, in fp64: the power series
/// (x/2)^nu sum_k (x^2/4)^k / (k! (k+nu)!) nested Horner-style for |x| <= 15 (all terms positive,
/// 50 of them reach 1e-29 of the sum there), Hankel's asymptotic expansion
/// e^|x| / sqrt(2 pi |x|) sum_k c_k |x|^-k (20 terms, within 1e-12 past 15) beyond. Both are
/// chains with no shared subtrees, which the kernel IR's tree walks need; Cephes' Chebyshev
/// recurrences, what PyTorch evaluates, would share every step twice. I1 is odd, I0 even.
ExprP besselI(int nu, const ExprP& in) {
    const DType F = DType::Float64;
    auto kf = [F](double d) { return econst(d, F); };
    ExprP x = eto(in, F);
    ExprP ax = un(Op::Abs, x);
    ExprP y = mul(mul(ax, ax), kf(0.25));
    ExprP r = kf(1);
    for (int j = 50; j >= 1; --j) r = add(kf(1), bin(Op::Div, mul(y, r), kf(double(j) * double(j + nu))));
    ExprP series = nu == 0 ? r : mul(mul(ax, kf(0.5)), r);
    const int K = 20;
    std::vector<double> c{1.0};
    for (int j = 1; j <= K; ++j)
        c.push_back(c.back() * -(4.0 * nu * nu - double(2 * j - 1) * double(2 * j - 1)) / (8.0 * j));
    ExprP t = bin(Op::Div, kf(1), ax);
    ExprP p = kf(c[K]);
    for (int j = K - 1; j >= 0; --j) p = add(kf(c[static_cast<size_t>(j)]), mul(p, t));
    ExprP big = mul(bin(Op::Div, un(Op::Exp, ax), un(Op::Sqrt, mul(kf(2 * kPi), ax))), p);
    big = sel(bin(Op::Eq, ax, kf(INFINITY)), kf(INFINITY), big);
    ExprP v = sel(bin(Op::Le, ax, kf(15)), series, big);
    if (nu == 1) v = sel(bin(Op::Lt, x, kf(0)), un(Op::Neg, v), v);
    return eto(v, in->type);
}

}  // namespace

void addMathLowerings(std::map<std::string, LowerFn>& t) {
    // frexp(self) -> (mantissa, exponent): x = m * 2^e with 0.5 <= |m| < 1 (0, inf and NaN keep
    // m = x, e = 0). e from floor(log2 |x|) + 1 in fp64, corrected by one where log2 rounded
    // across a power of two.
    t["aten.frexp.Tensor"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int x = c.in(0);
        if (x < 0 || !c.out().isList() || c.out().list.size() != 2 || !isFloating(c.meta(x).dtype)) return std::nullopt;
        const DType F = DType::Float64, I = DType::Int64;
        auto parts = [x, F, I](Loader& L, const std::vector<Index>& co, bool wantExponent) {
            ExprP v = eto(L.load(x, co), F);
            ExprP a = eunary(Op::Abs, v);
            ExprP special = ebinary(Op::Or, ebinary(Op::Eq, a, econst(0, F)),
                                    ebinary(Op::Or, eunary(Op::IsNan, v), ebinary(Op::Eq, a, econst(INFINITY, F))));
            ExprP e = ebinary(Op::Add, eunary(Op::Floor, eunary(Op::Log2, a)), econst(1, F));
            ExprP m = ebinary(Op::Mul, v, eunary(Op::Exp2, eunary(Op::Neg, e)));
            ExprP am = eunary(Op::Abs, m);
            ExprP big = ebinary(Op::Ge, am, econst(1, F)), small = ebinary(Op::Lt, am, econst(0.5, F));
            e = ewhere(big, ebinary(Op::Add, e, econst(1, F)), ewhere(small, ebinary(Op::Sub, e, econst(1, F)), e));
            m = ewhere(big, ebinary(Op::Mul, m, econst(0.5, F)), ewhere(small, ebinary(Op::Mul, m, econst(2, F)), m));
            if (wantExponent) return ewhere(special, econst(0, I), eto(e, I));
            return ewhere(special, v, m);
        };
        LValue r;
        r.kind = LValue::Kind::List;
        r.isTuple = true;
        const DType mt = computeType(c.outMeta(0).dtype);
        r.items.push_back(tensorValue(c.pointwise(
            c.outMeta(0), {x},
            [parts, mt](Loader& L, const std::vector<Index>& co) { return eto(parts(L, co, false), mt); },
            ".mantissa")));
        r.items.push_back(tensorValue(c.pointwise(
            c.outMeta(1), {x}, [parts](Loader& L, const std::vector<Index>& co) { return parts(L, co, true); },
            ".exponent")));
        return r;
    };
    // ----- float functions -----
    // erfinv: Giles' single-precision approximation refined by two Newton steps on erf in fp64;
    // +-1 give +-inf, |x| > 1 and NaN give NaN.
    t["aten.erfinv.default"] = [](LowerCtx& c) {
        return floatUnary(c, [](const auto& v) {
            const DType F = DType::Float64;
            auto k = [F](double d) { return econst(d, F); };
            auto add = [](ExprP a, ExprP b) { return ebinary(Op::Add, std::move(a), std::move(b)); };
            auto mul = [](ExprP a, ExprP b) { return ebinary(Op::Mul, std::move(a), std::move(b)); };
            ExprP x = eto(v[0], F);
            ExprP w = eunary(Op::Neg, eunary(Op::Log, mul(ebinary(Op::Sub, k(1), x), add(k(1), x))));
            auto horner = [&](const std::vector<double>& cs, ExprP u) {
                ExprP p = k(cs[0]);
                for (size_t i = 1; i < cs.size(); ++i) p = add(k(cs[i]), mul(p, u));
                return p;
            };
            ExprP central = horner({2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                                    -0.00125372503, -0.00417768164, 0.246640727, 1.50140941},
                                   ebinary(Op::Sub, w, k(2.5)));
            ExprP tail = horner({-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                                 -0.0076224613, 0.00943887047, 1.00167406, 2.83297682},
                                ebinary(Op::Sub, eunary(Op::Sqrt, w), k(3)));
            ExprP y = mul(ewhere(ebinary(Op::Lt, w, k(5)), central, tail), x);
            for (int step = 0; step < 2; ++step) {
                ExprP err = ebinary(Op::Sub, eunary(Op::Erf, y), x);
                ExprP slope = mul(k(1.1283791670955126), eunary(Op::Exp, eunary(Op::Neg, mul(y, y))));
                y = ebinary(Op::Sub, y, ebinary(Op::Div, err, slope));
            }
            ExprP a = eunary(Op::Abs, x);
            y = ewhere(ebinary(Op::Eq, a, k(1)), ebinary(Op::Copysign, k(INFINITY), x), y);
            y = ewhere(ebinary(Op::Gt, a, k(1)), k(NAN), y);
            return eto(y, v[0]->type);
        });
    };
    t["aten.sin.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Sin); };
    t["aten.cos.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Cos); };
    t["aten.tan.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Tan); };
    t["aten.asin.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Asin); };
    t["aten.acos.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Acos); };
    t["aten.atan.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Atan); };
    t["aten.sinh.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Sinh); };
    t["aten.cosh.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Cosh); };
    t["aten.asinh.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Asinh); };
    t["aten.acosh.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Acosh); };
    t["aten.atanh.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Atanh); };
    t["aten.erfc.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Erfc); };
    t["aten.log2.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Log2); };
    t["aten.log10.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Log10); };
    t["aten.exp2.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Exp2); };
    t["aten.expm1.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Expm1); };
    t["aten.log1p.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Log1p); };
    t["aten.lgamma.default"] = [](LowerCtx& c) { return floatUnaryOp(c, Op::Lgamma); };
    t["aten.sinc.default"] = [](LowerCtx& c) {
        return floatUnary(c, [](const auto& v) {
            ExprP p = mul(v[0], k(kPi, v[0]));
            return ewhere(bin(Op::Eq, v[0], k(0, v[0])), k(1, v[0]), bin(Op::Div, un(Op::Sin, p), p));
        });
    };
    t["aten.deg2rad.default"] = [](LowerCtx& c) {
        return floatUnary(c, [](const auto& v) { return mul(v[0], k(kPi / 180.0, v[0])); });
    };
    t["aten.rad2deg.default"] = [](LowerCtx& c) {
        return floatUnary(c, [](const auto& v) { return mul(v[0], k(180.0 / kPi, v[0])); });
    };
    t["aten.frac.default"] = [](LowerCtx& c) {
        return floatUnary(c, [](const auto& v) { return sub(v[0], un(Op::Trunc, v[0])); });
    };
    t["aten.angle.default"] = [](LowerCtx& c) {
        return floatUnary(c, [](const auto& v) {
            const ExprP& x = v[0];
            return ewhere(isNan(x), x, ewhere(bin(Op::Lt, x, k(0, x)), k(kPi, x), k(0, x)));
        });
    };
    t["aten.logit.default"] = [](LowerCtx& c) {
        std::optional<double> eps = optScalar(c, 1);
        return floatUnary(c, [eps](const auto& v) {
            ExprP x = v[0];
            if (eps) {
                ExprP lo = k(*eps, x), hi = k(1.0 - *eps, x);
                x = ewhere(bin(Op::Lt, x, lo), lo, ewhere(bin(Op::Gt, x, hi), hi, x));
            }
            return un(Op::Log, bin(Op::Div, x, sub(k(1, x), x)));
        });
    };

    t["aten.mvlgamma.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.args()[1].isNumber()) return std::nullopt;
        int64_t p = c.args().toInt(1);
        if (p < 1) return std::nullopt;
        return floatUnary(c, [p](const auto& v) {
            const ExprP& x = v[0];
            ExprP r = k(static_cast<double>(p * (p - 1)) / 4.0 * std::log(kPi), x);
            for (int64_t i = 0; i < p; ++i) r = add(r, un(Op::Lgamma, sub(x, k(static_cast<double>(i) / 2.0, x))));
            return r;
        });
    };

    t["aten.digamma.default"] = [](LowerCtx& c) { return floatUnary(c, [](const auto& v) { return digamma(v[0]); }); };
    t["aten.i0.default"] = [](LowerCtx& c) { return floatUnary(c, [](const auto& v) { return besselI(0, v[0]); }); };
    t["aten.special_i1.default"] = [](LowerCtx& c) {
        return floatUnary(c, [](const auto& v) { return besselI(1, v[0]); });
    };
    t["aten.polygamma.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (int n, Tensor self)
        if (!c.args()[0].isNumber() || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
        int64_t n = c.args().toInt(0);
        if (n < 0) return std::nullopt;
        double factor = (n % 2 ? 1.0 : -1.0) * std::exp(std::lgamma(static_cast<double>(n) + 1.0));
        return pw(c, {1}, [n, factor](const auto& v) {
            if (n == 0) return digamma(v[0]);
            if (n == 1) return trigamma(v[0]);
            return mul(k(factor, v[0]), zeta(static_cast<double>(n + 1), v[0]));
        });
    };

    // ----- rounding, sign, classification -----
    t["aten.floor.default"] = [](LowerCtx& c) { return rounding(c, Op::Floor); };
    t["aten.ceil.default"] = [](LowerCtx& c) { return rounding(c, Op::Ceil); };
    t["aten.trunc.default"] = [](LowerCtx& c) { return rounding(c, Op::Trunc); };
    t["aten.round.default"] = [](LowerCtx& c) { return rounding(c, Op::Round); };
    t["aten.round.decimals"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.out().isTensor() || !isFloating(c.outMeta().dtype) || !c.args()[1].isNumber()) return std::nullopt;
        int64_t d = c.args().toInt(1);
        double tenPow = std::pow(10.0, static_cast<double>(d < 0 ? -d : d));
        return pw(c, {0}, [d, tenPow](const auto& v) {
            const ExprP& x = v[0];
            if (d < 0) return mul(un(Op::Round, bin(Op::Div, x, k(tenPow, x))), k(tenPow, x));
            return bin(Op::Div, un(Op::Round, mul(x, k(tenPow, x))), k(tenPow, x));
        });
    };
    t["aten.sign.default"] = t["aten.sgn.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.out().isTensor()) return std::nullopt;
        bool bl = c.outMeta().dtype == DType::Bool;
        return pw(c, {0}, [bl](const auto& v) { return bl ? v[0] : un(Op::Sign, v[0]); });
    };
    t["aten.isnan.default"] = [](LowerCtx& c) { return predicate(c, [](const ExprP& x) { return isNan(x); }); };
    t["aten.isinf.default"] = [](LowerCtx& c) {
        return predicate(c, [](const ExprP& x) {
            return isFloating(x->type) ? bin(Op::Eq, un(Op::Abs, x), k(INFINITY, x)) : econst(0, DType::Bool);
        });
    };
    t["aten.isposinf.default"] = [](LowerCtx& c) {
        return predicate(c, [](const ExprP& x) {
            return isFloating(x->type) ? bin(Op::Eq, x, k(INFINITY, x)) : econst(0, DType::Bool);
        });
    };
    t["aten.isneginf.default"] = [](LowerCtx& c) {
        return predicate(c, [](const ExprP& x) {
            return isFloating(x->type) ? bin(Op::Eq, x, k(-INFINITY, x)) : econst(0, DType::Bool);
        });
    };
    t["aten.signbit.default"] = [](LowerCtx& c) {
        return predicate(c, [](const ExprP& x) {
            if (x->type == DType::Bool) return econst(0, DType::Bool);
            if (!isFloating(x->type)) return bin(Op::Lt, x, k(0, x));
            return bin(Op::Lt, bin(Op::Copysign, k(1, x), x), k(0, x));
        });
    };
    t["aten.nan_to_num.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.out().isTensor()) return std::nullopt;
        DType od = c.outMeta().dtype;
        if (!isFloating(od)) return pw(c, {0}, [](const auto& v) { return v[0]; });
        double big = od == DType::Float16    ? 65504.0
                     : od == DType::BFloat16 ? 3.3895313892515355e38
                     : od == DType::Float32  ? static_cast<double>(FLT_MAX)
                                             : DBL_MAX;
        double nan = optScalar(c, 1).value_or(0.0), pinf = optScalar(c, 2).value_or(big),
               ninf = optScalar(c, 3).value_or(-big);
        return pw(c, {0}, [=](const auto& v) {
            const ExprP& x = v[0];
            return ewhere(isNan(x), k(nan, x),
                          ewhere(bin(Op::Eq, x, k(INFINITY, x)), k(pinf, x),
                                 ewhere(bin(Op::Eq, x, k(-INFINITY, x)), k(ninf, x), x)));
        });
    };

    // ----- two-operand math -----
    t["aten.atan2.default"] = [](LowerCtx& c) {
        return floatBinary(c, [](const auto& v) { return bin(Op::Atan2, v[0], v[1]); });
    };
    t["aten.hypot.default"] = [](LowerCtx& c) {
        return floatBinary(c, [](const auto& v) { return bin(Op::Hypot, v[0], v[1]); });
    };
    t["aten.copysign.Tensor"] = t["aten.copysign.Scalar"] = [](LowerCtx& c) {
        return floatBinary(c, [](const auto& v) { return bin(Op::Copysign, v[0], v[1]); });
    };
    t["aten.nextafter.default"] = [](LowerCtx& c) {
        return floatBinary(c, [](const auto& v) { return bin(Op::NextAfter, v[0], v[1]); });
    };
    t["aten.logaddexp.default"] = [](LowerCtx& c) {
        return floatBinary(c, [](const auto& v) { return logaddexp(v[0], v[1], false); });
    };
    t["aten.logaddexp2.default"] = [](LowerCtx& c) {
        return floatBinary(c, [](const auto& v) { return logaddexp(v[0], v[1], true); });
    };
    t["aten.xlogy.Tensor"] = t["aten.xlogy.Scalar_Other"] = t["aten.xlogy.Scalar_Self"] = [](LowerCtx& c) {
        return floatBinary(c, [](const auto& v) { return xlogy(v[0], v[1]); });
    };
    t["aten.ldexp.Tensor"] = [](LowerCtx& c) {
        return floatBinary(c, [](const auto& v) { return mul(v[0], un(Op::Exp2, v[1])); });
    };
    t["aten.pow.Scalar"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
        return pw(c, {0, 1}, [](const auto& v) { return bin(Op::Pow, v[0], v[1]); });
    };
    t["aten.fmax.default"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) { return nanIgnoring(Op::Max, v[0], v[1]); });
    };
    t["aten.fmin.default"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) { return nanIgnoring(Op::Min, v[0], v[1]); });
    };
    t["aten.heaviside.default"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) {
            const ExprP& x = v[0];
            return ewhere(bin(Op::Eq, x, k(0, x)), v[1], eto(bin(Op::Gt, x, k(0, x)), x->type));
        });
    };
    t["aten.remainder.Tensor"] = t["aten.remainder.Scalar"] = t["aten.remainder.Scalar_Tensor"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) {
            if (isFloating(v[0]->type)) return bin(Op::ModOp, v[0], v[1]);
            return bin(Op::ModOp, v[0], safeDivisor(v[1]));
        });
    };
    t["aten.fmod.Tensor"] = t["aten.fmod.Scalar"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) {
            if (isFloating(v[0]->type)) return bin(Op::Fmod, v[0], v[1]);
            return bin(Op::Fmod, v[0], safeDivisor(v[1]));
        });
    };
    t["aten.floor_divide.default"] = t["aten.floor_divide.Scalar"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) {
            if (isFloating(v[0]->type)) return floorDivFloat(v[0], v[1]);
            return bin(Op::FloorDivOp, v[0], safeDivisor(v[1]));
        });
    };
    t["aten.lerp.Scalar"] = t["aten.lerp.Tensor"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
        return pw(c, {0, 1, 2}, [](const auto& v) {
            const ExprP &a = v[0], &b = v[1], &w = v[2];
            ExprP d = sub(b, a);
            return ewhere(bin(Op::Lt, un(Op::Abs, w), k(0.5, w)), add(a, mul(w, d)), sub(b, mul(d, sub(k(1, w), w))));
        });
    };
    t["aten.addcmul.default"] = [](LowerCtx& c) {
        double value = scalarArg(c, 3, 1.0);
        return pw(c, {0, 1, 2}, [value](const auto& v) { return add(v[0], mul(mul(k(value, v[1]), v[1]), v[2])); });
    };
    t["aten.addcdiv.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
        double value = scalarArg(c, 3, 1.0);
        return pw(c, {0, 1, 2},
                  [value](const auto& v) { return add(v[0], mul(k(value, v[1]), bin(Op::Div, v[1], v[2]))); });
    };

    t["aten.addr.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (self, vec1, vec2, *, beta=1, alpha=1): beta*self + alpha*outer(vec1, vec2); beta == 0
        // ignores self.
        if (!c.out().isTensor() || c.outMeta().dtype == DType::Bool || c.outMeta().shape.size() != 2)
            return std::nullopt;
        double beta = scalarArg(c, 3, 1.0), alpha = scalarArg(c, 4, 1.0);
        auto self = opnd(c, 0), v1 = opnd(c, 1), v2 = opnd(c, 2);
        if (!self || !v1 || !v2 || v1->id < 0 || v2->id < 0 || isComplex(c.outMeta().dtype)) return std::nullopt;
        DType ct = computeType(c.outMeta().dtype);
        Operand os = *self, o1 = *v1, o2 = *v2;
        std::vector<int> inputs{o1.id, o2.id};
        if (os.id >= 0) inputs.push_back(os.id);
        return tensorValue(c.pointwise(c.outMeta(), inputs, [=](Loader& L, const std::vector<Index>& x) {
            ExprP outer = mul(o1.get(L, {x[0]}, ct), o2.get(L, {x[1]}, ct));
            ExprP r = alpha == 1.0 ? outer : mul(k(alpha, outer), outer);
            if (beta == 0.0) return r;
            ExprP sv = os.get(L, x, ct);
            return add(beta == 1.0 ? sv : mul(k(beta, sv), sv), r);
        }));
    };

    // ----- bitwise and logical -----
    t["aten.bitwise_and.Tensor"] = t["aten.bitwise_and.Scalar"] = [](LowerCtx& c) {
        return integerOrBool(c, {0, 1}, [](const auto& v) { return bin(Op::And, v[0], v[1]); });
    };
    t["aten.bitwise_or.Tensor"] = t["aten.bitwise_or.Scalar"] = [](LowerCtx& c) {
        return integerOrBool(c, {0, 1}, [](const auto& v) { return bin(Op::Or, v[0], v[1]); });
    };
    t["aten.bitwise_xor.Tensor"] = t["aten.bitwise_xor.Scalar"] = [](LowerCtx& c) {
        return integerOrBool(c, {0, 1}, [](const auto& v) { return bin(Op::Xor, v[0], v[1]); });
    };
    t["aten.bitwise_not.default"] = [](LowerCtx& c) {
        // Op::Not is logical (its result is bool): integers flip their bits as x ^ -1.
        return integerOrBool(c, {0}, [](const auto& v) {
            return v[0]->type == DType::Bool ? un(Op::Not, v[0]) : bin(Op::Xor, v[0], econst(-1.0, v[0]->type));
        });
    };
    t["aten.bitwise_left_shift.Tensor"] =
        t["aten.bitwise_left_shift.Tensor_Scalar"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.out().isTensor() || !isIntegral(c.outMeta().dtype, false)) return std::nullopt;
        return pw(c, {0, 1}, [](const auto& v) { return shift(true, v[0], v[1]); });
    };
    t["aten.bitwise_right_shift.Tensor"] =
        t["aten.bitwise_right_shift.Tensor_Scalar"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.out().isTensor() || !isIntegral(c.outMeta().dtype, false)) return std::nullopt;
        return pw(c, {0, 1}, [](const auto& v) { return shift(false, v[0], v[1]); });
    };
    t["aten.logical_or.default"] = [](LowerCtx& c) {
        return pw(
            c, {0, 1}, [](const auto& v) { return orB(v[0], v[1]); }, DType::Bool);
    };
    t["aten.logical_xor.default"] = [](LowerCtx& c) {
        return pw(
            c, {0, 1}, [](const auto& v) { return bin(Op::Xor, v[0], v[1]); }, DType::Bool);
    };

    // ----- clamps with tensor bounds, masked_fill -----
    t["aten.clamp.Tensor"] = [](LowerCtx& c) { return clampTensor(c, true, true); };
    t["aten.clamp_min.Tensor"] = [](LowerCtx& c) { return clampTensor(c, true, false); };
    t["aten.clamp_max.Tensor"] = [](LowerCtx& c) { return clampTensor(c, false, true); };
    t["aten.masked_fill.Scalar"] = t["aten.masked_fill.Tensor"] = maskedFill;
}

}  // namespace fxray::cg
