#ifndef FXRAY_ATTENTION_ARGS_H
#define FXRAY_ATTENTION_ARGS_H
// The argument block of the fused attention kernels (attention.cu), shared by the host code
// (codegen/cuda/device_attention.cpp) and the device code, so the two cannot drift apart. Plain C
// types only: NVRTC compiles it without the host's headers.
//
// q [B, H, M, K], k [B, H, N, K], v [B, H, N, Kv], out / grad_out [B, H, M, Kv]; every stride is in
// elements, in (b, h, row, col) order, and may be 0 (a broadcast bias).
struct FxAttnArgs {
    long long B, H, M, N, K, Kv;
    long long qs[4], ks[4], vs[4], os[4], bs[4], gs[4];  // q, k, v, out, bias, grad_out
    long long qoff, koff, voff, ooff, boff, goff;
    long long lseLen;       // logsumexp row length (lse is dense fp32 [B*H, lseLen]); 0: none
    long long dbs[4];       // backward: strides of the fp32 grad_bias accumulator (0 where broadcast)
    long long tiles;        // blocks per (b, h): row tiles (forward) or key tiles (backward)
    long long causalShift;  // causal: row m sees keys n <= m + causalShift (0: top-left, N - M: bottom-right)
    float scale;
    int hasBias, boolMask, causal;
};

// The fp32 -> typed strided copy that ends the backward (dQ and grad_bias are accumulated in
// dense fp32 with atomics): dst[i] = src[i] over a 4-D shape.
struct FxAttnCastArgs {
    long long n, size[4], ds[4], doff;
};

#endif
