// Embedding bags, which Inductor runs as fallback kernels: _embedding_bag /
// _embedding_bag_forward_only (sum, mean, max over bags of rows given by int64 or int32 indices
// and offsets, per-sample weights, padding_idx), the dense _embedding_bag_backward and
// _embedding_bag_per_sample_weights_backward, as the CPU backend's extern
// (codegen/cpu/extern_embedding_bag.cpp) and CUDA compute them: bag b covers indices
// [offsets[b], offsets[b + 1]), the last bag up to the end of the indices (with CPU's
// include_last_offset up to its offset: entries past it join no bag, offset2bag 0 there as the
// reference leaves it); bag_size counts a bag's non-padding entries; max_indices is -1 for an
// empty bag. An index outside the table is skipped (PyTorch raises there). The auxiliary outputs
// (int64 or int32, all three alike) are written where their (zeroed) sizes reach, as the CPU
// extern fits them.
#ifndef FXRAY_EMBEDDED_SOURCE
#include "embedding_bag_args.h"
#endif

typedef long long fx_i64;

#define FX_LOOP(q, n)                                                                                                  \
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < (n); q += (fx_i64)gridDim.x * blockDim.x)

// Index tensors (indices, offsets and the auxiliary outputs) are int64 or int32: element i of
// one whose elements are `size` bytes.
__device__ __forceinline__ fx_i64 fx_ix(const void* p, fx_i64 i, int size) {
    return size == 4 ? (fx_i64)((const int*)p)[i] : ((const fx_i64*)p)[i];
}
__device__ __forceinline__ void fx_ix_set(void* p, fx_i64 i, fx_i64 v, int size) {
    if (size == 4)
        ((int*)p)[i] = (int)v;
    else
        ((fx_i64*)p)[i] = v;
}

// One thread per bag: its output row (each column gathered in double and rounded once), bag
// size, max indices and its entries' offset2bag.
template <class T>
__device__ void fx_bag_forward(const T* w, const void* idx, const void* off, const T* psw, T* y, void* o2b,
                               void* bagSize, void* aux, const FxBagArgs& a) {
    FX_LOOP(b, a.bags) {
        const fx_i64 first = fx_ix(off, b, a.offSize), begin = first < 0 ? 0 : first,
                     end = b + 1 < a.bags || a.lastAtOffset ? fx_ix(off, b + 1, a.offSize) : a.n;
        fx_i64 count = 0;
        for (fx_i64 i = begin; i < end && i < a.n; ++i) {
            if (i < a.o2bLen) fx_ix_set(o2b, i, b, a.auxSize);
            const fx_i64 row = fx_ix(idx, i, a.idxSize);
            if (row != a.pad && row >= 0 && row < a.rows) ++count;
        }
        for (fx_i64 d = 0; d < a.D; ++d) {
            double acc = 0.0;
            fx_i64 seen = 0, at = -1;
            for (fx_i64 i = begin; i < end && i < a.n; ++i) {
                const fx_i64 row = fx_ix(idx, i, a.idxSize);
                if (row == a.pad || row < 0 || row >= a.rows) continue;
                const double v = (double)w[row * a.D + d];
                if (a.mode == 2) {
                    // The first entry or a greater one takes the maximum: a NaN is kept only when first.
                    if (seen == 0 || v > acc) acc = v, at = row;
                } else {
                    acc += v * (a.hasPsw ? (double)psw[i] : 1.0);
                }
                ++seen;
            }
            if (a.mode == 1 && count != 0) acc /= (double)count;
            y[b * a.D + d] = (T)acc;
            if (a.mode == 2 && b * a.D + d < a.auxLen) fx_ix_set(aux, b * a.D + d, at, a.auxSize);
        }
        if (b < a.sizeLen) fx_ix_set(bagSize, b, count, a.auxSize);
        if (a.mode != 2 && b < a.auxLen) fx_ix_set(aux, b, count, a.auxSize);
    }
}

// The bag of entry i: offset2bag's, or where that is empty, the last bag whose offset is at most i.
__device__ fx_i64 fx_bag_of(fx_i64 i, const void* o2b, const void* off, const FxBagBackArgs& a) {
    if (a.o2bLen != 0) return fx_ix(o2b, i, a.o2bSize);
    fx_i64 c = 0;
    for (fx_i64 k = 0; k < a.offLen; ++k) {
        const fx_i64 o = fx_ix(off, k, a.offSize);
        if (o <= i && o < a.n) ++c;
    }
    return c - 1;
}

// scale_grad_by_freq's counts: how many of all n indices (padding and entries outside every bag
// included, as ATen counts) name each row, into zeroed int64 counts [rows].
extern "C" __global__ void fx_bag_count(const void* idx, unsigned long long* counts, FxBagBackArgs a) {
    FX_LOOP(i, a.n) {
        const fx_i64 row = fx_ix(idx, i, a.idxSize);
        if (row >= 0 && row < a.rows) atomicAdd(counts + row, 1ull);
    }
}

// A row's frequency scale: 1 / its count with scale_grad_by_freq, else 1.
__device__ __forceinline__ double fx_bag_freq(const unsigned long long* counts, fx_i64 row, const FxBagBackArgs& a) {
    return a.scaleByFreq ? 1.0 / (double)counts[row] : 1.0;
}

// Sum / mean: one thread per (entry, column), added into grad_weight (zeroed) at the entry's row.
template <class T>
__device__ void fx_bag_backward(const T* g, const void* idx, const void* off, const void* o2b, const void* bagSize,
                                const T* psw, const unsigned long long* counts, T* gw, const FxBagBackArgs& a) {
    FX_LOOP(q, a.n * a.D) {
        const fx_i64 i = q / a.D, d = q % a.D, row = fx_ix(idx, i, a.idxSize);
        if (row == a.pad || row < 0 || row >= a.rows) continue;
        const fx_i64 b = fx_bag_of(i, o2b, off, a);
        if (b < 0 || b >= a.bags) continue;
        double s = (a.hasPsw ? (double)psw[i] : 1.0) * fx_bag_freq(counts, row, a);
        if (a.mode == 1) s /= b < a.sizeLen ? (double)fx_ix(bagSize, b, a.sizeSize) : 1.0;
        atomicAdd(gw + row * a.D + d, (T)((double)g[b * a.D + d] * s));
    }
}

// Max: one thread per (bag, column), its gradient added at the row that held the maximum.
template <class T>
__device__ void fx_bag_backward_max(const T* g, const void* maxIdx, const void* bagSize,
                                    const unsigned long long* counts, T* gw, const FxBagBackArgs& a) {
    FX_LOOP(q, a.bags * a.D) {
        const fx_i64 b = q / a.D, d = q % a.D, row = fx_ix(maxIdx, q, a.maxSize);
        if (row < 0 || row == a.pad || row >= a.rows || (b < a.sizeLen && fx_ix(bagSize, b, a.sizeSize) == 0)) continue;
        atomicAdd(gw + row * a.D + d, a.scaleByFreq ? (T)((double)g[q] * fx_bag_freq(counts, row, a)) : g[q]);
    }
}

// _embedding_bag_per_sample_weights_backward: entry i's bag gradient row dotted with its weight row.
template <class T>
__device__ void fx_bag_psw_backward(const T* g, const T* w, const void* idx, const void* off, const void* o2b, T* out,
                                    const FxBagBackArgs& a) {
    FX_LOOP(i, a.n) {
        const fx_i64 row = fx_ix(idx, i, a.idxSize);
        const fx_i64 b = fx_bag_of(i, o2b, off, a);
        double acc = 0.0;
        if (row != a.pad && row >= 0 && row < a.rows && b >= 0 && b < a.bags)
            for (fx_i64 d = 0; d < a.D; ++d) acc += (double)g[b * a.D + d] * (double)w[row * a.D + d];
        out[i] = (T)acc;
    }
}

#define FX_BAG_KERNELS(T, S)                                                                                           \
    extern "C" __global__ void fx_bag_forward_##S(const T* w, const void* idx, const void* off, const T* psw, T* y,    \
                                                  void* o2b, void* bagSize, void* aux, FxBagArgs a) {                  \
        fx_bag_forward<T>(w, idx, off, psw, y, o2b, bagSize, aux, a);                                                  \
    }                                                                                                                  \
    extern "C" __global__ void fx_bag_backward_##S(const T* g, const void* idx, const void* off, const void* o2b,      \
                                                   const void* bagSize, const T* psw,                                  \
                                                   const unsigned long long* counts, T* gw, FxBagBackArgs a) {         \
        fx_bag_backward<T>(g, idx, off, o2b, bagSize, psw, counts, gw, a);                                             \
    }                                                                                                                  \
    extern "C" __global__ void fx_bag_backward_max_##S(const T* g, const void* maxIdx, const void* bagSize,            \
                                                       const unsigned long long* counts, T* gw, FxBagBackArgs a) {     \
        fx_bag_backward_max<T>(g, maxIdx, bagSize, counts, gw, a);                                                     \
    }                                                                                                                  \
    extern "C" __global__ void fx_bag_psw_backward_##S(const T* g, const T* w, const void* idx, const void* off,       \
                                                       const void* o2b, T* out, FxBagBackArgs a) {                     \
        fx_bag_psw_backward<T>(g, w, idx, off, o2b, out, a);                                                           \
    }
FX_BAG_KERNELS(float, f32)
FX_BAG_KERNELS(double, f64)
