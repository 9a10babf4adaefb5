#include "codegen/cuda/device_attention.h"

#include "codegen/cuda/attention_common.h"
#include "codegen/cuda/attention_gemm.h"
#include "codegen/cuda/attention_tc.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <utility>
#include <vector>

namespace fxray::cg::cuda {

namespace attn {

KernelModule& attentionModule() {
    static KernelModule* m = new KernelModule(
        "fxray_attention", {"attention_args.h", "dtype_io.cuh", "attention.cu", "attention_tc.cu"});  // never destroyed
    return *m;
}

const char* suffix(DType t) {
    switch (t) {
    case DType::Float16: return "f16";
    case DType::BFloat16: return "bf16";
    default: return "f32";
    }
}

/// The head-dim bucket a kernel instance is compiled for; 0 when the dims exceed them all.
int headBucket(int64_t K, int64_t Kv) {
    const int64_t d = std::max(K, Kv);
    return d <= 64 ? 64 : d <= 128 ? 128 : d <= 256 ? 256 : 0;
}

CUdeviceptr bytePtr(const DeviceView& v, int64_t elemOffset) {
    return v.base + static_cast<CUdeviceptr>(elemOffset * dtypeItemSize(v.meta.dtype));
}

void strides4(const TensorMeta& m, long long (&s)[4]) {
    for (size_t i = 0; i < 4; ++i) s[i] = m.strides[i];
}

/// Strides that read a tensor broadcast to `full` (4-D): 0 along dims it lacks or has as 1.
bool broadcastStrides(const TensorMeta& m, const int64_t (&full)[4], long long (&s)[4]) {
    const size_t r = m.shape.size();
    if (r > 4) return false;
    for (size_t i = 0; i < 4; ++i) {
        if (i < 4 - r) {
            s[i] = 0;
            continue;
        }
        const size_t j = i - (4 - r);
        if (m.shape[j] == full[i])
            s[i] = full[i] == 1 ? 0 : m.strides[j];
        else if (m.shape[j] == 1)
            s[i] = 0;
        else
            return false;
    }
    return true;
}

/// q [B,H,M,K], k [B,H,N,K], v [B,H,N,Kv], out [B,H,M,Kv]; the bias broadcasts to [B,H,M,N].
Expected<FxAttnArgs> argsOf(const TensorMeta& q, const TensorMeta& k, const TensorMeta& v, const TensorMeta* bias,
                            const TensorMeta& out, double scale, CausalMask causal) {
    for (const TensorMeta* m : {&q, &k, &v, &out})
        if (m->shape.size() != 4) return makeError("device attention needs 4-D [batch, heads, rows, dims] tensors");
    FxAttnArgs a{};
    a.B = q.shape[0], a.H = q.shape[1], a.M = q.shape[2], a.K = q.shape[3];
    a.N = k.shape[2], a.Kv = v.shape[3];
    if (k.shape[0] != a.B || v.shape[0] != a.B || k.shape[1] != a.H || v.shape[1] != a.H || k.shape[3] != a.K ||
        v.shape[2] != a.N || out.shape != std::vector<int64_t>{a.B, a.H, a.M, a.Kv})
        return makeError("device attention: q, k, v and out do not agree (grouped-query heads run on the host)");
    if (!headBucket(a.K, a.Kv)) return makeError("device attention handles head dims up to 256");
    strides4(q, a.qs), strides4(k, a.ks), strides4(v, a.vs), strides4(out, a.os);
    a.qoff = q.offset, a.koff = k.offset, a.voff = v.offset, a.ooff = out.offset;
    if (bias) {
        const int64_t full[4] = {a.B, a.H, a.M, a.N};
        if (!broadcastStrides(*bias, full, a.bs))
            return makeError("device attention: the bias does not broadcast to [B, H, M, N]");
        a.boff = bias->offset;
        a.hasBias = 1;
    }
    a.scale = static_cast<float>(scale);
    a.causal = causal.on ? 1 : 0;
    a.causalShift = causal.on ? causal.shift : 0;
    return a;
}

Expected<DeviceBuffer> zeroed(size_t bytes) {
    auto buf = DeviceBuffer::allocate(std::max<size_t>(bytes, 4));
    if (!buf.ok()) return buf.error();
    if (Status s =
            check(runtime().cu.cuMemsetD8(buf->ptr(), 0, std::max<size_t>(bytes, 4)), "zeroing an attention buffer");
        !s.ok())
        return s.error();
    return buf;
}

/// dst (any strides, its dtype) = dense fp32 src of the same shape (at most 4-D).
Status castInto(CUdeviceptr src, const DeviceView& dst) {
    FxAttnCastArgs c{};
    const size_t r = dst.meta.shape.size();
    if (r > 4) return makeError("device attention: a gradient of more than 4 dims");
    for (size_t i = 0; i < 4; ++i) {
        c.size[i] = i < 4 - r ? 1 : dst.meta.shape[i - (4 - r)];
        c.ds[i] = i < 4 - r ? 0 : dst.meta.strides[i - (4 - r)];
    }
    c.n = dst.meta.numel();
    c.doff = dst.meta.offset;
    auto fn = attentionModule().function(std::string("fx_attn_cast_") + suffix(dst.meta.dtype));
    if (!fn.ok()) return fn.error();
    CUdeviceptr pd = dst.base;
    void* params[] = {&src, &pd, &c};
    const int64_t blocks = std::min<int64_t>((c.n + 255) / 256, int64_t(1) << 16);
    return launchGrid(*fn, static_cast<unsigned>(std::max<int64_t>(blocks, 1)), 1, 256, params, "fx_attn_cast");
}

bool sameDtype(DType t, std::initializer_list<const DeviceView*> vs) {
    for (const DeviceView* v : vs)
        if (v && v->meta.dtype != t) return false;
    return true;
}

Expected<CUdeviceptr> forwardLse(const std::optional<DeviceView>& lse, FxAttnArgs& a) {
    if (!lse || lse->meta.numel() == 0) return CUdeviceptr(0);
    const TensorMeta& l = lse->meta;
    if (l.dtype != DType::Float32 || !l.isContiguous() || l.shape.size() != 3 || l.shape[0] != a.B || l.shape[1] != a.H)
        return makeError("device attention: logsumexp must be dense fp32 [B, H, rows]");
    a.lseLen = l.shape[2];
    return bytePtr(*lse, l.offset);
}

Status backwardLse(const DeviceView& lse, FxAttnArgs& a) {
    const TensorMeta& l = lse.meta;
    if (l.dtype != DType::Float32 || !l.isContiguous() || l.shape.size() != 3 || l.shape[0] != a.B ||
        l.shape[1] != a.H || l.shape[2] < a.M)
        return makeError("device attention backward: logsumexp must be dense fp32 [B, H, >= rows]");
    a.lseLen = l.shape[2];
    return {};
}

}  // namespace attn

namespace {

/// True when m's elements fill [spanStart, spanStart + numel) exactly: its dims, ordered by
/// stride, are a dense layout (a permuted contiguous tensor).
bool denseSpan(const TensorMeta& m) {
    std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims longer than 1
    for (size_t i = 0; i < m.shape.size(); ++i)
        if (m.shape[i] != 1) dims.emplace_back(m.strides[i], m.shape[i]);
    std::sort(dims.begin(), dims.end());
    int64_t expect = 1;
    for (const auto& [stride, size] : dims) {
        if (stride != expect) return false;
        expect *= size;
    }
    return true;
}

}  // namespace

using namespace attn;

Expected<std::string> attentionSource() { return attentionModule().source(); }

bool attentionSupports(DType t) { return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16; }

bool attentionHandles(const TensorMeta& q, const TensorMeta& k, const TensorMeta& v, const TensorMeta* bias,
                      const TensorMeta& out) {
    const DType t = q.dtype;
    if (!attentionSupports(t) || k.dtype != t || v.dtype != t || out.dtype != t || (bias && bias->dtype != t))
        return false;
    return argsOf(q, k, v, bias, out, 1.0, CausalMask{}).ok();
}

Status attentionForward(const DeviceView& q, const DeviceView& k, const DeviceView& v,
                        const std::optional<DeviceView>& bias, const DeviceView& out,
                        const std::optional<DeviceView>& lse, double scale, CausalMask causal) {
    const DType t = q.meta.dtype;
    if (!attentionSupports(t) || !sameDtype(t, {&k, &v, &out, bias ? &*bias : nullptr}))
        return makeError("device attention needs f32, f16 or bf16 operands of one dtype");
    if (attentionUsesTensorCores(q.meta, k.meta, v.meta))
        return attentionForwardTc(q, k, v, bias, out, lse, scale, causal);
    if (attentionUsesGemm(q.meta, k.meta)) return attentionForwardGemm(q, k, v, bias, out, lse, scale, causal);
    auto a = argsOf(q.meta, k.meta, v.meta, bias ? &bias->meta : nullptr, out.meta, scale, causal);
    if (!a.ok()) return a.error();
    auto lsePtr = forwardLse(lse, *a);
    if (!lsePtr.ok()) return lsePtr.error();
    CUdeviceptr plse = *lsePtr;
    const int64_t rows = std::max<int64_t>(a->M, a->lseLen);
    const int hd = headBucket(a->K, a->Kv);
    // 4 warps of R rows each (attention.cu): R = 4, 2 for the widest heads (shared memory).
    const int64_t rowsPerBlock = 4 * (hd == 256 ? 2 : 4);
    a->tiles = (rows + rowsPerBlock - 1) / rowsPerBlock;
    auto fn = attentionModule().function(std::string("fx_attn_fwd_") + suffix(t) + "_" + std::to_string(hd));
    if (!fn.ok()) return fn.error();
    CUdeviceptr pq = q.base, pk = k.base, pv = v.base, pb = bias ? bias->base : 0, po = out.base;
    void* params[] = {&pq, &pk, &pv, &pb, &po, &plse, &*a};
    const int64_t blocks = a->B * a->H * a->tiles;
    if (blocks > INT32_MAX) return makeError("device attention: too many blocks");
    return launchGrid(*fn, static_cast<unsigned>(blocks), 1, 128, params, "fx_attn_fwd");
}

Status attentionBackward(const DeviceView& gradOut, const DeviceView& q, const DeviceView& k, const DeviceView& v,
                         const std::optional<DeviceView>& bias, const DeviceView& out, const DeviceView& lse,
                         double scale, CausalMask causal, const std::optional<DeviceView>& gq,
                         const std::optional<DeviceView>& gk, const std::optional<DeviceView>& gv,
                         const std::optional<DeviceView>& gbias) {
    const DType t = q.meta.dtype;
    if (!attentionSupports(t) || !sameDtype(t, {&k, &v, &out, &gradOut, bias ? &*bias : nullptr, gq ? &*gq : nullptr,
                                                gk ? &*gk : nullptr, gv ? &*gv : nullptr, gbias ? &*gbias : nullptr}))
        return makeError("device attention backward needs f32, f16 or bf16 operands of one dtype");
    const bool tc = attentionUsesTensorCores(q.meta, k.meta, v.meta);
    if (!tc && attentionUsesGemm(q.meta, k.meta))
        return attentionBackwardGemm(gradOut, q, k, v, bias, out, lse, scale, causal, gq, gk, gv, gbias);
    auto a = argsOf(q.meta, k.meta, v.meta, bias ? &bias->meta : nullptr, out.meta, scale, causal);
    if (!a.ok()) return a.error();
    if (gradOut.meta.shape != out.meta.shape)
        return makeError("device attention backward: grad_out does not match out");
    strides4(gradOut.meta, a->gs);
    a->goff = gradOut.meta.offset;
    if (Status s = backwardLse(lse, *a); !s.ok()) return s;
    const int64_t BH = a->B * a->H;
    // D_i = dO_i . O_i
    auto D = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(BH * a->M, 1)) * sizeof(float));
    if (!D.ok()) return D.error();
    {
        // fp32 on the tensor-core path: 8 lanes a row (fx_attn_tc_rowdot), else a warp.
        auto fn = attentionModule().function(tc ? std::string("fx_attn_tc_rowdot")
                                                : std::string("fx_attn_rowdot_") + suffix(t));
        if (!fn.ok()) return fn.error();
        CUdeviceptr pg = gradOut.base, po = out.base, pd = D->ptr();
        void* params[] = {&pg, &po, &pd, &*a};
        const int64_t blocks = tc ? (BH * a->M + 31) / 32 : (BH * a->M * 32 + 255) / 256;
        if (Status s = launchGrid(*fn, static_cast<unsigned>(blocks), 1, 256, params, "fx_attn_rowdot"); !s.ok())
            return s;
    }
    // dQ accumulates across key tiles in fp32 with atomics: into a dense buffer cast into
    // grad_query after, or, on the tensor-core path, straight into grad_query (fp32 there) where its
    // elements fill one contiguous span that zeroes at once (the strided cast is not free).
    FxAttnArgs g{};
    const bool dqDirect = tc && gq && denseSpan(gq->meta);
    DeviceBuffer dqBuf;
    CUdeviceptr pdq = 0;
    if (dqDirect) {
        strides4(gq->meta, g.qs);
        g.qoff = gq->meta.offset;
        pdq = gq->base;
        const size_t bytes = static_cast<size_t>(gq->meta.numel()) * sizeof(float);
        if (Status s = check(runtime().cu.cuMemsetD8(bytePtr(*gq, gq->meta.offset), 0, bytes), "zeroing grad_query");
            !s.ok())
            return s;
    } else {
        auto z = zeroed(static_cast<size_t>(BH * a->M * a->K) * sizeof(float));
        if (!z.ok()) return z.error();
        dqBuf = std::move(z).value();
        pdq = dqBuf.ptr();
        g.qs[0] = a->H * a->M * a->K, g.qs[1] = a->M * a->K, g.qs[2] = a->K, g.qs[3] = 1;
    }
    DeviceBuffer db;
    CUdeviceptr pdb = 0;
    if (gbias && bias && gbias->meta.numel() > 0) {
        const int64_t full[4] = {a->B, a->H, a->M, a->N};
        TensorMeta dense = TensorMeta::contiguous(gbias->meta.shape, DType::Float32, gbias->meta.device);
        if (!broadcastStrides(dense, full, a->dbs))
            return makeError("device attention backward: grad_bias does not broadcast to [B, H, M, N]");
        auto z = zeroed(static_cast<size_t>(dense.numel()) * sizeof(float));
        if (!z.ok()) return z.error();
        db = std::move(z).value();
        pdb = db.ptr();
    }
    if (gk) strides4(gk->meta, g.ks), g.koff = gk->meta.offset;
    if (gv) strides4(gv->meta, g.vs), g.voff = gv->meta.offset;
    const int hd = headBucket(a->K, a->Kv);
    const int kt = tc ? kTcBackwardKeys : hd == 64 ? 32 : hd == 128 ? 16 : 8;
    a->tiles = (a->N + kt - 1) / kt;
    {
        CUfunction fn = nullptr;
        unsigned smem = 0;  // dynamic: the tensor-core kernels'
        if (tc) {
            auto kern = tcBackwardKernel(*a);
            if (!kern.ok()) return kern.error();
            fn = kern->fn, smem = kern->sharedBytes;
        } else {
            auto kern = attentionModule().function(std::string("fx_attn_bwd_") + suffix(t) + "_" + std::to_string(hd));
            if (!kern.ok()) return kern.error();
            fn = *kern;
        }
        CUdeviceptr pg = gradOut.base, pq = q.base, pk = k.base, pv = v.base, pb = bias ? bias->base : 0;
        CUdeviceptr pl = bytePtr(lse, lse.meta.offset), pD = D->ptr();
        CUdeviceptr pdk = gk ? gk->base : 0, pdv = gv ? gv->base : 0;
        void* params[] = {&pg, &pq, &pk, &pv, &pb, &pl, &pD, &pdq, &pdk, &pdv, &pdb, &*a, &g};
        const int64_t blocks = BH * a->tiles;  // 0 without keys: dk and dv are empty then
        if (blocks > INT32_MAX) return makeError("device attention backward: too many blocks");
        if (Status s = launchGrid(fn, static_cast<unsigned>(blocks), 1, 128, params, "fx_attn_bwd", smem); !s.ok())
            return s;
    }
    if (gq && !dqDirect)
        if (Status s = castInto(pdq, *gq); !s.ok()) return s;
    if (pdb)
        if (Status s = castInto(pdb, *gbias); !s.ok()) return s;
    return Status::success();
}

}  // namespace fxray::cg::cuda
