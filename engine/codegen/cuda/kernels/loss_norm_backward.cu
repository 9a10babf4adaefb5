// Backwards Inductor runs as fallback kernels (multi_margin_loss_backward,
// multilabel_margin_loss_backward, _pdist_backward) or that fxray does not decompose
// (native_group_norm_backward, _fused_rms_norm_backward), on dense operands: each gradient is a
// sum over a row, a group or the pairs of a row, with data-dependent terms. One thread per row
// (or group, pair row, column), in double, rounded once into the output: the reference's
// formulas (exec/ops/class_loss.cpp, distance.cpp, norm.cpp, rms_norm.cpp; the CPU backend's
// codegen/cpu/extern_backward_ops.cpp). A class index out of range leaves its row's gradient 0
// (PyTorch raises there, and so does the reference).
typedef long long fx_i64;

#define FX_GRID_LOOP(q, total)                                                                                         \
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < (total); q += (fx_i64)gridDim.x * blockDim.x)

// grad_output's value for row i: one value for a reduced loss, one per row otherwise.
template <class T>
__device__ __forceinline__ double fx_row_grad(const T* go, fx_i64 goN, fx_i64 i) {
    return (double)go[goN == 1 ? 0 : i];
}

// Each violated margin moves g (p = 1) or 2 g z (p = 2), times weight[y], up at class d and down
// at the target class y; g = 1 / dim, or 1 / (nframe dim) for the mean.
template <class T>
__device__ void fx_multi_margin_bwd(const T* go, const T* x, const fx_i64* target, const T* weight, T* gx,
                                    fx_i64 nframe, fx_i64 dim, fx_i64 goN, double p, double margin, double g) {
    FX_GRID_LOOP(i, nframe) {
        const T* row = x + i * dim;
        T* grow = gx + i * dim;
        for (fx_i64 d = 0; d < dim; ++d) grow[d] = (T)0;
        const fx_i64 c = target[i];
        if (c < 0 || c >= dim) continue;
        const double gr = fx_row_grad(go, goN, i);
        double gt = 0.0;
        for (fx_i64 d = 0; d < dim; ++d) {
            const double z = margin - (double)row[c] + (double)row[d];
            if (d == c || z <= 0) continue;
            double h = p == 1.0 ? g : 2.0 * g * z;
            if (weight) h *= (double)weight[c];
            gt -= h;
            grow[d] = (T)(h * gr);
        }
        grow[c] = (T)(gt * gr);
    }
}

// Each row's targets are its target entries before the first negative one; every violated pair
// (j a target, d not) moves g down at j and up at d.
template <class T>
__device__ void fx_multilabel_margin_bwd(const T* go, const T* x, const fx_i64* target, const T* isTarget, T* gx,
                                         fx_i64 nframe, fx_i64 dim, fx_i64 goN, double g) {
    FX_GRID_LOOP(i, nframe) {
        const T* row = x + i * dim;
        const T* mask = isTarget + i * dim;
        const fx_i64* tr = target + i * dim;
        T* grow = gx + i * dim;
        for (fx_i64 d = 0; d < dim; ++d) {
            // The gradient at d: down for each violated pair where d is the target, up where d is
            // the other class.
            double acc = 0.0;
            for (fx_i64 k = 0; k < dim; ++k) {
                const fx_i64 j = tr[k];
                if (j < 0) break;
                if (j >= dim) continue;
                if (j == d)
                    for (fx_i64 e = 0; e < dim; ++e)
                        if ((double)mask[e] == 0.0 && 1.0 - (double)row[j] + (double)row[e] > 0) acc -= g;
                if ((double)mask[d] == 0.0 && 1.0 - (double)row[j] + (double)row[d] > 0) acc += g;
            }
            grow[d] = (T)(acc * fx_row_grad(go, goN, i));
        }
    }
}

__device__ __forceinline__ double fx_sign(double v) { return (double)((v > 0) - (v < 0)); }

// One thread per element (i, c) of x [n, m]: the sum over the pairs holding row i of ATen's
// per-pair term, positive as the pair's first row and negative as its second. Pair (i, j), i < j,
// is entry i n - i (i + 1) / 2 + j - i - 1 of grad and dist.
template <class T>
__device__ void fx_pdist_bwd(const T* grad, const T* x, const T* dist, T* gx, fx_i64 n, fx_i64 m, double p) {
    FX_GRID_LOOP(q, n * m) {
        const fx_i64 i = q / m, c = q % m;
        double acc = 0.0;
        for (fx_i64 j = 0; j < n && p != 0.0; ++j) {
            if (j == i) continue;
            const fx_i64 lo = i < j ? i : j, hi = i < j ? j : i;
            const fx_i64 k = lo * n - lo * (lo + 1) / 2 + hi - lo - 1;
            const double gk = (double)grad[k], dk = (double)dist[k];
            const double diff = (double)x[lo * m + c] - (double)x[hi * m + c];
            double r;
            if (p == 1.0)
                r = gk * fx_sign(diff);
            else if (p < 2.0)
                r = dk == 0.0 || (diff == 0.0 && p < 1.0) ? 0.0
                                                          : fx_sign(diff) * pow(fabs(diff), p - 1.0) * gk / pow(dk, p - 1.0);
            else if (p == 2.0)
                r = dk == 0.0 ? 0.0 : gk * diff / dk;
            else if (isinf(p))
                // The max-norm's gradient goes where |diff| equals the distance, compared in T.
                r = gk * fx_sign(diff) * (fabs((double)(T)diff) == dk ? 1.0 : 0.0);
            else
                r = dk == 0.0 ? 0.0 : diff * pow(fabs(diff), p - 2.0) * gk / pow(dk, p - 1.0);
            acc += i == lo ? r : -r;
        }
        gx[q] = (T)acc;
    }
}

// native_group_norm_backward's grad_input, one thread per (sample, group): with dyw the
// weighted gradient and xhat the normalised input, dx = rstd (dyw - mean(dyw) - xhat mean(dyw xhat)).
template <class T>
__device__ void fx_group_norm_bwd_input(const T* dy, const T* x, const T* mean, const T* rstd, const T* w, T* gx,
                                        fx_i64 N, fx_i64 C, fx_i64 HxW, fx_i64 G) {
    const fx_i64 per = C / G, span = per * HxW;
    FX_GRID_LOOP(ng, N * G) {
        const fx_i64 base = ng * span, g0 = (ng % G) * per;
        const double mu = (double)mean[ng], r = (double)rstd[ng];
        double s1 = 0.0, s2 = 0.0;
        for (fx_i64 i = 0; i < span; ++i) {
            const double xhat = ((double)x[base + i] - mu) * r;
            const double dyw = (double)dy[base + i] * (w ? (double)w[g0 + i / HxW] : 1.0);
            s1 += dyw;
            s2 += dyw * xhat;
        }
        const double m1 = s1 / (double)span, m2 = s2 / (double)span;
        for (fx_i64 i = 0; i < span; ++i) {
            const double xhat = ((double)x[base + i] - mu) * r;
            const double dyw = (double)dy[base + i] * (w ? (double)w[g0 + i / HxW] : 1.0);
            gx[base + i] = (T)(r * (dyw - m1 - xhat * m2));
        }
    }
}

// grad_weight and grad_bias, one thread per channel: sums of dy xhat and dy over samples and positions.
template <class T>
__device__ void fx_group_norm_bwd_affine(const T* dy, const T* x, const T* mean, const T* rstd, T* gw, T* gb,
                                         fx_i64 N, fx_i64 C, fx_i64 HxW, fx_i64 G) {
    const fx_i64 per = C / G;
    FX_GRID_LOOP(c, C) {
        double sw = 0.0, sb = 0.0;
        for (fx_i64 s = 0; s < N; ++s) {
            const fx_i64 ng = s * G + c / per;
            const double mu = (double)mean[ng], r = (double)rstd[ng];
            const fx_i64 base = (s * C + c) * HxW;
            for (fx_i64 i = 0; i < HxW; ++i) {
                const double d = (double)dy[base + i];
                sw += d * ((double)x[base + i] - mu) * r;
                sb += d;
            }
        }
        if (gw) gw[c] = (T)sw;
        if (gb) gb[c] = (T)sb;
    }
}

// _fused_rms_norm_backward's grad_input, one thread per normalised row of N elements: with dyw =
// dy w and xhat = x rstd, dx = rstd (dyw - xhat mean(dyw xhat)).
template <class T>
__device__ void fx_rms_norm_bwd_input(const T* dy, const T* x, const T* rstd, const T* w, T* gx, fx_i64 M, fx_i64 N) {
    FX_GRID_LOOP(m, M) {
        const double r = (double)rstd[m];
        const fx_i64 base = m * N;
        double dot = 0.0;
        for (fx_i64 j = 0; j < N; ++j)
            dot += (double)dy[base + j] * (w ? (double)w[j] : 1.0) * (double)x[base + j] * r;
        const double mdot = dot / (double)N;
        for (fx_i64 j = 0; j < N; ++j)
            gx[base + j] = (T)(r * ((double)dy[base + j] * (w ? (double)w[j] : 1.0) - (double)x[base + j] * r * mdot));
    }
}

// grad_weight, one thread per column: the sum of dy xhat over the rows.
template <class T>
__device__ void fx_rms_norm_bwd_weight(const T* dy, const T* x, const T* rstd, T* gw, fx_i64 M, fx_i64 N) {
    FX_GRID_LOOP(j, N) {
        double acc = 0.0;
        for (fx_i64 m = 0; m < M; ++m) acc += (double)dy[m * N + j] * (double)x[m * N + j] * (double)rstd[m];
        gw[j] = (T)acc;
    }
}

#define FX_LOSS_NORM_BWD(T, S)                                                                                         \
    extern "C" __global__ void fx_multi_margin_bwd_##S(const T* go, const T* x, const fx_i64* target, const T* weight, \
                                                       T* gx, fx_i64 nframe, fx_i64 dim, fx_i64 goN, double p,         \
                                                       double margin, double g) {                                      \
        fx_multi_margin_bwd<T>(go, x, target, weight, gx, nframe, dim, goN, p, margin, g);                             \
    }                                                                                                                  \
    extern "C" __global__ void fx_multilabel_margin_bwd_##S(const T* go, const T* x, const fx_i64* target,             \
                                                            const T* isTarget, T* gx, fx_i64 nframe, fx_i64 dim,       \
                                                            fx_i64 goN, double g) {                                    \
        fx_multilabel_margin_bwd<T>(go, x, target, isTarget, gx, nframe, dim, goN, g);                                 \
    }                                                                                                                  \
    extern "C" __global__ void fx_pdist_bwd_##S(const T* grad, const T* x, const T* dist, T* gx, fx_i64 n, fx_i64 m,   \
                                                double p) {                                                            \
        fx_pdist_bwd<T>(grad, x, dist, gx, n, m, p);                                                                   \
    }                                                                                                                  \
    extern "C" __global__ void fx_group_norm_bwd_input_##S(const T* dy, const T* x, const T* mean, const T* rstd,      \
                                                           const T* w, T* gx, fx_i64 N, fx_i64 C, fx_i64 HxW,          \
                                                           fx_i64 G) {                                                 \
        fx_group_norm_bwd_input<T>(dy, x, mean, rstd, w, gx, N, C, HxW, G);                                            \
    }                                                                                                                  \
    extern "C" __global__ void fx_group_norm_bwd_affine_##S(const T* dy, const T* x, const T* mean, const T* rstd,     \
                                                            T* gw, T* gb, fx_i64 N, fx_i64 C, fx_i64 HxW, fx_i64 G) {  \
        fx_group_norm_bwd_affine<T>(dy, x, mean, rstd, gw, gb, N, C, HxW, G);                                          \
    }                                                                                                                  \
    extern "C" __global__ void fx_rms_norm_bwd_input_##S(const T* dy, const T* x, const T* rstd, const T* w, T* gx,    \
                                                         fx_i64 M, fx_i64 N) {                                         \
        fx_rms_norm_bwd_input<T>(dy, x, rstd, w, gx, M, N);                                                            \
    }                                                                                                                  \
    extern "C" __global__ void fx_rms_norm_bwd_weight_##S(const T* dy, const T* x, const T* rstd, T* gw, fx_i64 M,     \
                                                          fx_i64 N) {                                                  \
        fx_rms_norm_bwd_weight<T>(dy, x, rstd, gw, M, N);                                                              \
    }
FX_LOSS_NORM_BWD(float, f32)
FX_LOSS_NORM_BWD(double, f64)
