// The SVD Inductor leaves to LAPACK (_linalg_svd) and the pseudo-inverse built on it
// (linalg_pinv), one thread per matrix in fp64 scratch: one-sided Jacobi as the reference
// executor's exec/ops/linalg_util.cpp svdDecompose computes it (the same rotations, the stable
// descending order, the columns re-orthonormalized, the largest-magnitude entry of each left
// vector made positive), so the device, the CPU backend and the reference agree up to rounding.
// Singular vectors are unique only up to a sign per pair; PyTorch's graphs use U and Vh together.
#ifndef FXRAY_EMBEDDED_SOURCE
#include "svd_args.h"
#endif

typedef long long fx_i64;

// Scratch doubles per matrix for k = min(m, n), p = max(m, n).
__device__ __forceinline__ fx_i64 fx_svd_scratch(fx_i64 m, fx_i64 n) {
    const fx_i64 p = m > n ? m : n, q = m > n ? n : m;
    return 2 * p * q + 2 * q * q + 2 * q;
}

__device__ double fx_dot_cols(const double* X, fx_i64 rows, fx_i64 cols, fx_i64 i, fx_i64 j) {
    double s = 0.0;
    for (fx_i64 r = 0; r < rows; ++r) s += X[r * cols + i] * X[r * cols + j];
    return s;
}

// Column j of Q (rows x cols) made orthonormal to columns [0, j); from unit vectors where it is
// (numerically) inside their span.
__device__ double fx_project(double* Q, fx_i64 rows, fx_i64 cols, fx_i64 j) {
    for (int pass = 0; pass < 2; ++pass)
        for (fx_i64 i = 0; i < j; ++i) {
            const double d = fx_dot_cols(Q, rows, cols, i, j);
            for (fx_i64 r = 0; r < rows; ++r) Q[r * cols + j] -= d * Q[r * cols + i];
        }
    return sqrt(fx_dot_cols(Q, rows, cols, j, j));
}

__device__ void fx_orthonormalize(double* Q, fx_i64 rows, fx_i64 cols, fx_i64 j) {
    double norm = sqrt(fx_dot_cols(Q, rows, cols, j, j));
    if (norm > 0.0 && isfinite(norm)) {
        for (fx_i64 r = 0; r < rows; ++r) Q[r * cols + j] /= norm;
        norm = fx_project(Q, rows, cols, j);
        if (norm > 0.5) {
            for (fx_i64 r = 0; r < rows; ++r) Q[r * cols + j] /= norm;
            return;
        }
    }
    for (fx_i64 e = 0; e < rows; ++e) {
        for (fx_i64 r = 0; r < rows; ++r) Q[r * cols + j] = r == e ? 1.0 : 0.0;
        norm = fx_project(Q, rows, cols, j);
        if (norm > 0.5) {
            for (fx_i64 r = 0; r < rows; ++r) Q[r * cols + j] /= norm;
            return;
        }
    }
}

// The reduced SVD of one m x n matrix A (row-major) into scratch: U (m x k), S (k), Vh (k x n),
// all row-major; returns pointers through the arguments.
template <class T>
__device__ void fx_svd_one(const T* A, fx_i64 m, fx_i64 n, double* w, double*& U, double*& S, double*& Vh) {
    const bool trans = m < n;
    const fx_i64 p = trans ? n : m, q = trans ? m : n;
    double* B = w;             // p x q
    double* V = B + p * q;     // q x q
    double* Vs = V + q * q;    // q x q, sorted
    double* Ub = Vs + q * q;   // p x q, sorted
    double* nrm = Ub + p * q;  // q
    double* ord = nrm + q;     // q (indices)
    for (fx_i64 r = 0; r < p; ++r)
        for (fx_i64 c = 0; c < q; ++c) B[r * q + c] = (double)(trans ? A[c * n + r] : A[r * n + c]);
    for (fx_i64 i = 0; i < q * q; ++i) V[i] = 0.0;
    for (fx_i64 i = 0; i < q; ++i) V[i * q + i] = 1.0;
    const double eps = 1e-15;
    for (int sweep = 0; sweep < 80; ++sweep) {
        bool rotated = false;
        for (fx_i64 i = 0; i + 1 < q; ++i)
            for (fx_i64 j = i + 1; j < q; ++j) {
                const double alpha = fx_dot_cols(B, p, q, i, i), beta = fx_dot_cols(B, p, q, j, j);
                const double gamma = fx_dot_cols(B, p, q, i, j);
                if (gamma == 0.0 || fabs(gamma) <= eps * sqrt(alpha * beta)) continue;
                if (!isfinite(gamma)) continue;
                rotated = true;
                const double zeta = (beta - alpha) / (2.0 * gamma);
                const double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
                const double c = 1.0 / sqrt(1.0 + t * t), s = c * t;
                for (fx_i64 r = 0; r < p; ++r) {
                    const double x = B[r * q + i], y = B[r * q + j];
                    B[r * q + i] = c * x - s * y;
                    B[r * q + j] = s * x + c * y;
                }
                for (fx_i64 r = 0; r < q; ++r) {
                    const double x = V[r * q + i], y = V[r * q + j];
                    V[r * q + i] = c * x - s * y;
                    V[r * q + j] = s * x + c * y;
                }
            }
        if (!rotated) break;
    }
    // Descending by norm, ties in column order (a stable insertion sort).
    for (fx_i64 j = 0; j < q; ++j) {
        nrm[j] = sqrt(fx_dot_cols(B, p, q, j, j));
        ord[j] = (double)j;
    }
    for (fx_i64 j = 1; j < q; ++j) {
        const double o = ord[j];
        fx_i64 i = j;
        while (i > 0 && nrm[(fx_i64)o] > nrm[(fx_i64)ord[i - 1]]) {
            ord[i] = ord[i - 1];
            --i;
        }
        ord[i] = o;
    }
    for (fx_i64 j = 0; j < q; ++j) {
        const fx_i64 o = (fx_i64)ord[j];
        for (fx_i64 r = 0; r < p; ++r) Ub[r * q + j] = B[r * q + o];
        for (fx_i64 r = 0; r < q; ++r) Vs[r * q + j] = V[r * q + o];
    }
    // Sorted singular values into B's first q slots (B is no longer needed).
    for (fx_i64 j = 0; j < q; ++j) B[j] = nrm[(fx_i64)ord[j]];
    S = B;
    for (fx_i64 j = 0; j < q; ++j) fx_orthonormalize(Ub, p, q, j);
    // A = Ub S Vsᵀ (not transposed) or Aᵀ = Ub S Vsᵀ, so A = Vs S Ubᵀ. U: m x k, Vh: k x n, both
    // as views of Ub / Vs: U[r][j] = (trans ? Vs : Ub)[r * q + j]; Vh[j][c] = (trans ? Ub : Vs)[c * q + j].
    U = trans ? Vs : Ub;
    Vh = trans ? Ub : Vs;  // column-indexed: Vh[j][c] at Vh[c * q + j]
    // Sign: the largest-magnitude entry of each left vector positive; its partner flips along.
    for (fx_i64 j = 0; j < q; ++j) {
        fx_i64 best = 0;
        for (fx_i64 r = 1; r < m; ++r)
            if (fabs(U[r * q + j]) > fabs(U[best * q + j])) best = r;
        if (m == 0 || U[best * q + j] >= 0.0) continue;
        for (fx_i64 r = 0; r < m; ++r) U[r * q + j] = -U[r * q + j];
        for (fx_i64 c = 0; c < n; ++c) Vh[c * q + j] = -Vh[c * q + j];
    }
}

template <class T>
__device__ void fx_svd(const T* A, T* U, T* S, T* Vh, double* scratch, const FxSvdArgs& a) {
    const fx_i64 k = a.m < a.n ? a.m : a.n, per = fx_svd_scratch(a.m, a.n);
    for (fx_i64 b = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; b < a.batches; b += (fx_i64)gridDim.x * blockDim.x) {
        double *u, *s, *vh;
        fx_svd_one<T>(A + b * a.m * a.n, a.m, a.n, scratch + b * per, u, s, vh);
        for (fx_i64 j = 0; j < k; ++j) S[b * k + j] = (T)s[j];
        if (!a.wantUV) continue;
        for (fx_i64 r = 0; r < a.m; ++r)
            for (fx_i64 j = 0; j < k; ++j) U[b * a.uBatch + r * a.uRow + j * a.uCol] = (T)u[r * k + j];
        for (fx_i64 j = 0; j < k; ++j)
            for (fx_i64 c = 0; c < a.n; ++c) Vh[b * a.vBatch + j * a.vRow + c * a.vCol] = (T)vh[c * k + j];
    }
}

// R = Vhᵀ diag(1/S) Uᵀ over the singular values above max(atol, rtol * S_max) (linalg_pinv's
// rule; rtol's default eps * max(m, n), 0 where a positive atol is given).
__device__ double fx_tol(const void* p, fx_i64 i, int f64) {
    return f64 ? ((const double*)p)[i] : (double)((const float*)p)[i];
}

template <class T>
__device__ void fx_pinv(const T* A, const void* atol, const void* rtol, T* R, double* scratch, const FxSvdArgs& a) {
    const fx_i64 k = a.m < a.n ? a.m : a.n, per = fx_svd_scratch(a.m, a.n);
    for (fx_i64 b = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; b < a.batches; b += (fx_i64)gridDim.x * blockDim.x) {
        double *u, *s, *vh;
        fx_svd_one<T>(A + b * a.m * a.n, a.m, a.n, scratch + b * per, u, s, vh);
        const double at = a.hasAtol ? fx_tol(atol, b * a.atolStride, a.atolF64) : 0.0;
        double rt = a.hasRtol ? fx_tol(rtol, b * a.rtolStride, a.rtolF64) : a.defaultRtol;
        if (!a.hasRtol && a.hasAtol && at > 0) rt = 0.0;
        const double smax = k > 0 ? s[0] : 0.0, tol = at > rt * smax ? at : rt * smax;
        T* dst = R + b * a.n * a.m;
        for (fx_i64 i = 0; i < a.n; ++i)
            for (fx_i64 j = 0; j < a.m; ++j) {
                double v = 0.0;
                for (fx_i64 l = 0; l < k; ++l)
                    if (s[l] > tol) v += vh[i * k + l] * (1.0 / s[l]) * u[j * k + l];
                dst[i * a.m + j] = (T)v;
            }
    }
}

#define FX_SVD_KERNELS(T, S)                                                                                           \
    extern "C" __global__ void fx_svd_##S(const T* A, T* U, T* Sv, T* Vh, double* scratch, FxSvdArgs a) {              \
        fx_svd<T>(A, U, Sv, Vh, scratch, a);                                                                           \
    }                                                                                                                  \
    extern "C" __global__ void fx_pinv_##S(const T* A, const void* atol, const void* rtol, T* R, double* scratch,      \
                                           FxSvdArgs a) {                                                              \
        fx_pinv<T>(A, atol, rtol, R, scratch, a);                                                                      \
    }
FX_SVD_KERNELS(float, f32)
FX_SVD_KERNELS(double, f64)
