#include "codegen/cuda/attention_gemm.h"

#include "codegen/cuda/attention_common.h"
#include "codegen/cuda/dl_util.h"

#include <algorithm>
#include <cmath>

namespace fxray::cg::cuda {

using namespace attn;

namespace {

/// Workspace bound of the automatic choice: one [B*H, M, N] fp32 matrix (the backward holds two).
constexpr double kAutoWorkspace = 64.0 * 1024 * 1024;
constexpr double kMaxWorkspace = 2.0 * 1024 * 1024 * 1024;

/// v [B, H, R, E] as a batched [B*H, R, E] view: itself where B and H merge into one stride, else
/// a dense copy in tmp. The copy pays: one strided-batched GEMM per head over the batch, reading
/// q/k/v in place (q, k, v sliced out of ViT's fused qkv projection), measured slower on an H200
/// (ViT-S/16 b16: attention forward 129 -> 134 us, backward 257 -> 356 us per call; issue 17).
Expected<DeviceView> batched(const DeviceView& v, DeviceBuffer& tmp) {
    const auto& s = v.meta.shape;
    const auto& st = v.meta.strides;
    DeviceView r = v;
    if (s[0] == 1 || st[0] == st[1] * s[1]) {
        r.meta.shape = {s[0] * s[1], s[2], s[3]};
        r.meta.strides = {st[1], st[2], st[3]};
        if (s[1] == 1) r.meta.strides[0] = st[0];
        return r;
    }
    auto d = denseView(v, tmp);
    if (!d.ok()) return d.error();
    r = *d;
    r.meta.shape = {s[0] * s[1], s[2], s[3]};
    r.meta.strides = TensorMeta::contiguousStrides(r.meta.shape);
    return r;
}

/// The transpose of the last two dims of a batched view (no copy).
DeviceView transposed(DeviceView v) {
    std::swap(v.meta.shape[1], v.meta.shape[2]);
    std::swap(v.meta.strides[1], v.meta.strides[2]);
    return v;
}

/// A dense fp32 [batch, rows, cols] buffer and its view.
struct Dense {
    DeviceBuffer buf;
    DeviceView view;
};
Expected<Dense> denseF32(int64_t batch, int64_t rows, int64_t cols, Device dev) {
    Dense d;
    TensorMeta m = TensorMeta::contiguous({batch, rows, cols}, DType::Float32, dev);
    auto b = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(m.numel(), 1)) * sizeof(float));
    if (!b.ok()) return b.error();
    d.buf = std::move(b).value();
    d.view = DeviceView{d.buf.ptr(), m};
    return d;
}

/// dst [B, H, R, E] (any strides) = the dense batched [B*H, R, E] src.
Status unbatch(const DeviceView& src, const DeviceView& dst) {
    DeviceView s = src;
    s.meta.shape = dst.meta.shape;
    s.meta.strides = TensorMeta::contiguousStrides(dst.meta.shape);
    return stridedCopy(s, dst);
}

Status launchRows(const char* fn, int64_t rows, void** params) {
    auto f = attentionModule().function(fn);
    if (!f.ok()) return f.error();
    const int64_t blocks = (rows * 32 + 255) / 256;
    return launchGrid(*f, static_cast<unsigned>(blocks), 1, 256, params, fn);
}

}  // namespace

bool attentionUsesGemm(const TensorMeta& q, const TensorMeta& k) {
    if (q.dtype != DType::Float32 || q.shape.size() != 4 || k.shape.size() != 4) return false;
    const double bytes = 4.0 * static_cast<double>(q.shape[0] * q.shape[1]) * static_cast<double>(q.shape[2]) *
                         static_cast<double>(k.shape[2]);
    const std::string force = envOr("FXRAY_ATTENTION");
    if (force == "fused") return false;
    if (force == "gemm") return bytes <= kMaxWorkspace;
    return bytes <= kAutoWorkspace;
}

Status attentionForwardGemm(const DeviceView& q, const DeviceView& k, const DeviceView& v,
                            const std::optional<DeviceView>& bias, const DeviceView& out,
                            const std::optional<DeviceView>& lse, double scale, CausalMask causal) {
    auto a = argsOf(q.meta, k.meta, v.meta, bias ? &bias->meta : nullptr, out.meta, scale, causal);
    if (!a.ok()) return a.error();
    if (!sameDtype(DType::Float32, {&q, &k, &v, &out, bias ? &*bias : nullptr}))
        return makeError("the GEMM attention path is fp32 only");
    const int64_t BH = a->B * a->H;
    DeviceBuffer tq, tk, tv;
    auto qb = batched(q, tq), kb = batched(k, tk), vb = batched(v, tv);
    for (auto* e : {&qb, &kb, &vb})
        if (!e->ok()) return e->error();
    auto S = denseF32(BH, a->M, a->N, q.meta.device);
    if (!S.ok()) return S.error();
    if (Status s = gemm(*qb, transposed(*kb), S->view, scale, 0.0); !s.ok()) return s;
    auto lsePtr = forwardLse(lse, *a);
    if (!lsePtr.ok()) return lsePtr.error();
    CUdeviceptr plse = *lsePtr;
    CUdeviceptr pS = S->view.base, pb = bias ? bias->base : 0;
    void* params[] = {&pS, &pb, &plse, &*a};
    if (Status s = launchRows("fx_attn_rows_softmax", BH * std::max(a->M, a->lseLen), params); !s.ok()) return s;
    auto O = denseF32(BH, a->M, a->Kv, q.meta.device);
    if (!O.ok()) return O.error();
    if (Status s = gemm(S->view, *vb, O->view, 1.0, 0.0); !s.ok()) return s;
    return unbatch(O->view, out);
}

Status attentionBackwardGemm(const DeviceView& gradOut, const DeviceView& q, const DeviceView& k, const DeviceView& v,
                             const std::optional<DeviceView>& bias, const DeviceView& out, const DeviceView& lse,
                             double scale, CausalMask causal, const std::optional<DeviceView>& gq,
                             const std::optional<DeviceView>& gk, const std::optional<DeviceView>& gv,
                             const std::optional<DeviceView>& gbias) {
    auto a = argsOf(q.meta, k.meta, v.meta, bias ? &bias->meta : nullptr, out.meta, scale, causal);
    if (!a.ok()) return a.error();
    if (!sameDtype(DType::Float32, {&q, &k, &v, &out, &gradOut, bias ? &*bias : nullptr}))
        return makeError("the GEMM attention path is fp32 only");
    strides4(gradOut.meta, a->gs);
    a->goff = gradOut.meta.offset;
    if (Status s = backwardLse(lse, *a); !s.ok()) return s;
    const int64_t BH = a->B * a->H;
    const Device dev = q.meta.device;
    DeviceBuffer tq, tk, tv, tg;
    auto qb = batched(q, tq), kb = batched(k, tk), vb = batched(v, tv), gb = batched(gradOut, tg);
    for (auto* e : {&qb, &kb, &vb, &gb})
        if (!e->ok()) return e->error();
    // P from the forward's logsumexp.
    auto P = denseF32(BH, a->M, a->N, dev);
    if (!P.ok()) return P.error();
    if (Status s = gemm(*qb, transposed(*kb), P->view, scale, 0.0); !s.ok()) return s;
    CUdeviceptr pP = P->view.base, pb = bias ? bias->base : 0, pl = bytePtr(lse, lse.meta.offset);
    {
        void* params[] = {&pP, &pb, &pl, &*a};
        if (Status s = launchRows("fx_attn_rows_probs", BH * a->M, params); !s.ok()) return s;
    }
    // dV = Pᵀ dO
    if (gv) {
        auto dV = denseF32(BH, a->N, a->Kv, dev);
        if (!dV.ok()) return dV.error();
        if (Status s = gemm(transposed(P->view), *gb, dV->view, 1.0, 0.0); !s.ok()) return s;
        if (Status s = unbatch(dV->view, *gv); !s.ok()) return s;
    }
    // dP = dO Vᵀ, then dS = P (dP - D) in its place.
    auto dP = denseF32(BH, a->M, a->N, dev);
    if (!dP.ok()) return dP.error();
    if (Status s = gemm(*gb, transposed(*vb), dP->view, 1.0, 0.0); !s.ok()) return s;
    auto D = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(BH * a->M, 1)) * sizeof(float));
    if (!D.ok()) return D.error();
    {
        auto fn = attentionModule().function("fx_attn_rowdot_f32");
        if (!fn.ok()) return fn.error();
        CUdeviceptr pg = gradOut.base, po = out.base, pd = D->ptr();
        void* params[] = {&pg, &po, &pd, &*a};
        if (Status s =
                launchGrid(*fn, static_cast<unsigned>((BH * a->M * 32 + 255) / 256), 1, 256, params, "fx_attn_rowdot");
            !s.ok())
            return s;
    }
    DeviceBuffer dbias;
    CUdeviceptr pdb = 0;
    if (gbias && bias && gbias->meta.numel() > 0) {
        const int64_t full[4] = {a->B, a->H, a->M, a->N};
        TensorMeta dense = TensorMeta::contiguous(gbias->meta.shape, DType::Float32, dev);
        if (!broadcastStrides(dense, full, a->dbs))
            return makeError("device attention backward: grad_bias does not broadcast to [B, H, M, N]");
        auto z = zeroed(static_cast<size_t>(dense.numel()) * sizeof(float));
        if (!z.ok()) return z.error();
        dbias = std::move(z).value();
        pdb = dbias.ptr();
    }
    {
        CUdeviceptr pdP = dP->view.base, pD = D->ptr();
        void* params[] = {&pP, &pdP, &pD, &pdb, &*a};
        if (Status s = launchRows("fx_attn_rows_dsoftmax", BH * a->M, params); !s.ok()) return s;
    }
    // dQ = scale dS K, dK = scale dSᵀ Q
    if (gq) {
        auto dQ = denseF32(BH, a->M, a->K, dev);
        if (!dQ.ok()) return dQ.error();
        if (Status s = gemm(dP->view, *kb, dQ->view, scale, 0.0); !s.ok()) return s;
        if (Status s = unbatch(dQ->view, *gq); !s.ok()) return s;
    }
    if (gk) {
        auto dK = denseF32(BH, a->N, a->K, dev);
        if (!dK.ok()) return dK.error();
        if (Status s = gemm(transposed(dP->view), *qb, dK->view, scale, 0.0); !s.ok()) return s;
        if (Status s = unbatch(dK->view, *gk); !s.ok()) return s;
    }
    if (pdb)
        if (Status s = castInto(pdb, *gbias); !s.ok()) return s;
    return Status::success();
}

}  // namespace fxray::cg::cuda
