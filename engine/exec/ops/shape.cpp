// Copies and shape-building ops: cat, stack, clone, contiguous, dtype/device conversions,
// repeat, padding. Output layouts follow ATen: memory formats suggested by the inputs' strides,
// and "preserve" keeping a dense input's strides.
#include "exec/interpreter.h"
#include "exec/ops/register.h"
#include "exec/ops/shape_util.h"

#include <algorithm>
#include <string>

namespace fxray {
using namespace kern;

namespace {

std::vector<int64_t> stridesOf(const TensorMeta& m) {
    if (m.strides.size() == m.shape.size()) return m.strides;
    return TensorMeta::contiguousStrides(m.shape);
}

/// A fresh (offset 0) tensor description.
TensorMeta freshMeta(std::vector<int64_t> shape, std::vector<int64_t> strides, DType dt, Device dev) {
    TensorMeta m;
    m.shape = std::move(shape);
    m.strides = std::move(strides);
    m.dtype = dt;
    m.device = std::move(dev);
    return m;
}

// ----- memory formats ------------------------------------------------------------------------

/// c10::is_channels_last_strides_2d_s4 / _3d_s5: strides ordered C, W, H, (D,) N.
bool isChannelsLastStrides(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
    std::vector<size_t> order;
    if (shape.size() == 4)
        order = {1, 3, 2, 0};
    else if (shape.size() == 5)
        order = {1, 4, 3, 2, 0};
    else
        return false;
    if (strides[1] == 0) return false;
    int64_t min = 0;
    for (size_t d : order) {
        if (shape[d] == 0) return false;
        if (strides[d] < min) return false;
        // N111-like ambiguous layouts count as contiguous.
        if (d == 0 && min == strides[1]) return false;
        min = strides[d];
        if (shape[d] > 1) min *= shape[d];
    }
    return true;
}

/// Tensor::suggest_memory_format.
MemoryFormat suggestMemoryFormat(const TensorMeta& m) {
    if (isChannelsLastStrides(m.shape, m.strides))
        return m.dim() == 4 ? MemoryFormat::ChannelsLast : MemoryFormat::ChannelsLast3d;
    return MemoryFormat::Contiguous;
}

std::vector<int64_t> channelsLastStrides(const std::vector<int64_t>& shape) {
    // Dims in order from innermost: C, W, H, (D,) N.
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

/// Strides for an explicit memory format; fails for channels_last of the wrong rank.
Expected<std::vector<int64_t>> formatStrides(const OpArgs& a, const std::vector<int64_t>& shape, MemoryFormat f) {
    if (f == MemoryFormat::ChannelsLast || f == MemoryFormat::ChannelsLast3d) {
        size_t want = f == MemoryFormat::ChannelsLast ? 4 : 5;
        if (shape.size() != want)
            return opError(a, std::string(memoryFormatTorchName(f)) + " requires a " + std::to_string(want) +
                                  "-d tensor, got " + std::to_string(shape.size()) + " dims");
        return channelsLastStrides(shape);
    }
    return TensorMeta::contiguousStrides(shape);
}

/// Strides of empty_like(in, memory_format): preserve keeps a dense layout, else orders dims as
/// the input's strides do.
Expected<std::vector<int64_t>> likeStrides(const OpArgs& a, const TensorMeta& in, std::optional<MemoryFormat> f) {
    if (!f || *f == MemoryFormat::Preserve) {
        if (isNonOverlappingAndDense(in.shape, in.strides)) return in.strides;
        return stridesLike(in.shape, in);
    }
    return formatStrides(a, in.shape, *f);
}

std::optional<MemoryFormat> optFormat(const OpArgs& a, size_t i) {
    if (i < a.size() && a[i].kind == Value::Kind::MemoryFormat) return a[i].memoryFormat;
    return std::nullopt;
}

bool isContiguousAs(const TensorMeta& m, MemoryFormat f) {
    if (m.numel() == 0) return true;
    std::vector<int64_t> want = (f == MemoryFormat::ChannelsLast || f == MemoryFormat::ChannelsLast3d)
                                    ? channelsLastStrides(m.shape)
                                    : TensorMeta::contiguousStrides(m.shape);
    for (size_t d = 0; d < m.shape.size(); ++d)
        if (m.shape[d] != 1 && m.strides[d] != want[d]) return false;
    return true;
}

// ----- copies --------------------------------------------------------------------------------

/// Copies arg 0 into the layout of `out`, rounding once to its dtype. In ref64 mode a
/// float-to-float conversion keeps double precision (the reference must not round).
Expected<Value> copyKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    const Tensor& in = a.tensor(0);
    TensorMeta m = out.t.meta;
    if (ctx.fp64 && isFloating(m.dtype) && isFloating(in.dtype())) m.dtype = DType::Float64;
    return Value::ofTensor(makeTensor(m, toDoubles(in)));
}

Expected<Value> metaClone(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto st = likeStrides(a, *in, optFormat(a, 1));
    if (!st.ok()) return st.error();
    return metaValue(freshMeta(in->shape, *st, in->dtype, in->device));
}

/// contiguous(): the input itself when already laid out as asked, else a copy.
Expected<Value> metaContiguous(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    MemoryFormat f = optFormat(a, 1).value_or(MemoryFormat::Contiguous);
    if (f == MemoryFormat::Preserve)
        return opError(a, "preserve memory format is unsupported by the contiguous operator");
    if (isContiguousAs(*in, f)) return metaValue(*in);
    auto st = formatStrides(a, in->shape, f);
    if (!st.ok()) return st.error();
    return metaValue(freshMeta(in->shape, *st, in->dtype, in->device));
}

/// Options of a conversion (`to`, `_to_copy`): the target dtype/device/format.
struct ToTarget {
    DType dtype;
    Device device;
    std::optional<MemoryFormat> format;
    bool copy = false;
};

bool sameDevice(const Device& x, const Device& y) {
    return x.type == y.type && (x.index == y.index || x.index < 0 || y.index < 0);
}

/// _to_copy's output: the target dtype and device, layout from the memory format (preserve
/// by default).
Expected<Value> toCopyMeta(const OpArgs& a, const TensorMeta& in, const ToTarget& t) {
    auto st = likeStrides(a, in, t.format);
    if (!st.ok()) return st.error();
    return metaValue(freshMeta(in.shape, *st, t.dtype, t.device));
}

/// at::native::to_will_alias: `to` returns self when nothing would change.
bool toWillAlias(const TensorMeta& in, const ToTarget& t) {
    return t.dtype == in.dtype && sameDevice(t.device, in.device) && !t.copy &&
           (!t.format || *t.format == MemoryFormat::Preserve || suggestMemoryFormat(in) == *t.format);
}

Device optDevice(const OpArgs& a, size_t i, const Device& dflt) {
    return a[i].kind == Value::Kind::Device ? a[i].device : dflt;
}

/// The conversion asked for by each `to` overload (and type_as, which is to(other.options())).
ToTarget toTarget(const OpArgs& a) {
    const TensorMeta& in = a.tensor(0).meta;
    const Schema& sc = a.op().schema;
    ToTarget t{in.dtype, in.device, std::nullopt, false};
    if (sc.name == "type_as") {
        t.dtype = a.tensor(1).dtype();
        t.device = a.tensor(1).meta.device;
    } else if (sc.overload == "other") {
        t = {a.tensor(1).dtype(), a.tensor(1).meta.device, optFormat(a, 4), a.toBool(3)};
    } else if (sc.overload == "dtype") {
        t = {*a.toOptDType(1), in.device, optFormat(a, 4), a.toBool(3)};
    } else if (sc.overload == "device") {
        t = {*a.toOptDType(2), optDevice(a, 1, in.device), optFormat(a, 5), a.toBool(4)};
    } else {  // dtype_layout
        t = {a.toOptDType(1).value_or(in.dtype), optDevice(a, 3, in.device), optFormat(a, 7), a.toBool(6)};
    }
    // "cuda" means the input's cuda device.
    if (t.device.type == in.device.type && t.device.index < 0) t.device = in.device;
    return t;
}

/// aten::to: self when nothing changes, else _to_copy.
Expected<Value> metaTo(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    const ToTarget t = toTarget(a);
    if (toWillAlias(*in, t)) return metaValue(*in);
    return toCopyMeta(a, *in, t);
}

Expected<Value> metaToCopy(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    ToTarget t{a.toOptDType(1).value_or(in->dtype), optDevice(a, 3, in->device), optFormat(a, 6)};
    if (t.device.type == in->device.type && t.device.index < 0) t.device = in->device;
    return toCopyMeta(a, *in, t);
}

Expected<Value> toKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    TensorMeta in = a.tensor(0).meta;
    in.strides = stridesOf(in);
    if (toWillAlias(in, toTarget(a))) return Value::ofTensor(a.tensor(0));
    return copyKernel(a, out, ctx);
}

/// contiguous(): the input when already contiguous (as the meta function decided).
Expected<Value> contiguousKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    const Tensor& in = a.tensor(0);
    MemoryFormat f = optFormat(a, 1).value_or(MemoryFormat::Contiguous);
    TensorMeta m = in.meta;
    m.strides = stridesOf(m);
    if (isContiguousAs(m, f)) return Value::ofTensor(in);
    return copyKernel(a, out, ctx);
}

// ----- cat / stack ---------------------------------------------------------------------------

/// Legacy behaviour: 1-D empty tensors are ignored by cat whatever the other shapes.
bool catSkips(const TensorMeta& m) { return m.dim() == 1 && m.shape[0] == 0; }

Expected<Value> catMetaOf(const OpArgs& a, const std::vector<TensorMeta>& ts, int64_t dimArg) {
    if (ts.empty()) return opError(a, "expected a non-empty list of Tensors");
    DType dt = ts[0].dtype;
    for (const auto& t : ts) {
        if (t.isSymbolic()) return opError(a, "symbolic shapes are not supported");
        dt = promoteTypes(dt, t.dtype);
    }
    const TensorMeta* ref = nullptr;
    for (const auto& t : ts)
        if (!catSkips(t)) {
            ref = &t;
            break;
        }
    if (!ref) return metaValue(TensorMeta::contiguous({0}, dt, ts[0].device));
    if (ref->dim() == 0) return opError(a, "zero-dimensional tensor cannot be concatenated");
    auto d = wrapDim(dimArg, ref->dim());
    if (!d)
        return opError(a, "dimension out of range (got " + std::to_string(dimArg) + " for " +
                              std::to_string(ref->dim()) + "-d tensors)");
    std::vector<int64_t> shape = ref->shape;
    shape[*d] = 0;
    std::optional<MemoryFormat> fmt;
    bool allSame = true;
    for (size_t i = 0; i < ts.size(); ++i) {
        const TensorMeta& t = ts[i];
        if (catSkips(t)) continue;
        if (t.dim() != ref->dim())
            return opError(a, "tensors must have same number of dimensions: got " + std::to_string(ref->dim()) +
                                  " and " + std::to_string(t.dim()));
        for (int64_t k = 0; k < t.dim(); ++k)
            if (k != *d && t.shape[k] != ref->shape[k])
                return opError(a, "sizes of tensors must match except in dimension " + std::to_string(*d) +
                                      ". Expected size " + std::to_string(ref->shape[k]) + " but got size " +
                                      std::to_string(t.shape[k]) + " for tensor number " + std::to_string(i) +
                                      " in the list");
        shape[*d] += t.shape[*d];
        TensorMeta tm = t;
        tm.strides = stridesOf(t);
        MemoryFormat f = suggestMemoryFormat(tm);
        if (!fmt)
            fmt = f;
        else if (*fmt != f)
            allSame = false;
    }
    MemoryFormat f = allSame && fmt ? *fmt : MemoryFormat::Contiguous;
    auto st = formatStrides(a, shape, f);
    if (!st.ok()) return st.error();
    return metaValue(freshMeta(shape, *st, dt, ref->device));
}

Expected<Value> metaCat(const OpArgs& a) {
    std::vector<TensorMeta> ts;
    for (const auto& t : a.tensorList(0)) ts.push_back(t.meta);
    return catMetaOf(a, ts, a.toInt(1));
}

/// Writes the concatenation of `parts` along dim into a tensor shaped like out.
Expected<Value> catInto(const TensorMeta& outMeta, const std::vector<Tensor>& parts, int64_t dim) {
    const auto& shape = outMeta.shape;
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < dim; ++k) outer *= shape[k];
    for (size_t k = dim + 1; k < shape.size(); ++k) inner *= shape[k];
    std::vector<double> vals(static_cast<size_t>(outMeta.numel()));
    std::vector<std::vector<double>> src;
    std::vector<int64_t> rows;
    for (const auto& p : parts) {
        if (catSkips(p.meta)) continue;
        src.push_back(toDoubles(p));
        rows.push_back(p.shape()[dim] * inner);
    }
    size_t k = 0;
    for (int64_t o = 0; o < outer; ++o)
        for (size_t i = 0; i < src.size(); ++i) {
            const double* s = src[i].data() + o * rows[i];
            std::copy(s, s + rows[i], vals.begin() + k);
            k += static_cast<size_t>(rows[i]);
        }
    return Value::ofTensor(makeTensor(outMeta, vals));
}

Expected<Value> catKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto parts = a.tensorList(0);
    if (out.t.dim() == 1 && out.t.shape()[0] == 0) return Value::ofTensor(Tensor::emptyLike(out.t.meta));
    int64_t d = *wrapDim(a.toInt(1), out.t.dim());
    return catInto(out.t.meta, parts, d);
}

/// stack = cat of the inputs unsqueezed at dim.
Expected<std::vector<TensorMeta>> stackParts(const OpArgs& a, int64_t& dim) {
    auto ts = a.tensorList(0);
    if (ts.empty()) return opError(a, "stack expects a non-empty TensorList");
    auto d = wrapDim(dim, ts[0].dim() + 1);
    if (!d) return opError(a, "dimension out of range (got " + std::to_string(dim) + ")");
    dim = *d;
    std::vector<TensorMeta> parts;
    for (size_t i = 0; i < ts.size(); ++i) {
        if (ts[i].shape() != ts[0].shape())
            return opError(a, "stack expects each tensor to be equal size, but got " + shapeStr(ts[0].shape()) +
                                  " at entry 0 and " + shapeStr(ts[i].shape()) + " at entry " + std::to_string(i));
        TensorMeta m = ts[i].meta;
        m.strides = stridesOf(m);
        int64_t st = dim >= m.dim() ? 1 : m.shape[dim] * m.strides[dim];
        m.shape.insert(m.shape.begin() + dim, 1);
        m.strides.insert(m.strides.begin() + dim, st);
        parts.push_back(std::move(m));
    }
    return parts;
}

/// As PyTorch's stack decomposition: cat then view when the new dim is not the last one (so a
/// channels-last input keeps its layout), else cat of the unsqueezed inputs.
Expected<Value> metaStack(const OpArgs& a) {
    int64_t dim = a.toInt(1);
    auto parts = stackParts(a, dim);
    if (!parts.ok()) return parts.error();
    const auto ts = a.tensorList(0);
    if (dim >= ts[0].dim()) return catMetaOf(a, *parts, dim);
    std::vector<TensorMeta> metas;
    for (const auto& t : ts) metas.push_back(t.meta);
    auto cat = catMetaOf(a, metas, dim);
    if (!cat.ok()) return cat;
    std::vector<Value> sizes;
    for (int64_t x : (*parts)[0].shape) sizes.push_back(Value::ofInt(x));
    sizes[static_cast<size_t>(dim)] = Value::ofInt(static_cast<int64_t>(ts.size()));
    auto v = invokeOp("aten.view.default", {*cat, Value::ofList(std::move(sizes))});
    if (!v.ok()) return opError(a, v.error().message);
    TensorMeta m = v->t.meta;
    m.offset = 0;
    return metaValue(std::move(m));
}

Expected<Value> stackKernel(const OpArgs& a, const Value& out, ExecContext&) {
    int64_t dim = a.toInt(1);
    auto metas = stackParts(a, dim);
    if (!metas.ok()) return metas.error();
    auto ts = a.tensorList(0);
    std::vector<Tensor> parts;
    for (size_t i = 0; i < ts.size(); ++i) parts.push_back(ts[i].view((*metas)[i]));
    return catInto(out.t.meta, parts, dim);
}

// ----- repeat / pad --------------------------------------------------------------------------

Expected<Value> metaRepeat(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto reps = a.toIntList(1);
    if (static_cast<int64_t>(reps.size()) < in->dim())
        return opError(a, "number of dimensions of repeat dims (" + std::to_string(reps.size()) +
                              ") can not be smaller than number of dimensions of tensor (" + std::to_string(in->dim()) +
                              ")");
    std::vector<int64_t> shape(reps.size());
    const size_t lead = reps.size() - in->shape.size();
    for (size_t i = 0; i < reps.size(); ++i) {
        if (reps[i] < 0) return opError(a, "repeats can not be negative, got " + shapeStr(reps));
        shape[i] = reps[i] * (i < lead ? 1 : in->shape[i - lead]);
    }
    return metaValue(freshMeta(shape, TensorMeta::contiguousStrides(shape), in->dtype, in->device));
}

Expected<Value> repeatKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    const auto& oshape = out.t.shape();
    const size_t nd = oshape.size(), lead = nd - in.shape().size();
    std::vector<int64_t> ishape(nd, 1);
    for (size_t i = lead; i < nd; ++i) ishape[i] = in.shape()[i - lead];
    auto src = toDoubles(in);
    auto istr = rowMajorStrides(ishape);
    std::vector<double> vals(static_cast<size_t>(out.t.numel()));
    std::vector<int64_t> idx(nd, 0);
    for (size_t e = 0; e < vals.size(); ++e) {
        int64_t off = 0;
        for (size_t d = 0; d < nd; ++d) off += (idx[d] % ishape[d]) * istr[d];
        vals[e] = src[static_cast<size_t>(off)];
        for (size_t d = nd; d-- > 0;) {
            if (++idx[d] < oshape[d]) break;
            idx[d] = 0;
        }
    }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

/// Shape of constant_pad_nd's output; pads come in (left, right) pairs from the last dim.
Expected<Value> padMeta(const OpArgs& a, const std::vector<int64_t>& pad) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    if (pad.size() % 2 != 0)
        return opError(a, "length of pad must be even but instead it equals " + std::to_string(pad.size()));
    if (static_cast<int64_t>(pad.size() / 2) > in->dim())
        return opError(
            a, "length of pad should be no more than twice the number of dimensions of the input. Pad length is " +
                   std::to_string(pad.size()) + " while the input has " + std::to_string(in->dim()) + " dimensions.");
    std::vector<int64_t> shape = in->shape;
    TensorMeta narrowed = *in;  // the input cropped by the negative pads
    bool allNonPositive = true;
    for (size_t k = 0; k < pad.size() / 2; ++k) {
        const size_t d = shape.size() - 1 - k;
        const int64_t l = pad[2 * k], r = pad[2 * k + 1];
        const int64_t ns = shape[d] + l + r;
        if (ns < 0)
            return opError(a, "the input size " + std::to_string(shape[d]) + ", plus negative padding " +
                                  std::to_string(l) + " and " + std::to_string(r) +
                                  " resulted in a negative output size");
        if (l > 0 || r > 0) allNonPositive = false;
        narrowed.shape[d] = ns;
        shape[d] = ns;
    }
    // All pads non-positive: ATen narrows and clones, so the result keeps the input's dim order.
    std::vector<int64_t> st = allNonPositive ? (isNonOverlappingAndDense(narrowed.shape, narrowed.strides)
                                                    ? narrowed.strides
                                                    : stridesLike(narrowed.shape, narrowed))
                                             : *formatStrides(a, shape, suggestMemoryFormat(*in));
    return metaValue(freshMeta(shape, st, in->dtype, in->device));
}

Expected<Value> metaConstantPad(const OpArgs& a) { return padMeta(a, a.toIntList(1)); }

Expected<Value> metaPad(const OpArgs& a) {
    if (a[2].s != "constant") return opError(a, "padding mode '" + a[2].s + "' is not supported (only 'constant')");
    return padMeta(a, a.toIntList(1));
}

Expected<Value> padKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    auto pad = a.toIntList(1);
    const size_t vi = static_cast<size_t>(a.op().schema.indexOf("value"));
    const double fill = a.isNone(vi) ? 0.0 : a.toDouble(vi);
    const auto& oshape = out.t.shape();
    const size_t nd = oshape.size();
    std::vector<int64_t> before(nd, 0);
    for (size_t k = 0; k < pad.size() / 2; ++k) before[nd - 1 - k] = pad[2 * k];
    auto src = toDoubles(in);
    auto istr = rowMajorStrides(in.shape());
    std::vector<double> vals(static_cast<size_t>(out.t.numel()), fill);
    std::vector<int64_t> idx(nd, 0);
    for (size_t e = 0; e < vals.size(); ++e) {
        int64_t off = 0;
        bool inside = true;
        for (size_t d = 0; d < nd && inside; ++d) {
            int64_t i = idx[d] - before[d];
            if (i < 0 || i >= in.shape()[d])
                inside = false;
            else
                off += i * istr[d];
        }
        if (inside) vals[e] = src[static_cast<size_t>(off)];
        for (size_t d = nd; d-- > 0;) {
            if (++idx[d] < oshape[d]) break;
            idx[d] = 0;
        }
    }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> metaForceStrideOrder(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto st = a.toIntList(1);
    if (static_cast<int64_t>(st.size()) != in->dim())
        return opError(a, "expected " + std::to_string(in->dim()) + " strides, got " + shapeStr(st));
    return metaValue(freshMeta(in->shape, st, in->dtype, in->device));
}

}  // namespace

void registerShapeOps(OpRegistry& r) {
    r.add("aten.cat.default", "cat(Tensor[] tensors, int dim=0) -> Tensor", OpCategory::Other, metaCat, catKernel);
    r.add("aten.stack.default", "stack(Tensor[] tensors, int dim=0) -> Tensor", OpCategory::Other, metaStack,
          stackKernel);
    r.add("aten.clone.default", "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
          OpCategory::Pointwise, metaClone, copyKernel);
    r.add("aten.contiguous.default",
          "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)", OpCategory::Other,
          metaContiguous, contiguousKernel)
        .aliasesInput = true;
    r.add("aten._to_copy.default",
          "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
          "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
          OpCategory::Pointwise, metaToCopy, copyKernel);
    r.add("aten.to.dtype",
          "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
          "MemoryFormat? memory_format=None) -> Tensor(a)",
          OpCategory::Pointwise, metaTo, toKernel);
    r.add("aten.to.dtype_layout",
          "to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
          "bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> "
          "Tensor(a)",
          OpCategory::Pointwise, metaTo, toKernel);
    r.add("aten.to.device",
          "to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, "
          "MemoryFormat? memory_format=None) -> Tensor(a)",
          OpCategory::Pointwise, metaTo, toKernel);
    r.add("aten.to.other",
          "to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, "
          "MemoryFormat? memory_format=None) -> Tensor(a)",
          OpCategory::Pointwise, metaTo, toKernel);
    r.add("aten.type_as.default", "type_as(Tensor self, Tensor other) -> Tensor", OpCategory::Pointwise, metaTo,
          toKernel);
    r.add("aten.repeat.default", "repeat(Tensor self, SymInt[] repeats) -> Tensor", OpCategory::Other, metaRepeat,
          repeatKernel);
    r.add("aten.constant_pad_nd.default", "constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor",
          OpCategory::Other, metaConstantPad, padKernel);
    r.add("aten.pad.default", "pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor",
          OpCategory::Other, metaPad, padKernel);
    r.add("prims.inductor_force_stride_order.default",
          "inductor_force_stride_order(Tensor input, SymInt[] stride) -> Tensor", OpCategory::Other,
          metaForceStrideOrder, copyKernel);
}

}  // namespace fxray
