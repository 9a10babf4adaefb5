// More of ATen's composite tensor functions, reachable as `torch.X(...)` and `t.X(...)`: splits
// and products that rearrange tensors (tensor_split, kron, block_diag, cartesian_prod,
// combinations, sum_to_size), covariance (cov, corrcoef), and calls whose Python form orders
// arguments differently from the ATen op (polygamma, special.xlog1py). Each emits the ops ATen's
// composite runs (aten/src/ATen/native/TensorShape.cpp, Correlation.cpp, BinaryOps.cpp).
#include "exec/ops/kernel_util.h"
#include "import/dynamo_lowering_internal.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace fxray::lowering {
namespace {

using Args = std::vector<Argument>;

Argument I(int64_t v) { return Argument::ofInt(v); }

int64_t wrapDim(int64_t d, int64_t rank) { return d < 0 ? d + rank : d; }

/// The tensors of a varargs-or-sequence call (`f(a, b)` or `f([a, b])`), from position `first`.
Expected<Args> tensorsOf(LowerCtx& c, const TorchCall& call, size_t first) {
    Args out;
    if (call.args.size() == first + 1 && call.args[first].isSequence()) {
        out = call.args[first].items;
    } else {
        for (size_t i = first; i < call.args.size(); ++i) out.push_back(call.args[i]);
    }
    for (const auto& a : out)
        if (!c.isTensor(a)) return makeError("expects tensors");
    return out;
}

/// tensor_split(input, sections: int | indices: list, dim=0): sections split like
/// numpy.array_split (the first size % sections parts one longer); indices cut before each index.
Expected<Argument> tensorSplit(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "indices_or_sections", "dim"});
    if (!b.ok()) return b.error();
    if (!b->p[1]) return makeError("missing indices_or_sections");
    const auto dim0 = given(b->p[2]) ? intOf(b->p[2]) : std::optional<int64_t>(0);
    if (!dim0) return makeError("dim must be an int");
    const int64_t rank = b->m.dim();
    const int64_t dim = wrapDim(*dim0, rank);
    if (dim < 0 || dim >= rank) return makeError("dim out of range");
    const int64_t n = b->m.shape[static_cast<size_t>(dim)];
    std::vector<int64_t> cuts;  // boundaries, 0 and n included
    cuts.push_back(0);
    if (b->p[1]->kind == Argument::Kind::Int) {
        const int64_t k = b->p[1]->i;
        if (k <= 0) return makeError("number of sections must be larger than 0");
        if (k > (int64_t(1) << 16)) return makeError("too many sections for a graph (more than 65536)");
        for (int64_t i = 0; i < k; ++i) cuts.push_back(cuts.back() + n / k + (i < n % k ? 1 : 0));
    } else if (auto idx = intList(*b->p[1])) {
        for (const auto& v : idx->items) {
            if (v.kind != Argument::Kind::Int) return makeError("indices must be ints");
            cuts.push_back(std::clamp<int64_t>(wrapDim(v.i, n), cuts.back(), n));
        }
        cuts.push_back(n);
    } else {
        return makeError("indices_or_sections must be an int or a sequence of ints (a tensor is not supported)");
    }
    Args parts;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
        auto s = c.emit("aten.slice.Tensor", {b->x, I(dim), I(cuts[i]), I(cuts[i + 1])});
        if (!s.ok()) return s;
        parts.push_back(*s);
    }
    return Argument::ofList(std::move(parts), true);
}

/// kron(a, b): a's dim i interleaved before b's (the lower-rank one padded with leading 1s):
/// a as [a0, 1, a1, 1, ...] times b as [1, b0, 1, b1, ...], viewed as [a0*b0, a1*b1, ...].
Expected<Argument> kron(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "other"});
    if (!b.ok()) return b.error();
    auto y = needTensor(c, b->p[1], "other");
    if (!y.ok()) return y;
    auto ym = c.tensorMeta(*y);
    const int64_t rank = std::max(b->m.dim(), ym->dim());
    auto padded = [&](Argument t, int64_t r) -> Expected<Argument> {
        for (int64_t i = r; i < rank; ++i) {
            auto u = c.emit("aten.unsqueeze.default", {t, I(0)});
            if (!u.ok()) return u;
            t = *u;
        }
        return t;
    };
    auto a = padded(b->x, b->m.dim());
    if (!a.ok()) return a;
    auto o = padded(*y, ym->dim());
    if (!o.ok()) return o;
    for (int64_t i = 0; i < rank; ++i) {
        auto ua = c.emit("aten.unsqueeze.default", {*a, I(2 * i + 1)});
        if (!ua.ok()) return ua;
        a = *ua;
        auto uo = c.emit("aten.unsqueeze.default", {*o, I(2 * i)});
        if (!uo.ok()) return uo;
        o = *uo;
    }
    auto prod = c.emit("aten.mul.Tensor", {*a, *o});
    if (!prod.ok()) return prod;
    Args size;
    auto pm = c.tensorMeta(*prod);
    for (int64_t i = 0; i < rank; ++i)
        size.push_back(I(pm->shape[static_cast<size_t>(2 * i)] * pm->shape[static_cast<size_t>(2 * i + 1)]));
    return c.emit("aten.view.default", {*prod, Argument::ofList(std::move(size))});
}

/// block_diag(*tensors): ATen's op takes them as one list.
Expected<Argument> blockDiag(LowerCtx& c, const TorchCall& call) {
    if (!call.kwargs.empty()) return makeError("takes no keyword arguments");
    auto ts = tensorsOf(c, call, 0);
    if (!ts.ok()) return ts.error();
    return c.emit("aten.block_diag.default", {Argument::ofList(std::move(*ts))});
}

/// cartesian_prod(*tensors) of 1-D tensors: meshgrid (ij), each flattened, stacked as columns;
/// one tensor is returned as it is.
Expected<Argument> cartesianProd(LowerCtx& c, const TorchCall& call) {
    if (!call.kwargs.empty()) return makeError("takes no keyword arguments");
    auto ts = tensorsOf(c, call, 0);
    if (!ts.ok()) return ts.error();
    if (ts->empty()) return makeError("expects at least one tensor");
    std::vector<int64_t> sizes;
    for (const auto& t : *ts) {
        auto m = c.tensorMeta(t);
        if (m->dim() != 1) return makeError("expects one-dimensional tensors");
        sizes.push_back(m->shape[0]);
    }
    if (ts->size() == 1) return (*ts)[0];
    Args full, cols;
    for (int64_t s : sizes) full.push_back(I(s));
    for (size_t k = 0; k < ts->size(); ++k) {
        Args shape;
        for (size_t j = 0; j < sizes.size(); ++j) shape.push_back(I(j == k ? sizes[j] : 1));
        auto v = c.emit("aten.view.default", {(*ts)[k], Argument::ofList(std::move(shape))});
        if (!v.ok()) return v;
        auto e = c.emit("aten.expand.default", {*v, Argument::ofList(full)});
        if (!e.ok()) return e;
        auto f = c.emit("aten.reshape.default", {*e, Argument::ofList({I(-1)})});
        if (!f.ok()) return f;
        cols.push_back(*f);
    }
    return c.emit("aten.stack.default", {Argument::ofList(std::move(cols)), I(1)});
}

/// combinations(input, r=2, with_replacement=False) of a 1-D tensor: the r-tuples of positions
/// in lexicographic order (itertools.combinations / combinations_with_replacement), gathered
/// with constant index tensors and stacked as columns.
Expected<Argument> combinations(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "r", "with_replacement"});
    if (!b.ok()) return b.error();
    const auto r = given(b->p[1]) ? intOf(b->p[1]) : std::optional<int64_t>(2);
    const auto rep = boolOf(b->p[2], false);
    if (!r || !rep || *r < 1) return makeError("r must be a positive int and with_replacement a bool");
    if (*r > 64) return makeError("r larger than 64 is not supported");
    if (b->m.dim() != 1) return makeError("expects a one-dimensional tensor");
    const int64_t n = b->m.shape[0];
    std::vector<std::vector<double>> cols(static_cast<size_t>(*r));
    std::vector<int64_t> pick(static_cast<size_t>(*r), 0);
    // Odometer over non-decreasing (with replacement) or increasing index tuples.
    std::function<void(size_t, int64_t)> walk = [&](size_t k, int64_t from) {
        if (k == pick.size()) {
            for (size_t j = 0; j < pick.size(); ++j) cols[j].push_back(static_cast<double>(pick[j]));
            return;
        }
        for (int64_t i = from; i < n; ++i) {
            pick[k] = i;
            walk(k + 1, *rep ? i : i + 1);
            if (cols[0].size() > (size_t(1) << 20)) return;  // a graph constant stays small
        }
    };
    walk(0, 0);
    if (cols[0].size() > (size_t(1) << 20)) return makeError("too many combinations for a graph constant");
    if (cols[0].empty()) return makeError("no combinations (an empty result is not supported)");
    Args picked;
    for (const auto& col : cols) {
        TensorMeta im = TensorMeta::contiguous({static_cast<int64_t>(col.size())}, DType::Int64);
        im.device = b->m.device;
        Argument k = c.emitConstant(kern::makeTensor(im, col));
        auto idx = c.emit("aten.lift_fresh_copy.default", {k});
        if (!idx.ok()) return idx;
        auto s = c.emit("aten.index_select.default", {b->x, I(0), *idx});
        if (!s.ok()) return s;
        picked.push_back(*s);
    }
    return c.emit("aten.stack.default", {Argument::ofList(std::move(picked)), I(1)});
}

/// sum_to_size(*size): sums the leading dims and the dims `size` has as 1, back to `size`.
Expected<Argument> sumToSize(LowerCtx& c, const TorchCall& call) {
    if (!call.method || call.args.empty()) return makeError("sum_to_size is a tensor method");
    auto m = c.tensorMeta(call.args[0]);
    if (!m) return makeError("method called on a value that is not a tensor");
    auto size = varargSizes(call, 1);
    if (!size) return makeError("size must be ints");
    const int64_t lead = m->dim() - static_cast<int64_t>(size->items.size());
    if (lead < 0) return makeError("size has more dims than the tensor");
    Args dims;
    for (int64_t d = 0; d < m->dim(); ++d) {
        if (d < lead) {
            dims.push_back(I(d));
            continue;
        }
        const Argument& s = size->items[static_cast<size_t>(d - lead)];
        if (s.kind != Argument::Kind::Int) return makeError("size must be ints");
        const int64_t have = m->shape[static_cast<size_t>(d)];
        if (s.i == 1 && have != 1)
            dims.push_back(I(d));
        else if (s.i != have)
            return makeError("size is not expandable to the tensor's size");
    }
    if (dims.empty()) return call.args[0];
    auto r = c.emit("aten.sum.dim_IntList", {call.args[0], Argument::ofList(std::move(dims)), Argument::ofBool(true)});
    if (!r.ok()) return r;
    return c.emit("aten.view.default", {*r, *size});
}

/// cov(input, correction=1, fweights=None, aweights=None) of [variables, observations] (or one
/// variable): the centred observations' products over N - correction (clamped at 0, as ATen).
Expected<Argument> covOf(LowerCtx& c, const Argument& x0, const TensorMeta& m, int64_t correction) {
    if (m.dim() > 2) return makeError("expected input to have two or fewer dimensions");
    if (!isFloating(m.dtype)) return makeError("cov of a non-floating tensor is not supported");
    Argument x = x0;
    if (m.dim() < 2) {
        auto v = c.emit("aten.view.default", {x, Argument::ofList({I(1), I(-1)})});
        if (!v.ok()) return v;
        x = *v;
    }
    const int64_t n = m.dim() == 0 ? 1 : m.shape.back();
    auto mean = c.emit("aten.mean.dim", {x, Argument::ofList({I(1)}), Argument::ofBool(true)});
    if (!mean.ok()) return mean;
    auto xm = c.emit("aten.sub.Tensor", {x, *mean});
    if (!xm.ok()) return xm;
    auto t = c.emit("aten.t.default", {*xm});
    if (!t.ok()) return t;
    auto prod = c.emit("aten.mm.default", {*xm, *t});
    if (!prod.ok()) return prod;
    auto r = c.emit("aten.div.Scalar", {*prod, Argument::ofFloat(static_cast<double>(std::max<int64_t>(n - correction, 0)))});
    if (!r.ok()) return r;
    if (m.dim() < 2) return c.emit("aten.squeeze.default", {*r});
    return r;
}

Expected<Argument> cov(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "correction", "fweights", "aweights"});
    if (!b.ok()) return b.error();
    if (given(b->p[2]) || given(b->p[3])) return makeError("cov with fweights or aweights is not supported");
    const auto corr = given(b->p[1]) ? intOf(b->p[1]) : std::optional<int64_t>(1);
    if (!corr) return makeError("correction must be an int");
    return covOf(c, b->x, b->m, *corr);
}

/// corrcoef(input): cov scaled by the standard deviations on both sides, clipped to [-1, 1];
/// one variable gives c / c (1, or NaN for a constant), as ATen.
Expected<Argument> corrcoef(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    auto cv = covOf(c, b->x, b->m, 1);
    if (!cv.ok()) return cv;
    auto cm = c.tensorMeta(*cv);
    if (cm->dim() == 0) return c.emit("aten.div.Tensor", {*cv, *cv});
    auto d = c.emit("aten.diagonal.default", {*cv});
    if (!d.ok()) return d;
    auto sd = c.emit("aten.sqrt.default", {*d});
    if (!sd.ok()) return sd;
    auto col = c.emit("aten.unsqueeze.default", {*sd, I(1)});
    if (!col.ok()) return col;
    auto row = c.emit("aten.unsqueeze.default", {*sd, I(0)});
    if (!row.ok()) return row;
    auto r = c.emit("aten.div.Tensor", {*cv, *col});
    if (!r.ok()) return r;
    r = c.emit("aten.div.Tensor", {*r, *row});
    if (!r.ok()) return r;
    return c.emit("aten.clamp.default", {*r, Argument::ofFloat(-1.0), Argument::ofFloat(1.0)});
}

/// torch.polygamma(n, input) and input.polygamma(n): aten.polygamma(int n, Tensor self).
Expected<Argument> polygamma(LowerCtx& c, const TorchCall& call) {
    Args a = call.args;
    if (!call.kwargs.empty()) return makeError("keyword arguments are not supported");
    if (a.size() != 2) return makeError("takes n and a tensor");
    if (call.method) std::swap(a[0], a[1]);
    if (a[0].kind != Argument::Kind::Int || !c.isTensor(a[1])) return makeError("takes an int n and a tensor");
    return c.emit("aten.polygamma.default", {a[0], a[1]});
}

/// special.xlog1py(x, y): x * log1p(y), 0 where x is 0 unless y is NaN.
Expected<Argument> xlog1py(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "other"});
    if (!b.ok()) return b.error();
    auto y = needTensor(c, b->p[1], "other");
    if (!y.ok()) return y;
    auto l = c.emit("aten.log1p.default", {*y});
    if (!l.ok()) return l;
    auto prod = c.emit("aten.mul.Tensor", {b->x, *l});
    if (!prod.ok()) return prod;
    auto zero = c.emit("aten.eq.Scalar", {b->x, I(0)});
    if (!zero.ok()) return zero;
    auto nan = c.emit("aten.isnan.default", {*y});
    if (!nan.ok()) return nan;
    auto keep = c.emit("aten.logical_not.default", {*nan});
    if (!keep.ok()) return keep;
    auto both = c.emit("aten.logical_and.default", {*zero, *keep});
    if (!both.ok()) return both;
    return c.emit("aten.where.ScalarSelf", {*both, Argument::ofFloat(0.0), *prod});
}

/// LU factors and pivots for linalg_lu_solve(..., adjoint=True) to solve A X = B: like PyTorch,
/// _linalg_slogdet factors a contiguous A as Aᵀ (LAPACK's column-major view of it), so A is made
/// contiguous first and the factors are always Aᵀ's.
Expected<std::pair<Argument, Argument>> luOf(LowerCtx& c, const Argument& A) {
    auto dense = c.emit("aten.clone.default", {A}, {{"memory_format", Argument::ofMemoryFormat(MemoryFormat::Contiguous)}});
    if (!dense.ok()) return dense.error();
    auto r = c.emit("aten._linalg_slogdet.default", {*dense});
    if (!r.ok()) return r.error();
    auto lu = c.emitItem(*r, 2);
    if (!lu.ok()) return lu.error();
    auto piv = c.emitItem(*r, 3);
    if (!piv.ok()) return piv.error();
    return std::make_pair(*lu, *piv);
}

/// linalg.solve(A, B, *, left=True): A X = B through A's LU factors. B a vector (1-D, or A's
/// batch shape plus n) is solved as one column, as PyTorch decides.
Expected<Argument> linalgSolve(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"A", "B", "left", "out"});
    if (!b.ok()) return b.error();
    auto B = needTensor(c, b->p[1], "B");
    if (!B.ok()) return B;
    if (!boolOf(b->p[2], true).value_or(false)) return makeError("left=False is not supported");
    if (given(b->p[3])) return makeError("out= is not supported");
    auto bm = c.tensorMeta(*B);
    if (b->m.dim() < 2 || b->m.shape.back() != b->m.shape[b->m.shape.size() - 2])
        return makeError("A must be a batch of square matrices");
    const bool vector = bm->dim() == 1 ||
                        (bm->dim() == b->m.dim() - 1 &&
                         std::equal(bm->shape.begin(), bm->shape.end(), b->m.shape.begin()));
    Argument rhs = *B;
    if (vector) {
        auto u = c.emit("aten.unsqueeze.default", {rhs, I(-1)});
        if (!u.ok()) return u;
        rhs = *u;
    }
    auto f = luOf(c, b->x);
    if (!f.ok()) return f.error();
    auto x = c.emit("aten.linalg_lu_solve.default", {f->first, f->second, rhs}, {{"adjoint", Argument::ofBool(true)}});
    if (!x.ok() || !vector) return x;
    return c.emit("aten.squeeze.dim", {*x, I(-1)});
}

/// linalg.inv(A) / torch.inverse / A.inverse(): A X = I through A's LU factors.
Expected<Argument> linalgInv(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "out"});
    if (!b.ok()) return b.error();
    if (given(b->p[1])) return makeError("out= is not supported");
    if (b->m.dim() < 2 || b->m.shape.back() != b->m.shape[b->m.shape.size() - 2])
        return makeError("A must be a batch of square matrices");
    if (!isFloating(b->m.dtype)) return makeError("A must be a floating-point matrix");
    const int64_t n = b->m.shape.back();
    auto eye = c.emit("aten.eye.default", {I(n)},
                      {{"dtype", Argument::ofDType(b->m.dtype)}, {"device", Argument::ofDevice(b->m.device)}});
    if (!eye.ok()) return eye;
    Args full;
    for (int64_t s : b->m.shape) full.push_back(I(s));
    auto rhs = c.emit("aten.expand.default", {*eye, Argument::ofList(std::move(full))});
    if (!rhs.ok()) return rhs;
    auto f = luOf(c, b->x);
    if (!f.ok()) return f.error();
    return c.emit("aten.linalg_lu_solve.default", {f->first, f->second, *rhs}, {{"adjoint", Argument::ofBool(true)}});
}

/// torch.special.softmax / log_softmax: torch.softmax's and torch.log_softmax's rules.
template <const char* Target>
Expected<Argument> sameAs(LowerCtx& c, const TorchCall& call) {
    Rule r = findFunctionRule(Target);
    if (!r) return makeError(std::string("no rule for ") + Target);
    return r(c, call);
}
constexpr char kSoftmax[] = "torch.softmax";
constexpr char kLogSoftmax[] = "torch.log_softmax";

const std::unordered_map<std::string_view, Rule>& table() {
    static const std::unordered_map<std::string_view, Rule> t = {
        {"tensor_split", tensorSplit},   {"kron", kron},
        {"block_diag", blockDiag},       {"cartesian_prod", cartesianProd},
        {"combinations", combinations},  {"sum_to_size", sumToSize},
        {"cov", cov},                    {"corrcoef", corrcoef},
        {"polygamma", polygamma},        {"special_xlog1py", xlog1py},
        {"xlog1py", xlog1py},            {"special_softmax", sameAs<kSoftmax>},
        {"linalg_solve", linalgSolve},   {"linalg_inv", linalgInv},
        {"inverse", linalgInv},
        {"special_log_softmax", sameAs<kLogSoftmax>},
    };
    return t;
}

}  // namespace

Rule findCombineRule(std::string_view name) {
    auto it = table().find(name);
    return it == table().end() ? nullptr : it->second;
}

}  // namespace fxray::lowering
