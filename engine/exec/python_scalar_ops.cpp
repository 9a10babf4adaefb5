#include "exec/python_scalar_ops.h"

#include "ir/sym_expr.h"

#include <map>
#include <string>

namespace fxray {

namespace {

/// FX target -> the operation of sym::apply.
const std::map<std::string_view, std::string_view>& scalarOps() {
    static const std::map<std::string_view, std::string_view> ops{
        {"operator.add", "+"},
        {"operator.sub", "-"},
        {"operator.mul", "*"},
        {"operator.truediv", "/"},
        {"operator.floordiv", "//"},
        {"operator.mod", "%"},
        {"operator.pow", "**"},
        {"operator.neg", "-u"},
        {"operator.eq", "=="},
        {"operator.ne", "!="},
        {"operator.lt", "<"},
        {"operator.le", "<="},
        {"operator.gt", ">"},
        {"operator.ge", ">="},
        {"operator.and_", "&"},
        {"operator.or_", "|"},
        {"operator.not_", "~"},
        {"operator.abs", "abs"},
        {"operator.pos", "Identity"},
        {"torch.sym_float", "ToFloat"},
        {"torch.sym_int", "TruncToInt"},
        {"torch.sym_max", "Max"},
        {"torch.sym_min", "Min"},
        {"torch.sym_not", "~"},
        {"torch.sym_ite", "Where"},
        {"torch._sym_sqrt", "sqrt"},
        {"torch.sym_sqrt", "sqrt"},
        {"math.floor", "floor"},
        {"math.ceil", "ceiling"},
        {"math.trunc", "TruncToInt"},
        {"math.sqrt", "sqrt"},
        {"builtins.abs", "abs"},
        {"builtins.max", "Max"},
        {"builtins.min", "Min"},
        {"abs", "abs"},
        {"max", "Max"},
        {"min", "Min"},
    };
    return ops;
}

std::optional<sym::Num> toNum(const Value& v) {
    switch (v.kind) {
    case Value::Kind::Int: return sym::Num::ofInt(v.i);
    case Value::Kind::Bool: return sym::Num::ofBool(v.b);
    case Value::Kind::Double: return sym::Num::ofFloat(v.d);
    default: return std::nullopt;
    }
}

Value toValue(const sym::Num& n) {
    switch (n.kind) {
    case sym::Num::Kind::Int: return Value::ofInt(n.i);
    case sym::Num::Kind::Bool: return Value::ofBool(n.i != 0);
    case sym::Num::Kind::Float: return Value::ofDouble(n.d);
    }
    return {};
}

}  // namespace

bool isPythonScalarOp(std::string_view target) { return scalarOps().count(target) || target == "torch.sym_sum"; }

std::optional<Expected<Value>> callPythonScalarOp(std::string_view target, const std::vector<Value>& args) {
    std::vector<Value> flat = args;
    std::string_view op;
    if (target == "torch.sym_sum") {
        // sym_sum([a, b, c]): a sum of a list.
        if (args.size() != 1 || !args[0].isList()) return std::nullopt;
        flat = args[0].list;
        op = "+";
    } else {
        auto it = scalarOps().find(target);
        if (it == scalarOps().end()) return std::nullopt;
        op = it->second;
    }
    std::vector<sym::Num> nums;
    for (const auto& v : flat) {
        auto n = toNum(v);
        if (!n) return std::nullopt;
        nums.push_back(*n);
    }
    if (target == "torch.sym_sum") {
        sym::Num acc = sym::Num::ofInt(0);
        for (const auto& n : nums) {
            auto r = sym::apply("+", {acc, n});
            if (!r.ok()) return Expected<Value>(r.error());
            acc = *r;
        }
        return Expected<Value>(toValue(acc));
    }
    auto r = sym::apply(op, nums);
    if (!r.ok()) return Expected<Value>(makeError(std::string(target) + ": " + r.error().message));
    return Expected<Value>(toValue(*r));
}

}  // namespace fxray
