// The device externs of the ops Inductor runs as fallback kernels (max pooling with indices
// over irregular windows, segment_reduce, put, the index puts, masked_select, and the
// small linear algebra, the SVD and pinv): each checks what it handles before allocating, declining to the host
// otherwise, and runs the kernels of fallback_kernels.h. Listed in deviceExternTable().
#include "codegen/cuda/device_externs.h"

#include "codegen/cuda/backward_ops.h"
#include "codegen/cuda/builtin_kernels.h"
#include "codegen/cuda/fallback_kernels.h"
#include "codegen/cuda/linalg_svd.h"

#include <algorithm>
#include <utility>

namespace fxray::cg::cuda {

namespace {

/// index_put's index list with its None items replaced, where PyTorch's rule allows: the
/// tensor indices adjacent (their broadcast shape B lands where the first one stands), trailing
/// Nones dropped (those dims are sliced whole either way), and each leading None dim j an iota
/// over self's dim j shaped [size_j, 1, ...] so that it broadcasts ahead of B. nullopt where
/// the list has another form (non-adjacent indices, all None).
Expected<std::optional<std::vector<DeviceView>>> withoutNoneIndices(const std::vector<std::optional<DeviceView>>& items,
                                                                    const std::vector<int64_t>& selfShape,
                                                                    std::vector<DeviceBuffer>& owners) {
    using Result = std::optional<std::vector<DeviceView>>;
    size_t first = 0, last = items.size();
    while (first < items.size() && !items[first]) ++first;
    while (last > first && !items[last - 1]) --last;
    if (first == last || last > selfShape.size()) return Result();
    for (size_t j = first; j < last; ++j)
        if (!items[j]) return Result();  // non-adjacent: B moves to the front
    std::vector<DeviceView> out;
    if (first == 0) {
        for (size_t j = 0; j < last; ++j) out.push_back(*items[j]);
        return Result(std::move(out));
    }
    size_t bRank = 0;
    for (size_t j = first; j < last; ++j) bRank = std::max(bRank, items[j]->meta.shape.size());
    for (size_t j = 0; j < first; ++j) {
        const int64_t n = selfShape[j];
        std::vector<int64_t> host(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) host[static_cast<size_t>(i)] = i;
        auto buf = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(n, 1)) * sizeof(int64_t));
        if (!buf.ok()) return buf.error();
        if (n > 0)
            if (Status s = check(runtime().cu.cuMemcpyHtoD(buf->ptr(), host.data(), host.size() * sizeof(int64_t)),
                                 "uploading an index for a None dim");
                !s.ok())
                return s.error();
        std::vector<int64_t> shape(first - 1 - j + bRank + 1, 1);
        shape[0] = n;
        out.push_back(DeviceView{buf->ptr(), TensorMeta::contiguous(shape, DType::Int64)});
        owners.push_back(std::move(buf).value());
    }
    for (size_t j = first; j < last; ++j) out.push_back(*items[j]);
    return Result(std::move(out));
}

/// max_pool3d_with_indices, adaptive_max_pool{2,3}d and fractional_max_pool{2,3}d: (out, indices).
template <WindowMode Mode>
Expected<bool> windowPoolOnDevice(DeviceCall& c) {
    // max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)
    // adaptive_max_pool2d(self, output_size); fractional_max_pool2d(self, kernel_size, output_size, random_samples)
    const OpArgs* A = c.args();
    if (!A) return false;
    auto x = c.view(0);
    if (!x || !windowMaxSupports(x->meta.dtype) || c.outCount() != 2 || !c.hasOut(0) || !c.hasOut(1) ||
        !c.outsDense(2, x->meta.dtype) || c.outMeta(0)->dtype != x->meta.dtype || c.outMeta(1)->dtype != DType::Int64)
        return false;
    std::vector<int64_t> kernel, stride, padding, dilation;
    std::optional<DeviceView> samples;
    size_t nsp = 3;
    if (Mode == WindowMode::Strided) {
        kernel = A->toIntList(1), stride = A->toIntList(2), padding = A->toIntList(3), dilation = A->toIntList(4);
    } else if (Mode == WindowMode::Adaptive) {
        nsp = A->toIntList(1).size();
    } else {
        kernel = A->toIntList(1);
        nsp = kernel.size();
        samples = c.view(3);
        if (!samples) return false;
    }
    if ((nsp != 2 && nsp != 3) || x->meta.shape.size() < nsp + 1) return false;
    auto outs = c.outs(2);
    if (!outs.ok()) return outs.error();
    if (Status s = windowMaxPool(Mode, *x, *(*outs)[0], *(*outs)[1], nsp, kernel, stride, padding, dilation, samples);
        !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// The backwards of max_pool3d_with_indices, adaptive and fractional max pooling: the gradient
/// added at the indices (argument `IdxArg`), flat over 2 or 3 spatial dims as the op's name says.
template <size_t IdxArg>
Expected<bool> windowPoolBackwardOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    const bool half = om && isHalfFloat(om->dtype);
    if (!om || (!convSupports(om->dtype) && !half) || !om->isContiguous()) return false;
    auto gy = c.view(0), idx = c.view(IdxArg);
    const size_t nsp = c.node().opName().find("3d") != std::string::npos ? 3 : 2;
    if (!gy || !idx || gy->meta.dtype != om->dtype || idx->meta.dtype != DType::Int64 || om->shape.size() < nsp + 1)
        return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = half ? maxPoolBackwardHalf(*gy, *idx, **o, nsp) : maxPoolBackward(*gy, *idx, **o, nsp); !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// segment_reduce (forward: data 0, reduce 1, lengths 2, indices 3, offsets 4, axis 5, initial 7)
/// and _segment_reduce_backward (grad 0, output 1, data 2, reduce 3, lengths 4, offsets 5, axis 6,
/// initial 7): segments from int64 lengths or offsets.
template <bool Backward>
Expected<bool> segmentReduceOnDevice(DeviceCall& c) {
    const size_t dataArg = Backward ? 2 : 0, reduceArg = dataArg + 1, lengthsArg = Backward ? 4 : 2,
                 offsetsArg = Backward ? 5 : 4, axisArg = Backward ? 6 : 5;
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && segmentSupports(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A || (!Backward && !A->isNone(3))) return false;  // the unsafe indices form: the host
    const int kind = (*A)[reduceArg].kind == Value::Kind::String ? segmentKind((*A)[reduceArg].s) : -1;
    const bool byOffsets = A->isNone(lengthsArg);
    if (kind < 0 || (byOffsets && A->isNone(offsetsArg))) return false;
    auto data = c.view(dataArg), seg = c.view(byOffsets ? offsetsArg : lengthsArg);
    if (!data || !seg || data->meta.dtype != om->dtype || seg->meta.dtype != DType::Int64) return false;
    const int64_t nd = static_cast<int64_t>(data->meta.shape.size());
    int64_t axis = A->toInt(axisArg);
    if (axis < 0) axis += nd;
    if (axis < 0 || axis >= nd || static_cast<int64_t>(seg->meta.shape.size()) != axis + 1) return false;
    const std::optional<double> initial = A->isNone(7) ? std::nullopt : std::optional<double>(A->toDouble(7));
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Backward) {
        auto grad = c.view(0), output = c.view(1);
        if (!grad || !output) return false;
        if (Status s = segmentReduceBackward(*grad, *output, *data, kind, axis, *seg, byOffsets, initial, **o); !s.ok())
            return s.error();
    } else if (Status s = segmentReduce(*data, kind, axis, *seg, byOffsets, initial, **o); !s.ok()) {
        return s.error();
    }
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> putOnDevice(DeviceCall& c) {
    // put(self, index, source, accumulate=False)
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && segmentSupports(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A) return false;
    auto self = c.view(0), index = c.view(1), src = c.view(2);
    if (!self || !index || !src || self->meta.dtype != om->dtype || src->meta.dtype != om->dtype ||
        index->meta.dtype != DType::Int64 || index->meta.numel() != src->meta.numel())
        return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = put(*self, *index, *src, A->toBool(3), **o); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// _unsafe_masked_index_put_accumulate(self, mask, indices, values) (Masked) and
/// index_put / _unsafe_index_put(self, indices, values, accumulate) with index tensors for the
/// leading dims (a None among them: the host).
template <bool Masked>
Expected<bool> indexedPutOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && indexPutSupports(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A) return false;
    const size_t listArg = Masked ? 2 : 1;
    auto self = c.view(0), values = c.view(Masked ? 3 : 2);
    std::optional<DeviceView> mask = Masked ? c.view(1) : std::nullopt;
    std::vector<DeviceBuffer> iotas;  // owns the index views standing for None items
    std::optional<std::vector<DeviceView>> indices;
    if (Masked) {
        indices = c.listViews(listArg);
    } else if (auto items = c.listViewsOrNone(listArg); items && self) {
        auto v = withoutNoneIndices(*items, self->meta.shape, iotas);
        if (!v.ok()) return v.error();
        indices = *v;
    }
    // index_put with one bool mask over the leading dims; values with or without the count dim
    // (one row per set position, or one for all).
    if (!Masked && self && values && indices && indices->size() == 1 && (*indices)[0].meta.dtype == DType::Bool &&
        self->meta.dtype == om->dtype && values->meta.dtype == om->dtype) {
        const DeviceView& m = (*indices)[0];
        const size_t md = m.meta.shape.size(), nd = self->meta.shape.size();
        if (md == 0 || md > nd || md > 4 || nd > 8 || values->meta.shape.size() > nd - md + 1) return false;
        for (size_t d = 0; d < md; ++d)
            if (m.meta.shape[d] != self->meta.shape[d]) return false;
        std::vector<int64_t> vrest = values->meta.shape;  // values past the count dim
        if (vrest.size() == nd - md + 1) vrest.erase(vrest.begin());
        std::vector<int64_t> rest(self->meta.shape.begin() + static_cast<std::ptrdiff_t>(md), self->meta.shape.end());
        auto vb = broadcastShape(rest, vrest);
        if (!vb || *vb != rest) return false;
        auto o = c.out(0);
        if (!o.ok()) return o.error();
        if (Status s = indexPutByMask(*self, m, *values, A->toBool(3), **o); !s.ok()) return s.error();
        ++c.stats().deviceExterns;
        return true;
    }
    if (!self || !values || !indices || indices->empty() || indices->size() > 4 ||
        (Masked && (!mask || mask->meta.dtype != DType::Bool)) || self->meta.dtype != om->dtype ||
        values->meta.dtype != om->dtype)
        return false;
    std::vector<int64_t> b;
    for (const DeviceView& i : *indices) {
        auto s = i.meta.dtype == DType::Int64 && i.meta.numel() > 0 ? broadcastShape(b, i.meta.shape) : std::nullopt;
        if (!s) return false;
        b = *s;
    }
    if (indices->size() > self->meta.shape.size() || b.size() + self->meta.shape.size() - indices->size() > 8)
        return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    Status s = Masked ? maskedIndexPutAccumulate(*self, *mask, *indices, *values, **o)
                      : indexPut(*self, *indices, *values, A->toBool(3), **o);
    if (!s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> maskedSelectOnDevice(DeviceCall& c) {
    // masked_select(self, mask)
    const TensorMeta* om = c.out0();
    auto self = c.view(0), mask = c.view(1);
    if (!om || !om->isContiguous() || !self || !mask || mask->meta.dtype != DType::Bool ||
        self->meta.dtype != om->dtype)
        return false;
    auto full = broadcastShape(self->meta.shape, mask->meta.shape);
    if (!full || full->size() > 8) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = maskedSelect(*self, *mask, **o); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// index.Tensor(self, [mask]) with one bool mask over self's leading dims (the lowering gathers
/// by integer indices): the elements where the mask is set, in row-major order, which is
/// masked_select of self under the mask widened with size-1 trailing dims; the result's length
/// was fixed when the graph compiled.
Expected<bool> indexByMaskOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    auto self = c.view(0);
    auto indices = c.listViews(1);
    if (!om || !om->isContiguous() || !self || self->meta.dtype != om->dtype || !indices || indices->size() != 1 ||
        (*indices)[0].meta.dtype != DType::Bool)
        return false;
    DeviceView m = (*indices)[0];
    const size_t md = m.meta.shape.size(), nd = self->meta.shape.size();
    if (md == 0 || md > nd || nd > 8) return false;
    for (size_t d = 0; d < md; ++d)
        if (m.meta.shape[d] != self->meta.shape[d]) return false;
    for (size_t d = md; d < nd; ++d) m.meta.shape.push_back(1), m.meta.strides.push_back(0);
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    DeviceView flat = **o;
    flat.meta.shape = {om->numel()};
    flat.meta.strides = {1};
    if (Status s = maskedSelect(*self, m, flat); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> triangularSolveOnDevice(DeviceCall& c) {
    // triangular_solve(self, A, upper=True, transpose=False, unitriangular=False) -> (solution, cloned_coefficient)
    const OpArgs* A = c.args();
    auto b = c.view(0), m = c.view(1);
    if (!A || !b || !m || !windowPoolSupports(b->meta.dtype) || m->meta.dtype != b->meta.dtype || c.outCount() != 2 ||
        !c.hasOut(0) || !c.hasOut(1) || c.outMeta(0)->dtype != b->meta.dtype || c.outMeta(1)->dtype != b->meta.dtype)
        return false;
    auto outs = c.outs(2);
    if (!outs.ok()) return outs.error();
    if (Status s = triangularSolve(*b, *m, A->toBool(2), A->toBool(3), A->toBool(4), *(*outs)[0], *(*outs)[1]); !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> slogdetOnDevice(DeviceCall& c) {
    // _linalg_slogdet(A) -> (sign, logabsdet, LU, pivots)
    // An empty batch ([0, n, n]) has nothing to compute: every output is empty. Checked before
    // the view and layout checks below, which an empty tensor's strides need not pass (OpInfo's
    // [0, 0, 0] sample, pivots [0, 0] with strides [1, 1], ran on the host). A batch of 0 x 0
    // matrices has non-empty outputs (sign 1, log 0) and takes the kernel below.
    if (const OpArgs* A = c.args(); A && A->isTensor(0) && A->tensor(0).numel() == 0) {
        bool allEmpty = true;
        for (size_t i = 0; i < c.outCount(); ++i) allEmpty = allEmpty && (!c.hasOut(i) || c.outMeta(i)->numel() == 0);
        if (allEmpty) {
            ++c.stats().deviceExterns;
            return true;
        }
    }
    auto m = c.view(0);
    if (!m) return false;
    if (!windowPoolSupports(m->meta.dtype) || c.outCount() != 4 || m->meta.shape.size() < 2) return false;
    const DType t = m->meta.dtype;
    for (size_t i = 0; i < 4; ++i)
        if (c.hasOut(i) &&
            (c.outMeta(i)->dtype != (i == 3 ? DType::Int32 : t) || (i != 2 && !c.outMeta(i)->isContiguous())))
            return false;
    auto outs = c.outs(4);
    if (!outs.ok()) return outs.error();
    // Outputs no node reads (logdet's forward reads only the sign and log) are not allocated by
    // the program: they go to scratch, in the layouts the kernel writes (LU column-major).
    const std::vector<int64_t>& shape = m->meta.shape;
    std::vector<int64_t> batch(shape.begin(), shape.end() - 2), piv = batch;
    piv.push_back(shape.back());
    TensorMeta luMeta = TensorMeta::contiguous(shape, t);
    std::swap(luMeta.strides[shape.size() - 1], luMeta.strides[shape.size() - 2]);
    const TensorMeta want[4] = {TensorMeta::contiguous(batch, t), TensorMeta::contiguous(batch, t), luMeta,
                                TensorMeta::contiguous(piv, DType::Int32)};
    DeviceBuffer scratch[4];
    DeviceView v[4];
    for (size_t i = 0; i < 4; ++i) {
        if ((*outs)[i]) {
            v[i] = *(*outs)[i];
            continue;
        }
        auto b = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(want[i].numel(), 1)) *
                                        dtypeItemSize(want[i].dtype));
        if (!b.ok()) return b.error();
        scratch[i] = std::move(b).value();
        v[i] = DeviceView{scratch[i].ptr(), want[i]};
    }
    if (Status s = slogdet(*m, v[0], v[1], v[2], v[3]); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> matrixExpOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    auto m = c.view(0);
    if (!om || !m || !windowPoolSupports(m->meta.dtype) || om->dtype != m->meta.dtype || !om->isContiguous())
        return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = matrixExp(*m, **o); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// The view with its last two dims swapped (a matrix's transpose, no copy).
DeviceView transposedMatrices(DeviceView v) {
    const size_t nd = v.meta.shape.size();
    std::swap(v.meta.shape[nd - 1], v.meta.shape[nd - 2]);
    std::swap(v.meta.strides[nd - 1], v.meta.strides[nd - 2]);
    return v;
}

/// linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False), the factors broadcast over the
/// output's batch dims, into the output's layout (left: column-major per matrix, as the
/// reference's meta gives it). left = False, X op(M) = B, is op(M)ᵀ Xᵀ = Bᵀ: the left solve with
/// the adjoint flag flipped, on transposed views of B and X.
Expected<bool> luSolveOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && windowPoolSupports(om->dtype) ? c.args() : nullptr;
    if (!A) return false;
    const bool left = A->toBool(3);
    auto lu = c.view(0), piv = c.view(1), b = c.view(2);
    const size_t nd = om->shape.size();
    if (!lu || !piv || !b || nd < 2 || nd > 8 || lu->meta.dtype != om->dtype || b->meta.dtype != om->dtype ||
        piv->meta.dtype != DType::Int32 || lu->meta.shape.size() < 2 || lu->meta.shape.size() > nd ||
        b->meta.shape.size() < 2 || b->meta.strides.size() != b->meta.shape.size() || om->strides.size() != nd)
        return false;
    // n: the solved dim (rows with left, columns without); the factors' batch dims (pivots LU's
    // batch shape + [n]) broadcast to the output's.
    const size_t ld = lu->meta.shape.size();
    const int64_t n = om->shape[left ? nd - 2 : nd - 1];
    const std::vector<int64_t> batch(om->shape.begin(), om->shape.end() - 2),
        luBatch(lu->meta.shape.begin(), lu->meta.shape.end() - 2);
    std::vector<int64_t> pivWant = luBatch;
    pivWant.push_back(n);
    const auto bb = broadcastShape(luBatch, batch);
    if (lu->meta.shape[ld - 1] != n || lu->meta.shape[ld - 2] != n || piv->meta.shape != pivWant || !bb || *bb != batch)
        return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    const bool adjoint = A->toBool(4);
    Status s = left ? luSolve(*lu, *piv, *b, adjoint, **o)
                    : luSolve(*lu, *piv, transposedMatrices(*b), !adjoint, transposedMatrices(**o));
    if (!s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// _linalg_svd(A, full_matrices=False, compute_uv=True, driver=None) -> (U, S, Vh): reduced
/// factors (full_matrices only where A is square, where they are the same).
Expected<bool> svdOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    auto m = c.view(0);
    if (!A || !m || !svdSupports(m->meta.dtype) || m->meta.shape.size() < 2 || c.outCount() != 3 || !c.hasOut(1))
        return false;
    const size_t nd = m->meta.shape.size();
    if (A->toBool(1) && m->meta.shape[nd - 1] != m->meta.shape[nd - 2]) return false;
    const bool uv = A->toBool(2) && c.hasOut(0) && c.hasOut(2);
    for (size_t i = 0; i < 3; ++i)
        if (c.hasOut(i) && c.outMeta(i)->dtype != m->meta.dtype) return false;
    auto outs = c.outs(3);
    if (!outs.ok()) return outs.error();
    const auto& o = *outs;
    if (Status s = svd(*m, *o[1], uv ? o[0] : std::nullopt, uv ? o[2] : std::nullopt); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// linalg_pinv.atol_rtol_tensor(self, *, atol=None, rtol=None, hermitian=False).
Expected<bool> pinvOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && svdSupports(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A || A->toBool(3)) return false;  // hermitian (eigh): the host
    auto m = c.view(0);
    std::optional<DeviceView> atol = A->isNone(1) ? std::nullopt : c.view(1),
                              rtol = A->isNone(2) ? std::nullopt : c.view(2);
    if (!m || m->meta.dtype != om->dtype || (!A->isNone(1) && !atol) || (!A->isNone(2) && !rtol)) return false;
    int64_t batches = 1;
    for (size_t d = 0; d + 2 < m->meta.shape.size(); ++d) batches *= m->meta.shape[d];
    if ((atol && !pinvTolerance(*atol, batches)) || (rtol && !pinvTolerance(*rtol, batches))) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = pinv(*m, atol, rtol, **o); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

}  // namespace

const std::vector<DeviceExtern>& fallbackOpDeviceExterns() {
    static const std::vector<DeviceExtern> t = {
        {"max_pool3d", windowPoolOnDevice<WindowMode::Strided>},
        {"max_pool3d_backward", windowPoolBackwardOnDevice<7>},
        {"adaptive_max_pool", windowPoolOnDevice<WindowMode::Adaptive>},
        {"adaptive_max_pool_backward", windowPoolBackwardOnDevice<2>},
        {"fractional_max_pool", windowPoolOnDevice<WindowMode::Fractional>},
        {"fractional_max_pool_backward", windowPoolBackwardOnDevice<4>},
        {"segment_reduce", segmentReduceOnDevice<false>},
        {"segment_reduce_backward", segmentReduceOnDevice<true>},
        {"put", putOnDevice},
        {"masked_index_put_accumulate", indexedPutOnDevice<true>},
        {"index_put", indexedPutOnDevice<false>},
        {"masked_select", maskedSelectOnDevice},
        {"index_by_mask", indexByMaskOnDevice},
        {"triangular_solve", triangularSolveOnDevice},
        {"slogdet", slogdetOnDevice},
        {"matrix_exp", matrixExpOnDevice},
        {"svd", svdOnDevice},
        {"lu_solve", luSolveOnDevice},
        {"pinv", pinvOnDevice},
    };
    return t;
}

}  // namespace fxray::cg::cuda
