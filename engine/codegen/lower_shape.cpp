// Lowerings of shape ops that are index arithmetic but not views of one base in PyTorch's sense
// (flip, roll, repeat: copies), the diagonal view, triangular masks, and the backwards that
// scatter a gradient into zeros (slice_backward, diagonal_backward, diag_embed).
#include "codegen/lowering.h"

#include <algorithm>

namespace fxray::cg {

namespace {

int64_t wrapDim(int64_t d, size_t n) { return d < 0 ? d + static_cast<int64_t>(n) : d; }

/// A pointwise copy of input 0 read at mapped coordinates.
std::optional<LValue> gatherCopy(LowerCtx& c, ViewFn map) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor() || isComplex(c.outMeta().dtype)) return std::nullopt;
    return tensorValue(c.pointwise(c.outMeta(), {x},
                                   [x, map](Loader& L, const std::vector<Index>& co) { return L.load(x, map(co)); }));
}

/// i in [0, n) reversed: n - 1 - i.
Index reversed(const Index& i, int64_t n) { return iadd(iconst(n - 1), imul(i, -1)); }

/// tril/triu: x where the element is on the kept side of diagonal `k`, else 0.
std::optional<LValue> triangle(LowerCtx& c, bool lower) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor() || isComplex(c.outMeta().dtype)) return std::nullopt;
    const auto& shape = c.meta(x).shape;
    if (shape.size() < 2) return std::nullopt;
    int64_t kd = c.args().isNone(1) ? 0 : c.args().toInt(1);
    DType ct = computeType(c.outMeta().dtype);
    size_t n = shape.size();
    return tensorValue(c.pointwise(c.outMeta(), {x}, [=](Loader& L, const std::vector<Index>& co) {
        // col - row compared with k
        ExprP d = ebinary(Op::Sub, eindex(co[n - 1]), eindex(co[n - 2]));
        ExprP keep = ebinary(lower ? Op::Le : Op::Ge, d, econst(static_cast<double>(kd), DType::Int64));
        return ewhere(keep, eto(L.load(x, co), ct), econst(0, ct));
    }));
}

/// The coordinates of a diagonal's elements: the base's dims without dim1/dim2, then the
/// diagonal index (PyTorch's order); `base` receives the base coordinates for out coords `co`.
std::vector<Index> diagonalBase(const std::vector<Index>& co, size_t n, int64_t offset, size_t d1, size_t d2) {
    std::vector<Index> b(n);
    size_t j = 0;
    for (size_t d = 0; d < n; ++d)
        if (d != d1 && d != d2) b[d] = co[j++];
    const Index& i = co.back();
    b[d1] = iadd(i, iconst(offset < 0 ? -offset : 0));
    b[d2] = iadd(i, iconst(offset > 0 ? offset : 0));
    return b;
}

/// A gradient of shape `grad` placed into zeros of shape `out` where `inside(co)` holds, read at
/// `map(co)`.
std::optional<LValue> scatterIntoZeros(LowerCtx& c, std::function<ExprP(const std::vector<Index>&)> inside,
                                       ViewFn map) {
    int g = c.in(0);
    if (g < 0 || !c.out().isTensor() || isComplex(c.outMeta().dtype)) return std::nullopt;
    DType ct = computeType(c.outMeta().dtype);
    return tensorValue(c.pointwise(c.outMeta(), {g}, [=](Loader& L, const std::vector<Index>& co) {
        return ewhere(inside(co), eto(L.load(g, map(co)), ct), econst(0, ct));
    }));
}

ExprP inRange(const Index& i, int64_t lo, int64_t hi) {
    ExprP v = eindex(i);
    return ebinary(Op::And, ebinary(Op::Ge, v, econst(static_cast<double>(lo), DType::Int64)),
                   ebinary(Op::Lt, v, econst(static_cast<double>(hi), DType::Int64)));
}

/// max(v, 0) as an index (a select keeps loads in bounds where the element is discarded).
Index clampLow(ExprP v, int64_t hi) {
    v = ebinary(Op::Max, v, econst(0, DType::Int64));
    return ivalue(ebinary(Op::Min, v, econst(static_cast<double>(hi), DType::Int64)));
}

/// out = src where `inside(co)` holds (read at map(co)), else self: the *_scatter ops.
std::optional<LValue> scatterInto(LowerCtx& c, std::function<ExprP(const std::vector<Index>&)> inside, ViewFn map) {
    int self = c.in(0), src = c.in(1);
    if (self < 0 || src < 0 || !c.out().isTensor() || isComplex(c.outMeta().dtype)) return std::nullopt;
    DType ct = computeType(c.outMeta().dtype);
    return tensorValue(c.pointwise(c.outMeta(), {self, src}, [=](Loader& L, const std::vector<Index>& co) {
        return ewhere(inside(co), eto(L.load(src, map(co)), ct), eto(L.load(self, co), ct));
    }));
}

/// Where a slice (dim, start, step) of `count` elements sits in its base: whether a base coordinate
/// is one of the slots, and the slice coordinate it holds (clamped, for where() to discard).
/// slice_scatter writes src there, slice_backward the gradient (zeros elsewhere).
std::pair<std::function<ExprP(const std::vector<Index>&)>, ViewFn> sliceSlots(size_t dim, int64_t start, int64_t step,
                                                                              int64_t count) {
    auto inside = [=](const std::vector<Index>& co) {
        ExprP rel = ebinary(Op::Sub, eindex(co[dim]), econst(static_cast<double>(start), DType::Int64));
        ExprP in = inRange(co[dim], start, start + count * step);
        if (step == 1) return in;
        ExprP onStep = ebinary(Op::Eq,
                               ebinary(Op::ModOp, ebinary(Op::Max, rel, econst(0, DType::Int64)),
                                       econst(static_cast<double>(step), DType::Int64)),
                               econst(0, DType::Int64));
        return ebinary(Op::And, in, onStep);
    };
    auto gmap = [=](const std::vector<Index>& co) {
        std::vector<Index> g = co;
        ExprP rel = ebinary(Op::Sub, eindex(co[dim]), econst(static_cast<double>(start), DType::Int64));
        if (step != 1)
            rel = ebinary(Op::FloorDivOp, ebinary(Op::Max, rel, econst(0, DType::Int64)),
                          econst(static_cast<double>(step), DType::Int64));
        g[dim] = clampLow(rel, count - 1);
        return g;
    };
    return {inside, gmap};
}

/// The rule another op lowers with (the same arguments at the same positions).
std::optional<LValue> ruleOf(LowerCtx& c, const char* qualname) {
    const OpInfo* op = OpRegistry::instance().find(qualname);
    if (!op || !op->lowering) return std::nullopt;
    return op->lowering->fn(c);
}

/// reflection_padNd / replication_padNd: a gather whose source index along each padded dim is
/// reflected about or clamped to the edges.
std::optional<LValue> padGather(LowerCtx& c, int64_t nsp, bool reflect) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor()) return std::nullopt;
    const std::vector<int64_t> shape = c.meta(x).shape;
    auto pad = c.args().toIntList(1);
    int64_t nd = static_cast<int64_t>(shape.size());
    if (static_cast<int64_t>(pad.size()) != 2 * nsp || nd < nsp + 1) return std::nullopt;
    std::vector<int64_t> lo(shape.size(), 0);
    for (int64_t i = 0; i < nsp; ++i) {
        size_t d = static_cast<size_t>(nd - nsp + i);
        lo[d] = pad[static_cast<size_t>(2 * (nsp - 1 - i))];
        if (shape[d] == 0) return std::nullopt;
    }
    return gatherCopy(c, [=](const std::vector<Index>& co) {
        std::vector<Index> b = co;
        for (size_t d = static_cast<size_t>(nd - nsp); d < shape.size(); ++d) {
            ExprP j = ebinary(Op::Sub, eindex(co[d]), econst(static_cast<double>(lo[d]), DType::Int64));
            ExprP last = econst(static_cast<double>(shape[d] - 1), DType::Int64);
            if (reflect) {
                j = eunary(Op::Abs, j);  // j < 0: -j
                j = ewhere(ebinary(Op::Gt, j, last),
                           ebinary(Op::Sub, ebinary(Op::Mul, last, econst(2, DType::Int64)), j), j);
            }
            b[d] = clampLow(j, shape[d] - 1);
        }
        return b;
    });
}

}  // namespace

void addShapeLowerings(std::map<std::string, LowerFn>& t) {
    // inductor_lookup_seed(seeds, index): element `index` of Inductor's 1-D seed tensor, 0-d.
    t["prims.inductor_lookup_seed.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int s = c.in(0);
        if (s < 0 || !c.out().isTensor() || c.meta(s).shape.size() != 1) return std::nullopt;
        const int64_t i = c.args().toInt(1);
        if (i < 0 || i >= c.meta(s).shape[0]) return std::nullopt;
        return tensorValue(c.pointwise(c.outMeta(), {s},
                                       [=](Loader& L, const std::vector<Index>&) { return L.load(s, {iconst(i)}); }));
    };
    // block_diag(tensors): each input (0-d as [1, 1], 1-d as [1, n]) placed on the diagonal at
    // the running row and column offsets, zero elsewhere: a chain of selects per output element.
    t["aten.block_diag.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const std::vector<int> xs = c.inList(0);
        if (xs.empty() || xs.size() > 16 || !c.out().isTensor() || c.outMeta().shape.size() != 2) return std::nullopt;
        struct Block {
            int id;
            int64_t r0, c0, rows, cols;
            size_t rank;
        };
        std::vector<Block> blocks;
        int64_t r = 0, k = 0;
        for (int x : xs) {
            if (x < 0) return std::nullopt;
            const auto& sh = c.meta(x).shape;
            if (sh.size() > 2) return std::nullopt;
            const int64_t rows = sh.size() == 2 ? sh[0] : 1, cols = sh.empty() ? 1 : sh.back();
            blocks.push_back({x, r, k, rows, cols, sh.size()});
            r += rows, k += cols;
        }
        const DType ct = computeType(c.outMeta().dtype);
        auto i64 = [](int64_t v) { return econst(static_cast<double>(v), DType::Int64); };
        return tensorValue(c.pointwise(c.outMeta(), xs, [=](Loader& L, const std::vector<Index>& co) {
            ExprP i = eindex(co[0]), j = eindex(co[1]);
            ExprP v = econst(0, ct);
            for (const Block& b : blocks) {
                if (b.rows == 0 || b.cols == 0) continue;
                auto within = [&](const ExprP& e, int64_t lo, int64_t n) {
                    return ebinary(Op::And, ebinary(Op::Ge, e, i64(lo)), ebinary(Op::Lt, e, i64(lo + n)));
                };
                auto local = [&](const ExprP& e, int64_t lo, int64_t n) {
                    return ivalue(ebinary(Op::Min, ebinary(Op::Max, ebinary(Op::Sub, e, i64(lo)), i64(0)), i64(n - 1)));
                };
                std::vector<Index> at;
                if (b.rank == 2) at.push_back(local(i, b.r0, b.rows));
                if (b.rank >= 1) at.push_back(local(j, b.c0, b.cols));
                ExprP in = ebinary(Op::And, within(i, b.r0, b.rows), within(j, b.c0, b.cols));
                v = ewhere(in, eto(L.load(b.id, at), ct), v);
            }
            return v;
        }));
    };
    t["aten.flip.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int x = c.in(0);
        if (x < 0) return std::nullopt;
        auto shape = c.meta(x).shape;
        std::vector<bool> flipped(shape.size(), false);
        for (int64_t d : c.args().toIntList(1)) flipped[static_cast<size_t>(wrapDim(d, shape.size()))] = true;
        return gatherCopy(c, [shape, flipped](const std::vector<Index>& co) {
            std::vector<Index> b = co;
            for (size_t d = 0; d < b.size(); ++d)
                if (flipped[d]) b[d] = reversed(co[d], shape[d]);
            return b;
        });
    };
    t["aten.roll.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int x = c.in(0);
        if (x < 0) return std::nullopt;
        auto shape = c.meta(x).shape;
        auto shifts = c.args().toIntList(1);
        std::vector<int64_t> dims = c.args().isNone(2) ? std::vector<int64_t>{} : c.args().toIntList(2);
        if (dims.empty()) {
            // roll of the flattened tensor, reshaped back
            if (shifts.size() != 1) return std::nullopt;
            int64_t n = 1;
            for (int64_t s : shape) n *= s;
            if (n == 0) return std::nullopt;
            int64_t s = ((shifts[0] % n) + n) % n;
            return gatherCopy(c, [shape, n, s](const std::vector<Index>& co) {
                std::vector<int64_t> flat{n};
                auto lin = reshapeCoords(co, shape, flat);
                return reshapeCoords({imod(iadd(lin[0], iconst(n - s)), n)}, flat, shape);
            });
        }
        if (dims.size() != shifts.size()) return std::nullopt;
        std::vector<int64_t> by(shape.size(), 0);
        for (size_t i = 0; i < dims.size(); ++i) {
            size_t d = static_cast<size_t>(wrapDim(dims[i], shape.size()));
            if (shape[d] == 0) return std::nullopt;
            by[d] = ((by[d] + shifts[i]) % shape[d] + shape[d]) % shape[d];
        }
        return gatherCopy(c, [shape, by](const std::vector<Index>& co) {
            std::vector<Index> b = co;
            for (size_t d = 0; d < b.size(); ++d)
                if (by[d]) b[d] = imod(iadd(co[d], iconst(shape[d] - by[d])), shape[d]);
            return b;
        });
    };
    t["aten.repeat.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int x = c.in(0);
        if (x < 0 || !c.out().isTensor()) return std::nullopt;
        auto shape = c.meta(x).shape;
        size_t n = c.outMeta().shape.size();
        for (int64_t s : shape)
            if (s == 0) return std::nullopt;
        return gatherCopy(c, [shape, n](const std::vector<Index>& co) {
            // the input's dims align with the output's last dims
            std::vector<Index> b(shape.size());
            size_t off = n - shape.size();
            for (size_t d = 0; d < shape.size(); ++d) b[d] = imod(co[d + off], shape[d]);
            return b;
        });
    };
    t["aten.tril.default"] = [](LowerCtx& c) { return triangle(c, true); };
    t["aten.triu.default"] = [](LowerCtx& c) { return triangle(c, false); };
    t["aten.diagonal.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int x = c.in(0);
        if (x < 0 || !c.out().isTensor()) return std::nullopt;
        size_t n = c.meta(x).shape.size();
        if (n < 2) return std::nullopt;
        int64_t offset = c.args().toInt(1);
        size_t d1 = static_cast<size_t>(wrapDim(c.args().toInt(2), n)),
               d2 = static_cast<size_t>(wrapDim(c.args().toInt(3), n));
        if (d1 == d2) return std::nullopt;
        return tensorValue(c.view(
            c.outMeta(), x, [=](const std::vector<Index>& co) { return diagonalBase(co, n, offset, d1, d2); }, true));
    };
    t["aten.diagonal_backward.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (grad, input_sizes, offset, dim1, dim2): grad on the diagonal, zeros elsewhere
        if (!c.out().isTensor()) return std::nullopt;
        size_t n = c.outMeta().shape.size();
        if (n < 2 || c.in(0) < 0) return std::nullopt;
        int64_t offset = c.args().toInt(2);
        size_t d1 = static_cast<size_t>(wrapDim(c.args().toInt(3), n)),
               d2 = static_cast<size_t>(wrapDim(c.args().toInt(4), n));
        if (d1 == d2) return std::nullopt;
        int64_t len = c.meta(c.in(0)).shape.empty() ? 0 : c.meta(c.in(0)).shape.back();
        if (len == 0) return std::nullopt;
        auto inside = [=](const std::vector<Index>& co) {
            ExprP diff = ebinary(Op::Sub, eindex(co[d2]), eindex(co[d1]));
            return ebinary(Op::Eq, diff, econst(static_cast<double>(offset), DType::Int64));
        };
        // The diagonal index is the row index minus max(-offset, 0).
        auto gmap = [=](const std::vector<Index>& co) {
            std::vector<Index> g;
            for (size_t d = 0; d < n; ++d)
                if (d != d1 && d != d2) g.push_back(co[d]);
            ExprP i =
                ebinary(Op::Sub, eindex(co[d1]), econst(static_cast<double>(offset < 0 ? -offset : 0), DType::Int64));
            g.push_back(clampLow(i, len - 1));
            return g;
        };
        return scatterIntoZeros(c, inside, gmap);
    };
    t["aten.diag_embed.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (self, offset, dim1, dim2): the last dim of self on the diagonal of dims dim1, dim2
        if (!c.out().isTensor() || c.in(0) < 0) return std::nullopt;
        size_t n = c.outMeta().shape.size();
        int64_t offset = c.args().toInt(1);
        size_t d1 = static_cast<size_t>(wrapDim(c.args().toInt(2), n)),
               d2 = static_cast<size_t>(wrapDim(c.args().toInt(3), n));
        if (d1 == d2 || n < 2) return std::nullopt;
        int64_t len = c.meta(c.in(0)).shape.empty() ? 0 : c.meta(c.in(0)).shape.back();
        if (len == 0) return std::nullopt;
        auto inside = [=](const std::vector<Index>& co) {
            ExprP diff = ebinary(Op::Sub, eindex(co[d2]), eindex(co[d1]));
            return ebinary(Op::Eq, diff, econst(static_cast<double>(offset), DType::Int64));
        };
        auto gmap = [=](const std::vector<Index>& co) {
            std::vector<Index> g;
            for (size_t d = 0; d < n; ++d)
                if (d != d1 && d != d2) g.push_back(co[d]);
            ExprP i =
                ebinary(Op::Sub, eindex(co[d1]), econst(static_cast<double>(offset < 0 ? -offset : 0), DType::Int64));
            g.push_back(clampLow(i, len - 1));
            return g;
        };
        return scatterIntoZeros(c, inside, gmap);
    };
    t["aten.unsafe_split.Tensor"] = [](LowerCtx& c) { return ruleOf(c, "aten.split.Tensor"); };
    t["aten.unsafe_split_with_sizes.default"] = [](LowerCtx& c) { return ruleOf(c, "aten.split_with_sizes.default"); };
    t["aten.pixel_shuffle.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // [.., C*r*r, H, W] -> [.., C, H*r, W*r]
        int x = c.in(0);
        if (x < 0 || c.meta(x).shape.size() < 3) return std::nullopt;
        int64_t r = c.args().toInt(1);
        if (r <= 0) return std::nullopt;
        return gatherCopy(c, [r](const std::vector<Index>& co) {
            size_t n = co.size();
            std::vector<Index> b = co;
            const Index &ch = co[n - 3], &h = co[n - 2], &w = co[n - 1];
            b[n - 3] = iadd(iadd(imul(ch, r * r), imul(imod(h, r), r)), imod(w, r));
            b[n - 2] = idiv(h, r);
            b[n - 1] = idiv(w, r);
            return b;
        });
    };
    t["aten.pixel_unshuffle.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // [.., C, H*r, W*r] -> [.., C*r*r, H, W]
        int x = c.in(0);
        if (x < 0 || c.meta(x).shape.size() < 3) return std::nullopt;
        int64_t r = c.args().toInt(1);
        if (r <= 0) return std::nullopt;
        return gatherCopy(c, [r](const std::vector<Index>& co) {
            size_t n = co.size();
            std::vector<Index> b = co;
            const Index &ch = co[n - 3], &h = co[n - 2], &w = co[n - 1];
            b[n - 3] = idiv(ch, r * r);
            b[n - 2] = iadd(imul(h, r), imod(idiv(ch, r), r));
            b[n - 1] = iadd(imul(w, r), imod(ch, r));
            return b;
        });
    };
    t["aten.take.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // self.flatten()[index], negative indices counted from the end
        int x = c.in(0), ix = c.in(1);
        if (x < 0 || ix < 0 || !c.out().isTensor() || isComplex(c.outMeta().dtype)) return std::nullopt;
        const std::vector<int64_t> shape = c.meta(x).shape;
        int64_t n = c.meta(x).numel();
        if (n == 0) return std::nullopt;
        DType ct = computeType(c.outMeta().dtype);
        return tensorValue(c.pointwise(c.outMeta(), {x, ix}, [=](Loader& L, const std::vector<Index>& co) {
            ExprP i = eto(L.load(ix, co), DType::Int64);
            i = ewhere(ebinary(Op::Lt, i, econst(0, DType::Int64)),
                       ebinary(Op::Add, i, econst(static_cast<double>(n), DType::Int64)), i);
            Index lin = clampLow(i, n - 1);
            std::vector<int64_t> flat{n};
            return eto(L.load(x, reshapeCoords({lin}, flat, shape)), ct);
        }));
    };
    t["aten.diagonal_scatter.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (self, src, offset, dim1, dim2)
        if (!c.out().isTensor() || c.in(1) < 0) return std::nullopt;
        size_t n = c.outMeta().shape.size();
        if (n < 2) return std::nullopt;
        int64_t offset = c.args().toInt(2);
        size_t d1 = static_cast<size_t>(wrapDim(c.args().toInt(3), n)),
               d2 = static_cast<size_t>(wrapDim(c.args().toInt(4), n));
        int64_t len = c.meta(c.in(1)).shape.empty() ? 0 : c.meta(c.in(1)).shape.back();
        if (d1 == d2 || len == 0) return std::nullopt;
        auto inside = [=](const std::vector<Index>& co) {
            ExprP diff = ebinary(Op::Sub, eindex(co[d2]), eindex(co[d1]));
            return ebinary(Op::Eq, diff, econst(static_cast<double>(offset), DType::Int64));
        };
        auto gmap = [=](const std::vector<Index>& co) {
            std::vector<Index> g;
            for (size_t d = 0; d < n; ++d)
                if (d != d1 && d != d2) g.push_back(co[d]);
            ExprP i =
                ebinary(Op::Sub, eindex(co[d1]), econst(static_cast<double>(offset < 0 ? -offset : 0), DType::Int64));
            g.push_back(clampLow(i, len - 1));
            return g;
        };
        return scatterInto(c, inside, gmap);
    };
    t["aten.select_scatter.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (self, src, dim, index)
        if (!c.out().isTensor()) return std::nullopt;
        size_t n = c.outMeta().shape.size();
        if (n == 0) return std::nullopt;
        size_t dim = static_cast<size_t>(wrapDim(c.args().toInt(2), n));
        int64_t idx = c.args().toInt(3);
        if (idx < 0) idx += c.outMeta().shape[dim];
        auto inside = [=](const std::vector<Index>& co) {
            return ebinary(Op::Eq, eindex(co[dim]), econst(static_cast<double>(idx), DType::Int64));
        };
        auto map = [=](const std::vector<Index>& co) {
            std::vector<Index> g = co;
            g.erase(g.begin() + static_cast<std::ptrdiff_t>(dim));
            return g;
        };
        return scatterInto(c, inside, map);
    };
    t["aten.slice_scatter.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (self, src, dim, start, end, step)
        if (!c.out().isTensor() || c.in(1) < 0) return std::nullopt;
        auto sizes = c.outMeta().shape;
        if (sizes.empty()) return std::nullopt;
        size_t dim = static_cast<size_t>(wrapDim(c.args().toInt(2), sizes.size()));
        int64_t len = sizes[dim], step = c.args().isNone(5) ? 1 : c.args().toInt(5);
        int64_t gl = c.meta(c.in(1)).shape[dim];
        int64_t start = c.args().isNone(3) ? 0 : c.args().toInt(3);
        if (start < 0) start += len;
        start = std::clamp<int64_t>(start, 0, len);
        if (step <= 0 || gl == 0) return std::nullopt;
        auto [inside, gmap] = sliceSlots(dim, start, step, gl);
        return scatterInto(c, inside, gmap);
    };
    for (const char* pn :
         {"aten.reflection_pad1d.default", "aten.reflection_pad2d.default", "aten.reflection_pad3d.default",
          "aten.replication_pad1d.default", "aten.replication_pad2d.default", "aten.replication_pad3d.default"})
        t[pn] = [](LowerCtx& c) {
            const std::string n = c.node().opName();
            return padGather(c, n[n.find("_pad") + 4] - '0', n.find("reflection") != std::string::npos);
        };
    t["aten.channel_shuffle.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // [N, C, ...] viewed as [N, g, C/g, ...] with the group dims swapped
        int x = c.in(0);
        if (x < 0 || c.meta(x).shape.size() < 2) return std::nullopt;
        int64_t g = c.args().toInt(1), ch = c.meta(x).shape[1];
        if (g <= 0 || ch % g) return std::nullopt;
        int64_t per = ch / g;
        return gatherCopy(c, [g, per](const std::vector<Index>& co) {
            std::vector<Index> b = co;
            b[1] = iadd(imul(imod(co[1], g), per), idiv(co[1], g));
            return b;
        });
    };
    t["aten.rot90.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int x = c.in(0);
        if (x < 0) return std::nullopt;
        const std::vector<int64_t> shape = c.meta(x).shape;
        int64_t kk = c.args().isNone(1) ? 1 : c.args().toInt(1);
        std::vector<int64_t> dims = c.args().isNone(2) ? std::vector<int64_t>{0, 1} : c.args().toIntList(2);
        if (dims.size() != 2 || shape.size() < 2) return std::nullopt;
        size_t d0 = static_cast<size_t>(wrapDim(dims[0], shape.size())),
               d1 = static_cast<size_t>(wrapDim(dims[1], shape.size()));
        if (d0 == d1) return std::nullopt;
        kk = ((kk % 4) + 4) % 4;
        return gatherCopy(c, [=](const std::vector<Index>& q) {
            std::vector<Index> r = q;
            if (kk == 1) r[d0] = q[d1], r[d1] = reversed(q[d0], shape[d1]);
            if (kk == 2) r[d0] = reversed(q[d0], shape[d0]), r[d1] = reversed(q[d1], shape[d1]);
            if (kk == 3) r[d0] = reversed(q[d1], shape[d0]), r[d1] = q[d0];
            return r;
        });
    };
    t["aten.linalg_cross.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // out[i] = a[i+1] b[i+2] - a[i+2] b[i+1] along dim (size 3), a and b broadcast
        int a = c.in(0), b = c.in(1);
        if (a < 0 || b < 0 || !c.out().isTensor() || isComplex(c.outMeta().dtype)) return std::nullopt;
        size_t n = c.outMeta().shape.size();
        int64_t dd = c.args().isNone(2) ? -1 : c.args().toInt(2);
        size_t dim = static_cast<size_t>(wrapDim(dd, n));
        if (dim >= n || c.outMeta().shape[dim] != 3) return std::nullopt;
        const std::vector<int64_t> as = c.meta(a).shape, bs = c.meta(b).shape;
        DType ct = computeType(c.outMeta().dtype);
        return tensorValue(c.pointwise(c.outMeta(), {a, b}, [=](Loader& L, const std::vector<Index>& co) {
            auto at = [&](int id, const std::vector<int64_t>& sh, int64_t off) {
                std::vector<Index> q = co;
                q[dim] = imod(iadd(co[dim], iconst(off)), 3);
                return eto(loadBroadcast(L, id, sh, q), ct);
            };
            return ebinary(Op::Sub, ebinary(Op::Mul, at(a, as, 1), at(b, bs, 2)),
                           ebinary(Op::Mul, at(a, as, 2), at(b, bs, 1)));
        }));
    };
    t["aten.slice_backward.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        // (grad, input_sizes, dim, start, end, step): grad at start, start+step, ... of dim
        if (!c.out().isTensor() || c.in(0) < 0) return std::nullopt;
        auto sizes = c.outMeta().shape;
        size_t dim = static_cast<size_t>(wrapDim(c.args().toInt(2), sizes.size()));
        int64_t len = sizes[dim], step = c.args().toInt(5);
        int64_t gl = c.meta(c.in(0)).shape[dim];
        int64_t start = c.args().toInt(3);
        if (start < 0) start += len;
        start = std::clamp<int64_t>(start, 0, len);
        if (step <= 0 || gl == 0) return std::nullopt;
        auto [inside, gmap] = sliceSlots(dim, start, step, gl);
        return scatterIntoZeros(c, inside, gmap);
    };
}

}  // namespace fxray::cg
