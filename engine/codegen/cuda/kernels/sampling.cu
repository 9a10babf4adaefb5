// Kernels for sampling ops Inductor runs as fallback kernels: grid_sampler_3d, the 2-D sampler
// where its lowering rule declines, and the grid sampler backwards (bilinear / trilinear, nearest
// or 2-D bicubic; zeros, border or reflection padding), and the separable passes of
// _upsample_bilinear2d_aa and its backward. Each mirrors the CPU backend's extern
// (codegen/cpu/extern_grid_sample.cpp, extern_upsample_aa.cpp): positions and weights in double.
#ifndef FXRAY_EMBEDDED_SOURCE
#include "sampling_args.h"
#endif

typedef long long fx_i64;

// ATen's GridSampler.h, in double, as the reference executor (exec/ops/grid_sample.cpp) computes
// it: each coordinate unnormalised from [-1, 1], mapped by the padding mode, each step's
// derivative kept for the grid's gradient.

// clip_coordinates to [0, size - 1] (NaN -> size - 1, as the reference's std::min/std::max); the
// derivative counts the borders as outside.
__device__ double fx_clip(double in, fx_i64 size, double* grad) {
    const double max = (double)(size - 1);
    *grad = in <= 0.0 || in >= max ? 0.0 : 1.0;
    const double lo = in < 0.0 ? 0.0 : in;
    return lo < max ? lo : max;
}

// reflect_coordinates: reflected into [twiceLow / 2, twiceHigh / 2] until it falls inside.
__device__ double fx_reflect(double in, fx_i64 twiceLow, fx_i64 twiceHigh, double* grad) {
    if (twiceLow == twiceHigh) {
        *grad = 0.0;
        return 0.0;
    }
    const double min = (double)twiceLow / 2, span = (double)(twiceHigh - twiceLow) / 2;
    in -= min;
    double sign = 1.0;
    if (in < 0.0) {
        sign = -1.0;
        in = -in;
    }
    const double extra = fmod(in, span);
    const bool even = (fx_i64)floor(in / span) % 2 == 0;
    *grad = even ? sign : -sign;
    return even ? extra + min : span - extra + min;
}

// compute_coordinates: the padding mode's mapping of a pixel position, d/d(in) in *grad.
// Positions no int holds (and NaN) become -100, outside the input (safe_downgrade_to_int_range).
__device__ double fx_pad(double coord, fx_i64 size, int padding, int alignCorners, double* grad) {
    double g = 1.0;
    if (padding == 1) {
        coord = fx_clip(coord, size, &g);
    } else if (padding == 2) {
        double gr, gc;
        coord = alignCorners ? fx_reflect(coord, 0, 2 * (size - 1), &gr) : fx_reflect(coord, -1, 2 * size - 1, &gr);
        coord = fx_clip(coord, size, &gc);
        g = gr * gc;
    }
    *grad = g;
    if (!isfinite(coord) || coord > 2147483646.0 || coord < -2147483648.0) return -100.0;
    return coord;
}

// grid_sampler_unnormalize_set_grad: grid coordinate -> pixel position, d/d(coord) in *grad.
__device__ double fx_unnormalize(double coord, fx_i64 size, int alignCorners, double* grad) {
    *grad = alignCorners ? (double)(size - 1) / 2 : (double)size / 2;
    return alignCorners ? (coord + 1) / 2 * (double)(size - 1) : ((coord + 1) * (double)size - 1) / 2;
}

// grid_sampler_compute_source_index_set_grad: the pixel position of grid coordinate `coord`
// along a dim of `size`, d(position)/d(coord) in *grad.
__device__ double fx_source_index(double coord, fx_i64 size, int padding, int alignCorners, double* grad) {
    double gu, gp;
    coord = fx_pad(fx_unnormalize(coord, size, alignCorners, &gu), size, padding, alignCorners, &gp);
    *grad = gu * gp;
    return coord;
}

// Keys' cubic convolution coefficients (A = -0.75) of the four taps around fraction t, and their
// derivatives as ATen's get_cubic_coefficients_grad defines them (with respect to -t).
__device__ void fx_cubic(double t, double* c, double* dc) {
    const double A = -0.75;
    double x = t + 1.0;
    c[0] = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
    c[1] = ((A + 2) * t - (A + 3)) * t * t + 1;
    x = 1.0 - t;
    c[2] = ((A + 2) * x - (A + 3)) * x * x + 1;
    x = 2.0 - t;
    c[3] = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
    x = -1 - t;
    dc[0] = (-3 * A * x - 10 * A) * x - 8 * A;
    x = -t;
    dc[1] = (-3 * (A + 2) * x - 2 * (A + 3)) * x;
    x = 1 - t;
    dc[2] = (3 * (A + 2) * x - 2 * (A + 3)) * x;
    x = 2 - t;
    dc[3] = (3 * A * x - 10 * A) * x + 8 * A;
}

// The input positions one grid point g (nsp coordinates, x first) reads: flat offsets (-1
// outside, reading zero), weights, the weights' derivatives per pixel position (spatial dims in
// D, H, W order of the last nsp dims) and d(position)/d(grid coordinate) per dim. Bilinear /
// trilinear: the 2^nsp corners; nearest: one position (its weight's derivative zero); bicubic
// (2-D only): the 4 x 4 taps from floor - 1, each mapped by the padding mode on its own.
struct FxCorners {
    int count;
    fx_i64 off[16];
    double w[16];
    double dw[16][3];
    double mult[3];
};

template <class T>
__device__ void fx_corners(const FxGridArgs& a, const T* g, FxCorners& c) {
    double pos[3], lo[3];
    const int first = 3 - a.nsp;
    if (a.interp == 2) {
        double cc[2][4], dc[2][4];
        for (int k = 0; k < 2; ++k) {
            pos[k] = fx_unnormalize((double)g[1 - k], a.in[1 + k], a.alignCorners, &c.mult[k]);
            lo[k] = floor(pos[k]);
            fx_cubic(pos[k] - lo[k], cc[k], dc[k]);
        }
        c.count = 16;
        for (int j = 0; j < 4; ++j)
            for (int i = 0; i < 4; ++i) {
                double unused;
                const fx_i64 y = (fx_i64)fx_pad(lo[0] - 1 + j, a.in[1], a.padding, a.alignCorners, &unused);
                const fx_i64 x = (fx_i64)fx_pad(lo[1] - 1 + i, a.in[2], a.padding, a.alignCorners, &unused);
                const int k = j * 4 + i;
                c.off[k] = y >= 0 && y < a.in[1] && x >= 0 && x < a.in[2] ? y * a.in[2] + x : -1;
                c.w[k] = cc[1][i] * cc[0][j];
                c.dw[k][0] = -dc[0][j] * cc[1][i];
                c.dw[k][1] = -dc[1][i] * cc[0][j];
            }
        return;
    }
    for (int k = 0; k < a.nsp; ++k) {
        pos[k] = fx_source_index((double)g[a.nsp - 1 - k], a.in[first + k], a.padding, a.alignCorners, &c.mult[k]);
        lo[k] = floor(pos[k]);
    }
    if (a.interp == 1) {
        fx_i64 off = 0;
        bool inside = true;
        for (int k = 0; k < a.nsp; ++k) {
            const fx_i64 idx = (fx_i64)nearbyint(pos[k]);
            inside = inside && idx >= 0 && idx < a.in[first + k];
            off = off * a.in[first + k] + idx;
            c.dw[0][k] = 0.0;
        }
        c.count = 1;
        c.off[0] = inside ? off : -1;
        c.w[0] = 1.0;
        return;
    }
    c.count = 1 << a.nsp;
    for (int corner = 0; corner < c.count; ++corner) {
        fx_i64 off = 0;
        bool inside = true;
        double w[3];
        for (int k = 0; k < a.nsp; ++k) {
            const bool upper = (corner >> (a.nsp - 1 - k)) & 1;
            const fx_i64 idx = (fx_i64)lo[k] + (upper ? 1 : 0);
            w[k] = upper ? pos[k] - lo[k] : lo[k] + 1.0 - pos[k];
            inside = inside && idx >= 0 && idx < a.in[first + k];
            off = off * a.in[first + k] + idx;
        }
        c.off[corner] = inside ? off : -1;
        c.w[corner] = 1.0;
        for (int k = 0; k < a.nsp; ++k) c.w[corner] *= w[k];
        for (int k = 0; k < a.nsp; ++k) {
            const bool upper = (corner >> (a.nsp - 1 - k)) & 1;
            double d = upper ? 1.0 : -1.0;
            for (int j = 0; j < a.nsp; ++j)
                if (j != k) d *= w[j];
            c.dw[corner][k] = d;
        }
    }
}

// One thread per (n, output position), looping over the channels.
template <class T>
__device__ void fx_grid_sample(const T* x, const T* grid, T* y, const FxGridArgs& a) {
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < a.N * a.outSize;
         q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 n = q / a.outSize, o = q % a.outSize;
        FxCorners c;
        fx_corners<T>(a, grid + q * a.nsp, c);
        for (fx_i64 ch = 0; ch < a.C; ++ch) {
            const T* plane = x + (n * a.C + ch) * a.inSize;
            double v = 0.0;
            // Bicubic taps outside still multiply their (maybe NaN) weights by 0, as ATen's.
            for (int k = 0; k < c.count; ++k)
                if (c.off[k] >= 0 || a.interp == 2) v += c.w[k] * (c.off[k] >= 0 ? (double)plane[c.off[k]] : 0.0);
            y[(n * a.C + ch) * a.outSize + o] = (T)v;
        }
    }
}

// grad_input (zeroed by the host) receives each output gradient spread over the positions read
// by their weights (atomics: grid points share positions); grad_grid, one thread's own, the
// values read times the weights' derivatives summed over channels, times d(position)/d(grid)
// (zero for nearest sampling).
template <class T>
__device__ void fx_grid_sample_backward(const T* gy, const T* x, const T* grid, T* gx, T* gg, const FxGridArgs& a) {
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < a.N * a.outSize;
         q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 n = q / a.outSize, o = q % a.outSize;
        FxCorners c;
        fx_corners<T>(a, grid + q * a.nsp, c);
        double dpos[3] = {0.0, 0.0, 0.0};
        for (fx_i64 ch = 0; ch < a.C; ++ch) {
            const fx_i64 plane = (n * a.C + ch) * a.inSize;
            const double g = (double)gy[(n * a.C + ch) * a.outSize + o];
            for (int k = 0; k < c.count; ++k) {
                if (c.off[k] < 0 && a.interp != 2) continue;
                const double xv = c.off[k] >= 0 ? (double)x[plane + c.off[k]] : 0.0;
                if (a.wantInput && c.off[k] >= 0) atomicAdd(gx + plane + c.off[k], (T)(c.w[k] * g));
                if (a.wantGrid && a.interp != 1)
                    for (int d = 0; d < a.nsp; ++d) dpos[d] += xv * c.dw[k][d] * g;
            }
        }
        if (a.wantGrid)
            for (int d = 0; d < a.nsp; ++d)
                gg[q * a.nsp + a.nsp - 1 - d] = a.interp == 1 ? (T)0 : (T)(c.mult[d] * dpos[d]);
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
