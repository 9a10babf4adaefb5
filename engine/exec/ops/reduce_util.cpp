#include "exec/ops/reduce_util.h"

#include <algorithm>

namespace fxray::kern {

std::string dtName(DType t) { return std::string(dtypeTorchName(t)); }

Expected<ReducePlan> planReduce(const OpArgs& a, const std::vector<int64_t>& shape,
                                const std::optional<std::vector<int64_t>>& dims, bool keepdim) {
    const int64_t nd = static_cast<int64_t>(shape.size());
    ReducePlan p;
    p.reduced.assign(nd, dims ? dims->empty() : true);
    if (dims) {
        std::vector<bool> seen(std::max<int64_t>(nd, 1), false);
        for (int64_t d : *dims) {
            auto w = wrapDim(d, nd);
            if (!w)
                return opError(a, "dim " + std::to_string(d) + " is out of range for a tensor of " +
                                      std::to_string(nd) + " dimensions");
            if (seen[*w])
                return opError(a, "dim " + std::to_string(*w) + " appears multiple times in the list of dims");
            seen[*w] = true;
            if (nd > 0) p.reduced[*w] = true;
        }
    }
    for (int64_t i = 0; i < nd; ++i) {
        if (p.reduced[i]) {
            p.group *= shape[i];
            if (keepdim) p.outShape.push_back(1);
        } else {
            p.outShape.push_back(shape[i]);
            p.outNumel *= shape[i];
        }
    }
    p.outStrides.assign(nd, 0);
    int64_t acc = 1;
    for (int64_t i = nd - 1; i >= 0; --i) {
        if (p.reduced[i]) continue;
        p.outStrides[i] = acc;
        acc *= shape[i];
    }
    return p;
}

Expected<ReducePlan> planNonEmpty(const OpArgs& a, const std::optional<std::vector<int64_t>>& dims, bool keep) {
    const Tensor& t = a.tensor(0);
    auto p = planReduce(a, t.shape(), dims, keep);
    if (!p.ok()) return p;
    for (int64_t i = 0; i < t.dim(); ++i)
        if (p->reduced[i] && t.shape()[i] == 0)
            return opError(a, "expected reduction dim " + std::to_string(i) + " to have non-zero size");
    return p;
}

std::optional<std::vector<int64_t>> optDims(const OpArgs& a, size_t i) {
    if (a.isNone(i)) return std::nullopt;
    return a.toIntList(i);
}

Value contiguousMeta(const std::vector<int64_t>& shape, DType t, const Tensor& like) {
    return metaValue(TensorMeta::contiguous(shape, t, like.meta.device));
}

std::vector<double> inputAs(const Tensor& t, DType dt) {
    std::vector<double> v = toDoubles(t);
    if (dt != t.dtype())
        for (double& x : v) x = roundTo(x, dt);
    return v;
}

Expected<DimSplit> splitAt(const OpArgs& a, const std::vector<int64_t>& shape, int64_t dim) {
    const int64_t nd = static_cast<int64_t>(shape.size());
    auto w = wrapDim(dim, nd);
    if (!w)
        return opError(a, "dim " + std::to_string(dim) + " is out of range for a tensor of " + std::to_string(nd) +
                              " dimensions");
    DimSplit s;
    if (nd == 0) return s;
    for (int64_t i = 0; i < *w; ++i) s.outer *= shape[i];
    s.n = shape[*w];
    for (int64_t i = *w + 1; i < nd; ++i) s.inner *= shape[i];
    return s;
}

}  // namespace fxray::kern
