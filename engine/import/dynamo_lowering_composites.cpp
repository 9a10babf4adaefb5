// Tensor functions that ATen implements as composites of other ops (CompositeImplicitAutograd:
// no aten op of their name reaches a graph), reachable both as `torch.X(t, ...)` and as
// `t.X(...)`: isfinite, positive, float_power, broadcast_to, argsort, msort, count_nonzero,
// nanmean, diff, vdot, new_tensor, movedim/moveaxis, tile, square and cross. Each emits the ops ATen's composite runs.
#include "exec/ops/kernel_util.h"
#include "import/dynamo_lowering_internal.h"

#include <unordered_map>

namespace fxray::lowering {
namespace {

using Args = std::vector<Argument>;

Argument I(int64_t v) { return Argument::ofInt(v); }

/// The first argument as the tensor `input` (self for a method), the rest bound by `names`.
struct Bound {
    Argument x;
    TensorMeta m;
    std::vector<const Argument*> p;
};
Expected<Bound> bindInput(LowerCtx& c, const TorchCall& call, std::initializer_list<std::string_view> names) {
    auto p = call.bind(names);
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x.error();
    auto m = c.tensorMeta(*x);
    if (!m) return makeError("input must be a tensor");
    return Bound{*x, *m, std::move(p).value()};
}

/// Dims argument (None, an int or a sequence of ints) as a list; nullopt for None / absent.
Expected<std::optional<Argument>> dimsOf(const Argument* a) {
    if (!given(a)) return std::optional<Argument>();
    auto l = intList(*a);
    if (!l) return makeError("dim must be an int or a sequence of ints");
    return std::optional<Argument>(*l);
}

/// isfinite(x): not (inf or nan) for floating x, all true otherwise.
Expected<Argument> isfinite(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    if (!isFloating(b->m.dtype)) {
        return c.emit("aten.ones_like.default", {b->x}, {{"dtype", Argument::ofDType(DType::Bool)}});
    }
    auto inf = c.emit("aten.isinf.default", {b->x});
    if (!inf.ok()) return inf;
    auto nan = c.emit("aten.isnan.default", {b->x});
    if (!nan.ok()) return nan;
    auto either = c.emit("aten.logical_or.default", {*inf, *nan});
    if (!either.ok()) return either;
    return c.emit("aten.logical_not.default", {*either});
}

/// positive(x): x itself (a view), refused for bool as PyTorch does.
Expected<Argument> positive(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    if (b->m.dtype == DType::Bool) return makeError("the + operator on a bool tensor is not supported");
    return c.emit("aten.alias.default", {b->x});
}

/// float_power(x, exponent): pow in double precision (complex128 is not supported).
Expected<Argument> floatPower(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "exponent"});
    if (!b.ok()) return b.error();
    if (!b->p[1]) return makeError("float_power needs an exponent");
    auto x = convertTo(c, b->x, DType::Float64, std::nullopt, false, std::nullopt);
    if (!x.ok()) return x;
    if (c.isTensor(*b->p[1])) {
        auto e = convertTo(c, *b->p[1], DType::Float64, std::nullopt, false, std::nullopt);
        if (!e.ok()) return e;
        return c.emit("aten.pow.Tensor_Tensor", {*x, *e});
    }
    auto e = numberOf(b->p[1]);
    if (!e) return makeError("exponent must be a number or a tensor");
    return c.emit("aten.pow.Tensor_Scalar", {*x, Argument::ofFloat(*e)});
}

/// broadcast_to(x, size): expand.
Expected<Argument> broadcastTo(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "size"});
    if (!b.ok()) return b.error();
    auto sizes = b->p[1] ? intList(*b->p[1]) : std::nullopt;
    if (!sizes) return makeError("size must be a sequence of ints");
    return c.emit("aten.expand.default", {b->x, *sizes});
}

/// argsort(x, dim=-1, descending=False, stable=False): sort's indices.
Expected<Argument> argsort(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "dim", "descending", "stable"});
    if (!b.ok()) return b.error();
    const auto dim = given(b->p[1]) ? intOf(b->p[1]) : std::optional<int64_t>(-1);
    const auto desc = boolOf(b->p[2], false), stable = boolOf(b->p[3], false);
    if (!dim || !desc || !stable) return makeError("dim must be an int, descending and stable bools");
    auto r = c.emit("aten.sort.stable", {b->x}, {{"stable", Argument::ofBool(*stable)}, {"dim", I(*dim)},
                                                 {"descending", Argument::ofBool(*desc)}});
    if (!r.ok()) return r;
    return c.emitItem(*r, 1);
}

/// msort(x): sort's values along dim 0.
Expected<Argument> msort(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    auto r = c.emit("aten.sort.default", {b->x, I(0)});
    if (!r.ok()) return r;
    return c.emitItem(*r, 0);
}

/// count_nonzero(x, dim=None): the int64 sum of x != 0.
Expected<Argument> countNonzero(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "dim"});
    if (!b.ok()) return b.error();
    auto dims = dimsOf(b->p[1]);
    if (!dims.ok()) return dims.error();
    auto nz = c.emit("aten.ne.Scalar", {b->x, I(0)});
    if (!nz.ok()) return nz;
    if (!*dims) return c.emit("aten.sum.default", {*nz}, {{"dtype", Argument::ofDType(DType::Int64)}});
    return c.emit("aten.sum.dim_IntList", {*nz, **dims, Argument::ofBool(false)},
                  {{"dtype", Argument::ofDType(DType::Int64)}});
}

/// nanmean(x, dim=None, keepdim=False, dtype=None): nansum over the count of non-NaN values.
Expected<Argument> nanmean(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "dim", "keepdim", "dtype"});
    if (!b.ok()) return b.error();
    if (!isFloating(b->m.dtype)) return makeError("nanmean expects a floating point input");
    auto dims = dimsOf(b->p[1]);
    if (!dims.ok()) return dims.error();
    const auto keep = boolOf(b->p[2], false);
    if (!keep) return makeError("keepdim must be a bool");
    Argument x = b->x;
    if (given(b->p[3])) {
        if (b->p[3]->kind != Argument::Kind::DType) return makeError("dtype must be a torch dtype");
        auto conv = convertTo(c, x, b->p[3]->dtype, std::nullopt, false, std::nullopt);
        if (!conv.ok()) return conv;
        x = *conv;
    }
    const Argument dl = *dims ? **dims : Argument::none();
    auto nan = c.emit("aten.isnan.default", {x});
    if (!nan.ok()) return nan;
    auto kept = c.emit("aten.logical_not.default", {*nan});
    if (!kept.ok()) return kept;
    auto cnt = c.emit("aten.sum.dim_IntList", {*kept, dl, Argument::ofBool(*keep)});
    if (!cnt.ok()) return cnt;
    auto s = c.emit("aten.nansum.default", {x, dl, Argument::ofBool(*keep)});
    if (!s.ok()) return s;
    return c.emit("aten.div.Tensor", {*s, *cnt});
}

/// diff(x, n=1, dim=-1, prepend=None, append=None): prepend and append concatenated along dim,
/// then n times the difference of neighbours (logical_xor for bool).
Expected<Argument> diff(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "n", "dim", "prepend", "append"});
    if (!b.ok()) return b.error();
    const auto n = given(b->p[1]) ? intOf(b->p[1]) : std::optional<int64_t>(1);
    const auto dim = given(b->p[2]) ? intOf(b->p[2]) : std::optional<int64_t>(-1);
    if (!n || !dim || *n < 0) return makeError("n must be a non-negative int and dim an int");
    if (b->m.dim() == 0) return makeError("diff expects input to be at least one-dimensional");
    Argument x = b->x;
    if (given(b->p[3]) || given(b->p[4])) {
        Args parts;
        if (given(b->p[3])) parts.push_back(*b->p[3]);
        parts.push_back(x);
        if (given(b->p[4])) parts.push_back(*b->p[4]);
        auto cat = c.emit("aten.cat.default", {Argument::ofList(std::move(parts)), I(*dim)});
        if (!cat.ok()) return cat;
        x = *cat;
    }
    for (int64_t k = 0; k < *n; ++k) {
        auto m = c.tensorMeta(x);
        if (!m) return makeError("diff needs a tensor");
        const int64_t d = *dim < 0 ? *dim + m->dim() : *dim;
        if (d < 0 || d >= m->dim()) return makeError("dim out of range");
        const int64_t len = m->shape[static_cast<size_t>(d)];
        if (len == 0) break;
        auto hi = c.emit("aten.slice.Tensor", {x, I(d), I(1), I(len)});
        if (!hi.ok()) return hi;
        auto lo = c.emit("aten.slice.Tensor", {x, I(d), I(0), I(len - 1)});
        if (!lo.ok()) return lo;
        auto r = m->dtype == DType::Bool ? c.emit("aten.logical_xor.default", {*hi, *lo})
                                         : c.emit("aten.sub.Tensor", {*hi, *lo});
        if (!r.ok()) return r;
        x = *r;
    }
    return x;
}

/// vdot(x, y) of real vectors: dot.
Expected<Argument> vdot(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "other"});
    if (!b.ok()) return b.error();
    auto y = needTensor(c, b->p[1], "other");
    if (!y.ok()) return y;
    if (isComplex(b->m.dtype)) return makeError("vdot of complex tensors is not supported");
    return c.emit("aten.dot.default", {b->x, *y});
}

/// Flattens a (nested) list of numbers; false for anything else or a ragged shape.
bool flatten(const Argument& a, size_t depth, std::vector<int64_t>& shape, std::vector<double>& out) {
    if (a.kind == Argument::Kind::Int || a.kind == Argument::Kind::Float || a.kind == Argument::Kind::Bool) {
        if (depth != shape.size()) return false;
        out.push_back(a.kind == Argument::Kind::Int ? static_cast<double>(a.i)
                      : a.kind == Argument::Kind::Bool ? (a.b ? 1.0 : 0.0)
                                                       : a.f);
        return true;
    }
    if (!a.isSequence()) return false;
    if (depth == shape.size())
        shape.push_back(static_cast<int64_t>(a.items.size()));
    else if (depth > shape.size() || shape[depth] != static_cast<int64_t>(a.items.size()))
        return false;
    for (const auto& x : a.items)
        if (!flatten(x, depth + 1, shape, out)) return false;
    return true;
}

/// x.new_tensor(data, dtype=None, device=None, requires_grad=False): a constant of the data with
/// x's dtype and device unless given (the lifted constant AOT tracing makes of it).
Expected<Argument> newTensor(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "data", "dtype", "device", "requires_grad"});
    if (!b.ok()) return b.error();
    if (!b->p[1]) return makeError("new_tensor needs data");
    if (boolOf(b->p[4], false).value_or(true)) return makeError("requires_grad=True is not supported");
    std::vector<int64_t> shape;
    std::vector<double> vals;
    if (!flatten(*b->p[1], 0, shape, vals)) return makeError("new_tensor data must be a (nested) list of numbers");
    DType dt = b->m.dtype;
    Device dev = b->m.device;
    if (given(b->p[2])) {
        if (b->p[2]->kind != Argument::Kind::DType) return makeError("dtype must be a torch dtype");
        dt = b->p[2]->dtype;
    }
    if (given(b->p[3])) {
        if (b->p[3]->kind != Argument::Kind::Device) return makeError("device must be a torch device");
        dev = b->p[3]->device;
    }
    return c.emitConstant(kern::makeTensor(TensorMeta::contiguous(shape, dt, dev), vals));
}

/// movedim(x, source, destination) (and moveaxis): the permutation that puts each source dim
/// at its destination, the other dims keeping their order.
Expected<Argument> movedim(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "source", "destination"});
    if (!b.ok()) return b.error();
    if (!b->p[1] || !b->p[2]) return makeError("movedim needs source and destination");
    auto src = intList(*b->p[1]), dst = intList(*b->p[2]);
    if (!src || !dst || src->items.size() != dst->items.size())
        return makeError("source and destination must be ints or sequences of ints of the same length");
    const int64_t n = b->m.dim();
    std::vector<int64_t> perm(static_cast<size_t>(n), -1);
    std::vector<bool> used(static_cast<size_t>(n), false);
    for (size_t k = 0; k < src->items.size(); ++k) {
        int64_t sd = src->items[k].i, dd = dst->items[k].i;
        sd = sd < 0 ? sd + n : sd;
        dd = dd < 0 ? dd + n : dd;
        if (sd < 0 || sd >= n || dd < 0 || dd >= n || perm[static_cast<size_t>(dd)] >= 0 || used[static_cast<size_t>(sd)])
            return makeError("movedim: invalid or repeated dims");
        perm[static_cast<size_t>(dd)] = sd;
        used[static_cast<size_t>(sd)] = true;
    }
    int64_t next = 0;
    for (auto& p : perm) {
        if (p >= 0) continue;
        while (used[static_cast<size_t>(next)]) ++next;
        p = next++;
    }
    Args dims;
    for (int64_t p : perm) dims.push_back(I(p));
    return c.emit("aten.permute.default", {b->x, Argument::ofList(std::move(dims))});
}

/// tile(x, dims): repeat with dims padded by leading 1s to x's rank (x gains leading dims when
/// dims is longer, as repeat does).
Expected<Argument> tile(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "dims"});
    if (!b.ok()) return b.error();
    std::optional<Argument> reps;
    if (b->p[1]) reps = intList(*b->p[1]);
    else if (call.args.size() > 2) reps = varargSizes(call, 1);
    if (!reps) return makeError("dims must be ints");
    Args r = reps->items;
    while (static_cast<int64_t>(r.size()) < b->m.dim()) r.insert(r.begin(), I(1));
    return c.emit("aten.repeat.default", {b->x, Argument::ofList(std::move(r))});
}

/// square(x): pow(x, 2).
Expected<Argument> square(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    return c.emit("aten.pow.Tensor_Scalar", {b->x, I(2)});
}

/// cross(x, other, dim=None): linalg_cross along dim, or along the first dim of size 3.
Expected<Argument> cross(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "other", "dim"});
    if (!b.ok()) return b.error();
    auto y = needTensor(c, b->p[1], "other");
    if (!y.ok()) return y;
    std::optional<int64_t> dim;
    if (given(b->p[2])) {
        dim = intOf(b->p[2]);
    } else {
        for (int64_t d = 0; d < b->m.dim() && !dim; ++d)
            if (b->m.shape[static_cast<size_t>(d)] == 3) dim = d;
    }
    if (!dim) return makeError("cross needs a dim of size 3");
    return c.emit("aten.linalg_cross.default", {b->x, *y, I(*dim)});
}

const std::unordered_map<std::string_view, Rule>& table() {
    static const std::unordered_map<std::string_view, Rule> t = {
        {"isfinite", isfinite},     {"positive", positive},          {"float_power", floatPower},
        {"broadcast_to", broadcastTo}, {"argsort", argsort},         {"msort", msort},
        {"count_nonzero", countNonzero}, {"nanmean", nanmean},       {"diff", diff},
        {"vdot", vdot},             {"new_tensor", newTensor},      {"movedim", movedim},
        {"moveaxis", movedim},      {"tile", tile},                  {"square", square},
        {"cross", cross},
    };
    return t;
}

}  // namespace

Rule findCompositeRule(std::string_view name) {
    auto it = table().find(name);
    return it == table().end() ? nullptr : it->second;
}

}  // namespace fxray::lowering
