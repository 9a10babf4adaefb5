#include "autodiff/geometry.h"

namespace fxray {

std::vector<int64_t> knownStrides(const TensorMeta& m) {
    if (m.strides.size() == m.shape.size() && m.stridesKnown) return m.strides;
    return TensorMeta::contiguousStrides(m.shape);
}

bool isContiguousLayout(const TensorMeta& m) {
    auto st = knownStrides(m);
    int64_t expected = 1;
    for (int64_t d = m.dim() - 1; d >= 0; --d) {
        if (m.shape[d] == 1) continue;
        if (st[d] != expected) return false;
        expected *= m.shape[d];
    }
    return true;
}

bool reshapeIsView(const TensorMeta& m, const std::vector<int64_t>& newshape) {
    // at::detail::computeStride: walk the old layout from the innermost dim in chunks of dims
    // that are contiguous with each other; each chunk must be covered by whole new dims.
    const auto& oldshape = m.shape;
    const auto oldstride = knownStrides(m);
    if (oldshape.empty()) return true;
    int64_t numel = 1;
    for (auto s : oldshape) numel *= s;
    if (numel == 0) return true;
    int64_t viewD = static_cast<int64_t>(newshape.size()) - 1;
    int64_t chunkBase = oldstride.back();
    int64_t tensorNumel = 1, viewNumel = 1;
    for (int64_t td = static_cast<int64_t>(oldshape.size()) - 1; td >= 0; --td) {
        tensorNumel *= oldshape[td];
        bool chunkEnds = td == 0 || (oldshape[td - 1] != 1 && oldstride[td - 1] != tensorNumel * chunkBase);
        if (!chunkEnds) continue;
        while (viewD >= 0 && (viewNumel < tensorNumel || newshape[viewD] == 1)) {
            viewNumel *= newshape[viewD];
            --viewD;
        }
        if (viewNumel != tensorNumel) return false;
        if (td > 0) {
            chunkBase = oldstride[td - 1];
            tensorNumel = 1;
            viewNumel = 1;
        }
    }
    return viewD == -1;
}

std::optional<std::vector<int64_t>> inferShape(std::vector<int64_t> shape, int64_t numel) {
    int64_t known = 1;
    int infer = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == -1) {
            if (infer >= 0) return std::nullopt;
            infer = static_cast<int>(i);
        } else {
            known *= shape[i];
        }
    }
    if (infer >= 0) {
        if (known == 0 || numel % known != 0) return std::nullopt;
        shape[infer] = numel / known;
        return shape;
    }
    if (known != numel) return std::nullopt;
    return shape;
}

std::optional<SumToPlan> sumToPlan(const std::vector<int64_t>& from, const std::vector<int64_t>& shape) {
    if (shape.size() > from.size()) return std::nullopt;
    SumToPlan p;
    const size_t leading = from.size() - shape.size();
    for (size_t i = 0; i < leading; ++i) p.dims.push_back(static_cast<int64_t>(i));
    for (size_t i = leading; i < from.size(); ++i) {
        int64_t target = shape[i - leading];
        if (target == 1 && from[i] != 1)
            p.dims.push_back(static_cast<int64_t>(i));
        else if (target != from[i])
            return std::nullopt;
    }
    p.view = leading > 0;
    return p;
}

int64_t wrapDimIndex(int64_t dim, int64_t ndim) {
    int64_t n = ndim <= 0 ? 1 : ndim;
    return dim < 0 ? dim + n : dim;
}

}  // namespace fxray
