#pragma once
/// Helpers for writing ops: element conversion, broadcasting, type promotion, output strides,
/// and generic pointwise/meta building blocks. Reference kernels compute in double and round
/// once to the output dtype, which matches PyTorch's per-op rounding of fp32/fp16/bf16 results.
#include "exec/exec_context.h"
#include "ir/op_registry.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace fxray::kern {

// ----- errors --------------------------------------------------------------------------------
/// A Diagnostic "aten.x.y: message" for a kernel/meta failure (the executor adds the node).
Diagnostic opError(const OpArgs& a, std::string message);
/// "[2, 3, 4]": a shape or an int list as PyTorch writes it in messages.
std::string shapeStr(const std::vector<int64_t>& s);

// ----- element conversion --------------------------------------------------------------------
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bf16ToFloat(uint16_t h);
uint16_t floatToBf16(float f);
/// Reads one element of dtype t at p.
double readElem(const std::byte* p, DType t);
/// Writes v (rounded/truncated to t) at p.
void writeElem(std::byte* p, DType t, double v);
/// Rounds v to what dtype t can hold (fp32, fp16, bf16 rounding; int truncation; bool).
double roundTo(double v, DType t);

/// All elements of t in row-major logical order (honours strides and offset).
std::vector<double> toDoubles(const Tensor& t);
/// Elements of t broadcast to `shape` (t's shape must broadcast to it), row-major.
std::vector<double> toDoublesBroadcast(const Tensor& t, const std::vector<int64_t>& shape);
/// Writes row-major logical values into t's (possibly strided) storage.
void fromDoubles(Tensor& t, const std::vector<double>& values);
/// A new tensor from row-major values with metadata m (strides of m honoured).
Tensor makeTensor(const TensorMeta& m, const std::vector<double>& values);
/// histc's counts of x in `bins` equal bins over [lo, hi] (the data's range when lo == hi); shared
/// by the reference kernel and the CPU backend's extern (exec/ops/sort.cpp).
std::vector<double> histcCounts(const std::vector<double>& x, int64_t bins, double lo, double hi);
/// nonzero's rows: the row-major coordinates of x's elements (of `shape`) that are not zero, NaN
/// included, ndim values each; and bincount's bins (n of them) over the non-negative values in
/// `values`: counts, or the sums of `weights` (summed in float when `f32`). Shared by the
/// reference kernels and the CPU backend's externs (exec/ops/data_sized.cpp).
std::vector<double> nonzeroCoords(const std::vector<double>& x, const std::vector<int64_t>& shape);
std::vector<double> bincountBins(const std::vector<double>& values, const std::vector<double>* weights, size_t n,
                                 bool f32);

// ----- shapes --------------------------------------------------------------------------------
/// Normalises a possibly negative dim; nullopt when out of range.
std::optional<int64_t> wrapDim(int64_t dim, int64_t ndim);
/// Broadcast of two shapes, or nullopt when incompatible.
std::optional<std::vector<int64_t>> broadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
/// Row-major index decomposition helper: strides of a contiguous layout of shape.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape);
int64_t product(const std::vector<int64_t>& v);

// ----- dtypes --------------------------------------------------------------------------------
/// torch.promote_types.
DType promoteTypes(DType a, DType b);
/// torch.result_type over operands (tensors by dimensionality, Python numbers as wrapped
/// scalars), PyTorch's category rules. Values that are neither tensors nor numbers are ignored.
DType resultType(const std::vector<const Value*>& operands);
/// The float dtype ops like div/mean/sigmoid use: the dtype itself if floating, else f32.
DType toFloatingType(DType t);

// ----- output layout -------------------------------------------------------------------------
/// Output strides a TensorIterator gives a pointwise op of `shape` over these inputs (the input
/// layouts' dimension order, broadcast dims ignored; contiguous when nothing decides).
std::vector<int64_t> pointwiseStrides(const std::vector<int64_t>& shape, const std::vector<const TensorMeta*>& inputs);
/// TensorIterator's general path (no fast path): dense strides ordering dims by the inputs'
/// strides, broadcast dims ignored, insertion sort from the innermost dim.
std::vector<int64_t> dimOrderStrides(const std::vector<int64_t>& shape, const std::vector<const TensorMeta*>& inputs);
/// Strides torch._refs.empty_like gives (what AOT tracing reports for *_like calls): a contiguous
/// or channels-last input keeps that format exactly, others get a dense layout in their own
/// dimension order.
std::vector<int64_t> emptyLikeStrides(const TensorMeta& m);
/// Strides of `shape` laid out like `like` (same rank): like's dimension order, dense.
std::vector<int64_t> stridesLike(const std::vector<int64_t>& shape, const TensorMeta& like);

// ----- building blocks -----------------------------------------------------------------------
/// A Value holding a meta tensor.
Value metaValue(TensorMeta m);
/// The device of the first tensor among the values, else cpu.
Device firstDevice(const OpArgs& a);

/// Meta of a pointwise op over the operands at `idx` (tensors or numbers): broadcast shape,
/// TensorIterator strides, dtype = result type unless `dtype` is given.
Expected<Value> pointwiseMeta(const OpArgs& a, const std::vector<size_t>& idx,
                              std::optional<DType> dtype = std::nullopt);

/// Allocates the output described by `out` (a meta tensor value) and fills it with
/// f(x0, x1, ...) over the operands at `idx`, broadcast to the output shape.
/// f receives a pointer to the operands' values for one element.
Expected<Value> pointwiseKernel(const OpArgs& a, const Value& out, const std::vector<size_t>& idx,
                                const std::function<double(const double*)>& f);

}  // namespace fxray::kern
