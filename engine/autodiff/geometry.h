#pragma once
/// Shape and stride questions the decompositions and VJP rules ask while tracing: can a reshape
/// be a view, which dims does sum_to reduce, dim wrapping.
#include "ir/tensor_meta.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace fxray {

/// True when `reshape(m, shape)` is a view (ATen's at::detail::computeStride finds strides);
/// false when reshape copies (`clone` + `_unsafe_view`).
bool reshapeIsView(const TensorMeta& m, const std::vector<int64_t>& shape);

/// Resolves one -1 in `shape` against numel; nullopt when the sizes do not fit.
std::optional<std::vector<int64_t>> inferShape(std::vector<int64_t> shape, int64_t numel);

/// The dims `at::sum_to(x, shape)` reduces (leading dims, then size-1 dims of `shape` that are
/// not 1 in `from`), and whether a view to `shape` follows (when there were leading dims).
struct SumToPlan {
    std::vector<int64_t> dims;
    bool view = false;
};
/// nullopt when `from` does not broadcast-reduce to `shape`.
std::optional<SumToPlan> sumToPlan(const std::vector<int64_t>& from, const std::vector<int64_t>& shape);

/// Normalises a possibly negative dim against ndim (ndim 0 counts as 1, as ATen's wrap does).
int64_t wrapDimIndex(int64_t dim, int64_t ndim);

/// The tensor's strides, contiguous ones when unknown.
std::vector<int64_t> knownStrides(const TensorMeta& m);

/// Contiguous in the default memory format (size-1 dims ignored), as `Tensor::is_contiguous`.
bool isContiguousLayout(const TensorMeta& m);

}  // namespace fxray
