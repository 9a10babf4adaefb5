// Indexing by a boolean mask over self's leading dims (self[mask], index_put(self, [mask],
// values, accumulate)): the mask's set positions, in row-major order, are the rows of the
// result (a data-dependent count, fixed when the graph compiled for index). One thread ranks the
// mask (a running count; masks are index-sized), then one thread per (position, inner element)
// moves its element; each position owns its output slots, so no write collides.
typedef long long fx_i64;

extern "C" __global__ void fx_mask_rank(const unsigned char* mask, fx_i64* rank, fx_i64 positions) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    fx_i64 count = 0;
    for (fx_i64 p = 0; p < positions; ++p) {
        rank[p] = count;
        count += mask[p] != 0;
    }
}

// out[rank[p], i] = self[p, i] where mask[p] is set and its rank is below the output's rows.
template <class E>
__device__ void fx_mask_gather(const E* self, const unsigned char* mask, const fx_i64* rank, E* out, fx_i64 positions,
                               fx_i64 inner, fx_i64 rows) {
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < positions * inner;
         q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 p = q / inner, i = q % inner;
        if (mask[p] && rank[p] < rows) out[rank[p] * inner + i] = self[q];
    }
}

// out[p, i] = (or +=) values[rank[p], i] where mask[p] is set: values' row stride is 0 when it
// broadcasts along the mask's rows, else inner (and ranks from valueRows on are skipped).
template <class T>
__device__ void fx_mask_put(const T* values, const unsigned char* mask, const fx_i64* rank, T* out, fx_i64 positions,
                            fx_i64 inner, fx_i64 rowStride, fx_i64 valueRows, int accumulate) {
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < positions * inner;
         q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 p = q / inner, i = q % inner;
        if (!mask[p] || (rowStride != 0 && rank[p] >= valueRows)) continue;
        const T v = values[rank[p] * rowStride + i];
        out[q] = accumulate ? (T)(out[q] + v) : v;
    }
}

#define FX_MASK_GATHER(E, B)                                                                                           \
    extern "C" __global__ void fx_mask_gather_##B(const E* self, const unsigned char* mask, const fx_i64* rank,        \
                                                  E* out, fx_i64 positions, fx_i64 inner, fx_i64 rows) {               \
        fx_mask_gather<E>(self, mask, rank, out, positions, inner, rows);                                              \
    }
FX_MASK_GATHER(unsigned char, b1)
FX_MASK_GATHER(unsigned short, b2)
FX_MASK_GATHER(unsigned int, b4)
FX_MASK_GATHER(unsigned long long, b8)

#define FX_MASK_PUT(T, S)                                                                                              \
    extern "C" __global__ void fx_mask_put_##S(const T* values, const unsigned char* mask, const fx_i64* rank, T* out, \
                                               fx_i64 positions, fx_i64 inner, fx_i64 rowStride, fx_i64 valueRows,     \
                                               int accumulate) {                                                       \
        fx_mask_put<T>(values, mask, rank, out, positions, inner, rowStride, valueRows, accumulate);                   \
    }
FX_MASK_PUT(float, f32)
FX_MASK_PUT(double, f64)
FX_MASK_PUT(fx_i64, i64)
FX_MASK_PUT(int, i32)
FX_MASK_PUT(short, i16)
FX_MASK_PUT(signed char, i8)
FX_MASK_PUT(unsigned char, u8)
