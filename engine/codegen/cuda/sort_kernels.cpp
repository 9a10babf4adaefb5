// Host side of kernels/sort.cu: scratch buffers, the merge passes and the uniques' launches.
#include "codegen/cuda/sort_kernels.h"

#include "codegen/cuda/kernel_module.h"

#include "codegen/cuda/kernels/sort_args.h"

#include "exec/ops/kernel_util.h"

#include <algorithm>

namespace fxray::cg::cuda {

namespace {

KernelModule& sortModule() {
    static KernelModule* m =
        new KernelModule("fxray_sort", {"dtype_io.cuh", "sort_args.h", "sort.cu"});  // never destroyed
    return *m;
}

const char* suffixOf(DType t) {
    switch (t) {
    case DType::Float32: return "f32";
    case DType::Float64: return "f64";
    case DType::Float16: return "f16";
    case DType::BFloat16: return "bf16";
    case DType::Int64: return "i64";
    case DType::Int32: return "i32";
    case DType::Int16: return "i16";
    case DType::Int8: return "i8";
    case DType::UInt8:
    case DType::Bool: return "u8";
    default: return nullptr;
    }
}

Status launch(const std::string& name, int64_t work, void** params, const char* what) {
    auto fn = sortModule().function(name);
    if (!fn.ok()) return fn.error();
    const int64_t cap = static_cast<int64_t>(std::max(1, runtime().smCount)) * 32;
    return launchGrid(*fn, static_cast<unsigned>(std::clamp<int64_t>((work + 255) / 256, 1, cap)), 1, 256, params,
                      what);
}

/// A dense scratch buffer of `count` elements of t.
Expected<DeviceView> scratch(DeviceBuffer& owner, int64_t count, DType t) {
    auto b = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(count, 1)) * dtypeItemSize(t));
    if (!b.ok()) return b.error();
    owner = std::move(b).value();
    return DeviceView{owner.ptr(), TensorMeta::contiguous({count}, t)};
}

/// The sorted (keys, idx) of a.rows rows of a.n, in scratch that `owners` keep alive: the rows
/// gathered from dense x, then merged in passes of doubling width, ping-ponging between buffers.
Status sortedPairs(const DeviceView& x, const FxSortArgs& a, DeviceBuffer owners[4], DeviceView& keys,
                   DeviceView& idx) {
    const DType t = x.meta.dtype;
    const int64_t total = a.rows * a.n;
    DeviceView kv[2], iv[2];
    for (int i = 0; i < 2; ++i) {
        auto k = scratch(owners[2 * i], total, t);
        if (!k.ok()) return k.error();
        auto j = scratch(owners[2 * i + 1], total, DType::Int64);
        if (!j.ok()) return j.error();
        kv[i] = *k;
        iv[i] = *j;
    }
    const std::string sfx = suffixOf(t);
    FxSortArgs args = a;
    CUdeviceptr px = x.address(), pk = kv[0].base, pi = iv[0].base;
    void* gp[] = {&px, &pk, &pi, &args};
    if (Status s = launch("fx_sort_gather_" + sfx, total, gp, "fx_sort_gather"); !s.ok()) return s;
    int cur = 0;
    for (long long w = 1; w < a.n; w *= 2) {
        CUdeviceptr ki = kv[cur].base, ii = iv[cur].base, ko = kv[1 - cur].base, io = iv[1 - cur].base;
        void* mp[] = {&ki, &ii, &ko, &io, &args, &w};
        if (Status s = launch("fx_sort_merge_" + sfx, total, mp, "fx_sort_merge"); !s.ok()) return s;
        cur = 1 - cur;
    }
    keys = kv[cur];
    idx = iv[cur];
    return Status::success();
}

}  // namespace

Expected<std::string> sortOpsSource() { return sortModule().source(); }

bool deviceSortSupports(DType t) { return suffixOf(t) != nullptr; }

Status sortRowsOnDevice(const DeviceView& x, int64_t dim, bool descending, int64_t k, const DeviceView* values,
                        const DeviceView* indices) {
    const TensorMeta& xm = x.meta;
    if (!deviceSortSupports(xm.dtype)) return makeError("the device sort does not handle this dtype");
    const int64_t nd = std::max<int64_t>(static_cast<int64_t>(xm.shape.size()), 1);
    if (dim < 0) dim += nd;
    if (dim < 0 || dim >= nd) return makeError("sort: dim out of range");
    const int64_t n = xm.shape.empty() ? 1 : xm.shape[static_cast<size_t>(dim)];
    if (k < 0 || k > n) return makeError("sort: k out of range");
    std::vector<int64_t> outShape = xm.shape;
    if (!outShape.empty()) outShape[static_cast<size_t>(dim)] = k;
    if ((values && (values->meta.dtype != xm.dtype || values->meta.shape != outShape)) ||
        (indices && (indices->meta.dtype != DType::Int64 || indices->meta.shape != outShape)))
        return makeError("device sort: the outputs must have the input's shape (dim cut to k) and dtype, int64 indices");
    FxSortArgs a{};
    a.n = n;
    a.k = k;
    a.inner = 1;
    for (size_t d = static_cast<size_t>(dim) + 1; d < xm.shape.size(); ++d) a.inner *= xm.shape[d];
    a.rows = n == 0 ? 0 : xm.numel() / n;
    a.descending = descending ? 1 : 0;
    if (a.rows * k == 0) return Status::success();
    DeviceBuffer tx, owners[4], tv, ti;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    DeviceView keys, idx;
    if (Status s = sortedPairs(*xd, a, owners, keys, idx); !s.ok()) return s;
    std::optional<DeviceView> dv, di;
    if (values) {
        auto d = denseTarget(*values, tv);
        if (!d.ok()) return d.error();
        dv = *d;
    }
    if (indices) {
        auto d = denseTarget(*indices, ti);
        if (!d.ok()) return d.error();
        di = *d;
    }
    CUdeviceptr pk = keys.base, pi = idx.base, pv = dv ? dv->address() : 0, pidx = di ? di->address() : 0;
    void* params[] = {&pk, &pi, &pv, &pidx, &a};
    if (Status s = launch(std::string("fx_sort_scatter_") + suffixOf(xm.dtype), a.rows * k, params, "fx_sort_scatter");
        !s.ok())
        return s;
    if (values && tv.ptr())
        if (Status s = stridedCopy(*dv, *values); !s.ok()) return s;
    if (indices && ti.ptr())
        if (Status s = stridedCopy(*di, *indices); !s.ok()) return s;
    return Status::success();
}

Status uniqueOnDevice(const DeviceView& x, bool consecutive, const DeviceView* values, const DeviceView* inverse,
                      const DeviceView* counts) {
    const TensorMeta& xm = x.meta;
    const int64_t n = xm.numel();
    if (!deviceSortSupports(xm.dtype) ||
        (values && (values->meta.dtype != xm.dtype || values->meta.shape.size() != 1 || !values->meta.isContiguous())) ||
        (counts && values && counts->meta.shape != values->meta.shape) || (inverse && (inverse->meta.dtype != DType::Int64 || inverse->meta.numel() != n ||
                                                    !inverse->meta.isContiguous())) ||
        (counts && (counts->meta.dtype != DType::Int64 || counts->meta.shape.size() != 1 ||
                    !counts->meta.isContiguous())))
        return makeError("device unique: the outputs must be dense, the values 1-D of the input's dtype, the inverse "
                         "and counts int64");
    // The outputs were sized ahead (from the graph's annotations); one that no node reads is not
    // there, and the values then go to scratch.
    const int64_t nout = values ? values->meta.shape[0] : counts ? counts->meta.shape[0] : -1;
    if (n == 0) {
        if (nout > 0)
            return makeError("unique of an empty tensor has 0 values, but its output was sized for " +
                                        std::to_string(nout));
        return Status::success();
    }
    DeviceBuffer tx, owners[4], sbuf, ebuf, vbuf;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    FxSortArgs a{};
    a.rows = 1;
    a.n = n;
    a.k = n;
    a.inner = 1;
    DeviceView keys, idx;
    if (consecutive) {
        // Input order: the gather alone (positions 0..n-1), no merge passes.
        const std::string sfx = suffixOf(xm.dtype);
        auto k = scratch(owners[0], n, xm.dtype);
        if (!k.ok()) return k.error();
        auto j = scratch(owners[1], n, DType::Int64);
        if (!j.ok()) return j.error();
        keys = *k;
        idx = *j;
        CUdeviceptr px = xd->address(), pk = keys.base, pi = idx.base;
        void* gp[] = {&px, &pk, &pi, &a};
        if (Status s = launch("fx_sort_gather_" + sfx, n, gp, "fx_sort_gather"); !s.ok()) return s;
    } else if (Status s = sortedPairs(*xd, a, owners, keys, idx); !s.ok()) {
        return s;
    }
    auto sc = scratch(sbuf, n, DType::Int64);
    if (!sc.ok()) return sc.error();
    const std::string sfx = suffixOf(xm.dtype);
    {
        auto fn = sortModule().function("fx_unique_scan_" + sfx);
        if (!fn.ok()) return fn.error();
        CUdeviceptr pk = keys.base, ps = sc->base;
        long long cnt = n;
        void* params[] = {&pk, &ps, &cnt};
        if (Status s = launchGrid(*fn, 1, 1, 1024, params, "fx_unique_scan"); !s.ok()) return s;
    }
    // The number of groups decides whether the ahead-sized outputs fit: read it back (a sync).
    long long groups = 0;
    if (Status s = check(runtime().cu.cuMemcpyDtoH(&groups, sc->base + static_cast<CUdeviceptr>(n - 1) * 8, 8),
                         "reading the number of unique values");
        !s.ok())
        return s;
    if (nout >= 0 && groups != nout)
        return makeError("the input has " + std::to_string(groups) + " unique values, but the graph sized the output for " +
                         std::to_string(nout) + " (its annotation came from another input)");
    CUdeviceptr ends = 0, pv = values ? values->address() : 0;
    if (!values) {
        auto v = scratch(vbuf, groups, xm.dtype);
        if (!v.ok()) return v.error();
        pv = v->base;
    }
    if (counts) {
        auto e = scratch(ebuf, groups, DType::Int64);
        if (!e.ok()) return e.error();
        ends = e->base;
    }
    CUdeviceptr pk = keys.base, pi = idx.base, ps = sc->base, pinv = inverse ? inverse->address() : 0;
    long long cnt = n, no = groups;
    void* wp[] = {&pk, &pi, &ps, &pv, &pinv, &ends, &cnt, &no};
    if (Status s = launch("fx_unique_write_" + sfx, n, wp, "fx_unique_write"); !s.ok()) return s;
    if (counts) {
        CUdeviceptr pc = counts->address();
        void* cp[] = {&ends, &pc, &no};
        if (Status s = launch("fx_unique_counts", groups, cp, "fx_unique_counts"); !s.ok()) return s;
    }
    return Status::success();
}

Status repeatInterleaveOnDevice(const DeviceView& repeats, const DeviceView& out) {
    const TensorMeta &rm = repeats.meta, &om = out.meta;
    if (rm.dtype != DType::Int64 || rm.shape.size() > 1 || om.dtype != DType::Int64 || om.shape.size() != 1 ||
        !om.isContiguous())
        return makeError("device repeat_interleave needs 1-D int64 repeats and a dense 1-D int64 output");
    const int64_t n = rm.numel(), total = om.numel();
    if (n == 0) {
        if (total != 0) return makeError("no repeats, but the output was sized for " + std::to_string(total));
        return Status::success();
    }
    DeviceBuffer tr, cbuf;
    auto rd = denseView(repeats, tr);
    if (!rd.ok()) return rd.error();
    auto cs = scratch(cbuf, n, DType::Int64);
    if (!cs.ok()) return cs.error();
    {
        auto fn = sortModule().function("fx_repeat_scan");
        if (!fn.ok()) return fn.error();
        CUdeviceptr pr = rd->address(), pc = cs->base;
        long long cnt = n;
        void* params[] = {&pr, &pc, &cnt};
        if (Status s = launchGrid(*fn, 1, 1, 1024, params, "fx_repeat_scan"); !s.ok()) return s;
    }
    // The sum decides whether the ahead-sized output fits: read it back (a sync).
    long long sum = 0;
    if (Status s = check(runtime().cu.cuMemcpyDtoH(&sum, cs->base + static_cast<CUdeviceptr>(n - 1) * 8, 8),
                         "reading the repeats' sum");
        !s.ok())
        return s;
    if (sum != total)
        return makeError("the repeats sum to " + std::to_string(sum) + ", but the graph sized the output for " +
                         std::to_string(total) + " (its annotation came from another input)");
    if (total == 0) return Status::success();
    CUdeviceptr pc = cs->base, po = out.address();
    long long cnt = n, tot = total;
    void* params[] = {&pc, &cnt, &po, &tot};
    return launch("fx_repeat_index", total, params, "fx_repeat_index");
}

namespace {

/// The bool mask broadcast to `shape` as dense bytes in `owner`, and its running count of set
/// entries in `rankOwner`; the total selected comes back (a sync).
Expected<int64_t> maskRanks(const DeviceView& mask, const std::vector<int64_t>& shape, DeviceBuffer& owner,
                            DeviceBuffer& rankOwner, DeviceView& dense, DeviceView& rank) {
    const int64_t n = kern::product(shape);
    auto m = scratch(owner, n, DType::Bool);
    if (!m.ok()) return m.error();
    dense = DeviceView{m->base, TensorMeta::contiguous(shape, DType::Bool)};
    if (Status s = stridedCopy(mask, dense); !s.ok()) return s.error();
    auto r = scratch(rankOwner, n, DType::Int64);
    if (!r.ok()) return r.error();
    rank = *r;
    auto fn = sortModule().function("fx_mask_scan");
    if (!fn.ok()) return fn.error();
    CUdeviceptr pm = dense.base, pr = rank.base;
    long long cnt = n;
    void* params[] = {&pm, &pr, &cnt};
    if (Status s = launchGrid(*fn, 1, 1, 1024, params, "fx_mask_scan"); !s.ok()) return s.error();
    long long total = 0;
    if (Status s = check(runtime().cu.cuMemcpyDtoH(&total, rank.base + static_cast<CUdeviceptr>(n - 1) * 8, 8),
                         "reading the mask's count");
        !s.ok())
        return s.error();
    return static_cast<int64_t>(total);
}

}  // namespace

Status maskedScatterOnDevice(const DeviceView& self, const DeviceView& mask, const DeviceView& source,
                             const DeviceView& out) {
    const TensorMeta& om = out.meta;
    if (!deviceSortSupports(om.dtype) || source.meta.dtype != om.dtype || self.meta.dtype != om.dtype ||
        mask.meta.dtype != DType::Bool || !om.isContiguous())
        return makeError("device masked_scatter needs a dense output of self's dtype, a bool mask and a source alike");
    const int64_t n = om.numel(), count = source.meta.numel();
    if (n == 0) return Status::success();
    if (Status s = stridedCopy(self, out); !s.ok()) return s;
    DeviceBuffer mo, ro, so;
    DeviceView dm, rank;
    auto total = maskRanks(mask, om.shape, mo, ro, dm, rank);
    if (!total.ok()) return total.error();
    if (*total > count) return makeError("Number of elements of source < number of ones in mask");
    if (*total == 0) return Status::success();
    auto sd = denseView(source, so);
    if (!sd.ok()) return sd.error();
    CUdeviceptr pm = dm.base, pr = rank.base, ps = sd->address(), po = out.address();
    long long cnt = n, c = count;
    void* params[] = {&pm, &pr, &ps, &po, &cnt, &c};
    return launch(std::string("fx_masked_scatter_") + suffixOf(om.dtype), n, params, "fx_masked_scatter");
}

Status maskedScatterBackwardOnDevice(const DeviceView& grad, const DeviceView& mask, const DeviceView& out) {
    const TensorMeta& om = out.meta;
    if (!deviceSortSupports(om.dtype) || grad.meta.dtype != om.dtype || mask.meta.dtype != DType::Bool ||
        !om.isContiguous())
        return makeError("device masked_scatter_backward needs a dense output of grad's dtype and a bool mask");
    const auto shape = kern::broadcastShapes(grad.meta.shape, mask.meta.shape);
    if (!shape) return makeError("masked_scatter_backward: grad and mask do not broadcast");
    const int64_t n = kern::product(*shape), count = om.numel();
    const size_t bytes = static_cast<size_t>(count) * dtypeItemSize(om.dtype);
    if (bytes)
        if (Status s = check(runtime().cu.cuMemsetD8(out.address(), 0, bytes), "zeroing masked_scatter's gradient");
            !s.ok())
            return s;
    if (n == 0) return Status::success();
    DeviceBuffer mo, ro, go;
    DeviceView dm, rank;
    auto total = maskRanks(mask, *shape, mo, ro, dm, rank);
    if (!total.ok()) return total.error();
    if (*total > count)
        return makeError("the mask selects " + std::to_string(*total) + " elements, more than the source's " +
                         std::to_string(count));
    if (*total == 0) return Status::success();
    auto g = scratch(go, n, om.dtype);
    if (!g.ok()) return g.error();
    const DeviceView gd{g->base, TensorMeta::contiguous(*shape, om.dtype)};
    if (Status s = stridedCopy(grad, gd); !s.ok()) return s;
    CUdeviceptr pm = dm.base, pr = rank.base, pg = gd.base, po = out.address();
    long long cnt = n, c = count;
    void* params[] = {&pm, &pr, &pg, &po, &cnt, &c};
    return launch(std::string("fx_masked_gather_") + suffixOf(om.dtype), n, params, "fx_masked_gather");
}

}  // namespace fxray::cg::cuda
