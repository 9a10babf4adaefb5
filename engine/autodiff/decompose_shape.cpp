// Decompositions of shape and dtype composites: reshape (view or clone + _unsafe_view),
// contiguous, flatten, unflatten, narrow, chunk, pad, the `to` family (nothing, or _to_copy),
// where with a Python scalar (scalar_tensor + where.self), and ops the joint graph drops.
#include "autodiff/geometry.h"
#include "autodiff/tracer.h"

#include <algorithm>
#include <string>

namespace fxray {

namespace {

std::optional<Traced> single(Node* n) {
    if (!n) return std::nullopt;
    return Traced::of(n);
}

// reshape(self, shape).
std::optional<Traced> reshape(DecompCall& c) { return single(c.e.reshape(c.in(0), intsOf(c.arg(1)))); }

// contiguous(self, memory_format): the input when already contiguous, else a contiguous clone.
std::optional<Traced> contiguous(DecompCall& c) {
    Node* x = c.in(0);
    if (!x) return std::nullopt;
    if (isContiguousLayout(c.e.meta(x))) return Traced::of(x);
    return single(c.e.contiguousClone(x));
}

// flatten.using_ints(self, start_dim, end_dim): reshape to the collapsed shape.
std::optional<Traced> flatten(DecompCall& c) {
    Node* x = c.in(0);
    if (!x) return std::nullopt;
    const auto& sh = c.e.shape(x);
    const auto n = static_cast<int64_t>(sh.size());
    if (n == 0) return single(c.e.reshape(x, {1}));
    int64_t s = wrapDimIndex(c.arg(1).i, n), en = wrapDimIndex(c.arg(2).i, n);
    if (s < 0 || en >= n || s > en) {
        c.e.fail("flatten: start_dim must not come after end_dim", c.src.name());
        return std::nullopt;
    }
    if (s == en) return Traced::of(x);
    std::vector<int64_t> shape(sh.begin(), sh.begin() + s);
    int64_t p = 1;
    for (int64_t d = s; d <= en; ++d) p *= sh[static_cast<size_t>(d)];
    shape.push_back(p);
    shape.insert(shape.end(), sh.begin() + en + 1, sh.end());
    return single(c.e.reshape(x, shape));
}

// unflatten.int(self, dim, sizes): a view.
std::optional<Traced> unflatten(DecompCall& c) {
    Node* x = c.in(0);
    if (!x) return std::nullopt;
    const auto& sh = c.e.shape(x);
    int64_t d = wrapDimIndex(c.arg(1).i, static_cast<int64_t>(sh.size()));
    auto sizes = intsOf(c.arg(2));
    std::vector<int64_t> shape(sh.begin(), sh.begin() + d);
    shape.insert(shape.end(), sizes.begin(), sizes.end());
    shape.insert(shape.end(), sh.begin() + d + 1, sh.end());
    auto inferred = inferShape(shape, c.e.meta(x).numel());
    if (!inferred) {
        c.e.fail("unflatten sizes do not match the dimension", c.src.name());
        return std::nullopt;
    }
    return single(c.e.view(x, *inferred));
}

// narrow(self, dim, start, length): slice(self, dim, start, start + length).
std::optional<Traced> narrow(DecompCall& c) {
    int64_t start = c.arg(2).i, len = c.arg(3).i;
    Node* x = c.in(0);
    if (!x) return std::nullopt;
    if (start < 0) {
        int64_t d = wrapDimIndex(c.arg(1).i, c.e.meta(x).dim());
        start += c.e.shape(x)[static_cast<size_t>(d)];
    }
    return single(
        c.e.op("aten.slice.Tensor", {c.arg(0), c.arg(1), Argument::ofInt(start), Argument::ofInt(start + len)}));
}

// chunk(self, chunks, dim): split.Tensor(self, ceil(size / chunks), dim), as ATen's chunk.
std::optional<Traced> chunk(DecompCall& c) {
    Node* x = c.in(0);
    const int64_t chunks = c.arg(1).i;
    if (!x) return std::nullopt;
    if (chunks <= 0) {
        c.e.fail("chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks), c.src.name());
        return std::nullopt;
    }
    const int64_t d = wrapDimIndex(c.arg(2).i, c.e.meta(x).dim());
    const int64_t size = c.e.shape(x)[static_cast<size_t>(d)];
    const int64_t split = std::max<int64_t>((size + chunks - 1) / chunks, size == 0 ? 0 : 1);
    return c.t.emit("aten.split.Tensor", {c.arg(0), Argument::ofInt(split), Argument::ofInt(d)});
}

// pad(self, pad, mode='constant', value=None): constant_pad_nd.
std::optional<Traced> pad(DecompCall& c) {
    if (c.arg(2).kind == Argument::Kind::String && c.arg(2).s != "constant") {
        c.e.fail("autodiff supports only constant padding", c.src.name());
        return std::nullopt;
    }
    Argument value = c.arg(3).isNone() ? Argument::ofInt(0) : c.arg(3);
    return single(c.e.op("aten.constant_pad_nd.default", {c.arg(0), c.arg(1), value}));
}

/// `x.to(dtype)`: nothing when the dtype already matches (and no copy was asked), else _to_copy.
std::optional<Traced> toDType(DecompCall& c, const Argument& dtype, const Argument& copy) {
    Node* x = c.in(0);
    if (!x) return std::nullopt;
    const bool wantCopy = copy.kind == Argument::Kind::Bool && copy.b;
    if (dtype.kind != Argument::Kind::DType || dtype.dtype == c.e.dtype(x)) {
        if (!wantCopy) return Traced::of(x);
        return single(c.e.op("aten.clone.default", {nodeArg(x)}));
    }
    return single(c.e.op("aten._to_copy.default", {nodeArg(x)}, {{"dtype", dtype}}));
}
// to.dtype(self, dtype, non_blocking, copy, memory_format)
std::optional<Traced> toDtype(DecompCall& c) { return toDType(c, c.arg(1), c.arg(3)); }
// to.dtype_layout(self, *, dtype, layout, device, pin_memory, non_blocking, copy, memory_format)
std::optional<Traced> toDtypeLayout(DecompCall& c) { return toDType(c, c.arg(1), c.arg(6)); }
// to.device(self, device, dtype, non_blocking, copy, memory_format): fxray ignores devices.
std::optional<Traced> toDevice(DecompCall& c) { return toDType(c, c.arg(2), c.arg(4)); }
// to.other(self, other, non_blocking, copy, memory_format) / type_as(self, other).
std::optional<Traced> toOther(DecompCall& c) {
    Node* other = c.in(1);
    if (!other) return std::nullopt;
    Argument copy = c.args.size() > 3 ? c.arg(3) : Argument::ofBool(false);
    return toDType(c, Argument::ofDType(c.e.dtype(other)), copy);
}

/// The dtype of `where(cond, tensor, scalar)`: the tensor's, unless a float scalar meets an
/// integer tensor.
DType whereDType(GraphEmitter& e, Node* t, const Argument& scalar) {
    DType d = e.dtype(t);
    if (scalar.kind == Argument::Kind::Float && !isFloating(d) && !isComplex(d)) return DType::Float32;
    return d;
}

Node* scalarTensor(GraphEmitter& e, const Argument& value, DType dt, const Device& dev) {
    return e.op("aten.scalar_tensor.default", {value},
                {{"dtype", Argument::ofDType(dt)},
                 {"layout", Argument::ofLayout(Layout::Strided)},
                 {"device", Argument::ofDevice(dev)}});
}

// where.ScalarOther(condition, self, other): where.self(condition, self, scalar_tensor(other)).
std::optional<Traced> whereScalarOther(DecompCall& c) {
    Node* self = c.in(1);
    if (!self) return std::nullopt;
    DType dt = whereDType(c.e, self, c.arg(2));
    Node* st = scalarTensor(c.e, c.arg(2), dt, c.e.meta(self).device);
    return single(c.e.op("aten.where.self", {c.arg(0), c.arg(1), nodeArg(st)}));
}

// where.ScalarSelf(condition, self, other): where.self(condition, scalar_tensor(self), other).
std::optional<Traced> whereScalarSelf(DecompCall& c) {
    Node* other = c.in(2);
    if (!other) return std::nullopt;
    DType dt = whereDType(c.e, other, c.arg(1));
    Node* st = scalarTensor(c.e, c.arg(1), dt, c.e.meta(other).device);
    return single(c.e.op("aten.where.self", {c.arg(0), nodeArg(st), c.arg(2)}));
}

// _assert_tensor_metadata and friends: checks with no value; the joint graph has none.
std::optional<Traced> dropped(DecompCall&) { return Traced{}; }

}  // namespace

void addShapeDecompositions(std::vector<Decomposition>& out) {
    out.push_back({"aten.reshape.default", reshape});
    out.push_back({"aten.contiguous.default", contiguous});
    out.push_back({"aten.flatten.using_ints", flatten});
    out.push_back({"aten.unflatten.int", unflatten});
    out.push_back({"aten.narrow.default", narrow});
    out.push_back({"aten.chunk.default", chunk});
    out.push_back({"aten.pad.default", pad});
    out.push_back({"aten.to.dtype", toDtype});
    out.push_back({"aten.to.dtype_layout", toDtypeLayout});
    out.push_back({"aten.to.device", toDevice});
    out.push_back({"aten.to.other", toOther});
    out.push_back({"aten.type_as.default", toOther});
    out.push_back({"aten.where.ScalarOther", whereScalarOther});
    out.push_back({"aten.where.ScalarSelf", whereScalarSelf});
    out.push_back({"aten._assert_tensor_metadata.default", dropped});
}

}  // namespace fxray
