#pragma once
/// Shared pieces of the linear-algebra ops (linalg_decomp.cpp, linalg_svd.cpp): argument checks
/// worded like PyTorch's, LAPACK-style batched layouts, and dense double-precision
/// factorizations (LU with partial pivoting, one-sided Jacobi SVD, triangular solves) on
/// row-major matrices.
#include "exec/ops/kernel_util.h"

#include <optional>
#include <string>
#include <vector>

namespace fxray::kern {

// ----- shapes and layouts --------------------------------------------------------------------
/// "[2, 3]".
std::string linalgShapeStr(const std::vector<int64_t>& s);
/// torch._prims_common.make_contiguous_strides_for(shape, row_major=False): a batch of
/// column-major matrices (what LAPACK writes), batch dims row-major outside.
std::vector<int64_t> columnMajorBatchStrides(const std::vector<int64_t>& shape);
/// Broadcast of the batch dims (all but the last two) of a and b, nullopt when they differ.
std::optional<std::vector<int64_t>> broadcastBatchDims(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
/// Row-major matrices of t (rank >= 2) broadcast to `batch` + t's last two dims, back to back.
std::vector<double> batchedMatrices(const Tensor& t, const std::vector<int64_t>& batch);

// ----- argument checks -----------------------------------------------------------------------
/// The tensor at i, or an error naming the argument when it is not a tensor or has symbolic sizes.
Expected<const Tensor*> linalgTensorArg(const OpArgs& a, size_t i);
/// checkFloatingOrComplex: "<fn>: Expected a floating point or complex tensor as input. Got Long".
std::optional<Diagnostic> checkFloatingInput(const OpArgs& a, const Tensor& t, const char* fn);
/// squareCheckInputs: rank >= 2 and square last two dims.
std::optional<Diagnostic> checkSquare(const OpArgs& a, const Tensor& t, const char* fn);

// ----- dense kernels (row-major n x n unless said otherwise) ---------------------------------
/// LU with partial pivoting as LAPACK getrf does it: L (unit, below the diagonal) and U packed in
/// `lu`, 1-based row swaps in `piv` (row i was swapped with row piv[i] - 1). A zero pivot column
/// leaves the column unscaled (getrf's info > 0 case).
void luFactor(std::vector<double>& lu, int64_t n, std::vector<int64_t>& piv);
/// Solves M·X = rhs (adjoint: Mᵀ·X = rhs) in place for M = P·L·U from luFactor; rhs is n x k.
/// The pivots must be in range (the caller checks).
void luSolve(const double* lu, const int64_t* piv, int64_t n, double* rhs, int64_t k, bool adjoint);
/// Solves op(A)·X = B in place (B is n x k) for A triangular: the `upper` or lower triangle of A
/// is read, op is the transpose when `transpose`, the diagonal is 1 when `unit`.
void triangularSolve(const double* A, int64_t n, double* B, int64_t k, bool upper, bool transpose, bool unit);

/// A = U·diag(S)·Vh for A of m x n (row-major), k = min(m, n). U is m x (full ? m : k), Vh is
/// (full ? n : k) x n, both row-major; S descending. Signs: each singular pair is flipped so that
/// the largest-magnitude entry of its left vector is positive (the first such entry on ties);
/// outputs that use U and Vh together (U·diag(g)·Vh, pinv) do not depend on the choice.
struct Svd {
    std::vector<double> U, S, Vh;
};
Svd svdDecompose(const std::vector<double>& A, int64_t m, int64_t n, bool full);

}  // namespace fxray::kern
