// Gather/scatter-style indexing: gather, scatter, index_select, index_add, advanced indexing
// (index, index_put), embedding and its backward, masked_fill. Index values are validated
// against the indexed size (a clear error instead of PyTorch's device-side assert).
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace fxray {
using namespace kern;

namespace {

Expected<int64_t> dimArg(const OpArgs& a, int64_t dim, int64_t ndim) {
    auto d = wrapDim(dim, ndim);
    if (!d) {
        int64_t n = std::max<int64_t>(ndim, 1);
        return opError(a, "dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " +
                              std::to_string(n - 1) + "], but got " + std::to_string(dim) + ")");
    }
    return *d;
}

bool isIndexType(DType t) { return t == DType::Int64 || t == DType::Int32; }

Expected<bool> checkIndexDtype(const OpArgs& a, const Tensor& idx, bool int64Only) {
    if (int64Only ? idx.dtype() != DType::Int64 : !isIndexType(idx.dtype()))
        return opError(a, std::string("expected ") + (int64Only ? "int64" : "int64 or int32") + " index tensor, got " +
                              std::string(dtypeTorchName(idx.dtype())));
    return true;
}

/// Index values as integers, with negative ones wrapped when allowed; fails on out-of-range.
Expected<std::vector<int64_t>> indexValues(const OpArgs& a, const std::vector<double>& raw, int64_t size, int64_t dim,
                                           bool allowNegative) {
    std::vector<int64_t> out(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        int64_t v = static_cast<int64_t>(raw[i]);
        int64_t w = allowNegative && v < 0 ? v + size : v;
        if (w < 0 || w >= size)
            return opError(a, "index " + std::to_string(v) + " is out of bounds for dimension " + std::to_string(dim) +
                                  " with size " + std::to_string(size));
        out[i] = w;
    }
    return out;
}

TensorMeta contiguousMeta(const std::vector<int64_t>& shape, DType dt, const Device& dev) {
    return TensorMeta::contiguous(shape, dt, dev);
}

/// Row-major multi-index odometer.
bool advance(std::vector<int64_t>& idx, const std::vector<int64_t>& shape) {
    for (size_t d = shape.size(); d-- > 0;) {
        if (++idx[d] < shape[d]) return true;
        idx[d] = 0;
    }
    return false;
}

// ----- gather / scatter ----------------------------------------------------------------------

/// gather/scatter shape rules: same rank, index no larger than self (and src) off `dim`.
Expected<int64_t> checkGatherShapes(const OpArgs& a, const TensorMeta& self, const TensorMeta& index,
                                    const TensorMeta* src) {
    auto d = dimArg(a, a.toInt(1), self.dim());
    if (!d.ok()) return d.error();
    if (index.numel() == 0) return *d;
    if (std::max<int64_t>(index.dim(), 1) != std::max<int64_t>(self.dim(), 1))
        return opError(a, "index tensor must have the same number of dimensions as input tensor");
    for (int64_t k = 0; k < index.dim(); ++k) {
        if (k != *d && index.shape[k] > self.shape[k])
            return opError(a, "size does not match at dimension " + std::to_string(k) + ": expected index " +
                                  shapeStr(index.shape) + " to be no larger than self " + shapeStr(self.shape) +
                                  " apart from dimension " + std::to_string(*d));
        if (src && index.shape[k] > src->shape[k])
            return opError(a, "size does not match at dimension " + std::to_string(k) + ": expected index " +
                                  shapeStr(index.shape) + " to be no larger than src " + shapeStr(src->shape));
    }
    return *d;
}

Expected<Value> metaGather(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    const TensorMeta& index = a.tensor(2).meta;
    // gather and scatter take int32 indices too (PyTorch 2.11).
    // An empty index is not checked (PyTorch's scatter_gather_dtype_check skips it).
    if (a.tensor(2).numel() != 0)
        if (auto ok = checkIndexDtype(a, a.tensor(2), false); !ok.ok()) return ok.error();
    auto d = checkGatherShapes(a, self, index, nullptr);
    if (!d.ok()) return d.error();
    return metaValue(contiguousMeta(index.shape, self.dtype, self.device));
}

/// Offset (row-major, in self) of index position `pos` with coordinate `dim` replaced by v.
int64_t rowMajorOffset(const std::vector<int64_t>& pos, const std::vector<int64_t>& strides, size_t dim, int64_t v) {
    int64_t off = 0;
    for (size_t k = 0; k < pos.size(); ++k) off += (k == dim ? v : pos[k]) * strides[k];
    return off;
}

Expected<Value> gatherKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& self = a.tensor(0);
    const Tensor& index = a.tensor(2);
    const int64_t dim = *wrapDim(a.toInt(1), self.dim());
    const int64_t size = self.dim() == 0 ? 1 : self.shape()[dim];
    auto iv = indexValues(a, toDoubles(index), size, dim, false);
    if (!iv.ok()) return iv.error();
    auto src = toDoubles(self);
    auto sst = rowMajorStrides(self.shape());
    std::vector<double> vals(iv->size());
    std::vector<int64_t> pos(index.shape().size(), 0);
    for (size_t e = 0; e < vals.size(); ++e) {
        vals[e] = src[static_cast<size_t>(self.dim() == 0 ? 0 : rowMajorOffset(pos, sst, dim, (*iv)[e]))];
        advance(pos, index.shape());
    }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> metaScatter(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    // int32 indices are accepted like gather's (gather's backward is a scatter_add of them).
    // An empty index is not checked (PyTorch's scatter_gather_dtype_check skips it).
    if (a.tensor(2).numel() != 0)
        if (auto ok = checkIndexDtype(a, a.tensor(2), false); !ok.ok()) return ok.error();
    const TensorMeta* src = a.isTensor(3) ? &a.tensor(3).meta : nullptr;
    auto d = checkGatherShapes(a, self, a.tensor(2).meta, src);
    if (!d.ok()) return d.error();
    return metaValue(contiguousMeta(self.shape, self.dtype, self.device));
}

Expected<Value> scatterImpl(const OpArgs& a, const Value& out, bool add) {
    const Tensor& self = a.tensor(0);
    const Tensor& index = a.tensor(2);
    const int64_t dim = *wrapDim(a.toInt(1), self.dim());
    const int64_t size = self.dim() == 0 ? 1 : self.shape()[dim];
    auto iv = indexValues(a, toDoubles(index), size, dim, false);
    if (!iv.ok()) return iv.error();
    auto vals = toDoubles(self);
    auto sst = rowMajorStrides(self.shape());
    std::vector<double> srcVals;
    std::vector<int64_t> srcStrides;
    const bool srcTensor = a.isTensor(3);
    if (srcTensor) {
        srcVals = toDoubles(a.tensor(3));
        srcStrides = rowMajorStrides(a.tensor(3).shape());
    }
    const double scalar = srcTensor ? 0.0 : a.toDouble(3);
    std::vector<int64_t> pos(index.shape().size(), 0);
    for (size_t e = 0; e < iv->size(); ++e) {
        double v = scalar;
        if (srcTensor) {
            int64_t so = 0;
            for (size_t k = 0; k < pos.size(); ++k) so += pos[k] * srcStrides[k];
            v = srcVals[static_cast<size_t>(so)];
        }
        auto o = static_cast<size_t>(self.dim() == 0 ? 0 : rowMajorOffset(pos, sst, dim, (*iv)[e]));
        vals[o] = add ? vals[o] + v : v;
        advance(pos, index.shape());
    }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> scatterKernel(const OpArgs& a, const Value& out, ExecContext&) { return scatterImpl(a, out, false); }
Expected<Value> scatterAddKernel(const OpArgs& a, const Value& out, ExecContext&) { return scatterImpl(a, out, true); }

// ----- index_select / index_add --------------------------------------------------------------

// ----- repeat_interleave.Tensor(repeats, *, output_size=None) ---------------------------------

/// The 1-D repeats, each a non-negative count.
Expected<std::vector<double>> repeatCounts(const OpArgs& a) {
    const Tensor& r = a.tensor(0);
    if (r.dim() > 1) return opError(a, "repeats must be 0-dim or 1-dim tensor");
    if (r.dtype() != DType::Int64 && r.dtype() != DType::Int32)
        return opError(a, "repeats has to be Long or Int tensor, got " + std::string(dtypeTorchName(r.dtype())));
    if (!r.hasData()) return std::vector<double>{};
    std::vector<double> v = toDoubles(r);
    for (double x : v)
        if (x < 0) return opError(a, "repeats can not be negative");
    return v;
}

/// [0] * r0 + [1] * r1 + ...: its length is the repeats' sum, known from output_size or values.
Expected<Value> metaRepeatInterleave(const OpArgs& a) {
    auto counts = repeatCounts(a);
    if (!counts.ok()) return counts.error();
    const Tensor& r = a.tensor(0);
    int64_t total = 0;
    if (!a.isNone(1)) {
        total = a.toInt(1);
    } else if (!r.hasData()) {
        return opError(a, "the output length is the sum of the repeats: it needs their values (or output_size)");
    } else {
        for (double x : *counts) total += static_cast<int64_t>(x);
    }
    return metaValue(TensorMeta::contiguous({total}, r.dtype(), r.meta.device));
}

Expected<Value> repeatInterleaveKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto counts = repeatCounts(a);
    if (!counts.ok()) return counts.error();
    std::vector<double> idx;
    for (size_t i = 0; i < counts->size(); ++i) idx.insert(idx.end(), static_cast<size_t>((*counts)[i]), double(i));
    if (static_cast<int64_t>(idx.size()) != out.t.numel())
        return opError(a, "allocated size does not match required size: output_size " + std::to_string(out.t.numel()) +
                              ", the repeats sum to " + std::to_string(idx.size()));
    return Value::ofTensor(makeTensor(out.t.meta, idx));
}

Expected<Value> metaIndexSelect(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    const Tensor& index = a.tensor(2);
    auto ok = checkIndexDtype(a, index, false);
    if (!ok.ok()) return ok.error();
    if (index.dim() > 1)
        return opError(a, "index_select(): index should be a vector (got " + std::to_string(index.dim()) + " dims)");
    auto d = dimArg(a, a.toInt(1), self.dim());
    if (!d.ok()) return d.error();
    std::vector<int64_t> shape = self.shape;
    if (self.dim() == 0) {
        if (index.numel() != 1) return opError(a, "index_select(): index of a 0-dim tensor must have one element");
    } else {
        shape[*d] = index.numel();
    }
    return metaValue(contiguousMeta(shape, self.dtype, self.device));
}

/// Splits a shape around `dim` into (outer, size, inner) element counts.
void splitAround(const std::vector<int64_t>& shape, int64_t dim, int64_t& outer, int64_t& inner) {
    outer = 1;
    inner = 1;
    for (int64_t k = 0; k < dim; ++k) outer *= shape[k];
    for (size_t k = dim + 1; k < shape.size(); ++k) inner *= shape[k];
}

Expected<Value> indexSelectKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& self = a.tensor(0);
    if (self.dim() == 0) return Value::ofTensor(makeTensor(out.t.meta, toDoubles(self)));
    const int64_t dim = *wrapDim(a.toInt(1), self.dim());
    const int64_t size = self.shape()[dim];
    auto iv = indexValues(a, toDoubles(a.tensor(2)), size, dim, false);
    if (!iv.ok()) return iv.error();
    int64_t outer, inner;
    splitAround(self.shape(), dim, outer, inner);
    auto src = toDoubles(self);
    const int64_t n = static_cast<int64_t>(iv->size());
    std::vector<double> vals(static_cast<size_t>(outer * n * inner));
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < n; ++i) {
            const double* s = src.data() + (o * size + (*iv)[i]) * inner;
            std::copy(s, s + inner, vals.begin() + (o * n + i) * inner);
        }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> metaIndexAdd(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    const Tensor& index = a.tensor(2);
    const TensorMeta& source = a.tensor(3).meta;
    auto ok = checkIndexDtype(a, index, false);
    if (!ok.ok()) return ok.error();
    auto d = dimArg(a, a.toInt(1), self.dim());
    if (!d.ok()) return d.error();
    if (index.dim() > 1) return opError(a, "index_add_(): index should be a vector");
    if (self.dim() > 0) {
        std::vector<int64_t> want = self.shape;
        want[*d] = index.numel();
        if (source.shape != want && !(source.dim() == 0 && index.numel() == 1 && self.dim() <= 1))
            return opError(a, "source shape " + shapeStr(source.shape) + " does not match self " +
                                  shapeStr(self.shape) + " with dimension " + std::to_string(*d) +
                                  " replaced by the number of indices (" + std::to_string(index.numel()) + ")");
    }
    return metaValue(contiguousMeta(self.shape, self.dtype, self.device));
}

Expected<Value> indexAddKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& self = a.tensor(0);
    auto vals = toDoubles(self);
    const double alpha = a.toDouble(4);
    auto srcVals = toDoubles(a.tensor(3));
    if (self.dim() == 0) {
        auto iv = indexValues(a, toDoubles(a.tensor(2)), 1, 0, false);
        if (!iv.ok()) return iv.error();
        for (double s : srcVals) vals[0] += alpha * s;
        return Value::ofTensor(makeTensor(out.t.meta, vals));
    }
    const int64_t dim = *wrapDim(a.toInt(1), self.dim());
    const int64_t size = self.shape()[dim];
    auto iv = indexValues(a, toDoubles(a.tensor(2)), size, dim, false);
    if (!iv.ok()) return iv.error();
    int64_t outer, inner;
    splitAround(self.shape(), dim, outer, inner);
    const int64_t n = static_cast<int64_t>(iv->size());
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < n; ++i) {
            double* dst = vals.data() + (o * size + (*iv)[i]) * inner;
            const double* s = srcVals.data() + (o * n + i) * inner;
            for (int64_t k = 0; k < inner; ++k) dst[k] += alpha * s[k];
        }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

// ----- advanced indexing ---------------------------------------------------------------------

/// How an advanced index maps output positions to positions of self.
struct IndexPlan {
    std::vector<int64_t> outShape;
    std::vector<int64_t> bcast;  ///< broadcast shape of the index tensors
    std::vector<int> adv;        ///< per self dim: position in idx (or -1: not indexed)
    std::vector<Tensor> idx;     ///< index tensors (bool masks already turned into longs)
    bool front = false;          ///< index dims go first (non-adjacent indexed dims)
    int64_t firstAdv = 0;
};

/// Builds the plan of x[indices] (ATen's AdvancedIndex, as meta_index_Tensor models it).
Expected<IndexPlan> planIndex(const OpArgs& a, const TensorMeta& self, const Value& indices) {
    IndexPlan p;
    std::vector<std::optional<Tensor>> perDim;  // one entry per consumed self dim
    if (!indices.isList() || indices.list.empty()) return opError(a, "at least one index must be provided");
    for (size_t i = 0; i < indices.list.size(); ++i) {
        const Value& v = indices.list[i];
        if (v.isNone()) {
            perDim.emplace_back();
            continue;
        }
        const Tensor& t = v.t;
        if (t.dtype() == DType::Bool || t.dtype() == DType::UInt8) {
            // A mask indexes as many dims as it has, by the coordinates of its true elements.
            const size_t k = perDim.size();
            if (static_cast<int64_t>(k) + t.dim() > self.dim())
                return opError(a, "too many indices for tensor of dimension " + std::to_string(self.dim()));
            for (int64_t j = 0; j < t.dim(); ++j)
                if (t.shape()[j] != self.shape[k + j])
                    return opError(a, "the shape of the mask " + shapeStr(t.shape()) + " at index " +
                                          std::to_string(i) + " does not match the shape of the indexed tensor " +
                                          shapeStr(self.shape) + " at index " + std::to_string(k + j));
            if (!t.hasData())
                return opError(a, "boolean mask indexing has a data-dependent output shape; it needs real values");
            auto mv = toDoubles(t);
            std::vector<std::vector<double>> coords(static_cast<size_t>(t.dim()));
            std::vector<int64_t> pos(t.shape().size(), 0);
            for (size_t e = 0; e < mv.size(); ++e) {
                if (mv[e] != 0.0)
                    for (size_t j = 0; j < pos.size(); ++j) coords[j].push_back(static_cast<double>(pos[j]));
                advance(pos, t.shape());
            }
            for (auto& c : coords) {
                const int64_t n = static_cast<int64_t>(c.size());
                perDim.emplace_back(makeTensor(TensorMeta::contiguous({n}, DType::Int64, t.meta.device), c));
            }
            continue;
        }
        if (!isIndexType(t.dtype()))
            return opError(a, "tensors used as indices must be long, int, byte or bool tensors, got " +
                                  std::string(dtypeTorchName(t.dtype())));
        perDim.emplace_back(t);
    }
    if (static_cast<int64_t>(perDim.size()) > self.dim())
        return opError(a, "too many indices for tensor of dimension " + std::to_string(self.dim()) + " (got " +
                              std::to_string(perDim.size()) + ")");
    perDim.resize(static_cast<size_t>(self.dim()));
    p.adv.assign(perDim.size(), -1);
    int state = 0;
    bool contiguous = true;
    for (size_t d = 0; d < perDim.size(); ++d) {
        if (!perDim[d]) {
            if (state == 1) state = 2;
            continue;
        }
        if (state == 0) {
            state = 1;
            p.firstAdv = static_cast<int64_t>(d);
        } else if (state == 2)
            contiguous = false;
        auto b = broadcastShapes(p.bcast, perDim[d]->shape());
        if (!b) return opError(a, "shape mismatch: indexing tensors could not be broadcast together");
        p.bcast = *b;
        p.adv[d] = static_cast<int>(p.idx.size());
        p.idx.push_back(*perDim[d]);
    }
    if (p.idx.empty()) {
        // Only Nones: the result is a copy of self.
        p.outShape = self.shape;
        return p;
    }
    p.front = !contiguous;
    if (p.front) {
        p.outShape = p.bcast;
        for (size_t d = 0; d < perDim.size(); ++d)
            if (p.adv[d] < 0) p.outShape.push_back(self.shape[d]);
    } else {
        for (int64_t d = 0; d < p.firstAdv; ++d) p.outShape.push_back(self.shape[d]);
        p.outShape.insert(p.outShape.end(), p.bcast.begin(), p.bcast.end());
        for (size_t d = static_cast<size_t>(p.firstAdv); d < perDim.size(); ++d)
            if (p.adv[d] < 0) p.outShape.push_back(self.shape[d]);
    }
    return p;
}

/// Row-major offsets into self of every output element of the plan, validating the indices.
Expected<std::vector<int64_t>> indexOffsets(const OpArgs& a, const IndexPlan& p, const TensorMeta& self) {
    const size_t nd = self.shape.size();
    auto sst = rowMajorStrides(self.shape);
    std::vector<std::vector<int64_t>> iv;
    for (size_t k = 0; k < p.idx.size(); ++k) {
        size_t d = 0;
        while (p.adv[d] != static_cast<int>(k)) ++d;
        auto v = indexValues(a, toDoublesBroadcast(p.idx[k], p.bcast), self.shape[d], static_cast<int64_t>(d), true);
        if (!v.ok()) return v.error();
        iv.push_back(std::move(v).value());
    }
    // Output dims: where each comes from (a self dim, or the broadcast block).
    const size_t nb = p.bcast.size();
    const int64_t nbElems = product(p.bcast);
    std::vector<int64_t> selfDimOfOut;  // -1 for broadcast-block dims
    size_t bStart = 0;
    if (p.idx.empty()) {
        for (size_t d = 0; d < nd; ++d) selfDimOfOut.push_back(static_cast<int64_t>(d));
    } else if (p.front) {
        selfDimOfOut.assign(nb, -1);
        for (size_t d = 0; d < nd; ++d)
            if (p.adv[d] < 0) selfDimOfOut.push_back(static_cast<int64_t>(d));
    } else {
        for (int64_t d = 0; d < p.firstAdv; ++d) selfDimOfOut.push_back(d);
        bStart = selfDimOfOut.size();
        selfDimOfOut.insert(selfDimOfOut.end(), nb, -1);
        for (size_t d = static_cast<size_t>(p.firstAdv); d < nd; ++d)
            if (p.adv[d] < 0) selfDimOfOut.push_back(static_cast<int64_t>(d));
    }
    const int64_t total = product(p.outShape);
    std::vector<int64_t> offs(static_cast<size_t>(total));
    std::vector<int64_t> pos(p.outShape.size(), 0);
    auto bst = rowMajorStrides(p.bcast);
    for (int64_t e = 0; e < total; ++e) {
        int64_t off = 0, b = 0;
        for (size_t o = 0; o < pos.size(); ++o) {
            if (selfDimOfOut[o] >= 0)
                off += pos[o] * sst[static_cast<size_t>(selfDimOfOut[o])];
            else
                b += pos[o] * bst[o - bStart];
        }
        if (!p.idx.empty() && nbElems > 0)
            for (size_t d = 0; d < nd; ++d)
                if (p.adv[d] >= 0) off += iv[static_cast<size_t>(p.adv[d])][static_cast<size_t>(b)] * sst[d];
        offs[static_cast<size_t>(e)] = off;
        advance(pos, p.outShape);
    }
    return offs;
}

/// Output layout as meta_index_Tensor computes it to follow eager's TensorIterator: self
/// restrided to the output shape (indexed dims replaced by the index dims with stride 0) decides
/// the dimension order.
Expected<Value> metaIndex(const OpArgs& a) {
    TensorMeta self = a.tensor(0).meta;
    if (self.isSymbolic()) return opError(a, "symbolic shapes are not supported");
    if (self.strides.size() != self.shape.size()) self.strides = TensorMeta::contiguousStrides(self.shape);
    auto p = planIndex(a, self, a[1]);
    if (!p.ok()) return p.error();
    TensorMeta out = contiguousMeta(p->outShape, self.dtype, self.device);
    if (self.numel() == 0 || p->idx.empty()) return metaValue(std::move(out));
    TensorMeta restrided = out;
    restrided.strides.clear();
    const size_t nd = self.shape.size(), nb = p->bcast.size();
    if (p->front) {
        restrided.strides.assign(nb, 0);
        for (size_t d = 0; d < nd; ++d)
            if (p->adv[d] < 0) restrided.strides.push_back(self.strides[d]);
    } else {
        for (int64_t d = 0; d < p->firstAdv; ++d) restrided.strides.push_back(self.strides[d]);
        restrided.strides.insert(restrided.strides.end(), nb, 0);
        for (size_t d = static_cast<size_t>(p->firstAdv); d < nd; ++d)
            if (p->adv[d] < 0) restrided.strides.push_back(self.strides[d]);
    }
    out.strides = emptyLikeStrides(restrided);
    return metaValue(std::move(out));
}

Expected<Value> indexKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& self = a.tensor(0);
    auto p = planIndex(a, self.meta, a[1]);
    if (!p.ok()) return p.error();
    auto offs = indexOffsets(a, *p, self.meta);
    if (!offs.ok()) return offs.error();
    auto src = toDoubles(self);
    std::vector<double> vals(offs->size());
    for (size_t e = 0; e < vals.size(); ++e) vals[e] = src[static_cast<size_t>((*offs)[e])];
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

/// A boolean mask known only by its metadata among the indices: how many elements it selects
/// is unknown, so index_put's value shape cannot be checked (its result's shape is self's).
bool datalessMask(const Value& indices) {
    if (!indices.isList()) return false;
    for (const Value& v : indices.list)
        if (v.isTensor() && (v.t.dtype() == DType::Bool || v.t.dtype() == DType::UInt8) && !v.t.hasData()) return true;
    return false;
}

Expected<Value> metaIndexPut(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    const bool dataless = datalessMask(a[1]);
    auto p = dataless ? Expected<IndexPlan>(IndexPlan{}) : planIndex(a, self, a[1]);
    if (!p.ok()) return p.error();
    if (a.isTensor(2)) {
        const Tensor& v = a.tensor(2);
        if (v.dtype() != self.dtype)
            return opError(a, "index put requires the source and destination dtypes match, got " +
                                  std::string(dtypeTorchName(self.dtype)) + " for the destination and " +
                                  std::string(dtypeTorchName(v.dtype())) + " for the source");
        auto b = dataless ? std::optional<std::vector<int64_t>>(p->outShape) : broadcastShapes(p->outShape, v.shape());
        if (!b || *b != p->outShape)
            return opError(a, "shape mismatch: value tensor of shape " + shapeStr(v.shape()) +
                                  " cannot be broadcast to indexing result of shape " + shapeStr(p->outShape));
    }
    // The meta function returns torch.empty_like(self).
    TensorMeta m = self;
    if (m.strides.size() != m.shape.size()) m.strides = TensorMeta::contiguousStrides(m.shape);
    m.offset = 0;
    m.strides = emptyLikeStrides(m);
    return metaValue(std::move(m));
}

Expected<std::vector<double>> indexPutValues(const OpArgs& a) {
    const Tensor& self = a.tensor(0);
    auto p = planIndex(a, self.meta, a[1]);
    if (!p.ok()) return p.error();
    auto offs = indexOffsets(a, *p, self.meta);
    if (!offs.ok()) return offs.error();
    auto vals = toDoubles(self);
    std::vector<double> src =
        a.isTensor(2) ? toDoublesBroadcast(a.tensor(2), p->outShape) : std::vector<double>(offs->size(), a.toDouble(2));
    const bool acc = a.toBool(3);
    for (size_t e = 0; e < offs->size(); ++e) {
        auto o = static_cast<size_t>((*offs)[e]);
        vals[o] = acc ? vals[o] + src[e] : src[e];
    }
    return vals;
}

Expected<Value> indexPutKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto vals = indexPutValues(a);
    if (!vals.ok()) return vals.error();
    return Value::ofTensor(makeTensor(out.t.meta, *vals));
}

Expected<Value> metaIndexPutInplace(const OpArgs& a) {
    auto checked = metaIndexPut(a);
    if (!checked.ok()) return checked;
    return metaValue(a.tensor(0).meta);
}

Expected<Value> indexPutInplaceKernel(const OpArgs& a, const Value&, ExecContext&) {
    auto vals = indexPutValues(a);
    if (!vals.ok()) return vals.error();
    Tensor self = a.tensor(0);
    fromDoubles(self, *vals);
    return Value::ofTensor(self);
}

// ----- embedding -----------------------------------------------------------------------------

Expected<Value> metaEmbedding(const OpArgs& a) {
    const TensorMeta& w = a.tensor(0).meta;
    const Tensor& idx = a.tensor(1);
    if (w.dim() != 2) return opError(a, "'weight' must be 2-D, got " + std::to_string(w.dim()) + " dims");
    auto ok = checkIndexDtype(a, idx, false);
    if (!ok.ok()) return ok.error();
    std::vector<int64_t> shape = idx.shape();
    shape.push_back(w.shape[1]);
    return metaValue(contiguousMeta(shape, w.dtype, w.device));
}

Expected<Value> embeddingKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& w = a.tensor(0);
    const int64_t rows = w.shape()[0], d = w.shape()[1];
    auto iv = indexValues(a, toDoubles(a.tensor(1)), rows, 0, false);
    if (!iv.ok()) return iv.error();
    auto wv = toDoubles(w);
    std::vector<double> vals(iv->size() * static_cast<size_t>(d));
    for (size_t i = 0; i < iv->size(); ++i)
        std::copy(wv.begin() + (*iv)[i] * d, wv.begin() + ((*iv)[i] + 1) * d,
                  vals.begin() + static_cast<int64_t>(i) * d);
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> metaEmbeddingBackward(const OpArgs& a) {
    const TensorMeta& g = a.tensor(0).meta;
    auto ok = checkIndexDtype(a, a.tensor(1), false);
    if (!ok.ok()) return ok.error();
    const int64_t n = a.toInt(2);
    if (n < 0) return opError(a, "num_weights must be non-negative, got " + std::to_string(n));
    if (g.dim() == 0) return opError(a, "grad_output must have at least one dimension");
    const int64_t d = g.shape.back();
    if (g.numel() != a.tensor(1).numel() * d)
        return opError(a, "grad_output " + shapeStr(g.shape) + " does not match indices " +
                              shapeStr(a.tensor(1).shape()) + " plus an embedding dimension");
    return metaValue(contiguousMeta({n, d}, g.dtype, g.device));
}

Expected<Value> embeddingBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& g = a.tensor(0);
    const int64_t n = a.toInt(2), pad = a.toInt(3);
    const bool scale = a.toBool(4);
    const int64_t d = g.shape().back();
    auto iv = indexValues(a, toDoubles(a.tensor(1)), n, 0, false);
    if (!iv.ok()) return iv.error();
    std::vector<int64_t> counts(static_cast<size_t>(n), 0);
    if (scale)
        for (int64_t i : *iv) ++counts[static_cast<size_t>(i)];
    auto gv = toDoubles(g);
    std::vector<double> vals(static_cast<size_t>(n * d), 0.0);
    for (size_t i = 0; i < iv->size(); ++i) {
        const int64_t row = (*iv)[i];
        if (row == pad) continue;
        const double s = scale ? 1.0 / static_cast<double>(counts[static_cast<size_t>(row)]) : 1.0;
        double* dst = vals.data() + row * d;
        const double* src = gv.data() + static_cast<int64_t>(i) * d;
        for (int64_t k = 0; k < d; ++k) dst[k] += src[k] * s;
    }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

// ----- masked_fill ---------------------------------------------------------------------------

Expected<Value> metaMaskedFill(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    const TensorMeta& mask = a.tensor(1).meta;
    if (mask.dtype != DType::Bool)
        return opError(a, "masked_fill only supports boolean masks, but got mask with dtype " +
                              std::string(dtypeTorchName(mask.dtype)));
    if (a.isTensor(2) && a.tensor(2).dim() != 0)
        return opError(a, "only supports a 0-dimensional value tensor, but got tensor with " +
                              std::to_string(a.tensor(2).dim()) + " dimension(s)");
    auto shape = broadcastShapes(self.shape, mask.shape);
    if (!shape)
        return opError(a, "mask " + shapeStr(mask.shape) + " cannot be broadcast to self " + shapeStr(self.shape));
    // The result is a fresh contiguous tensor (ATen clones the expanded self contiguous).
    return metaValue(contiguousMeta(*shape, self.dtype, self.device));
}

Expected<Value> maskedFillKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto& shape = out.t.shape();
    auto sv = toDoublesBroadcast(a.tensor(0), shape);
    auto mv = toDoublesBroadcast(a.tensor(1), shape);
    const double v = a.isTensor(2) ? toDoubles(a.tensor(2))[0] : a.toDouble(2);
    for (size_t e = 0; e < sv.size(); ++e)
        if (mv[e] != 0.0) sv[e] = v;
    return Value::ofTensor(makeTensor(out.t.meta, sv));
}

}  // namespace

void registerIndexingOps(OpRegistry& r) {
    using C = OpCategory;
    r.add("aten.gather.default", "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
          C::Other, metaGather, gatherKernel);
    r.add("aten.scatter.src", "scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", C::Other,
          metaScatter, scatterKernel);
    r.add("aten.scatter.value", "scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", C::Other,
          metaScatter, scatterKernel);
    r.add("aten.scatter_add.default", "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", C::Other,
          metaScatter, scatterAddKernel);
    r.add("aten.index_select.default", "index_select(Tensor self, int dim, Tensor index) -> Tensor", C::Other,
          metaIndexSelect, indexSelectKernel);
    r.add("aten.index_add.default",
          "index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor", C::Other,
          metaIndexAdd, indexAddKernel);
    r.add("aten.repeat_interleave.Tensor", "repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor",
          C::Other, metaRepeatInterleave, repeatInterleaveKernel);
    r.add("aten.index.Tensor", "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", C::Other, metaIndex,
          indexKernel);
    r.add("aten._unsafe_index.Tensor", "_unsafe_index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", C::Other,
          metaIndex, indexKernel);
    r.add("aten.index_put.default",
          "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor", C::Other,
          metaIndexPut, indexPutKernel);
    r.add("aten._unsafe_index_put.default",
          "_unsafe_index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor", C::Other,
          metaIndexPut, indexPutKernel);
    auto& ip =
        r.add("aten.index_put_.default",
              "index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
              C::Other, metaIndexPutInplace, indexPutInplaceKernel);
    ip.inplace = true;
    ip.aliasesInput = true;
    r.add("aten.embedding.default",
          "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, "
          "bool sparse=False) -> Tensor",
          C::Other, metaEmbedding, embeddingKernel);
    r.add("aten.embedding_dense_backward.default",
          "embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, "
          "bool scale_grad_by_freq) -> Tensor",
          C::Other, metaEmbeddingBackward, embeddingBackwardKernel);
    r.add("aten.masked_fill.Scalar", "masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
          C::Pointwise, metaMaskedFill, maskedFillKernel);
    r.add("aten.masked_fill.Tensor", "masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
          C::Pointwise, metaMaskedFill, maskedFillKernel);
}

}  // namespace fxray
