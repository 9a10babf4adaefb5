// Factory ops: arange, iota, linspace, logspace, scalar_tensor, empty/zeros/ones/full and their
// new_* forms, _efficientzerotensor, eye, tril_indices/triu_indices (the *_like ones live in misc.cpp).
// `empty` is zero-filled so that runs are deterministic. dtype defaults follow PyTorch: the
// default float dtype (float32) unless the arguments are all integers (arange) or the fill value
// decides (full).
#include "exec/ops/creation.h"
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace fxray {
using namespace kern;

namespace {

/// Index of a schema argument by name (every factory has dtype/device kwargs at varying slots).
size_t argIndex(const OpArgs& a, const char* name) { return static_cast<size_t>(a.op().schema.indexOf(name)); }

std::optional<DType> kwDType(const OpArgs& a) {
    int i = a.op().schema.indexOf("dtype");
    return i < 0 ? std::nullopt : a.toOptDType(static_cast<size_t>(i));
}

Device kwDevice(const OpArgs& a, const Device& dflt = {}) {
    int i = a.op().schema.indexOf("device");
    if (i >= 0 && a[static_cast<size_t>(i)].kind == Value::Kind::Device) return a[static_cast<size_t>(i)].device;
    return dflt;
}

std::optional<MemoryFormat> kwFormat(const OpArgs& a) {
    int i = a.op().schema.indexOf("memory_format");
    if (i >= 0 && a[static_cast<size_t>(i)].kind == Value::Kind::MemoryFormat)
        return a[static_cast<size_t>(i)].memoryFormat;
    return std::nullopt;
}

Expected<std::vector<int64_t>> sizeArg(const OpArgs& a, size_t i) {
    auto s = a.toIntList(i);
    for (int64_t x : s)
        if (x < 0)
            return opError(a,
                           "trying to create tensor with negative dimension " + std::to_string(x) + ": " + shapeStr(s));
    return s;
}

/// The dtype a Python number gives a tensor (full's fill value): bool, int64 or float32.
DType numberDType(const Value& v) {
    if (v.kind == Value::Kind::Bool) return DType::Bool;
    if (v.kind == Value::Kind::Int) return DType::Int64;
    return DType::Float32;
}

std::vector<int64_t> channelsLastStrides(const std::vector<int64_t>& shape) {
    std::vector<size_t> order =
        shape.size() == 4 ? std::vector<size_t>{1, 3, 2, 0} : std::vector<size_t>{1, 4, 3, 2, 0};
    std::vector<int64_t> st(shape.size());
    int64_t acc = 1;
    for (size_t d : order) {
        st[d] = acc;
        acc *= std::max<int64_t>(shape[d], 1);
    }
    return st;
}

Expected<std::vector<int64_t>> formatStrides(const OpArgs& a, const std::vector<int64_t>& shape,
                                             std::optional<MemoryFormat> f) {
    if (f == MemoryFormat::ChannelsLast || f == MemoryFormat::ChannelsLast3d) {
        size_t want = *f == MemoryFormat::ChannelsLast ? 4 : 5;
        if (shape.size() != want)
            return opError(a, std::string(memoryFormatTorchName(*f)) + " requires a " + std::to_string(want) +
                                  "-d shape, got " + shapeStr(shape));
        return channelsLastStrides(shape);
    }
    return TensorMeta::contiguousStrides(shape);
}

TensorMeta freshMeta(std::vector<int64_t> shape, std::vector<int64_t> strides, DType dt, Device dev) {
    TensorMeta m;
    m.shape = std::move(shape);
    m.strides = std::move(strides);
    m.dtype = dt;
    m.device = std::move(dev);
    return m;
}

/// Kernel of every factory whose value is one constant; the fill is found from the schema
/// (`fill_value`), else the op's name decides (ones -> 1, zeros/empty -> 0).
Expected<Value> fillKernel(const OpArgs& a, const Value& out, ExecContext&) {
    int fi = a.op().schema.indexOf("fill_value");
    double v = 0.0;
    if (fi >= 0)
        v = a.toDouble(static_cast<size_t>(fi));
    else if (a.op().schema.name.find("ones") != std::string::npos)
        v = 1.0;
    Tensor t = Tensor::emptyLike(out.t.meta);
    if (v != 0.0) fromDoubles(t, std::vector<double>(static_cast<size_t>(t.numel()), v));
    return Value::ofTensor(std::move(t));
}

// ----- sized factories -----------------------------------------------------------------------

/// zeros/ones/empty(size, dtype=, device=, memory_format=) and full(size, fill_value, ...).
Expected<Value> metaSized(const OpArgs& a) {
    auto shape = sizeArg(a, 0);
    if (!shape.ok()) return shape.error();
    int fi = a.op().schema.indexOf("fill_value");
    DType dt = kwDType(a).value_or(fi >= 0 ? numberDType(a[static_cast<size_t>(fi)]) : DType::Float32);
    auto st = formatStrides(a, *shape, kwFormat(a));
    if (!st.ok()) return st.error();
    return metaValue(freshMeta(*shape, *st, dt, kwDevice(a)));
}

Expected<Value> metaEmptyStrided(const OpArgs& a) {
    auto shape = sizeArg(a, 0);
    if (!shape.ok()) return shape.error();
    auto st = a.toIntList(1);
    if (st.size() != shape->size())
        return opError(a, "mismatch in length of strides and shape (" + std::to_string(st.size()) + " vs " +
                              std::to_string(shape->size()) + ")");
    for (int64_t s : st)
        if (s < 0) return opError(a, "negative strides are not supported: " + shapeStr(st));
    return metaValue(freshMeta(*shape, st, kwDType(a).value_or(DType::Float32), kwDevice(a)));
}

/// new_zeros/new_ones/new_empty/new_full(self, size, ...): self's dtype and device by default.
Expected<Value> metaNewSized(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    auto shape = sizeArg(a, 1);
    if (!shape.ok()) return shape.error();
    return metaValue(freshMeta(*shape, TensorMeta::contiguousStrides(*shape), kwDType(a).value_or(self.dtype),
                               kwDevice(a, self.device)));
}

Expected<Value> metaNewEmptyStrided(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    auto shape = sizeArg(a, 1);
    if (!shape.ok()) return shape.error();
    auto st = a.toIntList(2);
    if (st.size() != shape->size()) return opError(a, "mismatch in length of strides and shape");
    return metaValue(freshMeta(*shape, st, kwDType(a).value_or(self.dtype), kwDevice(a, self.device)));
}

// ----- scalar_tensor -------------------------------------------------------------------------

Expected<Value> metaScalarTensor(const OpArgs& a) {
    return metaValue(freshMeta({}, {}, kwDType(a).value_or(DType::Float32), kwDevice(a)));
}

Expected<Value> scalarTensorKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return Value::ofTensor(makeTensor(out.t.meta, {a.toDouble(0)}));
}

// ----- ranges --------------------------------------------------------------------------------

struct Range {
    double start = 0, end = 0, step = 1;
};

Range rangeArgs(const OpArgs& a) {
    const std::string& ov = a.op().schema.overload;
    if (ov.empty()) return {0.0, a.toDouble(0), 1.0};
    if (ov == "start") return {a.toDouble(0), a.toDouble(1), 1.0};
    return {a.toDouble(0), a.toDouble(1), a.toDouble(2)};
}

DType arangeDType(const OpArgs& a) {
    if (auto dt = kwDType(a)) return *dt;
    const size_t n = a.op().schema.overload.empty() ? 1 : a.op().schema.overload == "start" ? 2 : 3;
    for (size_t i = 0; i < n; ++i)
        if (a[i].kind == Value::Kind::Double) return DType::Float32;
    return DType::Int64;
}

/// Number of elements of arange; int64 ranges truncate their bounds first, as ATen does.
Expected<int64_t> arangeLength(const OpArgs& a, Range r, DType dt) {
    if (dt == DType::Int64) {
        r.start = std::trunc(r.start);
        r.end = std::trunc(r.end);
        r.step = std::trunc(r.step);
    }
    if (r.step == 0) return opError(a, "step must be nonzero");
    if (!std::isfinite(r.start) || !std::isfinite(r.end))
        return opError(a, "unsupported range: " + std::to_string(r.start) + " -> " + std::to_string(r.end));
    if ((r.step > 0 && r.end < r.start) || (r.step < 0 && r.end > r.start))
        return opError(a, "upper bound and larger bound inconsistent with step sign");
    double len;
    if (dt == DType::Int64) {
        const auto s = static_cast<int64_t>(r.start), e = static_cast<int64_t>(r.end),
                   st = static_cast<int64_t>(r.step);
        const int64_t sgn = (st > 0) - (st < 0);
        // Python floor division of (e - s + st - sgn) by st.
        int64_t num = e - s + st - sgn, q = num / st;
        if ((num % st != 0) && ((num < 0) != (st < 0))) --q;
        len = static_cast<double>(q);
    } else {
        len = std::ceil((r.end - r.start) / r.step);
    }
    if (len < 0 || len > 9.0e15) return opError(a, "invalid size of arange: " + std::to_string(len));
    return static_cast<int64_t>(len);
}

Expected<Value> metaArange(const OpArgs& a) {
    const DType dt = arangeDType(a);
    auto n = arangeLength(a, rangeArgs(a), dt);
    if (!n.ok()) return n.error();
    return metaValue(TensorMeta::contiguous({*n}, dt, kwDevice(a)));
}

Expected<Value> arangeKernel(const OpArgs& a, const Value& out, ExecContext&) {
    Range r = rangeArgs(a);
    if (out.t.dtype() == DType::Int64) {
        r.start = std::trunc(r.start);
        r.step = std::trunc(r.step);
    }
    std::vector<double> vals(static_cast<size_t>(out.t.numel()));
    for (size_t i = 0; i < vals.size(); ++i) vals[i] = r.start + static_cast<double>(i) * r.step;
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

// prims.iota(length, *, start, step, dtype, device, requires_grad)
Expected<Value> metaIota(const OpArgs& a) {
    const int64_t n = a.toInt(0);
    if (n < 0) return opError(a, "length must be non-negative, got " + std::to_string(n));
    auto dt = kwDType(a);
    if (!dt || !isIntegral(*dt)) return opError(a, "iota requires an integer dtype");
    return metaValue(TensorMeta::contiguous({n}, *dt, kwDevice(a)));
}

Expected<Value> iotaKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double start = a.toDouble(argIndex(a, "start")), step = a.toDouble(argIndex(a, "step"));
    std::vector<double> vals(static_cast<size_t>(out.t.numel()));
    for (size_t i = 0; i < vals.size(); ++i) vals[i] = start + static_cast<double>(i) * step;
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

// ----- linspace / logspace -------------------------------------------------------------------

/// start or end of linspace/logspace: a number, or a 0-dim tensor whose value is read (`.item()`).
Expected<double> spaceBound(const OpArgs& a, size_t i) {
    if (!a.isTensor(i)) return a.toDouble(i);
    const Tensor& t = a.tensor(i);
    const std::string& name = a.op().schema.args[i].name;
    if (t.dim() != 0)
        return opError(a, a.op().schema.name + " only supports 0-dimensional start and end tensors, but got " + name +
                              " with " + std::to_string(t.dim()) + " dimension(s).");
    if (!t.hasData()) return 0.0;  // shape inference: the value does not matter
    return toDoubles(t)[0];
}

Expected<Value> metaSpace(const OpArgs& a) {
    for (size_t i : {size_t(0), size_t(1)}) {
        auto b = spaceBound(a, i);
        if (!b.ok()) return b.error();
    }
    const int64_t steps = a.toInt(2);
    if (steps < 0) return opError(a, "number of steps must be non-negative");
    const DType dt = kwDType(a).value_or(DType::Float32);
    if (dt == DType::Bool) return opError(a, std::string(a.op().schema.name) + " is not implemented for 'Bool'");
    return metaValue(TensorMeta::contiguous({steps}, dt, kwDevice(a)));
}

/// PyTorch's CUDA kernels: the step is computed once in the output's precision (float for integer
/// outputs), the first half counts up from start and the second half down from end, so both
/// ends are exact. logspace raises base to those values.
Expected<Value> spaceKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double start = *spaceBound(a, 0), end = *spaceBound(a, 1);
    const int64_t steps = a.toInt(2);
    const bool log = a.op().schema.name == "logspace";
    const double base = log ? a.toDouble(3) : 0.0;
    const DType dt = out.t.dtype();
    const DType stepType = isIntegral(dt) ? DType::Float32 : dt;
    // Integer outputs convert the bounds to the integer type first.
    const double s = isIntegral(dt) ? std::trunc(start) : roundTo(start, dt);
    const double e = isIntegral(dt) ? std::trunc(end) : roundTo(end, dt);
    std::vector<double> vals(static_cast<size_t>(steps));
    if (steps == 1) vals[0] = s;
    if (steps > 1) {
        const double step = roundTo((e - s) / static_cast<double>(steps - 1), stepType);
        const int64_t halfway = steps / 2;
        for (int64_t i = 0; i < steps; ++i)
            vals[i] =
                roundTo(i < halfway ? s + step * static_cast<double>(i) : e - step * static_cast<double>(steps - i - 1),
                        stepType);
    }
    if (log)
        for (double& v : vals) v = std::pow(base, v);
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

// ----- eye ---------------------------------------------------------------------------------------

// eye(n) / eye.m(n, m): an n x m (n x n) matrix, ones on the diagonal (PointNet's T-Net adds it).
Expected<Value> metaEye(const OpArgs& a) {
    const int64_t n = a.toInt(0), m = a.op().schema.overload == "m" ? a.toInt(1) : n;
    if (n < 0) return opError(a, "n must be greater or equal to 0, got " + std::to_string(n));
    if (m < 0) return opError(a, "m must be greater or equal to 0, got " + std::to_string(m));
    return metaValue(TensorMeta::contiguous({n, m}, kwDType(a).value_or(DType::Float32), kwDevice(a)));
}

Expected<Value> eyeKernel(const OpArgs&, const Value& out, ExecContext&) {
    const int64_t n = out.t.shape()[0], m = out.t.shape()[1];
    std::vector<double> vals(static_cast<size_t>(n * m), 0.0);
    for (int64_t i = 0; i < std::min(n, m); ++i) vals[static_cast<size_t>(i * m + i)] = 1.0;
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

// ----- tril_indices / triu_indices --------------------------------------------------------------

// tril_indices / triu_indices(row, col, offset=0, *, dtype=long, ...): [2, N], the row and column
// of every element of the lower (upper) triangle of a row x col matrix whose diagonal is moved by
// offset, in row-major order (DLRM's feature interaction gathers with them).
Expected<Value> metaTriIndices(const OpArgs& a) {
    const int64_t row = a.toInt(0), col = a.toInt(1), off = a.toInt(2);
    if (row < 0 || col < 0)
        return opError(a, "row and col must be non-negative, got " + std::to_string(row) + " and " +
                              std::to_string(col));
    const DType dt = kwDType(a).value_or(DType::Int64);
    if (dt != DType::Int64 && dt != DType::Int32) return opError(a, "dtype must be int64 or int32");
    const bool lower = a.op().schema.name.find("tril") != std::string::npos;
    int64_t n = 0;
    for (int64_t i = 0; i < row; ++i) n += triRowCount(i, col, off, lower);
    return metaValue(TensorMeta::contiguous({2, n}, dt, kwDevice(a)));
}

Expected<Value> triIndicesKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const int64_t row = a.toInt(0), col = a.toInt(1), off = a.toInt(2);
    const bool lower = a.op().schema.name.find("tril") != std::string::npos;
    const int64_t n = out.t.shape()[1];
    std::vector<double> vals(static_cast<size_t>(2 * n));
    size_t k = 0;
    for (int64_t i = 0; i < row; ++i) {
        const int64_t cnt = triRowCount(i, col, off, lower), first = lower ? 0 : col - cnt;
        for (int64_t j = 0; j < cnt; ++j, ++k) {
            vals[k] = static_cast<double>(i);
            vals[k + static_cast<size_t>(n)] = static_cast<double>(first + j);
        }
    }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

}  // namespace

int64_t triRowCount(int64_t i, int64_t col, int64_t offset, bool lower) {
    const int64_t c = lower ? i + offset + 1 : col - std::max<int64_t>(i + offset, 0);
    return std::clamp<int64_t>(c, 0, col);
}

void registerCreationOps(OpRegistry& r) {
    using C = OpCategory;
    const char* opts = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None";
    auto add = [&](const char* name, const std::string& schema, MetaFn meta, KernelFn kernel) {
        r.add(name, schema, C::Creation, meta, kernel);
    };
    const std::string o(opts);
    add("aten.arange.default", "arange(Scalar end, *, " + o + ") -> Tensor", metaArange, arangeKernel);
    add("aten.arange.start", "arange.start(Scalar start, Scalar end, *, " + o + ") -> Tensor", metaArange,
        arangeKernel);
    add("aten.arange.start_step", "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, " + o + ") -> Tensor",
        metaArange, arangeKernel);
    add("prims.iota.default",
        "iota(SymInt length, *, SymInt start, SymInt step, ScalarType dtype, Device device, bool requires_grad) -> "
        "Tensor",
        metaIota, iotaKernel);
    add("aten.eye.default", "eye(SymInt n, *, " + o + ") -> Tensor", metaEye, eyeKernel);
    add("aten.eye.m", "eye.m(SymInt n, SymInt m, *, " + o + ") -> Tensor", metaEye, eyeKernel);
    add("aten.scalar_tensor.default", "scalar_tensor(Scalar s, *, " + o + ") -> Tensor", metaScalarTensor,
        scalarTensorKernel);
    add("aten.empty.memory_format",
        "empty.memory_format(SymInt[] size, *, " + o + ", MemoryFormat? memory_format=None) -> Tensor", metaSized,
        fillKernel);
    add("aten.empty_strided.default", "empty_strided(SymInt[] size, SymInt[] stride, *, " + o + ") -> Tensor",
        metaEmptyStrided, fillKernel);
    add("aten.full.default", "full(SymInt[] size, Scalar fill_value, *, " + o + ") -> Tensor", metaSized, fillKernel);
    add("aten.zeros.default", "zeros(SymInt[] size, *, " + o + ") -> Tensor", metaSized, fillKernel);
    add("aten.ones.default", "ones(SymInt[] size, *, " + o + ") -> Tensor", metaSized, fillKernel);
    add("aten.new_zeros.default", "new_zeros(Tensor self, SymInt[] size, *, " + o + ") -> Tensor", metaNewSized,
        fillKernel);
    add("aten.new_ones.default", "new_ones(Tensor self, SymInt[] size, *, " + o + ") -> Tensor", metaNewSized,
        fillKernel);
    add("aten.new_empty.default", "new_empty(Tensor self, SymInt[] size, *, " + o + ") -> Tensor", metaNewSized,
        fillKernel);
    add("aten.new_full.default", "new_full(Tensor self, SymInt[] size, Scalar fill_value, *, " + o + ") -> Tensor",
        metaNewSized, fillKernel);
    add("aten.new_empty_strided.default",
        "new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, *, " + o + ") -> Tensor", metaNewEmptyStrided,
        fillKernel);
    add("aten._efficientzerotensor.default", "_efficientzerotensor(SymInt[] size, *, " + o + ") -> Tensor", metaSized,
        fillKernel);
    add("aten.tril_indices.default",
        "tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None) -> Tensor",
        metaTriIndices, triIndicesKernel);
    add("aten.triu_indices.default",
        "triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool? pin_memory=None) -> Tensor",
        metaTriIndices, triIndicesKernel);
    for (const char* fn : {"linspace", "logspace"}) {
        const std::string f(fn), base = f == "logspace" ? ", float base=10.0" : "";
        const std::string tail = ", int steps" + base + ", *, " + o + ") -> Tensor";
        add(("aten." + f + ".default").c_str(), f + "(Scalar start, Scalar end" + tail, metaSpace, spaceKernel);
        add(("aten." + f + ".Tensor_Tensor").c_str(), f + ".Tensor_Tensor(Tensor start, Tensor end" + tail, metaSpace,
            spaceKernel);
        add(("aten." + f + ".Tensor_Scalar").c_str(), f + ".Tensor_Scalar(Tensor start, Scalar end" + tail, metaSpace,
            spaceKernel);
        add(("aten." + f + ".Scalar_Tensor").c_str(), f + ".Scalar_Tensor(Scalar start, Tensor end" + tail, metaSpace,
            spaceKernel);
    }
}

}  // namespace fxray
