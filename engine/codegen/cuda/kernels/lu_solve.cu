// linalg_lu_solve with getrf's factors (1-based pivots), which Inductor leaves to cuSOLVER: one
// thread per batch matrix, solving in double scratch (n k per matrix) as the reference does
// (exec/ops/linalg_util.cpp luSolve); the factors and right-hand sides arrive dense, row-major.
typedef long long fx_i64;

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

#define FX_LU_SOLVE(T, S)                                                                                              \
    extern "C" __global__ void fx_lu_solve_##S(const T* LU, const int* piv, T* X, double* scratch, fx_i64 batches,     \
                                               fx_i64 n, fx_i64 k, int adjoint) {                                      \
        fx_lu_solve<T>(LU, piv, X, scratch, batches, n, k, adjoint);                                                   \
    }
FX_LU_SOLVE(float, f32)
FX_LU_SOLVE(double, f64)
