// The device externs of the embedding bags (kernels/embedding_bag.cu): _embedding_bag and
// _embedding_bag_forward_only, _embedding_bag_backward (dense) and
// _embedding_bag_per_sample_weights_backward, for fp32/fp64 tables and int64 indices and
// offsets, the auxiliary outputs in the layouts the reference's meta function gives (CUDA's or
// CPU's). Other instances (int32 indices, sparse gradients) decline to the host before anything
// is allocated.
#include "codegen/cuda/op_externs.h"

#include "codegen/cuda/op_kernels.h"

#include <string>

namespace fxray::cg::cuda {

namespace {

bool tableType(DType t) { return t == DType::Float32 || t == DType::Float64; }

bool vec1(const std::optional<DeviceView>& v, DType t) {
    return v && v->meta.dtype == t && v->meta.shape.size() == 1;
}

int64_t argOr(const OpArgs& A, size_t i, int64_t dflt) { return A.size() > i && !A.isNone(i) ? A.toInt(i) : dflt; }


}  // namespace

// _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
//                include_last_offset, padding_idx) -> (out, offset2bag, bag_size, max_indices)
Expected<bool> embeddingBagOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    if (!A || c.outCount() != 4 || !c.hasOut(0)) return false;
    auto w = c.view(0), idx = c.view(1), off = c.view(2);
    if (!w || !tableType(w->meta.dtype) || w->meta.shape.size() != 2 || !vec1(idx, DType::Int64) ||
        !vec1(off, DType::Int64))
        return false;
    const int64_t mode = A->toInt(4), pad = argOr(*A, 8, -1), rows = w->meta.shape[0], D = w->meta.shape[1];
    const int64_t n = idx->meta.shape[0], numOffsets = off->meta.shape[0];
    const bool lastOffset = A->size() > 7 && !A->isNone(7) && A->toBool(7);
    std::optional<DeviceView> psw;
    if (A->size() > 6 && !A->isNone(6)) {
        psw = c.view(6);
        if (!vec1(psw, w->meta.dtype) || psw->meta.shape[0] != n || mode != 0) return false;
    }
    const TensorMeta* om = c.outMeta(0);
    if (mode < 0 || mode > 2 || om->dtype != w->meta.dtype || !om->isContiguous() || om->shape.size() != 2 ||
        om->shape[1] != D)
        return false;
    const int64_t bags = om->shape[0];
    // Without features no thread would write offset2bag and bag_size: the host has the rule.
    if (bags * D == 0 && n > 0) return false;
    if (bags > numOffsets || (lastOffset && bags + 1 > numOffsets)) return false;
    // The auxiliary outputs in the layouts of the inputs' device (exec/ops/embedding_bag.cpp):
    // offset2bag [n] or empty (CPU's sums), bag_size at least [bags], max_indices [bags, D] in
    // max mode, else empty (CUDA) or holding the bag sizes (CPU).
    const TensorMeta* aux[3] = {c.outMeta(1), c.outMeta(2), c.outMeta(3)};
    for (const TensorMeta* m : aux)
        if (m && (m->dtype != DType::Int64 || !m->isContiguous())) return false;
    if ((aux[0] && aux[0]->numel() != n && aux[0]->numel() != 0) || (aux[1] && aux[1]->numel() < bags) ||
        (aux[2] && (mode == 2 ? aux[2]->numel() != bags * D : aux[2]->numel() != 0 && aux[2]->numel() < bags)))
        return false;
    auto fn = opKernelModule("embedding_bag.cu")->function(std::string("fx_embedding_bag_") + kernelSuffix(om->dtype));
    if (!fn.ok()) return fn.error();
    auto outs = c.outs(4);
    if (!outs.ok()) return outs.error();
    const auto& o = *outs;
    // Outputs the graph dropped that the kernel writes anyway: scratch.
    DeviceBuffer tw, ti, to, tp, sSize, sMax;
    std::optional<DeviceView> bagSize = o[2], maxIdx = mode == 2 ? o[3] : std::nullopt;
    if (!bagSize) {
        auto s = denseBuffer({bags}, DType::Int64, sSize);
        if (!s.ok()) return s.error();
        bagSize = *s;
    }
    if (mode == 2 && !maxIdx) {
        auto s = denseBuffer({bags * D}, DType::Int64, sMax);
        if (!s.ok()) return s.error();
        maxIdx = *s;
    }
    const std::optional<DeviceView> o2b = o[1] && o[1]->meta.numel() != 0 ? o[1] : std::nullopt;
    const std::optional<DeviceView> sizeCopy = mode != 2 && o[3] && o[3]->meta.numel() != 0 ? o[3] : std::nullopt;
    // What no thread writes (bag_size past the bags, offset2bag before the first offset) stays 0.
    const std::optional<DeviceView>* zeroed[] = {&o2b, &bagSize, &sizeCopy};
    for (const auto* v : zeroed)
        if (*v)
            if (Status st = zeroFill(**v); !st.ok()) return st.error();
    auto wd = denseView(*w, tw), id = denseView(*idx, ti), od = denseView(*off, to);
    if (!wd.ok()) return wd.error();
    if (!id.ok()) return id.error();
    if (!od.ok()) return od.error();
    CUdeviceptr pp = 0;
    if (psw) {
        auto pd = denseView(*psw, tp);
        if (!pd.ok()) return pd.error();
        pp = elementAddr(*pd);
    }
    auto addr = [](const std::optional<DeviceView>& v) { return v ? elementAddr(*v) : CUdeviceptr{0}; };
    CUdeviceptr pw = elementAddr(*wd), pi = elementAddr(*id), po = elementAddr(*od), py = elementAddr(*o[0]),
                p2 = addr(o2b), ps = addr(bagSize), pm = addr(maxIdx), pc = addr(sizeCopy);
    int64_t nb = bags, nd = D, ni = n, nr = rows, np = pad;
    int md = static_cast<int>(mode);
    // CPU's rule: with include_last_offset the last bag ends at the last offset.
    int lastAtOffset = lastOffset && off->meta.device.type == "cpu" ? 1 : 0;
    void* params[] = {&pw, &pi, &po, &pp, &py, &p2, &ps, &pm, &pc, &nb, &nd, &ni, &nr, &np, &md, &lastAtOffset};
    if (bags * D > 0)
        if (Status st = launchOver(*fn, bags * D, params, "fx_embedding_bag"); !st.ok()) return st.error();
    ++c.stats().deviceExterns;
    return true;
}

// _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices,
//                         num_weights, scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx)
Expected<bool> embeddingBagBackwardOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    const TensorMeta* om = c.out0();
    if (!A || !om || !tableType(om->dtype) || !om->isContiguous() || A->toBool(9)) return false;
    auto g = c.view(0), idx = c.view(1), off = c.view(2), o2b = c.view(3), bagSize = c.view(4), maxIdx = c.view(5);
    const int64_t mode = A->toInt(8), pad = argOr(*A, 11, -1), rows = A->toInt(6);
    if (!g || g->meta.dtype != om->dtype || g->meta.shape.size() != 2 || !vec1(idx, DType::Int64) ||
        !vec1(off, DType::Int64) || !vec1(bagSize, DType::Int64) || !maxIdx || maxIdx->meta.dtype != DType::Int64 ||
        mode < 0 || mode > 2)
        return false;
    const int64_t bags = g->meta.shape[0], D = g->meta.shape[1], n = idx->meta.shape[0];
    if (om->shape != std::vector<int64_t>{rows, D} || bagSize->meta.shape[0] < bags) return false;
    // An empty offset2bag (CPU's fast path for sums) is rebuilt from the offsets in the kernel.
    if (mode != 2 && (!vec1(o2b, DType::Int64) || (o2b->meta.shape[0] != n && o2b->meta.shape[0] != 0))) return false;
    if (mode == 2 && maxIdx->meta.numel() != bags * D) return false;
    std::optional<DeviceView> psw;
    if (A->size() > 10 && !A->isNone(10)) {
        psw = c.view(10);
        if (!vec1(psw, om->dtype) || psw->meta.shape[0] != n || mode != 0) return false;
    }
    auto& mod = *opKernelModule("embedding_bag.cu");
    auto fn = mod.function(std::string("fx_embedding_bag_bwd_") + kernelSuffix(om->dtype));
    if (!fn.ok()) return fn.error();
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = zeroFill(**o); !s.ok()) return s.error();
    DeviceBuffer tg, ti, to, t2, ts, tm, tp, tc;
    auto gd = denseView(*g, tg), id = denseView(*idx, ti), sd = denseView(*bagSize, ts), md = denseView(*maxIdx, tm),
         od = denseView(*off, to);
    if (!od.ok()) return od.error();
    if (!gd.ok()) return gd.error();
    if (!id.ok()) return id.error();
    if (!sd.ok()) return sd.error();
    if (!md.ok()) return md.error();
    CUdeviceptr p2 = 0, pp = 0, pc = 0;
    if (mode != 2 && o2b->meta.numel() != 0) {
        auto d2 = denseView(*o2b, t2);
        if (!d2.ok()) return d2.error();
        p2 = elementAddr(*d2);
    }
    if (psw) {
        auto pd = denseView(*psw, tp);
        if (!pd.ok()) return pd.error();
        pp = elementAddr(*pd);
    }
    CUdeviceptr pg = elementAddr(*gd), pi = elementAddr(*id), ps = elementAddr(*sd), pm = elementAddr(*md),
                pgw = elementAddr(**o), po = elementAddr(*od);
    int64_t nb = bags, nd = D, ni = n, nr = rows, np = pad, no = off->meta.shape[0];
    if (A->toBool(7) && n > 0) {
        auto counts = denseBuffer({rows}, DType::Int64, tc);
        if (!counts.ok()) return counts.error();
        if (Status s = zeroFill(*counts); !s.ok()) return s.error();
        auto cf = mod.function("fx_eb_count_rows");
        if (!cf.ok()) return cf.error();
        pc = elementAddr(*counts);
        void* cparams[] = {&pi, &pc, &ni, &nr};
        if (Status s = launchOver(*cf, n, cparams, "fx_eb_count_rows"); !s.ok()) return s.error();
    }
    int mdv = static_cast<int>(mode);
    void* params[] = {&pg, &pi, &p2, &po, &no, &ps, &pm, &pp, &pc, &pgw, &nb, &nd, &ni, &nr, &np, &mdv};
    const int64_t work = (mode == 2 ? bags : n) * D;
    if (work > 0)
        if (Status s = launchOver(*fn, work, params, "fx_embedding_bag_bwd"); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

// _embedding_bag_per_sample_weights_backward(grad, weight, indices, offsets, offset2bag, mode, padding_idx)
Expected<bool> perSampleWeightsBackwardOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    const TensorMeta* om = c.out0();
    if (!A || !om || !tableType(om->dtype) || !om->isContiguous() || A->toInt(5) != 0) return false;
    auto g = c.view(0), w = c.view(1), idx = c.view(2), off = c.view(3), o2b = c.view(4);
    if (!g || !w || g->meta.dtype != om->dtype || w->meta.dtype != om->dtype || g->meta.shape.size() != 2 ||
        w->meta.shape.size() != 2 || g->meta.shape[1] != w->meta.shape[1] || !vec1(idx, DType::Int64) ||
        !vec1(off, DType::Int64) || !vec1(o2b, DType::Int64) ||
        (o2b->meta.shape[0] != idx->meta.shape[0] && o2b->meta.shape[0] != 0) || om->numel() != idx->meta.shape[0])
        return false;
    auto fn = opKernelModule("embedding_bag.cu")->function(std::string("fx_eb_psw_bwd_") + kernelSuffix(om->dtype));
    if (!fn.ok()) return fn.error();
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    DeviceBuffer tg, tw, ti, to, t2;
    auto gd = denseView(*g, tg), wd = denseView(*w, tw), id = denseView(*idx, ti), od = denseView(*off, to);
    if (!gd.ok()) return gd.error();
    if (!wd.ok()) return wd.error();
    if (!id.ok()) return id.error();
    if (!od.ok()) return od.error();
    CUdeviceptr p2 = 0;  // an empty offset2bag: rebuilt from the offsets in the kernel
    if (o2b->meta.numel() != 0) {
        auto d2 = denseView(*o2b, t2);
        if (!d2.ok()) return d2.error();
        p2 = elementAddr(*d2);
    }
    CUdeviceptr pg = elementAddr(*gd), pw = elementAddr(*wd), pi = elementAddr(*id), poff = elementAddr(*od),
                po = elementAddr(**o);
    int64_t nb = g->meta.shape[0], nd = g->meta.shape[1], ni = idx->meta.shape[0], nr = w->meta.shape[0],
            np = argOr(*A, 6, -1), no = off->meta.shape[0];
    void* params[] = {&pg, &pw, &pi, &p2, &poff, &no, &po, &nb, &nd, &ni, &nr, &np};
    if (ni > 0)
        if (Status s = launchOver(*fn, ni, params, "fx_eb_psw_bwd"); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}


}  // namespace fxray::cg::cuda
