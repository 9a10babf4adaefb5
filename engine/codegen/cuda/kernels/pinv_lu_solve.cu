// The linear algebra Inductor leaves to cuSOLVER that the small matrices of graphs reach:
// linalg_pinv (one-sided Jacobi SVD in double, the reference's routine, exec/ops/linalg_util.cpp)
// and linalg_lu_solve with getrf's factors (1-based pivots). One thread per batch matrix, with
// double scratch in global memory (pinv: p q + q q + q per matrix, lu_solve: n k); the matrices arrive dense and row-major.
typedef long long fx_i64;

// One-sided Jacobi on W (p x q, row-major, q <= p): rotates column pairs until orthogonal,
// accumulating the rotations in V (q x q). Afterwards column j of W is sigma_j u_j.
__device__ void fx_jacobi(double* W, double* V, fx_i64 p, fx_i64 q) {
    for (fx_i64 i = 0; i < q; ++i)
        for (fx_i64 j = 0; j < q; ++j) V[i * q + j] = i == j ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 80; ++sweep) {
        bool rotated = false;
        for (fx_i64 j = 0; j < q; ++j)
            for (fx_i64 k = j + 1; k < q; ++k) {
                double alpha = 0.0, beta = 0.0, gamma = 0.0;
                for (fx_i64 i = 0; i < p; ++i) {
                    const double a = W[i * q + j], b = W[i * q + k];
                    alpha += a * a;
                    beta += b * b;
                    gamma += a * b;
                }
                if (gamma == 0.0 || fabs(gamma) <= 1e-15 * sqrt(alpha * beta)) continue;
                rotated = true;
                const double zeta = (beta - alpha) / (2.0 * gamma);
                const double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
                const double c = 1.0 / sqrt(1.0 + t * t), s = c * t;
                for (fx_i64 i = 0; i < p; ++i) {
                    const double a = W[i * q + j], b = W[i * q + k];
                    W[i * q + j] = c * a - s * b;
                    W[i * q + k] = s * a + c * b;
                }
                for (fx_i64 i = 0; i < q; ++i) {
                    const double a = V[i * q + j], b = V[i * q + k];
                    V[i * q + j] = c * a - s * b;
                    V[i * q + k] = s * a + c * b;
                }
            }
        if (!rotated) break;
    }
}

// pinv of each m x n matrix of A into out (n x m): V diag(1/S) U^T over the singular values
// above max(atol, rtol * S_max). atol / rtol: one double each (null: 0, and rtol from
// rtolDefault, or 0 where atol is positive). Matrices wider than tall are transposed first
// (pinv(A) = pinv(A^T)^T), so the Jacobi works on at most as many columns as rows.
template <class T>
__device__ void fx_pinv(const T* A, T* out, double* scratch, const double* atolp, const double* rtolp,
                        double rtolDefault, fx_i64 batches, fx_i64 m, fx_i64 n) {
    const bool tr = m < n;
    const fx_i64 p = tr ? n : m, q = tr ? m : n;
    for (fx_i64 b = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; b < batches; b += (fx_i64)gridDim.x * blockDim.x) {
        double* W = scratch + b * (p * q + q * q + q);
        double* V = W + p * q;
        double* S2 = V + q * q;  // squared singular values
        const T* a = A + b * m * n;
        for (fx_i64 i = 0; i < p; ++i)
            for (fx_i64 j = 0; j < q; ++j) W[i * q + j] = (double)(tr ? a[j * n + i] : a[i * n + j]);
        fx_jacobi(W, V, p, q);
        double smax = 0.0;
        for (fx_i64 j = 0; j < q; ++j) {
            double s2 = 0.0;
            for (fx_i64 i = 0; i < p; ++i) s2 += W[i * q + j] * W[i * q + j];
            S2[j] = s2;
            smax = fmax(smax, sqrt(s2));
        }
        const double atol = atolp ? atolp[0] : 0.0;
        const double rtol = rtolp ? rtolp[0] : (atolp && atol > 0 ? 0.0 : rtolDefault);
        const double tol = fmax(atol, rtol * smax);
        // pinv(M)[k][i] = sum_j V[k][j] W[i][j] / S_j^2 for M = W V^T (p x q); out is pinv(A).
        T* o = out + b * n * m;
        for (fx_i64 k = 0; k < q; ++k)
            for (fx_i64 i = 0; i < p; ++i) {
                double acc = 0.0;
                for (fx_i64 j = 0; j < q; ++j)
                    if (sqrt(S2[j]) > tol) acc += V[k * q + j] * W[i * q + j] / S2[j];
                // pinv(A) is n x m: pinv(M) itself (k < n, i < m), or its transpose.
                if (tr)
                    o[i * m + k] = (T)acc;
                else
                    o[k * m + i] = (T)acc;
            }
    }
}

// op(M) X = B for M = P L U (getrf's factors in LU, n x n row-major, unit-diagonal L below):
// B (n x k) arrives in X and is solved in place in double scratch. adjoint: M^T X = B.
template <class T>
__device__ void fx_lu_solve(const T* LU, const int* piv, T* X, double* scratch, fx_i64 batches, fx_i64 n, fx_i64 k,
                            int adjoint) {
    for (fx_i64 b = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; b < batches; b += (fx_i64)gridDim.x * blockDim.x) {
        const T* f = LU + b * n * n;
        const int* pv = piv + b * n;
        T* x = X + b * n * k;
        double* s = scratch + b * n * k;
        for (fx_i64 i = 0; i < n * k; ++i) s[i] = (double)x[i];
        for (fx_i64 c = 0; c < k; ++c) {
            if (!adjoint) {
                // X = U^-1 L^-1 P^T B: the row swaps in order, then the two triangles.
                for (fx_i64 i = 0; i < n; ++i) {
                    const fx_i64 r = (fx_i64)pv[i] - 1;
                    if (r != i && r >= 0 && r < n) {
                        const double t = s[i * k + c];
                        s[i * k + c] = s[r * k + c];
                        s[r * k + c] = t;
                    }
                }
                for (fx_i64 i = 0; i < n; ++i) {
                    double v = s[i * k + c];
                    for (fx_i64 j = 0; j < i; ++j) v -= (double)f[i * n + j] * s[j * k + c];
                    s[i * k + c] = v;
                }
                for (fx_i64 i = n; i-- > 0;) {
                    double v = s[i * k + c];
                    for (fx_i64 j = i + 1; j < n; ++j) v -= (double)f[i * n + j] * s[j * k + c];
                    s[i * k + c] = v / (double)f[i * n + i];
                }
            } else {
                // M^T = U^T L^T P^T: X = P L^-T U^-T B, the swaps in reverse at the end.
                for (fx_i64 i = 0; i < n; ++i) {
                    double v = s[i * k + c];
                    for (fx_i64 j = 0; j < i; ++j) v -= (double)f[j * n + i] * s[j * k + c];
                    s[i * k + c] = v / (double)f[i * n + i];
                }
                for (fx_i64 i = n; i-- > 0;) {
                    double v = s[i * k + c];
                    for (fx_i64 j = i + 1; j < n; ++j) v -= (double)f[j * n + i] * s[j * k + c];
                    s[i * k + c] = v;
                }
                for (fx_i64 i = n; i-- > 0;) {
                    const fx_i64 r = (fx_i64)pv[i] - 1;
                    if (r != i && r >= 0 && r < n) {
                        const double t = s[i * k + c];
                        s[i * k + c] = s[r * k + c];
                        s[r * k + c] = t;
                    }
                }
            }
        }
        for (fx_i64 i = 0; i < n * k; ++i) x[i] = (T)s[i];
    }
}

#define FX_PINV_LU(T, S)                                                                                               \
    extern "C" __global__ void fx_pinv_##S(const T* A, T* out, double* scratch, const double* atol,                    \
                                           const double* rtol, double rtolDefault, fx_i64 batches, fx_i64 m,           \
                                           fx_i64 n) {                                                                 \
        fx_pinv<T>(A, out, scratch, atol, rtol, rtolDefault, batches, m, n);                                           \
    }                                                                                                                  \
    extern "C" __global__ void fx_lu_solve_##S(const T* LU, const int* piv, T* X, double* scratch, fx_i64 batches,     \
                                               fx_i64 n, fx_i64 k, int adjoint) {                                      \
        fx_lu_solve<T>(LU, piv, X, scratch, batches, n, k, adjoint);                                                   \
    }
FX_PINV_LU(float, f32)
FX_PINV_LU(double, f64)
