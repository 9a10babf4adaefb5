#ifndef FXRAY_FALLBACK_ARGS_H
#define FXRAY_FALLBACK_ARGS_H
// The argument blocks of the kernels for ops Inductor runs as fallback kernels (fallback_ops.cu:
// windowed max pooling with indices, sort), shared by the host code
// (codegen/cuda/fallback_kernels.cpp) and the device code, so the two cannot drift apart. Plain C
// types only: NVRTC compiles it without the host's headers.

// Max pooling over dense [planes, T, H, W] (fewer spatial dims padded with leading 1s) into
// dense y and int64 indices (flat within the plane). How windows are placed per spatial dim:
enum FxWindowMode {
    FX_WINDOW_STRIDED = 0,     // max_pool3d: start o*st - pad, k taps dil apart, clipped to the input
    FX_WINDOW_ADAPTIVE = 1,    // adaptive_max_pool: [floor(o*in/out), ceil((o+1)*in/out))
    FX_WINDOW_FRACTIONAL = 2,  // fractional_max_pool: k wide, starts from the plane's samples
};
struct FxWindowArgs {
    long long planes, in[3], out[3], k[3], st[3], pad[3], dil[3];
    int mode;
    int nsp;  // spatial dims the op has (2 or 3): samples per plane, and which dims are padding
};

// A stable sort of each row of a dense [outer, n, inner] tensor along n.
// segment_reduce and its backward over data seen as [outer, axisLen, inner]: segment s of row o
// from the dense int64 lengths ([outer, last], last = count) or offsets ([outer, last], last =
// count + 1); output [outer, count, inner].
enum FxSegKind { FX_SEG_MAX = 0, FX_SEG_MIN = 1, FX_SEG_SUM = 2, FX_SEG_MEAN = 3, FX_SEG_PROD = 4 };
struct FxSegArgs {
    long long outer, axisLen, inner, count, last;
    int kind, byOffsets, hasInitial;
    double initial;  // forward: rounded to the data's dtype; backward: as given (the CPU extern's rule)
};

// put: out (dense, a copy of self) at flat index[k] (negative from the end) set to, or
// accumulating, source[k]; both dense, n = index's numel, size = self's numel.
struct FxPutArgs {
    long long n, size;
    int accumulate;
};

// Broadcast reads over an output shape of up to 8 dims: strides per dim (0 where broadcast).
#define FX_MAX_DIMS 8
#define FX_MAX_INDICES 4

// _unsafe_masked_index_put_accumulate and index_put: over the full shape (the index tensors'
// broadcast shape b, then self's dims after the k indexed ones), out[indices..., rest] += (or =)
// values where the bool mask is set (no mask: everywhere); out dense, a copy of self. The masked
// op clamps the indices into self; index_put skips those out of range.
struct FxMaskedPutArgs {
    long long n, ndim, bdims, k, inner;
    int accumulate, clamp;
    long long size[FX_MAX_DIMS];
    long long ms[FX_MAX_DIMS], vs[FX_MAX_DIMS], moff, voff;
    long long is[FX_MAX_INDICES][FX_MAX_DIMS], ioff[FX_MAX_INDICES];
    long long selfSize[FX_MAX_INDICES], selfStride[FX_MAX_INDICES];  // the k indexed dims of self (row-major strides)
};

// index_put by a bool mask with one value row per set position: the coordinates of the first
// count set elements of the mask (ndim <= 4 dims of size[d], element strides ms, offset moff), in
// row-major order, into dense int64 coords [ndim, count]; slots past the mask's set elements hold
// size[d] (out of range: index_put skips them). One block of FX_COORD_THREADS threads.
#define FX_COORD_THREADS 256
struct FxMaskCoordsArgs {
    long long n, ndim, count, moff;
    long long size[FX_MAX_INDICES], ms[FX_MAX_INDICES];
};

// masked_select: self's elements (self and the bool mask broadcast to size) where mask is set, in
// row-major order, into dense out of outLen elements of elem bytes; one thread (a running count).
struct FxMaskedSelectArgs {
    long long n, ndim, outLen, elem;
    long long size[FX_MAX_DIMS], ss[FX_MAX_DIMS], ms[FX_MAX_DIMS], soff, moff;
};

// Linear algebra per batch matrix, one thread each: triangular_solve in place on X (dense
// [batches, n, k], holding B) with A dense [batches, n, n]; _linalg_slogdet and linalg_matrix_exp
// in fp64 scratch (scratch doubles per matrix: n * n for slogdet, 4 * n * n for matrix_exp). The
// LU output is written through its row / column strides (PyTorch's is column-major); batch b
// starts at b * n * n. slogdet's trans: factor Aᵀ (what PyTorch does for a contiguous input).
struct FxLinalgArgs {
    long long batches, n, k;
    int upper, trans, unit;
    long long luRow, luCol;
};

#endif
