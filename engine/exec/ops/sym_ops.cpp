// The ATen ops of dynamic-shape graphs that read sizes (sym_size, sym_numel, sym_stride,
// sym_storage_offset) and check facts about them at run time (_assert_scalar,
// sym_constrain_range*, _assert_async). Their values are Python ints, as in PyTorch.
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <string>

namespace fxray {
using namespace kern;

namespace {

/// A size read from a meta tensor whose dimension is still symbolic (shape inference on an
/// unbound graph: the dimension has an expression, or was computed from one) has no value: the
/// caller falls back to the node's annotation.
Expected<Value> known(const OpArgs& a, bool symbolic, int64_t v, const std::string& what) {
    if (symbolic) return opError(a, what + " is symbolic here (no binding)");
    return Value::ofInt(v);
}

Expected<int64_t> dimArg(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    int64_t d = a.toInt(1);
    const int64_t nd = t.dim();
    if (d < -nd || d >= nd || nd == 0)
        return opError(a, "dimension " + std::to_string(d) + " out of range for a " + std::to_string(nd) + "-d tensor");
    return d < 0 ? d + nd : d;
}

Expected<Value> symSize(const OpArgs& a) {
    auto d = dimArg(a);
    if (!d.ok()) return d.error();
    const auto& m = a.tensor(0).meta;
    const size_t i = size_t(*d);
    return known(a, m.isSymbolicDim(i) || m.isUnknownDim(i), m.shape[i], "size " + std::to_string(*d));
}

Expected<Value> symStride(const OpArgs& a) {
    auto d = dimArg(a);
    if (!d.ok()) return d.error();
    const auto& m = a.tensor(0).meta;
    const size_t i = size_t(*d);
    if (m.isSymbolicStride(i)) return opError(a, "stride is symbolic here (no binding)");
    return known(a, m.strides[i] < 0, m.strides[i], "stride " + std::to_string(*d));
}

Expected<Value> symNumel(const OpArgs& a) {
    const auto& m = a.tensor(0).meta;
    for (size_t d = 0; d < m.shape.size(); ++d)
        if (m.isSymbolicDim(d) || m.isUnknownDim(d)) return opError(a, "numel is symbolic here (no binding)");
    return Value::ofInt(a.tensor(0).numel());
}

Expected<Value> symStorageOffset(const OpArgs& a) { return Value::ofInt(a.tensor(0).meta.offset); }

Expected<Value> sameAsMeta(const OpArgs&, const Value& out, ExecContext&) { return out; }

Expected<Value> noneMeta(const OpArgs&) { return Value::none(); }

/// item() / _local_scalar_dense(): the one element as a Python number. Its value is data:
/// on a meta tensor there is none (shape inference falls back to the "Sym(zf0)" annotation).
Expected<Value> localScalar(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    if (t.numel() != 1)
        return opError(a, "a Tensor with " + std::to_string(t.numel()) + " elements cannot be converted to Scalar");
    if (!t.hasData()) return opError(a, "the value is data-dependent (a meta tensor has none)");
    const double v = toDoubles(t)[0];
    if (t.dtype() == DType::Bool) return Value::ofBool(v != 0.0);
    if (isFloating(t.dtype())) return Value::ofDouble(v);
    return Value::ofInt(static_cast<int64_t>(v));
}

/// _assert_scalar(cond, msg): PyTorch raises `RuntimeError: {msg}` when cond is false.
Expected<Value> assertScalar(const OpArgs& a, const Value&, ExecContext&) {
    if (a[0].toDouble() != 0.0) return Value::none();
    return opError(a, "runtime assertion failed: " +
                          (a[1].kind == Value::Kind::String ? a[1].s : std::string("(no message)")));
}

Expected<Value> assertAsync(const OpArgs& a, const Value&, ExecContext&) {
    const Tensor& t = a.tensor(0);
    if (t.numel() != 1) return opError(a, "expects a one-element tensor");
    if (toDoubles(t)[0] != 0.0) return Value::none();
    return opError(a, "runtime assertion failed: " +
                          (a.size() > 1 && a[1].kind == Value::Kind::String ? a[1].s : std::string("(no message)")));
}

/// sym_constrain_range(_for_size)(size, min, max): a value outside [min, max] is an error.
Expected<Value> constrainRange(const OpArgs& a, const Value&, ExecContext&) {
    const double v = a[0].toDouble();
    const bool forSize = a.op().qualname.find("for_size") != std::string::npos;
    const double lo = a.isNone(1) ? (forSize ? 0.0 : -1e300) : a.toDouble(1);
    const double hi = a.isNone(2) ? 1e300 : a.toDouble(2);
    if (v >= lo && v <= hi) return Value::none();
    return opError(a, "value " + std::to_string(static_cast<int64_t>(v)) + " is outside its constrained range [" +
                          (a.isNone(1) ? std::string(forSize ? "0" : "-inf") : std::to_string(a.toInt(1))) + ", " +
                          (a.isNone(2) ? std::string("inf") : std::to_string(a.toInt(2))) + "]");
}

}  // namespace

void registerSymOps(OpRegistry& r) {
    r.add("aten.sym_size.int", "sym_size.int(Tensor self, int dim) -> SymInt", OpCategory::Other, symSize, sameAsMeta);
    r.add("aten.sym_stride.int", "sym_stride.int(Tensor self, int dim) -> SymInt", OpCategory::Other, symStride,
          sameAsMeta);
    r.add("aten.sym_numel.default", "sym_numel(Tensor self) -> SymInt", OpCategory::Other, symNumel, sameAsMeta);
    r.add("aten.sym_storage_offset.default", "sym_storage_offset(Tensor self) -> SymInt", OpCategory::Other,
          symStorageOffset, sameAsMeta);
    r.add("aten.item.default", "item(Tensor self) -> Scalar", OpCategory::Other, localScalar, sameAsMeta);
    r.add("aten._local_scalar_dense.default", "_local_scalar_dense(Tensor self) -> Scalar", OpCategory::Other,
          localScalar, sameAsMeta);
    r.add("aten._assert_scalar.default", "_assert_scalar(Scalar self, str assert_msg) -> ()", OpCategory::Other,
          noneMeta, assertScalar);
    r.add("aten._assert_async.msg", "_assert_async.msg(Tensor self, str assert_msg) -> ()", OpCategory::Other, noneMeta,
          assertAsync);
    r.add("aten._assert_async.default", "_assert_async(Tensor self) -> ()", OpCategory::Other, noneMeta, assertAsync);
    r.add("aten.sym_constrain_range.default", "sym_constrain_range(Scalar size, *, int? min=None, int? max=None) -> ()",
          OpCategory::Other, noneMeta, constrainRange);
    r.add("aten.sym_constrain_range_for_size.default",
          "sym_constrain_range_for_size(Scalar size, *, int? min=None, int? max=None) -> ()", OpCategory::Other,
          noneMeta, constrainRange);
}

}  // namespace fxray
