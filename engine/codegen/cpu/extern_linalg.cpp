// Extern kernels of the CPU backend for the linear-algebra ops Inductor leaves to LAPACK
// (fallback kernels): triangular_solve, _linalg_slogdet, linalg_matrix_exp, _linalg_svd,
// linalg_pinv and linalg_lu_solve. Compiled C++ on
// fp64 copies, one matrix of the batch at a time; LU with partial pivoting picks the first
// largest pivot, as LAPACK's getrf does, so the LU factor and pivots match PyTorch's. Their
// table: extern_table.h linalgExterns(). Anything unusual (non-float dtypes, batch shapes that
// do not line up) returns false before writing: the reference kernel then runs it, a reported
// fallback.
#include "codegen/cpu/extern_table.h"

#include "codegen/cpu/extern_util.h"
#include "exec/ops/kernel_util.h"
#include "exec/ops/linalg_util.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fxray::cg::cpu {

namespace {

/// triangular_solve(self, A, upper=True, transpose=False, unitriangular=False) ->
/// (solution, cloned_coefficient): op(A) X = self per batch matrix, A and self broadcast over
/// the batch dims (the outputs' shapes, from the meta function).
bool triangularSolve(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    if (outs.size() < 2 || !outs[0] || !outs[1]) return false;
    const Tensor& B = a.tensor(0);
    const Tensor& A = a.tensor(1);
    if (!floatLike(B.dtype()) || !floatLike(A.dtype()) || B.dim() < 2 || A.dim() < 2) return false;
    const bool upper = a.toBool(2), trans = a.toBool(3), unit = a.toBool(4);
    const auto& xs = outs[0]->shape();
    const auto& as = outs[1]->shape();
    const size_t nd = xs.size();
    if (as.size() != nd) return false;
    const int64_t n = as[nd - 1], k = xs[nd - 1];
    if (as[nd - 2] != n || xs[nd - 2] != n) return false;
    const auto bv = kern::toDoublesBroadcast(B, xs), av = kern::toDoublesBroadcast(A, as);
    std::vector<double> x(bv.size());
    const int64_t batches = n * k == 0 ? 0 : static_cast<int64_t>(bv.size()) / (n * k);
    for (int64_t b = 0; b < batches; ++b) {
        const double* Am = av.data() + b * n * n;
        // op(A)[i][j]; solving with the transpose of an upper matrix is a lower solve.
        auto at = [&](int64_t i, int64_t j) { return trans ? Am[j * n + i] : Am[i * n + j]; };
        const bool lowerSolve = upper == trans;
        for (int64_t col = 0; col < k; ++col) {
            for (int64_t s = 0; s < n; ++s) {
                const int64_t i = lowerSolve ? s : n - 1 - s;
                double v = bv[static_cast<size_t>((b * n + i) * k + col)];
                for (int64_t t = 0; t < s; ++t) {
                    const int64_t j = lowerSolve ? t : n - 1 - t;
                    v -= at(i, j) * x[static_cast<size_t>((b * n + j) * k + col)];
                }
                x[static_cast<size_t>((b * n + i) * k + col)] = unit ? v : v / at(i, i);
            }
        }
    }
    kern::fromDoubles(*outs[0], x);
    kern::fromDoubles(*outs[1], av);
    return true;
}

/// _linalg_slogdet(A) -> (sign, logabsdet, LU, pivots): LU with partial pivoting (row swaps,
/// 1-based int32 pivots) of A, or of Aᵀ where A is contiguous, as the reference; sign from the
/// swaps and the diagonal's signs.
bool slogdet(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    if (outs.size() < 4) return false;
    for (Tensor* t : outs)
        if (!t) return false;
    const Tensor& A = a.tensor(0);
    if (!floatLike(A.dtype()) || A.dim() < 2) return false;
    const int64_t n = A.shape()[static_cast<size_t>(A.dim() - 1)];
    if (A.shape()[static_cast<size_t>(A.dim() - 2)] != n) return false;
    std::vector<double> lu = kern::toDoubles(A);
    // A 0 x 0 matrix has determinant 1: sign 1, log 0, as the loop below leaves them.
    int64_t batches = 1;
    for (int64_t d = 0; d + 2 < A.dim(); ++d) batches *= A.shape()[static_cast<size_t>(d)];
    if (outs[0]->numel() != batches || outs[1]->numel() != batches || outs[2]->numel() != A.numel() ||
        outs[3]->numel() != batches * n)
        return false;
    std::vector<double> sign(static_cast<size_t>(std::max<int64_t>(batches, 0))), logabs(sign.size());
    std::vector<double> piv(static_cast<size_t>(batches * n));
    // As PyTorch (and the reference): a contiguous real A is factored as Aᵀ, LAPACK's column-major
    // view of it; the LU and pivots returned are Aᵀ's, which slogdet's backward solves with.
    const bool transposed = A.meta.isContiguous();
    for (int64_t b = 0; b < batches; ++b) {
        double* M = lu.data() + b * n * n;
        if (transposed)
            for (int64_t i = 0; i < n; ++i)
                for (int64_t j = i + 1; j < n; ++j) std::swap(M[i * n + j], M[j * n + i]);
        double s = 1.0, l = 0.0;
        for (int64_t c = 0; c < n; ++c) {
            int64_t p = c;
            for (int64_t r = c + 1; r < n; ++r)
                if (std::fabs(M[r * n + c]) > std::fabs(M[p * n + c])) p = r;
            piv[static_cast<size_t>(b * n + c)] = static_cast<double>(p + 1);
            if (p != c) {
                for (int64_t j = 0; j < n; ++j) std::swap(M[c * n + j], M[p * n + j]);
                s = -s;
            }
            const double d = M[c * n + c];
            if (d != 0.0)
                for (int64_t r = c + 1; r < n; ++r) {
                    const double f = M[r * n + c] / d;
                    M[r * n + c] = f;
                    for (int64_t j = c + 1; j < n; ++j) M[r * n + j] -= f * M[c * n + j];
                }
            if (d < 0) s = -s;
            l += std::log(std::fabs(d));
            if (d == 0.0) s = 0.0;
        }
        sign[static_cast<size_t>(b)] = s;
        logabs[static_cast<size_t>(b)] = l;
    }
    kern::fromDoubles(*outs[0], sign);
    kern::fromDoubles(*outs[1], logabs);
    kern::fromDoubles(*outs[2], lu);
    kern::fromDoubles(*outs[3], piv);
    return true;
}

/// linalg_matrix_exp(A) per batch matrix: scaling and squaring (A / 2^s with norm <= 1/2, a
/// Taylor series to 20 terms, then s squarings) in fp64, well inside fp32's tolerance.
bool matrixExp(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    if (outs.empty() || !outs[0]) return false;
    const Tensor& A = a.tensor(0);
    if (!floatLike(A.dtype()) || A.dim() < 2 || outs[0]->numel() != A.numel()) return false;
    const int64_t n = A.shape()[static_cast<size_t>(A.dim() - 1)];
    if (A.shape()[static_cast<size_t>(A.dim() - 2)] != n) return false;
    std::vector<double> v = kern::toDoubles(A);
    if (n == 0) {
        kern::fromDoubles(*outs[0], v);
        return true;
    }
    const size_t nn = static_cast<size_t>(n * n);
    auto matmul = [n](const std::vector<double>& x, const std::vector<double>& y) {
        std::vector<double> r(x.size(), 0.0);
        for (int64_t i = 0; i < n; ++i)
            for (int64_t k = 0; k < n; ++k)
                for (int64_t j = 0; j < n; ++j)
                    r[static_cast<size_t>(i * n + j)] +=
                        x[static_cast<size_t>(i * n + k)] * y[static_cast<size_t>(k * n + j)];
        return r;
    };
    for (size_t b = 0; b < v.size() / nn; ++b) {
        std::vector<double> m(v.begin() + static_cast<std::ptrdiff_t>(b * nn),
                              v.begin() + static_cast<std::ptrdiff_t>((b + 1) * nn));
        double norm = 0.0;
        for (int64_t j = 0; j < n; ++j) {
            double col = 0.0;
            for (int64_t i = 0; i < n; ++i) col += std::fabs(m[static_cast<size_t>(i * n + j)]);
            norm = std::max(norm, col);
        }
        if (!std::isfinite(norm)) return false;
        int squarings = 0;
        while (norm > 0.5 && squarings < 64) norm /= 2, ++squarings;
        const double scale = std::ldexp(1.0, -squarings);
        for (double& x : m) x *= scale;
        std::vector<double> sum(nn, 0.0), term(nn, 0.0);
        for (int64_t i = 0; i < n; ++i)
            sum[static_cast<size_t>(i * n + i)] = term[static_cast<size_t>(i * n + i)] = 1.0;
        for (int k = 1; k <= 20; ++k) {
            term = matmul(term, m);
            for (size_t i = 0; i < nn; ++i) term[i] /= k, sum[i] += term[i];
        }
        for (int q = 0; q < squarings; ++q) sum = matmul(sum, sum);
        std::copy(sum.begin(), sum.end(), v.begin() + static_cast<std::ptrdiff_t>(b * nn));
    }
    kern::fromDoubles(*outs[0], v);
    return true;
}

// ----- the SVD and what is built on it; lu_solve -----------------------------------------------
// One-sided Jacobi in double (exec/ops/linalg_util.h svdDecompose, the routine the reference
// uses): singular vectors are unique only up to a sign per pair, and PyTorch's graphs use U and Vh
// together (U diag(g) Vh, pinv's Vhᵀ diag(1/S) Uᵀ), which the choice does not change.

/// _linalg_svd(A, full_matrices, compute_uv, driver) -> (U, S, Vh) over the batch.
bool svd(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    const Tensor& in = a.tensor(0);
    if (in.dim() < 2 || !isFloating(in.dtype()) || outs.size() < 3 || !outs[1]) return false;
    const bool full = a.toBool(1), uv = a.toBool(2);
    const auto& s = in.shape();
    const int64_t m = s[s.size() - 2], n = s.back();
    const int64_t nb = kern::product(std::vector<int64_t>(s.begin(), s.end() - 2));
    const auto A = kern::toDoubles(in);
    std::vector<double> U, S, Vh;
    for (int64_t b = 0; b < nb; ++b) {
        const auto from = A.begin() + static_cast<std::ptrdiff_t>(b * m * n);
        kern::Svd r =
            kern::svdDecompose(std::vector<double>(from, from + static_cast<std::ptrdiff_t>(m * n)), m, n, full);
        S.insert(S.end(), r.S.begin(), r.S.end());
        if (!uv) continue;
        U.insert(U.end(), r.U.begin(), r.U.end());
        Vh.insert(Vh.end(), r.Vh.begin(), r.Vh.end());
    }
    if (outs[1]->numel() != static_cast<int64_t>(S.size())) return false;
    if (uv && ((outs[0] && outs[0]->numel() != static_cast<int64_t>(U.size())) ||
               (outs[2] && outs[2]->numel() != static_cast<int64_t>(Vh.size()))))
        return false;
    kern::fromDoubles(*outs[1], S);
    if (uv && outs[0]) kern::fromDoubles(*outs[0], U);
    if (uv && outs[2]) kern::fromDoubles(*outs[2], Vh);
    return true;
}

/// linalg_pinv.atol_rtol_tensor(self, atol, rtol, hermitian): V diag(1/S) Uᵀ over the singular
/// values above max(atol, rtol * S_max); rtol defaults to eps * max(m, n), or 0 where a positive
/// atol is given (get_atol_rtol).
bool pinv(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    const Tensor& in = a.tensor(0);
    if (in.dim() < 2 || !isFloating(in.dtype()) || outs.empty() || !outs[0]) return false;
    const auto& s = in.shape();
    const int64_t m = s[s.size() - 2], n = s.back(), k = std::min(m, n);
    const std::vector<int64_t> batch(s.begin(), s.end() - 2);
    const int64_t nb = kern::product(batch);
    if (outs[0]->numel() != nb * n * m) return false;
    std::vector<double> atol(static_cast<size_t>(nb), 0.0), rtol;
    if (!a.isNone(1)) atol = kern::toDoublesBroadcast(a.tensor(1), batch);
    const double eps =
        in.dtype() == DType::Float64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
    if (!a.isNone(2)) {
        rtol = kern::toDoublesBroadcast(a.tensor(2), batch);
    } else {
        rtol.assign(static_cast<size_t>(nb), eps * static_cast<double>(std::max(m, n)));
        if (!a.isNone(1))
            for (size_t b = 0; b < rtol.size(); ++b) rtol[b] = atol[b] > 0 ? 0.0 : rtol[b];
    }
    const auto A = kern::toDoubles(in);
    std::vector<double> R(static_cast<size_t>(nb * n * m), 0.0);
    for (int64_t b = 0; b < nb; ++b) {
        const auto from = A.begin() + static_cast<std::ptrdiff_t>(b * m * n);
        std::vector<double> mat(from, from + static_cast<std::ptrdiff_t>(m * n));
        if (a.toBool(3))  // hermitian: eigh reads the lower triangle only
            for (int64_t i = 0; i < n; ++i)
                for (int64_t j = i + 1; j < n; ++j)
                    mat[static_cast<size_t>(i * n + j)] = mat[static_cast<size_t>(j * n + i)];
        const kern::Svd r = kern::svdDecompose(mat, m, n, false);
        const double tol =
            std::max(atol[static_cast<size_t>(b)], rtol[static_cast<size_t>(b)] * (k > 0 ? r.S[0] : 0.0));
        double* dst = R.data() + b * n * m;
        for (int64_t l = 0; l < k; ++l) {
            if (!(r.S[static_cast<size_t>(l)] > tol)) continue;
            const double inv = 1.0 / r.S[static_cast<size_t>(l)];
            for (int64_t i = 0; i < n; ++i)
                for (int64_t j = 0; j < m; ++j)
                    dst[i * m + j] += r.Vh[static_cast<size_t>(l * n + i)] * inv * r.U[static_cast<size_t>(j * k + l)];
        }
    }
    kern::fromDoubles(*outs[0], R);
    return true;
}

/// linalg_lu_solve(LU, pivots, B, left, adjoint): solves with getrf's factors (1-based pivots),
/// X op(M) = B as op(M)ᵀ Xᵀ = Bᵀ when not left. LU and B broadcast to the output's batch.
bool luSolveExtern(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    if (outs.empty() || !outs[0] || outs[0]->dim() < 2 || a.tensor(0).dim() < 2) return false;
    const bool left = a.toBool(3), adjoint = a.toBool(4);
    const auto& shape = outs[0]->shape();
    const std::vector<int64_t> batch(shape.begin(), shape.end() - 2);
    const int64_t n = a.tensor(0).shape().back(), rows = shape[shape.size() - 2], cols = shape.back();
    if ((left ? rows : cols) != n) return false;
    auto withMatrix = [&](int64_t r, int64_t c) {
        std::vector<int64_t> v = batch;
        v.insert(v.end(), {r, c});
        return v;
    };
    std::vector<int64_t> pivShape = batch;
    pivShape.push_back(n);
    for (const auto& [t, want] : {std::pair{&a.tensor(0), withMatrix(n, n)},
                                  std::pair{&a.tensor(2), withMatrix(rows, cols)}, std::pair{&a.tensor(1), pivShape}}) {
        auto bs = kern::broadcastShapes(t->shape(), want);
        if (!bs || *bs != want) return false;
    }
    const auto LU = kern::toDoublesBroadcast(a.tensor(0), withMatrix(n, n));
    auto B = kern::toDoublesBroadcast(a.tensor(2), withMatrix(rows, cols));
    const auto pd = kern::toDoublesBroadcast(a.tensor(1), pivShape);
    std::vector<int64_t> piv(pd.size());
    for (size_t i = 0; i < pd.size(); ++i) {
        piv[i] = static_cast<int64_t>(pd[i]);
        if (piv[i] < 1 || piv[i] > n) return false;
    }
    std::vector<double> t(static_cast<size_t>(rows * cols));
    for (int64_t b = 0; b < kern::product(batch); ++b) {
        double* rhs = B.data() + b * rows * cols;
        const double* f = LU.data() + b * n * n;
        const int64_t* p = piv.data() + b * n;
        if (left) {
            kern::luSolve(f, p, n, rhs, cols, adjoint);
            continue;
        }
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) t[static_cast<size_t>(j * rows + i)] = rhs[i * cols + j];
        kern::luSolve(f, p, n, t.data(), rows, !adjoint);
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) rhs[i * cols + j] = t[static_cast<size_t>(j * rows + i)];
    }
    kern::fromDoubles(*outs[0], B);
    return true;
}

}  // namespace

const std::vector<CpuExtern>& linalgExterns() {
    static const std::vector<CpuExtern> t = {
        {"triangular_solve", triangularSolve},
        {"slogdet", slogdet},
        {"matrix_exp", matrixExp},
        {"svd", svd},
        {"pinv", pinv},
        {"lu_solve", luSolveExtern},
    };
    return t;
}

}  // namespace fxray::cg::cpu
