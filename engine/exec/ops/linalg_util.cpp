#include "exec/ops/linalg_util.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fxray::kern {

// ----- shapes and layouts --------------------------------------------------------------------

std::string linalgShapeStr(const std::vector<int64_t>& s) {
    std::string r = "[";
    for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
    return r + "]";
}

std::vector<int64_t> columnMajorBatchStrides(const std::vector<int64_t>& shape) {
    std::vector<int64_t> st(shape.size());
    int64_t mul = 1;
    for (size_t d = shape.size(); d-- > 0;) {
        st[d] = mul;
        mul *= std::max<int64_t>(shape[d], 1);
    }
    if (shape.size() >= 2) {
        st[shape.size() - 2] = 1;
        st[shape.size() - 1] = std::max<int64_t>(shape[shape.size() - 2], 1);
    }
    return st;
}

std::optional<std::vector<int64_t>> broadcastBatchDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    std::vector<int64_t> ba(a.begin(), a.end() - std::min<size_t>(a.size(), 2));
    std::vector<int64_t> bb(b.begin(), b.end() - std::min<size_t>(b.size(), 2));
    return broadcastShapes(ba, bb);
}

std::vector<double> batchedMatrices(const Tensor& t, const std::vector<int64_t>& batch) {
    std::vector<int64_t> shape = batch;
    shape.push_back(t.shape()[t.shape().size() - 2]);
    shape.push_back(t.shape().back());
    if (shape == t.shape()) return toDoubles(t);
    return toDoublesBroadcast(t, shape);
}

// ----- argument checks -----------------------------------------------------------------------

Expected<const Tensor*> linalgTensorArg(const OpArgs& a, size_t i) {
    const std::string& name = a.op().schema.args[i].name;
    if (!a.isTensor(i)) return opError(a, "argument '" + name + "' must be a tensor, got " + a[i].describe());
    if (a.tensor(i).meta.hasUnboundSizes()) return opError(a, "symbolic shapes are not supported");
    return &a.tensor(i);
}

std::optional<Diagnostic> checkFloatingInput(const OpArgs& a, const Tensor& t, const char* fn) {
    if (isFloating(t.dtype()) && t.dtype() != DType::Float16 && t.dtype() != DType::BFloat16) return std::nullopt;
    return opError(a, std::string(fn) + ": Expected a floating point or complex tensor as input. Got " +
                          std::string(dtypeTorchName(t.dtype())));
}

std::optional<Diagnostic> checkSquare(const OpArgs& a, const Tensor& t, const char* fn) {
    if (t.dim() < 2) return opError(a, std::string(fn) + ": The input tensor A must have at least 2 dimensions.");
    if (t.shape()[t.dim() - 1] != t.shape()[t.dim() - 2])
        return opError(a, std::string(fn) + ": A must be batches of square matrices, but they are " +
                              std::to_string(t.shape()[t.dim() - 2]) + " by " + std::to_string(t.shape()[t.dim() - 1]) +
                              " matrices");
    return std::nullopt;
}

// ----- LU ------------------------------------------------------------------------------------

void luFactor(std::vector<double>& lu, int64_t n, std::vector<int64_t>& piv) {
    piv.assign(static_cast<size_t>(n), 0);
    for (int64_t j = 0; j < n; ++j) {
        // idamax: the first row of largest magnitude (NaN never wins a comparison).
        int64_t p = j;
        double best = std::abs(lu[j * n + j]);
        for (int64_t i = j + 1; i < n; ++i)
            if (std::abs(lu[i * n + j]) > best) {
                best = std::abs(lu[i * n + j]);
                p = i;
            }
        piv[j] = p + 1;
        if (p != j)
            for (int64_t c = 0; c < n; ++c) std::swap(lu[j * n + c], lu[p * n + c]);
        const double d = lu[j * n + j];
        if (d == 0.0) continue;
        for (int64_t i = j + 1; i < n; ++i) {
            const double l = lu[i * n + j] / d;
            lu[i * n + j] = l;
            for (int64_t c = j + 1; c < n; ++c) lu[i * n + c] -= l * lu[j * n + c];
        }
    }
}

void luSolve(const double* lu, const int64_t* piv, int64_t n, double* rhs, int64_t k, bool adjoint) {
    auto swapRows = [&](int64_t r1, int64_t r2) {
        if (r1 != r2)
            for (int64_t c = 0; c < k; ++c) std::swap(rhs[r1 * k + c], rhs[r2 * k + c]);
    };
    if (!adjoint) {
        // M = P·L·U: X = U⁻¹·L⁻¹·Pᵀ·B, Pᵀ applying getrf's swaps in order.
        for (int64_t i = 0; i < n; ++i) swapRows(i, piv[i] - 1);
        triangularSolve(lu, n, rhs, k, false, false, true);
        triangularSolve(lu, n, rhs, k, true, false, false);
        return;
    }
    // Mᵀ = Uᵀ·Lᵀ·Pᵀ: X = P·L⁻ᵀ·U⁻ᵀ·B, P applying the swaps in reverse.
    triangularSolve(lu, n, rhs, k, true, true, false);
    triangularSolve(lu, n, rhs, k, false, true, true);
    for (int64_t i = n; i-- > 0;) swapRows(i, piv[i] - 1);
}

void triangularSolve(const double* A, int64_t n, double* B, int64_t k, bool upper, bool transpose, bool unit) {
    // op(A)[r][c]: the transpose of an upper triangle is lower, so solve direction follows both.
    auto at = [&](int64_t r, int64_t c) { return transpose ? A[c * n + r] : A[r * n + c]; };
    const bool opUpper = upper != transpose;
    for (int64_t col = 0; col < k; ++col) {
        if (opUpper) {
            for (int64_t r = n; r-- > 0;) {
                double s = B[r * k + col];
                for (int64_t c = r + 1; c < n; ++c) s -= at(r, c) * B[c * k + col];
                B[r * k + col] = unit ? s : s / at(r, r);
            }
        } else {
            for (int64_t r = 0; r < n; ++r) {
                double s = B[r * k + col];
                for (int64_t c = 0; c < r; ++c) s -= at(r, c) * B[c * k + col];
                B[r * k + col] = unit ? s : s / at(r, r);
            }
        }
    }
}

// ----- SVD -----------------------------------------------------------------------------------

namespace {

double dotCols(const std::vector<double>& X, int64_t rows, int64_t cols, int64_t i, int64_t j) {
    double s = 0.0;
    for (int64_t r = 0; r < rows; ++r) s += X[r * cols + i] * X[r * cols + j];
    return s;
}

/// Makes column j of the rows x cols matrix Q orthonormal to columns [0, j), starting from its
/// current content; when that is (numerically) inside their span, from unit vectors instead.
void orthonormalizeColumn(std::vector<double>& Q, int64_t rows, int64_t cols, int64_t j) {
    auto project = [&]() {
        for (int pass = 0; pass < 2; ++pass)  // twice: classical Gram-Schmidt loses orthogonality once
            for (int64_t i = 0; i < j; ++i) {
                const double d = dotCols(Q, rows, cols, i, j);
                for (int64_t r = 0; r < rows; ++r) Q[r * cols + j] -= d * Q[r * cols + i];
            }
        return std::sqrt(dotCols(Q, rows, cols, j, j));
    };
    double norm = std::sqrt(dotCols(Q, rows, cols, j, j));
    if (norm > 0.0 && std::isfinite(norm)) {
        for (int64_t r = 0; r < rows; ++r) Q[r * cols + j] /= norm;
        norm = project();
        if (norm > 0.5) {
            for (int64_t r = 0; r < rows; ++r) Q[r * cols + j] /= norm;
            return;
        }
    }
    for (int64_t e = 0; e < rows; ++e) {
        for (int64_t r = 0; r < rows; ++r) Q[r * cols + j] = r == e ? 1.0 : 0.0;
        norm = project();
        if (norm > 0.5) {
            for (int64_t r = 0; r < rows; ++r) Q[r * cols + j] /= norm;
            return;
        }
    }
}

/// One-sided Jacobi on B (p x q, p >= q, row-major): B·V = U·diag(S). Returns U as p x (full ? p
/// : q), S descending, V as q x q (row-major, columns are the right vectors).
void jacobiSvd(std::vector<double> B, int64_t p, int64_t q, bool full, std::vector<double>& U, std::vector<double>& S,
               std::vector<double>& V) {
    V.assign(static_cast<size_t>(q * q), 0.0);
    for (int64_t i = 0; i < q; ++i) V[i * q + i] = 1.0;
    const double eps = 1e-15;
    for (int sweep = 0; sweep < 80; ++sweep) {
        bool rotated = false;
        for (int64_t i = 0; i + 1 < q; ++i)
            for (int64_t j = i + 1; j < q; ++j) {
                const double alpha = dotCols(B, p, q, i, i), beta = dotCols(B, p, q, j, j);
                const double gamma = dotCols(B, p, q, i, j);
                if (gamma == 0.0 || std::abs(gamma) <= eps * std::sqrt(alpha * beta)) continue;
                if (!std::isfinite(gamma)) continue;
                rotated = true;
                const double zeta = (beta - alpha) / (2.0 * gamma);
                const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1.0 + zeta * zeta));
                const double c = 1.0 / std::sqrt(1.0 + t * t), s = c * t;
                for (int64_t r = 0; r < p; ++r) {
                    const double x = B[r * q + i], y = B[r * q + j];
                    B[r * q + i] = c * x - s * y;
                    B[r * q + j] = s * x + c * y;
                }
                for (int64_t r = 0; r < q; ++r) {
                    const double x = V[r * q + i], y = V[r * q + j];
                    V[r * q + i] = c * x - s * y;
                    V[r * q + j] = s * x + c * y;
                }
            }
        if (!rotated) break;
    }
    std::vector<double> norms(static_cast<size_t>(q));
    for (int64_t j = 0; j < q; ++j) norms[j] = std::sqrt(dotCols(B, p, q, j, j));
    std::vector<int64_t> order(static_cast<size_t>(q));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return norms[x] > norms[y]; });
    const int64_t uc = full ? p : q;
    U.assign(static_cast<size_t>(p * uc), 0.0);
    S.assign(static_cast<size_t>(q), 0.0);
    std::vector<double> Vs(static_cast<size_t>(q * q));
    for (int64_t j = 0; j < q; ++j) {
        const int64_t o = order[j];
        S[j] = norms[o];
        for (int64_t r = 0; r < p; ++r) U[r * uc + j] = B[r * q + o];
        for (int64_t r = 0; r < q; ++r) Vs[r * q + j] = V[r * q + o];
    }
    V = std::move(Vs);
    // Columns of zero singular values carry no direction; the rest only rounding: both get an
    // orthonormal basis completion, as do the extra columns of full matrices.
    for (int64_t j = 0; j < uc; ++j) orthonormalizeColumn(U, p, uc, j);
}

}  // namespace

Svd svdDecompose(const std::vector<double>& A, int64_t m, int64_t n, bool full) {
    Svd r;
    const int64_t k = std::min(m, n);
    std::vector<double> Ub, Vb;
    if (m >= n) {
        jacobiSvd(A, m, n, full, Ub, r.S, Vb);
        r.U = std::move(Ub);
        r.Vh.assign(static_cast<size_t>(n * n), 0.0);  // Vh = Vbᵀ (k == n rows)
        for (int64_t i = 0; i < n; ++i)
            for (int64_t c = 0; c < n; ++c) r.Vh[i * n + c] = Vb[c * n + i];
    } else {
        // Aᵀ = Ub·S·Vbᵀ, so A = Vb·S·Ubᵀ: U = Vb (m x m), Vh = Ubᵀ.
        std::vector<double> At(static_cast<size_t>(n * m));
        for (int64_t i = 0; i < m; ++i)
            for (int64_t c = 0; c < n; ++c) At[c * m + i] = A[i * n + c];
        jacobiSvd(At, n, m, full, Ub, r.S, Vb);
        r.U = std::move(Vb);
        const int64_t rows = full ? n : m, ubc = full ? n : m;
        r.Vh.assign(static_cast<size_t>(rows * n), 0.0);
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t c = 0; c < n; ++c) r.Vh[i * n + c] = Ub[c * ubc + i];
    }
    // Sign: the largest-magnitude entry of each left vector positive; its partner flips along.
    const int64_t uc = full ? m : k;
    for (int64_t j = 0; j < uc; ++j) {
        int64_t best = 0;
        for (int64_t row = 1; row < m; ++row)
            if (std::abs(r.U[row * uc + j]) > std::abs(r.U[best * uc + j])) best = row;
        if (m == 0 || r.U[best * uc + j] >= 0.0) continue;
        for (int64_t row = 0; row < m; ++row) r.U[row * uc + j] = -r.U[row * uc + j];
        if (j < k)
            for (int64_t c = 0; c < n; ++c) r.Vh[j * n + c] = -r.Vh[j * n + c];
    }
    return r;
}

}  // namespace fxray::kern
