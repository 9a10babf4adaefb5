// fp32 attention on tensor cores (sm_80+), same semantics as attention.cu's fused kernels. fp32
// products keep about fp32 accuracy through the 3xTF32 split that PyTorch's own fp32 kernel uses
// on sm_80+ (CUTLASS's OpMultiplyAddFastF32 in mem_eff_attention): x = big + small with
// big = tf32(x), small = tf32(x - big), and a * b ~ big_a big_b + big_a small_b + small_a big_b
// (small_a small_b is below fp32's rounding), each product an mma.sync m16n8k8 with fp32
// accumulation. Plain TF32 would lose three decimal digits.
//
// mma.sync m16n8k8 tf32 fragments (PTX ISA), g = lane / 4, t = lane % 4:
//   A (16 x 8, row-major): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
//   B (8 x 8, k x n):      b0 (k = t, n = g), b1 (k = t + 4, n = g)
//   C (16 x 8):            c0 (g, 2t), c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1)
// A C fragment becomes the A operand of the next product without a trip through shared memory by
// numbering the reduced dim differently: A column t is key 2t and column t + 4 is key 2t + 1, so
// (a0, a1, a2, a3) = (c0, c2, c1, c3), and the B operand reads its rows in the same order.
#ifndef FXRAY_EMBEDDED_SOURCE
#include "attention_args.h"
#include "dtype_io.cuh"
#endif

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800

/// tf32(x) rounded to nearest (ties away), as cvt.rna.tf32.f32, in two integer ops; the mma
/// reads the top 19 bits of the register.
__device__ __forceinline__ unsigned fx_tf32(float x) { return (__float_as_uint(x) + 0x1000u) & 0xffffe000u; }

/// x as big + small tf32 halves.
__device__ __forceinline__ void fx_split(float x, unsigned& big, unsigned& small) {
    big = fx_tf32(x);
    small = fx_tf32(x - __uint_as_float(big));
}

__device__ __forceinline__ void fx_mma(float (&c)[4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0,
                                       unsigned b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/// c += a * b in 3xTF32: (big, small) operand halves; small products first, as they are smaller.
__device__ __forceinline__ void fx_mma3(float (&c)[4], const unsigned (&ab)[4], const unsigned (&as)[4], unsigned bb0,
                                        unsigned bb1, unsigned bs0, unsigned bs1) {
    fx_mma(c, as[0], as[1], as[2], as[3], bb0, bb1);
    fx_mma(c, ab[0], ab[1], ab[2], ab[3], bs0, bs1);
    fx_mma(c, ab[0], ab[1], ab[2], ab[3], bb0, bb1);
}

// Forward: a block of 4 warps per (b, h, tile of 64 query rows), 16 rows a warp; the block walks
// the keys in tiles of KT, staged in shared memory already split into tf32 halves (each key
// serves the 4 warps). A warp's 16 query rows stay in registers as A fragments (split once); the
// scores of its 16 x KT tile are C fragments, their online softmax is done in registers (a row's
// values live on the 4 lanes of one quad), and the probabilities feed P.V as A fragments.
// HD: the padded head dim (K and Kv up to HD, zeros past them).
template <int HD, int KT>
__device__ void fx_attn_tc_fwd(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                               const float* __restrict__ bias, float* __restrict__ o, float* __restrict__ lse,
                               FxAttnArgs a) {
    const int W = 4, BM = 16 * W, LD = HD + 4;  // LD: conflict-free fragment reads (see the layouts)
    __shared__ unsigned kb[KT][LD], ks[KT][LD], vb[KT][LD], vs[KT][LD];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const fx_i64 bh = blockIdx.x / a.tiles, tile = blockIdx.x % a.tiles;
    const fx_i64 b = bh / a.H, h = bh % a.H;
    const fx_i64 row0 = tile * BM, wrow = row0 + w * 16;
    const fx_i64 r0 = wrow + g, r1 = wrow + g + 8;  // this lane's two rows
    const fx_i64 qbase = a.qoff + b * a.qs[0] + h * a.qs[1];
    const fx_i64 kbase = a.koff + b * a.ks[0] + h * a.ks[1];
    const fx_i64 vbase = a.voff + b * a.vs[0] + h * a.vs[1];
    const int kSteps = ((int)a.K + 7) / 8, vSteps = ((int)a.Kv + 7) / 8;

    unsigned qb[HD / 8][4], qsm[HD / 8][4];
#pragma unroll
    for (int s = 0; s < HD / 8; ++s) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const fx_i64 row = (e & 1) ? r1 : r0;
            const int d = s * 8 + t + ((e & 2) ? 4 : 0);
            const float x = row < a.M && d < a.K ? q[qbase + row * a.qs[2] + d * a.qs[3]] : 0.0f;
            fx_split(x, qb[s][e], qsm[s][e]);
        }
    }
    float acc[HD / 8][4];
#pragma unroll
    for (int s = 0; s < HD / 8; ++s)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[s][e] = 0.0f;
    float m0 = FX_NEG_INF, m1 = FX_NEG_INF, l0 = 0.0f, l1 = 0.0f;  // per-lane partial sums l

    fx_i64 nEnd = a.N;
    if (a.causal && row0 + BM < nEnd) nEnd = row0 + BM;  // top-left: row r sees keys n <= r
    const bool active = wrow < a.M;                      // warp-uniform
    const int K4 = ((int)a.K + 7) & ~7, V4 = ((int)a.Kv + 7) & ~7;
    for (fx_i64 n0 = 0; n0 < nEnd; n0 += KT) {
        __syncthreads();
        for (int idx = threadIdx.x; idx < KT * K4; idx += blockDim.x) {
            const int j = idx / K4, d = idx % K4;
            const fx_i64 n = n0 + j;
            const float x = n < a.N && d < a.K ? k[kbase + n * a.ks[2] + d * a.ks[3]] : 0.0f;
            fx_split(x, kb[j][d], ks[j][d]);
        }
        for (int idx = threadIdx.x; idx < KT * V4; idx += blockDim.x) {
            const int j = idx / V4, d = idx % V4;
            const fx_i64 n = n0 + j;
            const float x = n < a.N && d < a.Kv ? v[vbase + n * a.vs[2] + d * a.vs[3]] : 0.0f;
            fx_split(x, vb[j][d], vs[j][d]);
        }
        __syncthreads();
        if (!active) continue;
        // S = Q K^T for the warp's 16 rows x KT keys.
        float s[KT / 8][4];
#pragma unroll
        for (int nt = 0; nt < KT / 8; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e) s[nt][e] = 0.0f;
#pragma unroll
        for (int st = 0; st < HD / 8; ++st) {
            if (st >= kSteps) break;
#pragma unroll
            for (int nt = 0; nt < KT / 8; ++nt) {
                const int j = nt * 8 + g, d = st * 8 + t;
                fx_mma3(s[nt], qb[st], qsm[st], kb[j][d], kb[j][d + 4], ks[j][d], ks[j][d + 4]);
            }
        }
        // Scale, bias, masks; the online softmax of rows r0 (e = 0, 1) and r1 (e = 2, 3).
        float mx0 = FX_NEG_INF, mx1 = FX_NEG_INF;
#pragma unroll
        for (int nt = 0; nt < KT / 8; ++nt) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const fx_i64 row = e < 2 ? r0 : r1, n = n0 + nt * 8 + 2 * t + (e & 1);
                s[nt][e] = n < a.N && row < a.M && !(a.causal && n > row) ? fx_score(a, bias, s[nt][e], b, h, row, n)
                                                                          : FX_NEG_INF;
            }
            mx0 = fmaxf(mx0, fmaxf(s[nt][0], s[nt][1]));
            mx1 = fmaxf(mx1, fmaxf(s[nt][2], s[nt][3]));
        }
        mx0 = fmaxf(mx0, __shfl_xor_sync(FX_FULL, mx0, 1));
        mx0 = fmaxf(mx0, __shfl_xor_sync(FX_FULL, mx0, 2));
        mx1 = fmaxf(mx1, __shfl_xor_sync(FX_FULL, mx1, 1));
        mx1 = fmaxf(mx1, __shfl_xor_sync(FX_FULL, mx1, 2));
        const float mn0 = fmaxf(m0, mx0), mn1 = fmaxf(m1, mx1);
        const float c0 = m0 == FX_NEG_INF ? 0.0f : expf(m0 - mn0), c1 = m1 == FX_NEG_INF ? 0.0f : expf(m1 - mn1);
        m0 = mn0, m1 = mn1;
        l0 *= c0, l1 *= c1;
#pragma unroll
        for (int dt = 0; dt < HD / 8; ++dt) {
            acc[dt][0] *= c0, acc[dt][1] *= c0;
            acc[dt][2] *= c1, acc[dt][3] *= c1;
        }
        // O += P V, P as A fragments (see the top: a = (c0, c2, c1, c3)), keys in V's rows 2t, 2t + 1.
#pragma unroll
        for (int nt = 0; nt < KT / 8; ++nt) {
            float p[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const float mm = e < 2 ? mn0 : mn1;
                p[e] = s[nt][e] == FX_NEG_INF ? 0.0f : expf(s[nt][e] - mm);
            }
            l0 += p[0] + p[1];
            l1 += p[2] + p[3];
            unsigned pb[4], ps[4];
            fx_split(p[0], pb[0], ps[0]);
            fx_split(p[2], pb[1], ps[1]);
            fx_split(p[1], pb[2], ps[2]);
            fx_split(p[3], pb[3], ps[3]);
            const int j = nt * 8 + 2 * t;
#pragma unroll
            for (int dt = 0; dt < HD / 8; ++dt) {
                if (dt >= vSteps) break;
                const int d = dt * 8 + g;
                fx_mma3(acc[dt], pb, ps, vb[j][d], vb[j + 1][d], vs[j][d], vs[j + 1][d]);
            }
        }
    }
    l0 += __shfl_xor_sync(FX_FULL, l0, 1);
    l0 += __shfl_xor_sync(FX_FULL, l0, 2);
    l1 += __shfl_xor_sync(FX_FULL, l1, 1);
    l1 += __shfl_xor_sync(FX_FULL, l1, 2);
    // A row with every key masked has no probabilities: its output is 0 and its lse +inf.
    const float inv0 = l0 > 0.0f ? 1.0f / l0 : 0.0f, inv1 = l1 > 0.0f ? 1.0f / l1 : 0.0f;
    const fx_i64 obase = a.ooff + b * a.os[0] + h * a.os[1];
#pragma unroll
    for (int dt = 0; dt < HD / 8; ++dt) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const fx_i64 row = e < 2 ? r0 : r1;
            const int d = dt * 8 + 2 * t + (e & 1);
            if (row < a.M && d < a.Kv) o[obase + row * a.os[2] + d * a.os[3]] = acc[dt][e] * (e < 2 ? inv0 : inv1);
        }
    }
    // lse rows past M (PyTorch pads them to a multiple of 32) hold +inf.
    if (lse && t == 0) {
        if (r0 < a.lseLen) lse[bh * a.lseLen + r0] = r0 < a.M && l0 > 0.0f ? m0 + logf(l0) : FX_POS_INF;
        if (r1 < a.lseLen) lse[bh * a.lseLen + r1] = r1 < a.M && l1 > 0.0f ? m1 + logf(l1) : FX_POS_INF;
    }
}

extern "C" __global__ void __launch_bounds__(128)
    fx_attn_tc_fwd_64(const float* q, const float* k, const float* v, const float* bias, float* o, float* lse,
                      FxAttnArgs a) {
    fx_attn_tc_fwd<64, 32>(q, k, v, bias, o, lse, a);
}

#endif
