#pragma once
/// Small helpers shared by the neural-network op files (pooling, padding, fold, shuffle, norms,
/// distances): argument access with diagnostics, tuple outputs, and PyTorch's memory-format
/// choice for outputs of NCHW / NCDHW tensors.
#include "exec/ops/kernel_util.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace fxray::nn {

/// The optional tensor argument at i (None gives nullptr); non-tensors and symbolic shapes are
/// refused with a diagnostic.
inline Expected<const Tensor*> optTensor(const OpArgs& a, size_t i) {
    if (i >= a.size() || a.isNone(i)) return static_cast<const Tensor*>(nullptr);
    if (!a.isTensor(i))
        return kern::opError(a,
                             "argument '" + a.op().schema.args[i].name + "' must be a tensor, got " + a[i].describe());
    for (auto d : a.tensor(i).shape())
        if (d < 0) return kern::opError(a, "symbolic shapes are not supported");
    return &a.tensor(i);
}

/// The tensor argument at i, which must be given.
inline Expected<const Tensor*> reqTensor(const OpArgs& a, size_t i) {
    auto t = optTensor(a, i);
    if (t.ok() && !*t) return kern::opError(a, "argument '" + a.op().schema.args[i].name + "' must not be None");
    return t;
}

/// The bool list argument at i.
inline std::vector<bool> boolList(const OpArgs& a, size_t i) {
    std::vector<bool> out;
    for (const auto& v : a[i].list) out.push_back(v.kind == Value::Kind::Bool ? v.b : v.toDouble() != 0.0);
    return out;
}

/// A tuple of meta tensors (nullopt entries become None).
inline Value metaTuple(const std::vector<std::optional<TensorMeta>>& items) {
    std::vector<Value> v;
    for (const auto& m : items) v.push_back(m ? kern::metaValue(*m) : Value::none());
    return Value::ofList(std::move(v), true);
}

/// The tuple `meta` filled with row-major values (None entries stay None).
inline Value fillTuple(const Value& meta, const std::vector<std::vector<double>>& values) {
    std::vector<Value> v;
    for (size_t i = 0; i < meta.list.size(); ++i) {
        const Value& m = meta.list[i];
        v.push_back(m.isTensor() && i < values.size() ? Value::ofTensor(kern::makeTensor(m.t.meta, values[i]))
                                                      : Value::none());
    }
    return Value::ofList(std::move(v), true);
}

/// c10's is_channels_last_strides_{2,3}d: C innermost, then the spatial dims from last to first,
/// N outermost, with PyTorch's tie-breaks for size-1 dims. This is what suggest_memory_format
/// answers for a 4-D / 5-D tensor.
inline bool isChannelsLast(const TensorMeta& m) {
    const int64_t nd = m.dim();
    if ((nd != 4 && nd != 5) || static_cast<int64_t>(m.strides.size()) != nd) return false;
    if (m.strides[1] == 0) return false;
    std::vector<int64_t> order{1};
    for (int64_t d = nd - 1; d >= 2; --d) order.push_back(d);
    order.push_back(0);
    int64_t min = 0;
    for (int64_t d : order) {
        if (m.shape[d] == 0) return false;
        if (m.strides[d] < min) return false;
        if (d == 0 && min == m.strides[1]) return false;
        min = m.strides[d];
        if (m.shape[d] > 1) min *= m.shape[d];
    }
    return true;
}

/// A dense output of `shape`: channels-last (C innermost) when `channelsLast` and the rank is 4
/// or 5, else row-major.
inline TensorMeta denseMeta(const std::vector<int64_t>& shape, DType dt, const Device& dev, bool channelsLast) {
    TensorMeta m = TensorMeta::contiguous(shape, dt, dev);
    const size_t nd = shape.size();
    if (!channelsLast || (nd != 4 && nd != 5)) return m;
    int64_t acc = 1;
    m.strides[1] = acc;
    acc *= std::max<int64_t>(shape[1], 1);
    for (size_t d = nd - 1; d >= 2; --d) {
        m.strides[d] = acc;
        acc *= std::max<int64_t>(shape[d], 1);
    }
    m.strides[0] = acc;
    return m;
}

/// Product of shape[from, to).
inline int64_t spanProduct(const std::vector<int64_t>& shape, size_t from, size_t to) {
    int64_t p = 1;
    for (size_t i = from; i < to && i < shape.size(); ++i) p *= shape[i];
    return p;
}

}  // namespace fxray::nn
