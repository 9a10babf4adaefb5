// Device externs for embedding bags (embedding_bag_kernels.h): _embedding_bag and
// _embedding_bag_forward_only, the dense _embedding_bag_backward and
// _embedding_bag_per_sample_weights_backward, in the layouts of either device (with offsets on the
// CPU, include_last_offset ends the last bag at the last offset, as CPU's kernels do; elsewhere
// at the end of the indices, as CUDA's do), int64 or int32 indices and offsets. Declined to the
// host: sparse gradients, per-sample weights outside sum mode, tables other than fp32/fp64.
// Listed in deviceExternTable().
#include "codegen/cuda/device_externs.h"
#include "codegen/cuda/embedding_bag_kernels.h"

namespace fxray::cg::cuda {

namespace {

/// An int64 or int32 tensor of this rank on the device.
bool indexOn(const std::optional<DeviceView>& v, size_t rank) {
    return v && (v->meta.dtype == DType::Int64 || v->meta.dtype == DType::Int32) && v->meta.shape.size() == rank;
}

Expected<bool> embeddingBagOnDevice(DeviceCall& c) {
    // (weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
    //  include_last_offset, padding_idx) -> (out, offset2bag, bag_size, max_indices)
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && embeddingBagSupports(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A || c.outCount() != 4) return false;
    auto w = c.view(0), idx = c.view(1), off = c.view(2);
    std::optional<DeviceView> psw = A->isNone(6) ? std::nullopt : c.view(6);
    const int64_t mode = A->toInt(4), n = idx ? idx->meta.numel() : 0;
    if (!w || w->meta.dtype != om->dtype || w->meta.shape.size() != 2 || !indexOn(idx, 1) || !indexOn(off, 1) ||
        mode < 0 || mode > 2 || om->shape.size() != 2 || om->shape[1] != w->meta.shape[1])
        return false;
    if (off->meta.numel() < om->shape[0] + (A->toBool(7) ? 1 : 0)) return false;
    if (!A->isNone(6) && (!psw || mode != 0 || psw->meta.dtype != om->dtype || psw->meta.numel() != n)) return false;
    // The auxiliary outputs: dense, of one index dtype (the indices' on CUDA, the offsets' on the CPU).
    const DType aux = off->meta.device.type == "cpu" ? off->meta.dtype : idx->meta.dtype;
    for (size_t i = 1; i < 4; ++i)
        if (c.hasOut(i) && (c.outMeta(i)->dtype != aux || !c.outMeta(i)->isContiguous())) return false;
    auto outs = c.outs(4);
    if (!outs.ok()) return outs.error();
    const auto& o = *outs;
    const int64_t pad = A->size() > 8 && !A->isNone(8) ? A->toInt(8) : -1;
    const bool lastAtOffset = A->toBool(7) && off->meta.device.type == "cpu";
    if (Status s = embeddingBagForward(*w, *idx, *off, psw, mode, pad, lastAtOffset, *o[0], o[1], o[2], o[3]); !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> embeddingBagBackwardOnDevice(DeviceCall& c) {
    // (grad, indices, offsets, offset2bag, bag_size, maximum_indices, num_weights,
    //  scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx)
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && embeddingBagSupports(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A || A->toBool(9)) return false;  // sparse: the host
    auto g = c.view(0), idx = c.view(1), off = c.view(2), o2b = c.view(3), size = c.view(4), maxIdx = c.view(5);
    std::optional<DeviceView> psw = A->isNone(10) ? std::nullopt : c.view(10);
    const int64_t mode = A->toInt(8), n = idx ? idx->meta.numel() : 0;
    if (!g || g->meta.dtype != om->dtype || g->meta.shape.size() != 2 || !indexOn(idx, 1) || !indexOn(off, 1) ||
        !indexOn(o2b, 1) || !indexOn(size, 1) || !maxIdx ||
        (maxIdx->meta.dtype != DType::Int64 && maxIdx->meta.dtype != DType::Int32) || mode < 0 || mode > 2 ||
        om->shape.size() != 2 || om->shape[0] != A->toInt(6) || om->shape[1] != g->meta.shape[1])
        return false;
    if ((o2b->meta.numel() != 0 && o2b->meta.numel() != n) || (mode == 2 && maxIdx->meta.numel() != g->meta.numel()) ||
        (mode == 1 && size->meta.numel() < g->meta.shape[0]))
        return false;
    if (!A->isNone(10) && (!psw || psw->meta.dtype != om->dtype || psw->meta.numel() != n)) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s =
            embeddingBagBackward(*g, *idx, *off, *o2b, *size, *maxIdx, psw, mode, A->toInt(11), A->toBool(7), **o);
        !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> perSampleWeightsBackwardOnDevice(DeviceCall& c) {
    // (grad, weight, indices, offsets, offset2bag, mode, padding_idx)
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && embeddingBagSupports(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A || A->toInt(5) != 0) return false;
    auto g = c.view(0), w = c.view(1), idx = c.view(2), off = c.view(3), o2b = c.view(4);
    if (!g || !w || g->meta.dtype != om->dtype || w->meta.dtype != om->dtype || g->meta.shape.size() != 2 ||
        w->meta.shape.size() != 2 || g->meta.shape[1] != w->meta.shape[1] || !indexOn(idx, 1) || !indexOn(off, 1) ||
        !indexOn(o2b, 1) || om->numel() != idx->meta.numel() ||
        (o2b->meta.numel() != 0 && o2b->meta.numel() != idx->meta.numel()))
        return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = embeddingBagPerSampleWeightsBackward(*g, *w, *idx, *off, *o2b, A->toInt(6), **o); !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

}  // namespace

const std::vector<DeviceExtern>& embeddingBagDeviceExterns() {
    static const std::vector<DeviceExtern> t = {
        {"embedding_bag", embeddingBagOnDevice},
        {"embedding_bag_backward", embeddingBagBackwardOnDevice},
        {"embedding_bag_per_sample_weights_backward", perSampleWeightsBackwardOnDevice},
    };
    return t;
}

}  // namespace fxray::cg::cuda
