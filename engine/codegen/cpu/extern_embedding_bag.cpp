// Extern kernels of the CPU backend for embedding bags, which Inductor runs as fallback kernels
// (it has no lowering for _embedding_bag or its backwards): _embedding_bag and
// _embedding_bag_forward_only (sum, mean and max over bags of rows given by indices and offsets,
// per-sample weights, padding_idx, include_last_offset), the dense _embedding_bag_backward and
// _embedding_bag_per_sample_weights_backward. A bag's rows are a data-dependent range of the
// indices, which no loop nest over the output expresses. Their table: extern_table.h
// embeddingBagExterns().
//
// The values follow the reference kernels (exec/ops/embedding_bag.cpp), which follow CUDA's, the
// recorded ground truth: bag_size counts a bag's non-padding entries, max_indices is -1 for an
// empty bag, and an auxiliary output holds what fits its meta's size (CPU's metas shorten some).
// Anything unusual (an index outside the table, offsets out of order)
// returns false before writing: the reference kernel then reports it, a reported fallback.
#include "codegen/cpu/extern_table.h"

#include "codegen/cpu/extern_util.h"
#include "exec/ops/kernel_util.h"

#include <cstdint>
#include <vector>

namespace fxray::cg::cpu {

namespace {

enum Mode : int64_t { Sum = 0, Mean = 1, Max = 2 };

/// Integer values of t, each in [0, bound); nullopt otherwise.
std::optional<std::vector<int64_t>> ints(const Tensor& t, int64_t bound) {
    if (t.dtype() != DType::Int64 && t.dtype() != DType::Int32) return std::nullopt;
    const auto raw = kern::toDoubles(t);
    std::vector<int64_t> r(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        r[i] = static_cast<int64_t>(raw[i]);
        if (r[i] < 0 || r[i] >= bound) return std::nullopt;
    }
    return r;
}

/// offset2bag, or where it is empty (CPU's fast path for sums leaves it so) rebuilt from offsets
/// as ATen's backwards do: entry i belongs to the last bag whose offset is at most i.
std::optional<std::vector<int64_t>> bagOf(const Tensor& offset2bag, const Tensor& offsets, size_t numIndices,
                                          int64_t bags) {
    if (offset2bag.numel() != 0 || numIndices == 0) {
        auto r = ints(offset2bag, bags);
        if (!r || r->size() != numIndices) return std::nullopt;
        return r;
    }
    auto off = ints(offsets, static_cast<int64_t>(numIndices) + 1);
    if (!off) return std::nullopt;
    std::vector<int64_t> r(numIndices, -1);
    for (int64_t o : *off)
        if (o < static_cast<int64_t>(numIndices)) ++r[static_cast<size_t>(o)];
    for (size_t i = 1; i < r.size(); ++i) r[i] += r[i - 1] + 1;
    for (int64_t b : r)
        if (b < 0 || b >= bags) return std::nullopt;
    return r;
}

/// Writes row-major values into out, cut or zero-extended to out's size.
void fit(Tensor* out, std::vector<double> v) {
    if (!out) return;
    v.resize(static_cast<size_t>(out->numel()), 0.0);
    kern::fromDoubles(*out, v);
}

/// _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
/// include_last_offset, padding_idx) -> (out, offset2bag, bag_size, max_indices).
bool embeddingBag(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    if (outs.size() < 4 || !outs[0]) return false;
    const Tensor& w = a.tensor(0);
    if (w.dim() != 2 || !isFloating(w.dtype()) || a.tensor(1).dim() != 1) return false;
    const int64_t rows = w.shape()[0], D = w.shape()[1];
    const int64_t mode = a.toInt(4), pad = a.toInt(8);
    const bool lastOffset = a.toBool(7);
    const int64_t bags = outs[0]->shape()[0];
    auto idx = ints(a.tensor(1), rows);
    const int64_t n = a.tensor(1).numel();
    auto off = ints(a.tensor(2), n + 1);
    if (!idx || !off || mode < Sum || mode > Max || outs[0]->numel() != bags * D) return false;
    if (static_cast<int64_t>(off->size()) < bags + (lastOffset ? 1 : 0) || (!off->empty() && (*off)[0] != 0))
        return false;
    const std::vector<double> psw = a.isNone(6) ? std::vector<double>() : kern::toDoubles(a.tensor(6));
    if (!psw.empty() && (mode != Sum || static_cast<int64_t>(psw.size()) != n)) return false;
    const auto wv = kern::toDoubles(w);
    std::vector<double> y(static_cast<size_t>(bags * D), 0.0), o2b(static_cast<size_t>(n), 0.0),
        bagSize(static_cast<size_t>(bags), 0.0), maxIdx(mode == Max ? static_cast<size_t>(bags * D) : 0, -1.0);
    const bool cpuOffsets = a.tensor(2).meta.device.type == "cpu";
    for (int64_t b = 0; b < bags; ++b) {
        const int64_t begin = (*off)[static_cast<size_t>(b)];
        // CUDA's kernels end the last bag at the end of the indices even with include_last_offset.
        const int64_t end = b + 1 < bags || (lastOffset && cpuOffsets) ? (*off)[static_cast<size_t>(b + 1)] : n;
        if (end < begin) return false;
        double* yb = y.data() + b * D;
        int64_t count = 0;
        for (int64_t i = begin; i < end; ++i) {
            o2b[static_cast<size_t>(i)] = static_cast<double>(b);
            const int64_t row = (*idx)[static_cast<size_t>(i)];
            if (row == pad) continue;
            const double* wr = wv.data() + row * D;
            if (mode == Max) {
                // The first entry or a greater one takes the maximum: a NaN is kept only when first.
                for (int64_t d = 0; d < D; ++d)
                    if (count == 0 || wr[d] > yb[d]) {
                        yb[d] = wr[d];
                        maxIdx[static_cast<size_t>(b * D + d)] = static_cast<double>(row);
                    }
            } else {
                const double s = psw.empty() ? 1.0 : psw[static_cast<size_t>(i)];
                for (int64_t d = 0; d < D; ++d) yb[d] += wr[d] * s;
            }
            ++count;
        }
        if (mode == Mean && count != 0)
            for (int64_t d = 0; d < D; ++d) yb[d] /= static_cast<double>(count);
        bagSize[static_cast<size_t>(b)] = static_cast<double>(count);
    }
    kern::fromDoubles(*outs[0], y);
    fit(outs[1], o2b);
    fit(outs[2], bagSize);
    fit(outs[3], mode == Max ? maxIdx : bagSize);
    return true;
}

/// _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices,
/// num_weights, scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx), dense.
bool embeddingBagBackward(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    if (outs.empty() || !outs[0] || a.toBool(9)) return false;
    const Tensor& g = a.tensor(0);
    if (g.dim() != 2) return false;
    const int64_t bags = g.shape()[0], D = g.shape()[1];
    const int64_t numWeights = a.toInt(6), mode = a.toInt(8), pad = a.toInt(11);
    auto idx = ints(a.tensor(1), numWeights);
    if (!idx || outs[0]->numel() != numWeights * D) return false;
    std::vector<int64_t> counts(static_cast<size_t>(numWeights), 0);
    for (int64_t row : *idx) ++counts[static_cast<size_t>(row)];
    const bool byFreq = a.toBool(7);
    auto freq = [&](int64_t row) { return byFreq ? 1.0 / static_cast<double>(counts[static_cast<size_t>(row)]) : 1.0; };
    const auto gv = kern::toDoubles(g);
    const auto bagSize = kern::toDoubles(a.tensor(4));
    std::vector<double> gw(static_cast<size_t>(numWeights * D), 0.0);
    if (mode == Max) {
        const auto mi = kern::toDoubles(a.tensor(5));
        if (static_cast<int64_t>(mi.size()) != bags * D) return false;
        for (int64_t b = 0; b < bags; ++b)
            for (int64_t d = 0; d < D; ++d) {
                // An empty bag has no maximum: CUDA marks it -1, CPU leaves 0 with a bag size of 0.
                const int64_t row = static_cast<int64_t>(mi[static_cast<size_t>(b * D + d)]);
                if (row < 0 || row == pad ||
                    (static_cast<size_t>(b) < bagSize.size() && bagSize[static_cast<size_t>(b)] == 0.0))
                    continue;
                if (row >= numWeights) return false;
                gw[static_cast<size_t>(row * D + d)] += gv[static_cast<size_t>(b * D + d)] * freq(row);
            }
        kern::fromDoubles(*outs[0], gw);
        return true;
    }
    auto o2b = bagOf(a.tensor(3), a.tensor(2), idx->size(), bags);
    if (!o2b) return false;
    const std::vector<double> psw = a.isNone(10) ? std::vector<double>() : kern::toDoubles(a.tensor(10));
    if (!psw.empty() && psw.size() != idx->size()) return false;
    for (size_t i = 0; i < idx->size(); ++i) {
        const int64_t row = (*idx)[i], b = (*o2b)[i];
        if (row == pad) continue;
        double s = (psw.empty() ? 1.0 : psw[i]) * freq(row);
        if (mode == Mean) {
            if (static_cast<size_t>(b) >= bagSize.size()) return false;
            s /= bagSize[static_cast<size_t>(b)];
        }
        for (int64_t d = 0; d < D; ++d) gw[static_cast<size_t>(row * D + d)] += gv[static_cast<size_t>(b * D + d)] * s;
    }
    kern::fromDoubles(*outs[0], gw);
    return true;
}

/// _embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag, mode,
/// padding_idx): entry i's gradient is its bag's gradient row dotted with its weight row.
bool perSampleWeightsBackward(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    if (outs.empty() || !outs[0] || a.toInt(5) != Sum) return false;
    const Tensor& g = a.tensor(0);
    const Tensor& w = a.tensor(1);
    if (g.dim() != 2 || w.dim() != 2 || g.shape()[1] != w.shape()[1]) return false;
    const int64_t D = g.shape()[1], pad = a.toInt(6);
    auto idx = ints(a.tensor(2), w.shape()[0]);
    if (!idx || outs[0]->numel() != static_cast<int64_t>(idx->size())) return false;
    auto o2b = bagOf(a.tensor(4), a.tensor(3), idx->size(), g.shape()[0]);
    if (!o2b) return false;
    const auto gv = kern::toDoubles(g), wv = kern::toDoubles(w);
    std::vector<double> r(idx->size(), 0.0);
    for (size_t i = 0; i < idx->size(); ++i) {
        const int64_t row = (*idx)[i];
        if (row == pad) continue;
        double acc = 0.0;
        for (int64_t d = 0; d < D; ++d)
            acc += gv[static_cast<size_t>((*o2b)[i] * D + d)] * wv[static_cast<size_t>(row * D + d)];
        r[i] = acc;
    }
    kern::fromDoubles(*outs[0], r);
    return true;
}

}  // namespace

const std::vector<CpuExtern>& embeddingBagExterns() {
    static const std::vector<CpuExtern> t = {
        {"embedding_bag", embeddingBag},
        {"embedding_bag_backward", embeddingBagBackward},
        {"embedding_bag_per_sample_weights_backward", perSampleWeightsBackward},
    };
    return t;
}

}  // namespace fxray::cg::cpu
