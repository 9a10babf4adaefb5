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
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

/// cb += big_a big_b, cs += small_a big_b + big_a small_b: 3xTF32 with the small-half products in
/// an accumulator of their own (a second independent mma chain).
__device__ __forceinline__ void fx_mma3s(float (&cb)[4], float (&cs)[4], const unsigned (&ab)[4],
                                         const unsigned (&as)[4], unsigned bb0, unsigned bb1, unsigned bs0,
                                         unsigned bs1) {
    fx_mma(cs, as[0], as[1], as[2], as[3], bb0, bb1);
    fx_mma(cs, ab[0], ab[1], ab[2], ab[3], bs0, bs1);
    fx_mma(cb, ab[0], ab[1], ab[2], ab[3], bb0, bb1);
}

/// c += a * b in 3xTF32: (big, small) operand halves; small products first, as they are smaller.
__device__ __forceinline__ void fx_mma3(float (&c)[4], const unsigned (&ab)[4], const unsigned (&as)[4], unsigned bb0,
                                        unsigned bb1, unsigned bs0, unsigned bs1) {
    fx_mma(c, as[0], as[1], as[2], as[3], bb0, bb1);
    fx_mma(c, ab[0], ab[1], ab[2], ab[3], bs0, bs1);
    fx_mma(c, ab[0], ab[1], ab[2], ab[3], bb0, bb1);
}

/// Rows n0 .. n0 + 128 NL / HD of x [n, d] (strides xs[2], xs[3] from base) into registers, thread
/// i holding elements threadIdx.x + 128 i in row-major order; zeros past n < N, d < D.
template <int HD, int NL>
__device__ __forceinline__ void fx_attn_tc_load(const float* __restrict__ x, fx_i64 base, const long long (&xs)[4],
                                                fx_i64 N, fx_i64 D, fx_i64 n0, float (&r)[NL]) {
    // Thread i's column is fixed (128 is a multiple of HD); its rows step by 128 / HD.
    const int RS = 128 / HD, d = threadIdx.x % HD;
    const fx_i64 n = n0 + threadIdx.x / HD;
    const float* p = x + base + n * xs[2] + d * xs[3];
    const fx_i64 step = RS * xs[2];
#pragma unroll
    for (int i = 0; i < NL; ++i) r[i] = n + RS * i < N && d < D ? p[i * step] : 0.0f;
}

/// x [rows, cols] row-major in shared memory (leading dim ld) from registers loaded by
/// fx_attn_tc_load, split into tf32 halves.
template <int HD, int NL>
__device__ __forceinline__ void fx_attn_tc_stage(const float (&r)[NL], unsigned* big, unsigned* small, int ld) {
#pragma unroll
    for (int i = 0; i < NL; ++i) {
        const int idx = threadIdx.x + 128 * i, j = idx / HD, d = idx % HD;
        fx_split(r[i], big[j * ld + d], small[j * ld + d]);
    }
}

/// The A fragment (rows r0 .. r0 + 15, cols c0 .. c0 + 7) of a split matrix in shared memory.
__device__ __forceinline__ void fx_attn_tc_afrag(const unsigned* big, const unsigned* small, int ld, int r0, int c0,
                                                 unsigned (&ab)[4], unsigned (&as)[4]) {
    const int g = (threadIdx.x & 31) >> 2, t = threadIdx.x & 3;
    const int i0 = (r0 + g) * ld + c0 + t, i1 = i0 + 8 * ld;
    ab[0] = big[i0], ab[1] = big[i1], ab[2] = big[i0 + 4], ab[3] = big[i1 + 4];
    as[0] = small[i0], as[1] = small[i1], as[2] = small[i0 + 4], as[3] = small[i1 + 4];
}

// Forward: a block of 4 warps per (b, h, tile of 64 query rows), 16 rows a warp. The query tile
// sits in shared memory split into tf32 halves once (read as A fragments); the block walks the
// keys in tiles of KT, staged in shared memory already split too (each key serves the 4 warps),
// the next tile loading into registers meanwhile. The scores of a warp's 16 x KT tile are C
// fragments; their online softmax is done in registers (a row's values live on the 4 lanes of one
// quad), and the probabilities feed P.V as A fragments. 159 registers at HD 64 (three blocks per
// SM), 240 at HD 128 (two, with KT = 16 for the shared memory).
// HD: the padded head dim (K and Kv up to HD, zeros past them). Shared memory (dynamic,
// tcForwardSharedBytes): Q [64][HD + 4], then K and V [KT][HD + 4], each as big and small halves.
template <int HD, int KT>
__device__ void fx_attn_tc_fwd(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                               const float* __restrict__ bias, float* __restrict__ o, float* __restrict__ lse,
                               FxAttnArgs a) {
    const int W = 4, BM = 16 * W, LD = HD + 4;  // LD: conflict-free fragment reads (see the layouts)
    extern __shared__ __align__(16) unsigned fx_tc_fwd_smem[];
    unsigned *qb = fx_tc_fwd_smem, *qsm = qb + BM * LD, *kb = qsm + BM * LD, *ks = kb + KT * LD;
    unsigned *vb = ks + KT * LD, *vs = vb + KT * LD;
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const fx_i64 bh = blockIdx.x / a.tiles, tile = blockIdx.x % a.tiles;
    const fx_i64 b = bh / a.H, h = bh % a.H;
    const fx_i64 row0 = tile * BM, wrow = row0 + w * 16;
    const fx_i64 r0 = wrow + g, r1 = wrow + g + 8;  // this lane's two rows
    const fx_i64 kbase = a.koff + b * a.ks[0] + h * a.ks[1];
    const fx_i64 vbase = a.voff + b * a.vs[0] + h * a.vs[1];
    const int kSteps = ((int)a.K + 7) / 8, vSteps = ((int)a.Kv + 7) / 8;
    const int NL = KT * HD / 128;
    float kr[NL], vr[NL];
    {
        const int NQ = BM * HD / 128;
        float r[NQ];
        fx_attn_tc_load<HD, NQ>(q, a.qoff + b * a.qs[0] + h * a.qs[1], a.qs, a.M, a.K, row0, r);
        fx_attn_tc_stage<HD, NQ>(r, qb, qsm, LD);
    }
    float acc[HD / 8][4];
#pragma unroll
    for (int s = 0; s < HD / 8; ++s)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[s][e] = 0.0f;
    float m0 = FX_NEG_INF, m1 = FX_NEG_INF, l0 = 0.0f, l1 = 0.0f;  // per-lane partial sums l
    fx_i64 nEnd = a.N;
    // Causal: row r sees keys n <= r + shift, the block the keys of its last row.
    if (a.causal && row0 + BM + a.causalShift < nEnd) nEnd = row0 + BM + a.causalShift;
    const bool active = wrow < a.M;  // warp-uniform
    fx_attn_tc_load<HD, NL>(k, kbase, a.ks, a.N, a.K, 0, kr);
    fx_attn_tc_load<HD, NL>(v, vbase, a.vs, a.N, a.Kv, 0, vr);
    for (fx_i64 n0 = 0; n0 < nEnd; n0 += KT) {
        __syncthreads();
        fx_attn_tc_stage<HD, NL>(kr, kb, ks, LD);
        fx_attn_tc_stage<HD, NL>(vr, vb, vs, LD);
        __syncthreads();
        // The next key tile loads while this one is multiplied.
        if (n0 + KT < nEnd) {
            fx_attn_tc_load<HD, NL>(k, kbase, a.ks, a.N, a.K, n0 + KT, kr);
            fx_attn_tc_load<HD, NL>(v, vbase, a.vs, a.N, a.Kv, n0 + KT, vr);
        }
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
            unsigned ab[4], as[4];
            fx_attn_tc_afrag(qb, qsm, LD, w * 16, st * 8, ab, as);
#pragma unroll
            for (int nt = 0; nt < KT / 8; ++nt) {
                const int i = (nt * 8 + g) * LD + st * 8 + t;
                fx_mma3(s[nt], ab, as, kb[i], kb[i + 4], ks[i], ks[i + 4]);
            }
        }
        // Scale, bias, masks; the online softmax of rows r0 (e = 0, 1) and r1 (e = 2, 3).
        float mx0 = FX_NEG_INF, mx1 = FX_NEG_INF;
#pragma unroll
        for (int nt = 0; nt < KT / 8; ++nt) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const fx_i64 row = e < 2 ? r0 : r1, n = n0 + nt * 8 + 2 * t + (e & 1);
                s[nt][e] = n < a.N && row < a.M && !(a.causal && n > row + a.causalShift)
                               ? fx_score(a, bias, s[nt][e], b, h, row, n)
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
                fx_mma3(acc[dt], pb, ps, vb[j * LD + d], vb[(j + 1) * LD + d], vs[j * LD + d], vs[(j + 1) * LD + d]);
            }
        }
    }
    l0 += __shfl_xor_sync(FX_FULL, l0, 1);
    l0 += __shfl_xor_sync(FX_FULL, l0, 2);
    l1 += __shfl_xor_sync(FX_FULL, l1, 1);
    l1 += __shfl_xor_sync(FX_FULL, l1, 2);
    // A row with every key masked has no probabilities: its output is 0.
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
    // Rows with every key masked: lse 0 (PyTorch's kernel); padding rows past M (PyTorch pads lse
    // to a multiple of 32): +inf.
    if (lse && t == 0) {
        if (r0 < a.lseLen) lse[bh * a.lseLen + r0] = r0 >= a.M ? FX_POS_INF : l0 > 0.0f ? m0 + logf(l0) : 0.0f;
        if (r1 < a.lseLen) lse[bh * a.lseLen + r1] = r1 >= a.M ? FX_POS_INF : l1 > 0.0f ? m1 + logf(l1) : 0.0f;
    }
}

extern "C" __global__ void __launch_bounds__(128, 3)
    fx_attn_tc_fwd_64(const float* q, const float* k, const float* v, const float* bias, float* o, float* lse,
                      FxAttnArgs a) {
    fx_attn_tc_fwd<64, 32>(q, k, v, bias, o, lse, a);
}

// Backward: a block of 4 warps per (b, h, tile of 64 keys), 16 keys a warp; the block walks the
// query rows in tiles of BQ (Q and dO staged split in shared memory, the next tile loading into
// registers meanwhile). For its keys a warp computes S^T = K Q^T and dP^T = V dO^T (C fragments,
// keys x rows), P^T = exp(S^T - lse) and dS^T = P^T (dP^T - D), and accumulates dV += P^T dO and
// dK += dS^T Q in registers (the C fragments as A operands, rows numbered as at the top). dQ of
// the row tile, dS K over the block's 64 keys, goes through dS [rows][keys] in shared memory
// (plain fp32, split when read): each warp takes HD / 4 of the dims for all BQ rows and adds them
// to the fp32 dq (strides in gk.qs) with atomics; grad_bias takes dS with atomics where the bias
// broadcast. ncu on an H200 (ViT's 16 x 6 x 197 x 64, 16-row steps): latency bound, not by the
// tensor cores or the issue rate: two warps a scheduler (registers and shared memory allow two
// blocks an SM), 0.3 instructions issued a cycle each, "wait" (fixed-latency dependency) the top
// stall: the 3xTF32 products of one accumulator back to back, in short basic blocks (a bounds
// test on every head-dim step). FULL and ILV below (no tests where the head dims fill HD, the
// accumulators' products interleaved) took the ViT call from 221 to 174 us. BQ = 32 (halving
// the per-row share of the syncs, the K and V fragment reads and the staging) was 5% faster at
// 8 x 6 x 1024 x 64 without them, 2% slower at ViT's size, and spills with them. Splitting a key
// tile's rows over more blocks (dK, dV by atomics) to fill the last wave was 12% slower.
// Shared memory (dynamic, tcBackwardSharedBytes): K and V [64][HD + 4], Q and dO [BQ][HD + 4],
// each as big and small halves, dS [BQ][72] (float2 reads conflict-free), lse and D of the tile.
/// A compile-time bool for generic lambdas (NVRTC has no <type_traits>).
template <bool B>
struct fx_bool {
    static constexpr bool value = B;
};

// FULL: K == Kv == HD, so that no k-step of the head dims needs its bounds check: the inner loops
// have no branches then and the compiler interleaves the independent products across them.
// ILV: the products of independent accumulators interleaved in the source too, with their
// operands loaded ahead. Both, and dQ's loop without its exit test where all 64 keys are there,
// take registers: only bwd_64_q16 has them (the others would spill).
template <int HD, int BQ, bool FULL, bool ILV>
__device__ void fx_attn_tc_bwd(const float* __restrict__ go, const float* __restrict__ q, const float* __restrict__ k,
                               const float* __restrict__ v, const float* __restrict__ bias,
                               const float* __restrict__ lse, const float* __restrict__ D, float* __restrict__ dq,
                               float* __restrict__ dk, float* __restrict__ dv, float* __restrict__ dbias, FxAttnArgs a,
                               FxAttnArgs gk) {
    const int BN = 64, LD = HD + 4, LP = BN + 8;
    const int NR = BQ / 8;   // S^T's n-tiles (rows) and dV/dK's k-steps
    const int MT = BQ / 16;  // dQ: m-tiles of rows, each warp all of them
    const int DW = HD / 4;   // dQ: dims a warp
    const int NT = DW / 8;   // dQ: n-tiles a warp
    extern __shared__ __align__(16) unsigned fx_tc_bwd_smem[];
    unsigned *kb = fx_tc_bwd_smem, *ks = kb + BN * LD, *vb = ks + BN * LD, *vs = vb + BN * LD;
    unsigned *qb = vs + BN * LD, *qsm = qb + BQ * LD, *gb = qsm + BQ * LD, *gsm = gb + BQ * LD;
    float *dsm = reinterpret_cast<float*>(gsm + BQ * LD), *lt = dsm + BQ * LP, *dt_ = lt + BQ;
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const fx_i64 bh = blockIdx.x / a.tiles, tile = blockIdx.x % a.tiles;
    const fx_i64 b = bh / a.H, h = bh % a.H;
    const fx_i64 n0 = tile * BN;
    const fx_i64 qbase = a.qoff + b * a.qs[0] + h * a.qs[1], gbase = a.goff + b * a.gs[0] + h * a.gs[1];
    const int kSteps = ((int)a.K + 7) / 8, vSteps = ((int)a.Kv + 7) / 8;
    {
        const int NK = BN * HD / 128;
        float r[NK];
        fx_attn_tc_load<HD, NK>(k, a.koff + b * a.ks[0] + h * a.ks[1], a.ks, a.N, a.K, n0, r);
        fx_attn_tc_stage<HD, NK>(r, kb, ks, LD);
        fx_attn_tc_load<HD, NK>(v, a.voff + b * a.vs[0] + h * a.vs[1], a.vs, a.N, a.Kv, n0, r);
        fx_attn_tc_stage<HD, NK>(r, vb, vs, LD);
    }
    float dka[HD / 8][4], dva[HD / 8][4];
#pragma unroll
    for (int i = 0; i < HD / 8; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e) dka[i][e] = dva[i][e] = 0.0f;
    const fx_i64 key0 = n0 + w * 16 + g, key1 = key0 + 8;  // this lane's two keys
    const bool key0ok = key0 < a.N, key1ok = key1 < a.N;
    const bool hasKeys = n0 + w * 16 < a.N;  // warp-uniform
    // dQ's k-steps: keys up to N, rounded up to 8 (the rest of that warp's keys have dS = 0).
    const int keySteps = (int)((a.N - n0 + 7) / 8);
    // Causal: rows m with m + shift below the tile's first key see none of its keys.
    const fx_i64 rowStart = a.causal && n0 - a.causalShift > 0 ? (n0 - a.causalShift) / BQ * BQ : 0;
    float* dqp = dq + gk.qoff + b * gk.qs[0] + h * gk.qs[1];
    const int NQ = BQ * HD / 128;
    float qr[NQ], gr[NQ], lr = 0.0f, dr = 0.0f;
    auto prefetch = [&](fx_i64 i0) {
        fx_attn_tc_load<HD, NQ>(q, qbase, a.qs, a.M, a.K, i0, qr);
        fx_attn_tc_load<HD, NQ>(go, gbase, a.gs, a.M, a.Kv, i0, gr);
        if (threadIdx.x < BQ && i0 + threadIdx.x < a.M) {
            lr = lse[bh * a.lseLen + i0 + threadIdx.x];
            dr = D[bh * a.M + i0 + threadIdx.x];
        }
    };
    if (rowStart < a.M) prefetch(rowStart);
    for (fx_i64 i0 = rowStart; i0 < a.M; i0 += BQ) {
        __syncthreads();
        fx_attn_tc_stage<HD, NQ>(qr, qb, qsm, LD);
        fx_attn_tc_stage<HD, NQ>(gr, gb, gsm, LD);
        if (threadIdx.x < BQ) lt[threadIdx.x] = lr, dt_[threadIdx.x] = dr;
        __syncthreads();
        if (i0 + BQ < a.M) prefetch(i0 + BQ);
        const int rows = a.M - i0 < BQ ? (int)(a.M - i0) : BQ;  // valid rows of the tile
        // A warp whose keys all lie past N (the last tile's) has nothing of its own to do; dQ's
        // k-steps below stop before its keys.
        if (hasKeys) {
            // The small-half products in accumulators of their own (sl, pl).
            float sa[NR][4], sl[NR][4], pa[NR][4], pl[NR][4];
#pragma unroll
            for (int nt = 0; nt < NR; ++nt)
#pragma unroll
                for (int e = 0; e < 4; ++e) sa[nt][e] = sl[nt][e] = pa[nt][e] = pl[nt][e] = 0.0f;
            if (ILV) {
                // Each k-step: the small-half products of every accumulator first, then the big ones
                // (each accumulator's order as fx_mma3s), so that no product waits on the one before.
#pragma unroll
                for (int s8 = 0; s8 < HD / 8; ++s8) {
                    const bool kOn = FULL || s8 < kSteps, vOn = FULL || s8 < vSteps;
                    unsigned kab[4], kas[4], vab[4], vas[4], qf[NR][4], gf[NR][4];  // B: big 0, 1, small 0, 1
                    if (kOn) fx_attn_tc_afrag(kb, ks, LD, w * 16, s8 * 8, kab, kas);
                    if (vOn) fx_attn_tc_afrag(vb, vs, LD, w * 16, s8 * 8, vab, vas);
#pragma unroll
                    for (int nt = 0; nt < NR; ++nt) {
                        const int i = (nt * 8 + g) * LD + s8 * 8 + t;
                        if (kOn) qf[nt][0] = qb[i], qf[nt][1] = qb[i + 4], qf[nt][2] = qsm[i], qf[nt][3] = qsm[i + 4];
                        if (vOn) gf[nt][0] = gb[i], gf[nt][1] = gb[i + 4], gf[nt][2] = gsm[i], gf[nt][3] = gsm[i + 4];
                    }
#pragma unroll
                    for (int nt = 0; nt < NR; ++nt) {
                        if (kOn) fx_mma(sl[nt], kas[0], kas[1], kas[2], kas[3], qf[nt][0], qf[nt][1]);
                        if (vOn) fx_mma(pl[nt], vas[0], vas[1], vas[2], vas[3], gf[nt][0], gf[nt][1]);
                    }
#pragma unroll
                    for (int nt = 0; nt < NR; ++nt) {
                        if (kOn) fx_mma(sl[nt], kab[0], kab[1], kab[2], kab[3], qf[nt][2], qf[nt][3]);
                        if (vOn) fx_mma(pl[nt], vab[0], vab[1], vab[2], vab[3], gf[nt][2], gf[nt][3]);
                    }
#pragma unroll
                    for (int nt = 0; nt < NR; ++nt) {
                        if (kOn) fx_mma(sa[nt], kab[0], kab[1], kab[2], kab[3], qf[nt][0], qf[nt][1]);
                        if (vOn) fx_mma(pa[nt], vab[0], vab[1], vab[2], vab[3], gf[nt][0], gf[nt][1]);
                    }
                }
            } else {
#pragma unroll
                for (int s8 = 0; s8 < HD / 8; ++s8) {
                    if (FULL || s8 < kSteps) {
                        unsigned ab[4], as[4];
                        fx_attn_tc_afrag(kb, ks, LD, w * 16, s8 * 8, ab, as);
#pragma unroll
                        for (int nt = 0; nt < NR; ++nt) {
                            const int i = (nt * 8 + g) * LD + s8 * 8 + t;
                            fx_mma3s(sa[nt], sl[nt], ab, as, qb[i], qb[i + 4], qsm[i], qsm[i + 4]);
                        }
                    }
                    if (FULL || s8 < vSteps) {
                        unsigned ab[4], as[4];
                        fx_attn_tc_afrag(vb, vs, LD, w * 16, s8 * 8, ab, as);
#pragma unroll
                        for (int nt = 0; nt < NR; ++nt) {
                            const int i = (nt * 8 + g) * LD + s8 * 8 + t;
                            fx_mma3s(pa[nt], pl[nt], ab, as, gb[i], gb[i + 4], gsm[i], gsm[i + 4]);
                        }
                    }
                }
            }
            // P^T and dS^T in place of S^T and dP^T: e = 0, 1 key0, e = 2, 3 key1; rows 2t, 2t + 1.
#pragma unroll
            for (int nt = 0; nt < NR; ++nt) {
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int ri = nt * 8 + 2 * t + (e & 1);
                    const fx_i64 row = i0 + ri, key = e < 2 ? key0 : key1;
                    float p = 0.0f;
                    if ((e < 2 ? key0ok : key1ok) && ri < rows && !(a.causal && key > row + a.causalShift)) {
                        const float sc = fx_score(a, bias, sl[nt][e] + sa[nt][e], b, h, row, key);
                        p = sc == FX_NEG_INF ? 0.0f : expf(sc - lt[ri]);
                    }
                    const float ds = p * ((pl[nt][e] + pa[nt][e]) - dt_[ri]);
                    if (dbias && p != 0.0f)
                        atomicAdd(dbias + b * a.dbs[0] + h * a.dbs[1] + row * a.dbs[2] + key * a.dbs[3], ds);
                    sa[nt][e] = p;
                    pa[nt][e] = ds;
                    dsm[ri * LP + w * 16 + g + (e < 2 ? 0 : 8)] = ds;
                }
            }
            // dV += P^T dO and dK += dS^T Q; the C fragments as A operands: (c0, c2, c1, c3).
#pragma unroll
            for (int kt = 0; kt < NR; ++kt) {
                unsigned pb[4], ps[4], sb4[4], ss4[4];
                fx_split(sa[kt][0], pb[0], ps[0]);
                fx_split(sa[kt][2], pb[1], ps[1]);
                fx_split(sa[kt][1], pb[2], ps[2]);
                fx_split(sa[kt][3], pb[3], ps[3]);
                fx_split(pa[kt][0], sb4[0], ss4[0]);
                fx_split(pa[kt][2], sb4[1], ss4[1]);
                fx_split(pa[kt][1], sb4[2], ss4[2]);
                fx_split(pa[kt][3], sb4[3], ss4[3]);
                const int r = kt * 8 + 2 * t;
                if (ILV) {
                    // Two head-dim steps at once, their four accumulators' products interleaved (each
                    // accumulator's order as fx_mma3).
#pragma unroll
                    for (int d8 = 0; d8 < HD / 8; d8 += 2) {
                        unsigned gf[2][4], qf[2][4];  // B: big 0, 1, small 0, 1
                        bool vOn[2], kOn[2];
#pragma unroll
                        for (int j = 0; j < 2; ++j) {
                            const int i = r * LD + (d8 + j) * 8 + g;
                            vOn[j] = FULL || d8 + j < vSteps, kOn[j] = FULL || d8 + j < kSteps;
                            if (vOn[j]) gf[j][0] = gb[i], gf[j][1] = gb[i + LD], gf[j][2] = gsm[i], gf[j][3] = gsm[i + LD];
                            if (kOn[j]) qf[j][0] = qb[i], qf[j][1] = qb[i + LD], qf[j][2] = qsm[i], qf[j][3] = qsm[i + LD];
                        }
#pragma unroll
                        for (int j = 0; j < 2; ++j) {
                            if (vOn[j]) fx_mma(dva[d8 + j], ps[0], ps[1], ps[2], ps[3], gf[j][0], gf[j][1]);
                            if (kOn[j]) fx_mma(dka[d8 + j], ss4[0], ss4[1], ss4[2], ss4[3], qf[j][0], qf[j][1]);
                        }
#pragma unroll
                        for (int j = 0; j < 2; ++j) {
                            if (vOn[j]) fx_mma(dva[d8 + j], pb[0], pb[1], pb[2], pb[3], gf[j][2], gf[j][3]);
                            if (kOn[j]) fx_mma(dka[d8 + j], sb4[0], sb4[1], sb4[2], sb4[3], qf[j][2], qf[j][3]);
                        }
#pragma unroll
                        for (int j = 0; j < 2; ++j) {
                            if (vOn[j]) fx_mma(dva[d8 + j], pb[0], pb[1], pb[2], pb[3], gf[j][0], gf[j][1]);
                            if (kOn[j]) fx_mma(dka[d8 + j], sb4[0], sb4[1], sb4[2], sb4[3], qf[j][0], qf[j][1]);
                        }
                    }
                } else {
#pragma unroll
                    for (int d8 = 0; d8 < HD / 8; ++d8) {
                        const int i = r * LD + d8 * 8 + g;
                        if (FULL || d8 < vSteps) fx_mma3(dva[d8], pb, ps, gb[i], gb[i + LD], gsm[i], gsm[i + LD]);
                        if (FULL || d8 < kSteps) fx_mma3(dka[d8], sb4, ss4, qb[i], qb[i + LD], qsm[i], qsm[i + LD]);
                    }
                }
            }
        }
        __syncthreads();
        // dQ [BQ rows, dims DW w .. DW w + DW - 1] = dS [BQ rows, 64 keys] K [64 keys, dims]; the
        // keys of a k-step numbered as at the top (A column t: key 2t, t + 4: key 2t + 1), so
        // that dS's two keys of a lane are one float2 and K's B fragment rows 2t, 2t + 1.
        // Every key tile but the last has all 8 k-steps: its loop has no exit test then (ALL).
        auto dqPhase = [&](auto allKeys) {
            constexpr bool ALL = decltype(allKeys)::value;
            float qa[MT][NT][4], qsl[MT][NT][4];  // big and small-half products
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                    for (int e = 0; e < 4; ++e) qa[mt][nt][e] = qsl[mt][nt][e] = 0.0f;
#pragma unroll
            for (int k8 = 0; k8 < BN / 8; ++k8) {
                if (!ALL && k8 >= keySteps) break;
                unsigned bb[NT][2], bs[NT][2], ab[MT][4], as[MT][4];
#pragma unroll
                for (int nt = 0; nt < NT; ++nt) {
                    const int i = (k8 * 8 + 2 * t) * LD + w * DW + nt * 8 + g;
                    bb[nt][0] = kb[i], bb[nt][1] = kb[i + LD], bs[nt][0] = ks[i], bs[nt][1] = ks[i + LD];
                }
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) {
                    const int j = (mt * 16 + g) * LP + k8 * 8 + 2 * t;
                    const float2 x0 = *reinterpret_cast<const float2*>(dsm + j);
                    const float2 x1 = *reinterpret_cast<const float2*>(dsm + j + 8 * LP);
                    fx_split(x0.x, ab[mt][0], as[mt][0]);
                    fx_split(x1.x, ab[mt][1], as[mt][1]);
                    fx_split(x0.y, ab[mt][2], as[mt][2]);
                    fx_split(x1.y, ab[mt][3], as[mt][3]);
                }
                if (ILV) {
                    // Each accumulator's order as fx_mma3s, the accumulators interleaved.
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                        for (int nt = 0; nt < NT; ++nt)
                            fx_mma(qsl[mt][nt], as[mt][0], as[mt][1], as[mt][2], as[mt][3], bb[nt][0], bb[nt][1]);
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                        for (int nt = 0; nt < NT; ++nt)
                            fx_mma(qsl[mt][nt], ab[mt][0], ab[mt][1], ab[mt][2], ab[mt][3], bs[nt][0], bs[nt][1]);
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                        for (int nt = 0; nt < NT; ++nt)
                            fx_mma(qa[mt][nt], ab[mt][0], ab[mt][1], ab[mt][2], ab[mt][3], bb[nt][0], bb[nt][1]);
                } else {
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                        for (int nt = 0; nt < NT; ++nt)
                            fx_mma3s(qa[mt][nt], qsl[mt][nt], ab[mt], as[mt], bb[nt][0], bb[nt][1], bs[nt][0], bs[nt][1]);
                }
            }
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        const int ri = mt * 16 + g + (e < 2 ? 0 : 8);
                        const int d = w * DW + nt * 8 + 2 * t + (e & 1);
                        const float x = qsl[mt][nt][e] + qa[mt][nt][e];
                        if (ri < rows && d < a.K && x != 0.0f)
                            atomicAdd(dqp + (i0 + ri) * gk.qs[2] + d * gk.qs[3], a.scale * x);
                    }
        };
        if (w * DW < a.K) {
            if (ILV && keySteps >= BN / 8) dqPhase(fx_bool<true>());
            else dqPhase(fx_bool<false>());
        }
    }
    // dK (scaled) and dV of the warp's keys.
#pragma unroll
    for (int d8 = 0; d8 < HD / 8; ++d8) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const fx_i64 key = e < 2 ? key0 : key1;
            const int d = d8 * 8 + 2 * t + (e & 1);
            if (key >= a.N) continue;
            if (dk && d < a.K)
                dk[gk.koff + b * gk.ks[0] + h * gk.ks[1] + key * gk.ks[2] + d * gk.ks[3]] = a.scale * dka[d8][e];
            if (dv && d < a.Kv) dv[gk.voff + b * gk.vs[0] + h * gk.vs[1] + key * gk.vs[2] + d * gk.vs[3]] = dva[d8][e];
        }
    }
}

// D_i = dO_i . O_i for the backward (dense fp32 [B*H, M]): 8 lanes a row, 32 rows a block of 256,
// each lane a strided run of the row's columns (attention.cu's fx_attn_rowdot spends a warp on a
// row and a 64-bit index computation on every element).
extern "C" __global__ void __launch_bounds__(256)
    fx_attn_tc_rowdot(const float* __restrict__ go, const float* __restrict__ o, float* __restrict__ D, FxAttnArgs a) {
    const fx_i64 r = (fx_i64)blockIdx.x * 32 + (threadIdx.x >> 3);
    const int c = threadIdx.x & 7;
    float s = 0.0f;
    if (r < a.B * a.H * a.M) {
        const fx_i64 bh = r / a.M, i = r % a.M, b = bh / a.H, h = bh % a.H;
        const float* pg = go + a.goff + b * a.gs[0] + h * a.gs[1] + i * a.gs[2];
        const float* po = o + a.ooff + b * a.os[0] + h * a.os[1] + i * a.os[2];
        for (int d = c; d < a.Kv; d += 8) s += pg[d * a.gs[3]] * po[d * a.os[3]];
    }
    s += __shfl_xor_sync(FX_FULL, s, 1);
    s += __shfl_xor_sync(FX_FULL, s, 2);
    s += __shfl_xor_sync(FX_FULL, s, 4);
    if (c == 0 && r < a.B * a.H * a.M) D[r] = s;
}

// The kernels by padded head dim. Head dim 128 has half the key tile in the forward (its shared
// memory allows two blocks an SM) and 16-row query tiles in the backward (its dK and dV
// accumulators take 128 registers: one block an SM). Head dim 64's backward: bwd_64_q16 (16-row
// steps, interleaved: 246 registers, no spills) by default, bwd_64 (32-row steps, ~111 KiB of
// shared memory, more than sm_86 and sm_89 allow a block) with FXRAY_ATTENTION=tc32.
extern "C" __global__ void __launch_bounds__(128, 2)
    fx_attn_tc_fwd_128(const float* q, const float* k, const float* v, const float* bias, float* o, float* lse,
                       FxAttnArgs a) {
    fx_attn_tc_fwd<128, 16>(q, k, v, bias, o, lse, a);
}

#define FX_ATTN_TC_BWD(NAME, HD, BQ, MINB, ILV)                                                                     \
    extern "C" __global__ void __launch_bounds__(128, MINB)                                                         \
        NAME(const float* go, const float* q, const float* k, const float* v, const float* bias, const float* lse, \
             const float* D, float* dq, float* dk, float* dv, float* dbias, FxAttnArgs a, FxAttnArgs g) {          \
        if (ILV && a.K == HD && a.Kv == HD)                                                                         \
            fx_attn_tc_bwd<HD, BQ, true, ILV>(go, q, k, v, bias, lse, D, dq, dk, dv, dbias, a, g);                       \
        else                                                                                                        \
            fx_attn_tc_bwd<HD, BQ, false, ILV>(go, q, k, v, bias, lse, D, dq, dk, dv, dbias, a, g);                      \
    }
FX_ATTN_TC_BWD(fx_attn_tc_bwd_64, 64, 32, 2, false)
FX_ATTN_TC_BWD(fx_attn_tc_bwd_64_q16, 64, 16, 2, true)
FX_ATTN_TC_BWD(fx_attn_tc_bwd_128, 128, 16, 1, false)

#endif
