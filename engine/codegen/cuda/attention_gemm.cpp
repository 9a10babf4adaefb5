#include "codegen/cuda/attention_gemm.h"

#include "codegen/cuda/attention_common.h"
#include "codegen/cuda/dl_util.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace fxray::cg::cuda {

using namespace attn;

namespace {

/// Workspace bound of the automatic choice: one [B*H, M, N] fp32 matrix (the backward holds two).
constexpr double kAutoWorkspace = 64.0 * 1024 * 1024;
constexpr double kMaxWorkspace = 2.0 * 1024 * 1024 * 1024;

/// The transpose of the last two dims (no copy).
DeviceView transposed(DeviceView v) {
    const size_t r = v.meta.shape.size();
    std::swap(v.meta.shape[r - 2], v.meta.shape[r - 1]);
    std::swap(v.meta.strides[r - 2], v.meta.strides[r - 1]);
    return v;
}

/// v [B, H, R, E] as [B*H, R, E] when B and H merge into one stride; nullopt else.
std::optional<DeviceView> merged(const DeviceView& v) {
    const auto& s = v.meta.shape;
    const auto& st = v.meta.strides;
    if (!(s[0] == 1 || s[1] == 1 || st[0] == st[1] * s[1])) return std::nullopt;
    DeviceView r = v;
    r.meta.shape = {s[0] * s[1], s[2], s[3]};
    r.meta.strides = {s[1] == 1 ? st[0] : st[1], st[2], st[3]};
    return r;
}

/// [B, H, R, E] at index i of dim d (0 or 1) as the [other, R, E] batch along the other dim.
DeviceView slice(const DeviceView& v, size_t d, int64_t i) {
    DeviceView r = v;
    const size_t o = 1 - d;
    r.meta.shape = {v.meta.shape[o], v.meta.shape[2], v.meta.shape[3]};
    r.meta.strides = {v.meta.strides[o], v.meta.strides[2], v.meta.strides[3]};
    r.meta.offset = v.meta.offset + i * v.meta.strides[d];
    return r;
}

/// C[b, h] = alpha * A[b, h] @ B[b, h] for 4-D [B, H, ., .] views as they lie in memory: one
/// strided-batched GEMM when B and H merge in all three, else one per head (or per batch, the
/// fewer) batched over the other dim. q, k and v sliced out of one fused projection
/// ([B, M, 3, H, E] permuted) and PyTorch's [B, M, H, E] outputs do not merge; copying them dense
/// cost about as much as the GEMMs (ViT-S/16's attention, issue 17).
Status gemm4(const DeviceView& A, const DeviceView& B, const DeviceView& C, double alpha) {
    auto ma = merged(A), mb = merged(B), mc = merged(C);
    if (ma && mb && mc) return gemm(*ma, *mb, *mc, alpha, 0.0);
    const int64_t nb = C.meta.shape[0], nh = C.meta.shape[1];
    const size_t d = nh <= nb ? 1 : 0;  // loop over the smaller of the two
    for (int64_t i = 0; i < (d == 1 ? nh : nb); ++i)
        if (Status s = gemm(slice(A, d, i), slice(B, d, i), slice(C, d, i), alpha, 0.0); !s.ok()) return s;
    return Status::success();
}

/// Whether gemm() can write C's [R, E] matrices in place (rows of unit-stride elements).
bool writable(const TensorMeta& m) {
    return m.shape.size() == 4 && (m.shape[3] == 1 || m.strides[3] == 1) &&
           (m.shape[2] == 1 || m.strides[2] >= std::max<int64_t>(m.shape[3], 1));
}

/// A dense fp32 [B, H, rows, cols] buffer and its view.
struct Dense {
    DeviceBuffer buf;
    DeviceView view;
};
Expected<Dense> denseF32(int64_t nb, int64_t nh, int64_t rows, int64_t cols, Device dev) {
    Dense d;
    TensorMeta m = TensorMeta::contiguous({nb, nh, rows, cols}, DType::Float32, dev);
    auto b = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(m.numel(), 1)) * sizeof(float));
    if (!b.ok()) return b.error();
    d.buf = std::move(b).value();
    d.view = DeviceView{d.buf.ptr(), m};
    return d;
}

/// dst = alpha * A @ B: in place where gemm() can write dst, else through a dense buffer.
Status gemmInto(const DeviceView& A, const DeviceView& B, const DeviceView& dst, double alpha) {
    if (writable(dst.meta)) return gemm4(A, B, dst, alpha);
    const auto& s = dst.meta.shape;
    auto t = denseF32(s[0], s[1], s[2], s[3], dst.meta.device);
    if (!t.ok()) return t.error();
    if (Status st = gemm4(A, B, t->view, alpha); !st.ok()) return st;
    return stridedCopy(t->view, dst);
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
                            const std::optional<DeviceView>& lse, double scale, bool causal) {
    auto a = argsOf(q.meta, k.meta, v.meta, bias ? &bias->meta : nullptr, out.meta, scale, causal);
    if (!a.ok()) return a.error();
    if (!sameDtype(DType::Float32, {&q, &k, &v, &out, bias ? &*bias : nullptr}))
        return makeError("the GEMM attention path is fp32 only");
    const int64_t BH = a->B * a->H;
    auto S = denseF32(a->B, a->H, a->M, a->N, q.meta.device);
    if (!S.ok()) return S.error();
    if (Status s = gemm4(q, transposed(k), S->view, scale); !s.ok()) return s;
    CUdeviceptr plse = 0;
    if (lse && lse->meta.numel() > 0) {
        const TensorMeta& l = lse->meta;
        if (l.dtype != DType::Float32 || !l.isContiguous() || l.shape.size() != 3)
            return makeError("device attention: logsumexp must be dense fp32 [B, H, rows]");
        a->lseLen = l.shape[2];
        plse = bytePtr(*lse, l.offset);
    }
    CUdeviceptr pS = S->view.base, pb = bias ? bias->base : 0;
    void* params[] = {&pS, &pb, &plse, &*a};
    if (Status s = launchRows("fx_attn_rows_softmax", BH * std::max(a->M, a->lseLen), params); !s.ok()) return s;
    return gemmInto(S->view, v, out, 1.0);
}

Status attentionBackwardGemm(const DeviceView& gradOut, const DeviceView& q, const DeviceView& k, const DeviceView& v,
                             const std::optional<DeviceView>& bias, const DeviceView& out, const DeviceView& lse,
                             double scale, bool causal, const std::optional<DeviceView>& gq,
                             const std::optional<DeviceView>& gk, const std::optional<DeviceView>& gv,
                             const std::optional<DeviceView>& gbias) {
    auto a = argsOf(q.meta, k.meta, v.meta, bias ? &bias->meta : nullptr, out.meta, scale, causal);
    if (!a.ok()) return a.error();
    if (!sameDtype(DType::Float32, {&q, &k, &v, &out, &gradOut, bias ? &*bias : nullptr}))
        return makeError("the GEMM attention path is fp32 only");
    strides4(gradOut.meta, a->gs);
    a->goff = gradOut.meta.offset;
    const TensorMeta& l = lse.meta;
    if (l.dtype != DType::Float32 || !l.isContiguous() || l.shape.size() != 3 || l.shape[2] < a->M)
        return makeError("device attention backward: logsumexp must be dense fp32 [B, H, >= rows]");
    a->lseLen = l.shape[2];
    const int64_t BH = a->B * a->H;
    const Device dev = q.meta.device;
    // P from the forward's logsumexp.
    auto P = denseF32(a->B, a->H, a->M, a->N, dev);
    if (!P.ok()) return P.error();
    if (Status s = gemm4(q, transposed(k), P->view, scale); !s.ok()) return s;
    CUdeviceptr pP = P->view.base, pb = bias ? bias->base : 0, pl = bytePtr(lse, l.offset);
    {
        void* params[] = {&pP, &pb, &pl, &*a};
        if (Status s = launchRows("fx_attn_rows_probs", BH * a->M, params); !s.ok()) return s;
    }
    // dV = Pᵀ dO
    if (gv)
        if (Status s = gemmInto(transposed(P->view), gradOut, *gv, 1.0); !s.ok()) return s;
    // dP = dO Vᵀ, then dS = P (dP - D) in its place.
    auto dP = denseF32(a->B, a->H, a->M, a->N, dev);
    if (!dP.ok()) return dP.error();
    if (Status s = gemm4(gradOut, transposed(v), dP->view, 1.0); !s.ok()) return s;
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
    if (gq)
        if (Status s = gemmInto(dP->view, k, *gq, scale); !s.ok()) return s;
    if (gk)
        if (Status s = gemmInto(transposed(dP->view), q, *gk, scale); !s.ok()) return s;
    if (pdb)
        if (Status s = castInto(pdb, *gbias); !s.ok()) return s;
    return Status::success();
}

}  // namespace fxray::cg::cuda
