// Kernels for ops Inductor does not lower but runs as fallback kernels (make_fallback): max
// pooling with indices over irregular windows (3-D, adaptive, fractional), segment_reduce
// and its backward, put, _unsafe_masked_index_put_accumulate, masked_select, and batch norm in
// evaluation mode, and the linear algebra Inductor leaves to LAPACK (triangular_solve,
// _linalg_slogdet, linalg_matrix_exp: one thread per matrix, for the small matrices these are). Each mirrors
// the CPU backend's extern (codegen/cpu/extern_fallback_ops.cpp) rule for rule, so both backends
// give PyTorch's indices on ties and NaNs.
#ifndef FXRAY_EMBEDDED_SOURCE
#include "dtype_io.cuh"
#include "fallback_args.h"
#endif

typedef long long fx_i64;

__device__ __forceinline__ bool fx_isnan(float v) { return v != v; }
__device__ __forceinline__ bool fx_isnan(double v) { return v != v; }
__device__ __forceinline__ bool fx_isnan(fx_i64) { return false; }
__device__ __forceinline__ bool fx_isnan(int) { return false; }

// Window i along one spatial dim of fractional max pooling, as ATen's CUDA kernel computes it
// (in the input's type: float for fp32, double for fp64); the last window flush with the end.
template <class T>
__device__ fx_i64 fx_fractional_start(T u, fx_i64 i, fx_i64 in, fx_i64 out, fx_i64 k) {
    if (i == out - 1) return in - k;
    const T alpha = (T)(in - k) / (T)(out - 1);
    return (fx_i64)(((T)i + u) * alpha) - (fx_i64)(u * alpha);
}

// One thread per output: the first maximum in window order wins, NaN propagates (v > best ||
// isnan(v), so the last NaN's index), an empty window gives -inf and index -1. Values are read
// and compared in C (fp32 for fp16/bf16 storage, as ATen compares them; the type itself
// otherwise), and fractional windows placed in C too: ATen's accscalar_t.
template <class T, class C>
__device__ void fx_window_max(const T* x, const T* samples, T* y, fx_i64* ind, const FxWindowArgs& a) {
    const fx_i64 outSize = a.out[0] * a.out[1] * a.out[2], inSize = a.in[0] * a.in[1] * a.in[2];
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < a.planes * outSize;
         q += (fx_i64)gridDim.x * blockDim.x) {
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
                start[d] = fx_fractional_start<C>(fx_ld(samples, pl * a.nsp + s), o[d], a.in[d], a.out[d], a.k[d]);
                count[d] = a.k[d];
            }
        }
        const T* xp = x + pl * inSize;
        C best = -(C)__int_as_float(0x7f800000);
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
                    const C v = fx_ld(xp, e);
                    if (bi < 0 || v > best || fx_isnan(v)) best = v, bi = e;
                }
            }
        }
        fx_st(y, q, best);
        ind[q] = bi;
    }
}

// Segment s of row o: its start and length; false for a segment outside the axis (bad lengths
// or offsets), whose outputs are NaN (the CPU extern declines those and the reference reports).
__device__ bool fx_segment(const fx_i64* seg, const FxSegArgs& a, fx_i64 o, fx_i64 s, fx_i64& st, fx_i64& len) {
    const fx_i64* row = seg + o * a.last;
    if (a.byOffsets) {
        st = row[s];
        len = row[s + 1] - st;
    } else {
        st = 0;
        for (fx_i64 j = 0; j < s; ++j) st += row[j];
        len = row[s];
    }
    return len >= 0 && st >= 0 && st + len <= a.axisLen;
}

// One thread per output: the segment reduced in double, in order, from the initial value (else
// the identity); max/min keep a NaN once met; an empty segment's mean is NaN without an initial.
template <class T>
__device__ void fx_segment_reduce(const T* x, const fx_i64* seg, T* y, const FxSegArgs& a) {
    const fx_i64 total = a.outer * a.count * a.inner;
    const double inf = (double)__int_as_float(0x7f800000), nan = (double)__int_as_float(0x7fc00000);
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < total; q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 i = q % a.inner, s = (q / a.inner) % a.count, o = q / (a.inner * a.count);
        fx_i64 st, len;
        if (!fx_segment(seg, a, o, s, st, len)) {
            y[q] = (T)nan;
            continue;
        }
        double acc = a.hasInitial            ? a.initial
                     : a.kind == FX_SEG_MAX  ? -inf
                     : a.kind == FX_SEG_MIN  ? inf
                     : a.kind == FX_SEG_PROD ? 1.0
                                             : 0.0;
        for (fx_i64 k = st; k < st + len; ++k) {
            const double v = (double)x[(o * a.axisLen + k) * a.inner + i];
            if (a.kind == FX_SEG_MAX)
                acc = acc != acc ? acc : v != v ? v : fmax(acc, v);
            else if (a.kind == FX_SEG_MIN)
                acc = acc != acc ? acc : v != v ? v : fmin(acc, v);
            else if (a.kind == FX_SEG_PROD)
                acc *= v;
            else
                acc += v;
        }
        if (a.kind == FX_SEG_MEAN) {
            if (len == 0 && !a.hasInitial)
                acc = nan;
            else if (len > 0 && acc == acc)
                acc /= (double)len;
        }
        y[q] = (T)acc;
    }
}

// One thread per output, writing its segment's gradients (segments do not overlap; gx is zeroed
// first): max/min to every element equal to the result (or NaN), positive ones split among ties;
// mean divides by the length; prod is grad * out / x, or the product of the others where x is 0
// or NaN.
template <class T>
__device__ void fx_segment_reduce_bwd(const T* grad, const T* y, const T* x, const fx_i64* seg, T* gx,
                                      const FxSegArgs& a) {
    const fx_i64 total = a.outer * a.count * a.inner;
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < total; q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 i = q % a.inner, s = (q / a.inner) % a.count, o = q / (a.inner * a.count);
        fx_i64 st, len;
        if (!fx_segment(seg, a, o, s, st, len)) continue;
        const fx_i64 end = st + len;
        const double g = (double)grad[q], out = (double)y[q];
#define FX_AT(k) ((o * a.axisLen + (k)) * a.inner + i)
        if (a.kind == FX_SEG_MAX || a.kind == FX_SEG_MIN) {
            fx_i64 ties = 0;
            for (fx_i64 k = st; k < end; ++k) {
                const double v = (double)x[FX_AT(k)];
                if (v != v || v == out) ++ties;
            }
            const double share = ties >= 2 && g > 0 ? g / (double)ties : g;
            for (fx_i64 k = st; k < end; ++k) {
                const double v = (double)x[FX_AT(k)];
                if (v != v || v == out) gx[FX_AT(k)] = (T)share;
            }
        } else if (a.kind == FX_SEG_SUM || a.kind == FX_SEG_MEAN) {
            const double v = a.kind == FX_SEG_MEAN ? g / (double)len : g;
            for (fx_i64 k = st; k < end; ++k) gx[FX_AT(k)] = (T)v;
        } else {
            for (fx_i64 k = st; k < end; ++k) {
                const double v = (double)x[FX_AT(k)];
                if (v != v || v == 0.0) {
                    double others = a.hasInitial ? a.initial : 1.0;
                    for (fx_i64 m = st; m < end; ++m)
                        if (m != k) others *= (double)x[FX_AT(m)];
                    gx[FX_AT(k)] = (T)(g * others);
                } else {
                    gx[FX_AT(k)] = (T)(g * out / v);
                }
            }
        }
#undef FX_AT
    }
}

// put: each index writes (or adds, atomically: indices may repeat) its source element.
template <class T>
__device__ void fx_put(const fx_i64* index, const T* src, T* out, const FxPutArgs& a) {
    for (fx_i64 k = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; k < a.n; k += (fx_i64)gridDim.x * blockDim.x) {
        fx_i64 i = index[k];
        if (i < 0) i += a.size;
        if (i < 0 || i >= a.size) continue;  // out of range (PyTorch raises): skipped, never written
        if (a.accumulate)
            atomicAdd(out + i, src[k]);
        else
            out[i] = src[k];
    }
}

// One index_put value stored or accumulated: numbers add atomically (indices may repeat); a bool
// accumulates as a logical or (every writer stores 1, so racing writers agree).
__device__ __forceinline__ void fx_put_value(float* p, float v, int acc) {
    if (acc)
        atomicAdd(p, v);
    else
        *p = v;
}
__device__ __forceinline__ void fx_put_value(double* p, double v, int acc) {
    if (acc)
        atomicAdd(p, v);
    else
        *p = v;
}
__device__ __forceinline__ void fx_put_value(fx_i64* p, fx_i64 v, int acc) {
    if (acc)
        atomicAdd((unsigned long long*)p, (unsigned long long)v);
    else
        *p = v;
}
__device__ __forceinline__ void fx_put_value(int* p, int v, int acc) {
    if (acc)
        atomicAdd(p, v);
    else
        *p = v;
}
__device__ __forceinline__ void fx_put_value(unsigned char* p, unsigned char v, int acc) {
    if (!acc)
        *p = v != 0;
    else if (v != 0)
        *p = 1;
}

// fp16 / bf16: stored as they are, or added by a compare-and-swap on the aligned 32-bit word
// holding them (16-bit float atomics are not on every target), the sum in fp32 rounded once to
// the storage type.
template <class H>
__device__ __forceinline__ void fx_put_value16(H* p, H v, int acc) {
    if (!acc) {
        *p = v;
        return;
    }
    unsigned int* word = (unsigned int*)((unsigned long long)p & ~3ull);
    const unsigned int shift = ((unsigned long long)p & 2ull) ? 16u : 0u;
    unsigned int old = *word, assumed;
    do {
        assumed = old;
        H cur, sum;
        cur.x = (unsigned short)((assumed >> shift) & 0xffffu);
        fx_st(&sum, 0, fx_ld(&cur, 0) + fx_ld(&v, 0));
        old = atomicCAS(word, assumed, (assumed & ~(0xffffu << shift)) | ((unsigned int)sum.x << shift));
    } while (old != assumed);
}
__device__ __forceinline__ void fx_put_value(fx_half* p, fx_half v, int acc) { fx_put_value16(p, v, acc); }
__device__ __forceinline__ void fx_put_value(fx_bf16* p, fx_bf16 v, int acc) { fx_put_value16(p, v, acc); }

// One thread per element of the full shape: the indices clamped into self (Inductor's masked
// decomposition clamps), the value added atomically (indices may repeat) or stored where the mask
// is set (everywhere without one).
template <class T>
__device__ void fx_masked_put_acc(const unsigned char* mask, const fx_i64* i0, const fx_i64* i1, const fx_i64* i2,
                                  const fx_i64* i3, const T* values, T* out, const FxMaskedPutArgs& a) {
    const fx_i64* idx[FX_MAX_INDICES] = {i0, i1, i2, i3};
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < a.n; q += (fx_i64)gridDim.x * blockDim.x) {
        fx_i64 r = q, mo = a.moff, vo = a.voff, io[FX_MAX_INDICES];
        for (int j = 0; j < FX_MAX_INDICES; ++j) io[j] = a.ioff[j];
        for (int d = (int)a.ndim - 1; d >= 0; --d) {
            const fx_i64 c = r % a.size[d];
            r /= a.size[d];
            mo += c * a.ms[d];
            vo += c * a.vs[d];
            if (d < a.bdims)
                for (int j = 0; j < a.k; ++j) io[j] += c * a.is[j][d];
        }
        if (mask && !mask[mo]) continue;
        fx_i64 base = q % a.inner;
        bool inside = true;
        for (int j = 0; j < a.k; ++j) {
            const fx_i64 size = a.selfSize[j];
            fx_i64 i = idx[j][io[j]];
            if (a.clamp) i = i < -size ? -size : i > size - 1 ? size - 1 : i;
            inside = inside && i >= -size && i < size;
            base += (i < 0 ? i + size : i) * a.selfStride[j];
        }
        if (!inside) continue;  // index_put out of range (PyTorch raises): never written
        fx_put_value(out + base, values[vo], a.accumulate);
    }
}

// Element q (row-major over the mask's shape) of the mask: its coordinates into c, its offset returned.
__device__ fx_i64 fx_mask_at(fx_i64 q, const FxMaskCoordsArgs& a, fx_i64* c) {
    fx_i64 off = a.moff;
    for (int d = (int)a.ndim - 1; d >= 0; --d) {
        c[d] = q % a.size[d];
        q /= a.size[d];
        off += c[d] * a.ms[d];
    }
    return off;
}

// The set elements' coordinates in row-major order (FxMaskCoordsArgs), by one block: each thread
// counts the set elements of its contiguous chunk, thread 0 turns the counts into starting ranks,
// then each thread writes its chunk's coordinates from its rank on.
extern "C" __global__ void fx_mask_coords(const unsigned char* mask, fx_i64* coords, FxMaskCoordsArgs a) {
    __shared__ fx_i64 start[FX_COORD_THREADS];
    __shared__ fx_i64 total;
    const fx_i64 t = threadIdx.x, threads = blockDim.x < FX_COORD_THREADS ? blockDim.x : FX_COORD_THREADS;
    const fx_i64 chunk = (a.n + threads - 1) / threads, lo = t * chunk, hi = lo + chunk < a.n ? lo + chunk : a.n;
    fx_i64 c[FX_MAX_INDICES];
    fx_i64 set = 0;
    if (t < threads)
        for (fx_i64 q = lo; q < hi; ++q)
            if (mask[fx_mask_at(q, a, c)]) ++set;
    if (t < threads) start[t] = set;
    __syncthreads();
    if (t == 0) {
        fx_i64 run = 0;
        for (fx_i64 j = 0; j < threads; ++j) {
            const fx_i64 n = start[j];
            start[j] = run;
            run += n;
        }
        total = run;
    }
    __syncthreads();
    if (t >= threads) return;
    fx_i64 r = start[t];
    for (fx_i64 q = lo; q < hi && r < a.count; ++q) {
        if (!mask[fx_mask_at(q, a, c)]) continue;
        for (int d = 0; d < (int)a.ndim; ++d) coords[d * a.count + r] = c[d];
        ++r;
    }
    for (fx_i64 k = total + t; k < a.count; k += threads)
        for (int d = 0; d < (int)a.ndim; ++d) coords[d * a.count + k] = a.size[d];
}

// One thread walks the broadcast shape in row-major order, copying the selected elements to the
// next free slot; past outLen (a mask other than the one the graph was compiled for) it stops.
__device__ void fx_masked_select(const unsigned char* self, const unsigned char* mask, unsigned char* out,
                                 const FxMaskedSelectArgs& a) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    fx_i64 at = 0;
    for (fx_i64 q = 0; q < a.n && at < a.outLen; ++q) {
        fx_i64 r = q, so = a.soff, mo = a.moff;
        for (int d = (int)a.ndim - 1; d >= 0; --d) {
            const fx_i64 c = r % a.size[d];
            r /= a.size[d];
            so += c * a.ss[d];
            mo += c * a.ms[d];
        }
        if (!mask[mo]) continue;
        for (fx_i64 b = 0; b < a.elem; ++b) out[at * a.elem + b] = self[so * a.elem + b];
        ++at;
    }
}

extern "C" __global__ void fx_masked_select_any(const unsigned char* self, const unsigned char* mask,
                                                unsigned char* out, FxMaskedSelectArgs a) {
    fx_masked_select(self, mask, out, a);
}

// Evaluation-mode batch norm over dense [N, C, S]: the running statistics normalise; the saved
// mean and inverse std (where given) are the running mean and 1 / sqrt(running_var + eps).
template <class T>
__device__ void fx_bn_eval(const T* x, const T* w, const T* b, const T* rm, const T* rv, T* y, T* mean, T* invstd,
                           fx_i64 N, fx_i64 C, fx_i64 S, double eps) {
    const fx_i64 n = N * C * S;
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < n || q < C;
         q += (fx_i64)gridDim.x * blockDim.x) {
        if (q < C) {
            if (mean) mean[q] = rm[q];
            if (invstd) invstd[q] = (T)(1.0 / sqrt((double)rv[q] + eps));
        }
        if (q >= n) continue;
        const fx_i64 c = (q / S) % C;
        const double is = 1.0 / sqrt((double)rv[c] + eps), wc = w ? (double)w[c] : 1.0, bc = b ? (double)b[c] : 0.0;
        y[q] = (T)(((double)x[q] - (double)rm[c]) * is * wc + bc);
    }
}

// op(A) X = B, one thread per (batch, column of X), substituting in order (rows solved first are
// read back from X); a lower solve when upper == transpose.
template <class T>
__device__ void fx_trsm(const T* A, T* X, const FxLinalgArgs& a) {
    const fx_i64 n = a.n, k = a.k;
    const bool lowerSolve = a.upper == a.trans;
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < a.batches * k;
         q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 b = q / k, col = q % k;
        const T* Am = A + b * n * n;
        T* Xm = X + b * n * k;
        for (fx_i64 s = 0; s < n; ++s) {
            const fx_i64 i = lowerSolve ? s : n - 1 - s;
            double v = (double)Xm[i * k + col];
            for (fx_i64 t = 0; t < s; ++t) {
                const fx_i64 j = lowerSolve ? t : n - 1 - t;
                v -= (double)(a.trans ? Am[j * n + i] : Am[i * n + j]) * (double)Xm[j * k + col];
            }
            Xm[i * k + col] = (T)(a.unit ? v : v / (double)Am[i * n + i]);
        }
    }
}

// getrf's row swaps (1-based int32 pivots) on X [batches, n, k], one thread per (batch, column):
// in order (Pᵀ, before lu_solve's triangular solves), or in reverse with `trans` (P, after the
// adjoint's).
template <class T>
__device__ void fx_lu_pivot(T* X, const int* piv, const FxLinalgArgs& a) {
    const fx_i64 n = a.n, k = a.k;
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < a.batches * k;
         q += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 b = q / k, col = q % k;
        T* Xm = X + b * n * k;
        for (fx_i64 s = 0; s < n; ++s) {
            const fx_i64 i = a.trans ? n - 1 - s : s, j = (fx_i64)piv[b * n + i] - 1;
            if (j == i || j < 0 || j >= n) continue;
            const T t = Xm[i * k + col];
            Xm[i * k + col] = Xm[j * k + col];
            Xm[j * k + col] = t;
        }
    }
}

// LU with partial pivoting (the first largest pivot, as LAPACK's getrf; NaN never wins), 1-based
// int32 pivots; the sign is the product of the diagonal's signs (NaN for a NaN pivot, 0 for a
// singular matrix) flipped per row swap, log |det| summed. With `trans` the factor is Aᵀ's, as
// PyTorch makes it for a contiguous input (LAPACK's column-major view without a copy).
template <class T>
__device__ void fx_slogdet(const T* A, T* sign, T* logabs, T* lu, int* piv, double* scratch, const FxLinalgArgs& a) {
    const fx_i64 n = a.n;
    for (fx_i64 b = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; b < a.batches; b += (fx_i64)gridDim.x * blockDim.x) {
        double* M = scratch + b * n * n;
        for (fx_i64 i = 0; i < n; ++i)
            for (fx_i64 j = 0; j < n; ++j) M[i * n + j] = (double)A[b * n * n + (a.trans ? j * n + i : i * n + j)];
        double s = 1.0, l = 0.0;
        for (fx_i64 c = 0; c < n; ++c) {
            fx_i64 p = c;
            double best = fabs(M[c * n + c]);
            for (fx_i64 r = c + 1; r < n; ++r)
                if (fabs(M[r * n + c]) > best) best = fabs(M[r * n + c]), p = r;
            piv[b * n + c] = (int)(p + 1);
            if (p != c)
                for (fx_i64 j = 0; j < n; ++j) {
                    const double t = M[c * n + j];
                    M[c * n + j] = M[p * n + j];
                    M[p * n + j] = t;
                }
            const double d = M[c * n + c];
            if (d != 0.0)
                for (fx_i64 r = c + 1; r < n; ++r) {
                    const double f = M[r * n + c] / d;
                    M[r * n + c] = f;
                    for (fx_i64 j = c + 1; j < n; ++j) M[r * n + j] -= f * M[c * n + j];
                }
        }
        for (fx_i64 c = 0; c < n; ++c) {
            const double d = M[c * n + c];
            s *= d > 0 ? 1.0 : d < 0 ? -1.0 : d != d ? d : 0.0;
            if (piv[b * n + c] != c + 1) s = -s;
            l += log(fabs(d));
        }
        sign[b] = (T)s;
        logabs[b] = (T)l;
        for (fx_i64 i = 0; i < n; ++i)
            for (fx_i64 j = 0; j < n; ++j) lu[b * n * n + i * a.luRow + j * a.luCol] = (T)M[i * n + j];
    }
}

__device__ void fx_matmul_n(const double* x, const double* y, double* r, fx_i64 n) {
    for (fx_i64 e = 0; e < n * n; ++e) r[e] = 0.0;
    for (fx_i64 i = 0; i < n; ++i)
        for (fx_i64 k = 0; k < n; ++k)
            for (fx_i64 j = 0; j < n; ++j) r[i * n + j] += x[i * n + k] * y[k * n + j];
}

// Scaling and squaring: A / 2^s with its 1-norm <= 1/2, a Taylor series to 20 terms, then s
// squarings, in fp64 (the CPU extern's algorithm); a non-finite norm gives NaN.
template <class T>
__device__ void fx_matrix_exp(const T* A, T* out, double* scratch, const FxLinalgArgs& a) {
    const fx_i64 n = a.n, nn = n * n;
    for (fx_i64 b = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; b < a.batches; b += (fx_i64)gridDim.x * blockDim.x) {
        double *m = scratch + b * 4 * nn, *sum = m + nn, *term = sum + nn, *tmp = term + nn;
        double norm = 0.0;
        for (fx_i64 e = 0; e < nn; ++e) m[e] = (double)A[b * nn + e];
        for (fx_i64 j = 0; j < n; ++j) {
            double col = 0.0;
            for (fx_i64 i = 0; i < n; ++i) col += fabs(m[i * n + j]);
            norm = fmax(norm, col);
        }
        if (!isfinite(norm)) {
            for (fx_i64 e = 0; e < nn; ++e) out[b * nn + e] = (T)__longlong_as_double(0x7ff8000000000000LL);
            continue;
        }
        int squarings = 0;
        while (norm > 0.5 && squarings < 64) norm /= 2, ++squarings;
        const double scale = ldexp(1.0, -squarings);
        for (fx_i64 e = 0; e < nn; ++e) {
            m[e] *= scale;
            sum[e] = term[e] = (e / n == e % n) ? 1.0 : 0.0;
        }
        for (int k = 1; k <= 20; ++k) {
            fx_matmul_n(term, m, tmp, n);
            for (fx_i64 e = 0; e < nn; ++e) term[e] = tmp[e] / k, sum[e] += term[e];
        }
        for (int q = 0; q < squarings; ++q) {
            fx_matmul_n(sum, sum, tmp, n);
            for (fx_i64 e = 0; e < nn; ++e) sum[e] = tmp[e];
        }
        for (fx_i64 e = 0; e < nn; ++e) out[b * nn + e] = (T)sum[e];
    }
}

#define FX_WINDOW_MAX(T, S)                                                                                            \
    extern "C" __global__ void fx_window_max_##S(const T* x, const T* samples, T* y, fx_i64* ind, FxWindowArgs a) {    \
        fx_window_max<T, T>(x, samples, y, ind, a);                                                                    \
    }                                                                                                                  \
    extern "C" __global__ void fx_bn_eval_##S(const T* x, const T* w, const T* b, const T* rm, const T* rv, T* y,      \
                                              T* mean, T* invstd, fx_i64 N, fx_i64 C, fx_i64 S_, double eps) {         \
        fx_bn_eval<T>(x, w, b, rm, rv, y, mean, invstd, N, C, S_, eps);                                                \
    }                                                                                                                  \
    extern "C" __global__ void fx_trsm_##S(const T* A, T* X, FxLinalgArgs a) { fx_trsm<T>(A, X, a); }                  \
    extern "C" __global__ void fx_lu_pivot_##S(T* X, const int* piv, FxLinalgArgs a) { fx_lu_pivot<T>(X, piv, a); }    \
    extern "C" __global__ void fx_slogdet_##S(const T* A, T* sign, T* logabs, T* lu, int* piv, double* scratch,        \
                                              FxLinalgArgs a) {                                                        \
        fx_slogdet<T>(A, sign, logabs, lu, piv, scratch, a);                                                           \
    }                                                                                                                  \
    extern "C" __global__ void fx_matrix_exp_##S(const T* A, T* out, double* scratch, FxLinalgArgs a) {                \
        fx_matrix_exp<T>(A, out, scratch, a);                                                                          \
    }
FX_WINDOW_MAX(float, f32)
FX_WINDOW_MAX(double, f64)

// Max pooling with indices over fp16 / bf16 (a bf16 video model's max_pool3d): compared in fp32.
#define FX_WINDOW_MAX_HALF(T, S)                                                                                       \
    extern "C" __global__ void fx_window_max_##S(const T* x, const T* samples, T* y, fx_i64* ind, FxWindowArgs a) {    \
        fx_window_max<T, float>(x, samples, y, ind, a);                                                                \
    }
FX_WINDOW_MAX_HALF(fx_half, f16)
FX_WINDOW_MAX_HALF(fx_bf16, bf16)

#define FX_SEGMENT(T, S)                                                                                               \
    extern "C" __global__ void fx_segment_reduce_##S(const T* x, const fx_i64* seg, T* y, FxSegArgs a) {               \
        fx_segment_reduce<T>(x, seg, y, a);                                                                            \
    }                                                                                                                  \
    extern "C" __global__ void fx_segment_reduce_bwd_##S(const T* grad, const T* y, const T* x, const fx_i64* seg,     \
                                                         T* gx, FxSegArgs a) {                                         \
        fx_segment_reduce_bwd<T>(grad, y, x, seg, gx, a);                                                              \
    }                                                                                                                  \
    extern "C" __global__ void fx_put_##S(const fx_i64* index, const T* src, T* out, FxPutArgs a) {                    \
        fx_put<T>(index, src, out, a);                                                                                 \
    }
FX_SEGMENT(float, f32)
FX_SEGMENT(double, f64)

#define FX_INDEX_PUT(T, S)                                                                                             \
    extern "C" __global__ void fx_masked_put_acc_##S(const unsigned char* mask, const fx_i64* i0, const fx_i64* i1,    \
                                                     const fx_i64* i2, const fx_i64* i3, const T* values, T* out,      \
                                                     FxMaskedPutArgs a) {                                              \
        fx_masked_put_acc<T>(mask, i0, i1, i2, i3, values, out, a);                                                    \
    }
FX_INDEX_PUT(float, f32)
FX_INDEX_PUT(double, f64)
FX_INDEX_PUT(fx_i64, i64)
FX_INDEX_PUT(int, i32)
FX_INDEX_PUT(unsigned char, b8)
FX_INDEX_PUT(fx_half, f16)
FX_INDEX_PUT(fx_bf16, bf16)
