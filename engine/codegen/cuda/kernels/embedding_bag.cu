// Embedding bags on the device: _embedding_bag / _embedding_bag_forward_only (sum, mean and max
// over bags of table rows given by int64 indices and offsets, per-sample weights, padding_idx),
// the dense _embedding_bag_backward and _embedding_bag_per_sample_weights_backward. The rules and
// the auxiliary outputs (offset2bag, bag_size counting the non-padding entries, max_indices -1 for
// an empty bag) are those of PyTorch's CUDA kernels, as the reference executor gives them
// (exec/ops/embedding_bag.cpp), in the layouts its meta function gives for the inputs' device:
// CPU's (recorded inputs load onto the CPU) may leave offset2bag empty (rebuilt from the offsets
// where a backward needs it), size bag_size by the offsets and fill max_indices with the bag sizes
// outside max mode. Sums run in double; the backward's scatter is atomic. Indices outside the
// table are skipped (PyTorch raises there, and so does the reference).
typedef long long fx_i64;

#define FX_EB_SUM 0
#define FX_EB_MEAN 1
#define FX_EB_MAX 2

// Bag b's entries [begin, end): CUDA ends the last bag at the end of the indices, CPU at the
// last offset with include_last_offset (lastAtOffset).
__device__ __forceinline__ void fx_bag_range(const fx_i64* off, fx_i64 b, fx_i64 bags, fx_i64 n, int lastAtOffset,
                                             fx_i64& begin, fx_i64& end) {
    begin = off[b];
    end = b + 1 < bags || lastAtOffset ? off[b + 1] : n;
    if (begin < 0) begin = 0;
    if (end > n) end = n;
}

// The bag of entry i: the last offset at most i (ATen's rebuild of an empty offset2bag).
__device__ fx_i64 fx_bag_of(const fx_i64* off, fx_i64 numOffsets, fx_i64 i) {
    fx_i64 b = -1;
    for (fx_i64 k = 0; k < numOffsets; ++k) b += off[k] <= i;
    return b;
}

// One thread per (bag, feature) writes y and, in max mode, max_indices; the feature-0 thread
// writes bag_size (and sizeCopy: CPU's max_indices outside max mode) and, where it is not
// empty, offset2bag for its bag's entries.
template <class T>
__device__ void fx_embedding_bag(const T* w, const fx_i64* idx, const fx_i64* off, const T* psw, T* y, fx_i64* o2b,
                                 fx_i64* bagSize, fx_i64* maxIdx, fx_i64* sizeCopy, fx_i64 bags, fx_i64 D, fx_i64 n,
                                 fx_i64 rows, fx_i64 pad, int mode, int lastAtOffset) {
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < bags * D; q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 b = q / D, d = q % D;
        fx_i64 begin, end;
        fx_bag_range(off, b, bags, n, lastAtOffset, begin, end);
        double acc = 0.0;
        fx_i64 count = 0, best = -1;
        for (fx_i64 i = begin; i < end; ++i) {
            const fx_i64 row = idx[i];
            if (d == 0 && o2b) o2b[i] = b;
            if (row == pad || row < 0 || row >= rows) continue;
            const double v = (double)w[row * D + d];
            if (mode == FX_EB_MAX) {
                // The first entry, or a greater one, takes the maximum: a NaN stays only when first.
                if (count == 0 || v > acc) acc = v, best = row;
            } else {
                acc += psw ? v * (double)psw[i] : v;
            }
            ++count;
        }
        if (mode == FX_EB_MEAN && count != 0) acc /= (double)count;
        y[q] = (T)acc;
        if (mode == FX_EB_MAX) maxIdx[q] = best;
        if (d == 0) bagSize[b] = count;
        if (d == 0 && sizeCopy) sizeCopy[b] = count;
    }
}

// How often each table row occurs among the indices (scale_grad_by_freq).
__device__ void fx_eb_count(const fx_i64* idx, unsigned long long* counts, fx_i64 n, fx_i64 rows) {
    for (fx_i64 i = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; i < n; i += (fx_i64)gridDim.x * blockDim.x)
        if (idx[i] >= 0 && idx[i] < rows) atomicAdd(counts + idx[i], 1ull);
}

// Sum / mean: one thread per (entry, feature) adds the bag's gradient into the entry's row;
// max: one thread per (bag, feature) adds it into the row that gave the maximum.
// o2b null: each entry's bag from the offsets.
template <class T>
__device__ void fx_embedding_bag_bwd(const T* g, const fx_i64* idx, const fx_i64* o2b, const fx_i64* off,
                                     fx_i64 numOffsets, const fx_i64* bagSize, const fx_i64* maxIdx, const T* psw,
                                     const unsigned long long* counts, T* gw, fx_i64 bags, fx_i64 D, fx_i64 n,
                                     fx_i64 rows, fx_i64 pad, int mode) {
    const fx_i64 work = (mode == FX_EB_MAX ? bags : n) * D;
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < work; q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 e = q / D, d = q % D;
        fx_i64 row, b;
        double s = 1.0;
        if (mode == FX_EB_MAX) {
            b = e;
            row = maxIdx[q];
            if (bagSize[b] == 0) continue;
        } else {
            b = o2b ? o2b[e] : fx_bag_of(off, numOffsets, e);
            row = idx[e];
            if (b < 0 || b >= bags) continue;
            if (psw) s = (double)psw[e];
            if (mode == FX_EB_MEAN) s /= (double)bagSize[b];
        }
        if (row < 0 || row >= rows || row == pad) continue;
        if (counts) s /= (double)counts[row];
        atomicAdd(gw + row * D + d, (T)((double)g[b * D + d] * s));
    }
}

// One thread per entry: the dot product of its bag's gradient and its table row.
template <class T>
__device__ void fx_eb_psw_bwd(const T* g, const T* w, const fx_i64* idx, const fx_i64* o2b, const fx_i64* off,
                              fx_i64 numOffsets, T* out, fx_i64 bags, fx_i64 D, fx_i64 n, fx_i64 rows, fx_i64 pad) {
    for (fx_i64 i = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; i < n; i += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 row = idx[i], b = o2b ? o2b[i] : fx_bag_of(off, numOffsets, i);
        double acc = 0.0;
        if (row != pad && row >= 0 && row < rows && b >= 0 && b < bags)
            for (fx_i64 d = 0; d < D; ++d) acc += (double)g[b * D + d] * (double)w[row * D + d];
        out[i] = (T)acc;
    }
}

extern "C" __global__ void fx_eb_count_rows(const fx_i64* idx, unsigned long long* counts, fx_i64 n, fx_i64 rows) {
    fx_eb_count(idx, counts, n, rows);
}

#define FX_EMBEDDING_BAG(T, S)                                                                                         \
    extern "C" __global__ void fx_embedding_bag_##S(const T* w, const fx_i64* idx, const fx_i64* off, const T* psw,    \
                                                    T* y, fx_i64* o2b, fx_i64* bagSize, fx_i64* maxIdx,                \
                                                    fx_i64* sizeCopy, fx_i64 bags, fx_i64 D, fx_i64 n, fx_i64 rows,    \
                                                    fx_i64 pad, int mode, int lastAtOffset) {                          \
        fx_embedding_bag<T>(w, idx, off, psw, y, o2b, bagSize, maxIdx, sizeCopy, bags, D, n, rows, pad, mode,          \
                            lastAtOffset);                                                                             \
    }                                                                                                                  \
    extern "C" __global__ void fx_embedding_bag_bwd_##S(                                                               \
        const T* g, const fx_i64* idx, const fx_i64* o2b, const fx_i64* off, fx_i64 numOffsets, const fx_i64* bagSize, \
        const fx_i64* maxIdx, const T* psw, const unsigned long long* counts, T* gw, fx_i64 bags, fx_i64 D, fx_i64 n,  \
        fx_i64 rows, fx_i64 pad, int mode) {                                                                           \
        fx_embedding_bag_bwd<T>(g, idx, o2b, off, numOffsets, bagSize, maxIdx, psw, counts, gw, bags, D, n, rows, pad,  \
                                mode);                                                                                 \
    }                                                                                                                  \
    extern "C" __global__ void fx_eb_psw_bwd_##S(const T* g, const T* w, const fx_i64* idx, const fx_i64* o2b,         \
                                                 const fx_i64* off, fx_i64 numOffsets, T* out, fx_i64 bags, fx_i64 D,  \
                                                 fx_i64 n, fx_i64 rows, fx_i64 pad) {                                  \
        fx_eb_psw_bwd<T>(g, w, idx, o2b, off, numOffsets, out, bags, D, n, rows, pad);                                 \
    }
FX_EMBEDDING_BAG(float, f32)
FX_EMBEDDING_BAG(double, f64)
