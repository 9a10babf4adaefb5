// Fused scaled-dot-product attention on the device, flash-attention style: scores are computed
// tile by tile in shared memory with an online softmax, and no M x N matrix is ever written to
// global memory, so any sequence length runs in O(M + N) memory. The forward mirrors PyTorch's
// memory-efficient kernel (_scaled_dot_product_efficient_attention): fp32 accumulation whatever
// the storage type, an additive (or boolean) bias that may broadcast, causal masking (row m sees
// keys n <= m + causalShift: 0 top-left, N - M bottom-right), and the per-row logsumexp the
// backward reads. The backward recomputes probabilities from that logsumexp (P = exp(S - lse)),
// one block per tile of keys:
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

// Forward: a block of 4 warps per (b, h, tile of 4 R query rows); each warp carries R rows so
// that every key value read from shared memory serves R rows (the kernel is bound by shared-memory
// reads, not FMAs). The block walks the keys in tiles of KT staged in shared memory; lane j scores
// key j of the tile for the warp's R rows (float4 reads along the head dim), then the warp
// rescales its running outputs (lane owns dims lane, lane + 32, ...) by the online-softmax factor.
template <class T, int HD, int KT, int R>
__device__ void fx_attn_fwd(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                            const T* __restrict__ bias, T* __restrict__ o, float* __restrict__ lse, FxAttnArgs a) {
    const int W = 4;
    __shared__ __align__(16) float kt[KT][HD + 4];
    __shared__ __align__(16) float vt[KT][HD];
    __shared__ __align__(16) float qr[W][R][HD];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const fx_i64 bh = blockIdx.x / a.tiles, tile = blockIdx.x % a.tiles;
    const fx_i64 b = bh / a.H, h = bh % a.H;
    const fx_i64 row0 = tile * (W * R), wrow0 = row0 + w * R;
    const int K4 = ((int)a.K + 3) & ~3;  // the dot products run over float4s; padding reads zeros
    for (int r = 0; r < R; ++r) {
        const fx_i64 row = wrow0 + r;
        for (int d = lane; d < K4; d += 32)
            qr[w][r][d] = row < a.M && d < a.K
                              ? fx_ld(q, a.qoff + b * a.qs[0] + h * a.qs[1] + row * a.qs[2] + d * a.qs[3])
                              : 0.0f;
    }
    float acc[R][HD / 32];
    float mrun[R], lrun[R];
    for (int r = 0; r < R; ++r) {
        mrun[r] = FX_NEG_INF;
        lrun[r] = 0.0f;
        for (int i = 0; i < HD / 32; ++i) acc[r][i] = 0.0f;
    }
    // Causal: row r sees keys n <= r + shift, so the block needs the keys its last row sees only
    // (none where even that row sees none: bottom-right with M > N).
    fx_i64 nEnd = a.N;
    if (a.causal && row0 + W * R + a.causalShift < nEnd) nEnd = row0 + W * R + a.causalShift;
    const bool active = wrow0 < a.M;  // warp-uniform
    for (fx_i64 n0 = 0; n0 < nEnd; n0 += KT) {
        __syncthreads();
        for (int idx = threadIdx.x; idx < KT * K4; idx += blockDim.x) {
            const int j = idx / K4, d = idx % K4;
            const fx_i64 n = n0 + j;
            kt[j][d] =
                n < a.N && d < a.K ? fx_ld(k, a.koff + b * a.ks[0] + h * a.ks[1] + n * a.ks[2] + d * a.ks[3]) : 0.0f;
        }
        for (int idx = threadIdx.x; idx < KT * a.Kv; idx += blockDim.x) {
            const int j = idx / (int)a.Kv, d = idx % (int)a.Kv;
            const fx_i64 n = n0 + j;
            vt[j][d] = n < a.N ? fx_ld(v, a.voff + b * a.vs[0] + h * a.vs[1] + n * a.vs[2] + d * a.vs[3]) : 0.0f;
        }
        __syncthreads();
        if (!active) continue;
        const fx_i64 n = n0 + lane;
        const bool key = lane < KT && n < a.N;
        float s[R];
        for (int r = 0; r < R; ++r) s[r] = 0.0f;
        if (key) {
            for (int d = 0; d < K4; d += 4) {
                const float4 kv = *reinterpret_cast<const float4*>(&kt[lane][d]);
                for (int r = 0; r < R; ++r) {
                    const float4 qv = *reinterpret_cast<const float4*>(&qr[w][r][d]);
                    s[r] += qv.x * kv.x + qv.y * kv.y + qv.z * kv.z + qv.w * kv.w;
                }
            }
        }
        float p[R];
        for (int r = 0; r < R; ++r) {
            const fx_i64 row = wrow0 + r;
            s[r] = key && row < a.M && !(a.causal && n > row + a.causalShift) ? fx_score(a, bias, s[r], b, h, row, n)
                                                                              : FX_NEG_INF;
            const float mnew = fmaxf(mrun[r], fx_warp_max(s[r]));
            p[r] = s[r] == FX_NEG_INF ? 0.0f : expf(s[r] - mnew);
            const float corr = mrun[r] == FX_NEG_INF ? 0.0f : expf(mrun[r] - mnew);
            lrun[r] = lrun[r] * corr + fx_warp_sum(p[r]);
            mrun[r] = mnew;
            for (int i = 0; i < HD / 32; ++i) acc[r][i] *= corr;
        }
        for (int j = 0; j < KT; ++j) {
            float pj[R];
            for (int r = 0; r < R; ++r) pj[r] = __shfl_sync(FX_FULL, p[r], j);
            for (int i = 0; i < HD / 32; ++i) {
                const float vv = vt[j][lane + 32 * i];
                for (int r = 0; r < R; ++r) acc[r][i] += pj[r] * vv;
            }
        }
    }
    for (int r = 0; r < R; ++r) {
        const fx_i64 row = wrow0 + r;
        if (row < a.M) {
            // A row with every key masked has no probabilities: its output is 0 and its lse 0 (as
            // PyTorch's memory-efficient kernel sets them).
            const float inv = lrun[r] > 0.0f ? 1.0f / lrun[r] : 0.0f;
            for (int i = 0; i < HD / 32; ++i) {
                const int d = lane + 32 * i;
                if (d < a.Kv)
                    fx_st(o, a.ooff + b * a.os[0] + h * a.os[1] + row * a.os[2] + d * a.os[3], acc[r][i] * inv);
            }
        }
        // lse rows past M (PyTorch pads them to a multiple of 32) hold +inf.
        if (lse && lane == 0 && row < a.lseLen)
            lse[bh * a.lseLen + row] = row >= a.M ? FX_POS_INF : lrun[r] > 0.0f ? mrun[r] + logf(lrun[r]) : 0.0f;
    }
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
    // g: the strides and offsets of dk (ks, koff) and dv (vs, voff).
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
        vt[j][d] =
            n < a.N && d < a.Kv ? fx_ld(v, a.voff + b * a.vs[0] + h * a.vs[1] + n * a.vs[2] + d * a.vs[3]) : 0.0f;
        dks[j][d] = 0.0f;
        dvs[j][d] = 0.0f;
    }
    __syncthreads();
    // Causal: rows m with m + shift below the tile's first key see none of its keys.
    const fx_i64 rowStart = a.causal && n0 - a.causalShift > 0 ? n0 - a.causalShift : 0;
    for (fx_i64 i = rowStart + w; i < a.M; i += W) {
        for (int d = lane; d < HD; d += 32) {
            qr[w][d] = d < a.K ? fx_ld(q, a.qoff + b * a.qs[0] + h * a.qs[1] + i * a.qs[2] + d * a.qs[3]) : 0.0f;
            gr[w][d] = d < a.Kv ? fx_ld(go, a.goff + b * a.gs[0] + h * a.gs[1] + i * a.gs[2] + d * a.gs[3]) : 0.0f;
        }
        __syncwarp();
        const float L = lse[bh * a.lseLen + i], Di = D[bh * a.M + i];
        float p = 0.0f, ds = 0.0f;
        const fx_i64 n = n0 + lane;
        if (lane < KT && n < a.N && !(a.causal && n > i + a.causalShift)) {
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

#define FX_ATTN_KERNELS(T, S)                                                                                          \
    extern "C" __global__ void __launch_bounds__(128)                                                                  \
        fx_attn_fwd_##S##_64(const T* q, const T* k, const T* v, const T* bias, T* o, float* lse, FxAttnArgs a) {      \
        fx_attn_fwd<T, 64, 32, 4>(q, k, v, bias, o, lse, a);                                                           \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(128)                                                                  \
        fx_attn_fwd_##S##_128(const T* q, const T* k, const T* v, const T* bias, T* o, float* lse, FxAttnArgs a) {     \
        fx_attn_fwd<T, 128, 32, 4>(q, k, v, bias, o, lse, a);                                                          \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(128)                                                                  \
        fx_attn_fwd_##S##_256(const T* q, const T* k, const T* v, const T* bias, T* o, float* lse, FxAttnArgs a) {     \
        fx_attn_fwd<T, 256, 16, 2>(q, k, v, bias, o, lse, a);                                                          \
    }                                                                                                                  \
    extern "C" __global__ void fx_attn_rowdot_##S(const T* go, const T* o, float* D, FxAttnArgs a) {                   \
        fx_attn_rowdot<T>(go, o, D, a);                                                                                \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(128)                                                                  \
        fx_attn_bwd_##S##_64(const T* go, const T* q, const T* k, const T* v, const T* bias, const float* lse,         \
                             const float* D, float* dq, T* dk, T* dv, float* dbias, FxAttnArgs a, FxAttnArgs g) {      \
        fx_attn_bwd<T, 64, 32>(go, q, k, v, bias, lse, D, dq, dk, dv, dbias, a, g);                                    \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(128)                                                                  \
        fx_attn_bwd_##S##_128(const T* go, const T* q, const T* k, const T* v, const T* bias, const float* lse,        \
                              const float* D, float* dq, T* dk, T* dv, float* dbias, FxAttnArgs a, FxAttnArgs g) {     \
        fx_attn_bwd<T, 128, 16>(go, q, k, v, bias, lse, D, dq, dk, dv, dbias, a, g);                                   \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(128)                                                                  \
        fx_attn_bwd_##S##_256(const T* go, const T* q, const T* k, const T* v, const T* bias, const float* lse,        \
                              const float* D, float* dq, T* dk, T* dv, float* dbias, FxAttnArgs a, FxAttnArgs g) {     \
        fx_attn_bwd<T, 256, 8>(go, q, k, v, bias, lse, D, dq, dk, dv, dbias, a, g);                                    \
    }                                                                                                                  \
    extern "C" __global__ void fx_attn_cast_##S(const float* src, T* dst, FxAttnCastArgs a) {                          \
        fx_attn_cast<T>(src, dst, a);                                                                                  \
    }

FX_ATTN_KERNELS(float, f32)
FX_ATTN_KERNELS(fx_half, f16)
FX_ATTN_KERNELS(fx_bf16, bf16)

// ----- The GEMM path for short sequences (codegen/cuda/attention_gemm.cpp): the score matrix
// S = scale Q Kᵀ comes from cuBLAS into a dense fp32 [B*H, M, N] workspace and these kernels do
// the row-wise parts. A warp per row.

// P = softmax(S + bias) in place (causal: -inf right of the shifted diagonal), lse per row (0 where
// every key is masked); rows past M up to lseLen get +inf.
extern "C" __global__ void fx_attn_rows_softmax(float* __restrict__ S, const float* __restrict__ bias,
                                                float* __restrict__ lse, FxAttnArgs a) {
    const int lane = threadIdx.x & 31;
    const fx_i64 rows = a.M > a.lseLen ? a.M : a.lseLen;
    const fx_i64 r = ((fx_i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (r >= a.B * a.H * rows) return;
    const fx_i64 bh = r / rows, i = r % rows, b = bh / a.H, h = bh % a.H;
    if (i >= a.M) {
        if (lse && lane == 0) lse[bh * a.lseLen + i] = FX_POS_INF;
        return;
    }
    float* row = S + (bh * a.M + i) * a.N;
    float m = FX_NEG_INF;
    for (fx_i64 n = lane; n < a.N; n += 32) {
        float s = row[n];
        if (a.causal && n > i + a.causalShift)
            s = FX_NEG_INF;
        else if (a.hasBias)
            s += bias[a.boff + b * a.bs[0] + h * a.bs[1] + i * a.bs[2] + n * a.bs[3]];
        row[n] = s;
        m = fmaxf(m, s);
    }
    m = fx_warp_max(m);
    float l = 0.0f;
    for (fx_i64 n = lane; n < a.N; n += 32) l += row[n] == FX_NEG_INF ? 0.0f : expf(row[n] - m);
    l = fx_warp_sum(l);
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;
    for (fx_i64 n = lane; n < a.N; n += 32) row[n] = row[n] == FX_NEG_INF ? 0.0f : expf(row[n] - m) * inv;
    if (lse && lane == 0 && i < a.lseLen) lse[bh * a.lseLen + i] = l > 0.0f ? m + logf(l) : 0.0f;
}

// Backward, step 1: P = exp(S + bias - lse) in place (the forward's probabilities, from its lse).
extern "C" __global__ void fx_attn_rows_probs(float* __restrict__ S, const float* __restrict__ bias,
                                              const float* __restrict__ lse, FxAttnArgs a) {
    const int lane = threadIdx.x & 31;
    const fx_i64 r = ((fx_i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (r >= a.B * a.H * a.M) return;
    const fx_i64 bh = r / a.M, i = r % a.M, b = bh / a.H, h = bh % a.H;
    const float L = lse[bh * a.lseLen + i];
    float* row = S + r * a.N;
    for (fx_i64 n = lane; n < a.N; n += 32) {
        float s = row[n];
        if (a.causal && n > i + a.causalShift)
            s = FX_NEG_INF;
        else if (a.hasBias)
            s += bias[a.boff + b * a.bs[0] + h * a.bs[1] + i * a.bs[2] + n * a.bs[3]];
        row[n] = s == FX_NEG_INF ? 0.0f : expf(s - L);
    }
}

// Backward, step 2: dS = P (dP - D_i) in place of dP, D_i = dO_i . O_i; with a bias gradient, dS
// is also added into its fp32 accumulator (strides dbs, 0 where the bias broadcast).
extern "C" __global__ void fx_attn_rows_dsoftmax(const float* __restrict__ P, float* __restrict__ dP,
                                                 const float* __restrict__ D, float* __restrict__ dbias, FxAttnArgs a) {
    const int lane = threadIdx.x & 31;
    const fx_i64 r = ((fx_i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (r >= a.B * a.H * a.M) return;
    const fx_i64 bh = r / a.M, i = r % a.M, b = bh / a.H, h = bh % a.H;
    const float Di = D[r];
    for (fx_i64 n = lane; n < a.N; n += 32) {
        const float ds = P[r * a.N + n] * (dP[r * a.N + n] - Di);
        dP[r * a.N + n] = ds;
        if (dbias) atomicAdd(dbias + b * a.dbs[0] + h * a.dbs[1] + i * a.dbs[2] + n * a.dbs[3], ds);
    }
}
