#pragma once
/// Helpers shared by the shape, scatter and indexing op files (flip/roll, *_scatter, *_backward
/// of views, *_copy variants, scatter_reduce, index_reduce, take/put): argument checks with
/// PyTorch's messages, eager layouts of fresh outputs, and writing through views.
#include "exec/ops/kernel_util.h"

#include <string>
#include <vector>

namespace fxray::kern {

/// A wrapped dim, or PyTorch's "dimension out of range" error.
Expected<int64_t> dimArg(const OpArgs& a, int64_t dim, int64_t ndim);

/// Tensor argument i's metadata with known strides; fails on symbolic shapes.
Expected<TensorMeta> inputMeta(const OpArgs& a, size_t i = 0);

/// c10's is_non_overlapping_and_dense.
bool isNonOverlappingAndDense(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides);

/// Strides eager's empty_like(self, preserve_format) / clone() give: a dense input's own strides,
/// else a dense layout in the input's dimension order.
std::vector<int64_t> preserveStrides(const TensorMeta& m);

/// A fresh tensor description (offset 0) of shape laid out with `strides`.
TensorMeta freshMeta(const TensorMeta& like, std::vector<int64_t> shape, std::vector<int64_t> strides);
/// A fresh contiguous tensor description with like's dtype and device.
TensorMeta contiguousLike(const TensorMeta& like, std::vector<int64_t> shape);

/// Storage offsets (in elements) of every element of m in row-major logical order.
std::vector<int64_t> elementOffsets(const TensorMeta& m);

/// Index values checked against `size` (negative ones wrapped when allowNegative), with
/// PyTorch's "index i is out of bounds for dimension d with size n" message.
Expected<std::vector<int64_t>> indexValues(const OpArgs& a, const Tensor& index, int64_t size, int64_t dim,
                                           bool allowNegative);

/// A copy of t's whole storage with t's metadata (at::clone_preserve_strides: same strides and
/// storage offset), or a preserve-format clone when t overlaps itself (a stride-0 dim).
Tensor clonePreserveStrides(const Tensor& t);
/// Meta of clonePreserveStrides(t).
TensorMeta clonePreserveStridesMeta(const TensorMeta& t);

/// The view `viewOp` (a registered view op such as "aten.slice.Tensor") of `base` with the
/// given arguments after `base`; it aliases base's storage.
Expected<Tensor> viewOf(const OpArgs& a, const char* viewOp, const Tensor& base, std::vector<Value> args,
                        ExecContext& ctx);
/// Meta of the same view on meta tensors (the meta function of viewOp).
Expected<TensorMeta> viewMetaOf(const OpArgs& a, const char* viewOp, const TensorMeta& base, std::vector<Value> args);

/// Writes src (broadcast to the view's shape) into view's storage; with accumulate, adds to
/// what is there, element by element, so that overlapping view elements sum.
void writeInto(Tensor& view, const Tensor& src, bool accumulate);

}  // namespace fxray::kern
