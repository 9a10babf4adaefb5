// Mask- and flat-index ops: masked_scatter (+ backward), _unsafe_masked_index and its
// accumulating put (the clamped-index ops Inductor's decompositions emit), take and put (which
// index self as if flattened in row-major order, negative indices wrapping).
#include "exec/interpreter.h"
#include "exec/ops/register.h"
#include "exec/ops/shape_util.h"

#include <string>

namespace fxray {
using namespace kern;

namespace {

Expected<bool> checkBoolMask(const OpArgs& a, const TensorMeta& mask, const char* what) {
    if (mask.dtype != DType::Bool)
        return opError(a, std::string(what) + " only supports boolean masks, but got mask with dtype " +
                              std::string(dtypeTorchName(mask.dtype)));
    return true;
}

// ----- masked_scatter ------------------------------------------------------------------------

Expected<Value> metaMaskedScatter(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    const TensorMeta& mask = a.tensor(1).meta;
    const TensorMeta& source = a.tensor(2).meta;
    auto ok = checkBoolMask(a, mask, "masked_scatter_");
    if (!ok.ok()) return ok.error();
    if (source.dtype != self.dtype)
        return opError(a, "masked_scatter: expected self and source to have same dtypes but got " +
                              std::string(dtypeTorchName(self.dtype)) + " and " +
                              std::string(dtypeTorchName(source.dtype)));
    auto shape = broadcastShapes(self.shape, mask.shape);
    if (!shape)
        return opError(a, "mask " + shapeStr(mask.shape) + " cannot be broadcast to self " + shapeStr(self.shape));
    return metaValue(contiguousLike(self, *shape));
}

/// Positions where the mask is true take the source's elements in order.
Expected<Value> maskedScatterKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto& shape = out.t.shape();
    auto vals = toDoublesBroadcast(a.tensor(0), shape);
    const auto mask = toDoublesBroadcast(a.tensor(1), shape);
    const auto src = toDoubles(a.tensor(2));
    size_t next = 0;
    for (size_t e = 0; e < vals.size(); ++e) {
        if (mask[e] == 0.0) continue;
        if (next >= src.size()) return opError(a, "Number of elements of source < number of ones in mask");
        vals[e] = src[next++];
    }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> metaMaskedScatterBackward(const OpArgs& a) {
    const TensorMeta& grad = a.tensor(0).meta;
    auto ok = checkBoolMask(a, a.tensor(1).meta, "masked_select");
    if (!ok.ok()) return ok.error();
    if (!broadcastShapes(grad.shape, a.tensor(1).shape()))
        return opError(a, "mask " + shapeStr(a.tensor(1).shape()) + " cannot be broadcast to grad " +
                              shapeStr(grad.shape));
    const auto sizes = a.toIntList(2);
    for (int64_t s : sizes)
        if (s < 0) return opError(a, "sizes must be non-negative, got " + shapeStr(sizes));
    return metaValue(contiguousLike(grad, sizes));
}

/// grad's masked elements in order, zero-padded to the source's size.
Expected<Value> maskedScatterBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto shape = *broadcastShapes(a.tensor(0).shape(), a.tensor(1).shape());
    const auto grad = toDoublesBroadcast(a.tensor(0), shape);
    const auto mask = toDoublesBroadcast(a.tensor(1), shape);
    std::vector<double> vals;
    for (size_t e = 0; e < grad.size(); ++e)
        if (mask[e] != 0.0) vals.push_back(grad[e]);
    const auto n = static_cast<size_t>(out.t.numel());
    if (vals.size() > n)
        return opError(a, "shape '" + shapeStr(out.t.shape()) + "' is invalid for input of size " +
                              std::to_string(vals.size()));
    vals.resize(n, 0.0);
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

// ----- _unsafe_masked_index ------------------------------------------------------------------

/// The index list with every index clamped to [-size, size - 1] of its dim (out-of-range
/// indices are allowed where the mask is false). Meta tensors stay as they are.
Expected<Value> clampedIndices(const OpArgs& a, const TensorMeta& self) {
    const Value& list = a[2];
    std::vector<Value> out;
    for (size_t i = 0; i < list.list.size(); ++i) {
        const Value& v = list.list[i];
        if (v.isNone() || !v.isTensor()) {
            out.push_back(v);
            continue;
        }
        const Tensor& t = v.t;
        if (t.dtype() != DType::Int64 && t.dtype() != DType::Int32)
            return opError(a, "expected indices to be long or int, got " + std::string(dtypeTorchName(t.dtype())));
        if (static_cast<int64_t>(i) >= self.dim())
            return opError(a, "too many indices for tensor of dimension " + std::to_string(self.dim()));
        if (!t.hasData()) {
            out.push_back(v);
            continue;
        }
        const int64_t size = self.shape[i];
        auto vals = toDoubles(t);
        for (double& x : vals) {
            // at::clamp(min=-size, max=size-1): max wins when they cross (size 0).
            x = std::max(x, static_cast<double>(-size));
            x = std::min(x, static_cast<double>(size - 1));
        }
        out.push_back(Value::ofTensor(makeTensor(TensorMeta::contiguous(t.shape(), t.dtype(), t.meta.device), vals)));
    }
    return Value::ofList(std::move(out));
}

/// ATen's empty-self path indexes a tensor whose indexed empty dims have size 1.
TensorMeta emptySelfBase(const OpArgs& a, const TensorMeta& self) {
    std::vector<int64_t> sizes = self.shape;
    for (size_t i = 0; i < a[2].list.size() && i < sizes.size(); ++i)
        if (!a[2].list[i].isNone() && sizes[i] == 0) sizes[i] = 1;
    return contiguousLike(self, sizes);
}

Expected<Value> metaUnsafeMaskedIndex(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    const TensorMeta& mask = a.tensor(1).meta;
    auto ok = checkBoolMask(a, mask, "_unsafe_masked_index");
    if (!ok.ok()) return ok.error();
    const bool empty = self.numel() == 0;
    const TensorMeta base = empty ? emptySelfBase(a, self) : self;
    auto idx = invokeOp("aten._unsafe_index.Tensor", {Value::ofTensor(Tensor::metaOnly(base)), a[2]});
    if (!idx.ok()) return opError(a, idx.error().message);
    if (empty) return metaValue(contiguousLike(self, idx->t.shape()));
    auto shape = broadcastShapes(idx->t.shape(), mask.shape);
    if (!shape)
        return opError(a, "mask " + shapeStr(mask.shape) + " cannot be broadcast to the indexing result " +
                              shapeStr(idx->t.shape()));
    return metaValue(contiguousLike(self, *shape));
}

/// where(mask, self[clamped indices], fill).
Expected<Value> unsafeMaskedIndexKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    const Tensor& self = a.tensor(0);
    const double fill = a.toDouble(3);
    if (self.numel() == 0)
        return Value::ofTensor(makeTensor(out.t.meta, std::vector<double>(static_cast<size_t>(out.t.numel()), fill)));
    auto indices = clampedIndices(a, self.meta);
    if (!indices.ok()) return indices.error();
    auto picked = invokeOp("aten._unsafe_index.Tensor", {Value::ofTensor(self), *indices}, {}, &ctx);
    if (!picked.ok()) return opError(a, picked.error().message);
    auto vals = toDoublesBroadcast(picked->t, out.t.shape());
    const auto mask = toDoublesBroadcast(a.tensor(1), out.t.shape());
    for (size_t e = 0; e < vals.size(); ++e)
        if (mask[e] == 0.0) vals[e] = fill;
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

/// The values with masked-out positions zeroed (values.masked_fill(~mask, 0)), as a meta or a
/// real tensor.
Expected<Tensor> maskedValues(const OpArgs& a) {
    const Tensor& values = a.tensor(3);
    const Tensor& mask = a.tensor(1);
    auto shape = broadcastShapes(values.shape(), mask.shape());
    if (!shape)
        return opError(a,
                       "mask " + shapeStr(mask.shape()) + " cannot be broadcast to values " + shapeStr(values.shape()));
    const TensorMeta m = contiguousLike(values.meta, *shape);
    if (!values.hasData() || !mask.hasData()) return Tensor::metaOnly(m);
    auto vals = toDoublesBroadcast(values, *shape);
    const auto mv = toDoublesBroadcast(mask, *shape);
    for (size_t e = 0; e < vals.size(); ++e)
        if (mv[e] == 0.0) vals[e] = 0.0;
    return makeTensor(m, vals);
}

Expected<Value> metaUnsafeMaskedIndexPut(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    auto ok = checkBoolMask(a, a.tensor(1).meta, "_unsafe_masked_index_put_accumulate");
    if (!ok.ok()) return ok.error();
    if (self.numel() == 0) {
        auto in = inputMeta(a);
        if (!in.ok()) return in.error();
        return metaValue(freshMeta(*in, in->shape, preserveStrides(*in)));
    }
    auto values = maskedValues(a);
    if (!values.ok()) return values.error();
    auto r = invokeOp("aten._unsafe_index_put.default",
                      {Value::ofTensor(Tensor::metaOnly(self)), a[2], Value::ofTensor(*values), Value::ofBool(true)});
    if (!r.ok()) return opError(a, r.error().message);
    return r;
}

/// _unsafe_index_put(self, clamped indices, values.masked_fill(~mask, 0), accumulate=True).
Expected<Value> unsafeMaskedIndexPutKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    const Tensor& self = a.tensor(0);
    if (self.numel() == 0) return Value::ofTensor(makeTensor(out.t.meta, toDoubles(self)));
    auto indices = clampedIndices(a, self.meta);
    if (!indices.ok()) return indices.error();
    auto values = maskedValues(a);
    if (!values.ok()) return values.error();
    auto r = invokeOp("aten._unsafe_index_put.default",
                      {Value::ofTensor(self), *indices, Value::ofTensor(*values), Value::ofBool(true)}, {}, &ctx);
    if (!r.ok()) return opError(a, r.error().message);
    return Value::ofTensor(makeTensor(out.t.meta, toDoubles(r->t)));
}

// ----- take / put ----------------------------------------------------------------------------

/// Flat indices into n elements, negative ones wrapping.
Expected<std::vector<int64_t>> flatIndices(const OpArgs& a, const Tensor& index, int64_t n) {
    const auto raw = toDoubles(index);
    std::vector<int64_t> out(raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
        const auto v = static_cast<int64_t>(raw[i]);
        if (v < -n || v >= n)
            return opError(a, "out of range: tried to access index " + std::to_string(v) + " on a tensor of " +
                                  std::to_string(n) + " elements.");
        out[i] = v < 0 ? v + n : v;
    }
    return out;
}

Expected<Value> metaTake(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    const Tensor& index = a.tensor(1);
    if (index.dtype() != DType::Int64)
        return opError(a, "take(): Expected a long tensor for index, but got " +
                              std::string(dtypeTorchName(index.dtype())));
    if (self.numel() == 0 && index.numel() != 0) return opError(a, "take(): tried to take from an empty tensor");
    return metaValue(contiguousLike(self, index.shape()));
}

Expected<Value> takeKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto src = toDoubles(a.tensor(0));
    auto idx = flatIndices(a, a.tensor(1), static_cast<int64_t>(src.size()));
    if (!idx.ok()) return idx.error();
    std::vector<double> vals(idx->size());
    for (size_t i = 0; i < vals.size(); ++i) vals[i] = src[static_cast<size_t>((*idx)[i])];
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> metaPut(const OpArgs& a) {
    auto self = inputMeta(a);
    if (!self.ok()) return self.error();
    const Tensor& index = a.tensor(1);
    const TensorMeta& source = a.tensor(2).meta;
    if (index.dtype() != DType::Int64)
        return opError(a, "put_(): Expected a long tensor for index, but got " +
                              std::string(dtypeTorchName(index.dtype())));
    if (source.dtype != self->dtype)
        return opError(a, "put_(): self and source expected to have the same dtype, but got self.dtype = " +
                              std::string(dtypeTorchName(self->dtype)) +
                              " and source.dtype = " + std::string(dtypeTorchName(source.dtype)));
    if (source.numel() != index.numel())
        return opError(a, "put_(): Expected source and index to have the same number of elements, but got "
                          "source.numel() = " +
                              std::to_string(source.numel()) + ", index.numel() = " + std::to_string(index.numel()));
    if (self->numel() == 0 && index.numel() != 0)
        return opError(a, "put_(): Tried to put elements into an empty tensor");
    return metaValue(freshMeta(*self, self->shape, preserveStrides(*self)));
}

/// A clone of self with source's elements written (or added) at the flat indices.
Expected<Value> putKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto vals = toDoubles(a.tensor(0));
    auto idx = flatIndices(a, a.tensor(1), static_cast<int64_t>(vals.size()));
    if (!idx.ok()) return idx.error();
    const auto src = toDoubles(a.tensor(2));
    const bool acc = a.toBool(3);
    for (size_t i = 0; i < idx->size(); ++i) {
        double& dst = vals[static_cast<size_t>((*idx)[i])];
        dst = acc ? dst + src[i] : src[i];
    }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

}  // namespace

void registerMaskedIndexOps(OpRegistry& r) {
    using C = OpCategory;
    r.add("aten.masked_scatter.default", "masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor", C::Other,
          metaMaskedScatter, maskedScatterKernel);
    r.add("aten.masked_scatter_backward.default",
          "masked_scatter_backward(Tensor grad_output, Tensor mask, SymInt[] sizes) -> Tensor", C::Other,
          metaMaskedScatterBackward, maskedScatterBackwardKernel);
    r.add("aten._unsafe_masked_index.default",
          "_unsafe_masked_index(Tensor self, Tensor mask, Tensor?[] indices, Scalar fill) -> Tensor", C::Other,
          metaUnsafeMaskedIndex, unsafeMaskedIndexKernel);
    r.add("aten._unsafe_masked_index_put_accumulate.default",
          "_unsafe_masked_index_put_accumulate(Tensor self, Tensor mask, Tensor?[] indices, Tensor values) -> Tensor",
          C::Other, metaUnsafeMaskedIndexPut, unsafeMaskedIndexPutKernel);
    r.add("aten.take.default", "take(Tensor self, Tensor index) -> Tensor", C::Other, metaTake, takeKernel);
    r.add("aten.put.default", "put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor",
          C::Other, metaPut, putKernel);
}

}  // namespace fxray
