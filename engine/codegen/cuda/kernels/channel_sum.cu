// Per-channel sums of a dense [N, C, S] tensor (a convolution's bias gradient), for the storage
// types the cuDNN build lacks a bias-gradient kernel for (cuDNN 9 refuses bf16 there). One block
// per channel, fp32 accumulation (fp64 for fp64), the block's partial sums reduced in shared memory.
#ifndef FXRAY_EMBEDDED_SOURCE
#include "dtype_io.cuh"
#endif

template <class T, class A>
__device__ void fx_channel_sum(const T* __restrict__ x, T* __restrict__ out, fx_i64 N, fx_i64 C, fx_i64 S, fx_i64 ooff,
                               fx_i64 os) {
    __shared__ A part[256];
    for (fx_i64 c = blockIdx.x; c < C; c += gridDim.x) {
        A s = 0;
        for (fx_i64 q = threadIdx.x; q < N * S; q += blockDim.x) {
            const fx_i64 n = q / S, r = q % S;
            s += (A)fx_ld(x, (n * C + c) * S + r);
        }
        part[threadIdx.x] = s;
        __syncthreads();
        for (int w = blockDim.x / 2; w > 0; w >>= 1) {
            if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
            __syncthreads();
        }
        if (threadIdx.x == 0) fx_st(out, ooff + c * os, part[0]);
        __syncthreads();
    }
}

#define FX_CHANNEL_SUM(T, A, S)                                                                                        \
    extern "C" __global__ void __launch_bounds__(256)                                                                  \
        fx_channel_sum_##S(const T* x, T* out, fx_i64 N, fx_i64 C, fx_i64 S_, fx_i64 ooff, fx_i64 os) {                \
        fx_channel_sum<T, A>(x, out, N, C, S_, ooff, os);                                                              \
    }
FX_CHANNEL_SUM(float, float, f32)
FX_CHANNEL_SUM(fx_half, float, f16)
FX_CHANNEL_SUM(fx_bf16, float, bf16)
FX_CHANNEL_SUM(double, double, f64)
