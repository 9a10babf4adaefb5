// Lowerings of view ops: coordinate maps from a view's coordinates to its base's. They never
// touch strides: a view of a realized buffer is read through the buffer's own strides, a view of
// an inlined computation composes with the producer's body. Reshapes map through the row-major
// linear index (divisions and modulos the index simplifier removes where the dims line up).
#include "codegen/lowering.h"
#include "exec/ops/kernel_util.h"

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
    return makeView(c, [from, to](const std::vector<Index>& x) { return reshapeCoords(x, to, from); }, aliasing);
}

std::optional<LValue> permuteBy(LowerCtx& c, std::vector<int64_t> perm) {
    // out dim i is base dim perm[i]
    return makeView(c, [perm](const std::vector<Index>& x) {
        std::vector<Index> b(perm.size());
        for (size_t i = 0; i < perm.size(); ++i) b[static_cast<size_t>(perm[i])] = x[i];
        return b;
    }, true);
}

std::optional<LValue> sliceOf(LowerCtx& c, int64_t dim, int64_t start, int64_t step, const TensorMeta& m) {
    return makeView(c, [dim, start, step](const std::vector<Index>& x) {
        std::vector<Index> b = x;
        b[static_cast<size_t>(dim)] = iadd(imul(x[static_cast<size_t>(dim)], step), iconst(start));
        return b;
    }, true, &m);
}

} // namespace

void addViewLowerings(std::map<std::string, LowerFn>& t) {
    t["aten.view.default"] = t["aten._unsafe_view.default"] = [](LowerCtx& c) { return reshape(c, true); };
    t["aten.reshape.default"] = [](LowerCtx& c) { return reshape(c, false); };
    t["aten.detach.default"] = t["aten.alias.default"] = [](LowerCtx& c) {
        return makeView(c, [](const std::vector<Index>& x) { return x; }, true);
    };
    t["aten.t.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        size_t n = c.outMeta().shape.size();
        if (n < 2) return makeView(c, [](const std::vector<Index>& x) { return x; }, true);
        return permuteBy(c, {1, 0});
    };
    t["aten.transpose.int"] = [](LowerCtx& c) -> std::optional<LValue> {
        int64_t n = static_cast<int64_t>(c.outMeta().shape.size());
        if (n == 0) return makeView(c, [](const std::vector<Index>& x) { return x; }, true);
        std::vector<int64_t> perm(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = i;
        std::swap(perm[static_cast<size_t>(wrap(c.args().toInt(1), n))], perm[static_cast<size_t>(wrap(c.args().toInt(2), n))]);
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
        return makeView(c, [in](const std::vector<Index>& x) {
            std::vector<Index> b(in.size());
            size_t off = x.size() - in.size();
            for (size_t d = 0; d < in.size(); ++d) b[d] = in[d] == 1 ? iconst(0) : x[d + off];
            return b;
        }, true);
    };
    t["aten.unsqueeze.default"] = [](LowerCtx& c) {
        int64_t n = static_cast<int64_t>(c.outMeta().shape.size());
        int64_t dim = wrap(c.args().toInt(1), n);
        return makeView(c, [dim](const std::vector<Index>& x) {
            std::vector<Index> b = x;
            b.erase(b.begin() + dim);
            return b;
        }, true);
    };
    auto squeeze = [](LowerCtx& c) -> std::optional<LValue> {
        int base = c.in(0);
        if (base < 0) return std::nullopt;
        std::vector<int64_t> in = c.meta(base).shape, out = c.outMeta().shape;
        // Squeezed dims are size-1 dims of the input that the output lacks; match greedily.
        return makeView(c, [in, out](const std::vector<Index>& x) {
            std::vector<Index> b(in.size());
            size_t j = 0;
            for (size_t d = 0; d < in.size(); ++d) {
                size_t remainingIn = in.size() - d, remainingOut = out.size() - j;
                if (j < out.size() && (in[d] != 1 || remainingIn == remainingOut) && in[d] == out[j]) b[d] = x[j++];
                else b[d] = iconst(0);
            }
            return b;
        }, true);
    };
    t["aten.squeeze.default"] = t["aten.squeeze.dim"] = t["aten.squeeze.dims"] = squeeze;
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
        return makeView(c, [dim, idx](const std::vector<Index>& x) {
            std::vector<Index> b = x;
            b.insert(b.begin() + dim, iconst(idx));
            return b;
        }, true);
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
    t["aten.split.Tensor"] = t["aten.split_with_sizes.default"] = split;
}

} // namespace fxray::cg
