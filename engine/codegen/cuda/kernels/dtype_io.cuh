// Loads and stores of the storage types the hand-written kernels take, computing in fp32: fp32
// itself, fp16 and bf16 (as 16-bit payloads: NVRTC compiles these without the toolkit's
// cuda_fp16.h / cuda_bf16.h). bf16 rounds to nearest even and keeps NaNs quiet, as PyTorch does.
#ifndef FXRAY_DTYPE_IO_CUH
#define FXRAY_DTYPE_IO_CUH
typedef long long fx_i64;
struct fx_half {
    unsigned short x;
};
struct fx_bf16 {
    unsigned short x;
};

__device__ __forceinline__ float fx_ld(const float* p, fx_i64 i) { return p[i]; }
__device__ __forceinline__ float fx_ld(const fx_half* p, fx_i64 i) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(p[i].x));
    return f;
}
__device__ __forceinline__ float fx_ld(const fx_bf16* p, fx_i64 i) { return __uint_as_float(((unsigned)p[i].x) << 16); }
__device__ __forceinline__ void fx_st(float* p, fx_i64 i, float v) { p[i] = v; }
__device__ __forceinline__ void fx_st(fx_half* p, fx_i64 i, float v) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    p[i].x = h;
}
__device__ __forceinline__ void fx_st(fx_bf16* p, fx_i64 i, float v) {
    unsigned b = __float_as_uint(v);
    p[i].x = (b & 0x7fffffffu) > 0x7f800000u ? (unsigned short)((b >> 16) | 0x40u)
                                             : (unsigned short)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}
__device__ __forceinline__ double fx_ld(const double* p, fx_i64 i) { return p[i]; }
__device__ __forceinline__ void fx_st(double* p, fx_i64 i, double v) { p[i] = v; }

#endif
