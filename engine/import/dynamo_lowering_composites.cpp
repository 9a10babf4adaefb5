// Tensor functions that ATen implements as composites of other ops (CompositeImplicitAutograd:
// no aten op of their name reaches a graph), reachable both as `torch.X(t, ...)` and as
// `t.X(...)`: isfinite, positive, float_power, broadcast_to, argsort, msort, count_nonzero,
// nanmean, diff, vdot, new_tensor, movedim/moveaxis, tile, square and cross. Each emits the ops ATen's composite runs.
#include "exec/ops/kernel_util.h"
#include "import/dynamo_lowering_internal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace fxray::lowering {
namespace {

using Args = std::vector<Argument>;

Argument I(int64_t v) { return Argument::ofInt(v); }

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
    // x.tile(2, 3) passes the dims as varargs; torch.tile(x, (2, 3)) and x.tile((2, 3)) as one.
    if (call.args.size() > 2) {
        auto m = c.tensorMeta(call.args[0]);
        auto reps = varargSizes(call, 1);
        if (!m || !reps) return makeError("tile needs a tensor and int dims");
        Args r = reps->items;
        while (static_cast<int64_t>(r.size()) < m->dim()) r.insert(r.begin(), I(1));
        return c.emit("aten.repeat.default", {call.args[0], Argument::ofList(std::move(r))});
    }
    auto b = bindInput(c, call, {"input", "dims"});
    if (!b.ok()) return b.error();
    auto reps = b->p[1] ? intList(*b->p[1]) : std::nullopt;
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

/// The tensors of a sequence argument (torch.hstack([a, b])); an error names what is not one.
Expected<Args> tensorList(LowerCtx& c, const Argument* a) {
    if (!a || !a->isSequence() || a->items.empty()) return makeError("expects a non-empty sequence of tensors");
    for (const auto& t : a->items)
        if (!c.isTensor(t)) return makeError("expects a sequence of tensors");
    return a->items;
}

/// x viewed with at least `n` dims (atleast_1d/2d/3d's rules: 0-d -> [1]*n, 1-d [k] -> [1, k]
/// and [1, k, 1], 2-d [a, b] -> [a, b, 1]).
Expected<Argument> atLeast(LowerCtx& c, const Argument& x, int64_t n) {
    auto m = c.tensorMeta(x);
    if (!m) return makeError("expects a tensor");
    const auto& s = m->shape;
    if (m->dim() >= n) return x;
    std::vector<int64_t> to;
    if (s.empty()) to.assign(static_cast<size_t>(n), 1);
    else if (s.size() == 1) to = n == 2 ? std::vector<int64_t>{1, s[0]} : std::vector<int64_t>{1, s[0], 1};
    else to = {s[0], s[1], 1};
    Args sizes;
    for (int64_t v : to) sizes.push_back(I(v));
    return c.emit("aten.view.default", {x, Argument::ofList(std::move(sizes))});
}

template <int64_t N>
Expected<Argument> atLeastNd(LowerCtx& c, const TorchCall& call) {
    if (call.args.size() == 1 && c.isTensor(call.args[0]) && call.kwargs.empty()) return atLeast(c, call.args[0], N);
    const Argument* seq = call.args.size() == 1 ? &call.args[0] : nullptr;
    Args items = seq && seq->isSequence() ? seq->items : call.args;
    Args out;
    for (const auto& t : items) {
        auto r = atLeast(c, t, N);
        if (!r.ok()) return r;
        out.push_back(*r);
    }
    return Argument::ofList(std::move(out), true);
}

/// hstack / vstack / dstack / column_stack (and row_stack): cat of the operands made 1-, 2-, 3-
/// or column-shaped, along dim 0 for 1-d hstack operands, else 1, 0 and 2.
template <char Kind>
Expected<Argument> stackLike(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"tensors"});
    if (!p.ok()) return p.error();
    auto ts = tensorList(c, (*p)[0]);
    if (!ts.ok()) return ts.error();
    Args parts;
    int64_t dim = Kind == 'v' ? 0 : Kind == 'd' ? 2 : 1;
    for (const auto& t : *ts) {
        Expected<Argument> r = t;
        if (Kind == 'v') r = atLeast(c, t, 2);
        if (Kind == 'd') r = atLeast(c, t, 3);
        if (Kind == 'h') {
            r = atLeast(c, t, 1);
            auto m = c.tensorMeta(*r);
            if (m && m->dim() == 1 && ts->size() > 0) dim = 0;
        }
        if (Kind == 'c') {
            auto m = c.tensorMeta(t);
            if (m && m->dim() <= 1)
                r = c.emit("aten.view.default", {t, Argument::ofList({I(m->numel()), I(1)})});
        }
        if (!r.ok()) return r;
        parts.push_back(*r);
    }
    if (Kind == 'h') {
        auto m0 = c.tensorMeta(parts[0]);
        dim = m0 && m0->dim() == 1 ? 0 : 1;
    }
    return c.emit("aten.cat.default", {Argument::ofList(std::move(parts)), I(dim)});
}

/// fliplr / flipud: flip along dim 1 / 0.
template <int64_t Dim>
Expected<Argument> flipDim(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    if (b->m.dim() < Dim + 1) return makeError("input must have at least " + std::to_string(Dim + 1) + " dims");
    return c.emit("aten.flip.default", {b->x, Argument::ofList({I(Dim)})});
}

/// take_along_dim(x, indices, dim): gather along dim after broadcasting the other dims; no dim
/// gathers from the flattened x.
Expected<Argument> takeAlongDim(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "indices", "dim"});
    if (!b.ok()) return b.error();
    auto idx = needTensor(c, b->p[1], "indices");
    if (!idx.ok()) return idx;
    auto im = c.tensorMeta(*idx);
    if (!im) return makeError("indices must be a tensor");
    if (!given(b->p[2])) {
        auto flat = c.emit("aten.view.default", {b->x, Argument::ofList({I(-1)})});
        if (!flat.ok()) return flat;
        auto fi = c.emit("aten.view.default", {*idx, Argument::ofList({I(-1)})});
        if (!fi.ok()) return fi;
        return c.emit("aten.gather.default", {*flat, I(0), *fi});
    }
    auto d = intOf(b->p[2]);
    if (!d) return makeError("dim must be an int");
    const int64_t n = b->m.dim();
    const int64_t dim = *d < 0 ? *d + n : *d;
    if (dim < 0 || dim >= n || im->dim() != n) return makeError("indices must have input's rank and dim be in range");
    std::vector<int64_t> xs = b->m.shape, is = im->shape;
    xs[static_cast<size_t>(dim)] = is[static_cast<size_t>(dim)] = 1;
    auto both = kern::broadcastShapes(xs, is);
    if (!both) return makeError("input and indices do not broadcast");
    auto expandTo = [&](const Argument& t, const std::vector<int64_t>& own, int64_t keep) -> Expected<Argument> {
        std::vector<int64_t> to = *both;
        to[static_cast<size_t>(dim)] = keep;
        if (to == own) return t;
        Args sizes;
        for (int64_t v : to) sizes.push_back(I(v));
        return c.emit("aten.expand.default", {t, Argument::ofList(std::move(sizes))});
    };
    auto xe = expandTo(b->x, b->m.shape, b->m.shape[static_cast<size_t>(dim)]);
    if (!xe.ok()) return xe;
    auto ie = expandTo(*idx, im->shape, im->shape[static_cast<size_t>(dim)]);
    if (!ie.ok()) return ie;
    return c.emit("aten.gather.default", {*xe, I(dim), *ie});
}

/// isclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False): |a - b| <= atol + rtol * |b|, or equal
/// (infinities), or both NaN when equal_nan.
Expected<Argument> isclose(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "other", "rtol", "atol", "equal_nan"});
    if (!b.ok()) return b.error();
    auto y = needTensor(c, b->p[1], "other");
    if (!y.ok()) return y;
    const auto rtol = given(b->p[2]) ? numberOf(b->p[2]) : std::optional<double>(1e-5);
    const auto atol = given(b->p[3]) ? numberOf(b->p[3]) : std::optional<double>(1e-8);
    const auto eqnan = boolOf(b->p[4], false);
    if (!rtol || !atol || !eqnan) return makeError("rtol and atol must be numbers, equal_nan a bool");
    auto eq = c.emit("aten.eq.Tensor", {b->x, *y});
    if (!eq.ok()) return eq;
    if (!isFloating(b->m.dtype)) return eq;
    auto d = c.emit("aten.sub.Tensor", {b->x, *y});
    if (!d.ok()) return d;
    auto ad = c.emit("aten.abs.default", {*d});
    if (!ad.ok()) return ad;
    auto ay = c.emit("aten.abs.default", {*y});
    if (!ay.ok()) return ay;
    auto tol = c.emit("aten.mul.Tensor", {*ay, Argument::ofFloat(*rtol)});
    if (!tol.ok()) return tol;
    auto tol2 = c.emit("aten.add.Tensor", {*tol, Argument::ofFloat(*atol)});
    if (!tol2.ok()) return tol2;
    auto le = c.emit("aten.le.Tensor", {*ad, *tol2});
    if (!le.ok()) return le;
    auto r = c.emit("aten.logical_or.default", {*eq, *le});
    if (!r.ok() || !*eqnan) return r;
    auto nx = c.emit("aten.isnan.default", {b->x});
    if (!nx.ok()) return nx;
    auto ny = c.emit("aten.isnan.default", {*y});
    if (!ny.ok()) return ny;
    auto both = c.emit("aten.logical_and.default", {*nx, *ny});
    if (!both.ok()) return both;
    return c.emit("aten.logical_or.default", {*r, *both});
}

/// diag(x, diagonal=0): a 1-d x on a diagonal of a square matrix, a 2-d x's diagonal.
Expected<Argument> diag(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "diagonal"});
    if (!b.ok()) return b.error();
    const auto k = given(b->p[1]) ? intOf(b->p[1]) : std::optional<int64_t>(0);
    if (!k) return makeError("diagonal must be an int");
    if (b->m.dim() == 1) return c.emit("aten.diag_embed.default", {b->x, I(*k), I(0), I(1)});
    if (b->m.dim() == 2) {
        auto d = c.emit("aten.diagonal.default", {b->x, I(*k), I(0), I(1)});
        if (!d.ok()) return d;
        return c.emit("aten.clone.default", {*d});
    }
    return makeError("diag expects a 1-d or 2-d input");
}

/// broadcast_tensors(*tensors): each expanded to the common shape.
Expected<Argument> broadcastTensors(LowerCtx& c, const TorchCall& call) {
    Args ts = call.args.size() == 1 && call.args[0].isSequence() ? call.args[0].items : call.args;
    std::vector<int64_t> shape;
    for (const auto& t : ts) {
        auto m = c.tensorMeta(t);
        if (!m) return makeError("expects tensors");
        auto s = kern::broadcastShapes(shape, m->shape);
        if (!s) return makeError("the tensors do not broadcast");
        shape = *s;
    }
    Args sizes;
    for (int64_t v : shape) sizes.push_back(I(v));
    Args out;
    for (const auto& t : ts) {
        auto e = c.emit("aten.expand.default", {t, Argument::ofList(sizes)});
        if (!e.ok()) return e;
        out.push_back(*e);
    }
    return Argument::ofList(std::move(out), true);
}

/// tensordot(a, b, dims=2): a's contracted dims moved last and b's first, both flattened to
/// matrices, one mm, the free dims restored. `inner` is tensordot over both last dims.
Expected<Argument> contract(LowerCtx& c, const Argument& a, const Argument& b, std::vector<int64_t> da,
                            std::vector<int64_t> db) {
    auto ma = c.tensorMeta(a), mb = c.tensorMeta(b);
    if (!ma || !mb || da.size() != db.size()) return makeError("tensordot needs tensors and matching dims");
    const int64_t na = ma->dim(), nb = mb->dim();
    for (auto& d : da) d = d < 0 ? d + na : d;
    for (auto& d : db) d = d < 0 ? d + nb : d;
    int64_t k = 1;
    for (size_t i = 0; i < da.size(); ++i) {
        if (da[i] < 0 || da[i] >= na || db[i] < 0 || db[i] >= nb ||
            ma->shape[static_cast<size_t>(da[i])] != mb->shape[static_cast<size_t>(db[i])])
            return makeError("contracted dims do not match");
        k *= ma->shape[static_cast<size_t>(da[i])];
    }
    Args pa, pb, outShape;
    int64_t fa = 1, fb = 1;
    for (int64_t d = 0; d < na; ++d)
        if (std::find(da.begin(), da.end(), d) == da.end()) {
            pa.push_back(I(d));
            fa *= ma->shape[static_cast<size_t>(d)];
            outShape.push_back(I(ma->shape[static_cast<size_t>(d)]));
        }
    for (int64_t d : da) pa.push_back(I(d));
    for (int64_t d : db) pb.push_back(I(d));
    for (int64_t d = 0; d < nb; ++d)
        if (std::find(db.begin(), db.end(), d) == db.end()) {
            pb.push_back(I(d));
            fb *= mb->shape[static_cast<size_t>(d)];
            outShape.push_back(I(mb->shape[static_cast<size_t>(d)]));
        }
    auto ta = c.emit("aten.permute.default", {a, Argument::ofList(std::move(pa))});
    if (!ta.ok()) return ta;
    auto ra = c.emit("aten.reshape.default", {*ta, Argument::ofList({I(fa), I(k)})});
    if (!ra.ok()) return ra;
    auto tb = c.emit("aten.permute.default", {b, Argument::ofList(std::move(pb))});
    if (!tb.ok()) return tb;
    auto rb = c.emit("aten.reshape.default", {*tb, Argument::ofList({I(k), I(fb)})});
    if (!rb.ok()) return rb;
    auto mm = c.emit("aten.mm.default", {*ra, *rb});
    if (!mm.ok()) return mm;
    return c.emit("aten.view.default", {*mm, Argument::ofList(std::move(outShape))});
}

Expected<Argument> tensordot(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"a", "b", "dims"});
    if (!p.ok()) return p.error();
    auto a = needTensor(c, (*p)[0], "a");
    if (!a.ok()) return a;
    auto bt = needTensor(c, (*p)[1], "b");
    if (!bt.ok()) return bt;
    auto ma = c.tensorMeta(*a);
    std::vector<int64_t> da, db;
    const Argument* dims = (*p)[2];
    if (!given(dims) || dims->kind == Argument::Kind::Int) {
        const int64_t n = given(dims) ? dims->i : 2;
        if (!ma || n < 0 || n > ma->dim()) return makeError("dims out of range");
        for (int64_t i = 0; i < n; ++i) da.push_back(ma->dim() - n + i), db.push_back(i);
    } else if (dims->isSequence() && dims->items.size() == 2) {
        for (int side = 0; side < 2; ++side) {
            auto l = intList(dims->items[static_cast<size_t>(side)]);
            if (!l) return makeError("dims must be an int or two lists of ints");
            for (const auto& v : l->items) (side == 0 ? da : db).push_back(v.i);
        }
    } else {
        return makeError("dims must be an int or two lists of ints");
    }
    return contract(c, *a, *bt, da, db);
}

Expected<Argument> inner(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "other"});
    if (!b.ok()) return b.error();
    auto y = needTensor(c, b->p[1], "other");
    if (!y.ok()) return y;
    if (b->m.dim() == 0 || c.tensorMeta(*y)->dim() == 0) return c.emit("aten.mul.Tensor", {b->x, *y});
    return contract(c, b->x, *y, {-1}, {-1});
}

/// linalg.vecdot(x, y, dim=-1): sum over dim of x * y (real tensors).
Expected<Argument> vecdot(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "other", "dim"});
    if (!b.ok()) return b.error();
    auto y = needTensor(c, b->p[1], "other");
    if (!y.ok()) return y;
    const auto d = given(b->p[2]) ? intOf(b->p[2]) : std::optional<int64_t>(-1);
    if (!d) return makeError("dim must be an int");
    auto prod = c.emit("aten.mul.Tensor", {b->x, *y});
    if (!prod.ok()) return prod;
    return c.emit("aten.sum.dim_IntList", {*prod, Argument::ofList({I(*d)})});
}

/// linalg.multi_dot(tensors): mm left to right (a 1-d first or last operand as a row or column).
Expected<Argument> multiDot(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"tensors"});
    if (!p.ok()) return p.error();
    auto ts = tensorList(c, (*p)[0]);
    if (!ts.ok()) return ts.error();
    if (ts->size() < 2) return makeError("multi_dot needs at least two tensors");
    Argument acc = ts->front();
    for (size_t i = 1; i < ts->size(); ++i) {
        auto r = c.emit("aten.matmul.default", {acc, (*ts)[i]});
        if (!r.ok()) return r;
        acc = *r;
    }
    return acc;
}

/// linalg.norm(x, ord=None, dim=None, keepdim=False): the vector 2-norm (over all elements or the
/// given dim(s) as a vector norm, ord a number); the Frobenius norm of a 2-d dim pair.
Expected<Argument> linalgNorm(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "ord", "dim", "keepdim", "dtype"});
    if (!b.ok()) return b.error();
    if (given(b->p[4])) return makeError("linalg.norm with dtype is not supported");
    const auto keep = boolOf(b->p[3], false);
    if (!keep) return makeError("keepdim must be a bool");
    auto dims = dimsOf(b->p[2]);
    if (!dims.ok()) return dims.error();
    double ord = 2.0;
    if (given(b->p[1])) {
        if (b->p[1]->kind == Argument::Kind::String) {
            if (b->p[1]->s != "fro") return makeError("linalg.norm ord '" + b->p[1]->s + "' is not supported");
        } else {
            auto o = numberOf(b->p[1]);
            if (!o) return makeError("ord must be a number or 'fro'");
            const bool matrix = (*dims && (*dims)->items.size() == 2) || (!*dims && b->m.dim() == 2);
            if (matrix) return makeError("linalg.norm with a numeric ord over a matrix is not supported");
            ord = *o;
        }
    }
    return c.emit("aten.linalg_vector_norm.default",
                  {b->x, Argument::ofFloat(ord), *dims ? **dims : Argument::none(), Argument::ofBool(*keep)});
}

/// linalg.matrix_norm(x, ord='fro', dim=(-2, -1), keepdim=False): the Frobenius norm.
Expected<Argument> matrixNorm(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "ord", "dim", "keepdim", "dtype"});
    if (!b.ok()) return b.error();
    if (given(b->p[1]) && (b->p[1]->kind != Argument::Kind::String || b->p[1]->s != "fro"))
        return makeError("matrix_norm supports ord='fro' only");
    auto dims = dimsOf(b->p[2]);
    if (!dims.ok()) return dims.error();
    const auto keep = boolOf(b->p[3], false);
    if (!keep || given(b->p[4])) return makeError("keepdim must be a bool; dtype is not supported");
    return c.emit("aten.linalg_vector_norm.default",
                  {b->x, Argument::ofFloat(2.0), *dims ? **dims : Argument::ofList({I(-2), I(-1)}),
                   Argument::ofBool(*keep)});
}

/// linalg.slogdet(A) -> (sign, logabsdet); linalg.svd(A, full_matrices=True) -> (U, S, Vh).
Expected<Argument> slogdet(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    auto r = c.emit("aten._linalg_slogdet.default", {b->x});
    if (!r.ok()) return r;
    Args out;
    for (size_t i = 0; i < 2; ++i) {
        auto item = c.emitItem(*r, i);
        if (!item.ok()) return item;
        out.push_back(*item);
    }
    return Argument::ofList(std::move(out), true);
}

Expected<Argument> svd(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "full_matrices", "driver"});
    if (!b.ok()) return b.error();
    const auto full = boolOf(b->p[1], true);
    if (!full || given(b->p[2])) return makeError("full_matrices must be a bool; driver is not supported");
    auto r = c.emit("aten._linalg_svd.default", {b->x, Argument::ofBool(*full), Argument::ofBool(true)});
    if (!r.ok()) return r;
    Args out;
    for (size_t i = 0; i < 3; ++i) {
        auto item = c.emitItem(*r, i);
        if (!item.ok()) return item;
        out.push_back(*item);
    }
    return Argument::ofList(std::move(out), true);
}

/// linalg.det(A) / det(A): sign * exp(logabsdet) of _linalg_slogdet (0 for a singular A, whose
/// sign is 0 and logabsdet -inf).
Expected<Argument> det(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    auto r = c.emit("aten._linalg_slogdet.default", {b->x});
    if (!r.ok()) return r;
    auto sg = c.emitItem(*r, 0);
    if (!sg.ok()) return sg;
    auto lad = c.emitItem(*r, 1);
    if (!lad.ok()) return lad;
    auto e = c.emit("aten.exp.default", {*lad});
    if (!e.ok()) return e;
    return c.emit("aten.mul.Tensor", {*sg, *e});
}

/// matrix_power(A, n) for n >= 0: the identity for 0, else n - 1 matmuls (negative powers need
/// an inverse fxray has no op for: refused).
Expected<Argument> matrixPower(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "n"});
    if (!b.ok()) return b.error();
    const auto n = intOf(b->p[1]);
    if (!n) return makeError("n must be an int");
    if (*n < 0) return makeError("matrix_power with a negative exponent is not supported");
    if (b->m.dim() < 2 || b->m.shape[b->m.shape.size() - 1] != b->m.shape[b->m.shape.size() - 2])
        return makeError("matrix_power expects square matrices");
    if (*n == 0) {
        const int64_t k = b->m.shape.back();
        auto eye = c.emit("aten.eye.default", {I(k)},
                          {{"dtype", Argument::ofDType(b->m.dtype)}, {"device", Argument::ofDevice(b->m.device)}});
        if (!eye.ok()) return eye;
        Args sizes;
        for (int64_t v : b->m.shape) sizes.push_back(I(v));
        auto ex = c.emit("aten.expand.default", {*eye, Argument::ofList(std::move(sizes))});
        if (!ex.ok()) return ex;
        return c.emit("aten.clone.default", {*ex});
    }
    Argument acc = b->x;
    for (int64_t i = 1; i < *n; ++i) {
        auto r = c.emit("aten.matmul.default", {acc, b->x});
        if (!r.ok()) return r;
        acc = *r;
    }
    if (*n == 1) return c.emit("aten.clone.default", {acc});
    return acc;
}

/// dim wrapped into [0, rank) (a 0-d tensor has the one dim 0); nullopt when out of range.
std::optional<int64_t> wrapDim(int64_t d, int64_t rank) {
    const int64_t nd = std::max<int64_t>(rank, 1);
    const int64_t w = d < 0 ? d + nd : d;
    return w >= 0 && w < nd ? std::optional<int64_t>(w) : std::nullopt;
}

/// The input of a reduction over one dim or everything (quantile, median and their nan forms):
/// flattened when no dim is given (or it is 0-d), the dim wrapped, and the slices' length.
struct Along {
    Argument x;
    int64_t dim = 0;
    bool flat = false;
    int64_t n = 1;
};
Expected<Along> alongDim(LowerCtx& c, const InputCall& b, const Argument* dimArg) {
    Along a{b.x, 0, !given(dimArg), 1};
    if (!a.flat) {
        auto d = intOf(dimArg);
        if (!d) return makeError("dim must be an int");
        auto w = wrapDim(*d, b.m.dim());
        if (!w) return makeError("dim out of range");
        a.dim = *w;
    }
    if (a.flat || b.m.dim() == 0) {
        auto r = c.emit("aten.reshape.default", {a.x, Argument::ofList({I(-1)})});
        if (!r.ok()) return r.error();
        a.x = *r;
    }
    auto m = c.tensorMeta(a.x);
    if (!m) return makeError("expects a tensor");
    a.n = m->shape[static_cast<size_t>(a.dim)];
    return a;
}

/// The result of a reduction along `a`: keepdim puts the reduced dim back (all dims of size 1
/// for a flattened input of rank `rank`).
Expected<Argument> keptDim(LowerCtx& c, const Along& a, bool keep, int64_t rank, const Argument& r) {
    if (!keep) return r;
    if (!a.flat) return c.emit("aten.unsqueeze.default", {r, I(a.dim)});
    Args ones(static_cast<size_t>(rank), I(1));
    return c.emit("aten.reshape.default", {r, Argument::ofList(std::move(ones))});
}

/// The non-NaN values of each slice of `a` (kept dim), counted in `dtype`.
Expected<Argument> nonNanCount(LowerCtx& c, const Along& a, DType dtype) {
    auto nan = c.emit("aten.isnan.default", {a.x});
    if (!nan.ok()) return nan;
    auto kept = c.emit("aten.logical_not.default", {*nan});
    if (!kept.ok()) return kept;
    return c.emit("aten.sum.dim_IntList", {*kept, Argument::ofList({I(a.dim)}), Argument::ofBool(true)},
                  {{"dtype", Argument::ofDType(dtype)}});
}

/// quantile's and nanquantile's arguments after input: a number q in [0, 1], keepdim and the
/// interpolation.
struct QuantileArgs {
    double q = 0;
    bool keep = false;
    std::string how = "linear";
};
Expected<QuantileArgs> quantileArgs(const InputCall& b, const char* what) {
    if (!isFloating(b.m.dtype)) return makeError("quantile() input tensor must be either float or double dtype");
    const auto q = numberOf(b.p[1]);
    if (!q || *q < 0 || *q > 1)
        return makeError(std::string(what) + " supports a number q in [0, 1] (a tensor q is not supported)");
    const auto keep = boolOf(b.p[3], false);
    if (!keep) return makeError("keepdim must be a bool");
    QuantileArgs r{*q, *keep, "linear"};
    if (given(b.p[4])) {
        if (b.p[4]->kind != Argument::Kind::String) return makeError("interpolation must be a string");
        r.how = b.p[4]->s;
    }
    if (r.how != "linear" && r.how != "lower" && r.how != "higher" && r.how != "midpoint" && r.how != "nearest")
        return makeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest");
    return r;
}

/// quantile(x, q, dim=None, keepdim=False, interpolation='linear') for a number q: the sorted
/// values at floor and ceil of q (n - 1) along dim (the flattened x for no dim), combined as
/// interpolation says (lerp for 'linear', as ATen does); NaN where the slice holds a NaN (sorted
/// last).
Expected<Argument> quantile(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "q", "dim", "keepdim", "interpolation"});
    if (!b.ok()) return b.error();
    auto qa = quantileArgs(*b, "quantile");
    if (!qa.ok()) return qa.error();
    auto a = alongDim(c, *b, b->p[2]);
    if (!a.ok()) return a.error();
    if (a->n == 0) return makeError("quantile() input tensor must be non-empty");
    auto sorted = c.emit("aten.sort.default", {a->x, I(a->dim)});
    if (!sorted.ok()) return sorted;
    auto vals = c.emitItem(*sorted, 0);
    if (!vals.ok()) return vals;
    const double pos = qa->q * double(a->n - 1);
    const int64_t lo = static_cast<int64_t>(std::floor(pos)), hi = static_cast<int64_t>(std::ceil(pos));
    auto at = [&](int64_t i) { return c.emit("aten.select.int", {*vals, I(a->dim), I(i)}); };
    auto vlo = at(lo);
    if (!vlo.ok()) return vlo;
    auto vhi = at(hi);
    if (!vhi.ok()) return vhi;
    const std::string& how = qa->how;
    Expected<Argument> r = *vlo;
    if (how == "higher") r = *vhi;
    else if (how == "linear") r = c.emit("aten.lerp.Scalar", {*vlo, *vhi, Argument::ofFloat(pos - double(lo))});
    else if (how == "midpoint") r = c.emit("aten.lerp.Scalar", {*vlo, *vhi, Argument::ofFloat(0.5)});
    else if (how == "nearest") r = std::nearbyint(pos) == double(lo) ? *vlo : *vhi;  // half to even, as torch.round
    if (!r.ok()) return r;
    auto last = at(a->n - 1);
    if (!last.ok()) return last;
    auto nan = c.emit("aten.isnan.default", {*last});
    if (!nan.ok()) return nan;
    auto out = c.emit("aten.where.self", {*nan, *last, *r});
    if (!out.ok()) return out;
    return keptDim(c, *a, qa->keep, b->m.dim(), *out);
}

/// nanquantile(x, q, dim=None, keepdim=False, interpolation='linear') for a number q: quantile
/// over each slice's non-NaN values: the position q (count - 1) is a tensor (counts differ by
/// slice), the sorted values (NaN last) gathered at its floor and ceil; an all-NaN slice gives NaN.
Expected<Argument> nanquantile(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "q", "dim", "keepdim", "interpolation"});
    if (!b.ok()) return b.error();
    auto qa = quantileArgs(*b, "nanquantile");
    if (!qa.ok()) return qa.error();
    auto a = alongDim(c, *b, b->p[2]);
    if (!a.ok()) return a.error();
    auto sorted = c.emit("aten.sort.default", {a->x, I(a->dim)});
    if (!sorted.ok()) return sorted;
    auto vals = c.emitItem(*sorted, 0);
    if (!vals.ok()) return vals;
    auto cnt = nonNanCount(c, *a, b->m.dtype);
    if (!cnt.ok()) return cnt;
    auto less = c.emit("aten.sub.Tensor", {*cnt, I(1)});
    if (!less.ok()) return less;
    auto pos = c.emit("aten.mul.Tensor", {*less, Argument::ofFloat(qa->q)});
    if (!pos.ok()) return pos;
    auto index = [&](const char* round) -> Expected<Argument> {
        auto r = c.emit(round, {*pos});
        if (!r.ok()) return r;
        auto cl = c.emit("aten.clamp_min.default", {*r, I(0)});
        if (!cl.ok()) return cl;
        return c.emit("aten._to_copy.default", {*cl}, {{"dtype", Argument::ofDType(DType::Int64)}});
    };
    auto gatherAt = [&](const Expected<Argument>& idx) -> Expected<Argument> {
        if (!idx.ok()) return idx;
        return c.emit("aten.gather.default", {*vals, I(a->dim), *idx});
    };
    const std::string& how = qa->how;
    Expected<Argument> r = Argument::none();
    if (how == "nearest") {
        r = gatherAt(index("aten.round.default"));
    } else {
        auto below = gatherAt(index("aten.floor.default"));
        if (!below.ok()) return below;
        auto above = gatherAt(index("aten.ceil.default"));
        if (!above.ok()) return above;
        if (how == "lower") r = *below;
        else if (how == "higher") r = *above;
        else if (how == "midpoint") r = c.emit("aten.lerp.Scalar", {*below, *above, Argument::ofFloat(0.5)});
        else {
            auto fl = c.emit("aten.floor.default", {*pos});
            if (!fl.ok()) return fl;
            auto w = c.emit("aten.sub.Tensor", {*pos, *fl});
            if (!w.ok()) return w;
            r = c.emit("aten.lerp.Tensor", {*below, *above, *w});
        }
    }
    if (!r.ok()) return r;
    // The gathers kept the reduced dim: keepdim keeps it, else it goes.
    if (a->flat && qa->keep) return keptDim(c, *a, true, b->m.dim(), *r);
    if (a->flat || !qa->keep) return c.emit("aten.squeeze.dim", {*r, I(a->dim)});
    return r;
}

/// median(x) and median(x, dim, keepdim=False) -> (values, indices): the lower median, the
/// sorted values (and their indices) at (n - 1) / 2 along dim (the flattened x for no dim); NaN,
/// sorted last, where the slice holds one (with its index).
Expected<Argument> median(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "dim", "keepdim"});
    if (!b.ok()) return b.error();
    const auto keep = boolOf(b->p[2], false);
    if (!keep) return makeError("keepdim must be a bool");
    auto a = alongDim(c, *b, b->p[1]);
    if (!a.ok()) return a.error();
    if (a->n == 0) return makeError("median() input tensor must be non-empty");
    auto sorted = c.emit("aten.sort.default", {a->x, I(a->dim)});
    if (!sorted.ok()) return sorted;
    Args pick;
    for (size_t item = 0; item < 2; ++item) {
        auto t = c.emitItem(*sorted, item);
        if (!t.ok()) return t;
        auto mid = c.emit("aten.select.int", {*t, I(a->dim), I((a->n - 1) / 2)});
        if (!mid.ok()) return mid;
        auto last = c.emit("aten.select.int", {*t, I(a->dim), I(a->n - 1)});
        if (!last.ok()) return last;
        pick.push_back(*mid);
        pick.push_back(*last);
    }
    auto nan = c.emit("aten.isnan.default", {pick[1]});
    if (!nan.ok()) return nan;
    Args out;
    for (size_t item = 0; item < 2; ++item) {
        auto r = c.emit("aten.where.self", {*nan, pick[item * 2 + 1], pick[item * 2]});
        if (!r.ok()) return r;
        if (!a->flat) r = keptDim(c, *a, *keep, b->m.dim(), *r);
        if (!r.ok()) return r;
        out.push_back(*r);
    }
    if (a->flat) return out[0];
    return Argument::ofList(std::move(out), true);
}

/// nanmedian(x) and nanmedian(x, dim, keepdim=False) -> (values, indices): the lower median of
/// the non-NaN values: sorted (NaN last), gathered at (count - 1) / 2 per slice, the count of
/// non-NaN values in it (NaN, at 0, for an all-NaN slice).
Expected<Argument> nanmedian(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "dim", "keepdim"});
    if (!b.ok()) return b.error();
    const auto keep = boolOf(b->p[2], false);
    if (!keep) return makeError("keepdim must be a bool");
    auto a = alongDim(c, *b, b->p[1]);
    if (!a.ok()) return a.error();
    auto sorted = c.emit("aten.sort.default", {a->x, I(a->dim)});
    if (!sorted.ok()) return sorted;
    auto cnt = nonNanCount(c, *a, DType::Int64);
    if (!cnt.ok()) return cnt;
    auto less = c.emit("aten.sub.Tensor", {*cnt, I(1)});
    if (!less.ok()) return less;
    auto half = c.emit("aten.div.Tensor_mode", {*less, I(2)}, {{"rounding_mode", Argument::ofString("floor")}});
    if (!half.ok()) return half;
    auto k = c.emit("aten.clamp_min.default", {*half, I(0)});
    if (!k.ok()) return k;
    Args out;
    for (size_t item = 0; item < 2; ++item) {
        auto t = c.emitItem(*sorted, item);
        if (!t.ok()) return t;
        auto g = c.emit("aten.gather.default", {*t, I(a->dim), *k});
        if (!g.ok()) return g;
        if (a->flat || !*keep) {
            g = c.emit("aten.squeeze.dim", {*g, I(a->dim)});
            if (!g.ok()) return g;
        }
        out.push_back(*g);
    }
    if (a->flat) return out[0];
    return Argument::ofList(std::move(out), true);
}

/// kthvalue(x, k, dim=-1, keepdim=False) -> (values, indices): sort's values and indices at k - 1
/// along dim (NaN sorts last, as the largest).
Expected<Argument> kthvalue(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "k", "dim", "keepdim"});
    if (!b.ok()) return b.error();
    const auto k = intOf(b->p[1]);
    const auto d = given(b->p[2]) ? intOf(b->p[2]) : std::optional<int64_t>(-1);
    const auto keep = boolOf(b->p[3], false);
    if (!k || !d || !keep) return makeError("k and dim must be ints, keepdim a bool");
    const auto dim = wrapDim(*d, b->m.dim());
    if (!dim) return makeError("dim out of range");
    const int64_t n = b->m.dim() == 0 ? 1 : b->m.shape[static_cast<size_t>(*dim)];
    if (*k < 1 || *k > n) return makeError("kthvalue(): selected number k out of range for dimension " + std::to_string(*dim));
    auto sorted = c.emit("aten.sort.default", {b->x, I(*dim)});
    if (!sorted.ok()) return sorted;
    Args out;
    for (size_t item = 0; item < 2; ++item) {
        auto t = c.emitItem(*sorted, item);
        if (!t.ok()) return t;
        auto r = b->m.dim() == 0 ? Expected<Argument>(*t) : c.emit("aten.select.int", {*t, I(*dim), I(*k - 1)});
        if (!r.ok()) return r;
        if (*keep && b->m.dim() > 0) {
            r = c.emit("aten.unsqueeze.default", {*r, I(*dim)});
            if (!r.ok()) return r;
        }
        out.push_back(*r);
    }
    return Argument::ofList(std::move(out), true);
}

/// special.ndtr(x) = (1 + erf(x / sqrt 2)) / 2; special.entr(x) = -x log x (0 at 0, -inf below).
Expected<Argument> ndtr(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    auto s = c.emit("aten.mul.Tensor", {b->x, Argument::ofFloat(0.70710678118654752440)});
    if (!s.ok()) return s;
    auto e = c.emit("aten.erf.default", {*s});
    if (!e.ok()) return e;
    auto one = c.emit("aten.add.Tensor", {*e, I(1)});
    if (!one.ok()) return one;
    return c.emit("aten.mul.Tensor", {*one, Argument::ofFloat(0.5)});
}

Expected<Argument> entr(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    auto lg = c.emit("aten.log.default", {b->x});
    if (!lg.ok()) return lg;
    auto xl = c.emit("aten.mul.Tensor", {b->x, *lg});
    if (!xl.ok()) return xl;
    auto neg = c.emit("aten.neg.default", {*xl});
    if (!neg.ok()) return neg;
    auto zero = c.emit("aten.eq.Scalar", {b->x, I(0)});
    if (!zero.ok()) return zero;
    auto below = c.emit("aten.lt.Scalar", {b->x, I(0)});
    if (!below.ok()) return below;
    // 0 at 0 (0 * -inf is NaN), -inf below 0 (log gives NaN there).
    auto r0 = c.emit("aten.masked_fill.Scalar", {*neg, *zero, Argument::ofFloat(0.0)});
    if (!r0.ok()) return r0;
    return c.emit("aten.masked_fill.Scalar", {*r0, *below, Argument::ofFloat(-std::numeric_limits<double>::infinity())});
}

/// concatenate / concat(tensors, dim=0 or axis=0): cat (NumPy's axis keyword accepted).
Expected<Argument> concatenate(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"tensors", "dim", "axis"});
    if (!p.ok()) return p.error();
    auto ts = tensorList(c, (*p)[0]);
    if (!ts.ok()) return ts.error();
    const Argument* d = given((*p)[1]) ? (*p)[1] : (*p)[2];
    const auto dim = given(d) ? intOf(d) : std::optional<int64_t>(0);
    if (!dim) return makeError("dim must be an int");
    return c.emit("aten.cat.default", {Argument::ofList(*ts), I(*dim)});
}

const std::unordered_map<std::string_view, Rule>& table() {
    static const std::unordered_map<std::string_view, Rule> t = {
        {"isfinite", isfinite},     {"positive", positive},          {"float_power", floatPower},
        {"broadcast_to", broadcastTo}, {"argsort", argsort},         {"msort", msort},
        {"count_nonzero", countNonzero}, {"nanmean", nanmean},       {"diff", diff},
        {"vdot", vdot},             {"new_tensor", newTensor},      {"movedim", movedim},
        {"moveaxis", movedim},      {"tile", tile},                  {"square", square},
        {"cross", cross},           {"atleast_1d", atLeastNd<1>},    {"atleast_2d", atLeastNd<2>},
        {"atleast_3d", atLeastNd<3>}, {"hstack", stackLike<'h'>},    {"vstack", stackLike<'v'>},
        {"row_stack", stackLike<'v'>}, {"dstack", stackLike<'d'>},   {"column_stack", stackLike<'c'>},
        {"fliplr", flipDim<1>},     {"flipud", flipDim<0>},          {"take_along_dim", takeAlongDim},
        {"isclose", isclose},       {"diag", diag},                  {"broadcast_tensors", broadcastTensors},
        {"tensordot", tensordot},   {"inner", inner},                {"linalg_vecdot", vecdot},
        {"linalg_multi_dot", multiDot}, {"linalg_norm", linalgNorm}, {"linalg_matrix_norm", matrixNorm},
        {"linalg_slogdet", slogdet}, {"linalg_svd", svd},            {"special_ndtr", ndtr},
        {"special_entr", entr},     {"concatenate", concatenate},    {"concat", concatenate},
        {"linalg_det", det},        {"det", det},                    {"linalg_matrix_power", matrixPower},
        {"matrix_power", matrixPower},   {"quantile", quantile},     {"median", median},
        {"kthvalue", kthvalue},         {"nanmedian", nanmedian},   {"nanquantile", nanquantile},
    };
    return t;
}

}  // namespace

Rule findCompositeRule(std::string_view name) {
    auto it = table().find(name);
    return it == table().end() ? findCombineRule(name) : it->second;
}

}  // namespace fxray::lowering
