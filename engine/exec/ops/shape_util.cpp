#include "exec/ops/shape_util.h"

#include "exec/interpreter.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace fxray::kern {

Expected<int64_t> dimArg(const OpArgs& a, int64_t dim, int64_t ndim) {
    auto d = wrapDim(dim, ndim);
    if (!d) {
        const int64_t n = std::max<int64_t>(ndim, 1);
        return opError(a, "dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " +
                              std::to_string(n - 1) + "], but got " + std::to_string(dim) + ")");
    }
    return *d;
}

Expected<TensorMeta> inputMeta(const OpArgs& a, size_t i) {
    TensorMeta m = a.tensor(i).meta;
    if (m.isSymbolic()) return opError(a, "symbolic shapes are not supported");
    if (m.strides.size() != m.shape.size()) m.strides = TensorMeta::contiguousStrides(m.shape);
    return m;
}

bool isNonOverlappingAndDense(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
    const size_t n = shape.size();
    if (n == 0) return true;
    if (n == 1) return shape[0] < 2 || strides[0] == 1;
    std::vector<size_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    // Size 0/1 dims go last; the others by increasing stride.
    std::stable_sort(perm.begin(), perm.end(), [&](size_t x, size_t y) {
        if (shape[x] < 2) return false;
        if (shape[y] < 2) return true;
        return strides[x] < strides[y];
    });
    int64_t expected = 1;
    for (size_t p : perm) {
        if (shape[p] < 2) return true;
        if (strides[p] != expected) return false;
        expected *= shape[p];
    }
    return true;
}

std::vector<int64_t> preserveStrides(const TensorMeta& m) {
    if (m.strides.size() != m.shape.size()) return TensorMeta::contiguousStrides(m.shape);
    if (isNonOverlappingAndDense(m.shape, m.strides)) return m.strides;
    return stridesLike(m.shape, m);
}

TensorMeta freshMeta(const TensorMeta& like, std::vector<int64_t> shape, std::vector<int64_t> strides) {
    TensorMeta m;
    m.dtype = like.dtype;
    m.device = like.device;
    m.deviceKnown = like.deviceKnown;
    m.shape = std::move(shape);
    m.strides = std::move(strides);
    return m;
}

TensorMeta contiguousLike(const TensorMeta& like, std::vector<int64_t> shape) {
    auto st = TensorMeta::contiguousStrides(shape);
    return freshMeta(like, std::move(shape), std::move(st));
}

std::vector<int64_t> elementOffsets(const TensorMeta& m) {
    const int64_t n = m.numel();
    std::vector<int64_t> offs;
    if (n <= 0) return offs;
    offs.reserve(static_cast<size_t>(n));
    const size_t nd = m.shape.size();
    std::vector<int64_t> idx(nd, 0);
    int64_t off = m.offset;
    for (int64_t e = 0; e < n; ++e) {
        offs.push_back(off);
        for (size_t d = nd; d-- > 0;) {
            if (++idx[d] < m.shape[d]) {
                off += m.strides[d];
                break;
            }
            off -= m.strides[d] * (m.shape[d] - 1);
            idx[d] = 0;
        }
    }
    return offs;
}

Expected<std::vector<int64_t>> indexValues(const OpArgs& a, const Tensor& index, int64_t size, int64_t dim,
                                           bool allowNegative) {
    const auto raw = toDoubles(index);
    std::vector<int64_t> out(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        const auto v = static_cast<int64_t>(raw[i]);
        const int64_t w = allowNegative && v < 0 ? v + size : v;
        if (w < 0 || w >= size)
            return opError(a, "index " + std::to_string(v) + " is out of bounds for dimension " + std::to_string(dim) +
                                  " with size " + std::to_string(size));
        out[i] = w;
    }
    return out;
}

namespace {
/// at::has_internal_overlap == Yes: a dim of size > 1 with stride 0 (dense layouts never overlap).
bool overlapsItself(const TensorMeta& m) {
    if (m.strides.size() != m.shape.size() || isNonOverlappingAndDense(m.shape, m.strides)) return false;
    for (size_t d = 0; d < m.shape.size(); ++d)
        if (m.strides[d] == 0 && m.shape[d] > 1) return true;
    return false;
}
}  // namespace

TensorMeta clonePreserveStridesMeta(const TensorMeta& t) {
    TensorMeta m = t;
    if (m.strides.size() != m.shape.size()) m.strides = TensorMeta::contiguousStrides(m.shape);
    if (overlapsItself(m)) return freshMeta(m, m.shape, preserveStrides(m));
    m.clearSymbolic();
    m.stridesKnown = true;
    return m;
}

Tensor clonePreserveStrides(const Tensor& t) {
    const TensorMeta m = clonePreserveStridesMeta(t.meta);
    if (!t.hasData() || overlapsItself(t.meta))
        return makeTensor(m, t.hasData() ? toDoubles(t) : std::vector<double>{});
    Tensor c;
    c.meta = m;
    c.storage = std::make_shared<Storage>(t.storage->nbytes());
    if (t.storage->nbytes() > 0) std::memcpy(c.storage->data(), t.storage->data(), t.storage->nbytes());
    return c;
}

namespace {
std::vector<Value> withBase(Value base, std::vector<Value> args) {
    args.insert(args.begin(), std::move(base));
    return args;
}
}  // namespace

Expected<Tensor> viewOf(const OpArgs& a, const char* viewOp, const Tensor& base, std::vector<Value> args,
                        ExecContext& ctx) {
    auto v = invokeOp(viewOp, withBase(Value::ofTensor(base), std::move(args)), {}, &ctx);
    if (!v.ok()) return opError(a, v.error().message);
    if (!v->isTensor()) return opError(a, std::string(viewOp) + " did not return a tensor");
    return v->t;
}

Expected<TensorMeta> viewMetaOf(const OpArgs& a, const char* viewOp, const TensorMeta& base, std::vector<Value> args) {
    auto v = invokeOp(viewOp, withBase(Value::ofTensor(Tensor::metaOnly(base)), std::move(args)));
    if (!v.ok()) return opError(a, v.error().message);
    if (!v->isTensor()) return opError(a, std::string(viewOp) + " did not return a tensor");
    return v->t.meta;
}

void writeInto(Tensor& view, const Tensor& src, bool accumulate) {
    const auto vals = toDoublesBroadcast(src, view.shape());
    if (!accumulate) {
        fromDoubles(view, vals);
        return;
    }
    // Sum in double per storage element and round once, as a reduction would.
    const DType dt = view.dtype();
    const int sz = dtypeItemSize(dt);
    std::byte* base = view.storage->data();
    const auto offs = elementOffsets(view.meta);
    std::vector<double> sums(view.storage->nbytes() / static_cast<size_t>(sz), 0.0);
    std::vector<bool> touched(sums.size(), false);
    for (size_t e = 0; e < offs.size(); ++e) {
        const auto o = static_cast<size_t>(offs[e]);
        if (!touched[o]) sums[o] = readElem(base + offs[e] * sz, dt);
        touched[o] = true;
        sums[o] += vals[e];
    }
    for (size_t o = 0; o < sums.size(); ++o)
        if (touched[o]) writeElem(base + o * static_cast<size_t>(sz), dt, sums[o]);
}

}  // namespace fxray::kern
