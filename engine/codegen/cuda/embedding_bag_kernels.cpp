// Host side of kernels/embedding_bag.cu: argument blocks, dense operands, launches.
#include "codegen/cuda/embedding_bag_kernels.h"

#include "codegen/cuda/kernel_module.h"

#include "codegen/cuda/kernels/embedding_bag_args.h"

#include <algorithm>
#include <array>

namespace fxray::cg::cuda {

namespace {

KernelModule& bagModule() {
    static KernelModule* m =
        new KernelModule("fxray_embedding_bag", {"embedding_bag_args.h", "embedding_bag.cu"});  // never destroyed
    return *m;
}

/// Dense copies of the operands where they are not dense already (held for the launch).
struct Dense {
    std::array<DeviceBuffer, 8> tmp;
    size_t used = 0;
    Expected<CUdeviceptr> operator()(const std::optional<DeviceView>& v) {
        if (!v || v->meta.numel() == 0) return CUdeviceptr{0};
        auto d = denseView(*v, tmp[used++]);
        if (!d.ok()) return d.error();
        return d->address();
    }
};

Status zero(const std::optional<DeviceView>& v) {
    if (!v || v->meta.numel() == 0) return Status::success();
    return check(
        runtime().cu.cuMemsetD8(v->address(), 0, static_cast<size_t>(v->meta.numel()) * dtypeItemSize(v->meta.dtype)),
        "zeroing an embedding bag output");
}

/// Launches the module's kernel `entry` over `work` items.
Status launchEntry(const std::string& entry, int64_t work, void** params) {
    auto fn = bagModule().function(entry);
    if (!fn.ok()) return fn.error();
    const int64_t cap = static_cast<int64_t>(std::max(1, runtime().smCount)) * 32;
    return launchGrid(*fn, static_cast<unsigned>(std::clamp<int64_t>((work + 127) / 128, 1, cap)), 1, 128, params,
                      entry.c_str());
}

/// Launches kernel `name`'s variant for tables of dtype t.
Status launch(const char* name, DType t, int64_t work, void** params) {
    return launchEntry(std::string(name) + (t == DType::Float64 ? "_f64" : "_f32"), work, params);
}

bool indexDtype(DType t) { return t == DType::Int64 || t == DType::Int32; }

/// An index tensor's element size for the kernels (8 or 4); 8 where absent.
int indexSize(const std::optional<DeviceView>& v) { return v ? static_cast<int>(dtypeItemSize(v->meta.dtype)) : 8; }

/// Absent, or a dense index tensor of dtype t.
bool denseIndex(const std::optional<DeviceView>& v, DType t) {
    return !v || (v->meta.dtype == t && v->meta.isContiguous());
}

}  // namespace

Expected<std::string> embeddingBagSource() { return bagModule().source(); }

bool embeddingBagSupports(DType t) { return t == DType::Float32 || t == DType::Float64; }

Status embeddingBagForward(const DeviceView& weight, const DeviceView& indices, const DeviceView& offsets,
                           const std::optional<DeviceView>& perSampleWeights, int64_t mode, int64_t pad,
                           bool lastAtOffset, const DeviceView& out, const std::optional<DeviceView>& offset2bag,
                           const std::optional<DeviceView>& bagSize, const std::optional<DeviceView>& maxIndices) {
    const DType t = weight.meta.dtype;
    // The auxiliary outputs share one index dtype (CUDA's: the indices', CPU's: the offsets').
    const DType aux = offset2bag   ? offset2bag->meta.dtype
                      : bagSize    ? bagSize->meta.dtype
                      : maxIndices ? maxIndices->meta.dtype
                                   : DType::Int64;
    if (!embeddingBagSupports(t) || weight.meta.shape.size() != 2 || !indexDtype(indices.meta.dtype) ||
        !indexDtype(offsets.meta.dtype) || !indexDtype(aux) || out.meta.dtype != t || !out.meta.isContiguous() ||
        out.meta.shape.size() != 2 || !denseIndex(offset2bag, aux) || !denseIndex(bagSize, aux) ||
        !denseIndex(maxIndices, aux))
        return makeError("device embedding bag: operands");
    FxBagArgs a{};
    a.bags = out.meta.shape[0];
    a.D = weight.meta.shape[1];
    a.n = indices.meta.numel();
    a.rows = weight.meta.shape[0];
    a.pad = pad;
    a.mode = mode;
    a.o2bLen = offset2bag ? offset2bag->meta.numel() : 0;
    a.sizeLen = bagSize ? bagSize->meta.numel() : 0;
    a.auxLen = maxIndices ? maxIndices->meta.numel() : 0;
    a.hasPsw = perSampleWeights ? 1 : 0;
    a.lastAtOffset = lastAtOffset ? 1 : 0;
    a.idxSize = indexSize(indices);
    a.offSize = indexSize(offsets);
    a.auxSize = static_cast<int>(dtypeItemSize(aux));
    if (lastAtOffset && offsets.meta.numel() <= a.bags)
        return makeError("device embedding bag: the last bag's end offset is missing");
    for (const auto* o : {&offset2bag, &bagSize, &maxIndices})
        if (Status s = zero(*o); !s.ok()) return s;
    if (a.bags == 0) return Status::success();
    Dense dense;
    auto pw = dense(weight), pi = dense(indices), po = dense(offsets), pp = dense(perSampleWeights);
    for (auto* e : {&pw, &pi, &po, &pp})
        if (!e->ok()) return e->error();
    CUdeviceptr a0 = *pw, a1 = *pi, a2 = *po, a3 = *pp, a4 = out.address(), a5 = offset2bag ? offset2bag->address() : 0,
                a6 = bagSize ? bagSize->address() : 0, a7 = maxIndices ? maxIndices->address() : 0;
    void* params[] = {&a0, &a1, &a2, &a3, &a4, &a5, &a6, &a7, &a};
    return launch("fx_bag_forward", t, a.bags, params);
}

Status embeddingBagBackward(const DeviceView& grad, const DeviceView& indices, const DeviceView& offsets,
                            const DeviceView& offset2bag, const DeviceView& bagSize, const DeviceView& maxIndices,
                            const std::optional<DeviceView>& perSampleWeights, int64_t mode, int64_t pad,
                            bool scaleByFreq, const DeviceView& gradWeight) {
    const DType t = grad.meta.dtype;
    if (!embeddingBagSupports(t) || grad.meta.shape.size() != 2 || gradWeight.meta.dtype != t ||
        !gradWeight.meta.isContiguous() || gradWeight.meta.shape.size() != 2)
        return makeError("device embedding bag backward: operands");
    for (const DeviceView* v : {&indices, &offsets, &offset2bag, &bagSize, &maxIndices})
        if (!indexDtype(v->meta.dtype)) return makeError("device embedding bag backward: int64 or int32 indices");
    FxBagBackArgs a{};
    a.bags = grad.meta.shape[0];
    a.D = grad.meta.shape[1];
    a.n = indices.meta.numel();
    a.rows = gradWeight.meta.shape[0];
    a.pad = pad;
    a.mode = mode;
    a.o2bLen = offset2bag.meta.numel();
    a.offLen = offsets.meta.numel();
    a.sizeLen = bagSize.meta.numel();
    a.hasPsw = perSampleWeights ? 1 : 0;
    a.scaleByFreq = scaleByFreq ? 1 : 0;
    a.idxSize = indexSize(indices);
    a.offSize = indexSize(offsets);
    a.o2bSize = indexSize(offset2bag);
    a.sizeSize = indexSize(bagSize);
    a.maxSize = indexSize(maxIndices);
    if (Status s = zero(gradWeight); !s.ok()) return s;
    if ((mode == 2 ? a.bags : a.n) * a.D == 0) return Status::success();
    Dense dense;
    auto pg = dense(grad), pi = dense(indices), po = dense(offsets), pb = dense(offset2bag), ps = dense(bagSize),
         pm = dense(maxIndices), pp = dense(perSampleWeights);
    for (auto* e : {&pg, &pi, &po, &pb, &ps, &pm, &pp})
        if (!e->ok()) return e->error();
    // scale_grad_by_freq: every row's count among the indices first (int64 [rows], zeroed).
    DeviceBuffer counts;
    if (scaleByFreq && a.rows > 0) {
        auto buf = DeviceBuffer::allocate(static_cast<size_t>(a.rows) * sizeof(int64_t));
        if (!buf.ok()) return buf.error();
        counts = std::move(buf).value();
        if (Status s = check(runtime().cu.cuMemsetD8(counts.ptr(), 0, static_cast<size_t>(a.rows) * sizeof(int64_t)),
                             "zeroing embedding bag frequency counts");
            !s.ok())
            return s;
        CUdeviceptr ci = *pi, cc = counts.ptr();
        void* params[] = {&ci, &cc, &a};
        if (Status s = launchEntry("fx_bag_count", a.n, params); !s.ok()) return s;
    }
    CUdeviceptr a0 = *pg, a1 = *pi, a2 = *po, a3 = *pb, a4 = *ps, a5 = *pm, a6 = *pp, a7 = gradWeight.address(),
                a8 = counts.ptr();
    if (mode == 2) {
        void* params[] = {&a0, &a5, &a4, &a8, &a7, &a};
        return launch("fx_bag_backward_max", t, a.bags * a.D, params);
    }
    void* params[] = {&a0, &a1, &a2, &a3, &a4, &a6, &a8, &a7, &a};
    return launch("fx_bag_backward", t, a.n * a.D, params);
}

Status embeddingBagPerSampleWeightsBackward(const DeviceView& grad, const DeviceView& weight, const DeviceView& indices,
                                            const DeviceView& offsets, const DeviceView& offset2bag, int64_t pad,
                                            const DeviceView& out) {
    const DType t = grad.meta.dtype;
    if (!embeddingBagSupports(t) || grad.meta.shape.size() != 2 || weight.meta.shape.size() != 2 ||
        weight.meta.dtype != t || out.meta.dtype != t || !out.meta.isContiguous() || !indexDtype(indices.meta.dtype) ||
        !indexDtype(offsets.meta.dtype) || !indexDtype(offset2bag.meta.dtype))
        return makeError("device embedding bag per-sample weights backward: operands");
    FxBagBackArgs a{};
    a.bags = grad.meta.shape[0];
    a.D = grad.meta.shape[1];
    a.n = indices.meta.numel();
    a.rows = weight.meta.shape[0];
    a.pad = pad;
    a.o2bLen = offset2bag.meta.numel();
    a.offLen = offsets.meta.numel();
    a.idxSize = indexSize(indices);
    a.offSize = indexSize(offsets);
    a.o2bSize = indexSize(offset2bag);
    if (a.n == 0) return Status::success();
    Dense dense;
    auto pg = dense(grad), pw = dense(weight), pi = dense(indices), po = dense(offsets), pb = dense(offset2bag);
    for (auto* e : {&pg, &pw, &pi, &po, &pb})
        if (!e->ok()) return e->error();
    CUdeviceptr a0 = *pg, a1 = *pw, a2 = *pi, a3 = *po, a4 = *pb, a5 = out.address();
    void* params[] = {&a0, &a1, &a2, &a3, &a4, &a5, &a};
    return launch("fx_bag_psw_backward", t, a.n, params);
}

}  // namespace fxray::cg::cuda
