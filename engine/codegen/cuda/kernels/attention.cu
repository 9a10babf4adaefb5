// Fused scaled-dot-product attention on the device, flash-attention style: scores are computed
// tile by tile in shared memory with an online softmax, and no M x N matrix is ever written to
// global memory, so any sequence length runs in O(M + N) memory. The forward mirrors PyTorch's
// memory-efficient kernel (_scaled_dot_product_efficient_attention): fp32 accumulation whatever
// the storage type, an additive (or boolean) bias that may broadcast, top-left causal masking,
// and the per-row logsumexp the backward reads. The backward recomputes probabilities from that
// logsumexp (P = exp(S - lse)), one block per tile of keys:
//   dV_j = sum_i P_ij dO_i,  dS_ij = P_ij (dO_i . V_j - D_i) with D_i = dO_i . O_i,
//   dK_j = scale sum_i dS_ij Q_i,  dQ_i = scale sum_j dS_ij K_j (fp32 atomics across key tiles),
//   dBias_ij = dS_ij (fp32 atomics where the bias broadcast).
// Dropout is not here: the host runs attention with dropout (its mask is the reference's RNG).
#ifndef FXRAY_EMBEDDED_SOURCE
#include "attention_args.h"
#include "dtype_io.cuh"
#endif

#define FX_FULL 0xffffffffu
#define FX_NEG_INF (-__int_as_float(0x7f800000))
#define FX_POS_INF (__int_as_float(0x7f800000))

__device__ __forceinline__ float fx_warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(FX_FULL, v, o));
    return v;
}
__device__ __forceinline__ float fx_warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FX_FULL, v, o);
    return v;
}

/// scale * q.k plus the bias of (b, h, row, n), or -inf where masked.
template <class T>
__device__ __forceinline__ float fx_score(const FxAttnArgs& a, const T* bias, float dot, fx_i64 b, fx_i64 h, fx_i64 row,
                                          fx_i64 n) {
    float s = dot * a.scale;
    if (a.hasBias) {
        const float bv = fx_ld(bias, a.boff + b * a.bs[0] + h * a.bs[1] + row * a.bs[2] + n * a.bs[3]);
        s = a.boolMask ? (bv != 0.0f ? s : FX_NEG_INF) : s + bv;
    }
    return s;
}

// Forward: a block of 8 warps per (b, h, tile of 8 query rows), a warp per row. The block walks
// the keys in tiles of KT staged in shared memory; lane j scores key j of the tile, the warp
// rescales its running output (lane owns dims lane, lane + 32, ...) by the online-softmax factor.
template <class T, int HD, int KT>
__device__ void fx_attn_fwd(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                            const T* __restrict__ bias, T* __restrict__ o, float* __restrict__ lse, FxAttnArgs a) {
    const int W = 8;
    __shared__ float kt[KT][HD + 1];
    __shared__ float vt[KT][HD];
    __shared__ float qr[W][HD];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const fx_i64 bh = blockIdx.x / a.tiles, tile = blockIdx.x % a.tiles;
    const fx_i64 b = bh / a.H, h = bh % a.H;
    const fx_i64 row0 = tile * W, row = row0 + w;
    const bool active = row < a.M;
    for (int d = lane; d < a.K; d += 32)
        qr[w][d] = active ? fx_ld(q, a.qoff + b * a.qs[0] + h * a.qs[1] + row * a.qs[2] + d * a.qs[3]) : 0.0f;
    float acc[HD / 32];
    for (int i = 0; i < HD / 32; ++i) acc[i] = 0.0f;
    float mrun = FX_NEG_INF, lrun = 0.0f;
    // Causal (top-left): row r sees keys n <= r, so the block needs keys below row0 + W only.
    fx_i64 nEnd = a.N;
    if (a.causal && row0 + W < nEnd) nEnd = row0 + W;
    for (fx_i64 n0 = 0; n0 < nEnd; n0 += KT) {
        __syncthreads();
        for (int idx = threadIdx.x; idx < KT * a.K; idx += blockDim.x) {
            const int j = idx / (int)a.K, d = idx % (int)a.K;
            const fx_i64 n = n0 + j;
            kt[j][d] = n < a.N ? fx_ld(k, a.koff + b * a.ks[0] + h * a.ks[1] + n * a.ks[2] + d * a.ks[3]) : 0.0f;
        }
        for (int idx = threadIdx.x; idx < KT * a.Kv; idx += blockDim.x) {
            const int j = idx / (int)a.Kv, d = idx % (int)a.Kv;
            const fx_i64 n = n0 + j;
            vt[j][d] = n < a.N ? fx_ld(v, a.voff + b * a.vs[0] + h * a.vs[1] + n * a.vs[2] + d * a.vs[3]) : 0.0f;
        }
        __syncthreads();
        if (!active) continue;
        float s = FX_NEG_INF;
        const fx_i64 n = n0 + lane;
        if (lane < KT && n < a.N && !(a.causal && n > row)) {
            float dot = 0.0f;
            for (int d = 0; d < a.K; ++d) dot += qr[w][d] * kt[lane][d];
            s = fx_score(a, bias, dot, b, h, row, n);
        }
        const float mnew = fmaxf(mrun, fx_warp_max(s));
        const float p = s == FX_NEG_INF ? 0.0f : expf(s - mnew);
        const float corr = mrun == FX_NEG_INF ? 0.0f : expf(mrun - mnew);
        lrun = lrun * corr + fx_warp_sum(p);
        mrun = mnew;
        for (int i = 0; i < HD / 32; ++i) acc[i] *= corr;
        for (int j = 0; j < KT; ++j) {
            const float pj = __shfl_sync(FX_FULL, p, j);
            for (int i = 0; i < HD / 32; ++i) acc[i] += pj * vt[j][lane + 32 * i];
        }
    }
    if (active) {
        // A row with every key masked has no probabilities: its output is 0 and its lse +inf.
        const float inv = lrun > 0.0f ? 1.0f / lrun : 0.0f;
        for (int i = 0; i < HD / 32; ++i) {
            const int d = lane + 32 * i;
            if (d < a.Kv) fx_st(o, a.ooff + b * a.os[0] + h * a.os[1] + row * a.os[2] + d * a.os[3], acc[i] * inv);
        }
    }
    // lse rows past M (PyTorch pads them to a multiple of 32) hold +inf.
    if (lse && lane == 0 && row < a.lseLen)
        lse[bh * a.lseLen + row] = active && lrun > 0.0f ? mrun + logf(lrun) : FX_POS_INF;
}

// D_i = dO_i . O_i (fp32, dense [B*H, M]): a warp per row.
template <class T>
__device__ void fx_attn_rowdot(const T* __restrict__ go, const T* __restrict__ o, float* __restrict__ D, FxAttnArgs a) {
    const int lane = threadIdx.x & 31;
    const fx_i64 r = ((fx_i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (r >= a.B * a.H * a.M) return;
    const fx_i64 bh = r / a.M, i = r % a.M, b = bh / a.H, h = bh % a.H;
    float s = 0.0f;
    for (int d = lane; d < a.Kv; d += 32)
        s += fx_ld(go, a.goff + b * a.gs[0] + h * a.gs[1] + i * a.gs[2] + d * a.gs[3]) *
             fx_ld(o, a.ooff + b * a.os[0] + h * a.os[1] + i * a.os[2] + d * a.os[3]);
    s = fx_warp_sum(s);
    if (lane == 0) D[r] = s;
}

// Backward: a block of 4 warps per (b, h, tile of KT keys); the warps split the query rows. The
// key tile's dK and dV accumulate in shared memory (shared atomics between the warps) and are
// written once; dQ (dense fp32 [B, H, M, K]) and grad_bias take global atomics.
template <class T, int HD, int KT>
__device__ void fx_attn_bwd(const T* __restrict__ go, const T* __restrict__ q, const T* __restrict__ k,
                            const T* __restrict__ v, const T* __restrict__ bias, const float* __restrict__ lse,
                            const float* __restrict__ D, float* __restrict__ dq, T* __restrict__ dk, T* __restrict__ dv,
                            float* __restrict__ dbias, FxAttnArgs a, FxAttnArgs g) {
    // g: the strides of dk (in qs, K dims) and dv (in vs), offsets koff / voff.
    const int W = 4;
    __shared__ float kt[KT][HD + 1];
    __shared__ float vt[KT][HD + 1];
    __shared__ float dks[KT][HD];
    __shared__ float dvs[KT][HD];
    __shared__ float qr[W][HD];
    __shared__ float gr[W][HD];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const fx_i64 bh = blockIdx.x / a.tiles, tile = blockIdx.x % a.tiles;
    const fx_i64 b = bh / a.H, h = bh % a.H;
    const fx_i64 n0 = tile * KT;
    for (int idx = threadIdx.x; idx < KT * HD; idx += blockDim.x) {
        const int j = idx / HD, d = idx % HD;
        const fx_i64 n = n0 + j;
        kt[j][d] = n < a.N && d < a.K ? fx_ld(k, a.koff + b * a.ks[0] + h * a.ks[1] + n * a.ks[2] + d * a.ks[3]) : 0.0f;
        vt[j][d] = n < a.N && d < a.Kv ? fx_ld(v, a.voff + b * a.vs[0] + h * a.vs[1] + n * a.vs[2] + d * a.vs[3]) : 0.0f;
        dks[j][d] = 0.0f;
        dvs[j][d] = 0.0f;
    }
    __syncthreads();
    // Causal: rows above the tile's first key see none of its keys.
    const fx_i64 rowStart = a.causal ? n0 : 0;
    for (fx_i64 i = rowStart + w; i < a.M; i += W) {
        for (int d = lane; d < HD; d += 32) {
            qr[w][d] = d < a.K ? fx_ld(q, a.qoff + b * a.qs[0] + h * a.qs[1] + i * a.qs[2] + d * a.qs[3]) : 0.0f;
            gr[w][d] = d < a.Kv ? fx_ld(go, a.goff + b * a.gs[0] + h * a.gs[1] + i * a.gs[2] + d * a.gs[3]) : 0.0f;
        }
        __syncwarp();
        const float L = lse[bh * a.lseLen + i], Di = D[bh * a.M + i];
        float p = 0.0f, ds = 0.0f;
        const fx_i64 n = n0 + lane;
        if (lane < KT && n < a.N && !(a.causal && n > i)) {
            float dot = 0.0f, dp = 0.0f;
            for (int d = 0; d < a.K; ++d) dot += qr[w][d] * kt[lane][d];
            for (int d = 0; d < a.Kv; ++d) dp += gr[w][d] * vt[lane][d];
            const float s = fx_score(a, bias, dot, b, h, i, n);
            p = s == FX_NEG_INF ? 0.0f : expf(s - L);
            ds = p * (dp - Di);
            if (dbias) atomicAdd(dbias + b * a.dbs[0] + h * a.dbs[1] + i * a.dbs[2] + n * a.dbs[3], ds);
        }
        float dqa[HD / 32];
        for (int c = 0; c < HD / 32; ++c) dqa[c] = 0.0f;
        for (int j = 0; j < KT; ++j) {
            const float pj = __shfl_sync(FX_FULL, p, j), dsj = __shfl_sync(FX_FULL, ds, j) * a.scale;
            if (pj == 0.0f && dsj == 0.0f) continue;  // warp-uniform: the values were shuffled to all lanes
            for (int c = 0; c < HD / 32; ++c) {
                const int d = lane + 32 * c;
                atomicAdd(&dvs[j][d], pj * gr[w][d]);
                atomicAdd(&dks[j][d], dsj * qr[w][d]);
                dqa[c] += dsj * kt[j][d];
            }
        }
        for (int c = 0; c < HD / 32; ++c) {
            const int d = lane + 32 * c;
            if (d < a.K && dqa[c] != 0.0f) atomicAdd(dq + (bh * a.M + i) * a.K + d, dqa[c]);
        }
        __syncwarp();
    }
    __syncthreads();
    for (int idx = threadIdx.x; idx < KT * HD; idx += blockDim.x) {
        const int j = idx / HD, d = idx % HD;
        const fx_i64 n = n0 + j;
        if (n >= a.N) continue;
        if (dk && d < a.K) fx_st(dk, g.koff + b * g.ks[0] + h * g.ks[1] + n * g.ks[2] + d * g.ks[3], dks[j][d]);
        if (dv && d < a.Kv) fx_st(dv, g.voff + b * g.vs[0] + h * g.vs[1] + n * g.vs[2] + d * g.vs[3], dvs[j][d]);
    }
}

template <class T>
__device__ void fx_attn_cast(const float* __restrict__ src, T* __restrict__ dst, FxAttnCastArgs a) {
    for (fx_i64 q = (fx_i64)blockIdx.x * blockDim.x + threadIdx.x; q < a.n; q += (fx_i64)gridDim.x * blockDim.x) {
        fx_i64 rest = q, off = a.doff;
        for (int d = 3; d >= 0; --d) {
            off += (rest % a.size[d]) * a.ds[d];
            rest /= a.size[d];
        }
        fx_st(dst, off, src[q]);
    }
}

#define FX_ATTN_KERNELS(T, S)                                                                                         \
    extern "C" __global__ void __launch_bounds__(256) fx_attn_fwd_##S##_64(const T* q, const T* k, const T* v,         \
                                                                           const T* bias, T* o, float* lse,            \
                                                                           FxAttnArgs a) {                             \
        fx_attn_fwd<T, 64, 32>(q, k, v, bias, o, lse, a);                                                             \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(256) fx_attn_fwd_##S##_128(const T* q, const T* k, const T* v,        \
                                                                            const T* bias, T* o, float* lse,           \
                                                                            FxAttnArgs a) {                            \
        fx_attn_fwd<T, 128, 32>(q, k, v, bias, o, lse, a);                                                            \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(256) fx_attn_fwd_##S##_256(const T* q, const T* k, const T* v,        \
                                                                            const T* bias, T* o, float* lse,           \
                                                                            FxAttnArgs a) {                            \
        fx_attn_fwd<T, 256, 16>(q, k, v, bias, o, lse, a);                                                            \
    }                                                                                                                  \
    extern "C" __global__ void fx_attn_rowdot_##S(const T* go, const T* o, float* D, FxAttnArgs a) {                  \
        fx_attn_rowdot<T>(go, o, D, a);                                                                               \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(128)                                                                 \
        fx_attn_bwd_##S##_64(const T* go, const T* q, const T* k, const T* v, const T* bias, const float* lse,         \
                             const float* D, float* dq, T* dk, T* dv, float* dbias, FxAttnArgs a, FxAttnArgs g) {      \
        fx_attn_bwd<T, 64, 32>(go, q, k, v, bias, lse, D, dq, dk, dv, dbias, a, g);                                   \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(128)                                                                 \
        fx_attn_bwd_##S##_128(const T* go, const T* q, const T* k, const T* v, const T* bias, const float* lse,        \
                              const float* D, float* dq, T* dk, T* dv, float* dbias, FxAttnArgs a, FxAttnArgs g) {     \
        fx_attn_bwd<T, 128, 16>(go, q, k, v, bias, lse, D, dq, dk, dv, dbias, a, g);                                  \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(128)                                                                 \
        fx_attn_bwd_##S##_256(const T* go, const T* q, const T* k, const T* v, const T* bias, const float* lse,        \
                              const float* D, float* dq, T* dk, T* dv, float* dbias, FxAttnArgs a, FxAttnArgs g) {     \
        fx_attn_bwd<T, 256, 8>(go, q, k, v, bias, lse, D, dq, dk, dv, dbias, a, g);                                   \
    }                                                                                                                  \
    extern "C" __global__ void fx_attn_cast_##S(const float* src, T* dst, FxAttnCastArgs a) { fx_attn_cast<T>(src, dst, a); }

FX_ATTN_KERNELS(float, f32)
FX_ATTN_KERNELS(fx_half, f16)
FX_ATTN_KERNELS(fx_bf16, bf16)
