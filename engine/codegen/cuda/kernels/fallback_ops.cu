// Kernels for ops Inductor does not lower but runs as fallback kernels (make_fallback): max
// pooling with indices over irregular windows (3-D, adaptive, fractional) and sort. Each mirrors
// the CPU backend's extern (codegen/cpu/extern_fallback_ops.cpp) rule for rule, so both backends
// give PyTorch's indices on ties and NaNs.
#ifndef FXRAY_EMBEDDED_SOURCE
#include "fallback_args.h"
#endif

typedef long long fx_i64;

__device__ __forceinline__ bool fx_isnan(float v) { return v != v; }
__device__ __forceinline__ bool fx_isnan(double v) { return v != v; }
__device__ __forceinline__ bool fx_isnan(fx_i64) { return false; }
__device__ __forceinline__ bool fx_isnan(int) { return false; }

// Window i along one spatial dim of fractional max pooling, as ATen's CUDA kernel computes it
// (in the input's type: float for fp32, double for fp64); the last window flush with the end.
template <class T> __device__ fx_i64 fx_fractional_start(T u, fx_i64 i, fx_i64 in, fx_i64 out, fx_i64 k) {
    if (i == out - 1) return in - k;
    const T alpha = (T)(in - k) / (T)(out - 1);
    return (fx_i64)(((T)i + u) * alpha) - (fx_i64)(u * alpha);
}

// One thread per output: the first maximum in window order wins, NaN propagates (v > best ||
// isnan(v), so the last NaN's index), an empty window gives -inf and index -1.
template <class T> __device__ void fx_window_max(const T* x, const T* samples, T* y, fx_i64* ind, const FxWindowArgs& a) {
    const fx_i64 outSize = a.out[0] * a.out[1] * a.out[2], inSize = a.in[0] * a.in[1] * a.in[2];
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < a.planes * outSize; q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 pl = q / outSize, r = q % outSize;
        const fx_i64 o[3] = {r / (a.out[1] * a.out[2]), (r / a.out[2]) % a.out[1], r % a.out[2]};
        fx_i64 start[3], count[3], step[3];
        for (int d = 0; d < 3; ++d) {
            step[d] = 1;
            if (a.mode == FX_WINDOW_STRIDED) {
                start[d] = o[d] * a.st[d] - a.pad[d];
                count[d] = a.k[d];
                step[d] = a.dil[d];
            } else if (a.mode == FX_WINDOW_ADAPTIVE) {
                start[d] = o[d] * a.in[d] / a.out[d];
                count[d] = ((o[d] + 1) * a.in[d] + a.out[d] - 1) / a.out[d] - start[d];
            } else if (d < 3 - a.nsp) {  // a padding dim of the 2-D op
                start[d] = 0;
                count[d] = 1;
            } else {
                // Samples per plane: the 3-D op's in (t, h, w) order, the 2-D op's width first.
                const int s = a.nsp == 3 ? d : (d == 2 ? 0 : 1);
                start[d] = fx_fractional_start<T>(samples[pl * a.nsp + s], o[d], a.in[d], a.out[d], a.k[d]);
                count[d] = a.k[d];
            }
        }
        const T* xp = x + pl * inSize;
        T best = -(T)__int_as_float(0x7f800000);
        fx_i64 bi = -1;
        for (fx_i64 i = 0; i < count[0]; ++i) {
            const fx_i64 t = start[0] + i * step[0];
            if (t < 0 || t >= a.in[0]) continue;
            for (fx_i64 j = 0; j < count[1]; ++j) {
                const fx_i64 h = start[1] + j * step[1];
                if (h < 0 || h >= a.in[1]) continue;
                for (fx_i64 l = 0; l < count[2]; ++l) {
                    const fx_i64 w = start[2] + l * step[2];
                    if (w < 0 || w >= a.in[2]) continue;
                    const fx_i64 e = (t * a.in[1] + h) * a.in[2] + w;
                    const T v = xp[e];
                    if (bi < 0 || v > best || fx_isnan(v)) best = v, bi = e;
                }
            }
        }
        y[q] = best;
        ind[q] = bi;
    }
}

// Whether p orders before q: NaN above every number (last ascending, first descending).
template <class T> __device__ __forceinline__ bool fx_before(T p, T q, bool descending) {
    if (descending) return (fx_isnan(p) && !fx_isnan(q)) || p > q;
    return (!fx_isnan(p) && fx_isnan(q)) || p < q;
}

// A stable sort by ranks: element i of a row goes to the number of elements ordering before it,
// plus the equal ones at smaller positions (O(n^2) per row: the host takes long rows). One block
// per row, the row's keys staged through global memory reads.
template <class T> __device__ void fx_sort_rows(const T* x, T* values, fx_i64* indices, const FxSortArgs& a) {
    const bool desc = a.descending != 0;
    for (fx_i64 row = blockIdx.x; row < a.outer * a.inner; row += gridDim.x) {
        const fx_i64 o = row / a.inner, c = row % a.inner, base = o * a.n * a.inner + c;
        for (fx_i64 i = threadIdx.x; i < a.n; i += blockDim.x) {
            const T v = x[base + i * a.inner];
            fx_i64 rank = 0;
            for (fx_i64 j = 0; j < a.n; ++j) {
                const T u = x[base + j * a.inner];
                if (fx_before(u, v, desc) || (j < i && !fx_before(v, u, desc))) ++rank;
            }
            values[base + rank * a.inner] = v;
            indices[base + rank * a.inner] = i;
        }
    }
}

#define FX_WINDOW_MAX(T, S)                                                                                       \
    extern "C" __global__ void fx_window_max_##S(const T* x, const T* samples, T* y, fx_i64* ind, FxWindowArgs a) { \
        fx_window_max<T>(x, samples, y, ind, a);                                                                  \
    }
FX_WINDOW_MAX(float, f32)
FX_WINDOW_MAX(double, f64)

#define FX_SORT_ROWS(T, S)                                                                                        \
    extern "C" __global__ void fx_sort_rows_##S(const T* x, T* values, fx_i64* indices, FxSortArgs a) {            \
        fx_sort_rows<T>(x, values, indices, a);                                                                   \
    }
FX_SORT_ROWS(float, f32)
FX_SORT_ROWS(double, f64)
FX_SORT_ROWS(fx_i64, i64)
FX_SORT_ROWS(int, i32)
