#pragma once
/// Host tensors in an exact memory layout: what the compiled backends need at their boundary,
/// where generated code addresses buffers with the strides and offset it was compiled for and a
/// user's input may come in any layout.
#include "ir/tensor_meta.h"

namespace fxray {

/// Elements from the start of the storage to one past the last element m addresses (offset
/// included); 0 for a tensor with a size-0 dim.
int64_t storageSpan(const TensorMeta& m);

/// Whether a and b address the same elements the same way: dtype, shape, offset, and the strides
/// of every dim of size > 1 (a size-1 dim's stride is never used).
bool sameLayout(const TensorMeta& a, const TensorMeta& b);

/// A zero-filled tensor with exactly layout m, offset included.
Tensor allocateLayout(const TensorMeta& m);

/// t itself when it already has layout m, else a copy of t's elements in layout m (m must have
/// t's shape). Same dtype: copied bytewise, so int64 and NaN payloads survive; another dtype
/// (a pinned recording) is converted.
Tensor relayout(const Tensor& t, const TensorMeta& m);

}  // namespace fxray
