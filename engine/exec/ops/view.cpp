// View ops: outputs alias the input's storage; the meta function computes the view's shape,
// strides and offset exactly as ATen does, and the kernel only attaches the input's storage to
// that metadata. reshape-like ops (reshape, _unsafe_view, flatten) copy when no view exists.
#include "exec/ops/register.h"
#include "exec/ops/shape_util.h"

#include <algorithm>
#include <optional>
#include <string>

namespace fxray {
using namespace kern;

namespace {

/// Strides of m, contiguous ones when an annotation left them out.
std::vector<int64_t> stridesOf(const TensorMeta& m) {
    if (m.strides.size() == m.shape.size()) return m.strides;
    return TensorMeta::contiguousStrides(m.shape);
}

/// A view of `in` with new geometry.
TensorMeta viewMeta(const TensorMeta& in, std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offset) {
    TensorMeta m = in;
    m.shape = std::move(shape);
    m.strides = std::move(strides);
    m.offset = offset;
    m.clearSymbolic();
    m.stridesKnown = true;
    return m;
}

/// Resolves one -1 in `shape` against numel (at::infer_size).
Expected<std::vector<int64_t>> inferSize(const OpArgs& a, std::vector<int64_t> shape, int64_t numel) {
    int64_t known = 1;
    std::optional<size_t> infer;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == -1) {
            if (infer) return opError(a, "only one dimension can be inferred, got shape " + shapeStr(shape));
            infer = i;
        } else if (shape[i] < 0) {
            return opError(a, "invalid shape dimension " + std::to_string(shape[i]));
        } else {
            known *= shape[i];
        }
    }
    if (numel == known || (infer && known > 0 && numel % known == 0)) {
        if (infer) shape[*infer] = numel / known;
        return shape;
    }
    if (infer && known == 0)
        return opError(a, "cannot reshape a tensor of 0 elements into shape " + shapeStr(shape) +
                              " because the unspecified dimension size -1 can be any value");
    return opError(a, "shape '" + shapeStr(shape) + "' is invalid for input of size " + std::to_string(numel));
}

/// Strides that view (oldshape, oldstride) as newshape, or nullopt when a dimension of the new
/// shape would span two non-contiguous chunks (at::detail::computeStride).
std::optional<std::vector<int64_t>> computeStride(const std::vector<int64_t>& oldshape,
                                                  const std::vector<int64_t>& oldstride,
                                                  const std::vector<int64_t>& newshape) {
    if (oldshape.empty()) return std::vector<int64_t>(newshape.size(), 1);
    const int64_t numel = product(oldshape);
    if (numel == 0 && oldshape == newshape) return oldstride;
    std::vector<int64_t> newstride(newshape.size());
    if (numel == 0) {
        // Empty tensors take the strides a resize would give.
        for (int64_t d = static_cast<int64_t>(newshape.size()) - 1; d >= 0; --d)
            newstride[d] = d == static_cast<int64_t>(newshape.size()) - 1
                               ? 1
                               : std::max<int64_t>(newshape[d + 1], 1) * newstride[d + 1];
        return newstride;
    }
    // Walk both shapes from the innermost dimension, matching chunks of the old layout (runs of
    // dims that are contiguous with each other) with groups of new dims of the same numel.
    int64_t viewD = static_cast<int64_t>(newshape.size()) - 1;
    int64_t chunkBase = oldstride.back();
    int64_t tensorNumel = 1, viewNumel = 1;
    for (int64_t td = static_cast<int64_t>(oldshape.size()) - 1; td >= 0; --td) {
        tensorNumel *= oldshape[td];
        bool chunkEnds = td == 0 || (oldshape[td - 1] != 1 && oldstride[td - 1] != tensorNumel * chunkBase);
        if (!chunkEnds) continue;
        while (viewD >= 0 && (viewNumel < tensorNumel || newshape[viewD] == 1)) {
            newstride[viewD] = viewNumel * chunkBase;
            viewNumel *= newshape[viewD];
            --viewD;
        }
        if (viewNumel != tensorNumel) return std::nullopt;
        if (td > 0) {
            chunkBase = oldstride[td - 1];
            tensorNumel = 1;
            viewNumel = 1;
        }
    }
    if (viewD != -1) return std::nullopt;
    return newstride;
}

/// The geometry of a view as PyTorch's Python reference computes it (_reshape_view_helper:
/// greedy left-to-right collapse/split of dims). AOT tracing runs view's meta through it, so the
/// annotated strides are these; they differ from computeStride's on size-1 dims. nullopt when a
/// collapse would need a copy.
std::optional<std::vector<int64_t>> viewStrides(const TensorMeta& in, const std::vector<int64_t>& shape) {
    if (in.numel() == 0) return TensorMeta::contiguousStrides(shape);
    if (in.dim() == 0) return std::vector<int64_t>(shape.size(), 1);
    if (shape.empty()) return std::vector<int64_t>{};
    if (in.isContiguous()) {
        if (shape.size() == 1 && in.dim() > 1) return std::vector<int64_t>{1};
        if (shape.size() == 2 && in.dim() == 1) return std::vector<int64_t>{shape[1], 1};
    }
    std::vector<int64_t> sh = in.shape, st = in.strides;
    // prims.split_dim: dim d of length L becomes (outer, L / outer).
    auto splitDim = [&](size_t d, int64_t outer) {
        const int64_t inner = sh[d] / outer, s = st[d];
        sh[d] = outer;
        st[d] = s * inner;
        sh.insert(sh.begin() + static_cast<std::ptrdiff_t>(d) + 1, inner);
        st.insert(st.begin() + static_cast<std::ptrdiff_t>(d) + 1, s);
    };
    size_t idx = 0;
    for (int64_t length : shape) {
        if (idx >= sh.size()) {  // trailing unsqueeze
            if (length != 1) return std::nullopt;
            splitDim(sh.size() - 1, sh.back());
            ++idx;
            continue;
        }
        if (length == sh[idx]) {
            ++idx;
            continue;
        }
        int64_t accum = sh[idx];
        size_t end = idx;
        while (accum % length != 0) {
            if (++end >= sh.size()) return std::nullopt;
            accum *= sh[end];
        }
        if (end != idx) {
            // prims.collapse_view of dims idx..end.
            for (size_t k = end; k-- > idx;)
                if (sh[k] != 1 && sh[k + 1] != 1 && st[k] != st[k + 1] * sh[k + 1]) return std::nullopt;
            int64_t stride = st[end], len = sh[end];
            for (size_t k = end; k-- > idx;) {
                if (sh[k] != 1) stride = std::min(stride, st[k]);
                len *= sh[k];
            }
            sh.erase(sh.begin() + static_cast<std::ptrdiff_t>(idx) + 1,
                     sh.begin() + static_cast<std::ptrdiff_t>(end) + 1);
            st.erase(st.begin() + static_cast<std::ptrdiff_t>(idx) + 1,
                     st.begin() + static_cast<std::ptrdiff_t>(end) + 1);
            sh[idx] = len;
            st[idx] = stride;
        }
        if (accum != length) splitDim(idx, length);
        ++idx;
    }
    while (idx < sh.size()) {  // trailing squeeze
        if (sh[idx] != 1) return std::nullopt;
        sh.erase(sh.begin() + static_cast<std::ptrdiff_t>(idx));
        st.erase(st.begin() + static_cast<std::ptrdiff_t>(idx));
    }
    return st;
}

/// Strides of reshape's view (ATen decides viewability with computeStride, the view's meta
/// then reports viewStrides), or nullopt when reshape copies.
std::optional<std::vector<int64_t>> reshapeStrides(const TensorMeta& in, const std::vector<int64_t>& shape) {
    auto cs = computeStride(in.shape, in.strides, shape);
    if (!cs) return std::nullopt;
    auto vs = viewStrides(in, shape);
    return vs ? vs : cs;
}

// ----- kernels -------------------------------------------------------------------------------

/// Kernel shared by every view op: same storage, metadata from the meta function.
Expected<Value> aliasKernel(const OpArgs& a, const Value& out, ExecContext&) {
    if (out.isList()) {
        std::vector<Tensor> views;
        for (const auto& v : out.list) views.push_back(a.tensor(0).view(v.t.meta));
        return Value::ofTensors(std::move(views), out.isTuple);
    }
    return Value::ofTensor(a.tensor(0).view(out.t.meta));
}

/// The view of `in` with geometry `m`. The Python view algorithm behind the annotations can
/// accept a collapse across a size-1 dim that eager's computeStride rejects or lays out
/// differently; the data then follows eager (computeStride) so values stay right.
Tensor dataView(const Tensor& in, TensorMeta m) {
    auto cs = computeStride(in.shape(), stridesOf(in.meta), m.shape);
    if (cs) {
        for (size_t d = 0; d < m.shape.size(); ++d)
            if (m.shape[d] != 1 && m.strides[d] != (*cs)[d]) {
                m.strides = *cs;
                break;
            }
    }
    return in.view(std::move(m));
}

Expected<Value> viewKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return Value::ofTensor(dataView(a.tensor(0), out.t.meta));
}

/// reshape-like ops: the meta function decided view or copy; a copy has offset 0 and
/// contiguous strides, so re-deciding here would be ambiguous. Recompute viewability instead.
Expected<Value> reshapeKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    TensorMeta im = in.meta;
    im.strides = stridesOf(im);
    if (reshapeStrides(im, out.t.shape()) && in.storage) return Value::ofTensor(dataView(in, out.t.meta));
    return Value::ofTensor(makeTensor(out.t.meta, toDoubles(in)));
}

// ----- reshape family ------------------------------------------------------------------------

/// View of `in` as `shape` (with -1 resolved); copy (contiguous) when allowCopy and no view exists.
Expected<Value> reshapeTo(const OpArgs& a, const TensorMeta& in, const std::vector<int64_t>& shapeArg, bool allowCopy) {
    auto shape = inferSize(a, shapeArg, in.numel());
    if (!shape.ok()) return shape.error();
    auto st = allowCopy ? reshapeStrides(in, *shape) : viewStrides(in, *shape);
    if (st) return metaValue(viewMeta(in, *shape, *st, in.offset));
    if (!allowCopy)
        return opError(a, "view size " + shapeStr(*shape) + " is not compatible with input tensor's size " +
                              shapeStr(in.shape) + " and stride " + shapeStr(in.strides) +
                              " (at least one dimension spans across two contiguous subspaces); "
                              "use reshape instead");
    return metaValue(viewMeta(in, *shape, TensorMeta::contiguousStrides(*shape), 0));
}

Expected<Value> metaView(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    return reshapeTo(a, *in, a.toIntList(1), false);
}

Expected<Value> metaReshape(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    return reshapeTo(a, *in, a.toIntList(1), true);
}

Expected<Value> metaFlatten(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    if (in->dim() == 0) return reshapeTo(a, *in, {1}, true);
    auto s = dimArg(a, a.toInt(1), in->dim());
    if (!s.ok()) return s.error();
    auto e = dimArg(a, a.toInt(2), in->dim());
    if (!e.ok()) return e.error();
    if (*s > *e) return opError(a, "flatten() has invalid args: start_dim cannot come after end_dim");
    if (*s == *e) return metaValue(*in);
    std::vector<int64_t> shape(in->shape.begin(), in->shape.begin() + *s);
    int64_t p = 1;
    for (int64_t d = *s; d <= *e; ++d) p *= in->shape[d];
    shape.push_back(p);
    shape.insert(shape.end(), in->shape.begin() + *e + 1, in->shape.end());
    return reshapeTo(a, *in, shape, true);
}

Expected<Value> metaUnflatten(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto d = dimArg(a, a.toInt(1), in->dim());
    if (!d.ok()) return d.error();
    if (in->dim() == 0) return opError(a, "cannot unflatten a 0-dim tensor");
    auto sizes = a.toIntList(2);
    if (sizes.empty()) return opError(a, "sizes must be non-empty");
    auto inner = inferSize(a, sizes, in->shape[*d]);
    if (!inner.ok())
        return opError(a, "provided sizes " + shapeStr(sizes) + " don't multiply up to the size of dim " +
                              std::to_string(*d) + " (" + std::to_string(in->shape[*d]) + ") in the input tensor");
    std::vector<int64_t> shape(in->shape.begin(), in->shape.begin() + *d);
    shape.insert(shape.end(), inner->begin(), inner->end());
    shape.insert(shape.end(), in->shape.begin() + *d + 1, in->shape.end());
    return reshapeTo(a, *in, shape, false);
}

// ----- permutations --------------------------------------------------------------------------

Expected<Value> metaT(const OpArgs& a) {
    const TensorMeta& in = a.tensor(0).meta;
    if (in.dim() > 2) return opError(a, "expects a tensor of at most 2 dimensions, got " + std::to_string(in.dim()));
    TensorMeta m = in;
    if (in.dim() == 2) {
        std::swap(m.shape[0], m.shape[1]);
        if (m.strides.size() == 2) std::swap(m.strides[0], m.strides[1]);
        if (m.symShape.size() == 2) std::swap(m.symShape[0], m.symShape[1]);
        if (m.symStrides.size() == 2) std::swap(m.symStrides[0], m.symStrides[1]);
    }
    return metaValue(std::move(m));
}

Expected<Value> metaTranspose(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto d0 = dimArg(a, a.toInt(1), in->dim());
    if (!d0.ok()) return d0.error();
    auto d1 = dimArg(a, a.toInt(2), in->dim());
    if (!d1.ok()) return d1.error();
    TensorMeta m = *in;
    if (m.dim() > 0) {
        std::swap(m.shape[*d0], m.shape[*d1]);
        std::swap(m.strides[*d0], m.strides[*d1]);
    }
    return metaValue(std::move(m));
}

Expected<Value> metaPermute(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto dims = a.toIntList(1);
    if (static_cast<int64_t>(dims.size()) != in->dim())
        return opError(a, "number of dims don't match in permute: input has " + std::to_string(in->dim()) +
                              " dims but " + std::to_string(dims.size()) + " were given");
    std::vector<bool> seen(dims.size(), false);
    std::vector<int64_t> shape(dims.size()), strides(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
        auto d = dimArg(a, dims[i], in->dim());
        if (!d.ok()) return d.error();
        if (seen[*d]) return opError(a, "repeated dim " + std::to_string(dims[i]) + " in permute " + shapeStr(dims));
        seen[*d] = true;
        shape[i] = in->shape[*d];
        strides[i] = in->strides[*d];
    }
    return metaValue(viewMeta(*in, shape, strides, in->offset));
}

// ----- broadcasting and size-1 dims ----------------------------------------------------------

/// expand as torch._refs.expand / prims.broadcast_in_dim compute it (the meta AOT tracing uses):
/// expanded dims get stride 0, new leading dims of size 1 the stride a contiguous outer dim would
/// have.
Expected<Value> metaExpand(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto sizes = a.toIntList(1);
    const int64_t nd = static_cast<int64_t>(sizes.size()), td = in->dim();
    if (nd < td)
        return opError(a, "the number of sizes provided (" + std::to_string(nd) +
                              ") must be greater or equal to the number of dimensions in the tensor (" +
                              std::to_string(td) + ")");
    const int64_t lead = nd - td;
    std::vector<int64_t> shape(nd), strides(nd);
    for (int64_t i = 0; i < nd; ++i) {
        if (i < lead) {
            if (sizes[i] < 0)
                return opError(a, "the expanded size of the tensor (" + std::to_string(sizes[i]) +
                                      ") isn't allowed in a leading, non-existing dimension " + std::to_string(i));
            shape[i] = sizes[i];
            strides[i] = sizes[i] != 1 ? 0 : td == 0 ? 1 : in->strides[0] * in->shape[0];
            continue;
        }
        const int64_t d = i - lead, x = in->shape[d], want = sizes[i];
        if (want != x && x != 1 && want != -1)
            return opError(a, "the expanded size of the tensor (" + std::to_string(want) +
                                  ") must match the existing size (" + std::to_string(x) +
                                  ") at non-singleton dimension " + std::to_string(i) +
                                  ".  Target sizes: " + shapeStr(sizes) + ".  Tensor sizes: " + shapeStr(in->shape));
        if (want < -1) return opError(a, "invalid expanded size " + std::to_string(want));
        shape[i] = want == -1 ? x : want;
        strides[i] = shape[i] != x ? 0 : in->strides[d];
    }
    return metaValue(viewMeta(*in, shape, strides, in->offset));
}

Expected<Value> metaUnsqueeze(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto d = dimArg(a, a.toInt(1), in->dim() + 1);
    if (!d.ok()) return d.error();
    TensorMeta m = *in;
    int64_t st = *d >= in->dim() ? 1 : in->shape[*d] * in->strides[*d];
    m.shape.insert(m.shape.begin() + *d, 1);
    m.strides.insert(m.strides.begin() + *d, st);
    return metaValue(std::move(m));
}

/// Drops the dims in `which` whose size is 1.
Value squeezeDims(const TensorMeta& in, const std::vector<bool>& which) {
    TensorMeta m = in;
    m.shape.clear();
    m.strides.clear();
    for (int64_t d = 0; d < in.dim(); ++d) {
        if (which[d] && in.shape[d] == 1) continue;
        m.shape.push_back(in.shape[d]);
        m.strides.push_back(in.strides[d]);
    }
    return metaValue(std::move(m));
}

Expected<Value> metaSqueezeAll(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    return squeezeDims(*in, std::vector<bool>(in->dim(), true));
}

Expected<Value> metaSqueezeDims(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    std::vector<bool> which(in->dim(), false);
    const auto dims = a[1].isList() ? a.toIntList(1) : std::vector<int64_t>{a.toInt(1)};
    for (int64_t dim : dims) {
        auto d = dimArg(a, dim, in->dim());
        if (!d.ok()) return d.error();
        if (in->dim() > 0) which[*d] = true;
    }
    return squeezeDims(*in, which);
}

// ----- slicing -------------------------------------------------------------------------------

/// Slice [start, end) with step along dim, after PyTorch's clamping.
TensorMeta sliceMeta(const TensorMeta& in, int64_t dim, int64_t start, int64_t end, int64_t step) {
    const int64_t size = in.shape[dim];
    if (start < 0) start += size;
    if (end < 0) end += size;
    start = std::clamp<int64_t>(start, 0, size);
    end = std::clamp<int64_t>(end, start, size);
    TensorMeta m = in;
    m.offset = in.offset + start * in.strides[dim];
    m.shape[dim] = (end - start + step - 1) / step;
    m.strides[dim] = in.strides[dim] * step;
    return m;
}

Expected<Value> metaSlice(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    if (in->dim() == 0) return opError(a, "slice() cannot be applied to a 0-dim tensor");
    auto d = dimArg(a, a.toInt(1), in->dim());
    if (!d.ok()) return d.error();
    const int64_t start = a.isNone(2) ? 0 : a.toInt(2);
    const int64_t end = a.isNone(3) ? INT64_MAX : a.toInt(3);
    const int64_t step = a.toInt(4);
    if (step <= 0) return opError(a, "slice step must be positive, got " + std::to_string(step));
    return metaValue(sliceMeta(*in, *d, start, end, step));
}

Expected<Value> metaNarrow(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    if (in->dim() == 0) return opError(a, "narrow() cannot be applied to a 0-dim tensor");
    auto d = dimArg(a, a.toInt(1), in->dim());
    if (!d.ok()) return d.error();
    const int64_t size = in->shape[*d];
    int64_t start = a.toInt(2);
    const int64_t length = a.toInt(3);
    if (start < -size || start > size)
        return opError(a, "start out of range (expected to be in range of [" + std::to_string(-size) + ", " +
                              std::to_string(size) + "], but got " + std::to_string(start) + ")");
    if (start < 0) start += size;
    if (length < 0) return opError(a, "narrow(): length must be non-negative");
    if (start + length > size)
        return opError(a, "start (" + std::to_string(start) + ") + length (" + std::to_string(length) +
                              ") exceeds dimension size (" + std::to_string(size) + ")");
    return metaValue(sliceMeta(*in, *d, start, start + length, 1));
}

/// select(dim, index): the slice at index with the dim removed.
Expected<TensorMeta> selectMeta(const OpArgs& a, const TensorMeta& in, int64_t dim, int64_t index) {
    if (in.dim() == 0) return opError(a, "select() cannot be applied to a 0-dim tensor");
    auto d = dimArg(a, dim, in.dim());
    if (!d.ok()) return d.error();
    const int64_t size = in.shape[*d];
    if (index < -size || index >= size)
        return opError(a, "index " + std::to_string(index) + " out of range for tensor of size " + shapeStr(in.shape) +
                              " at dimension " + std::to_string(*d));
    if (index < 0) index += size;
    TensorMeta m = in;
    m.offset = in.offset + index * in.strides[*d];
    m.shape.erase(m.shape.begin() + *d);
    m.strides.erase(m.strides.begin() + *d);
    return m;
}

Expected<Value> metaSelect(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto m = selectMeta(a, *in, a.toInt(1), a.toInt(2));
    if (!m.ok()) return m.error();
    return metaValue(std::move(m).value());
}

Expected<Value> metaAsStrided(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto size = a.toIntList(1), stride = a.toIntList(2);
    if (size.size() != stride.size())
        return opError(a, "mismatch in length of strides and shape (" + std::to_string(size.size()) + " vs " +
                              std::to_string(stride.size()) + ")");
    for (size_t i = 0; i < size.size(); ++i) {
        if (size[i] < 0) return opError(a, "negative size " + std::to_string(size[i]));
        if (stride[i] < 0) return opError(a, "as_strided does not support negative strides, got " + shapeStr(stride));
    }
    const int64_t offset = a.isNone(3) ? in->offset : a.toInt(3);
    if (offset < 0) return opError(a, "negative storage offset " + std::to_string(offset));
    return metaValue(viewMeta(*in, size, stride, offset));
}

/// as_strided must stay inside the storage; only the kernel knows its size.
Expected<Value> asStridedKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    const Tensor& in = a.tensor(0);
    const TensorMeta& m = out.t.meta;
    if (in.storage && m.numel() > 0) {
        int64_t last = m.offset;
        for (size_t i = 0; i < m.shape.size(); ++i) last += (m.shape[i] - 1) * m.strides[i];
        const int64_t avail = static_cast<int64_t>(in.storage->nbytes()) / dtypeItemSize(m.dtype);
        if (last >= avail)
            return opError(a, "setting storage of size " + std::to_string(last + 1) +
                                  " elements out of bounds for storage of " + std::to_string(avail) + " elements");
    }
    return aliasKernel(a, out, ctx);
}

Expected<Value> metaDiagonal(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    if (in->dim() < 2) return opError(a, "diagonal requires a tensor of at least 2 dimensions");
    auto d1 = dimArg(a, a.toInt(2), in->dim());
    if (!d1.ok()) return d1.error();
    auto d2 = dimArg(a, a.toInt(3), in->dim());
    if (!d2.ok()) return d2.error();
    if (*d1 == *d2) return opError(a, "diagonal dimensions cannot be identical " + std::to_string(*d1));
    const int64_t off = a.toInt(1);
    int64_t len, offset = in->offset;
    if (off >= 0) {
        len = std::max<int64_t>(std::min(in->shape[*d1], in->shape[*d2] - off), 0);
        if (len > 0) offset += off * in->strides[*d2];
    } else {
        len = std::max<int64_t>(std::min(in->shape[*d1] + off, in->shape[*d2]), 0);
        if (len > 0) offset -= off * in->strides[*d1];
    }
    TensorMeta m = *in;
    m.shape.clear();
    m.strides.clear();
    for (int64_t d = 0; d < in->dim(); ++d) {
        if (d == *d1 || d == *d2) continue;
        m.shape.push_back(in->shape[d]);
        m.strides.push_back(in->strides[d]);
    }
    m.shape.push_back(len);
    m.strides.push_back(in->strides[*d1] + in->strides[*d2]);
    m.offset = offset;
    return metaValue(std::move(m));
}

// ----- splitting -----------------------------------------------------------------------------

Value splitBySizes(const TensorMeta& in, int64_t dim, const std::vector<int64_t>& sizes) {
    std::vector<Tensor> parts;
    int64_t start = 0;
    for (int64_t len : sizes) {
        parts.push_back(Tensor::metaOnly(sliceMeta(in, dim, start, start + len, 1)));
        start += len;
    }
    return Value::ofTensors(std::move(parts), false);
}

Expected<Value> metaSplit(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    if (in->dim() == 0) return opError(a, "split expects at least a 1-dimensional tensor");
    auto d = dimArg(a, a.toInt(2), in->dim());
    if (!d.ok()) return d.error();
    const int64_t splitSize = a.toInt(1), dimSize = in->shape[*d];
    if (splitSize < 0)
        return opError(a, "split expects split_size be non-negative, but got split_size=" + std::to_string(splitSize));
    if (splitSize == 0 && dimSize != 0)
        return opError(a, "split_size can only be 0 if dimension size is 0, but got dimension size of " +
                              std::to_string(dimSize));
    const int64_t n = splitSize == 0 ? 1 : std::max<int64_t>((dimSize + splitSize - 1) / splitSize, 1);
    std::vector<int64_t> sizes(n, splitSize);
    sizes.back() = splitSize - (splitSize * n - dimSize);
    return splitBySizes(*in, *d, sizes);
}

Expected<Value> metaSplitWithSizes(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    if (in->dim() == 0) return opError(a, "split expects at least a 1-dimensional tensor");
    auto d = dimArg(a, a.toInt(2), in->dim());
    if (!d.ok()) return d.error();
    auto sizes = a.toIntList(1);
    int64_t sum = 0;
    for (int64_t s : sizes) {
        if (s < 0)
            return opError(a, "split_with_sizes expects split_sizes have only non-negative entries, but got " +
                                  shapeStr(sizes));
        sum += s;
    }
    if (sum != in->shape[*d])
        return opError(a, "split_with_sizes expects split_sizes to sum exactly to " + std::to_string(in->shape[*d]) +
                              " (input tensor's size at dimension " + std::to_string(*d) +
                              "), but got split_sizes=" + shapeStr(sizes));
    return splitBySizes(*in, *d, sizes);
}

Expected<Value> metaChunk(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    if (in->dim() == 0) return opError(a, "chunk expects at least a 1-dimensional tensor");
    const int64_t chunks = a.toInt(1);
    if (chunks <= 0) return opError(a, "chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks));
    auto d = dimArg(a, a.toInt(2), in->dim());
    if (!d.ok()) return d.error();
    const int64_t dimSize = in->shape[*d];
    const int64_t splitSize = (dimSize + chunks - 1) / chunks;
    if (splitSize == 0 && dimSize == 0) {
        // Every chunk is empty.
        return splitBySizes(*in, *d, std::vector<int64_t>(chunks, 0));
    }
    const int64_t n = std::max<int64_t>((dimSize + splitSize - 1) / splitSize, 1);
    std::vector<int64_t> sizes(n, splitSize);
    sizes.back() = splitSize - (splitSize * n - dimSize);
    return splitBySizes(*in, *d, sizes);
}

Expected<Value> metaUnbind(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    if (in->dim() == 0) return opError(a, "dimension specified as 0 but tensor has no dimensions");
    auto d = dimArg(a, a.toInt(1), in->dim());
    if (!d.ok()) return d.error();
    std::vector<Tensor> parts;
    for (int64_t i = 0; i < in->shape[*d]; ++i) {
        auto m = selectMeta(a, *in, *d, i);
        if (!m.ok()) return m.error();
        parts.push_back(Tensor::metaOnly(std::move(m).value()));
    }
    return Value::ofTensors(std::move(parts), false);
}

// ----- unfold --------------------------------------------------------------------------------

/// unfold(dim, size, step): windows of `size` every `step` along dim, as a new last dim.
Expected<Value> metaUnfold(const OpArgs& a) {
    auto in = inputMeta(a);
    if (!in.ok()) return in.error();
    auto d = dimArg(a, a.toInt(1), in->dim());
    if (!d.ok()) return d.error();
    const int64_t size = a.toInt(2), step = a.toInt(3);
    const int64_t maxSize = in->dim() == 0 ? 1 : in->shape[*d];
    if (size > maxSize)
        return opError(a, "maximum size for tensor at dimension " + std::to_string(*d) + " is " +
                              std::to_string(maxSize) + " but size is " + std::to_string(size));
    if (size < 0) return opError(a, "size is " + std::to_string(size) + " but must be >= 0");
    if (step <= 0) return opError(a, "step is " + std::to_string(step) + " but must be > 0");
    TensorMeta m = *in;
    if (in->dim() == 0) {
        m.shape = {size};
        m.strides = {1};
        return metaValue(std::move(m));
    }
    m.shape[*d] = (in->shape[*d] - size) / step + 1;
    m.strides[*d] = in->strides[*d] * step;
    m.shape.push_back(size);
    m.strides.push_back(in->strides[*d]);
    return metaValue(std::move(m));
}

}  // namespace

void registerViewOps(OpRegistry& r) {
    auto view = [&r](const char* name, const char* schema, MetaFn meta, KernelFn kernel = aliasKernel) {
        r.add(name, schema, OpCategory::View, meta, kernel).aliasesInput = true;
    };
    view("aten.t.default", "t(Tensor(a) self) -> Tensor(a)", metaT);
    view("aten.view.default", "view(Tensor(a) self, SymInt[] size) -> Tensor(a)", metaView, viewKernel);
    view("aten._unsafe_view.default", "_unsafe_view(Tensor self, SymInt[] size) -> Tensor", metaReshape, reshapeKernel);
    view("aten.reshape.default", "reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", metaReshape, reshapeKernel);
    view("aten.flatten.using_ints", "flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
         metaFlatten, reshapeKernel);
    view("aten.unflatten.int", "unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)", metaUnflatten,
         viewKernel);
    view("aten.transpose.int", "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", metaTranspose);
    view("aten.permute.default", "permute(Tensor(a) self, int[] dims) -> Tensor(a)", metaPermute);
    view("aten.expand.default", "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
         metaExpand);
    view("aten.unsqueeze.default", "unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", metaUnsqueeze);
    view("aten.squeeze.default", "squeeze(Tensor(a) self) -> Tensor(a)", metaSqueezeAll);
    view("aten.squeeze.dim", "squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", metaSqueezeDims);
    view("aten.squeeze.dims", "squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)", metaSqueezeDims);
    view("aten.slice.Tensor",
         "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)",
         metaSlice);
    view("aten.narrow.default", "narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
         metaNarrow);
    view("aten.select.int", "select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)", metaSelect);
    view("aten.as_strided.default",
         "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
         metaAsStrided, asStridedKernel);
    view("aten.diagonal.default", "diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
         metaDiagonal);
    view("aten.split.Tensor", "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
         metaSplit);
    view("aten.split_with_sizes.default",
         "split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]", metaSplitWithSizes);
    view("aten.chunk.default", "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]", metaChunk);
    view("aten.unbind.int", "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", metaUnbind);
    view("aten.unfold.default", "unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)", metaUnfold);
    // In-place views change self's geometry; the executor hands the new view on.
    auto inplaceView = [&r](const char* name, const char* schema, MetaFn meta) {
        OpInfo& op = r.add(name, schema, OpCategory::View, meta, aliasKernel);
        op.aliasesInput = true;
        op.inplace = true;
    };
    inplaceView("aten.squeeze_.default", "squeeze_(Tensor(a!) self) -> Tensor(a!)", metaSqueezeAll);
    inplaceView("aten.squeeze_.dim", "squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)", metaSqueezeDims);
    inplaceView("aten.squeeze_.dims", "squeeze_.dims(Tensor(a!) self, int[] dim) -> Tensor(a!)", metaSqueezeDims);
    inplaceView("aten.unsqueeze_.default", "unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)", metaUnsqueeze);
    inplaceView("aten.transpose_.default", "transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)",
                metaTranspose);
    inplaceView("aten.t_.default", "t_(Tensor(a!) self) -> Tensor(a!)", metaT);
    // unsafe_split* are split without view tracking: the same views, no aliasing in the schema.
    auto unsafeSplit = [&r](const char* name, const char* schema, MetaFn meta) {
        r.add(name, schema, OpCategory::View, meta, aliasKernel);
    };
    unsafeSplit("aten.unsafe_split.Tensor",
                "unsafe_split.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]", metaSplit);
    unsafeSplit("aten.unsafe_split_with_sizes.default",
                "unsafe_split_with_sizes(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]",
                metaSplitWithSizes);
    unsafeSplit("aten.unsafe_chunk.default", "unsafe_chunk(Tensor self, int chunks, int dim=0) -> Tensor[]", metaChunk);
}

}  // namespace fxray
