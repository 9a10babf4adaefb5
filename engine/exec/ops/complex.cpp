// Complex ops: complex, polar, view_as_complex/view_as_real, conj and its variants, real/imag.
// Graphs holding complex values run through exec/complex_to_real.h's rewrite (the reference
// executor and the compiled backends alike), so these kernels serve direct calls (invokeOp,
// constant folding); the meta functions serve shape inference of the graphs as loaded.
#include "exec/complex_to_real.h"
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <cmath>
#include <optional>

namespace fxray {
using namespace kern;

namespace {

std::string dtName(DType t) { return std::string(dtypeTorchName(t)); }

std::optional<DType> complexOfReal(DType t) {
    if (t == DType::Float32) return DType::Complex64;
    if (t == DType::Float64) return DType::Complex128;
    return std::nullopt;
}

/// complex(real, imag) / polar(abs, angle): two real tensors of one dtype, broadcast.
Expected<Value> metaFromParts(const OpArgs& a) {
    const TensorMeta &x = a.tensor(0).meta, &y = a.tensor(1).meta;
    if (x.dtype != y.dtype)
        return opError(a, "expected both inputs to have the same dtype, got " + std::string(dtypeTorchName(x.dtype)) +
                              " and " + std::string(dtypeTorchName(y.dtype)));
    auto c = complexOfReal(x.dtype);
    if (!c) return opError(a, "expected float or double inputs, got " + dtName(x.dtype));
    auto shape = broadcastShapes(x.shape, y.shape);
    if (!shape)
        return opError(a, "the shapes " + shapeStr(x.shape) + " and " + shapeStr(y.shape) + " do not broadcast");
    return metaValue(TensorMeta::contiguous(*shape, *c, firstDevice(a)));
}

template <bool Polar>
Expected<Value> partsKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto x = toDoublesBroadcast(a.tensor(0), out.t.shape()), y = toDoublesBroadcast(a.tensor(1), out.t.shape());
    Tensor r = Tensor::emptyLike(out.t.meta);
    Tensor rv = complexAsReal(r);
    std::vector<double> v(x.size() * 2);
    for (size_t i = 0; i < x.size(); ++i) {
        v[2 * i] = Polar ? x[i] * std::cos(y[i]) : x[i];
        v[2 * i + 1] = Polar ? x[i] * std::sin(y[i]) : y[i];
    }
    fromDoubles(rv, v);
    return Value::ofTensor(r);
}

Expected<Value> metaViewAsComplex(const OpArgs& a) {
    const TensorMeta& m = a.tensor(0).meta;
    auto c = complexOfReal(m.dtype);
    if (!c) return opError(a, "is only supported for float and double tensors, got " + dtName(m.dtype));
    if (m.dim() == 0 || m.shape.back() != 2) return opError(a, "Tensor must have a last dimension of size 2");
    if (m.strides.size() == m.shape.size() && m.strides.back() != 1)
        return opError(a, "Tensor must have a last dimension with stride 1");
    TensorMeta o = m;
    o.dtype = *c;
    o.shape.pop_back();
    o.clearSymbolic();
    if (m.strides.size() == m.shape.size()) {
        o.strides.pop_back();
        for (auto& s : o.strides) {
            if (s % 2) return opError(a, "Tensor must have a stride divisible by 2 for all but last dimension");
            s /= 2;
        }
    }
    if (m.offset % 2) return opError(a, "Tensor must have a storage_offset divisible by 2");
    o.offset = m.offset / 2;
    return metaValue(o);
}

Expected<Value> metaViewAsReal(const OpArgs& a) {
    const TensorMeta& m = a.tensor(0).meta;
    if (!isComplex(m.dtype)) return opError(a, "is only supported for complex tensors");
    return metaValue(complexAsReal(Tensor::metaOnly(m)).meta);
}

/// real / imag: the component's strided view.
template <int Part>
Expected<Value> metaPart(const OpArgs& a) {
    const TensorMeta& m = a.tensor(0).meta;
    if (!isComplex(m.dtype)) {
        if (Part == 1) return opError(a, "imag is not implemented for tensors with non-complex dtypes.");
        return metaValue(m);
    }
    TensorMeta o = complexAsReal(Tensor::metaOnly(m)).meta;
    o.shape.pop_back();
    o.strides.pop_back();
    o.offset += Part;
    return metaValue(o);
}

Expected<Value> viewKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return Value::ofTensor(a.tensor(0).view(out.t.meta));
}

Expected<Value> metaSame(const OpArgs& a) { return metaValue(a.tensor(0).meta); }

Expected<Value> metaConjPhysical(const OpArgs& a) {
    const TensorMeta& m = a.tensor(0).meta;
    return metaValue(TensorMeta::contiguous(m.shape, m.dtype, m.device));
}

/// fxray's tensors carry no conjugate bit: conj materializes (a real tensor is its own conj).
Expected<Value> conjKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& x = a.tensor(0);
    if (!isComplex(x.dtype())) return Value::ofTensor(x.view(out.t.meta));
    std::vector<double> v = toDoubles(complexAsReal(x));
    for (size_t i = 1; i < v.size(); i += 2) v[i] = -v[i];
    Tensor r = Tensor::emptyLike(out.t.meta);
    Tensor rv = complexAsReal(r);
    fromDoubles(rv, v);
    return Value::ofTensor(r);
}

}  // namespace

void registerComplexOps(OpRegistry& r) {
    r.add("aten.complex.default", "complex(Tensor real, Tensor imag) -> Tensor", OpCategory::Pointwise, metaFromParts,
          partsKernel<false>);
    r.add("aten.polar.default", "polar(Tensor abs, Tensor angle) -> Tensor", OpCategory::Pointwise, metaFromParts,
          partsKernel<true>);
    r.add("aten.view_as_complex.default", "view_as_complex(Tensor(a) self) -> Tensor(a)", OpCategory::View,
          metaViewAsComplex, viewKernel)
        .aliasesInput = true;
    r.add("aten.view_as_real.default", "view_as_real(Tensor(a) self) -> Tensor(a)", OpCategory::View, metaViewAsReal,
          viewKernel)
        .aliasesInput = true;
    r.add("aten.real.default", "real(Tensor(a) self) -> Tensor(a)", OpCategory::View, metaPart<0>, viewKernel)
        .aliasesInput = true;
    r.add("aten.imag.default", "imag(Tensor(a) self) -> Tensor(a)", OpCategory::View, metaPart<1>, viewKernel)
        .aliasesInput = true;
    r.add("aten.resolve_conj.default", "resolve_conj(Tensor(a) self) -> Tensor(a)", OpCategory::View, metaSame,
          viewKernel)
        .aliasesInput = true;
    // _conj and conj are lazy views in PyTorch (the conjugate bit); here they are copies with
    // the view's layout, which a functional graph cannot tell apart.
    r.add("aten._conj.default", "_conj(Tensor(a) self) -> Tensor(a)", OpCategory::Pointwise, metaSame, conjKernel);
    r.add("aten.conj.default", "conj(Tensor(a) self) -> Tensor(a)", OpCategory::Pointwise, metaSame, conjKernel);
    r.add("aten.conj_physical.default", "conj_physical(Tensor self) -> Tensor", OpCategory::Pointwise, metaConjPhysical,
          conjKernel);
}

}  // namespace fxray
