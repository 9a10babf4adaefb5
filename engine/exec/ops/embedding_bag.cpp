// Embedding bags: _embedding_bag and _embedding_bag_forward_only (sum, mean and max over bags of
// rows given by indices and offsets, per-sample weights, padding_idx, include_last_offset),
// _embedding_bag_backward (dense) and _embedding_bag_per_sample_weights_backward.
//
// The auxiliary outputs (offset2bag, bag_size, max_indices) have the shapes and dtypes PyTorch's
// meta function gives them, which differ between CPU and the other devices. Their values are
// those of the CUDA kernels (bag_size counts the non-padding entries of a bag; max_indices is -1
// for an empty bag, where CPU's is 0): recorded graphs run here with inputs on the CPU device
// whatever device they were recorded on, and the ground truth is recorded on CUDA.
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <string>

namespace fxray {
using namespace kern;

namespace {

enum Mode : int64_t { Sum = 0, Mean = 1, Max = 2 };

const char* modeName(int64_t m) { return m == Sum ? "sum" : m == Mean ? "mean" : "max"; }

bool isIndexDtype(DType t) { return t == DType::Int64 || t == DType::Int32; }

bool symbolic(const TensorMeta& m) { return m.hasUnboundSizes(); }

Value tuple(std::vector<Value> v) { return Value::ofList(std::move(v), true); }

// ----- forward ----------------------------------------------------------------------------------

// _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
//                include_last_offset, padding_idx)
Expected<Value> metaEmbeddingBag(const OpArgs& a) {
    const TensorMeta& w = a.tensor(0).meta;
    const TensorMeta& idx = a.tensor(1).meta;
    const TensorMeta& off = a.tensor(2).meta;
    const int64_t mode = a.toInt(4);
    const bool lastOffset = a.toBool(7);
    if (symbolic(w) || symbolic(idx) || symbolic(off)) return opError(a, "symbolic shapes are not supported");
    if (!isIndexDtype(idx.dtype))
        return opError(a, "expected indices to be long or int, got " + std::string(dtypeTorchName(idx.dtype)));
    if (!isIndexDtype(off.dtype))
        return opError(a, "expected offsets to be long or int, got " + std::string(dtypeTorchName(off.dtype)));
    if (!isFloating(w.dtype))
        return opError(a, "expected weight to be floating point type, got " + std::string(dtypeTorchName(w.dtype)));
    if (w.dim() != 2)
        return opError(a, "weight has to be a 2D Tensor, but got Tensor of dimension " + std::to_string(w.dim()));
    if (idx.dim() != 1)
        return opError(a, "input has to be a 1D Tensor, but got Tensor of dimension " + std::to_string(idx.dim()));
    if (off.dim() != 1)
        return opError(a, "offsets has to be a 1D Tensor, but got Tensor of dimension " + std::to_string(off.dim()));
    if (mode < Sum || mode > Max)
        return opError(a, "mode has to be one of sum, mean or max, got " + std::to_string(mode));
    if (!a.isNone(6)) {
        const TensorMeta& psw = a.tensor(6).meta;
        if (mode != Sum) return opError(a, "embedding_bag: per_sample_weights only supported with mode='sum'");
        if (psw.dtype != w.dtype)
            return opError(a, "expected per_sample_weights of dtype " + std::string(dtypeTorchName(w.dtype)) +
                                  ", got " + std::string(dtypeTorchName(psw.dtype)));
        if (psw.dim() != 1)
            return opError(a, "expected per_sample_weights to be 1D tensor, got " + std::to_string(psw.dim()) + "D");
        if (psw.numel() != idx.numel())
            return opError(a, "expected per_sample_weights.numel() (" + std::to_string(psw.numel()) +
                                  ") to be the same as indices.numel() (" + std::to_string(idx.numel()) + ")");
    }
    int64_t bags = off.shape[0];
    if (lastOffset) {
        if (bags < 1) return opError(a, "include_last_offset: numBags should be at least 1");
        --bags;
    }
    const int64_t D = w.shape[1];
    std::vector<Value> out;
    out.push_back(metaValue(TensorMeta::contiguous({bags, D}, w.dtype, w.device)));
    auto vec = [&](std::vector<int64_t> shape, DType dt) {
        return metaValue(TensorMeta::contiguous(std::move(shape), dt, off.device));
    };
    if (off.device.type != "cpu") {
        out.push_back(vec({idx.shape[0]}, idx.dtype));
        out.push_back(vec(off.shape, idx.dtype));
        out.push_back(mode == Max ? vec({bags, D}, idx.dtype) : vec({0}, idx.dtype));
    } else {
        // The CPU kernels' fast path for float/half sums leaves offset2bag empty.
        const bool fastSum = (w.dtype == DType::Float32 || w.dtype == DType::Float16) && w.strides.size() == 2 &&
                             w.strides[1] == 1 && a.toInt(8) < 0 &&
                             (a.isNone(6) || a.tensor(6).meta.strides.empty() || a.tensor(6).meta.strides[0] == 1);
        out.push_back(vec({mode != Sum || !fastSum ? idx.shape[0] : 0}, off.dtype));
        out.push_back(vec({bags}, off.dtype));
        out.push_back(mode == Max ? vec({bags, D}, off.dtype) : vec({bags}, off.dtype));
    }
    return tuple(std::move(out));
}

/// _embedding_bag_forward_only: as _embedding_bag, except that CPU's sums (which need no bag
/// sizes without autograd) leave bag_size, and max_indices with it, at offsets' length.
Expected<Value> metaEmbeddingBagForwardOnly(const OpArgs& a) {
    auto r = metaEmbeddingBag(a);
    if (!r.ok()) return r;
    const TensorMeta& off = a.tensor(2).meta;
    if (off.device.type == "cpu" && a.toInt(4) == Sum)
        r->list[2] = r->list[3] = metaValue(TensorMeta::contiguous(off.shape, off.dtype, off.device));
    return r;
}

/// Bag boundaries [begin, end) of each bag, checked against the indices.
Expected<std::vector<std::pair<int64_t, int64_t>>> bagRanges(const OpArgs& a, const Tensor& offsets, int64_t numIndices,
                                                             int64_t bags, bool lastOffset) {
    auto ov = toDoubles(offsets);
    std::vector<std::pair<int64_t, int64_t>> r;
    if (!ov.empty() && ov[0] != 0.0)
        return opError(a, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                          "position 0. However, got " +
                              std::to_string(static_cast<int64_t>(ov[0])));
    for (int64_t b = 0; b < bags; ++b) {
        const int64_t begin = static_cast<int64_t>(ov[size_t(b)]);
        // CUDA's kernels end the last bag at the end of the indices even with include_last_offset.
        int64_t end = b + 1 < bags || (lastOffset && offsets.meta.device.type == "cpu")
                          ? static_cast<int64_t>(ov[size_t(b + 1)])
                          : numIndices;
        if (begin < 0 || end > numIndices || end < begin)
            return opError(a, "offsets must be non-decreasing and within the " + std::to_string(numIndices) +
                                  " indices, got bag " + std::to_string(b) + " = [" + std::to_string(begin) + ", " +
                                  std::to_string(end) + ")");
        r.emplace_back(begin, end);
    }
    return r;
}

/// Index values, each checked to address a row of a table of `rows`.
Expected<std::vector<int64_t>> rowIndices(const OpArgs& a, const Tensor& indices, int64_t rows) {
    auto raw = toDoubles(indices);
    std::vector<int64_t> r(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        r[i] = static_cast<int64_t>(raw[i]);
        if (r[i] < 0 || r[i] >= rows)
            return opError(a, "index " + std::to_string(r[i]) + " is out of bounds for a weight of " +
                                  std::to_string(rows) + " rows");
    }
    return r;
}

Expected<Value> embeddingBagKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& w = a.tensor(0);
    const int64_t rows = w.shape()[0], D = w.shape()[1];
    const int64_t mode = a.toInt(4), pad = a.toInt(8);
    const bool lastOffset = a.toBool(7);
    const int64_t bags = out.list[0].t.shape()[0];
    auto idx = rowIndices(a, a.tensor(1), rows);
    if (!idx.ok()) return idx.error();
    const int64_t n = static_cast<int64_t>(idx->size());
    auto ranges = bagRanges(a, a.tensor(2), n, bags, lastOffset);
    if (!ranges.ok()) return ranges.error();
    const auto wv = toDoubles(w);
    std::vector<double> psw = a.isNone(6) ? std::vector<double>() : toDoubles(a.tensor(6));

    std::vector<double> y(static_cast<size_t>(bags * D), 0.0), o2b(static_cast<size_t>(n), 0.0),
        bagSize(static_cast<size_t>(bags), 0.0), maxIdx(mode == Max ? static_cast<size_t>(bags * D) : 0, -1.0);
    for (int64_t b = 0; b < bags; ++b) {
        const auto [begin, end] = (*ranges)[size_t(b)];
        double* yb = y.data() + b * D;
        int64_t count = 0;
        for (int64_t i = begin; i < end; ++i) {
            o2b[size_t(i)] = double(b);
            const int64_t row = (*idx)[size_t(i)];
            const bool padded = row == pad;
            const double* wr = wv.data() + row * D;
            if (mode == Max) {
                // As CUDA's kernel: the first non-padding entry (or a greater one) takes the maximum,
                // so a NaN is kept only when it comes first.
                for (int64_t d = 0; d < D; ++d)
                    if (!padded && (count == 0 || wr[d] > yb[d])) {
                        yb[d] = wr[d];
                        maxIdx[size_t(b * D + d)] = double(row);
                    }
            } else if (!padded) {
                const double s = psw.empty() ? 1.0 : psw[size_t(i)];
                for (int64_t d = 0; d < D; ++d) yb[d] += wr[d] * s;
            }
            count += padded ? 0 : 1;
        }
        if (mode == Mean && count != 0)
            for (int64_t d = 0; d < D; ++d) yb[d] /= double(count);
        bagSize[size_t(b)] = double(count);
    }

    std::vector<Value> res;
    res.push_back(Value::ofTensor(makeTensor(out.list[0].t.meta, y)));
    // Auxiliary outputs hold what fits their meta's size (an empty offset2bag on CPU's fast path,
    // CUDA's bag_size of offsets' length with include_last_offset, an empty max_indices).
    auto fit = [](std::vector<double> v, const TensorMeta& m) {
        v.resize(static_cast<size_t>(m.numel()), 0.0);
        return v;
    };
    res.push_back(Value::ofTensor(makeTensor(out.list[1].t.meta, fit(o2b, out.list[1].t.meta))));
    res.push_back(Value::ofTensor(makeTensor(out.list[2].t.meta, fit(bagSize, out.list[2].t.meta))));
    const TensorMeta& mm = out.list[3].t.meta;
    res.push_back(Value::ofTensor(makeTensor(mm, mode == Max ? fit(maxIdx, mm) : fit(bagSize, mm))));
    return tuple(std::move(res));
}

// ----- backward ---------------------------------------------------------------------------------

// _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
//                         scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx)
Expected<Value> metaEmbeddingBagBackward(const OpArgs& a) {
    const TensorMeta& g = a.tensor(0).meta;
    const int64_t numWeights = a.toInt(6), mode = a.toInt(8);
    if (symbolic(g)) return opError(a, "symbolic shapes are not supported");
    if (a.toBool(9)) return opError(a, "sparse gradients are not supported (fxray has no sparse tensors)");
    if (g.dim() != 2)
        return opError(a, "grad has to be a 2D Tensor, but got Tensor of dimension " + std::to_string(g.dim()));
    if (!isFloating(g.dtype))
        return opError(a, "expected a floating-point grad, got " + std::string(dtypeTorchName(g.dtype)));
    for (size_t i : {size_t(1), size_t(3), size_t(4), size_t(5)})
        if (!isIndexDtype(a.tensor(i).dtype()))
            return opError(a, "expected " + a.op().schema.args[i].name + " to be long or int, got " +
                                  std::string(dtypeTorchName(a.tensor(i).dtype())));
    if (a.tensor(1).dim() != 1 || (a.tensor(3).numel() != 0 && a.tensor(3).numel() != a.tensor(1).numel()))
        return opError(a, "expected 1-D indices and an offset2bag of the same length");
    if (numWeights < 0) return opError(a, "num_weights must be non-negative, got " + std::to_string(numWeights));
    if (mode < Sum || mode > Max)
        return opError(a, "mode has to be one of sum, mean or max, got " + std::to_string(mode));
    if (!a.isNone(10)) {
        if (mode != Sum) return opError(a, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
        if (a.tensor(10).numel() != a.tensor(1).numel())
            return opError(a, "expected per_sample_weights of the same length as indices");
    }
    if (mode == Max &&
        (a.tensor(5).dim() != 2 || a.tensor(5).shape()[0] != g.shape[0] || a.tensor(5).shape()[1] != g.shape[1]))
        return opError(a, "expected maximum_indices of the shape of grad for mode='max'");
    return metaValue(TensorMeta::contiguous({numWeights, g.shape[1]}, g.dtype, g.device));
}

/// offset2bag values, each checked to address a row of grad. An empty offset2bag (CPU's fast
/// path for sums leaves it so) is rebuilt from offsets, as ATen's backwards do: entry i belongs to
/// the last bag whose offset is at most i.
Expected<std::vector<int64_t>> bagIndices(const OpArgs& a, const Tensor& offset2bag, const Tensor& offsets,
                                          int64_t numIndices, int64_t bags) {
    std::vector<double> raw;
    if (offset2bag.numel() == 0 && numIndices != 0) {
        const auto ov = toDoubles(offsets);
        raw.assign(static_cast<size_t>(numIndices), -1.0);
        for (double o : ov) {
            const int64_t start = static_cast<int64_t>(o);
            if (start < 0 || start > numIndices)
                return opError(a, "offset " + std::to_string(start) + " is outside the " + std::to_string(numIndices) +
                                      " indices");
            if (start < numIndices) raw[size_t(start)] += 1.0;
        }
        for (size_t i = 1; i < raw.size(); ++i) raw[i] += raw[i - 1] + 1.0;
    } else {
        raw = toDoubles(offset2bag);
    }
    std::vector<int64_t> r(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        r[i] = static_cast<int64_t>(raw[i]);
        if (r[i] < 0 || r[i] >= bags)
            return opError(a, "offset2bag value " + std::to_string(r[i]) + " is out of range for " +
                                  std::to_string(bags) + " bags");
    }
    return r;
}

Expected<Value> embeddingBagBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& g = a.tensor(0);
    const int64_t bags = g.shape()[0], D = g.shape()[1];
    const int64_t numWeights = a.toInt(6), mode = a.toInt(8), pad = a.toInt(11);
    const bool scaleByFreq = a.toBool(7);
    const auto gv = toDoubles(g);
    std::vector<double> gw(static_cast<size_t>(numWeights * D), 0.0);
    auto idx = rowIndices(a, a.tensor(1), numWeights);
    if (!idx.ok()) return idx.error();
    std::vector<int64_t> counts(static_cast<size_t>(numWeights), 0);
    for (int64_t row : *idx) ++counts[size_t(row)];
    auto freq = [&](int64_t row) { return scaleByFreq ? 1.0 / double(counts[size_t(row)]) : 1.0; };

    if (mode == Max) {
        const auto mi = toDoubles(a.tensor(5));
        const auto bagSize = toDoubles(a.tensor(4));
        for (int64_t b = 0; b < bags; ++b)
            for (int64_t d = 0; d < D; ++d) {
                // An empty bag has no maximum: CUDA marks it -1, CPU leaves 0 and skips bags of size 0.
                const int64_t row = static_cast<int64_t>(mi[size_t(b * D + d)]);
                if (row < 0 || row == pad || (size_t(b) < bagSize.size() && bagSize[size_t(b)] == 0.0)) continue;
                if (row >= numWeights)
                    return opError(a, "maximum_indices value " + std::to_string(row) + " is out of range for " +
                                          std::to_string(numWeights) + " weights");
                gw[size_t(row * D + d)] += gv[size_t(b * D + d)] * freq(row);
            }
        return Value::ofTensor(makeTensor(out.t.meta, gw));
    }
    auto o2b = bagIndices(a, a.tensor(3), a.tensor(2), static_cast<int64_t>(idx->size()), bags);
    if (!o2b.ok()) return o2b.error();
    const auto bagSize = toDoubles(a.tensor(4));
    const std::vector<double> psw = a.isNone(10) ? std::vector<double>() : toDoubles(a.tensor(10));
    for (size_t i = 0; i < idx->size(); ++i) {
        const int64_t row = (*idx)[i], b = (*o2b)[i];
        if (row == pad) continue;
        double s = (psw.empty() ? 1.0 : psw[i]) * freq(row);
        if (mode == Mean) {
            if (size_t(b) >= bagSize.size()) return opError(a, "bag_size is shorter than the number of bags");
            s /= bagSize[size_t(b)];
        }
        for (int64_t d = 0; d < D; ++d) gw[size_t(row * D + d)] += gv[size_t(b * D + d)] * s;
    }
    return Value::ofTensor(makeTensor(out.t.meta, gw));
}

// _embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag, mode, padding_idx)
Expected<Value> metaPerSampleWeightsBackward(const OpArgs& a) {
    const TensorMeta& g = a.tensor(0).meta;
    const TensorMeta& w = a.tensor(1).meta;
    const TensorMeta& idx = a.tensor(2).meta;
    if (symbolic(g) || symbolic(w) || symbolic(idx)) return opError(a, "symbolic shapes are not supported");
    if (a.toInt(5) != Sum)
        return opError(a,
                       std::string("embedding_bag_backward: per_sample_weights only supported for mode='sum', got '") +
                           modeName(a.toInt(5)) + "'");
    if (g.dim() != 2 || w.dim() != 2 || g.shape[1] != w.shape[1])
        return opError(a, "expected 2-D grad and weight with the same embedding dimension");
    if (!isIndexDtype(idx.dtype) || !isIndexDtype(a.tensor(4).dtype()))
        return opError(a, "expected indices and offset2bag to be long or int");
    if (idx.dim() != 1 || (a.tensor(4).numel() != 0 && a.tensor(4).numel() != idx.numel()))
        return opError(a, "expected 1-D indices and an offset2bag of the same length");
    return metaValue(TensorMeta::contiguous({idx.shape[0]}, g.dtype, g.device));
}

Expected<Value> perSampleWeightsBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& g = a.tensor(0);
    const Tensor& w = a.tensor(1);
    const int64_t D = g.shape()[1], pad = a.toInt(6);
    auto idx = rowIndices(a, a.tensor(2), w.shape()[0]);
    if (!idx.ok()) return idx.error();
    auto o2b = bagIndices(a, a.tensor(4), a.tensor(3), static_cast<int64_t>(idx->size()), g.shape()[0]);
    if (!o2b.ok()) return o2b.error();
    const auto gv = toDoubles(g), wv = toDoubles(w);
    std::vector<double> r(idx->size(), 0.0);
    for (size_t i = 0; i < idx->size(); ++i) {
        const int64_t row = (*idx)[i];
        if (row == pad) continue;
        double acc = 0.0;
        for (int64_t d = 0; d < D; ++d) acc += gv[size_t((*o2b)[i] * D + d)] * wv[size_t(row * D + d)];
        r[i] = acc;
    }
    return Value::ofTensor(makeTensor(out.t.meta, r));
}

}  // namespace

void registerEmbeddingBagOps(OpRegistry& r) {
    using C = OpCategory;
    const char* args = "(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, "
                       "bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False, "
                       "int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)";
    r.add("aten._embedding_bag.default", std::string("_embedding_bag") + args, C::Other, metaEmbeddingBag,
          embeddingBagKernel);
    r.add("aten._embedding_bag_forward_only.default", std::string("_embedding_bag_forward_only") + args, C::Other,
          metaEmbeddingBagForwardOnly, embeddingBagKernel);
    r.add("aten._embedding_bag_backward.default",
          "_embedding_bag_backward(Tensor grad, Tensor indices, Tensor offsets, Tensor offset2bag, Tensor bag_size, "
          "Tensor maximum_indices, SymInt num_weights, bool scale_grad_by_freq, int mode, bool sparse, "
          "Tensor? per_sample_weights, int padding_idx=-1) -> Tensor",
          C::Other, metaEmbeddingBagBackward, embeddingBagBackwardKernel);
    r.add("aten._embedding_bag_per_sample_weights_backward.default",
          "_embedding_bag_per_sample_weights_backward(Tensor grad, Tensor weight, Tensor indices, Tensor offsets, "
          "Tensor offset2bag, int mode, int padding_idx=-1) -> Tensor",
          C::Other, metaPerSampleWeightsBackward, perSampleWeightsBackwardKernel);
}

}  // namespace fxray
