#include "exec/tensor_layout.h"

#include "exec/ops/kernel_util.h"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace fxray {

int64_t storageSpan(const TensorMeta& m) {
    int64_t span = m.offset + 1;
    for (size_t d = 0; d < m.shape.size(); ++d) {
        if (m.shape[d] == 0) return 0;
        span += (m.shape[d] - 1) * std::abs(d < m.strides.size() ? m.strides[d] : 0);
    }
    return span;
}

bool sameLayout(const TensorMeta& a, const TensorMeta& b) {
    if (a.dtype != b.dtype || a.shape != b.shape || a.offset != b.offset) return false;
    for (size_t d = 0; d < a.shape.size(); ++d)
        if (a.shape[d] > 1 && (d >= a.strides.size() || d >= b.strides.size() || a.strides[d] != b.strides[d]))
            return false;
    return true;
}

Tensor allocateLayout(const TensorMeta& m) {
    Tensor t;
    t.meta = m;
    t.storage =
        std::make_shared<Storage>(static_cast<size_t>(storageSpan(m)) * static_cast<size_t>(dtypeItemSize(m.dtype)));
    return t;
}

Tensor relayout(const Tensor& t, const TensorMeta& m) {
    if (sameLayout(t.meta, m)) return t;
    Tensor r = allocateLayout(m);
    const int64_t n = t.numel();
    if (n == 0) return r;
    if (t.dtype() != m.dtype) {  // a value of another dtype (a pinned recording): convert
        kern::fromDoubles(r, kern::toDoubles(t));
        return r;
    }
    const size_t item = static_cast<size_t>(dtypeItemSize(m.dtype));
    const size_t rank = m.shape.size();
    auto strideOf = [](const TensorMeta& x, size_t d) { return d < x.strides.size() ? x.strides[d] : 0; };
    // Walks the logical indices in row-major order, keeping both element offsets incrementally.
    std::vector<int64_t> idx(rank, 0);
    int64_t src = t.meta.offset, dst = m.offset;
    const std::byte* in = t.storage->data();
    std::byte* out = r.storage->data();
    for (int64_t e = 0; e < n; ++e) {
        std::memcpy(out + static_cast<size_t>(dst) * item, in + static_cast<size_t>(src) * item, item);
        for (size_t d = rank; d-- > 0;) {
            if (++idx[d] < m.shape[d]) {
                src += strideOf(t.meta, d);
                dst += strideOf(m, d);
                break;
            }
            src -= (m.shape[d] - 1) * strideOf(t.meta, d);
            dst -= (m.shape[d] - 1) * strideOf(m, d);
            idx[d] = 0;
        }
    }
    return r;
}

}  // namespace fxray
