#pragma once
/// Sorting on the device (kernels/sort.cu): a stable merge sort of any number of rows of any
/// length, for sort, sort.stable and topk, and the uniques (_unique, _unique2,
/// unique_consecutive) on top of it. Ordering is the reference executor's (exec/ops/sort.cpp):
/// NaN above every number, equal keys in input order.
#include "codegen/cuda/device_ops.h"

#include <string>

namespace fxray::cg::cuda {

/// The module's source (CI compiles it with NVRTC without a device).
Expected<std::string> sortOpsSource();

/// The dtypes the device sort handles: floating (fp32, fp64, fp16, bf16), integers and bool.
bool deviceSortSupports(DType t);

/// Sorts x's rows along dim (stable; descending puts NaN first) and writes the first k of each
/// sorted row to `values` and `indices` (int64), each of x's shape with dim cut to k, in any
/// layout; either may be null.
Status sortRowsOnDevice(const DeviceView& x, int64_t dim, bool descending, int64_t k, const DeviceView* values,
                        const DeviceView* indices);

/// The uniques of flattened x: sorted (consecutive = false) or runs in input order. `values` and
/// `counts` (dense, 1-D) must hold exactly the number of groups, else an error saying both
/// counts (they were sized ahead from the graph's annotations); inverse (dense int64, x's
/// shape), and the others too, may be null.
Status uniqueOnDevice(const DeviceView& x, bool consecutive, const DeviceView* values, const DeviceView* inverse,
                      const DeviceView* counts);

/// repeat_interleave.Tensor: out (dense int64, sized ahead) = i repeated repeats[i] times, for the
/// dense 1-D int64 repeats; an error naming both lengths where the repeats sum to another.
Status repeatInterleaveOnDevice(const DeviceView& repeats, const DeviceView& out);

}  // namespace fxray::cg::cuda
