// Lowerings of pointwise ops: arithmetic, comparisons, selection, activations and their
// backwards, dtype conversions, copies and factories. Each becomes one Pointwise LNode whose
// body computes in the output's compute type (fp32 for fp16/bf16 data).
#include "codegen/lower_pw.h"

#include "exec/ops/creation.h"

#include <cmath>

namespace fxray::cg {

namespace {

using namespace pwl;

std::optional<LValue> addLike(LowerCtx& c, bool subtract, bool reverse) {
    double alpha = scalarArg(c, 2, 1.0);
    return pw(c, {0, 1}, [=](const auto& v) {
        ExprP a = v[0], b = v[1];
        if (reverse) std::swap(a, b);
        if (alpha != 1.0) b = mul(b, k(alpha, b));
        return ebinary(subtract ? Op::Sub : Op::Add, a, b);
    });
}

std::optional<LValue> divLike(LowerCtx& c) {
    std::string mode;
    if (c.args().size() > 2 && c.args()[2].kind == Value::Kind::String) mode = c.args()[2].s;
    DType od = c.outMeta().dtype;
    if (mode.empty()) return pw(c, {0, 1}, [](const auto& v) { return ebinary(Op::Div, v[0], v[1]); });
    if (!isFloating(od)) {
        if (mode == "floor") return pw(c, {0, 1}, [](const auto& v) { return ebinary(Op::FloorDivOp, v[0], v[1]); });
        return std::nullopt;
    }
    Op r = mode == "floor" ? Op::Floor : Op::Trunc;
    return pw(c, {0, 1}, [r](const auto& v) { return eunary(r, ebinary(Op::Div, v[0], v[1])); });
}

std::optional<LValue> compare(LowerCtx& c, Op op) {
    DType t = commonType(c, {0, 1});
    return pw(
        c, {0, 1}, [op](const auto& v) { return ebinary(op, v[0], v[1]); }, t);
}

std::optional<LValue> unary(LowerCtx& c, Op op) {
    if (!isFloating(c.outMeta().dtype) && op != Op::Neg && op != Op::Abs) return std::nullopt;
    return pw(c, {0}, [op](const auto& v) { return eunary(op, v[0]); });
}

ExprP relu(const ExprP& x) {
    // clamp_min(x, 0) propagates NaN: x > 0 || isnan(x) ? x : 0
    ExprP keep = ebinary(Op::Or, ebinary(Op::Gt, x, k(0, x)), eunary(Op::IsNan, x));
    return ewhere(keep, x, k(0, x));
}

ExprP sigmoid(const ExprP& x) { return eunary(Op::Sigmoid, x); }

bool geluIsTanh(LowerCtx& c, size_t i) {
    return i < c.args().size() && c.args()[i].kind == Value::Kind::String && c.args()[i].s == "tanh";
}

constexpr double kSqrt2OverPi = 0.7978845608028654;
constexpr double kKappa = 0.044715;
constexpr double kSqrt1_2 = 0.7071067811865476;
constexpr double kInvSqrt2Pi = 0.3989422804014327;

ExprP gelu(const ExprP& x, bool tanhApprox) {
    if (tanhApprox) {
        ExprP inner = mul(k(kSqrt2OverPi, x), add(x, mul(k(kKappa, x), mul(x, mul(x, x)))));
        return mul(mul(k(0.5, x), x), add(k(1, x), eunary(Op::Tanh, inner)));
    }
    return mul(mul(k(0.5, x), x), add(k(1, x), eunary(Op::Erf, mul(x, k(kSqrt1_2, x)))));
}

ExprP geluBackward(const ExprP& g, const ExprP& x, bool tanhApprox) {
    if (tanhApprox) {
        ExprP x2 = mul(x, x);
        ExprP inner = mul(k(kSqrt2OverPi, x), add(x, mul(k(kKappa, x), mul(x2, x))));
        ExprP t = eunary(Op::Tanh, inner);
        ExprP dInner = mul(k(kSqrt2OverPi, x), add(k(1, x), mul(k(3 * kKappa, x), x2)));
        ExprP left = mul(k(0.5, x), add(k(1, x), t));
        ExprP right = mul(mul(mul(k(0.5, x), x), sub(k(1, x), mul(t, t))), dInner);
        return mul(g, add(left, right));
    }
    ExprP cdf = mul(k(0.5, x), add(k(1, x), eunary(Op::Erf, mul(x, k(kSqrt1_2, x)))));
    ExprP pdf = mul(k(kInvSqrt2Pi, x), eunary(Op::Exp, mul(k(-0.5, x), mul(x, x))));
    return mul(g, add(cdf, mul(x, pdf)));
}

ExprP hardsigmoid(const ExprP& x) {
    ExprP r = ebinary(Op::Min, ebinary(Op::Max, add(x, k(3, x)), k(0, x)), k(6, x));
    return ebinary(Op::Div, r, k(6, x));
}

/// log1p(exp(x)) (mish's softplus, without a threshold, as PyTorch's mish computes it).
ExprP softplus(const ExprP& x) { return eunary(Op::Log1p, eunary(Op::Exp, x)); }

/// lo <= x <= hi
ExprP within(const ExprP& x, double lo, double hi) {
    return ebinary(Op::And, ebinary(Op::Ge, x, k(lo, x)), ebinary(Op::Le, x, k(hi, x)));
}

std::optional<LValue> clampLike(LowerCtx& c, std::optional<double> lo, std::optional<double> hi) {
    return pw(c, {0}, [lo, hi](const auto& v) {
        ExprP x = v[0];
        // NaN propagates: max/min codegen keeps NaN operands.
        if (lo) x = ebinary(Op::Max, x, k(*lo, x));
        if (hi) x = ebinary(Op::Min, x, k(*hi, x));
        return x;
    });
}

/// A copy of input 0 converted to the output dtype (clone, _to_copy, convert_element_type, ...).
std::optional<LValue> copyOf(LowerCtx& c, size_t src = 0) {
    if (!c.out().isTensor()) return std::nullopt;
    DType od = c.outMeta().dtype;
    if (!c.args()[src].isTensor()) return std::nullopt;
    DType id = c.args()[src].t.dtype();
    if (isComplex(od) || isComplex(id)) return std::nullopt;
    return pw(
        c, {src}, [od](const auto& v) { return ecast(v[0], od); }, id);
}

/// A tensor filled with one value.
std::optional<LValue> fill(LowerCtx& c, double value) {
    if (!c.out().isTensor()) return std::nullopt;
    const TensorMeta& om = c.outMeta();
    if (isComplex(om.dtype)) return std::nullopt;
    DType od = om.dtype;
    return tensorValue(c.pointwise(om, {}, [value, od](Loader&, const std::vector<Index>&) {
        return ecast(econst(value, isFloating(od) ? DType::Float64 : computeType(od)), od);
    }));
}

}  // namespace

void addPointwiseLowerings(std::map<std::string, LowerFn>& t) {
    t["aten.add.Tensor"] = t["aten.add.Scalar"] = [](LowerCtx& c) { return addLike(c, false, false); };
    t["aten.sub.Tensor"] = t["aten.sub.Scalar"] = [](LowerCtx& c) { return addLike(c, true, false); };
    t["aten.rsub.Scalar"] = t["aten.rsub.Tensor"] = [](LowerCtx& c) { return addLike(c, true, true); };
    t["aten.mul.Tensor"] = t["aten.mul.Scalar"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) {
            if (v[0]->type == DType::Bool) return ebinary(Op::And, v[0], v[1]);
            return mul(v[0], v[1]);
        });
    };
    t["aten.div.Tensor"] = t["aten.div.Scalar"] = t["aten.div.Tensor_mode"] =
        t["aten.div.Scalar_mode"] = [](LowerCtx& c) { return divLike(c); };
    t["aten.neg.default"] = [](LowerCtx& c) { return unary(c, Op::Neg); };
    t["aten.abs.default"] = [](LowerCtx& c) { return unary(c, Op::Abs); };
    t["aten.sqrt.default"] = [](LowerCtx& c) { return unary(c, Op::Sqrt); };
    t["aten.rsqrt.default"] = [](LowerCtx& c) { return unary(c, Op::Rsqrt); };
    t["aten.exp.default"] = [](LowerCtx& c) { return unary(c, Op::Exp); };
    t["aten.log.default"] = [](LowerCtx& c) { return unary(c, Op::Log); };
    t["aten.reciprocal.default"] = [](LowerCtx& c) { return unary(c, Op::Recip); };
    t["aten.erf.default"] = [](LowerCtx& c) { return unary(c, Op::Erf); };
    t["aten.tanh.default"] = [](LowerCtx& c) { return unary(c, Op::Tanh); };
    t["aten.sigmoid.default"] = [](LowerCtx& c) { return unary(c, Op::Sigmoid); };
    t["aten.pow.Tensor_Scalar"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!isFloating(c.outMeta().dtype) || !c.args()[1].isNumber()) return std::nullopt;
        double e = c.args()[1].toDouble();
        return pw(c, {0}, [e](const auto& v) {
            const ExprP& x = v[0];
            if (e == 1.0) return x;
            if (e == 2.0) return mul(x, x);
            if (e == 3.0) return mul(x, mul(x, x));
            if (e == 0.5) return eunary(Op::Sqrt, x);
            if (e == -1.0) return eunary(Op::Recip, x);
            return ebinary(Op::Pow, x, k(e, x));
        });
    };
    t["aten.pow.Tensor_Tensor"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!isFloating(c.outMeta().dtype)) return std::nullopt;
        return pw(c, {0, 1}, [](const auto& v) { return ebinary(Op::Pow, v[0], v[1]); });
    };
    t["aten.maximum.default"] = t["aten.max.other"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) { return ebinary(Op::Max, v[0], v[1]); });
    };
    t["aten.minimum.default"] = t["aten.min.other"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) { return ebinary(Op::Min, v[0], v[1]); });
    };
    t["aten.clamp_min.default"] = [](LowerCtx& c) { return clampLike(c, optScalar(c, 1), std::nullopt); };
    t["aten.clamp_max.default"] = [](LowerCtx& c) { return clampLike(c, std::nullopt, optScalar(c, 1)); };
    t["aten.clamp.default"] = [](LowerCtx& c) { return clampLike(c, optScalar(c, 1), optScalar(c, 2)); };
    t["aten.hardtanh.default"] = [](LowerCtx& c) { return clampLike(c, scalarArg(c, 1, -1), scalarArg(c, 2, 1)); };
    auto where = [](LowerCtx& c) -> std::optional<LValue> {
        DType ct = computeType(c.outMeta().dtype);
        auto cond = opnd(c, 0), a = opnd(c, 1), b = opnd(c, 2);
        if (!cond || !a || !b) return std::nullopt;
        std::vector<int> inputs;
        for (auto* o : {&*cond, &*a, &*b})
            if (o->id >= 0) inputs.push_back(o->id);
        Operand oc = *cond, oa = *a, ob = *b;
        return tensorValue(c.pointwise(c.outMeta(), inputs, [=](Loader& L, const std::vector<Index>& x) {
            return ewhere(oc.get(L, x, DType::Bool), oa.get(L, x, ct), ob.get(L, x, ct));
        }));
    };
    t["aten.where.self"] = t["aten.where.ScalarOther"] = t["aten.where.ScalarSelf"] = t["aten.where.Scalar"] = where;
    for (auto [name, op] : std::initializer_list<std::pair<const char*, Op>>{
             {"eq", Op::Eq}, {"ne", Op::Ne}, {"lt", Op::Lt}, {"le", Op::Le}, {"gt", Op::Gt}, {"ge", Op::Ge}}) {
        std::string base = std::string("aten.") + name;
        // A captureless lambda per comparison: the op is looked up from the node's name.
        t[base + ".Tensor"] = t[base + ".Scalar"] = [](LowerCtx& c) {
            std::string n = c.node().opName();
            std::string cmp = n.substr(5, 2);
            Op o = cmp == "eq"   ? Op::Eq
                   : cmp == "ne" ? Op::Ne
                   : cmp == "lt" ? Op::Lt
                   : cmp == "le" ? Op::Le
                   : cmp == "gt" ? Op::Gt
                                 : Op::Ge;
            return compare(c, o);
        };
        (void)op;
    }
    t["aten.logical_not.default"] = [](LowerCtx& c) {
        return pw(
            c, {0}, [](const auto& v) { return eunary(Op::Not, v[0]); }, DType::Bool);
    };
    t["aten.logical_and.default"] = [](LowerCtx& c) {
        return pw(
            c, {0, 1}, [](const auto& v) { return ebinary(Op::And, v[0], v[1]); }, DType::Bool);
    };
    t["aten.bitwise_and.Tensor"] = t["aten.bitwise_and.Scalar"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (c.outMeta().dtype != DType::Bool) return std::nullopt;
        return pw(c, {0, 1}, [](const auto& v) { return ebinary(Op::And, v[0], v[1]); });
    };
    t["aten.bitwise_or.Tensor"] = t["aten.bitwise_or.Scalar"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (c.outMeta().dtype != DType::Bool) return std::nullopt;
        return pw(c, {0, 1}, [](const auto& v) { return ebinary(Op::Or, v[0], v[1]); });
    };
    t["prims.fma.default"] = [](LowerCtx& c) {
        return pw(c, {0, 1, 2}, [](const auto& v) { return add(mul(v[0], v[1]), v[2]); });
    };

    // ----- activations -----
    t["aten.relu.default"] = [](LowerCtx& c) { return pw(c, {0}, [](const auto& v) { return relu(v[0]); }); };
    t["aten.threshold_backward.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        double th = scalarArg(c, 2, 0.0);
        DType ct = computeType(c.outMeta().dtype);
        auto g = opnd(c, 0), x = opnd(c, 1);
        if (!g || !x) return std::nullopt;
        Operand og = *g, ox = *x;
        std::vector<int> ins;
        for (auto* o : {&og, &ox})
            if (o->id >= 0) ins.push_back(o->id);
        DType xt = computeType(commonType(c, {0, 1}));
        return tensorValue(c.pointwise(c.outMeta(), ins, [=](Loader& L, const std::vector<Index>& co) {
            ExprP xv = ox.get(L, co, xt);
            ExprP gv = og.get(L, co, ct);
            return ewhere(ebinary(Op::Le, xv, k(th, xv)), k(0, gv), gv);
        }));
    };
    t["aten.gelu.default"] = [](LowerCtx& c) {
        bool th = geluIsTanh(c, 1);
        return pw(c, {0}, [th](const auto& v) { return gelu(v[0], th); });
    };
    t["aten.gelu_backward.default"] = [](LowerCtx& c) {
        bool th = geluIsTanh(c, 2);
        return pw(c, {0, 1}, [th](const auto& v) { return geluBackward(v[0], v[1], th); });
    };
    t["aten.tanh_backward.default"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) { return mul(v[0], sub(k(1, v[1]), mul(v[1], v[1]))); });
    };
    t["aten.sigmoid_backward.default"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) { return mul(v[0], mul(v[1], sub(k(1, v[1]), v[1]))); });
    };
    t["aten.silu.default"] = [](LowerCtx& c) {
        return pw(c, {0}, [](const auto& v) { return mul(v[0], sigmoid(v[0])); });
    };
    t["aten.silu_backward.default"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) {
            ExprP s = sigmoid(v[1]);
            return mul(mul(v[0], s), add(k(1, v[1]), mul(v[1], sub(k(1, s), s))));
        });
    };
    t["aten.leaky_relu.default"] = [](LowerCtx& c) {
        double s = scalarArg(c, 1, 0.01);
        return pw(c, {0}, [s](const auto& v) {
            return ewhere(ebinary(Op::Gt, v[0], k(0, v[0])), v[0], mul(v[0], k(s, v[0])));
        });
    };
    t["aten.leaky_relu_backward.default"] = [](LowerCtx& c) {
        double s = scalarArg(c, 2, 0.01);
        return pw(c, {0, 1}, [s](const auto& v) {
            return ewhere(ebinary(Op::Gt, v[1], k(0, v[1])), v[0], mul(v[0], k(s, v[0])));
        });
    };
    t["aten.elu.default"] = [](LowerCtx& c) {
        const double alpha = scalarArg(c, 1, 1), scale = scalarArg(c, 2, 1), inputScale = scalarArg(c, 3, 1);
        return pw(c, {0}, [=](const auto& v) {
            const ExprP& x = v[0];
            return ewhere(ebinary(Op::Le, x, k(0, x)),
                          mul(k(alpha * scale, x), eunary(Op::Expm1, mul(x, k(inputScale, x)))), mul(x, k(scale, x)));
        });
    };
    // elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result): PyTorch's kernel.
    t["aten.elu_backward.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (c.args().size() < 6 || !c.args()[4].isNumber()) return std::nullopt;
        const double negcoef = scalarArg(c, 1, 1) * scalarArg(c, 2, 1), poscoef = scalarArg(c, 2, 1),
                     negiptcoef = scalarArg(c, 3, 1);
        const bool isResult = c.args().toBool(4);
        return pw(c, {0, 5}, [=](const auto& v) {
            const ExprP &g = v[0], &b = v[1];
            ExprP neg = isResult ? mul(mul(g, k(negiptcoef, g)), add(b, k(negcoef, b)))
                                 : mul(mul(g, k(negiptcoef * negcoef, g)), eunary(Op::Exp, mul(b, k(negiptcoef, b))));
            return ewhere(ebinary(Op::Le, b, k(0, b)), neg, mul(g, k(poscoef, g)));
        });
    };
    t["aten.hardsigmoid.default"] = [](LowerCtx& c) {
        return pw(c, {0}, [](const auto& v) { return hardsigmoid(v[0]); });
    };
    t["aten.hardswish.default"] = [](LowerCtx& c) {
        return pw(c, {0}, [](const auto& v) { return mul(v[0], hardsigmoid(v[0])); });
    };
    t["aten.mish.default"] = [](LowerCtx& c) {
        return pw(c, {0}, [](const auto& v) { return mul(v[0], eunary(Op::Tanh, softplus(v[0]))); });
    };
    // softplus(x, beta, threshold) and its backward, with PyTorch's threshold test on x * beta.
    t["aten.softplus.default"] = [](LowerCtx& c) {
        const double beta = scalarArg(c, 1, 1), th = scalarArg(c, 2, 20);
        return pw(c, {0}, [=](const auto& v) {
            const ExprP& x = v[0];
            ExprP xb = mul(x, k(beta, x));
            return ewhere(ebinary(Op::Gt, xb, k(th, x)), x, ebinary(Op::Div, softplus(xb), k(beta, x)));
        });
    };
    t["aten.softplus_backward.default"] = [](LowerCtx& c) {
        const double beta = scalarArg(c, 2, 1), th = scalarArg(c, 3, 20);
        return pw(c, {0, 1}, [=](const auto& v) {
            const ExprP &g = v[0], &x = v[1];
            ExprP xb = mul(x, k(beta, x));
            ExprP z = eunary(Op::Exp, xb);
            return ewhere(ebinary(Op::Gt, xb, k(th, x)), g, ebinary(Op::Div, mul(g, z), add(z, k(1, z))));
        });
    };
    // glu(self, dim) = a * sigmoid(b) over the halves of self along dim; glu_backward gives
    // grad * sigmoid(b) to a's half and grad * a * sigmoid(b) * (1 - sigmoid(b)) to b's.
    t["aten.glu.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int x = c.in(0);
        if (x < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
        const auto& in = c.meta(x).shape;
        if (in.empty()) return std::nullopt;
        const int64_t d = c.args().toInt(1);
        const auto dim = static_cast<size_t>(d < 0 ? d + static_cast<int64_t>(in.size()) : d);
        const int64_t half = in[dim] / 2;
        const DType ct = computeType(c.outMeta().dtype), xt = computeType(c.meta(x).dtype);
        return tensorValue(c.pointwise(c.outMeta(), {x}, [=](Loader& L, const std::vector<Index>& co) {
            auto cb = co;
            cb[dim] = iadd(co[dim], iconst(half));
            return mul(eto(eto(L.load(x, co), xt), ct), sigmoid(eto(eto(L.load(x, cb), xt), ct)));
        }));
    };
    t["aten.glu_backward.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int g = c.in(0), x = c.in(1);
        if (g < 0 || x < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
        const auto& in = c.meta(x).shape;
        if (in.empty()) return std::nullopt;
        const int64_t d = c.args().toInt(2);
        const auto dim = static_cast<size_t>(d < 0 ? d + static_cast<int64_t>(in.size()) : d);
        const int64_t half = in[dim] / 2;
        const DType ct = computeType(c.outMeta().dtype), xt = computeType(c.meta(x).dtype),
                    gt = computeType(c.meta(g).dtype);
        return tensorValue(c.pointwise(c.outMeta(), {g, x}, [=](Loader& L, const std::vector<Index>& co) {
            // h: the position within a half; a at h, b at h + half, the gradient at h.
            auto ca = co, cb = co;
            ca[dim] = imod(co[dim], half);
            cb[dim] = iadd(ca[dim], iconst(half));
            ExprP go = eto(eto(L.load(g, ca), gt), ct);
            ExprP a = eto(eto(L.load(x, ca), xt), ct);
            ExprP sb = sigmoid(eto(eto(L.load(x, cb), xt), ct));
            ExprP first = ebinary(Op::Lt, eindex(co[dim]), econst(static_cast<double>(half), DType::Int64));
            return ewhere(first, mul(go, sb), mul(mul(go, a), mul(sb, sub(k(1, sb), sb))));
        }));
    };
    t["aten.softshrink.default"] = [](LowerCtx& c) {
        double l = scalarArg(c, 1, 0.5);
        return pw(c, {0}, [l](const auto& v) {
            const ExprP& x = v[0];
            // NaN stays NaN through x * 0.
            return ewhere(ebinary(Op::Gt, x, k(l, x)), sub(x, k(l, x)),
                          ewhere(ebinary(Op::Lt, x, k(-l, x)), add(x, k(l, x)), mul(x, k(0, x))));
        });
    };
    t["aten.hardshrink.default"] = [](LowerCtx& c) {
        double l = scalarArg(c, 1, 0.5);
        return pw(c, {0}, [l](const auto& v) { return ewhere(within(v[0], -l, l), k(0, v[0]), v[0]); });
    };
    t["aten.threshold.default"] = [](LowerCtx& c) {
        double th = scalarArg(c, 1, 0.0), value = scalarArg(c, 2, 0.0);
        return pw(c, {0}, [th, value](const auto& v) {
            return ewhere(ebinary(Op::Le, v[0], k(th, v[0])), k(value, v[0]), v[0]);
        });
    };
    // Backwards (grad, self, ...), with PyTorch's conditions at the kinks.
    t["aten.hardsigmoid_backward.default"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) {
            const ExprP& x = v[1];
            ExprP in = ebinary(Op::And, ebinary(Op::Gt, x, k(-3, x)), ebinary(Op::Lt, x, k(3, x)));
            return ewhere(in, mul(v[0], k(1.0 / 6.0, x)), k(0, x));
        });
    };
    t["aten.hardswish_backward.default"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) {
            const ExprP &g = v[0], &x = v[1];
            ExprP mid = mul(g, add(ebinary(Op::Div, x, k(3, x)), k(0.5, x)));
            return ewhere(ebinary(Op::Lt, x, k(-3, x)), k(0, x), ewhere(ebinary(Op::Le, x, k(3, x)), mid, g));
        });
    };
    t["aten.mish_backward.default"] = [](LowerCtx& c) {
        return pw(c, {0, 1}, [](const auto& v) {
            const ExprP &g = v[0], &x = v[1];
            ExprP ts = eunary(Op::Tanh, softplus(x));
            return mul(g, add(ts, mul(mul(x, sigmoid(x)), sub(k(1, x), mul(ts, ts)))));
        });
    };
    t["aten.softshrink_backward.default"] = t["aten.hardshrink_backward.default"] = [](LowerCtx& c) {
        double l = scalarArg(c, 2, 0.5);
        return pw(c, {0, 1}, [l](const auto& v) { return ewhere(within(v[1], -l, l), k(0, v[0]), v[0]); });
    };
    t["aten.hardtanh_backward.default"] = [](LowerCtx& c) {
        double lo = scalarArg(c, 2, -1.0), hi = scalarArg(c, 3, 1.0);
        return pw(c, {0, 1}, [lo, hi](const auto& v) {
            const ExprP& x = v[1];
            ExprP out = ebinary(Op::Or, ebinary(Op::Le, x, k(lo, x)), ebinary(Op::Ge, x, k(hi, x)));
            return ewhere(out, k(0, x), v[0]);
        });
    };
    t["aten.logit_backward.default"] = [](LowerCtx& c) {
        std::optional<double> eps = optScalar(c, 2);
        return pw(c, {0, 1}, [eps](const auto& v) {
            const ExprP &g = v[0], &x = v[1];
            ExprP d = ebinary(Op::Div, g, mul(x, sub(k(1, x), x)));
            if (!eps || *eps < 0)
                return ewhere(ebinary(Op::Or, ebinary(Op::Lt, x, k(0, x)), ebinary(Op::Gt, x, k(1, x))), k(NAN, x), d);
            ExprP out = ebinary(Op::Or, ebinary(Op::Lt, x, k(*eps, x)), ebinary(Op::Gt, x, k(1.0 - *eps, x)));
            return ewhere(out, k(0, x), d);
        });
    };
    t["aten.log_sigmoid_forward.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (output, buffer): min(x, 0) - log1p(exp(-|x|)); the buffer (empty on CUDA) is zeros.
        int x = c.in(0);
        if (x < 0 || !c.out().isList() || c.out().list.size() != 2 || !isFloating(c.outMeta(0).dtype))
            return std::nullopt;
        DType ct = computeType(c.outMeta(0).dtype), xt = computeType(c.meta(x).dtype);
        int out = c.pointwise(c.outMeta(0), {x}, [=](Loader& L, const std::vector<Index>& co) {
            ExprP v = eto(eto(L.load(x, co), xt), ct);
            ExprP z = eunary(Op::Log1p, eunary(Op::Exp, eunary(Op::Neg, eunary(Op::Abs, v))));
            return sub(ebinary(Op::Min, v, k(0, v)), z);
        });
        DType bt = c.outMeta(1).dtype;
        int buf = c.pointwise(
            c.outMeta(1), {}, [bt](Loader&, const std::vector<Index>&) { return econst(0, computeType(bt)); },
            ".buffer");
        LValue r;
        r.kind = LValue::Kind::List;
        r.isTuple = true;
        r.items = {tensorValue(out), tensorValue(buf)};
        return r;
    };
    t["aten.log_sigmoid_backward.default"] = [](LowerCtx& c) {
        // PyTorch's CUDA form (the buffer argument is unused there).
        return pw(c, {0, 1}, [](const auto& v) {
            const ExprP &g = v[0], &x = v[1];
            ExprP neg = ebinary(Op::Lt, x, k(0, x));
            ExprP z = eunary(Op::Exp, eunary(Op::Neg, eunary(Op::Abs, x)));
            ExprP q = ebinary(Op::Div, z, add(k(1, z), z));
            return mul(g, ewhere(neg, sub(k(1, x), q), q));
        });
    };
    // dropout(input, p, train) as Dynamo-stage graphs keep it: the identity in evaluation mode or
    // with p = 0; training dropout draws random numbers, which the rule leaves to the extern.
    t["aten.dropout.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (c.args().toBool(2) && c.args()[1].toDouble() != 0.0) return std::nullopt;
        return pw(c, {0}, [](const auto& v) { return v[0]; });
    };
    t["aten.native_dropout_backward.default"] = [](LowerCtx& c) {
        double s = scalarArg(c, 2, 1.0);
        return pw(c, {0, 1}, [s](const auto& v) { return mul(mul(v[0], v[1]), k(s, v[0])); });
    };

    // ----- copies and conversions -----
    t["aten.clone.default"] = t["aten.contiguous.default"] = t["aten.lift_fresh_copy.default"] =
        t["aten._to_copy.default"] = t["prims.convert_element_type.default"] = t["aten.to.dtype"] =
            t["aten.to.dtype_layout"] = t["aten.type_as.default"] = t["aten.to.device"] = t["aten.to.other"] =
                [](LowerCtx& c) { return copyOf(c); };
    t["aten.copy.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        DType od = c.outMeta().dtype;
        if (!c.args()[1].isTensor()) return std::nullopt;
        return pw(
            c, {1}, [od](const auto& v) { return ecast(v[0], od); }, c.args()[1].t.dtype());
    };

    // ----- factories -----
    t["aten.scalar_tensor.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.args()[0].isNumber()) return std::nullopt;
        return fill(c, c.args()[0].toDouble());
    };
    t["aten.full.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.args()[1].isNumber()) return std::nullopt;
        return fill(c, c.args()[1].toDouble());
    };
    t["aten.full_like.default"] = t["aten.fill.Scalar"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.args()[1].isNumber()) return std::nullopt;
        return fill(c, c.args()[1].toDouble());
    };
    t["aten.zeros.default"] = t["aten.zeros_like.default"] = t["aten.empty_like.default"] =
        t["aten.empty.memory_format"] = t["aten.new_zeros.default"] = t["aten.new_empty.default"] =
            t["aten.new_empty_strided.default"] = t["aten.zero.default"] = t["aten.empty_strided.default"] =
                [](LowerCtx& c) { return fill(c, 0.0); };
    t["aten.ones.default"] = t["aten.ones_like.default"] =
        t["aten.new_ones.default"] = [](LowerCtx& c) { return fill(c, 1.0); };
    t["aten.new_full.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.args()[2].isNumber()) return std::nullopt;
        return fill(c, c.args()[2].toDouble());
    };
    t["aten.fill.Tensor"] = [](LowerCtx& c) -> std::optional<LValue> {
        // self's shape, the 0-dim value's value converted to self's dtype.
        if (!c.args()[1].isTensor()) return std::nullopt;
        DType od = c.outMeta().dtype;
        return pw(
            c, {1}, [od](const auto& v) { return ecast(v[0], od); }, c.args()[1].t.dtype());
    };
    auto arange = [](LowerCtx& c) -> std::optional<LValue> {
        std::string n = c.node().opName();
        double start = 0, step = 1;
        if (n == "aten.arange.default") {
            // end only
        } else {
            start = c.args()[0].toDouble();
            if (n == "aten.arange.start_step") step = c.args()[2].toDouble();
        }
        const TensorMeta& om = c.outMeta();
        if (om.shape.size() != 1) return std::nullopt;
        DType od = om.dtype;
        return tensorValue(c.pointwise(om, {}, [=](Loader&, const std::vector<Index>& x) {
            ExprP i = eindex(x[0]);
            if (!isFloating(od))
                return ecast(
                    ebinary(Op::Add, econst(start, DType::Int64), ebinary(Op::Mul, i, econst(step, DType::Int64))), od);
            ExprP f = eto(i, DType::Float64);
            return ecast(
                ebinary(Op::Add, econst(start, DType::Float64), ebinary(Op::Mul, f, econst(step, DType::Float64))), od);
        }));
    };
    t["aten.arange.default"] = t["aten.arange.start"] = t["aten.arange.start_step"] = arange;
    t["aten.eye.default"] = t["aten.eye.m"] = [](LowerCtx& c) -> std::optional<LValue> {
        const TensorMeta& om = c.outMeta();
        if (om.shape.size() != 2 || isComplex(om.dtype)) return std::nullopt;
        const DType od = om.dtype;
        return tensorValue(c.pointwise(om, {}, [od](Loader&, const std::vector<Index>& x) {
            ExprP diag = ebinary(Op::Eq, eindex(x[0]), eindex(x[1]));
            return ecast(ewhere(diag, econst(1, DType::Int64), econst(0, DType::Int64)), od);
        }));
    };
    // tril_indices / triu_indices(row, col, offset): [2, N]; element k's row is the number of
    // rows after the first that start at or before k, and its column k minus its row's start plus
    // the row's first column, each a sum of compile-time steps (one per row: up to 1,024 rows).
    t["aten.tril_indices.default"] = t["aten.triu_indices.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const TensorMeta& om = c.outMeta();
        const int64_t row = c.args().toInt(0), col = c.args().toInt(1), off = c.args().toInt(2);
        if (om.shape.size() != 2 || om.shape[0] != 2 || om.shape[1] == 0 || row > 1024) return std::nullopt;
        const bool lower = c.node().opName() == "aten.tril_indices.default";
        std::vector<int64_t> start, first;  // per row
        int64_t n = 0;
        for (int64_t i = 0; i < row; ++i) {
            const int64_t cnt = triRowCount(i, col, off, lower);
            start.push_back(n);
            first.push_back(lower ? 0 : col - cnt);
            n += cnt;
        }
        if (n != om.shape[1]) return std::nullopt;
        const DType od = om.dtype, i64 = DType::Int64;
        return tensorValue(c.pointwise(om, {}, [=](Loader&, const std::vector<Index>& x) {
            ExprP k = eindex(x[1]);
            ExprP r = econst(0, i64), rowStart = econst(0, i64), rowFirst = econst(double(first[0]), i64);
            for (size_t i = 1; i < start.size(); ++i) {
                ExprP past = ecast(ebinary(Op::Ge, k, econst(double(start[i]), i64)), i64);
                r = ebinary(Op::Add, r, past);
                rowStart = ebinary(Op::Add, rowStart, ebinary(Op::Mul, past, econst(double(start[i] - start[i - 1]), i64)));
                rowFirst = ebinary(Op::Add, rowFirst, ebinary(Op::Mul, past, econst(double(first[i] - first[i - 1]), i64)));
            }
            ExprP column = ebinary(Op::Add, rowFirst, ebinary(Op::Sub, k, rowStart));
            return ecast(ewhere(ebinary(Op::Eq, eindex(x[0]), econst(0, i64)), r, column), od);
        }));
    };
    // prims.iota(length, *, start, step, dtype, ...): start + i * step in an integer dtype (what
    // Inductor's post-grad graphs hold for arange).
    t["prims.iota.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const TensorMeta& om = c.outMeta();
        const int si = c.args().op().schema.indexOf("start"), ti = c.args().op().schema.indexOf("step");
        if (om.shape.size() != 1 || isFloating(om.dtype) || si < 0 || ti < 0) return std::nullopt;
        const double start = c.args().toDouble(static_cast<size_t>(si));
        const double step = c.args().toDouble(static_cast<size_t>(ti));
        const DType od = om.dtype;
        return tensorValue(c.pointwise(om, {}, [=](Loader&, const std::vector<Index>& x) {
            const ExprP scaled = ebinary(Op::Mul, eindex(x[0]), econst(step, DType::Int64));
            return ecast(ebinary(Op::Add, econst(start, DType::Int64), scaled), od);
        }));
    };
    // linspace / logspace (start and end numbers or 0-d tensors): as the reference's kernel
    // (exec/ops/creation.cpp), the bounds in the output's precision (truncated for integers),
    // one step rounded to the step type, the first half counting up from start and the second
    // down from end, each value rounded once; logspace raises base to them.
    auto space = [](LowerCtx& c) -> std::optional<LValue> {
        const TensorMeta& om = c.outMeta();
        if (om.shape.size() != 1 || isComplex(om.dtype) || om.dtype == DType::Bool) return std::nullopt;
        const bool log = c.node().opName().rfind("aten.logspace", 0) == 0;
        const int64_t steps = c.args().toInt(2);
        const double base = log ? c.args()[3].toDouble() : 0.0;
        const DType od = om.dtype, st = isFloating(od) ? od : DType::Float32, f64 = DType::Float64;
        std::vector<int> deps;
        int bound[2] = {-1, -1};
        double value[2] = {0, 0};
        for (size_t i = 0; i < 2; ++i) {
            if (c.args()[i].isTensor()) {
                bound[i] = c.in(i);
                if (bound[i] < 0 || !c.meta(bound[i]).shape.empty()) return std::nullopt;
                deps.push_back(bound[i]);
            } else if (c.args()[i].isNumber()) {
                value[i] = c.args()[i].toDouble();
            } else {
                return std::nullopt;
            }
        }
        return tensorValue(c.pointwise(om, deps, [=](Loader& L, const std::vector<Index>& x) {
            auto end = [&](size_t i) {
                ExprP v = bound[i] >= 0 ? eto(L.load(bound[i], {}), f64) : econst(value[i], f64);
                return isFloating(od) ? eto(ecast(v, od), f64) : eunary(Op::Trunc, v);
            };
            ExprP s = end(0), e = end(1);
            ExprP v = s;
            if (steps > 1) {
                ExprP step = eto(ecast(ebinary(Op::Div, sub(e, s), econst(double(steps - 1), f64)), st), f64);
                ExprP i = eto(eindex(x[0]), f64);
                ExprP up = add(s, mul(step, i));
                ExprP down = sub(e, mul(step, sub(econst(double(steps - 1), f64), i)));
                v = ewhere(ebinary(Op::Lt, eindex(x[0]), econst(double(steps / 2), DType::Int64)), up, down);
                v = eto(ecast(v, st), f64);
            }
            if (log) v = ebinary(Op::Pow, econst(base, f64), v);
            return ecast(v, od);
        }));
    };
    for (const char* f : {"linspace", "logspace"})
        for (const char* o : {".default", ".Tensor_Tensor", ".Tensor_Scalar", ".Scalar_Tensor"})
            t[std::string("aten.") + f + o] = space;
}

}  // namespace fxray::cg
