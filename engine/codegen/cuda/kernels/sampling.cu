// Kernels for sampling ops Inductor runs as fallback kernels: grid_sampler_3d and the grid
// sampler backwards (bilinear / trilinear, zero padding), and the separable passes of
// _upsample_bilinear2d_aa and its backward. Each mirrors the CPU backend's extern
// (codegen/cpu/extern_grid_sample.cpp, extern_upsample_aa.cpp): positions and weights in double.
#ifndef FXRAY_EMBEDDED_SOURCE
#include "sampling_args.h"
#endif

typedef long long fx_i64;

// The corners of one grid point g (nsp coordinates, x first): flat input offsets (-1 outside),
// weights, and the weights' derivatives per spatial dim (in D, H, W order of the last nsp dims).
// ATen's GridSampler.cuh: unnormalised from [-1, 1], corners outside read zero.
struct FxCorners {
    int count;
    fx_i64 off[8];
    double w[8];
    double dw[8][3];
};

template <class T>
__device__ bool fx_corners(const FxGridArgs& a, const T* g, FxCorners& c) {
    double pos[3], lo[3], scale[3];
    const int first = 3 - a.nsp;
    for (int k = 0; k < a.nsp; ++k) {
        const double coord = (double)g[a.nsp - 1 - k];
        const double size = (double)a.in[first + k];
        if (!isfinite(coord)) return false;
        scale[k] = a.alignCorners ? (size - 1) / 2 : size / 2;
        pos[k] = a.alignCorners ? (coord + 1) / 2 * (size - 1) : ((coord + 1) * size - 1) / 2;
        lo[k] = floor(pos[k]);
    }
    c.count = 1 << a.nsp;
    for (int corner = 0; corner < c.count; ++corner) {
        fx_i64 off = 0;
        bool inside = true;
        double w[3];
        for (int k = 0; k < a.nsp; ++k) {
            const bool upper = (corner >> (a.nsp - 1 - k)) & 1;
            const double idx = lo[k] + (upper ? 1.0 : 0.0);
            w[k] = upper ? pos[k] - lo[k] : lo[k] + 1.0 - pos[k];
            inside = inside && idx >= 0 && idx < (double)a.in[first + k];
            off = off * a.in[first + k] + (fx_i64)idx;
        }
        c.off[corner] = inside ? off : -1;
        c.w[corner] = 1.0;
        for (int k = 0; k < a.nsp; ++k) c.w[corner] *= w[k];
        for (int k = 0; k < a.nsp; ++k) {
            const bool upper = (corner >> (a.nsp - 1 - k)) & 1;
            double d = (upper ? 1.0 : -1.0) * scale[k];
            for (int j = 0; j < a.nsp; ++j)
                if (j != k) d *= w[j];
            c.dw[corner][k] = d;
        }
    }
    return true;
}

// One thread per (n, output position), looping over the channels. A non-finite grid position
// gives NaN (the host declines such grids before launching when it can see them; this is the
// defined answer otherwise).
template <class T>
__device__ void fx_grid_sample(const T* x, const T* grid, T* y, const FxGridArgs& a) {
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < a.N * a.outSize;
         q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 n = q / a.outSize, o = q % a.outSize;
        FxCorners c;
        const bool ok = fx_corners<T>(a, grid + q * a.nsp, c);
        for (fx_i64 ch = 0; ch < a.C; ++ch) {
            const T* plane = x + (n * a.C + ch) * a.inSize;
            double v = 0.0;
            if (!ok)
                v = __longlong_as_double(0x7ff8000000000000LL);
            else
                for (int k = 0; k < c.count; ++k)
                    if (c.off[k] >= 0) v += c.w[k] * (double)plane[c.off[k]];
            y[(n * a.C + ch) * a.outSize + o] = (T)v;
        }
    }
}

// grad_input (zeroed by the host) receives each output gradient spread over the corners by
// their weights (atomics: positions share corners); grad_grid, one thread's own, the corners'
// values times the weights' derivatives summed over channels.
template <class T>
__device__ void fx_grid_sample_backward(const T* gy, const T* x, const T* grid, T* gx, T* gg, const FxGridArgs& a) {
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < a.N * a.outSize;
         q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 n = q / a.outSize, o = q % a.outSize;
        FxCorners c;
        const bool ok = fx_corners<T>(a, grid + q * a.nsp, c);
        double dpos[3] = {0.0, 0.0, 0.0};
        for (fx_i64 ch = 0; ok && ch < a.C; ++ch) {
            const fx_i64 plane = (n * a.C + ch) * a.inSize;
            const double g = (double)gy[(n * a.C + ch) * a.outSize + o];
            for (int k = 0; k < c.count; ++k) {
                if (c.off[k] < 0) continue;
                if (a.wantInput) atomicAdd(gx + plane + c.off[k], (T)(c.w[k] * g));
                if (a.wantGrid)
                    for (int d = 0; d < a.nsp; ++d) dpos[d] += (double)x[plane + c.off[k]] * c.dw[k][d] * g;
            }
        }
        if (a.wantGrid)
            for (int d = 0; d < a.nsp; ++d)
                gg[q * a.nsp + a.nsp - 1 - d] = ok ? (T)dpos[d] : (T)__longlong_as_double(0x7ff8000000000000LL);
    }
}

// One thread per output element of the banded matrix product (FxBandArgs).
template <class T>
__device__ void fx_band_apply(const T* x, const double* w, const fx_i64* lo, const fx_i64* hi, T* y,
                              const FxBandArgs& a) {
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < a.outer * a.out * a.inner;
         q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 i = q % a.inner, r = (q / a.inner) % a.out, o = q / (a.inner * a.out);
        double acc = 0.0;
        for (fx_i64 k = lo[r]; k < hi[r]; ++k) acc += w[r * a.cols + k] * (double)x[(o * a.rows + k) * a.inner + i];
        y[q] = (T)acc;
    }
}

#define FX_SAMPLING_KERNELS(T, S)                                                                                      \
    extern "C" __global__ void fx_grid_sample_##S(const T* x, const T* grid, T* y, FxGridArgs a) {                     \
        fx_grid_sample<T>(x, grid, y, a);                                                                              \
    }                                                                                                                  \
    extern "C" __global__ void fx_grid_sample_backward_##S(const T* gy, const T* x, const T* grid, T* gx, T* gg,       \
                                                           FxGridArgs a) {                                             \
        fx_grid_sample_backward<T>(gy, x, grid, gx, gg, a);                                                            \
    }                                                                                                                  \
    extern "C" __global__ void fx_band_apply_##S(const T* x, const double* w, const fx_i64* lo, const fx_i64* hi,      \
                                                 T* y, FxBandArgs a) {                                                 \
        fx_band_apply<T>(x, w, lo, hi, y, a);                                                                          \
    }
FX_SAMPLING_KERNELS(float, f32)
FX_SAMPLING_KERNELS(double, f64)
