// Lowerings of view ops: coordinate maps from a view's coordinates to its base's. They never
// touch strides: a view of a realized buffer is read through the buffer's own strides, a view of
// an inlined computation composes with the producer's body. Reshapes map through the row-major
// linear index (divisions and modulos the index simplifier removes where the dims line up).
#include "codegen/lowering.h"
#include "exec/ops/kernel_util.h"

#include <algorithm>

namespace fxray::cg {

namespace {

std::optional<LValue> makeView(LowerCtx& c, ViewFn map, bool aliasing, const TensorMeta* m = nullptr) {
    int base = c.in(0);
    if (base < 0 || (!m && !c.out().isTensor())) return std::nullopt;
    return tensorValue(c.view(m ? *m : c.outMeta(), base, std::move(map), aliasing));
}

int64_t wrap(int64_t d, int64_t n) { return d < 0 ? d + n : d; }

std::optional<LValue> reshape(LowerCtx& c, bool viewOp) {
    int base = c.in(0);
    if (base < 0 || !c.out().isTensor()) return std::nullopt;
    std::vector<int64_t> from = c.meta(base).shape, to = c.outMeta().shape;
    // view/_unsafe_view of a contiguous tensor shares its storage with contiguous strides: the
    // executor may hand the alias to extern kernels. Other reshapes are materialized by copy.
    bool aliasing = viewOp && c.meta(base).isContiguous();
    return makeView(
        c, [from, to](const std::vector<Index>& x) { return reshapeCoords(x, to, from); }, aliasing);
}

std::optional<LValue> permuteBy(LowerCtx& c, std::vector<int64_t> perm) {
    // out dim i is base dim perm[i]
    return makeView(
        c,
        [perm](const std::vector<Index>& x) {
            std::vector<Index> b(perm.size());
            for (size_t i = 0; i < perm.size(); ++i) b[static_cast<size_t>(perm[i])] = x[i];
            return b;
        },
        true);
}

std::optional<LValue> sliceOf(LowerCtx& c, int64_t dim, int64_t start, int64_t step, const TensorMeta& m) {
    return makeView(
        c,
        [dim, start, step](const std::vector<Index>& x) {
            std::vector<Index> b = x;
            b[static_cast<size_t>(dim)] = iadd(imul(x[static_cast<size_t>(dim)], step), iconst(start));
            return b;
        },
        true, &m);
}

/// Index expression i (Int64) wrapped when negative and clamped to [0, n): loads stay in
/// bounds even where a select discards them (padding) or the index is invalid.
ExprP clampedIndex(ExprP i, int64_t n) {
    i = ewhere(ebinary(Op::Lt, i, econst(0, DType::Int64)), ebinary(Op::Add, i, econst(double(n), DType::Int64)), i);
    i = ebinary(Op::Max, i, econst(0, DType::Int64));
    return ebinary(Op::Min, i, econst(double(n - 1), DType::Int64));
}

/// constant_pad_nd: a gather from the input where inside it, the pad value elsewhere.
std::optional<LValue> constantPad(LowerCtx& c) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor()) return std::nullopt;
    auto shape = c.meta(x).shape;
    auto pad = c.args().toIntList(1);
    if (pad.size() % 2 || pad.size() / 2 > shape.size()) return std::nullopt;
    std::vector<int64_t> lo(shape.size(), 0);
    std::vector<bool> padded(shape.size(), false);
    for (size_t k = 0; k < pad.size() / 2; ++k) {
        size_t d = shape.size() - 1 - k;
        lo[d] = pad[2 * k];
        padded[d] = pad[2 * k] > 0 || pad[2 * k + 1] > 0;
    }
    double value = c.args().isNone(2) ? 0.0 : c.args()[2].toDouble();
    DType ct = computeType(c.outMeta().dtype);
    return tensorValue(c.pointwise(c.outMeta(), {x}, [=](Loader& L, const std::vector<Index>& co) {
        std::vector<Index> xc(co.size());
        ExprP inside;
        for (size_t d = 0; d < co.size(); ++d) {
            Index in = iadd(co[d], iconst(-lo[d]));
            if (!padded[d]) {
                xc[d] = in;
                continue;
            }
            ExprP e = eindex(in);
            ExprP ok = ebinary(Op::And, ebinary(Op::Ge, e, econst(0, DType::Int64)),
                               ebinary(Op::Lt, e, econst(double(shape[d]), DType::Int64)));
            inside = inside ? ebinary(Op::And, inside, ok) : ok;
            xc[d] = ivalue(ebinary(Op::Min, ebinary(Op::Max, e, econst(0, DType::Int64)),
                                   econst(double(std::max<int64_t>(shape[d] - 1, 0)), DType::Int64)));
        }
        ExprP v = eto(L.load(x, xc), ct);
        return inside ? ewhere(inside, v, econst(value, ct)) : v;
    }));
}

/// cat of a few tensors: a gather from the part each point falls in, so that the parts'
/// producers compute inside it and its consumers fuse (Llama's rotate_half, cat(-x2, x1), becomes
/// part of the rotary kernel), as Inductor's pointwise_cat does. The generated code loads from
/// every part at each point (each part's coordinate clamped into it) and selects one, so more
/// than kMaxPointwiseCat parts go to the extern kernel, which copies each part once. 1-D empty
/// parts are skipped whatever the rank (PyTorch's legacy rule, gpt2's empty KV cache).
constexpr size_t kMaxPointwiseCat = 4;
std::optional<LValue> catLowering(LowerCtx& c) {
    if (!c.out().isTensor()) return std::nullopt;
    const TensorMeta& om = c.outMeta();
    const int64_t rank = static_cast<int64_t>(om.shape.size());
    int64_t dim = c.args().isNone(1) ? 0 : c.args().toInt(1);
    if (rank == 0) return std::nullopt;
    dim = wrap(dim, rank);
    if (dim < 0 || dim >= rank) return std::nullopt;
    const size_t du = static_cast<size_t>(dim);
    std::vector<int> parts;
    std::vector<int64_t> offsets, sizes;
    int64_t at = 0;
    for (int p : c.inList(0)) {
        if (p < 0) return std::nullopt;
        const TensorMeta& m = c.meta(p);
        if (m.shape.size() == 1 && m.numel() == 0 && rank != 1) continue;
        if (static_cast<int64_t>(m.shape.size()) != rank) return std::nullopt;
        for (size_t d = 0; d < m.shape.size(); ++d)
            if (d != du && m.shape[d] != om.shape[d]) return std::nullopt;
        if (m.shape[du] == 0) continue;
        parts.push_back(p);
        offsets.push_back(at);
        sizes.push_back(m.shape[du]);
        at += m.shape[du];
    }
    if (parts.empty() || parts.size() > kMaxPointwiseCat || at != om.shape[du]) return std::nullopt;
    const DType ct = computeType(om.dtype);
    return tensorValue(c.pointwise(om, parts, [=](Loader& L, const std::vector<Index>& co) {
        auto partAt = [&](size_t k) {
            std::vector<Index> pc = co;
            Index local = iadd(co[du], iconst(-offsets[k]));
            auto [lo, hi] = indexBounds(local);
            if (lo < 0 || hi >= sizes[k]) {
                ExprP e = ebinary(Op::Max, eindex(local), econst(0, DType::Int64));
                local = ivalue(ebinary(Op::Min, e, econst(double(sizes[k] - 1), DType::Int64)));
            }
            pc[du] = local;
            return eto(L.load(parts[k], pc), ct);
        };
        ExprP v = partAt(parts.size() - 1);
        for (size_t k = parts.size() - 1; k-- > 0;)
            v = ewhere(ebinary(Op::Lt, eindex(co[du]), econst(double(offsets[k + 1]), DType::Int64)), partAt(k), v);
        return v;
    }));
}

/// Advanced indexing (index.Tensor / _unsafe_index.Tensor) with adjacent index tensors: the
/// indexed dims are replaced by the indices' broadcast shape. _unsafe_masked_index(self, mask,
/// indices, fill) reads the same way (indices clamped, as Inductor's decomposition does) and
/// takes `fill` where mask is false.
std::optional<LValue> advancedIndex(LowerCtx& c, size_t listArg = 1, bool masked = false) {
    int x = c.in(0);
    if (x < 0 || !c.out().isTensor() || c.node().args.size() <= listArg) return std::nullopt;
    const int mask = masked ? c.in(1) : -1;
    if (masked && (mask < 0 || !c.args()[3].isNumber())) return std::nullopt;
    const double fill = masked ? c.args()[3].toDouble() : 0.0;
    const std::vector<int64_t> maskShape = masked ? c.meta(mask).shape : std::vector<int64_t>{};
    const Argument& list = c.node().args[listArg];
    auto shape = c.meta(x).shape;
    std::vector<int> idx;
    size_t first = 0;
    bool seen = false, ended = false;
    for (size_t i = 0; i < list.items.size(); ++i) {
        const Argument& a = list.items[i];
        if (!a.isNode()) {
            ended = ended || seen;
            continue;
        }
        if (ended) return std::nullopt;  // non-adjacent: the broadcast dims move to the front
        auto it = c.graph().values.find(a.node);
        if (it == c.graph().values.end() || it->second.kind != LValue::Kind::Tensor) return std::nullopt;
        DType dt = c.meta(it->second.node).dtype;
        if (dt != DType::Int64 && dt != DType::Int32) return std::nullopt;  // boolean masks: data-dependent shape
        if (!seen) first = i;
        seen = true;
        idx.push_back(it->second.node);
    }
    if (idx.empty() || first + idx.size() > shape.size()) return std::nullopt;
    size_t outRank = c.outMeta().shape.size();
    size_t bRank = outRank + idx.size() - shape.size();
    std::vector<std::vector<int64_t>> ishapes;
    for (int i : idx) ishapes.push_back(c.meta(i).shape);
    std::vector<int> deps = idx;
    deps.insert(deps.begin(), x);
    if (masked) deps.push_back(mask);
    const DType ct = computeType(c.outMeta().dtype);
    return tensorValue(c.pointwise(c.outMeta(), deps, [=](Loader& L, const std::vector<Index>& co) {
        std::vector<Index> xc;
        for (size_t d = 0; d < first; ++d) xc.push_back(co[d]);
        std::vector<Index> bco(co.begin() + static_cast<long>(first), co.begin() + static_cast<long>(first + bRank));
        for (size_t j = 0; j < idx.size(); ++j) {
            ExprP v = eto(loadBroadcast(L, idx[j], ishapes[j], bco), DType::Int64);
            xc.push_back(ivalue(clampedIndex(v, shape[first + j])));
        }
        for (size_t d = first + bRank; d < co.size(); ++d) xc.push_back(co[d]);
        if (!masked) return L.load(x, xc);
        ExprP keep = eto(loadBroadcast(L, mask, maskShape, co), DType::Bool);
        return ewhere(keep, eto(L.load(x, xc), ct), econst(fill, ct));
    }));
}

/// The tensor inputs of list argument `arg` (nodes only), or nothing when one is not a tensor.
std::optional<std::vector<int>> listInputs(LowerCtx& c, size_t arg) {
    if (c.node().args.size() <= arg) return std::nullopt;
    std::vector<int> r;
    for (const Argument& a : c.node().args[arg].items) {
        if (!a.isNode()) return std::nullopt;
        auto it = c.graph().values.find(a.node);
        if (it == c.graph().values.end() || it->second.kind != LValue::Kind::Tensor) return std::nullopt;
        r.push_back(it->second.node);
    }
    return r;
}

/// stack(tensors, dim): element co of the output is input co[dim] at co without dim. A chain of
/// selects over the inputs, so it stays a fused pointwise kernel; long lists go to the extern path.
/// stack's values along dim from `in` (element k of dim is in[k]; past in.size(), the last one),
/// over m's shape: a chain of selects, so at most kStackGroup inputs per node.
constexpr size_t kStackGroup = 16;

int stackPart(LowerCtx& c, const std::vector<int>& in, TensorMeta m, int64_t dim, DType ct, std::string suffix) {
    return c.pointwise(
        std::move(m), in,
        [=](Loader& L, const std::vector<Index>& co) {
            std::vector<Index> xc = co;
            xc.erase(xc.begin() + dim);
            ExprP k = eindex(co[static_cast<size_t>(dim)]);
            ExprP v = eto(L.load(in.back(), xc), ct);
            for (size_t j = in.size() - 1; j-- > 0;)
                v = ewhere(ebinary(Op::Eq, k, econst(double(j), DType::Int64)), eto(L.load(in[j], xc), ct), v);
            return v;
        },
        std::move(suffix));
}

std::optional<LValue> stack(LowerCtx& c) {
    auto xs = listInputs(c, 0);
    if (!xs || xs->empty() || xs->size() > kStackGroup * kStackGroup || !c.out().isTensor()) return std::nullopt;
    const int64_t n = static_cast<int64_t>(c.outMeta().shape.size());
    const int64_t dim = wrap(c.args().size() > 1 ? c.args().toInt(1) : 0, n);
    for (int x : *xs)
        if (static_cast<int64_t>(c.meta(x).shape.size()) != n - 1) return std::nullopt;
    const DType ct = computeType(c.outMeta().dtype);
    if (xs->size() <= kStackGroup) return tensorValue(stackPart(c, *xs, c.outMeta(), dim, ct, {}));
    // More inputs (NeRF's backward stacks 21 per-sample sums): groups of kStackGroup stacked
    // first (each kStackGroup long along dim), then element k taken from group k / kStackGroup.
    std::vector<int> groups;
    for (size_t g0 = 0; g0 < xs->size(); g0 += kStackGroup) {
        const std::vector<int> in(xs->begin() + static_cast<std::ptrdiff_t>(g0),
                                  xs->begin() + static_cast<std::ptrdiff_t>(std::min(g0 + kStackGroup, xs->size())));
        std::vector<int64_t> shape = c.outMeta().shape;
        shape[static_cast<size_t>(dim)] = static_cast<int64_t>(kStackGroup);
        groups.push_back(stackPart(c, in, TensorMeta::contiguous(shape, c.outMeta().dtype, c.outMeta().device), dim, ct,
                                   ".group" + std::to_string(groups.size())));
    }
    const auto group = static_cast<int64_t>(kStackGroup);
    return tensorValue(c.pointwise(c.outMeta(), groups, [=](Loader& L, const std::vector<Index>& co) {
        std::vector<Index> gc = co;
        gc[static_cast<size_t>(dim)] = imod(co[static_cast<size_t>(dim)], group);
        ExprP g = eindex(idiv(co[static_cast<size_t>(dim)], group));
        ExprP v = eto(L.load(groups.back(), gc), ct);
        for (size_t j = groups.size() - 1; j-- > 0;)
            v = ewhere(ebinary(Op::Eq, g, econst(double(j), DType::Int64)), eto(L.load(groups[j], gc), ct), v);
        return v;
    }));
}

/// select_backward(grad, input_sizes, dim, index): grad placed at `index` along dim, zeros elsewhere.
std::optional<LValue> selectBackward(LowerCtx& c) {
    int g = c.in(0);
    if (g < 0 || !c.out().isTensor()) return std::nullopt;
    const auto& shape = c.outMeta().shape;
    const int64_t n = static_cast<int64_t>(shape.size());
    const int64_t dim = wrap(c.args().toInt(2), n);
    int64_t idx = c.args().toInt(3);
    if (idx < 0) idx += shape[static_cast<size_t>(dim)];
    const DType ct = computeType(c.outMeta().dtype);
    return tensorValue(c.pointwise(c.outMeta(), {g}, [=](Loader& L, const std::vector<Index>& co) {
        std::vector<Index> gc = co;
        gc.erase(gc.begin() + dim);
        ExprP hit = ebinary(Op::Eq, eindex(co[static_cast<size_t>(dim)]), econst(double(idx), DType::Int64));
        return ewhere(hit, eto(L.load(g, gc), ct), econst(0, ct));
    }));
}

}  // namespace

std::optional<ViewFn> asStridedMap(const TensorMeta& base, const std::vector<int64_t>& size,
                                   const std::vector<int64_t>& stride, std::optional<int64_t> storageOffset) {
    if (!base.isContiguous() || size.size() != stride.size()) return std::nullopt;
    const int64_t start = storageOffset.value_or(base.offset) - base.offset;
    int64_t last = start;
    for (size_t d = 0; d < size.size(); ++d) {
        if (stride[d] < 0 || size[d] <= 0) return std::nullopt;
        last += (size[d] - 1) * stride[d];
    }
    if (start < 0 || last >= std::max<int64_t>(base.numel(), 1)) return std::nullopt;
    const std::vector<int64_t> shape = base.shape, rows = kern::rowMajorStrides(base.shape);
    return ViewFn([=](const std::vector<Index>& x) {
        Index q = iconst(start);
        for (size_t d = 0; d < x.size(); ++d) q = iadd(q, imul(x[d], stride[d]));
        std::vector<Index> b(shape.size());
        for (size_t d = 0; d < shape.size(); ++d) {
            b[d] = idiv(q, rows[d]);
            if (d > 0) b[d] = imod(b[d], shape[d]);
        }
        return b;
    });
}

void addViewLowerings(std::map<std::string, LowerFn>& t) {
    t["aten.view.default"] = t["aten._unsafe_view.default"] = [](LowerCtx& c) { return reshape(c, true); };
    t["aten.reshape.default"] = [](LowerCtx& c) { return reshape(c, false); };
    // unflatten(self, dim, sizes): a reshape to the output's shape, a view where self is dense.
    t["aten.unflatten.int"] = [](LowerCtx& c) { return reshape(c, true); };
    // flatten as Dynamo-stage graphs keep it: a reshape to the annotated shape.
    t["aten.flatten.using_ints"] = [](LowerCtx& c) { return reshape(c, false); };
    t["aten.detach.default"] = t["aten.alias.default"] = [](LowerCtx& c) {
        return makeView(
            c, [](const std::vector<Index>& x) { return x; }, true);
    };
    // x.item() of a 0-d float tensor whose number only feeds Tensor operands of later ops:
    // lowerGraph gives it the tensor's own metadata (scalarsAsZeroDim), so those ops read the
    // tensor at run time; a number taken at compile time would be compiled in as a constant.
    t["aten._local_scalar_dense.default"] = t["aten.item.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        if (!c.out().isTensor() || !c.out().t.meta.shape.empty()) return std::nullopt;
        return makeView(
            c, [](const std::vector<Index>& x) { return x; }, true);
    };
    t["aten.t.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        size_t n = c.outMeta().shape.size();
        if (n < 2)
            return makeView(
                c, [](const std::vector<Index>& x) { return x; }, true);
        return permuteBy(c, {1, 0});
    };
    t["aten.transpose.int"] = [](LowerCtx& c) -> std::optional<LValue> {
        int64_t n = static_cast<int64_t>(c.outMeta().shape.size());
        if (n == 0)
            return makeView(
                c, [](const std::vector<Index>& x) { return x; }, true);
        std::vector<int64_t> perm(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = i;
        std::swap(perm[static_cast<size_t>(wrap(c.args().toInt(1), n))],
                  perm[static_cast<size_t>(wrap(c.args().toInt(2), n))]);
        return permuteBy(c, perm);
    };
    t["aten.permute.default"] = [](LowerCtx& c) {
        auto dims = c.args().toIntList(1);
        int64_t n = static_cast<int64_t>(dims.size());
        for (auto& d : dims) d = wrap(d, n);
        return permuteBy(c, dims);
    };
    t["aten.expand.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int base = c.in(0);
        if (base < 0) return std::nullopt;
        std::vector<int64_t> in = c.meta(base).shape;
        return makeView(
            c,
            [in](const std::vector<Index>& x) {
                std::vector<Index> b(in.size());
                size_t off = x.size() - in.size();
                for (size_t d = 0; d < in.size(); ++d) b[d] = in[d] == 1 ? iconst(0) : x[d + off];
                return b;
            },
            true);
    };
    t["aten.unsqueeze.default"] = [](LowerCtx& c) {
        int64_t n = static_cast<int64_t>(c.outMeta().shape.size());
        int64_t dim = wrap(c.args().toInt(1), n);
        return makeView(
            c,
            [dim](const std::vector<Index>& x) {
                std::vector<Index> b = x;
                b.erase(b.begin() + dim);
                return b;
            },
            true);
    };
    auto squeeze = [](LowerCtx& c) -> std::optional<LValue> {
        int base = c.in(0);
        if (base < 0) return std::nullopt;
        const std::vector<int64_t> in = c.meta(base).shape;
        const int64_t n = static_cast<int64_t>(in.size());
        // The squeezed dims: those named (squeeze.dim / .dims) that have size 1, or every size-1
        // dim (squeeze.default). Matching shapes greedily instead maps [.., 1, 8, 1] squeezed at
        // its last dim onto the wrong 1 (a capsule network's backward read its sums shifted).
        std::vector<bool> gone(in.size(), false);
        if (c.args().size() < 2 || c.args().isNone(1)) {
            for (size_t d = 0; d < in.size(); ++d) gone[d] = in[d] == 1;
        } else {
            std::vector<int64_t> dims =
                c.args()[1].isList() ? c.args().toIntList(1) : std::vector<int64_t>{c.args().toInt(1)};
            for (int64_t d : dims) {
                if (n == 0) break;
                const size_t w = static_cast<size_t>(wrap(d, n));
                gone[w] = in[w] == 1;
            }
        }
        size_t kept = 0;
        for (bool g : gone) kept += g ? 0 : 1;
        if (kept != c.outMeta().shape.size()) return std::nullopt;
        return makeView(
            c,
            [gone](const std::vector<Index>& x) {
                std::vector<Index> b(gone.size());
                size_t j = 0;
                for (size_t d = 0; d < gone.size(); ++d) b[d] = gone[d] ? iconst(0) : x[j++];
                return b;
            },
            true);
    };
    t["aten.squeeze.default"] = t["aten.squeeze.dim"] = t["aten.squeeze.dims"] = squeeze;
    // narrow(self, dim, start, length): a slice of step 1 (narrow_copy borrows it).
    t["aten.narrow.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int base = c.in(0);
        if (base < 0 || !c.out().isTensor()) return std::nullopt;
        const int64_t n = static_cast<int64_t>(c.meta(base).shape.size());
        if (n == 0) return std::nullopt;
        const int64_t dim = wrap(c.args().toInt(1), n);
        if (dim < 0 || dim >= n) return std::nullopt;
        const int64_t start = wrap(c.args().toInt(2), c.meta(base).shape[static_cast<size_t>(dim)]);
        return sliceOf(c, dim, start, 1, c.outMeta());
    };
    t["aten.slice.Tensor"] = [](LowerCtx& c) -> std::optional<LValue> {
        int base = c.in(0);
        if (base < 0) return std::nullopt;
        const auto& in = c.meta(base).shape;
        int64_t n = static_cast<int64_t>(in.size());
        int64_t dim = wrap(c.args().toInt(1), n);
        int64_t size = in[static_cast<size_t>(dim)];
        int64_t start = c.args().isNone(2) ? 0 : c.args().toInt(2);
        if (start < 0) start += size;
        start = std::clamp<int64_t>(start, 0, size);
        int64_t step = c.args().toInt(4);
        return sliceOf(c, dim, start, step, c.outMeta());
    };
    t["aten.select.int"] = [](LowerCtx& c) -> std::optional<LValue> {
        int base = c.in(0);
        if (base < 0) return std::nullopt;
        const auto& in = c.meta(base).shape;
        int64_t n = static_cast<int64_t>(in.size());
        int64_t dim = wrap(c.args().toInt(1), n);
        int64_t idx = c.args().toInt(2);
        if (idx < 0) idx += in[static_cast<size_t>(dim)];
        return makeView(
            c,
            [dim, idx](const std::vector<Index>& x) {
                std::vector<Index> b = x;
                b.insert(b.begin() + dim, iconst(idx));
                return b;
            },
            true);
    };
    auto split = [](LowerCtx& c) -> std::optional<LValue> {
        int base = c.in(0);
        if (base < 0 || !c.out().isList()) return std::nullopt;
        int64_t n = static_cast<int64_t>(c.meta(base).shape.size());
        int64_t dim = wrap(c.args().toInt(2), n);
        LValue r;
        r.kind = LValue::Kind::List;
        r.isTuple = c.out().isTuple;
        int64_t start = 0;
        for (size_t i = 0; i < c.out().list.size(); ++i) {
            const TensorMeta& m = c.out().list[i].t.meta;
            auto v = sliceOf(c, dim, start, 1, m);
            if (!v) return std::nullopt;
            r.items.push_back(*v);
            start += m.shape[static_cast<size_t>(dim)];
        }
        return r;
    };
    // chunk (self, chunks, dim) as Dynamo-stage graphs keep it: the same slices, their sizes
    // read from the outputs as split's are.
    t["aten.split.Tensor"] = t["aten.split_with_sizes.default"] = t["aten.chunk.default"] =
        t["aten.unsafe_chunk.default"] = t["aten.unsafe_split.Tensor"] = split;
    // unbind: one select view per index along dim (ViT splits its fused qkv this way).
    t["aten.unbind.int"] = [](LowerCtx& c) -> std::optional<LValue> {
        int base = c.in(0);
        if (base < 0 || !c.out().isList()) return std::nullopt;
        int64_t n = static_cast<int64_t>(c.meta(base).shape.size());
        int64_t dim = wrap(c.args().size() > 1 ? c.args().toInt(1) : 0, n);
        LValue r;
        r.kind = LValue::Kind::List;
        r.isTuple = c.out().isTuple;
        for (size_t i = 0; i < c.out().list.size(); ++i) {
            const int64_t idx = static_cast<int64_t>(i);
            auto v = makeView(
                c,
                [dim, idx](const std::vector<Index>& x) {
                    std::vector<Index> b = x;
                    b.insert(b.begin() + dim, iconst(idx));
                    return b;
                },
                true, &c.out().list[i].t.meta);
            if (!v) return std::nullopt;
            r.items.push_back(*v);
        }
        return r;
    };
    // as_strided(self, size, stride, storage_offset=None) of a contiguous base, as Inductor's
    // ReinterpretView: a view position's storage element (offset + sum(x_i * stride_i))
    // unravelled into the base's row-major coordinates. Not aliasing: strides PyTorch allows
    // here (overlaps, zeros) are no layout to realize, so a needed value is a copy.
    t["aten.as_strided.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int base = c.in(0);
        if (base < 0 || !c.out().isTensor()) return std::nullopt;
        const TensorMeta bm = c.meta(base);
        if (!bm.isContiguous()) return std::nullopt;
        const auto size = c.args().toIntList(1);
        if (size != c.outMeta().shape) return std::nullopt;
        std::optional<int64_t> offset;
        if (c.args().size() > 3 && !c.args().isNone(3)) offset = c.args().toInt(3);
        auto map = asStridedMap(bm, size, c.args().toIntList(2), offset);
        if (!map) return std::nullopt;
        return makeView(c, std::move(*map), false);
    };
    // unfold(self, dimension, size, step): window i of dim, element k of it (the new last dim)
    // is self[..., i * step + k, ...]. Windows overlap, so a needed value is a copy.
    t["aten.unfold.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int base = c.in(0);
        if (base < 0 || !c.out().isTensor()) return std::nullopt;
        const int64_t n = static_cast<int64_t>(c.meta(base).shape.size());
        const int64_t dim = n == 0 ? 0 : wrap(c.args().toInt(1), n), step = c.args().toInt(3);
        if (dim < 0 || dim >= std::max<int64_t>(n, 1) || step <= 0) return std::nullopt;
        return makeView(
            c,
            [n, dim, step](const std::vector<Index>& x) {
                if (n == 0) return std::vector<Index>{};
                std::vector<Index> b(x.begin(), x.begin() + n);
                b[static_cast<size_t>(dim)] = iadd(imul(x[static_cast<size_t>(dim)], step), x[static_cast<size_t>(n)]);
                return b;
            },
            false);
    };
    t["aten.stack.default"] = stack;
    t["aten.select_backward.default"] = selectBackward;
    t["aten.constant_pad_nd.default"] = constantPad;
    t["aten.cat.default"] = catLowering;
    t["aten.index.Tensor"] = t["aten._unsafe_index.Tensor"] = [](LowerCtx& c) { return advancedIndex(c); };
    t["aten._unsafe_masked_index.default"] = [](LowerCtx& c) { return advancedIndex(c, 2, true); };
    // A copy into the layout the meta function chose (the buffer is realized with outMeta).
    t["prims.inductor_force_stride_order.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int x = c.in(0);
        if (x < 0 || !c.out().isTensor()) return std::nullopt;
        return tensorValue(
            c.pointwise(c.outMeta(), {x}, [x](Loader& L, const std::vector<Index>& co) { return L.load(x, co); }));
    };
}

}  // namespace fxray::cg
