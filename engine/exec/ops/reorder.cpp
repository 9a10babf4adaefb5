// Ops that move elements into a fresh tensor: flip, roll, rot90, tril/triu, diag_embed and
// _chunk_cat. Layouts follow eager: flip keeps the input's layout (empty_like preserve), rot90
// is a flip plus a transpose of that result, the others are contiguous.
#include "exec/ops/register.h"
#include "exec/ops/shape_util.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace fxray {
using namespace kern;

namespace {

// ----- flip ----------------------------------------------------------------------------------

/// The flip dims of `dims` wrapped, with PyTorch's duplicate check.
Expected<std::vector<bool>> flipDims(const OpArgs& a, const TensorMeta& in, const std::vector<int64_t>& dims) {
    std::vector<bool> flip(static_cast<size_t>(std::max<int64_t>(in.dim(), 1)), false);
    size_t unique = 0;
    for (int64_t dim : dims) {
        auto d = dimArg(a, dim, in.dim());
        if (!d.ok()) return d.error();
        if (!flip[*d]) ++unique;
        flip[*d] = true;
    }
    if (unique != dims.size())
        return opError(a, "dims has duplicates, original flip dims size=" + std::to_string(dims.size()) +
                              ", but unique flip dims size=" + std::to_string(unique));
    return flip;
}

/// A view of `in` that reads it flipped along the marked dims (negative strides).
Tensor flippedView(const Tensor& in, const std::vector<bool>& flip) {
    TensorMeta m = in.meta;
    if (m.strides.size() != m.shape.size()) m.strides = TensorMeta::contiguousStrides(m.shape);
    for (size_t d = 0; d < m.shape.size(); ++d) {
        if (!flip[d] || m.shape[d] == 0) continue;
        m.offset += (m.shape[d] - 1) * m.strides[d];
        m.strides[d] = -m.strides[d];
    }
    return in.view(std::move(m));
}

Expected<Value> metaFlip(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto flip = flipDims(a, *in, a.toIntList(1));
    if (!flip.ok()) return flip.error();
    return metaValue(freshMeta(*in, in->shape, preserveStrides(*in)));
}

Expected<Value> flipKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto flip = flipDims(a, a.tensor(0).meta, a.toIntList(1));
    if (!flip.ok()) return flip.error();
    return Value::ofTensor(makeTensor(out.t.meta, toDoubles(flippedView(a.tensor(0), *flip))));
}

// ----- roll ----------------------------------------------------------------------------------

/// roll's (dim, shift) pairs; an empty dims list rolls the flattened tensor (dim -1 here).
Expected<std::vector<std::pair<int64_t, int64_t>>> rollPlan(const OpArgs& a, const TensorMeta& in) {
    const auto shifts = a.toIntList(1), dims = a.toIntList(2);
    if (shifts.empty()) return opError(a, "`shifts` required");
    if (dims.empty() && shifts.size() != 1)
        return opError(a, "shifts and dimensions must align. shifts: " + std::to_string(shifts.size()) + ", dims:0");
    if (!dims.empty() && dims.size() != shifts.size())
        return opError(a, "shifts and dimensions must align. shifts: " + std::to_string(shifts.size()) +
                              ", dims:" + std::to_string(dims.size()));
    std::vector<std::pair<int64_t, int64_t>> plan;
    if (dims.empty()) {
        plan.emplace_back(-1, shifts[0]);
        return plan;
    }
    for (size_t i = 0; i < dims.size(); ++i) {
        auto d = dimArg(a, dims[i], in.dim());
        if (!d.ok()) return d.error();
        plan.emplace_back(*d, shifts[i]);
    }
    return plan;
}

Expected<Value> metaRoll(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto plan = rollPlan(a, *in);
    if (!plan.ok()) return plan.error();
    return metaValue(contiguousLike(*in, in->shape));
}

/// Non-negative remainder of x by n (n > 0).
int64_t wrapMod(int64_t x, int64_t n) { return ((x % n) + n) % n; }

Expected<Value> rollKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    auto plan = rollPlan(a, in.meta);
    if (!plan.ok()) return plan.error();
    auto src = toDoubles(in);
    const auto n = static_cast<int64_t>(src.size());
    std::vector<double> vals(src.size());
    if (n == 0) return Value::ofTensor(makeTensor(out.t.meta, vals));
    if ((*plan)[0].first < 0) {
        const int64_t s = wrapMod((*plan)[0].second, n);
        for (int64_t i = 0; i < n; ++i) vals[static_cast<size_t>(i)] = src[static_cast<size_t>(wrapMod(i - s, n))];
        return Value::ofTensor(makeTensor(out.t.meta, vals));
    }
    // A 0-dim tensor has nothing to roll.
    if (in.dim() == 0) return Value::ofTensor(makeTensor(out.t.meta, src));
    // Shift per dim (several entries for one dim add up).
    const auto& shape = in.shape();
    std::vector<int64_t> shift(shape.size(), 0);
    for (const auto& [d, s] : *plan) shift[static_cast<size_t>(d)] += s;
    const auto st = rowMajorStrides(shape);
    std::vector<int64_t> idx(shape.size(), 0);
    for (int64_t e = 0; e < n; ++e) {
        int64_t off = 0;
        for (size_t d = 0; d < shape.size(); ++d) off += wrapMod(idx[d] - shift[d], shape[d]) * st[d];
        vals[static_cast<size_t>(e)] = src[static_cast<size_t>(off)];
        for (size_t d = shape.size(); d-- > 0;) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

// ----- rot90 ---------------------------------------------------------------------------------

/// rot90's plan: k in [0, 4) and the two wrapped dims.
struct Rot90 {
    int64_t k, d0, d1;
};

Expected<Rot90> rot90Plan(const OpArgs& a, const TensorMeta& in) {
    const auto dims = a.toIntList(2);
    const int64_t total = in.dim();
    if (dims.size() != 2)
        return opError(a, "expected total rotation dims == 2, but got dims = " + std::to_string(dims.size()));
    if (total < 2) return opError(a, "expected total dims >= 2, but got total dims = " + std::to_string(total));
    if (dims[0] == dims[1] || std::abs(dims[0] - dims[1]) == total)
        return opError(a, "expected rotation dims to be different, but got dim0 = " + std::to_string(dims[0]) +
                              " and dim1 = " + std::to_string(dims[1]));
    if (dims[0] >= total || dims[0] < -total)
        return opError(a, "Rotation dim0 out of range, dim0 = " + std::to_string(dims[0]));
    if (dims[1] >= total || dims[1] < -total)
        return opError(a, "Rotation dim1 out of range, dim1 = " + std::to_string(dims[1]));
    const int64_t k = ((a.toInt(1) % 4) + 4) % 4;
    return Rot90{k, *wrapDim(dims[0], total), *wrapDim(dims[1], total)};
}

/// Geometry of rot90's result: k=0 a contiguous clone, k=2 a flip of both dims, k=1/3 a flip of
/// one dim whose result is then transposed (so the output is a transposed fresh tensor).
TensorMeta rot90Meta(const TensorMeta& in, const Rot90& p) {
    if (p.k == 0) return contiguousLike(in, in.shape);
    TensorMeta m = freshMeta(in, in.shape, preserveStrides(in));
    if (p.k == 2) return m;
    std::swap(m.shape[p.d0], m.shape[p.d1]);
    std::swap(m.strides[p.d0], m.strides[p.d1]);
    return m;
}

Expected<Value> metaRot90(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto p = rot90Plan(a, *in);
    if (!p.ok()) return p.error();
    return metaValue(rot90Meta(*in, *p));
}

Expected<Value> rot90Kernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    auto p = rot90Plan(a, in.meta);
    if (!p.ok()) return p.error();
    if (p->k == 0) return Value::ofTensor(makeTensor(out.t.meta, toDoubles(in)));
    std::vector<bool> flip(in.shape().size(), false);
    if (p->k != 3) flip[p->d1] = true;
    if (p->k != 1) flip[p->d0] = true;
    TensorMeta flipped = freshMeta(in.meta, in.shape(), preserveStrides(in.meta));
    Tensor t = makeTensor(flipped, toDoubles(flippedView(in, flip)));
    if (p->k == 2) return Value::ofTensor(t);
    return Value::ofTensor(t.view(out.t.meta));
}

// ----- tril / triu ---------------------------------------------------------------------------

Expected<Value> metaTriangle(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    if (in->dim() < 2) return opError(a, a.op().schema.name + ": input tensor must have at least 2 dimensions");
    return metaValue(contiguousLike(*in, in->shape));
}

/// Keeps element (i, j) of every matrix where keep(j - i) holds, zeroes the rest.
Expected<Value> triangleKernel(const OpArgs& a, const Value& out, bool lower) {
    const Tensor& in = a.tensor(0);
    const int64_t k = a.toInt(1);
    auto vals = toDoubles(in);
    const auto& shape = in.shape();
    const int64_t rows = shape[shape.size() - 2], cols = shape.back();
    for (size_t e = 0; e < vals.size(); ++e) {
        const int64_t j = static_cast<int64_t>(e) % cols, i = (static_cast<int64_t>(e) / cols) % rows;
        const bool keep = lower ? j - i <= k : j - i >= k;
        if (!keep) vals[e] = 0.0;
    }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> trilKernel(const OpArgs& a, const Value& out, ExecContext&) { return triangleKernel(a, out, true); }
Expected<Value> triuKernel(const OpArgs& a, const Value& out, ExecContext&) { return triangleKernel(a, out, false); }

// ----- diag_embed ----------------------------------------------------------------------------

/// diag_embed(offset, dim1, dim2): dims wrapped against self.dim() + 1.
struct DiagEmbed {
    int64_t offset, dim1, dim2;
};

Expected<DiagEmbed> diagEmbedPlan(const OpArgs& a, const TensorMeta& in) {
    if (in.dim() == 0) return opError(a, "dimension specified as -1 but tensor has no dimensions");
    auto d1 = dimArg(a, a.toInt(2), in.dim() + 1);
    if (!d1.ok()) return d1.error();
    auto d2 = dimArg(a, a.toInt(3), in.dim() + 1);
    if (!d2.ok()) return d2.error();
    if (*d1 == *d2)
        return opError(a, "diagonal dimensions cannot be identical " + std::to_string(a.toInt(2)) + ", " +
                              std::to_string(a.toInt(3)));
    return DiagEmbed{a.toInt(1), *d1, *d2};
}

Expected<Value> metaDiagEmbed(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto p = diagEmbedPlan(a, *in);
    if (!p.ok()) return p.error();
    const int64_t len = std::abs(p->offset) + in->shape.back();
    std::vector<int64_t> shape(in->shape.begin(), in->shape.end() - 1);
    shape.insert(shape.begin() + std::min(p->dim1, p->dim2), len);
    shape.insert(shape.begin() + std::max(p->dim1, p->dim2), len);
    return metaValue(contiguousLike(*in, shape));
}

Expected<Value> diagEmbedKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    auto p = diagEmbedPlan(a, a.tensor(0).meta);
    if (!p.ok()) return p.error();
    Tensor result = Tensor::emptyLike(out.t.meta);
    auto diag = viewOf(a, "aten.diagonal.default", result,
                       {Value::ofInt(p->offset), Value::ofInt(p->dim1), Value::ofInt(p->dim2)}, ctx);
    if (!diag.ok()) return diag.error();
    writeInto(*diag, a.tensor(0), false);
    return Value::ofTensor(result);
}

// ----- _chunk_cat ----------------------------------------------------------------------------

/// _chunk_cat's layout: every tensor viewed as [outer, rows, inner] around dim, split into
/// num_chunks chunks of `chunkRows` rows (zero-padded), concatenated per chunk.
struct ChunkCat {
    int64_t dim, chunks, outer;
    std::vector<int64_t> rows, inner, chunkRows;
    int64_t width = 0;  ///< elements of one output chunk row: sum of chunkRows * inner
};

Expected<ChunkCat> chunkCatPlan(const OpArgs& a, const std::vector<Tensor>& ts) {
    const int64_t chunks = a.toInt(2);
    if (chunks < 1) return opError(a, "_chunk_cat expects positive num_chunks");
    if (ts.empty()) return opError(a, "_chunk_cat expects a non-empty input tensor list");
    const TensorMeta& first = ts[0].meta;
    if (first.dim() == 0) return opError(a, "_chunk_cat expects non-scalar input tensors");
    auto d = dimArg(a, a.toInt(1), first.dim());
    if (!d.ok()) return d.error();
    ChunkCat p{*d, chunks, 1, {}, {}, {}};
    for (int64_t k = 0; k < *d; ++k) p.outer *= first.shape[k];
    for (const auto& t : ts) {
        if (t.meta.isSymbolic()) return opError(a, "symbolic shapes are not supported");
        if (t.numel() == 0) return opError(a, "_chunk_cat expects non-empty tensor");
        if (t.dtype() != first.dtype) return opError(a, "_chunk_cat expects all input tensors with the same dtype");
        if (t.dim() != first.dim())
            return opError(a, "_chunk_cat expects same number of dimensions across input tensors");
        for (int64_t k = 0; k < *d; ++k)
            if (t.shape()[k] != first.shape[k])
                return opError(a, "_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors");
        int64_t inner = 1;
        for (int64_t k = *d + 1; k < t.dim(); ++k) inner *= t.shape()[k];
        const int64_t rows = t.shape()[*d];
        p.rows.push_back(rows);
        p.inner.push_back(inner);
        p.chunkRows.push_back((rows + chunks - 1) / chunks);
        p.width += p.chunkRows.back() * inner;
    }
    return p;
}

Expected<Value> metaChunkCat(const OpArgs& a) {
    const auto ts = a.tensorList(0);
    auto p = chunkCatPlan(a, ts);
    if (!p.ok()) return p.error();
    std::vector<int64_t> shape(ts[0].shape().begin(), ts[0].shape().begin() + p->dim);
    shape.push_back(p->chunks);
    shape.push_back(p->width);
    return metaValue(contiguousLike(ts[0].meta, shape));
}

Expected<Value> chunkCatKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto ts = a.tensorList(0);
    auto p = chunkCatPlan(a, ts);
    if (!p.ok()) return p.error();
    std::vector<double> vals(static_cast<size_t>(out.t.numel()), 0.0);
    int64_t col = 0;
    for (size_t t = 0; t < ts.size(); ++t) {
        const auto src = toDoubles(ts[t]);
        const int64_t rows = p->rows[t], inner = p->inner[t], cr = p->chunkRows[t];
        for (int64_t o = 0; o < p->outer; ++o)
            for (int64_t r = 0; r < rows; ++r) {
                const int64_t c = r / cr, within = r % cr;
                const int64_t dst = (o * p->chunks + c) * p->width + col + within * inner;
                const int64_t from = (o * rows + r) * inner;
                std::copy(src.begin() + from, src.begin() + from + inner, vals.begin() + dst);
            }
        col += cr * inner;
    }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

}  // namespace

void registerReorderOps(OpRegistry& r) {
    using C = OpCategory;
    r.add("aten.flip.default", "flip(Tensor self, int[] dims) -> Tensor", C::Other, metaFlip, flipKernel);
    r.add("aten.roll.default", "roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor", C::Other, metaRoll,
          rollKernel);
    r.add("aten.rot90.default", "rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor", C::Other, metaRot90,
          rot90Kernel);
    r.add("aten.tril.default", "tril(Tensor self, int diagonal=0) -> Tensor", C::Other, metaTriangle, trilKernel);
    r.add("aten.triu.default", "triu(Tensor self, int diagonal=0) -> Tensor", C::Other, metaTriangle, triuKernel);
    r.add("aten.diag_embed.default", "diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor",
          C::Other, metaDiagEmbed, diagEmbedKernel);
    r.add("aten._chunk_cat.default", "_chunk_cat(Tensor[] tensors, int dim, int num_chunks) -> Tensor", C::Other,
          metaChunkCat, chunkCatKernel);
}

}  // namespace fxray
