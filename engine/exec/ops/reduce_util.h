#pragma once
/// Helpers shared by the reduction-like op files (reduction.cpp, logical_reduce.cpp,
/// vector_norm.cpp, scan.cpp, sort.cpp, loss.cpp, segment_reduce.cpp): which dims a reduction
/// removes, row-major iteration over the reduced groups, and a tensor seen as [outer, n, inner]
/// around one dim.
#include "exec/ops/kernel_util.h"

#include <optional>
#include <string>
#include <vector>

namespace fxray::kern {

/// "torch.float32" for messages.
std::string dtName(DType t);

/// Which input dims a reduction removes and what the output looks like.
struct ReducePlan {
    std::vector<bool> reduced;        ///< per input dim
    std::vector<int64_t> outShape;    ///< with keepdim's size-1 dims when asked
    std::vector<int64_t> outStrides;  ///< per input dim: stride in the output, 0 when reduced
    int64_t outNumel = 1;
    int64_t group = 1;  ///< elements reduced into each output element
};

/// `dims` empty or absent means every dim. Dims are wrapped and must not repeat.
Expected<ReducePlan> planReduce(const OpArgs& a, const std::vector<int64_t>& shape,
                                const std::optional<std::vector<int64_t>>& dims, bool keepdim);

/// planReduce on input 0 that also refuses reducing a dim of size 0 (max, min, argmax, ...:
/// reductions without an identity).
Expected<ReducePlan> planNonEmpty(const OpArgs& a, const std::optional<std::vector<int64_t>>& dims, bool keep);

/// Calls f(inputIndex, outputIndex) for every input element in row-major order.
template <typename F>
void forEachReduced(const std::vector<int64_t>& shape, const ReducePlan& p, F&& f) {
    const int64_t nd = static_cast<int64_t>(shape.size());
    const int64_t n = product(shape);
    if (n == 0) return;
    if (nd == 0) {
        f(int64_t{0}, int64_t{0});
        return;
    }
    std::vector<int64_t> idx(nd, 0);
    const int64_t inner = shape[nd - 1], innerStride = p.outStrides[nd - 1];
    int64_t out = 0;
    for (int64_t e = 0; e < n; e += inner) {
        for (int64_t k = 0; k < inner; ++k) f(e + k, out + k * innerStride);
        for (int64_t d = nd - 2; d >= 0; --d) {
            if (++idx[d] < shape[d]) {
                out += p.outStrides[d];
                break;
            }
            out -= p.outStrides[d] * (shape[d] - 1);
            idx[d] = 0;
        }
    }
}

/// An optional int list argument (None -> nullopt).
std::optional<std::vector<int64_t>> optDims(const OpArgs& a, size_t i);

/// A contiguous meta tensor of `shape` on like's device.
Value contiguousMeta(const std::vector<int64_t>& shape, DType t, const Tensor& like);

/// Input values, first converted to `dt` when the op's dtype argument asks for another type.
std::vector<double> inputAs(const Tensor& t, DType dt);

/// A tensor seen as [outer, n, inner] around one dim (row-major element e = (o*n + k)*inner + i).
struct DimSplit {
    int64_t outer = 1, n = 1, inner = 1;
};

/// The split around `dim` (wrapped; a 0-d tensor is one row of one element).
Expected<DimSplit> splitAt(const OpArgs& a, const std::vector<int64_t>& shape, int64_t dim);

/// Applies f(first element, step) to every row along the split dim; rows are strided by `inner`.
template <typename F>
void forEachRow(const DimSplit& s, F&& f) {
    for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t i = 0; i < s.inner; ++i) f(o * s.n * s.inner + i, s.inner);
}

}  // namespace fxray::kern
