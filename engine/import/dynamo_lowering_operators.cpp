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

/// x after an index's basic part (None -> unsqueeze, int -> select, slice -> slice, full slices
/// skipped, Ellipsis -> skip the remaining dims), and its tensor indices by the dim of that view
/// they start at (applySlicing's split of Tensor.__getitem__ and __setitem__). Boolean masks
/// (`masks`, assignment only: a read through one has a data-dependent shape) cover as many dims
/// as they have.
struct BasicIndexed {
    Argument view;
    std::vector<std::pair<int64_t, Argument>> advanced;
    bool changed = false;
    bool mask = false;  ///< one of the advanced indices is a boolean mask
};

Expected<BasicIndexed> basicIndex(LowerCtx& c, const Argument& x, const Argument& index, bool masks) {
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
            if (tm->dtype == DType::Bool || tm->dtype == DType::UInt8) {
                if (!masks) return makeError("boolean mask indexing is not supported");
                if (tm->dim() == 0) return makeError("a 0-d boolean index is not supported");
                consumed += std::max<int64_t>(tm->dim(), 1);
                break;
            }
            if (!isIntegral(tm->dtype)) return makeError("tensors used as indices must be integer tensors");
            ++consumed;
            break;
        }
        default: return makeError("unsupported index " + it.repr());
        }
    }
    if (consumed > ndim) return makeError("too many indices for a tensor of dimension " + std::to_string(ndim));
    Argument cur = x;
    bool changed = false, sawMask = false;
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
            if (!r.ok()) return r.error();
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
            if (!r.ok()) return r.error();
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
                if (!r.ok()) return r.error();
                cur = *r;
                changed = true;
            }
            ++dim;
            break;
        }
        case Argument::Kind::NodeRef: {
            advanced.emplace_back(dim, it);
            const auto tm = c.tensorMeta(it);
            const bool isMask = tm && (tm->dtype == DType::Bool || tm->dtype == DType::UInt8);
            if (isMask && tm->dim() > curMeta->dim() - dim)
                return makeError("too many indices for a tensor of dimension " + std::to_string(ndim));
            sawMask = sawMask || isMask;
            dim += isMask ? std::max<int64_t>(tm->dim(), 1) : 1;
            break;
        }
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
    return BasicIndexed{cur, std::move(advanced), changed, sawMask};
}

/// The Tensor?[] list of aten.index / index_put_: each tensor index at the dim it starts at.
Argument indexList(const std::vector<std::pair<int64_t, Argument>>& advanced) {
    std::vector<Argument> indices(static_cast<size_t>(advanced.back().first + 1), Argument::none());
    for (auto& [d, t] : advanced) indices[static_cast<size_t>(d)] = t;
    return Argument::ofList(std::move(indices));
}

/// Tensor.__getitem__: the basic part as views, tensors -> one aten.index over all of them.
Expected<Argument> indexTensor(LowerCtx& c, const Argument& x, const Argument& index) {
    auto b = basicIndex(c, x, index, false);
    if (!b.ok()) return b.error();
    if (!b->advanced.empty()) return c.emit("aten.index.Tensor", {b->view, indexList(b->advanced)});
    if (!b->changed) return c.emit("aten.alias.default", {b->view});  // x[...] / x[:] is a view of x
    return b->view;
}

/// The value of `x[tensor index] = v` as index_put_ takes it: a number becomes a 0-d tensor of
/// x's dtype on x's device (valueToTensor), a tensor loses its leading size-1 dims
/// (slicePrefix1sSize).
Expected<Argument> assignedValues(LowerCtx& c, const TensorMeta& xm, const Argument& v) {
    if (c.isScalar(v)) {
        if (v.kind != Argument::Kind::Int && v.kind != Argument::Kind::Float && v.kind != Argument::Kind::Bool)
            return makeError("assignment of a symbolic number through a tensor index is not supported");
        const double d = v.kind == Argument::Kind::Int    ? static_cast<double>(v.i)
                         : v.kind == Argument::Kind::Bool ? (v.b ? 1.0 : 0.0)
                                                          : v.f;
        return c.emitConstant(kern::makeTensor(TensorMeta::contiguous({}, xm.dtype, xm.device), {d}));
    }
    const auto vm = c.tensorMeta(v);
    if (!vm) return makeError("the assigned value must be a tensor or a number");
    size_t lead = 0;
    while (lead < vm->shape.size() && vm->shape[lead] == 1) ++lead;
    if (lead == 0) return v;
    std::vector<Argument> sizes;
    for (size_t d = lead; d < vm->shape.size(); ++d) sizes.push_back(Argument::ofInt(vm->shape[d]));
    return c.emit("aten.view.default", {v, Argument::ofList(std::move(sizes))});
}

/// operator.setitem(x, index, value), Tensor.__setitem__: the basic part of the index as a view
/// of x, then
/// - no tensor index: copy_ (fill_ for a number) into the view;
/// - a boolean mask and one value (a number or a one-element tensor): masked_fill_ of the view,
///   the mask aligned to the dims it covers;
/// - else index_put_ into the view with the tensor indices, as THPVariable_setitem dispatches.
/// The writes go through to x as the in-place ops of a functionalized graph do; the statement's
/// value is x.
Expected<Argument> setitem(LowerCtx& c, const TorchCall& call) {
    if (call.args.size() != 3 || !call.kwargs.empty()) return makeError("expects a value, an index and a value");
    const Argument& x = call.args[0];
    const Argument& idx = call.args[1];
    const Argument& v = call.args[2];
    auto xm = c.tensorMeta(x);
    if (!xm) return makeError("only tensors support item assignment");
    const TensorMeta xmeta = *xm;
    auto b = basicIndex(c, x, idx, true);
    if (!b.ok()) return b.error();
    if (!c.isTensor(v) && !c.isScalar(v)) return makeError("the assigned value must be a tensor or a number");
    Expected<Argument> r = Argument::none();
    if (b->advanced.empty()) {
        Argument view = b->view;
        if (!b->changed) {
            auto a = c.emit("aten.alias.default", {view});
            if (!a.ok()) return a;
            view = *a;
        }
        r = c.isTensor(v) ? c.emit("aten.copy_.default", {view, v}) : c.emit("aten.fill_.Scalar", {view, v});
    } else {
        if (b->mask && b->advanced.size() != 1)
            return makeError("assignment through a boolean mask together with other tensor indices is not supported");
        const auto vm = c.tensorMeta(v);
        const bool single = !vm || vm->numel() == 1;
        if (b->mask && single) {
            // The mask covers dims [d, d + k) of the view: trailing size-1 dims make it
            // broadcast against the view's remaining dims.
            const auto& [d, mask] = b->advanced.front();
            const auto mm = c.tensorMeta(mask);
            const auto viewMeta = c.tensorMeta(b->view);
            if (!mm || !viewMeta) return makeError("indexing produced a non-tensor");
            Argument m = mask;
            if (mm->dtype == DType::UInt8) {
                auto cv = c.emit("aten._to_copy.default", {m}, {{"dtype", Argument::ofDType(DType::Bool)}});
                if (!cv.ok()) return cv;
                m = *cv;
            }
            for (int64_t k = d + std::max<int64_t>(mm->dim(), 1); k < viewMeta->dim(); ++k) {
                auto u = c.emit("aten.unsqueeze.default", {m, Argument::ofInt(-1)});
                if (!u.ok()) return u;
                m = *u;
            }
            if (vm) {
                auto one = c.emit("aten.view.default", {v, Argument::ofList({})});
                if (!one.ok()) return one;
                r = c.emit("aten.masked_fill_.Tensor", {b->view, m, *one});
            } else {
                r = c.emit("aten.masked_fill_.Scalar", {b->view, m, v});
            }
        } else {
            auto values = assignedValues(c, xmeta, v);
            if (!values.ok()) return values.error();
            r = c.emit("aten.index_put_.default", {b->view, indexList(b->advanced), *values});
        }
    }
    if (!r.ok()) return r;
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
