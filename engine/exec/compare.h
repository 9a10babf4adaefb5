#pragma once
/// Numeric comparison of outputs against expected tensors, and input preparation for runs.
#include "ir/graph.h"
#include "ir/value.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fxray {

/// Result of comparing one output.
struct OutputComparison {
    size_t index = 0;
    bool ok = false;
    double relErr = 0.0;  ///< ||out - expect|| / ||expect|| (absolute norm when expect is 0)
    double maxAbsErr = 0.0;
    double tolerance = 0.0;  ///< the rel_err bound applied
    std::string note;        ///< why it failed when not numeric ("shape", "dtype", "None")
    /// Judged by the fp64-referenced rule because rel_err alone failed (see judgeWithFp64).
    bool fp64Judged = false;
    double rmseOurs = 0.0;      ///< RMSE(ours, fp64 reference) when fp64Judged
    double rmseExpected = 0.0;  ///< RMSE(expected, fp64 reference) when fp64Judged
};

/// Default tolerance for a dtype: 1e-4 fp32/fp64, 1e-2 fp16/bf16, exact for integers and bool.
double defaultTolerance(DType t);
/// Compares an output value with an expected one (None vs None is ok).
OutputComparison compareValues(size_t index, const Value& out, const Value& expect);

/// Second opinion for an output whose rel_err failed, as PyTorch's `same()` judges accuracy:
/// with `ref64` the same graph run in fp64, the output passes when
/// RMSE(ours, ref64) <= 2 * RMSE(expected, ref64) + tolerance / 10. This accepts outputs that are
/// rounding noise of a cancelling sum (a gradient that is mathematically zero), where rel_err is
/// meaningless, and still fails real errors. Only floating outputs are re-judged.
void judgeWithFp64(OutputComparison& c, const Value& out, const Value& expect, const Value& ref64);

/// Lays out a tensor read from .npy (contiguous) with a placeholder's annotated strides, so
/// views behave as they did in PyTorch; an fp32 array for a bf16 placeholder becomes bf16 (numpy
/// has no bfloat16, so PyTorch's tools save bf16 tensors as fp32).
Tensor withAnnotatedStrides(const Tensor& t, const Node& placeholder);
/// The same with the layout given (a symbolic annotation bound to the inputs' sizes).
Tensor withAnnotatedStrides(const Tensor& t, const TensorMeta& annotated);
/// Recorded inputs (read from .npy files, contiguous) made what the graph takes: each tensor laid
/// out with its placeholder's annotation; for a dynamic-shape graph, SymInt files become Python
/// numbers and the annotations are evaluated at the binding the inputs give (bindInputs without
/// strides; fails as that does).
Status layOutRecordedInputs(const Graph& g, std::vector<Value>& inputs);
/// Seeded random inputs from the placeholders' annotations (normal for floats, small ints for
/// integers, fair coin for bool). Fails naming the placeholder without usable metadata.
/// Dynamic shapes: the symbols take `sizes`, else the graph's hints, else 8
/// (exec/shape_binding.h completeBinding); SymInt inputs are their expressions' values.
Expected<std::vector<Value>> randomInputs(const Graph& g, uint64_t seed, const sym::Binding* sizes = nullptr);

}  // namespace fxray
