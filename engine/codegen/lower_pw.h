#pragma once
/// Helpers of the pointwise lowering files (lower_pointwise.cpp, lower_math.cpp, ...): operands
/// captured by value, one-body pointwise nodes, and small expression builders.
#include "codegen/lowering.h"
#include "exec/ops/kernel_util.h"

#include <functional>
#include <optional>

namespace fxray::cg::pwl {

/// A tensor or number operand captured by value (bodies outlive the LowerCtx).
struct Operand {
    int id = -1;
    std::vector<int64_t> shape;
    double number = 0.0;
    DType dtype = DType::Float32;
    ExprP get(Loader& L, const std::vector<Index>& coords, DType ct) const {
        if (id >= 0) return eto(loadBroadcast(L, id, shape, coords), ct);
        if (ct == DType::Bool) return econst(number != 0.0, DType::Bool);
        return econst(number, ct);
    }
};

inline std::optional<Operand> opnd(LowerCtx& c, size_t i) {
    Operand o;
    const Value& v = c.args()[i];
    if (v.isTensor()) {
        o.id = c.in(i);
        if (o.id < 0) return std::nullopt;
        o.shape = c.meta(o.id).shape;
        o.dtype = c.meta(o.id).dtype;
        return o;
    }
    if (!v.isNumber()) return std::nullopt;
    o.number = v.toDouble();
    o.dtype = v.kind == Value::Kind::Double ? DType::Float64 : v.kind == Value::Kind::Int ? DType::Int64 : DType::Bool;
    return o;
}

using Fn = std::function<ExprP(const std::vector<ExprP>&)>;

/// out = f(operands at idx, each converted to `opType` (default: the output's compute type)).
inline std::optional<LValue> pw(LowerCtx& c, const std::vector<size_t>& idx, Fn f,
                                std::optional<DType> opType = std::nullopt) {
    if (!c.out().isTensor()) return std::nullopt;
    const TensorMeta& om = c.outMeta();
    if (isComplex(om.dtype)) return std::nullopt;
    std::vector<Operand> ops;
    std::vector<int> inputs;
    for (size_t i : idx) {
        auto o = opnd(c, i);
        if (!o || isComplex(o->dtype)) return std::nullopt;
        if (o->id >= 0) inputs.push_back(o->id);
        ops.push_back(*o);
    }
    DType ct = opType ? computeType(*opType) : computeType(om.dtype);
    DType outCt = computeType(om.dtype);
    BodyFn body = [ops, f, ct, outCt](Loader& L, const std::vector<Index>& coords) {
        std::vector<ExprP> v;
        for (const auto& o : ops) v.push_back(o.get(L, coords, ct));
        return eto(f(v), outCt);
    };
    return tensorValue(c.pointwise(om, inputs, std::move(body)));
}

/// The dtype binary operands are compared in (torch.result_type of the operands).
inline DType commonType(LowerCtx& c, const std::vector<size_t>& idx) {
    std::vector<const Value*> v;
    for (size_t i : idx) v.push_back(&c.args()[i]);
    return kern::resultType(v);
}

inline ExprP k(double v, const ExprP& like) { return econst(v, like->type); }
inline ExprP add(ExprP a, ExprP b) { return ebinary(Op::Add, std::move(a), std::move(b)); }
inline ExprP sub(ExprP a, ExprP b) { return ebinary(Op::Sub, std::move(a), std::move(b)); }
inline ExprP mul(ExprP a, ExprP b) { return ebinary(Op::Mul, std::move(a), std::move(b)); }

inline double scalarArg(LowerCtx& c, size_t i, double dflt) {
    if (i >= c.args().size() || !c.args()[i].isNumber()) return dflt;
    return c.args()[i].toDouble();
}

/// The optional number argument i.
inline std::optional<double> optScalar(LowerCtx& c, size_t i) {
    if (i >= c.args().size() || !c.args()[i].isNumber()) return std::nullopt;
    return c.args()[i].toDouble();
}

}  // namespace fxray::cg::pwl
