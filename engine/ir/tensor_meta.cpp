#include "ir/tensor_meta.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace fxray {

int64_t TensorMeta::numel() const {
    int64_t n = 1;
    for (auto s : shape) n *= s;
    return n;
}

bool TensorMeta::isContiguous() const {
    if (strides.size() != shape.size()) return false;
    int64_t expected = 1;
    for (int64_t i = dim() - 1; i >= 0; --i) {
        if (shape[i] == 1) continue;
        if (strides[i] != expected) return false;
        expected *= shape[i];
    }
    return true;
}

bool TensorMeta::hasUnboundSizes() const {
    for (size_t d = 0; d < shape.size(); ++d)
        if (isSymbolicDim(d) || isUnknownDim(d)) return true;
    return false;
}

namespace {

/// Sets entry d of a per-dimension SymInt vector and its numbers, keeping the vector empty when
/// every entry is static.
void setDim(std::vector<int64_t>& nums, std::vector<SymInt>& syms, size_t d, const SymInt& s) {
    if (s.isStatic()) {
        nums[d] = s.value();
        if (syms.empty()) return;
        for (size_t i = syms.size(); i < nums.size(); ++i) syms.emplace_back(nums[i]);
        syms[d] = s;
        for (const auto& x : syms)
            if (x.isSymbolic()) return;
        syms.clear();
        return;
    }
    // One entry per dimension, the static ones as their numbers (also for dimensions appended
    // to `nums` since the vector was made).
    for (size_t i = syms.size(); i < nums.size(); ++i) syms.emplace_back(nums[i]);
    syms[d] = s;
    nums[d] = TensorMeta::kUnboundSize;
}

}  // namespace

void TensorMeta::setSize(size_t d, const SymInt& s) { setDim(shape, symShape, d, s); }

void TensorMeta::setStride(size_t d, const SymInt& s) { setDim(strides, symStrides, d, s); }

std::vector<int64_t> TensorMeta::contiguousStrides(const std::vector<int64_t>& shape) {
    std::vector<int64_t> st(shape.size());
    int64_t acc = 1;
    for (size_t i = shape.size(); i-- > 0;) {
        st[i] = acc;
        acc *= shape[i] > 1 ? shape[i] : 1;
    }
    return st;
}

TensorMeta TensorMeta::contiguous(std::vector<int64_t> shape, DType dtype, Device device) {
    TensorMeta m;
    m.dtype = dtype;
    m.strides = contiguousStrides(shape);
    m.shape = std::move(shape);
    m.device = std::move(device);
    return m;
}

std::string TensorMeta::annotation(bool withStrides, bool withDevice) const {
    std::string s(dtypeAbbrev(dtype));
    s += '[';
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        if (isSymbolicDim(i))
            s += symShape[i].text();
        else
            s += std::to_string(shape[i]);
    }
    s += ']';
    if (withStrides && stridesKnown) {
        s += '[';
        for (size_t i = 0; i < strides.size(); ++i) {
            if (i) s += ", ";
            if (isSymbolicStride(i))
                s += symStrides[i].text();
            else
                s += std::to_string(strides[i]);
        }
        s += ']';
    }
    if (withDevice && deviceKnown) s += device.str();
    return s;
}

void Storage::Free::operator()(std::byte* p) const { std::free(p); }

Storage::Storage(size_t nbytes) : m_nbytes(nbytes) {
    size_t rounded = ((nbytes + 63) / 64) * 64;
    if (rounded == 0) rounded = 64;
    auto* p = static_cast<std::byte*>(std::aligned_alloc(64, rounded));
    if (!p) throw std::bad_alloc();
    std::memset(p, 0, rounded);
    m_data.reset(p);
}

Tensor Tensor::empty(std::vector<int64_t> shape, DType dtype, Device device) {
    return emptyLike(TensorMeta::contiguous(std::move(shape), dtype, std::move(device)));
}

Tensor Tensor::emptyLike(const TensorMeta& m) {
    Tensor t;
    t.meta = m;
    t.meta.offset = 0;
    t.meta.stridesKnown = true;
    if (t.meta.strides.size() != t.meta.shape.size()) t.meta.strides = TensorMeta::contiguousStrides(t.meta.shape);
    // Span of the strided layout: 1 + sum((size-1)*stride) for non-empty tensors.
    int64_t span = 1;
    bool emptyT = false;
    for (size_t i = 0; i < t.meta.shape.size(); ++i) {
        if (t.meta.shape[i] == 0)
            emptyT = true;
        else
            span += (t.meta.shape[i] - 1) * t.meta.strides[i];
    }
    if (emptyT) span = 0;
    t.storage = std::make_shared<Storage>(static_cast<size_t>(span) * dtypeItemSize(m.dtype));
    return t;
}

Tensor Tensor::metaOnly(TensorMeta m) {
    Tensor t;
    t.meta = std::move(m);
    return t;
}

Tensor Tensor::view(TensorMeta m) const {
    Tensor t;
    t.meta = std::move(m);
    t.storage = storage;
    return t;
}

}  // namespace fxray
