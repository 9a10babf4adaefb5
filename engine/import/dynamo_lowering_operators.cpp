// Lowering rules for Python operators (`operator.add`, `operator.getitem`, ...) and attribute
// reads (`builtins.getattr(x, 'shape')`): arithmetic on tensors becomes ATen ops with PyTorch's
// reflected-operator choices, arithmetic on Python numbers (sizes) folds, and tensor indexing
// becomes unsqueeze/select/slice/index as Tensor.__getitem__ does.
#include "exec/ops/kernel_util.h"
#include "import/dynamo_lowering_internal.h"

#include <cmath>
#include <limits>
#include <unordered_map>

namespace fxray::lowering {
namespace {

enum class BinOp { Add, Sub, Mul, TrueDiv, FloorDiv, Mod, Pow, MatMul, Lt, Le, Gt, Ge, Eq, Ne, And, Or, Xor };

struct BinOpInfo {
    BinOp op;
    bool inplace;
    const char* aten;  ///< "add" -> aten.add.Tensor / aten.add_.Tensor
};

bool isComparison(BinOp op) { return op >= BinOp::Lt && op <= BinOp::Ne; }

/// The comparison that holds with the operands swapped: `0 < x` is `x > 0`.
BinOp mirrored(BinOp op) {
    switch (op) {
    case BinOp::Lt: return BinOp::Gt;
    case BinOp::Le: return BinOp::Ge;
    case BinOp::Gt: return BinOp::Lt;
    case BinOp::Ge: return BinOp::Le;
    default: return op;
    }
}

const char* comparisonName(BinOp op) {
    switch (op) {
    case BinOp::Lt: return "lt";
    case BinOp::Le: return "le";
    case BinOp::Gt: return "gt";
    case BinOp::Ge: return "ge";
    case BinOp::Eq: return "eq";
    default: return "ne";
    }
}

/// Python arithmetic on two numbers (sizes and scalars Dynamo left in the graph).
Expected<Argument> foldNumbers(BinOp op, const Argument& a, const Argument& b) {
    bool ints = a.kind != Argument::Kind::Float && b.kind != Argument::Kind::Float;
    double x = *numberOf(&a), y = *numberOf(&b);
    int64_t i = ints ? *intOf(&a) : 0, j = ints ? *intOf(&b) : 0;
    // Python ints do not overflow; sizes in a graph never come near int64's range, so an
    // overflow means a hostile or corrupt file.
    int64_t iv = 0;
    auto overflow = [] { return makeError("integer overflow in size arithmetic"); };
    switch (op) {
    case BinOp::Add:
        if (!ints) return Argument::ofFloat(x + y);
        if (__builtin_add_overflow(i, j, &iv)) return overflow();
        return Argument::ofInt(iv);
    case BinOp::Sub:
        if (!ints) return Argument::ofFloat(x - y);
        if (__builtin_sub_overflow(i, j, &iv)) return overflow();
        return Argument::ofInt(iv);
    case BinOp::Mul:
        if (!ints) return Argument::ofFloat(x * y);
        if (__builtin_mul_overflow(i, j, &iv)) return overflow();
        return Argument::ofInt(iv);
    case BinOp::TrueDiv:
        if (y == 0.0) return makeError("division by zero");
        return Argument::ofFloat(x / y);
    case BinOp::FloorDiv:
    case BinOp::Mod: {
        if (y == 0.0) return makeError("division by zero");
        if (ints) {
            if (i == std::numeric_limits<int64_t>::min() && j == -1) return overflow();
            int64_t q = i / j;
            if ((i % j != 0) && ((i < 0) != (j < 0))) --q;  // Python floors
            return Argument::ofInt(op == BinOp::FloorDiv ? q : i - q * j);
        }
        double q = std::floor(x / y);
        return Argument::ofFloat(op == BinOp::FloorDiv ? q : x - q * y);
    }
    case BinOp::Pow:
        if (ints && j >= 0) {
            int64_t r = 1;
            for (int64_t k = 0; k < j; ++k) {
                if (__builtin_mul_overflow(r, i, &r)) return overflow();
                if (r == 0 || r == 1) break;  // stays there
                if (r == -1) {
                    r = (j - k - 1) % 2 == 0 ? -1 : 1;
                    break;
                }
            }
            return Argument::ofInt(r);
        }
        return Argument::ofFloat(std::pow(x, y));
    case BinOp::Lt: return Argument::ofBool(x < y);
    case BinOp::Le: return Argument::ofBool(x <= y);
    case BinOp::Gt: return Argument::ofBool(x > y);
    case BinOp::Ge: return Argument::ofBool(x >= y);
    case BinOp::Eq: return Argument::ofBool(x == y);
    case BinOp::Ne: return Argument::ofBool(x != y);
    case BinOp::And:
    case BinOp::Or:
    case BinOp::Xor: {
        if (!ints) return makeError("bitwise operator on floats");
        int64_t r = op == BinOp::And ? (i & j) : op == BinOp::Or ? (i | j) : (i ^ j);
        if (a.kind == Argument::Kind::Bool && b.kind == Argument::Kind::Bool) return Argument::ofBool(r != 0);
        return Argument::ofInt(r);
    }
    case BinOp::MatMul: break;
    }
    return makeError("operator not defined on numbers");
}

Expected<Argument> lowerBinary(LowerCtx& c, const TorchCall& call, const BinOpInfo& info) {
    if (call.args.size() != 2 || !call.kwargs.empty()) return makeError("expects two operands");
    const Argument& a = call.args[0];
    const Argument& b = call.args[1];
    bool ta = c.isTensor(a), tb = c.isTensor(b);
    // SymInt/SymFloat nodes count as numbers: `x * s0` is aten.mul.Tensor(x, s0) as in export.
    bool na = c.isScalar(a), nb = c.isScalar(b);
    if (!(ta || na) || !(tb || nb)) return makeError("operands must be tensors or numbers");
    if (na && nb) {
        if (!a.isNode() && !b.isNode()) return foldNumbers(info.op, a, b);
        if (info.inplace) return makeError("in-place operator on a SymInt");
        return c.emitScalar(call.target, {a, b});  // size arithmetic stays in the graph
    }
    const std::string name = info.aten;
    if (ta) {
        // tensor (op) tensor-or-number; in-place forms mutate the left tensor.
        const std::string base = "aten." + name + (info.inplace ? "_" : "");
        switch (info.op) {
        case BinOp::MatMul:
            if (!tb) return makeError("matmul needs two tensors");
            if (info.inplace) return makeError("in-place matmul is not supported");
            return c.emit("aten.matmul.default", {a, b});
        case BinOp::Pow:
            if (info.inplace) return makeError("in-place ** is not supported");
            return c.emit(tb ? "aten.pow.Tensor_Tensor" : "aten.pow.Tensor_Scalar", {a, b});
        case BinOp::FloorDiv:
            if (info.inplace) return makeError("in-place // is not supported");
            return c.emit("aten.div.Tensor_mode", {a, b}, {{"rounding_mode", Argument::ofString("floor")}});
        case BinOp::Mod:
            if (info.inplace) return makeError("in-place % is not supported");
            return c.emit("aten.remainder.Tensor", {a, b});
        default: break;
        }
        if (isComparison(info.op)) return c.emit("aten." + name + (tb ? ".Tensor" : ".Scalar"), {a, b});
        return c.emit(base + ".Tensor", {a, b});
    }
    // number (op) tensor: Tensor's reflected operators (__radd__, __rsub__, __rtruediv__, ...).
    switch (info.op) {
    case BinOp::Add:
    case BinOp::Mul:
    case BinOp::And:
    case BinOp::Or:
    case BinOp::Xor: return c.emit("aten." + name + ".Tensor", {b, a});
    case BinOp::Sub: return c.emit("aten.rsub.Scalar", {b, a});
    case BinOp::TrueDiv: {
        // Tensor.__rtruediv__: self.reciprocal() * other
        auto r = c.emit("aten.reciprocal.default", {b});
        if (!r.ok()) return r;
        return c.emit("aten.mul.Tensor", {*r, a});
    }
    case BinOp::Pow: return c.emit("aten.pow.Scalar", {a, b});
    case BinOp::FloorDiv:
    case BinOp::Mod:
    case BinOp::MatMul: return makeError("a number on the left of this operator is not supported");
    default: break;
    }
    BinOp m = mirrored(info.op);
    return c.emit(std::string("aten.") + comparisonName(m) + ".Scalar", {b, a});
}

template <BinOp Op, bool Inplace>
Expected<Argument> binary(LowerCtx& c, const TorchCall& call) {
    static const char* names[] = {"add", "sub", "mul", "div", "div", "remainder",   "pow",        "matmul",     "lt",
                                  "le",  "gt",  "ge",  "eq",  "ne",  "bitwise_and", "bitwise_or", "bitwise_xor"};
    return lowerBinary(c, call, {Op, Inplace, names[static_cast<int>(Op)]});
}

Expected<Argument> neg(LowerCtx& c, const TorchCall& call) {
    if (call.args.size() != 1) return makeError("expects one operand");
    const Argument& a = call.args[0];
    if (a.kind == Argument::Kind::Int) {
        if (a.i == std::numeric_limits<int64_t>::min()) return makeError("integer overflow in size arithmetic");
        return Argument::ofInt(-a.i);
    }
    if (a.kind == Argument::Kind::Float) return Argument::ofFloat(-a.f);
    if (a.kind == Argument::Kind::Bool) return Argument::ofInt(a.b ? -1 : 0);
    if (c.isScalarNode(a)) return c.emitScalar("operator.neg", {a});
    if (!c.isTensor(a)) return makeError("operand must be a tensor or a number");
    return c.emit("aten.neg.default", {a});
}

Expected<Argument> pos(LowerCtx& c, const TorchCall& call) {
    if (call.args.size() != 1 || !(c.isScalar(call.args[0]) || c.isTensor(call.args[0])))
        return makeError("expects one tensor or number");
    return call.args[0];
}

Expected<Argument> invert(LowerCtx& c, const TorchCall& call) {
    if (call.args.size() != 1) return makeError("expects one operand");
    const Argument& a = call.args[0];
    if (a.kind == Argument::Kind::Int) return Argument::ofInt(~a.i);
    auto m = c.tensorMeta(a);
    if (!m) return makeError("operand must be a tensor or an int");
    return c.emit("aten.bitwise_not.default", {a});
}

// ---- indexing ---------------------------------------------------------------------------------

std::optional<int64_t> sliceBound(const Argument& a, bool& none) {
    none = a.isNone();
    if (none) return 0;
    return intOf(&a);
}

/// Tensor.__getitem__: None -> unsqueeze, int -> select, slice -> slice (full slices are
/// skipped), Ellipsis -> skip the remaining dims, tensors -> one aten.index over all of them.
Expected<Argument> indexTensor(LowerCtx& c, const Argument& x, const Argument& index) {
    auto m0 = c.tensorMeta(x);
    if (!m0) return makeError("indexed value is not a tensor");
    std::vector<Argument> items = index.kind == Argument::Kind::Tuple ? index.items : std::vector<Argument>{index};
    int64_t ndim = m0->dim(), consumed = 0;
    bool sawEllipsis = false;
    for (const auto& it : items) {
        switch (it.kind) {
        case Argument::Kind::None: break;
        case Argument::Kind::Ellipsis:
            if (sawEllipsis) return makeError("an index can only have a single ellipsis");
            sawEllipsis = true;
            break;
        case Argument::Kind::Int:
        case Argument::Kind::Slice: ++consumed; break;
        case Argument::Kind::List:
            // A list of ints (Falcon's fused[..., [-2], :]) indexes like an int64 tensor of it.
            for (const auto& e : it.items)
                if (e.kind != Argument::Kind::Int) return makeError("unsupported index " + it.repr());
            if (it.items.empty()) return makeError("unsupported index " + it.repr());
            ++consumed;
            break;
        case Argument::Kind::NodeRef: {
            auto tm = c.tensorMeta(it);
            if (!tm) return makeError("index '" + it.node->name() + "' is not a tensor");
            if (tm->dtype == DType::Bool || tm->dtype == DType::UInt8)
                return makeError("boolean mask indexing is not supported");
            if (!isIntegral(tm->dtype)) return makeError("tensors used as indices must be integer tensors");
            ++consumed;
            break;
        }
        default: return makeError("unsupported index " + it.repr());
        }
    }
    if (consumed > ndim) return makeError("too many indices for a tensor of dimension " + std::to_string(ndim));
    Argument cur = x;
    bool changed = false;
    int64_t dim = 0;
    std::vector<std::pair<int64_t, Argument>> advanced;
    for (const auto& it : items) {
        auto curMeta = c.tensorMeta(cur);
        if (!curMeta) return makeError("indexing produced a non-tensor");
        bool consumes = it.kind == Argument::Kind::Int || it.kind == Argument::Kind::Slice || it.isNode();
        if (consumes && dim >= curMeta->dim())
            return makeError("too many indices for a tensor of dimension " + std::to_string(ndim));
        switch (it.kind) {
        case Argument::Kind::None: {
            auto r = c.emit("aten.unsqueeze.default", {cur, Argument::ofInt(dim)});
            if (!r.ok()) return r;
            cur = *r;
            changed = true;
            ++dim;
            break;
        }
        case Argument::Kind::Ellipsis: dim += ndim - consumed; break;
        case Argument::Kind::Int: {
            int64_t size = curMeta->shape[static_cast<size_t>(dim)];
            int64_t i = it.i < 0 ? it.i + size : it.i;
            if (i < 0 || i >= size)
                return makeError("index " + std::to_string(it.i) + " is out of bounds for dimension " +
                                 std::to_string(dim) + " with size " + std::to_string(size));
            auto r = c.emit("aten.select.int", {cur, Argument::ofInt(dim), Argument::ofInt(it.i)});
            if (!r.ok()) return r;
            cur = *r;
            changed = true;
            break;
        }
        case Argument::Kind::Slice: {
            bool noStart = true, noStop = true, noStep = true;
            auto start = it.items.size() > 0 ? sliceBound(it.items[0], noStart) : std::optional<int64_t>(0);
            auto stop = it.items.size() > 1 ? sliceBound(it.items[1], noStop) : std::optional<int64_t>(0);
            auto step = it.items.size() > 2 ? sliceBound(it.items[2], noStep) : std::optional<int64_t>(0);
            if (!start || !stop || !step) return makeError("slice bounds must be ints or None");
            int64_t st = noStep ? 1 : *step;
            if (st <= 0) return makeError("slice step must be positive");
            int64_t b = noStart ? 0 : *start;
            int64_t e = noStop ? std::numeric_limits<int64_t>::max() : *stop;
            // x[:] / x[0:] / x[::1] select the whole dimension: PyTorch records no op for them.
            if (!(b == 0 && noStop && st == 1)) {
                std::vector<Argument> args{cur, Argument::ofInt(dim), Argument::ofInt(b), Argument::ofInt(e)};
                if (st != 1) args.push_back(Argument::ofInt(st));
                auto r = c.emit("aten.slice.Tensor", std::move(args));
                if (!r.ok()) return r;
                cur = *r;
                changed = true;
            }
            ++dim;
            break;
        }
        case Argument::Kind::NodeRef:
            advanced.emplace_back(dim, it);
            ++dim;
            break;
        case Argument::Kind::List: {
            // The lifted int64 constant AOT tracing makes of the list (on the indexed tensor's device).
            std::vector<double> vals;
            for (const auto& e : it.items) vals.push_back(static_cast<double>(e.i));
            TensorMeta im = TensorMeta::contiguous({static_cast<int64_t>(vals.size())}, DType::Int64, curMeta->device);
            advanced.emplace_back(dim, c.emitConstant(kern::makeTensor(im, vals)));
            ++dim;
            break;
        }
        default: break;
        }
    }
    if (!advanced.empty()) {
        std::vector<Argument> indices(static_cast<size_t>(advanced.back().first + 1), Argument::none());
        for (auto& [d, t] : advanced) indices[static_cast<size_t>(d)] = t;
        return c.emit("aten.index.Tensor", {cur, Argument::ofList(std::move(indices))});
    }
    if (!changed) return c.emit("aten.alias.default", {cur});  // x[...] / x[:] is a view of x
    return cur;
}

/// operator.setitem(x, index, value), Tensor.__setitem__ with a basic index (ints, slices, None,
/// Ellipsis): the indexed view of x, then copy_ (fill_ for a number) into it, which writes
/// through to x as the in-place ops of a functionalized graph do. The statement's value is x.
Expected<Argument> setitem(LowerCtx& c, const TorchCall& call) {
    if (call.args.size() != 3 || !call.kwargs.empty()) return makeError("expects a value, an index and a value");
    const Argument& x = call.args[0];
    const Argument& idx = call.args[1];
    const Argument& v = call.args[2];
    if (!c.isTensor(x)) return makeError("only tensors support item assignment");
    const std::vector<Argument> items = idx.kind == Argument::Kind::Tuple ? idx.items : std::vector<Argument>{idx};
    for (const auto& it : items)
        if (it.isNode() || it.kind == Argument::Kind::List)
            return makeError("assignment through a tensor or list index is not supported");
    auto view = indexTensor(c, x, idx);
    if (!view.ok()) return view;
    if (c.isTensor(v)) {
        auto r = c.emit("aten.copy_.default", {*view, v});
        if (!r.ok()) return r;
    } else if (c.isScalar(v)) {
        auto r = c.emit("aten.fill_.Scalar", {*view, v});
        if (!r.ok()) return r;
    } else {
        return makeError("the assigned value must be a tensor or a number");
    }
    return x;
}

Expected<Argument> getitem(LowerCtx& c, const TorchCall& call) {
    if (call.args.size() != 2 || !call.kwargs.empty()) return makeError("expects a value and an index");
    const Argument& obj = call.args[0];
    const Argument& idx = call.args[1];
    if (obj.isSequence()) {
        // A folded torch.Size or tuple of numbers.
        int64_t n = static_cast<int64_t>(obj.items.size());
        if (idx.kind == Argument::Kind::Int) {
            int64_t i = idx.i < 0 ? idx.i + n : idx.i;
            if (i < 0 || i >= n) return makeError("tuple index " + std::to_string(idx.i) + " out of range");
            return obj.items[static_cast<size_t>(i)];
        }
        if (idx.kind == Argument::Kind::Slice && idx.items.size() == 3) {
            bool ns = true, ne = true, nst = true;
            auto s = sliceBound(idx.items[0], ns), e = sliceBound(idx.items[1], ne), st = sliceBound(idx.items[2], nst);
            if (!s || !e || !st || (!nst && *st != 1)) return makeError("only unit-step slices of sizes are supported");
            auto clamp = [&](int64_t v) { return std::min(n, std::max<int64_t>(0, v < 0 ? v + n : v)); };
            int64_t b = ns ? 0 : clamp(*s), end = ne ? n : clamp(*e);
            std::vector<Argument> items;
            for (int64_t i = b; i < end; ++i) items.push_back(obj.items[static_cast<size_t>(i)]);
            return Argument::ofList(std::move(items), obj.kind == Argument::Kind::Tuple);
        }
        return makeError("unsupported index " + idx.repr() + " of a tuple");
    }
    if (!c.isTensor(obj)) return makeError("indexed value is neither a tensor nor a tuple");
    return indexTensor(c, obj, idx);
}

/// Folds a tensor's shape into a tuple: ints, and `aten.sym_size.int` nodes for symbolic sizes.
Expected<Argument> shapeOf(LowerCtx& c, const Argument& x) {
    auto items = c.sizeArgs(x);
    if (!items.ok()) return items.error();
    return Argument::ofList(std::move(items).value(), true);
}

/// builtins.getattr(x, 'shape' | 'dtype' | 'device' | 'ndim' | 'T' | 'mT' | 'is_cuda').
Expected<Argument> getattrRule(LowerCtx& c, const TorchCall& call) {
    if (call.args.size() != 2 || call.args[1].kind != Argument::Kind::String)
        return makeError("expects an attribute name");
    const Argument& x = call.args[0];
    const std::string& attr = call.args[1].s;
    auto m = c.tensorMeta(x);
    if (!m) return makeError("attribute of a value that is not a tensor");
    if (attr == "shape") return shapeOf(c, x);
    if (attr == "dtype") return Argument::ofDType(m->dtype);
    if (attr == "device") return Argument::ofDevice(m->device);
    if (attr == "ndim") return Argument::ofInt(m->dim());
    if (attr == "is_cuda") return Argument::ofBool(m->device.type == "cuda");
    if (attr == "T" || attr == "mT") {
        if (attr == "mT") return c.emit("aten.transpose.int", {x, Argument::ofInt(-2), Argument::ofInt(-1)});
        std::vector<Argument> dims;
        for (int64_t d = m->dim() - 1; d >= 0; --d) dims.push_back(Argument::ofInt(d));
        return c.emit("aten.permute.default", {x, Argument::ofList(std::move(dims))});
    }
    return makeError("unsupported tensor attribute '" + attr + "'");
}

const std::unordered_map<std::string_view, Rule>& table() {
    static const std::unordered_map<std::string_view, Rule> t = {
        {"operator.add", binary<BinOp::Add, false>},
        {"operator.sub", binary<BinOp::Sub, false>},
        {"operator.mul", binary<BinOp::Mul, false>},
        {"operator.truediv", binary<BinOp::TrueDiv, false>},
        {"operator.floordiv", binary<BinOp::FloorDiv, false>},
        {"operator.mod", binary<BinOp::Mod, false>},
        {"operator.pow", binary<BinOp::Pow, false>},
        {"operator.matmul", binary<BinOp::MatMul, false>},
        {"operator.lt", binary<BinOp::Lt, false>},
        {"operator.le", binary<BinOp::Le, false>},
        {"operator.gt", binary<BinOp::Gt, false>},
        {"operator.ge", binary<BinOp::Ge, false>},
        {"operator.eq", binary<BinOp::Eq, false>},
        {"operator.ne", binary<BinOp::Ne, false>},
        {"operator.and_", binary<BinOp::And, false>},
        {"operator.or_", binary<BinOp::Or, false>},
        {"operator.xor", binary<BinOp::Xor, false>},
        {"operator.iadd", binary<BinOp::Add, true>},
        {"operator.isub", binary<BinOp::Sub, true>},
        {"operator.imul", binary<BinOp::Mul, true>},
        {"operator.itruediv", binary<BinOp::TrueDiv, true>},
        {"operator.neg", neg},
        {"operator.pos", pos},
        {"operator.invert", invert},
        {"operator.getitem", getitem},
        {"operator.setitem", setitem},
        {"builtins.getattr", getattrRule},
    };
    return t;
}

}  // namespace

Rule findOperatorRule(std::string_view target) {
    auto it = table().find(target);
    return it == table().end() ? nullptr : it->second;
}

}  // namespace fxray::lowering
