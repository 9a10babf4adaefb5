// Backward ops Inductor runs as fallback kernels (multi_margin_loss_backward,
// multilabel_margin_loss_backward, _pdist_backward) or that fxray does not decompose
// (native_group_norm_backward, _fused_rms_norm_backward): sums over a row, a group, a channel or
// the pairs of a row, one thread each, in double. The formulas are the CPU backend's
// (codegen/cpu/extern_backward_ops.cpp) and the reference's. Inputs dense; grad_output of the
// losses one value (reduced) or one per row; class targets int64. dtype_io.cuh (fx_ld / fx_st,
// fx_i64) comes first in the module.

#define FX_LOOP(q, n)                                                                                                  \
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < (n); q += (fx_i64)gridDim.x * blockDim.x)

__device__ __forceinline__ double fx_nan() { return __longlong_as_double(0x7ff8000000000000LL); }
__device__ __forceinline__ double fx_sign(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0); }

// One row: each violated margin moves g (p = 1) or 2 g z (p = 2), times weight[y], up at class d
// and down at the target y. A target outside the classes gives NaN (the reference raises).
template <class T>
__device__ void fx_multi_margin_bwd(const T* go, fx_i64 goLen, const T* x, const fx_i64* t, const T* w, T* gx,
                                    fx_i64 rows, fx_i64 dim, double p, double margin, double g) {
    FX_LOOP(i, rows) {
        const T* row = x + i * dim;
        T* grow = gx + i * dim;
        const double scale = (double)go[goLen == 1 ? 0 : i];
        const fx_i64 c = t[i];
        if (c < 0 || c >= dim) {
            for (fx_i64 d = 0; d < dim; ++d) grow[d] = (T)fx_nan();
            continue;
        }
        double gt = 0.0;
        for (fx_i64 d = 0; d < dim; ++d) {
            const double z = margin - (double)row[c] + (double)row[d];
            double h = 0.0;
            if (d != c && z > 0) {
                h = p == 1.0 ? g : 2.0 * g * z;
                if (w) h *= (double)w[c];
                gt -= h;
            }
            if (d != c) grow[d] = (T)(h * scale);
        }
        grow[c] = (T)(gt * scale);
    }
}

// One row: its targets are the entries before the first negative one; each violated pair (j a
// target, d not) moves g down at j and up at d. Targets past the classes end the list. Each
// element's sum is gathered in double and rounded once, as the CPU backend does.
template <class T>
__device__ void fx_multilabel_margin_bwd(const T* go, fx_i64 goLen, const T* x, const fx_i64* t, const T* isTarget,
                                         T* gx, fx_i64 rows, fx_i64 dim, double g) {
    FX_LOOP(i, rows) {
        const T* row = x + i * dim;
        const T* mask = isTarget + i * dim;
        const double scale = (double)go[goLen == 1 ? 0 : i];
        for (fx_i64 e = 0; e < dim; ++e) {
            double acc = 0.0;
            for (fx_i64 k = 0; k < dim; ++k) {
                const fx_i64 j = t[i * dim + k];
                if (j < 0 || j >= dim) break;
                if ((double)mask[e] == 0.0 && 1.0 - (double)row[j] + (double)row[e] > 0) acc += g;
                if (e == j)
                    for (fx_i64 d = 0; d < dim; ++d)
                        if ((double)mask[d] == 0.0 && 1.0 - (double)row[j] + (double)row[d] > 0) acc -= g;
            }
            gx[i * dim + e] = (T)(acc * scale);
        }
    }
}

// d pdist[k] / d x for the pair k = (i, j), component c (exec/ops/distance.cpp).
__device__ double fx_pdist_term(double diff, double gk, double dk, double p, int f32) {
    if (p == 1.0) return gk * fx_sign(diff);
    if (p < 2.0)
        return dk == 0.0 || (diff == 0.0 && p < 1.0) ? 0.0
                                                     : fx_sign(diff) * pow(fabs(diff), p - 1.0) * gk / pow(dk, p - 1.0);
    if (p == 2.0) return dk == 0.0 ? 0.0 : gk * diff / dk;
    if (isinf(p)) {
        const double r = f32 ? (double)(float)diff : diff;
        return gk * fx_sign(diff) * (fabs(r) == dk ? 1.0 : 0.0);
    }
    return dk == 0.0 ? 0.0 : diff * pow(fabs(diff), p - 2.0) * gk / pow(dk, p - 1.0);
}

// One thread per element (i, c) of x [n, m]: the pairs (i, j > i) add, the pairs (j < i, i) subtract.
template <class T>
__device__ void fx_pdist_bwd(const T* g, const T* x, const T* dist, T* gx, fx_i64 n, fx_i64 m, double p) {
    FX_LOOP(q, n * m) {
        const fx_i64 i = q / m, c = q % m;
        double acc = 0.0;
        if (p != 0.0)
            for (fx_i64 a = 0; a < n; ++a) {
                if (a == i) continue;
                const fx_i64 lo = a < i ? a : i, hi = a < i ? i : a;
                const fx_i64 k = lo * n - lo * (lo + 1) / 2 + (hi - lo - 1);
                const double diff = (double)x[lo * m + c] - (double)x[hi * m + c];
                const double r = fx_pdist_term(diff, (double)g[k], (double)dist[k], p, sizeof(T) == 4);
                acc += a > i ? r : -r;
            }
        gx[q] = (T)acc;
    }
}

// native_group_norm_backward's grad_input, one thread per (n, group) of span = C / G * HxW values:
// dx = rstd * (dyw - mean(dyw) - xhat * mean(dyw * xhat)).
template <class T>
__device__ void fx_group_norm_bwd_input(const T* dy, const T* x, const T* mean, const T* rstd, const T* w, T* gi,
                                        fx_i64 NG, fx_i64 G, fx_i64 per, fx_i64 HxW) {
    const fx_i64 span = per * HxW;
    FX_LOOP(ng, NG) {
        const fx_i64 base = ng * span;
        const double mu = (double)fx_ld(mean, ng), r = (double)fx_ld(rstd, ng);
        double s1 = 0.0, s2 = 0.0;
        for (fx_i64 i = 0; i < span; ++i) {
            const fx_i64 c = (ng % G) * per + i / HxW;
            const double xhat = ((double)fx_ld(x, base + i) - mu) * r,
                         dyw = (double)fx_ld(dy, base + i) * (w ? (double)fx_ld(w, c) : 1.0);
            s1 += dyw;
            s2 += dyw * xhat;
        }
        const double m1 = s1 / (double)span, m2 = s2 / (double)span;
        for (fx_i64 i = 0; i < span; ++i) {
            const fx_i64 c = (ng % G) * per + i / HxW;
            const double xhat = ((double)fx_ld(x, base + i) - mu) * r,
                         dyw = (double)fx_ld(dy, base + i) * (w ? (double)fx_ld(w, c) : 1.0);
            fx_st(gi, base + i, r * (dyw - m1 - xhat * m2));
        }
    }
}

// Its grad_weight (sum of dy * xhat) and grad_bias (sum of dy) per channel, one thread each.
template <class T>
__device__ void fx_group_norm_bwd_affine(const T* dy, const T* x, const T* mean, const T* rstd, T* gw, T* gb, fx_i64 N,
                                         fx_i64 C, fx_i64 G, fx_i64 HxW) {
    const fx_i64 per = C / G;
    FX_LOOP(c, C) {
        double sw = 0.0, sb = 0.0;
        for (fx_i64 n = 0; n < N; ++n) {
            const fx_i64 ng = n * G + c / per;
            const double mu = (double)fx_ld(mean, ng), r = (double)fx_ld(rstd, ng);
            for (fx_i64 i = 0; i < HxW; ++i) {
                const fx_i64 e = (n * C + c) * HxW + i;
                const double d = (double)fx_ld(dy, e);
                sw += d * ((double)fx_ld(x, e) - mu) * r;
                sb += d;
            }
        }
        if (gw) fx_st(gw, c, sw);
        if (gb) fx_st(gb, c, sb);
    }
}

// _fused_rms_norm_backward over rows of N: dx = rstd * (dyw - xhat * mean(dyw * xhat)), one
// thread per row; grad_weight = sum over rows of dy * xhat, one thread per column.
template <class T>
__device__ void fx_rms_norm_bwd_input(const T* dy, const T* x, const T* rstd, const T* w, T* gi, fx_i64 M, fx_i64 N) {
    FX_LOOP(m, M) {
        const double r = (double)rstd[m];
        double dot = 0.0;
        for (fx_i64 j = 0; j < N; ++j)
            dot += (double)dy[m * N + j] * (w ? (double)w[j] : 1.0) * ((double)x[m * N + j] * r);
        const double mdot = dot / (double)N;
        for (fx_i64 j = 0; j < N; ++j) {
            const fx_i64 e = m * N + j;
            gi[e] = (T)(r * ((double)dy[e] * (w ? (double)w[j] : 1.0) - (double)x[e] * r * mdot));
        }
    }
}

template <class T>
__device__ void fx_rms_norm_bwd_weight(const T* dy, const T* x, const T* rstd, T* gw, fx_i64 M, fx_i64 N) {
    FX_LOOP(j, N) {
        double s = 0.0;
        for (fx_i64 m = 0; m < M; ++m) s += (double)dy[m * N + j] * ((double)x[m * N + j] * (double)rstd[m]);
        gw[j] = (T)s;
    }
}

#define FX_BACKWARD_KERNELS(T, S)                                                                                      \
    extern "C" __global__ void fx_multi_margin_bwd_##S(const T* go, fx_i64 goLen, const T* x, const fx_i64* t,         \
                                                       const T* w, T* gx, fx_i64 rows, fx_i64 dim, double p,           \
                                                       double margin, double g) {                                      \
        fx_multi_margin_bwd<T>(go, goLen, x, t, w, gx, rows, dim, p, margin, g);                                       \
    }                                                                                                                  \
    extern "C" __global__ void fx_multilabel_margin_bwd_##S(const T* go, fx_i64 goLen, const T* x, const fx_i64* t,    \
                                                            const T* isTarget, T* gx, fx_i64 rows, fx_i64 dim,         \
                                                            double g) {                                                \
        fx_multilabel_margin_bwd<T>(go, goLen, x, t, isTarget, gx, rows, dim, g);                                      \
    }                                                                                                                  \
    extern "C" __global__ void fx_pdist_bwd_##S(const T* g, const T* x, const T* dist, T* gx, fx_i64 n, fx_i64 m,      \
                                                double p) {                                                            \
        fx_pdist_bwd<T>(g, x, dist, gx, n, m, p);                                                                      \
    }                                                                                                                  \
    extern "C" __global__ void fx_rms_norm_bwd_input_##S(const T* dy, const T* x, const T* rstd, const T* w, T* gi,    \
                                                         fx_i64 M, fx_i64 N) {                                         \
        fx_rms_norm_bwd_input<T>(dy, x, rstd, w, gi, M, N);                                                            \
    }                                                                                                                  \
    extern "C" __global__ void fx_rms_norm_bwd_weight_##S(const T* dy, const T* x, const T* rstd, T* gw, fx_i64 M,     \
                                                          fx_i64 N) {                                                  \
        fx_rms_norm_bwd_weight<T>(dy, x, rstd, gw, M, N);                                                              \
    }
FX_BACKWARD_KERNELS(float, f32)
FX_BACKWARD_KERNELS(double, f64)

// Group norm keeps its statistics in the input's dtype: the same kernels for fp16 and bf16
// (loads and stores through dtype_io.cuh, sums in double).
#define FX_GROUP_NORM_BACKWARD_KERNELS(T, S)                                                                           \
    extern "C" __global__ void fx_group_norm_bwd_input_##S(const T* dy, const T* x, const T* mean, const T* rstd,      \
                                                           const T* w, T* gi, fx_i64 NG, fx_i64 G, fx_i64 per,         \
                                                           fx_i64 HxW) {                                               \
        fx_group_norm_bwd_input<T>(dy, x, mean, rstd, w, gi, NG, G, per, HxW);                                         \
    }                                                                                                                  \
    extern "C" __global__ void fx_group_norm_bwd_affine_##S(const T* dy, const T* x, const T* mean, const T* rstd,     \
                                                            T* gw, T* gb, fx_i64 N, fx_i64 C, fx_i64 G, fx_i64 HxW) {  \
        fx_group_norm_bwd_affine<T>(dy, x, mean, rstd, gw, gb, N, C, G, HxW);                                          \
    }
FX_GROUP_NORM_BACKWARD_KERNELS(float, f32)
FX_GROUP_NORM_BACKWARD_KERNELS(double, f64)
FX_GROUP_NORM_BACKWARD_KERNELS(fx_half, f16)
FX_GROUP_NORM_BACKWARD_KERNELS(fx_bf16, bf16)

// embedding_dense_backward in fp16 / bf16, as PyTorch's kernel sums them: in fp32 (atomics into a
// zeroed fp32 [num, D] accumulator, one thread per gradient element; padding_idx and indices
// outside [0, num) add nothing), then rounded once into the half-type output.
template <class T>
__device__ void fx_embedding_bwd_acc(const T* g, const void* idx, float* acc, fx_i64 rows, fx_i64 D, fx_i64 isize,
                                     fx_i64 num, fx_i64 padding) {
    FX_LOOP(q, rows * D) {
        const fx_i64 i = q / D, d = q % D;
        const fx_i64 k = isize == 8 ? ((const fx_i64*)idx)[i] : (fx_i64)((const int*)idx)[i];
        if (k == padding || k < 0 || k >= num) continue;
        atomicAdd(acc + k * D + d, fx_ld(g, q));
    }
}

template <class T>
__device__ void fx_round_from_f32(const float* src, T* dst, fx_i64 n) {
    FX_LOOP(q, n) fx_st(dst, q, src[q]);
}

#define FX_HALF_EMBEDDING_KERNELS(T, S)                                                                                \
    extern "C" __global__ void fx_embedding_bwd_acc_##S(const T* g, const void* idx, float* acc, fx_i64 rows,          \
                                                        fx_i64 D, fx_i64 isize, fx_i64 num, fx_i64 padding) {          \
        fx_embedding_bwd_acc<T>(g, idx, acc, rows, D, isize, num, padding);                                            \
    }                                                                                                                  \
    extern "C" __global__ void fx_round_from_f32_##S(const float* src, T* dst, fx_i64 n) {                             \
        fx_round_from_f32<T>(src, dst, n);                                                                             \
    }
FX_HALF_EMBEDDING_KERNELS(fx_half, f16)
FX_HALF_EMBEDDING_KERNELS(fx_bf16, bf16)

// Max pooling's backward over fp16 / bf16 (3-D, adaptive and fractional pooling with indices):
// each output's gradient added at its argmax in an fp32 accumulator (windows overlap: atomics),
// then rounded once by fx_round_from_f32. PyTorch adds in the half type itself; with
// non-overlapping windows the two agree exactly, with overlapping ones fp32 sums are closer.
template <class T>
__device__ void fx_maxpool_bwd_acc(const T* gy, const fx_i64* ind, float* acc, fx_i64 planes, fx_i64 HW, fx_i64 per) {
    FX_LOOP(q, planes * per) {
        const fx_i64 k = ind[q];
        if (k >= 0 && k < HW) atomicAdd(acc + (q / per) * HW + k, fx_ld(gy, q));
    }
}

#define FX_HALF_MAXPOOL_KERNELS(T, S)                                                                                  \
    extern "C" __global__ void fx_maxpool_bwd_acc_##S(const T* gy, const fx_i64* ind, float* acc, fx_i64 planes,       \
                                                      fx_i64 HW, fx_i64 per) {                                         \
        fx_maxpool_bwd_acc<T>(gy, ind, acc, planes, HW, per);                                                          \
    }
FX_HALF_MAXPOOL_KERNELS(fx_half, f16)
FX_HALF_MAXPOOL_KERNELS(fx_bf16, bf16)

// Batch norm over fp16 / bf16 activations (x, y, grad_out, grad_in in T), training forward and
// backward, as PyTorch's CUDA kernels compute them: statistics in double (fp32 accumulators
// there), the per-channel tensors (weight, bias, running and saved statistics, their gradients)
// in whatever float dtype the graph gives them (a bf16 model saves fp32 statistics), each read and
// written through a type code. One block per channel.
__device__ __forceinline__ double fx_any_ld(const void* p, int t, fx_i64 i) {
    switch (t) {
    case 1: return (double)fx_ld((const fx_half*)p, i);
    case 2: return (double)fx_ld((const fx_bf16*)p, i);
    case 3: return ((const double*)p)[i];
    default: return (double)((const float*)p)[i];
    }
}
__device__ __forceinline__ void fx_any_st(void* p, int t, fx_i64 i, double v) {
    switch (t) {
    case 1: fx_st((fx_half*)p, i, (float)v); break;
    case 2: fx_st((fx_bf16*)p, i, (float)v); break;
    case 3: ((double*)p)[i] = v; break;
    default: ((float*)p)[i] = (float)v;
    }
}

// The block's sum, in every thread (blockDim a multiple of 32, at most 1024).
__device__ double fx_bn_block_sum(double v) {
    __shared__ double part[32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = (blockDim.x + 31) >> 5;
    if (lane == 0) part[warp] = v;
    __syncthreads();
    v = threadIdx.x < nw ? part[threadIdx.x] : 0.0;
    if (warp == 0)
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    __syncthreads();
    if (threadIdx.x == 0) part[0] = v;
    __syncthreads();
    v = part[0];
    __syncthreads();
    return v;
}

struct FxBnHalfArgs {
    fx_i64 N, C, S;
    int wt, rt, st, nt;  // type codes: weight/bias (and their gradients), running, saved, new running
    double mom, eps;
    fx_i64 train;
};

// Element j of channel c in a dense [N, C, S] tensor.
__device__ __forceinline__ fx_i64 fx_bn_at(fx_i64 j, fx_i64 c, const FxBnHalfArgs& a) {
    return ((j / a.S) * a.C + c) * a.S + j % a.S;
}

template <class T>
__device__ void fx_bn_train_half(const T* x, const void* w, const void* b, const void* rm, const void* rv, T* y,
                                 void* mean, void* invstd, void* nrm, void* nrv, FxBnHalfArgs a) {
    const fx_i64 cnt = a.N * a.S;
    for (fx_i64 c = blockIdx.x; c < a.C; c += gridDim.x) {
        double s = 0;
        for (fx_i64 j = threadIdx.x; j < cnt; j += blockDim.x) s += (double)fx_ld(x, fx_bn_at(j, c, a));
        s = fx_bn_block_sum(s);
        const double m = cnt ? s / (double)cnt : 0.0;
        double q = 0;
        for (fx_i64 j = threadIdx.x; j < cnt; j += blockDim.x) {
            const double d = (double)fx_ld(x, fx_bn_at(j, c, a)) - m;
            q += d * d;
        }
        q = fx_bn_block_sum(q);
        const double var = cnt ? q / (double)cnt : 0.0, is = 1.0 / sqrt(var + a.eps);
        if (threadIdx.x == 0) {
            fx_any_st(mean, a.st, c, m);
            fx_any_st(invstd, a.st, c, is);
            if (nrm) {
                // One value per channel: the unbiased variance is NaN, as in PyTorch.
                const double unbiased = cnt > 1 ? q / (double)(cnt - 1) : cnt == 1 ? fx_nan() : var;
                const double om = fx_any_ld(rm, a.rt, c), ov = fx_any_ld(rv, a.rt, c);
                fx_any_st(nrm, a.nt, c, (1.0 - a.mom) * om + a.mom * m);
                fx_any_st(nrv, a.nt, c, (1.0 - a.mom) * ov + a.mom * unbiased);
            }
        }
        const double wc = w ? fx_any_ld(w, a.wt, c) : 1.0, bc = b ? fx_any_ld(b, a.wt, c) : 0.0;
        for (fx_i64 j = threadIdx.x; j < cnt; j += blockDim.x) {
            const fx_i64 e = fx_bn_at(j, c, a);
            fx_st(y, e, (float)(((double)fx_ld(x, e) - m) * is * wc + bc));
        }
    }
}

// native_batch_norm_backward: train uses the saved mean / invstd, evaluation the running ones.
template <class T>
__device__ void fx_bn_bwd_half(const T* gy, const T* x, const void* w, const void* rm, const void* rv,
                               const void* mean, const void* invstd, T* gx, void* gw, void* gb, FxBnHalfArgs a) {
    const fx_i64 cnt = a.N * a.S;
    for (fx_i64 c = blockIdx.x; c < a.C; c += gridDim.x) {
        const double m = a.train ? fx_any_ld(mean, a.st, c) : fx_any_ld(rm, a.rt, c);
        const double is = a.train ? fx_any_ld(invstd, a.st, c) : 1.0 / sqrt(fx_any_ld(rv, a.rt, c) + a.eps);
        double sg = 0, dot = 0;
        for (fx_i64 j = threadIdx.x; j < cnt; j += blockDim.x) {
            const fx_i64 e = fx_bn_at(j, c, a);
            const double g = (double)fx_ld(gy, e);
            sg += g;
            dot += g * ((double)fx_ld(x, e) - m);
        }
        sg = fx_bn_block_sum(sg);
        dot = fx_bn_block_sum(dot);
        if (threadIdx.x == 0) {
            if (gw) fx_any_st(gw, a.wt, c, dot * is);
            if (gb) fx_any_st(gb, a.wt, c, sg);
        }
        if (!gx) continue;
        const double k1 = is * (w ? fx_any_ld(w, a.wt, c) : 1.0);
        const double gm = a.train && cnt ? sg / (double)cnt : 0.0,
                     proj = a.train && cnt ? dot / (double)cnt * is * is : 0.0;
        for (fx_i64 j = threadIdx.x; j < cnt; j += blockDim.x) {
            const fx_i64 e = fx_bn_at(j, c, a);
            fx_st(gx, e, (float)(((double)fx_ld(gy, e) - gm - ((double)fx_ld(x, e) - m) * proj) * k1));
        }
    }
}

#define FX_HALF_BATCH_NORM_KERNELS(T, S)                                                                               \
    extern "C" __global__ void fx_bn_train_half_##S(const T* x, const void* w, const void* b, const void* rm,          \
                                                    const void* rv, T* y, void* mean, void* invstd, void* nrm,         \
                                                    void* nrv, FxBnHalfArgs a) {                                       \
        fx_bn_train_half<T>(x, w, b, rm, rv, y, mean, invstd, nrm, nrv, a);                                            \
    }                                                                                                                  \
    extern "C" __global__ void fx_bn_bwd_half_##S(const T* gy, const T* x, const void* w, const void* rm,              \
                                                  const void* rv, const void* mean, const void* invstd, T* gx,         \
                                                  void* gw, void* gb, FxBnHalfArgs a) {                                \
        fx_bn_bwd_half<T>(gy, x, w, rm, rv, mean, invstd, gx, gw, gb, a);                                              \
    }
FX_HALF_BATCH_NORM_KERNELS(fx_half, f16)
FX_HALF_BATCH_NORM_KERNELS(fx_bf16, bf16)
