// Lowerings of scatters as gathers: each output element reduces, over an extra dim j of the
// iteration space, the source elements whose index names it (scatter_add, scatter_reduce,
// scatter.src/value/reduce, index_reduce, index_copy, index_fill, unfold_backward, and
// masked_scatter through a prefix count of the mask). Quadratic in the indexed dim
// but fused into one kernel and free of write races; the reference kernel's semantics (no hit:
// self; include_self; mean dividing by the hit count plus one for self).
#include "codegen/lower_util.h"

#include "exec/ops/kernel_util.h"

#include <algorithm>
#include <limits>

namespace fxray::cg {

namespace {

size_t wrapDim(int64_t d, size_t n) { return static_cast<size_t>(d < 0 ? d + static_cast<int64_t>(n) : d); }

ExprP ic(int64_t v) { return econst(static_cast<double>(v), DType::Int64); }

/// Index i (0 <= i) clamped to [0, hi] (loads stay in bounds where a select discards them).
Index clampIndex(const Index& i, int64_t extent, int64_t hi) {
    if (extent - 1 <= hi) return i;
    return ivalue(ebinary(Op::Min, eindex(i), ic(hi)));
}

enum class Red : uint8_t { Sum, Prod, Mean, Max, Min, Set };

struct Scatter {
    int self = -1, index = -1, src = -1;  ///< src < 0: the scalar `value` (or 0-d `valueTensor`)
    double value = 0.0;
    int valueTensor = -1;
    size_t dim = 0;
    bool index1d = false;  ///< index_* ops: a 1-D index along dim, source sliced by it
    Red red = Red::Sum;
    bool includeSelf = true;
};

std::optional<Red> redOf(const std::string& s) {
    if (s == "sum" || s == "add") return Red::Sum;
    if (s == "prod" || s == "multiply") return Red::Prod;
    if (s == "mean") return Red::Mean;
    if (s == "amax") return Red::Max;
    if (s == "amin") return Red::Min;
    return std::nullopt;
}

std::optional<LValue> lowerScatter(LowerCtx& c, Scatter s) {
    if (s.self < 0 || s.index < 0 || !c.out().isTensor()) return std::nullopt;
    const TensorMeta om = c.outMeta();
    if (isComplex(om.dtype) || (om.dtype == DType::Bool && s.red != Red::Set)) return std::nullopt;
    if (s.red == Red::Mean && !isFloating(om.dtype)) return std::nullopt;
    std::vector<int64_t> shape = om.shape;
    const std::vector<int64_t> ishape = c.meta(s.index).shape;
    DType ct0 = computeType(om.dtype);
    // No index: nothing lands, the result is self (PyTorch checks nothing else then).
    if (c.meta(s.index).numel() == 0)
        return tensorValue(c.pointwise(om, {s.self}, [=](Loader& L, const std::vector<Index>& co) {
            return eto(eto(L.load(s.self, co), ct0), om.dtype);
        }));
    // scatter / scatter_add of a 0-d self by a 0-d index (which must be 0): src (or the value)
    // replaces self, or adds to it.
    if (shape.empty() && !s.index1d && ishape.empty() && (s.red == Red::Set || (s.red == Red::Sum && s.includeSelf))) {
        if (s.src >= 0 && !c.meta(s.src).shape.empty()) return std::nullopt;
        std::vector<int> deps{s.self};
        if (s.src >= 0) deps.push_back(s.src);
        if (s.valueTensor >= 0) deps.push_back(s.valueTensor);
        return tensorValue(c.pointwise(om, deps, [=](Loader& L, const std::vector<Index>&) {
            ExprP v = s.src >= 0 ? eto(L.load(s.src, {}), ct0)
                      : s.valueTensor >= 0 ? eto(L.load(s.valueTensor, {}), ct0)
                                           : econst(s.value, ct0);
            if (s.red == Red::Sum) v = ebinary(Op::Add, eto(L.load(s.self, {}), ct0), v);
            return eto(v, om.dtype);
        }));
    }
    // A 0-d self of an index_* op is indexed as one element along dim 0 (as PyTorch does): the
    // gathers run over shape [1] and the result is read back at [0].
    const bool scalar = shape.empty() && s.index1d;
    if (scalar) {
        shape = {1};
        s.dim = 0;
        if (s.src >= 0 && !c.meta(s.src).shape.empty()) return std::nullopt;
    }
    size_t n = shape.size();
    if (n == 0 || s.dim >= n) return std::nullopt;
    if (s.index1d ? ishape.size() > 1 : ishape.size() != n) return std::nullopt;
    int64_t J = s.index1d ? (ishape.empty() ? 1 : ishape[0]) : ishape[s.dim];
    if (J == 0 || c.meta(s.index).numel() == 0) return std::nullopt;
    for (size_t e = 0; e < n && !s.index1d; ++e)
        if (e != s.dim && ishape[e] > shape[e]) return std::nullopt;
    DType ct = computeType(om.dtype);
    std::vector<int64_t> in = shape;
    in.push_back(J);
    std::vector<bool> mask(n + 1, false);
    mask[n] = true;
    const int64_t dimSize = shape[s.dim];

    if (s.src >= 0 && !scalar && c.meta(s.src).shape.size() != n) return std::nullopt;

    // Where the j-th source element lands on output element p, and its value.
    auto hit = [=](Loader& L, const std::vector<Index>& co) {
        const Index& j = co[n];
        if (s.index1d) {
            ExprP iv =
                eto(L.load(s.index, ishape.empty() ? std::vector<Index>{} : std::vector<Index>{j}), DType::Int64);
            iv = ewhere(ebinary(Op::Lt, iv, ic(0)), ebinary(Op::Add, iv, ic(dimSize)), iv);
            return ebinary(Op::Eq, iv, eindex(co[s.dim]));
        }
        std::vector<Index> q(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n));
        ExprP valid = econst(1, DType::Bool);
        for (size_t e = 0; e < n; ++e) {
            if (e == s.dim) continue;
            if (ishape[e] < shape[e]) valid = ebinary(Op::And, valid, ebinary(Op::Lt, eindex(co[e]), ic(ishape[e])));
            q[e] = clampIndex(co[e], shape[e], ishape[e] - 1);
        }
        q[s.dim] = j;
        ExprP iv = eto(L.load(s.index, q), DType::Int64);
        iv = ewhere(ebinary(Op::Lt, iv, ic(0)), ebinary(Op::Add, iv, ic(dimSize)), iv);
        return ebinary(Op::And, valid, ebinary(Op::Eq, iv, eindex(co[s.dim])));
    };
    auto srcVal = [=](Loader& L, const std::vector<Index>& co) {
        if (s.src < 0) return s.valueTensor >= 0 ? eto(L.load(s.valueTensor, {}), ct) : econst(s.value, ct);
        if (scalar) return eto(L.load(s.src, {}), ct);
        std::vector<Index> q(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n));
        q[s.dim] = co[n];
        if (!s.index1d)
            for (size_t e = 0; e < n; ++e)
                if (e != s.dim) q[e] = clampIndex(co[e], shape[e], ishape[e] - 1);
        return eto(L.load(s.src, q), ct);
    };

    std::vector<int> deps{s.index};
    if (s.src >= 0) deps.push_back(s.src);
    if (s.valueTensor >= 0) deps.push_back(s.valueTensor);
    TensorMeta am = TensorMeta::contiguous(shape, ct, om.device);
    TensorMeta cm = TensorMeta::contiguous(shape, DType::Int64, om.device);
    int count = reduceTo(
        c, cm, in, mask, false, ReduceOp::Sum,
        [hit](Loader& L, const std::vector<Index>& co) { return eto(hit(L, co), DType::Int64); }, deps, ".hits");
    int acc = -1;
    if (!(s.red == Red::Set && s.src < 0)) {
        ReduceOp rop = s.red == Red::Prod  ? ReduceOp::Prod
                       : s.red == Red::Max ? ReduceOp::Max
                       : s.red == Red::Min ? ReduceOp::Min
                                           : ReduceOp::Sum;
        double ident = s.red == Red::Prod  ? 1.0
                       : s.red == Red::Max ? (isFloating(ct) ? -INFINITY : -9.223372036854775808e18)
                       : s.red == Red::Min ? (isFloating(ct) ? INFINITY : 9.223372036854775807e18)
                                           : 0.0;
        if (ct == DType::Bool) rop = ReduceOp::Any, ident = 0.0;
        acc = reduceTo(
            c, am, in, mask, false, rop,
            [hit, srcVal, ident, ct](Loader& L, const std::vector<Index>& co) {
                return ewhere(hit(L, co), srcVal(L, co), econst(ident, ct));
            },
            deps, ".acc");
    }
    std::vector<int> ins{s.self, count};
    if (acc >= 0) ins.push_back(acc);
    if (s.valueTensor >= 0) ins.push_back(s.valueTensor);
    const std::vector<int64_t> selfShape = c.meta(s.self).shape;
    return tensorValue(c.pointwise(om, ins, [=](Loader& L, const std::vector<Index>& outCo) {
        const std::vector<Index> co = scalar ? std::vector<Index>{iconst(0)} : outCo;
        ExprP self = eto(loadBroadcast(L, s.self, selfShape, co), ct);
        ExprP cnt = L.load(count, co);
        ExprP any = ebinary(Op::Gt, cnt, ic(0));
        ExprP a = acc >= 0             ? eto(L.load(acc, co), ct)
                  : s.valueTensor >= 0 ? eto(L.load(s.valueTensor, {}), ct)
                                       : econst(s.value, ct);
        ExprP r;
        switch (s.red) {
        case Red::Set: r = a; break;
        case Red::Sum:
            r = s.includeSelf ? (ct == DType::Bool ? ebinary(Op::Or, self, a) : ebinary(Op::Add, self, a)) : a;
            break;
        case Red::Prod: r = s.includeSelf ? ebinary(Op::Mul, self, a) : a; break;
        case Red::Max: r = s.includeSelf ? ebinary(Op::Max, self, a) : a; break;
        case Red::Min: r = s.includeSelf ? ebinary(Op::Min, self, a) : a; break;
        case Red::Mean: {
            ExprP num = s.includeSelf ? ebinary(Op::Add, self, a) : a;
            ExprP den = eto(ebinary(Op::Add, cnt, ic(s.includeSelf ? 1 : 0)), ct);
            r = ebinary(Op::Div, num, den);
            break;
        }
        }
        return ewhere(any, r, self);
    }));
}

Scatter basic(LowerCtx& c, Red red) {
    Scatter s;
    s.self = c.in(0);
    s.index = c.in(2);
    s.dim = c.out().isTensor() ? wrapDim(c.args().toInt(1), std::max<size_t>(c.outMeta().shape.size(), 1)) : 0;
    s.red = red;
    if (c.args()[3].isTensor())
        s.src = c.in(3);
    else if (c.args()[3].isNumber())
        s.value = c.args()[3].toDouble();
    else
        s.index = -1;
    return s;
}

std::optional<LValue> withReduce(LowerCtx& c, Scatter s, size_t reduceArg, size_t includeArg) {
    if (c.args()[reduceArg].kind != Value::Kind::String) return std::nullopt;
    auto r = redOf(c.args()[reduceArg].s);
    if (!r) return std::nullopt;
    s.red = *r;
    if (includeArg < c.args().size() && !c.args().isNone(includeArg)) s.includeSelf = c.args().toBool(includeArg);
    return lowerScatter(c, s);
}

/// max_unpool2d/3d(self, indices, output_size, ...): each output element gathers the input
/// elements of its (batch, channel) plane whose index is its flat position in the output plane.
std::optional<LValue> maxUnpool(LowerCtx& c, size_t k) {
    int x = c.in(0), idx = c.in(1);
    if (x < 0 || idx < 0 || !c.out().isTensor() || isComplex(c.outMeta().dtype)) return std::nullopt;
    const std::vector<int64_t> xs = c.meta(x).shape;
    TensorMeta om = c.outMeta();
    size_t n = om.shape.size();
    if (n < k + 1 || xs.size() != n || c.meta(idx).shape != xs || c.meta(x).numel() == 0) return std::nullopt;
    std::vector<int64_t> in = om.shape;
    for (size_t d = n - k; d < n; ++d) in.push_back(xs[d]);
    std::vector<bool> mask(n + k, false);
    for (size_t d = n; d < n + k; ++d) mask[d] = true;
    std::vector<int64_t> ostride(n, 0);
    int64_t s = 1;
    for (size_t d = n; d-- > n - k;) ostride[d] = s, s *= om.shape[d];
    DType ct = computeType(om.dtype);
    if (!isFloating(ct)) return std::nullopt;
    // Overlapping pooling windows repeat an index (with the same value): the element is written
    // once, so hits are combined with max, and a count says whether any hit.
    auto hitAt = [=](Loader& L, const std::vector<Index>& co, std::vector<Index>& xc) {
        xc.assign(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n - k));
        Index flat = iconst(0);
        for (size_t d = n - k; d < n; ++d) {
            xc.push_back(co[d + k]);
            flat = iadd(flat, imul(co[d], ostride[d]));
        }
        return ebinary(Op::Eq, eto(L.load(idx, xc), DType::Int64), eindex(flat));
    };
    TensorMeta am = TensorMeta::contiguous(om.shape, ct, om.device);
    int mx = reduceTo(
        c, am, in, mask, false, ReduceOp::Max,
        [=](Loader& L, const std::vector<Index>& co) {
            std::vector<Index> xc;
            ExprP hit = hitAt(L, co, xc);
            return ewhere(hit, eto(L.load(x, xc), ct), econst(-INFINITY, ct));
        },
        {x, idx}, ".max");
    int cnt = reduceTo(
        c, TensorMeta::contiguous(om.shape, DType::Int64, om.device), in, mask, false, ReduceOp::Sum,
        [=](Loader& L, const std::vector<Index>& co) {
            std::vector<Index> xc;
            return eto(hitAt(L, co, xc), DType::Int64);
        },
        {idx}, ".hits");
    return tensorValue(c.pointwise(om, {mx, cnt}, [=](Loader& L, const std::vector<Index>& co) {
        return ewhere(ebinary(Op::Gt, L.load(cnt, co), ic(0)), eto(L.load(mx, co), ct), econst(0, ct));
    }));
}

/// Flat (row-major) positions times elements: the prefix counts below are quadratic gathers.
constexpr int64_t kMaxPrefixWork = int64_t{1} << 22;

std::vector<int64_t> rowStrides(const std::vector<int64_t>& shape) {
    std::vector<int64_t> r(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) r[d - 1] = r[d] * shape[d];
    return r;
}

/// Row-major coordinates in `shape` of flat index k (0 <= k < numel).
std::vector<Index> unravel(const Index& k, const std::vector<int64_t>& shape) {
    const auto rows = rowStrides(shape);
    std::vector<Index> b(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) b[d] = d == 0 ? idiv(k, rows[d]) : imod(idiv(k, rows[d]), shape[d]);
    return b;
}

Index flatOf(const std::vector<Index>& co, const std::vector<int64_t>& shape) {
    const auto rows = rowStrides(shape);
    Index f = iconst(0);
    for (size_t d = 0; d < shape.size(); ++d) f = iadd(f, imul(co[d], rows[d]));
    return f;
}

/// For each position p of `shape`: how many positions k <= p (row-major) the mask (broadcast to
/// shape) selects, the rank of p among the selected ones plus one.
int maskRank(LowerCtx& c, int mask, const std::vector<int64_t>& shape) {
    const std::vector<int64_t> mshape = c.meta(mask).shape;
    const int64_t N = kern::product(shape);
    std::vector<int64_t> in = shape;
    in.push_back(N);
    std::vector<bool> m(in.size(), false);
    m.back() = true;
    const size_t n = shape.size();
    return reduceTo(
        c, TensorMeta::contiguous(shape, DType::Int64, c.outMeta().device), in, m, false, ReduceOp::Sum,
        [=](Loader& L, const std::vector<Index>& co) {
            std::vector<Index> p(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n));
            const Index& k = co[n];
            ExprP sel = eto(loadBroadcast(L, mask, mshape, unravel(k, shape)), DType::Bool);
            ExprP before = ebinary(Op::Le, eindex(k), eindex(flatOf(p, shape)));
            return eto(ebinary(Op::And, sel, before), DType::Int64);
        },
        {mask}, ".rank");
}

/// masked_scatter(self, mask, source): where mask (broadcast) is set, the next element of
/// source in row-major order (Inductor's decomposition: a prefix count of the mask), else self.
std::optional<LValue> maskedScatter(LowerCtx& c) {
    const int self = c.in(0), mask = c.in(1), src = c.in(2);
    if (self < 0 || mask < 0 || src < 0 || !c.out().isTensor() || isComplex(c.outMeta().dtype)) return std::nullopt;
    const TensorMeta om = c.outMeta();
    const std::vector<int64_t> shape = om.shape, sshape = c.meta(src).shape, selfShape = c.meta(self).shape,
                               mshape = c.meta(mask).shape;
    const int64_t N = kern::product(shape), S = kern::product(sshape);
    const DType ct = computeType(om.dtype);
    // An empty source fills nothing (the mask selects nothing, or PyTorch would have failed):
    // the result is self.
    if (S == 0 && N > 0)
        return tensorValue(c.pointwise(om, {self}, [=](Loader& L, const std::vector<Index>& co) {
            return eto(loadBroadcast(L, self, selfShape, co), ct);
        }));
    if (shape.empty() || N == 0 || S == 0 || N > kMaxPrefixWork / N) return std::nullopt;
    const int rank = maskRank(c, mask, shape);
    return tensorValue(c.pointwise(om, {self, mask, src, rank}, [=](Loader& L, const std::vector<Index>& co) {
        ExprP sel = eto(loadBroadcast(L, mask, mshape, co), DType::Bool);
        ExprP j = ebinary(Op::Sub, L.load(rank, co), ic(1));
        j = ebinary(Op::Min, ebinary(Op::Max, j, ic(0)), ic(S - 1));
        ExprP v = eto(L.load(src, unravel(ivalue(j), sshape)), ct);
        return ewhere(sel, v, eto(loadBroadcast(L, self, selfShape, co), ct));
    }));
}

/// masked_scatter_backward(grad_output, mask, sizes): element j of the source's gradient is the
/// gradient at the j-th selected position (row-major), 0 past the last.
std::optional<LValue> maskedScatterBackward(LowerCtx& c) {
    const int g = c.in(0), mask = c.in(1);
    if (g < 0 || mask < 0 || !c.out().isTensor() || isComplex(c.outMeta().dtype)) return std::nullopt;
    const TensorMeta om = c.outMeta();
    const std::vector<int64_t> gshape = c.meta(g).shape, mshape = c.meta(mask).shape, oshape = om.shape;
    const int64_t N = kern::product(gshape), S = kern::product(oshape);
    if (gshape.empty() || N == 0 || S == 0 || N > kMaxPrefixWork / N || S > kMaxPrefixWork / N) return std::nullopt;
    const int rank = maskRank(c, mask, gshape);
    const DType ct = computeType(om.dtype);
    const size_t n = oshape.size();
    std::vector<int64_t> in = oshape;
    in.push_back(N);
    std::vector<bool> m(in.size(), false);
    m.back() = true;
    return tensorValue(reduceTo(
        c, TensorMeta::contiguous(oshape, om.dtype, om.device), in, m, false, ReduceOp::Sum,
        [=](Loader& L, const std::vector<Index>& co) {
            const std::vector<Index> kc = unravel(co[n], gshape);
            Index j = flatOf(std::vector<Index>(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n)), oshape);
            ExprP sel = eto(loadBroadcast(L, mask, mshape, kc), DType::Bool);
            ExprP hit = ebinary(Op::And, sel, ebinary(Op::Eq, L.load(rank, kc), ebinary(Op::Add, eindex(j), ic(1))));
            return ewhere(hit, eto(L.load(g, kc), ct), econst(0, ct));
        },
        {g, mask, rank}));
}

/// {reflection,replication}_pad{1,2,3}d_backward(grad_output, self, padding): each input element
/// gathers the gradient of every output position that read it (per padded dim: reflect about
/// the edges or clamp to them), over the padded dims' output positions.
std::optional<LValue> padBackward(LowerCtx& c, size_t k, bool reflect) {
    const int g = c.in(0);
    if (g < 0 || !c.out().isTensor() || isComplex(c.outMeta().dtype)) return std::nullopt;
    const TensorMeta om = c.outMeta();
    const std::vector<int64_t> gs = c.meta(g).shape, shape = om.shape;
    const auto pad = c.args().toIntList(2);
    const size_t n = shape.size();
    if (n < k || gs.size() != n || pad.size() != 2 * k) return std::nullopt;
    int64_t work = 1;
    std::vector<int64_t> lo(k);
    for (size_t d = 0; d < k; ++d) {
        // padding lists the last dim first: (left, right, top, bottom, front, back).
        lo[d] = pad[2 * (k - 1 - d)];
        work *= gs[n - k + d];
        if (shape[n - k + d] <= 0 || (reflect && lo[d] >= shape[n - k + d])) return std::nullopt;
    }
    if (kern::product(shape) == 0 || work > kMaxPrefixWork / std::max<int64_t>(kern::product(shape), 1))
        return std::nullopt;
    std::vector<int64_t> in = shape;
    for (size_t d = 0; d < k; ++d) in.push_back(gs[n - k + d]);
    std::vector<bool> m(in.size(), false);
    std::fill(m.begin() + static_cast<std::ptrdiff_t>(n), m.end(), true);
    const DType ct = computeType(om.dtype);
    return tensorValue(
        reduceTo(c, TensorMeta::contiguous(shape, om.dtype, om.device), in, m, false, ReduceOp::Sum,
                 [=](Loader& L, const std::vector<Index>& co) {
                     std::vector<Index> gc(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n));
                     ExprP hit = econst(1, DType::Bool);
                     for (size_t d = 0; d < k; ++d) {
                         const int64_t size = shape[n - k + d];
                         gc[n - k + d] = co[n + d];
                         ExprP j = ebinary(Op::Sub, eindex(co[n + d]), ic(lo[d]));
                         if (reflect) {
                             j = ebinary(Op::Max, j, ebinary(Op::Sub, ic(0), j));               // |j|
                             j = ebinary(Op::Min, j, ebinary(Op::Sub, ic(2 * (size - 1)), j));  // reflect past the end
                         } else {
                             j = ebinary(Op::Min, ebinary(Op::Max, j, ic(0)), ic(size - 1));
                         }
                         hit = ebinary(Op::And, hit, ebinary(Op::Eq, j, eindex(co[n - k + d])));
                     }
                     return ewhere(hit, eto(L.load(g, gc), ct), econst(0, ct));
                 },
                 {g}));
}

/// unfold_backward(grad_in, input_sizes, dim, size, step): each input element along dim sums
/// the window elements (i, k) with i * step + k equal to its position.
std::optional<LValue> unfoldBackward(LowerCtx& c) {
    const int g = c.in(0);
    if (g < 0 || !c.out().isTensor()) return std::nullopt;
    const TensorMeta om = c.outMeta();
    const std::vector<int64_t> gs = c.meta(g).shape, shape = om.shape;
    const size_t n = shape.size();
    const int64_t step = c.args().toInt(4);
    if (step <= 0 || isComplex(om.dtype)) return std::nullopt;
    const DType ct = computeType(om.dtype);
    if (n == 0) {
        // A 0-d input has one window of one element.
        if (gs.size() != 1 || gs[0] != 1) return std::nullopt;
        return tensorValue(c.pointwise(
            om, {g}, [g, ct](Loader& L, const std::vector<Index>&) { return eto(L.load(g, {iconst(0)}), ct); }));
    }
    const size_t dim = wrapDim(c.args().toInt(2), n);
    if (dim >= n || gs.size() != n + 1) return std::nullopt;
    const int64_t windows = gs[dim], size = gs[n];
    std::vector<int64_t> in = shape;
    in.push_back(windows);
    in.push_back(size);
    std::vector<bool> mask(n + 2, false);
    mask[n] = mask[n + 1] = true;
    return tensorValue(reduceTo(c, TensorMeta::contiguous(shape, om.dtype, om.device), in, mask, false, ReduceOp::Sum,
                                [=](Loader& L, const std::vector<Index>& co) {
                                    std::vector<Index> gc(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n));
                                    gc[dim] = co[n];
                                    gc.push_back(co[n + 1]);
                                    ExprP at = eindex(iadd(imul(co[n], step), co[n + 1]));
                                    ExprP hit = ebinary(Op::Eq, at, eindex(co[dim]));
                                    return ewhere(hit, eto(L.load(g, gc), ct), econst(0, ct));
                                },
                                {g}));
}

}  // namespace

void addScatterLowerings(std::map<std::string, LowerFn>& t) {
    t["aten.scatter_add.default"] = [](LowerCtx& c) { return lowerScatter(c, basic(c, Red::Sum)); };
    t["aten.scatter.src"] = t["aten.scatter.value"] = [](LowerCtx& c) { return lowerScatter(c, basic(c, Red::Set)); };
    t["aten.scatter.reduce"] =
        t["aten.scatter.value_reduce"] = [](LowerCtx& c) { return withReduce(c, basic(c, Red::Sum), 4, 99); };
    t["aten.scatter_reduce.two"] = [](LowerCtx& c) { return withReduce(c, basic(c, Red::Sum), 4, 5); };
    t["aten.index_reduce.default"] = [](LowerCtx& c) {
        Scatter s = basic(c, Red::Sum);
        s.index1d = true;
        return withReduce(c, s, 4, 5);
    };
    t["aten.max_unpool2d.default"] = [](LowerCtx& c) { return maxUnpool(c, 2); };
    t["aten.unfold_backward.default"] = unfoldBackward;
    // index_fill.int_Tensor: the fill value is a 0-d tensor.
    t["aten.index_fill.int_Tensor"] = [](LowerCtx& c) -> std::optional<LValue> {
        Scatter s = basic(c, Red::Set);
        s.index1d = true;
        if (s.src < 0 || !c.meta(s.src).shape.empty()) return std::nullopt;
        s.valueTensor = s.src;
        s.src = -1;
        return lowerScatter(c, s);
    };
    // bucketize.Tensor(self, boundaries, *, out_int32, right) and searchsorted.Tensor(boundaries,
    // self, *, out_int32, right, side, sorter=None): the number of boundaries below (right: not
    // above) each element, which is the binary search's answer for sorted boundaries; NaN lands
    // past the end. searchsorted's boundaries may be rows matching self's leading dims.
    auto search = [](LowerCtx& c) -> std::optional<LValue> {
        const bool bucketize = c.node().opName() == "aten.bucketize.Tensor";
        const int x = c.in(bucketize ? 0 : 1), b = c.in(bucketize ? 1 : 0);
        if (x < 0 || b < 0 || !c.out().isTensor()) return std::nullopt;
        bool right = c.args().toBool(3);
        if (!bucketize) {
            if (!c.args().isNone(5)) return std::nullopt;  // sorter: the reference kernel
            if (!c.args().isNone(4)) right = c.args()[4].s == "right";
        }
        const std::vector<int64_t> shape = c.meta(x).shape, bshape = c.meta(b).shape;
        const bool rows = bshape.size() > 1;
        if (bshape.empty() || (rows && bshape.size() != shape.size())) return std::nullopt;
        const int64_t nb = bshape.back();
        const DType xt = computeType(c.meta(x).dtype), bt = computeType(c.meta(b).dtype);
        if (isComplex(c.meta(x).dtype) || xt == DType::Bool || xt != bt || nb == 0) return std::nullopt;
        std::vector<int64_t> in = shape;
        in.push_back(nb);
        std::vector<bool> m(in.size(), false);
        m.back() = true;
        const size_t n = shape.size();
        const int below = reduceTo(
            c, TensorMeta::contiguous(shape, DType::Int64, c.outMeta().device), in, m, false, ReduceOp::Sum,
            [=](Loader& L, const std::vector<Index>& co) {
                ExprP v =
                    eto(L.load(x, std::vector<Index>(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n))), xt);
                std::vector<Index> bc = {co[n]};
                if (rows) {
                    bc.assign(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n - 1));
                    bc.push_back(co[n]);
                }
                ExprP bv = eto(L.load(b, bc), xt);
                ExprP under = right ? ebinary(Op::Le, bv, v) : ebinary(Op::Lt, bv, v);
                return eto(ebinary(Op::Or, under, eunary(Op::IsNan, v)), DType::Int64);
            },
            {x, b}, ".below");
        return tensorValue(c.pointwise(c.outMeta(), {below},
                                       [below](Loader& L, const std::vector<Index>& co) { return L.load(below, co); }));
    };
    t["aten.bucketize.Tensor"] = t["aten.searchsorted.Tensor"] = search;
    // isin.Tensor_Tensor(elements, test_elements, *, assume_unique, invert): whether any test
    // element equals the element (== : NaN is never found).
    t["aten.isin.Tensor_Tensor"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int e = c.in(0), tt = c.in(1);
        if (e < 0 || tt < 0 || !c.out().isTensor()) return std::nullopt;
        const DType et = computeType(c.meta(e).dtype), tt2 = computeType(c.meta(tt).dtype);
        const std::vector<int64_t> shape = c.meta(e).shape, tshape = c.meta(tt).shape;
        const int64_t nt = kern::product(tshape);
        if (isComplex(c.meta(e).dtype) || et != tt2 || nt == 0 || shape.empty()) return std::nullopt;
        const bool invert = c.args().toBool(3);
        std::vector<int64_t> in = shape;
        in.push_back(nt);
        std::vector<bool> m(in.size(), false);
        m.back() = true;
        const size_t n = shape.size();
        const int found = reduceTo(
            c, TensorMeta::contiguous(shape, DType::Bool, c.outMeta().device), in, m, false, ReduceOp::Any,
            [=](Loader& L, const std::vector<Index>& co) {
                ExprP v =
                    eto(L.load(e, std::vector<Index>(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(n))), et);
                return ebinary(Op::Eq, v, eto(L.load(tt, unravel(co[n], tshape)), et));
            },
            {e, tt}, ".found");
        return tensorValue(c.pointwise(c.outMeta(), {found}, [found, invert](Loader& L, const std::vector<Index>& co) {
            ExprP f = eto(L.load(found, co), DType::Bool);
            return invert ? eunary(Op::Not, f) : f;
        }));
    };
    t["aten.masked_scatter.default"] = maskedScatter;
    t["aten.reflection_pad1d_backward.default"] = [](LowerCtx& c) { return padBackward(c, 1, true); };
    t["aten.reflection_pad2d_backward.default"] = [](LowerCtx& c) { return padBackward(c, 2, true); };
    t["aten.reflection_pad3d_backward.default"] = [](LowerCtx& c) { return padBackward(c, 3, true); };
    t["aten.replication_pad1d_backward.default"] = [](LowerCtx& c) { return padBackward(c, 1, false); };
    t["aten.replication_pad2d_backward.default"] = [](LowerCtx& c) { return padBackward(c, 2, false); };
    t["aten.replication_pad3d_backward.default"] = [](LowerCtx& c) { return padBackward(c, 3, false); };
    t["aten.masked_scatter_backward.default"] = maskedScatterBackward;
    t["aten.max_unpool3d.default"] = [](LowerCtx& c) { return maxUnpool(c, 3); };
    t["aten.index_copy.default"] = t["aten.index_fill.int_Scalar"] = [](LowerCtx& c) {
        Scatter s = basic(c, Red::Set);
        s.index1d = true;
        if (s.src >= 0 && c.node().opName() == "aten.index_fill.int_Scalar") return std::optional<LValue>{};
        return lowerScatter(c, s);
    };
}

}  // namespace fxray::cg
