// Indexing by one boolean mask on the device (kernels/mask_index.cu): index.Tensor's extern
// (index_by_mask; integer indices have a lowering of their own) and index_put's mask form, which
// the index_put extern hands here. A mask must cover self's leading dims exactly; more index
// tensors, None among them, or a mask beside integer indices decline to the host.
#include "codegen/cuda/op_externs.h"

#include "codegen/cuda/op_kernels.h"

#include <string>

namespace fxray::cg::cuda {

namespace {

/// The single boolean mask of list argument `arg`, covering self's leading dims; nullopt otherwise.
std::optional<DeviceView> soleMask(DeviceCall& c, size_t arg, const DeviceView& self) {
    auto items = c.listViews(arg);
    if (!items || items->size() != 1) return std::nullopt;
    const DeviceView& m = (*items)[0];
    const size_t k = m.meta.shape.size();
    if (m.meta.dtype != DType::Bool || k == 0 || k > self.meta.shape.size() ||
        !std::equal(m.meta.shape.begin(), m.meta.shape.end(), self.meta.shape.begin()) || !m.base)
        return std::nullopt;
    return m;
}

/// The mask's set positions ranked (a running count) into `rank`.
Expected<DeviceView> rankMask(const DeviceView& mask, DeviceBuffer& tmp, DeviceBuffer& tmask) {
    auto md = denseView(mask, tmask);
    if (!md.ok()) return md.error();
    auto r = denseBuffer({mask.meta.numel()}, DType::Int64, tmp);
    if (!r.ok()) return r.error();
    auto fn = opKernelModule("mask_index.cu")->function("fx_mask_rank");
    if (!fn.ok()) return fn.error();
    CUdeviceptr pm = elementAddr(*md), pr = elementAddr(*r);
    int64_t n = mask.meta.numel();
    void* params[] = {&pm, &pr, &n};
    if (Status s = launchGrid(*fn, 1, 1, 1, params, "fx_mask_rank"); !s.ok()) return s.error();
    return *md;
}

int64_t product(const std::vector<int64_t>& s, size_t from) {
    int64_t p = 1;
    for (size_t i = from; i < s.size(); ++i) p *= s[i];
    return p;
}

}  // namespace

// index.Tensor(self, [mask]) -> [count] + self's dims after the mask's
Expected<bool> indexByMaskOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    auto self = c.view(0);
    if (!om || !om->isContiguous() || !self || self->meta.dtype != om->dtype) return false;
    auto mask = soleMask(c, 1, *self);
    if (!mask) return false;
    const size_t k = mask->meta.shape.size();
    std::vector<int64_t> want{om->shape.empty() ? -1 : om->shape[0]};
    want.insert(want.end(), self->meta.shape.begin() + static_cast<std::ptrdiff_t>(k), self->meta.shape.end());
    const int elem = dtypeItemSize(om->dtype);
    if (om->shape != want || (elem != 1 && elem != 2 && elem != 4 && elem != 8)) return false;
    auto fn = opKernelModule("mask_index.cu")->function("fx_mask_gather_b" + std::to_string(elem));
    if (!fn.ok()) return fn.error();
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    // Rows a mask with fewer set positions than at compile time leaves read as zeros.
    if (Status s = zeroFill(**o); !s.ok()) return s.error();
    int64_t positions = mask->meta.numel(), inner = product(self->meta.shape, k), rows = om->shape[0];
    if (positions * inner > 0 && rows > 0) {
        DeviceBuffer tr, tm, ts;
        auto md = rankMask(*mask, tr, tm);
        if (!md.ok()) return md.error();
        auto sd = denseView(*self, ts);
        if (!sd.ok()) return sd.error();
        CUdeviceptr ps = elementAddr(*sd), pm = elementAddr(*md), pr = tr.ptr(), po = elementAddr(**o);
        void* params[] = {&ps, &pm, &pr, &po, &positions, &inner, &rows};
        if (Status s = launchOver(*fn, positions * inner, params, "fx_mask_gather"); !s.ok()) return s.error();
    }
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> maskIndexPutOnDevice(DeviceCall& c) {
    // index_put(self, [mask], values, accumulate=False) -> self's shape
    const TensorMeta* om = c.out0();
    const OpArgs* A = c.args();
    auto self = c.view(0), values = c.view(2);
    if (!A || !om || !om->isContiguous() || !self || !values || self->meta.dtype != om->dtype ||
        values->meta.dtype != om->dtype || self->meta.shape != om->shape)
        return false;
    auto mask = soleMask(c, 1, *self);
    if (!mask) return false;
    const bool accumulate = A->size() > 3 && !A->isNone(3) && A->toBool(3);
    const char* suffix = om->dtype == DType::Bool ? (accumulate ? nullptr : "u8") : kernelSuffix(om->dtype);
    if (!suffix) return false;
    // values broadcast to [rows] + the dims after the mask's; rows is its own leading dim there
    // when it has one of more than 1, else it broadcasts along the set positions.
    const size_t k = mask->meta.shape.size();
    std::vector<int64_t> rest(self->meta.shape.begin() + static_cast<std::ptrdiff_t>(k), self->meta.shape.end());
    const std::vector<int64_t>& vs = values->meta.shape;
    if (vs.size() > rest.size() + 1) return false;
    int64_t valueRows = vs.size() == rest.size() + 1 ? vs[0] : 1;
    std::vector<int64_t> vshape{valueRows};
    vshape.insert(vshape.end(), rest.begin(), rest.end());
    for (size_t i = 0; i < vs.size(); ++i) {
        const int64_t want = vshape[vshape.size() - vs.size() + i];
        if (vs[i] != 1 && vs[i] != want) return false;
    }
    auto fn = opKernelModule("mask_index.cu")->function(std::string("fx_mask_put_") + suffix);
    if (!fn.ok()) return fn.error();
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = stridedCopy(*self, **o); !s.ok()) return s.error();
    int64_t positions = mask->meta.numel(), inner = product(rest, 0), rowStride = valueRows == 1 ? 0 : inner;
    int acc = accumulate ? 1 : 0;
    if (positions * inner > 0) {
        DeviceBuffer tr, tm, tv;
        auto md = rankMask(*mask, tr, tm);
        if (!md.ok()) return md.error();
        auto vd = expandDense(*values, vshape, tv);
        if (!vd.ok()) return vd.error();
        CUdeviceptr pv = elementAddr(*vd), pm = elementAddr(*md), pr = tr.ptr(), po = elementAddr(**o);
        void* params[] = {&pv, &pm, &pr, &po, &positions, &inner, &rowStride, &valueRows, &acc};
        if (Status s = launchOver(*fn, positions * inner, params, "fx_mask_put"); !s.ok()) return s.error();
    }
    ++c.stats().deviceExterns;
    return true;
}

}  // namespace fxray::cg::cuda
