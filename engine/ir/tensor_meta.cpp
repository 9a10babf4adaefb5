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
        if (i < symShape.size() && !symShape[i].empty())
            s += symShape[i];
        else
            s += std::to_string(shape[i]);
    }
    s += ']';
    if (withStrides && stridesKnown) {
        s += '[';
        for (size_t i = 0; i < strides.size(); ++i) {
            if (i) s += ", ";
            if (i < symStrides.size() && !symStrides[i].empty())
                s += symStrides[i];
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
