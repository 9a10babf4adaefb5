// Sorting on the device: a stable merge sort of many rows at once, for sort, sort.stable, topk
// and the uniques. Keys are kept in their storage type and compared as PyTorch compares them
// (NaN above every number: last ascending, first descending); each key travels with its position
// in the row and equal keys order by it, which makes the sort stable and every comparison a
// strict total order, so a pass can place every element independently: element p of a run goes
// to its rank in its own run plus the number of elements of the partner run ordered before it
// (a binary search). log2(n) passes of one thread per element; no length limit.
// The uniques then flag the first of each group of equal sorted keys, scan the flags in one
// block, and scatter values, inverse indices and counts. repeat_interleave.Tensor uses the same
// one-block scan.
#ifndef FXRAY_EMBEDDED_SOURCE
#include "dtype_io.cuh"
#include "sort_args.h"
#endif

// The value a key is compared as: fp16/bf16 as float, integers as int64.
__device__ __forceinline__ float fx_sort_key(float v) { return v; }
__device__ __forceinline__ double fx_sort_key(double v) { return v; }
__device__ __forceinline__ float fx_sort_key(fx_half v) { return fx_ld(&v, 0); }
__device__ __forceinline__ float fx_sort_key(fx_bf16 v) { return fx_ld(&v, 0); }
__device__ __forceinline__ fx_i64 fx_sort_key(fx_i64 v) { return v; }
__device__ __forceinline__ fx_i64 fx_sort_key(int v) { return v; }
__device__ __forceinline__ fx_i64 fx_sort_key(short v) { return v; }
__device__ __forceinline__ fx_i64 fx_sort_key(signed char v) { return v; }
__device__ __forceinline__ fx_i64 fx_sort_key(unsigned char v) { return v; }

template <class K>
__device__ __forceinline__ bool fx_key_before(K p, K q, bool desc) {
    const bool pn = p != p, qn = q != q;
    if (desc) return (pn && !qn) || p > q;
    return (!pn && qn) || p < q;
}

template <class S>
__device__ __forceinline__ bool fx_pair_before(S p, fx_i64 ip, S q, fx_i64 iq, bool desc) {
    const auto kp = fx_sort_key(p), kq = fx_sort_key(q);
    if (fx_key_before(kp, kq, desc)) return true;
    if (fx_key_before(kq, kp, desc)) return false;
    return ip < iq;
}

// keys[r * n + j] = row r's j-th key (x dense [outer, n, inner]); idx = j.
template <class S>
__device__ void fx_sort_gather(const S* x, S* keys, fx_i64* idx, FxSortArgs a) {
    const fx_i64 total = a.rows * a.n;
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < total; q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 r = q / a.n, j = q % a.n;
        keys[q] = x[((r / a.inner) * a.n + j) * a.inner + r % a.inner];
        idx[q] = j;
    }
}

// One pass: the sorted runs of width w in every row merged pairwise, from (ki, ii) to (ko, io).
template <class S>
__device__ void fx_sort_merge(const S* ki, const fx_i64* ii, S* ko, fx_i64* io, FxSortArgs a, fx_i64 w) {
    const bool desc = a.descending != 0;
    const fx_i64 total = a.rows * a.n;
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < total; q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 r = q / a.n, p = q % a.n, row = r * a.n;
        const fx_i64 run = p / w, own = run * w, pair = (run / 2) * 2 * w;
        const fx_i64 other = (run % 2 == 0) ? own + w : own - w;
        fx_i64 lo = 0, hi = 0;
        if (other < a.n) hi = (other + w < a.n ? other + w : a.n) - other;
        const S v = ki[q];
        const fx_i64 vi = ii[q];
        // How many of the partner run order before v.
        while (lo < hi) {
            const fx_i64 mid = (lo + hi) >> 1;
            if (fx_pair_before(ki[row + other + mid], ii[row + other + mid], v, vi, desc))
                lo = mid + 1;
            else
                hi = mid;
        }
        const fx_i64 dst = row + pair + (p - own) + lo;
        ko[dst] = v;
        io[dst] = vi;
    }
}

// The first k of every sorted row to dense [outer, k, inner] values and indices.
template <class S>
__device__ void fx_sort_scatter(const S* keys, const fx_i64* idx, S* values, fx_i64* indices, FxSortArgs a) {
    const fx_i64 total = a.rows * a.k;
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < total; q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 r = q / a.k, j = q % a.k;
        const fx_i64 dst = ((r / a.inner) * a.k + j) * a.inner + r % a.inner;
        if (values) values[dst] = keys[r * a.n + j];
        if (indices) indices[dst] = idx[r * a.n + j];
    }
}

// The inclusive prefix sum of v over the block's threads (warp shuffles, then the warps' sums);
// every thread of the block must call it.
__device__ fx_i64 fx_block_scan(fx_i64 v) {
    __shared__ fx_i64 warpSums[32];
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5, warps = (blockDim.x + 31) >> 5;
    for (int d = 1; d < 32; d <<= 1) {
        const fx_i64 u = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += u;
    }
    if (lane == 31) warpSums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        fx_i64 s = lane < warps ? warpSums[lane] : 0;
        for (int d = 1; d < 32; d <<= 1) {
            const fx_i64 u = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= d) s += u;
        }
        warpSums[lane] = s;
    }
    __syncthreads();
    v += warp > 0 ? warpSums[warp - 1] : 0;
    __syncthreads();  // warpSums is reused by the next call
    return v;
}

// One block walks n values in chunks of blockDim, carrying the running total: out[p] = the sum of
// value(0..p). Groups: value(p) = 1 where a key differs from the one before it (NaN differs from
// everything, as PyTorch's equality), so out[p] counts the groups started at or before p.
template <class F>
__device__ void fx_chunked_scan(F value, fx_i64* out, fx_i64 n) {
    __shared__ fx_i64 carry;
    const int t = threadIdx.x;
    if (t == 0) carry = 0;
    __syncthreads();
    for (fx_i64 base = 0; base < n; base += blockDim.x) {
        const fx_i64 p = base + t;
        const fx_i64 v = fx_block_scan(p < n ? value(p) : 0) + carry;
        if (p < n) out[p] = v;
        __syncthreads();
        if (t == blockDim.x - 1) carry = v;
        __syncthreads();
    }
}

template <class S>
__device__ void fx_unique_scan(const S* keys, fx_i64* scan, fx_i64 n) {
    fx_chunked_scan(
        [keys](fx_i64 p) -> fx_i64 {
            return p == 0 || !(fx_sort_key(keys[p - 1]) == fx_sort_key(keys[p])) ? 1 : 0;
        },
        scan, n);
}

// repeat_interleave.Tensor: the running sums of the repeats (one block), then out[j] = the first
// i whose running sum passes j (a binary search per output element).
extern "C" __global__ void fx_repeat_scan(const fx_i64* repeats, fx_i64* csum, fx_i64 n) {
    fx_chunked_scan([repeats](fx_i64 p) -> fx_i64 { return repeats[p]; }, csum, n);
}

extern "C" __global__ void fx_repeat_index(const fx_i64* csum, fx_i64 n, fx_i64* out, fx_i64 total) {
    for (fx_i64 j = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; j < total; j += (fx_i64)gridDim.x * blockDim.x) {
        fx_i64 lo = 0, hi = n;
        while (lo < hi) {
            const fx_i64 mid = (lo + hi) >> 1;
            if (csum[mid] > j)
                hi = mid;
            else
                lo = mid + 1;
        }
        out[j] = lo;
    }
}

// From the sorted keys (idx: their input positions) and the scan: the first key of every group
// to out[group] (groups past nout are not written: the host checks the count), every input
// position's group to inverse, and each group's end to ends (for the counts).
template <class S>
__device__ void fx_unique_write(const S* keys, const fx_i64* idx, const fx_i64* scan, S* out, fx_i64* inverse,
                                fx_i64* ends, fx_i64 n, fx_i64 nout) {
    for (fx_i64 p = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; p < n; p += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 u = scan[p] - 1;
        if (u >= nout) continue;
        if (p == 0 || scan[p - 1] != scan[p]) out[u] = keys[p];
        if (inverse) inverse[idx[p]] = u;
        if (ends && (p == n - 1 || scan[p + 1] != scan[p])) ends[u] = p + 1;
    }
}

extern "C" __global__ void fx_unique_counts(const fx_i64* ends, fx_i64* counts, fx_i64 m) {
    for (fx_i64 u = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; u < m; u += (fx_i64)gridDim.x * blockDim.x)
        counts[u] = ends[u] - (u > 0 ? ends[u - 1] : 0);
}

#define FX_SORT(S, N)                                                                                                  \
    extern "C" __global__ void fx_sort_gather_##N(const S* x, S* keys, fx_i64* idx, FxSortArgs a) {                    \
        fx_sort_gather<S>(x, keys, idx, a);                                                                            \
    }                                                                                                                  \
    extern "C" __global__ void fx_sort_merge_##N(const S* ki, const fx_i64* ii, S* ko, fx_i64* io, FxSortArgs a,       \
                                                 fx_i64 w) {                                                           \
        fx_sort_merge<S>(ki, ii, ko, io, a, w);                                                                        \
    }                                                                                                                  \
    extern "C" __global__ void fx_sort_scatter_##N(const S* keys, const fx_i64* idx, S* values, fx_i64* indices,       \
                                                   FxSortArgs a) {                                                     \
        fx_sort_scatter<S>(keys, idx, values, indices, a);                                                             \
    }                                                                                                                  \
    extern "C" __global__ void fx_unique_scan_##N(const S* keys, fx_i64* scan, fx_i64 n) {                             \
        fx_unique_scan<S>(keys, scan, n);                                                                              \
    }                                                                                                                  \
    extern "C" __global__ void fx_unique_write_##N(const S* keys, const fx_i64* idx, const fx_i64* scan, S* out,       \
                                                   fx_i64* inverse, fx_i64* ends, fx_i64 n, fx_i64 nout) {             \
        fx_unique_write<S>(keys, idx, scan, out, inverse, ends, n, nout);                                              \
    }
FX_SORT(float, f32)
FX_SORT(double, f64)
FX_SORT(fx_half, f16)
FX_SORT(fx_bf16, bf16)
FX_SORT(fx_i64, i64)
FX_SORT(int, i32)
FX_SORT(short, i16)
FX_SORT(signed char, i8)
FX_SORT(unsigned char, u8)
