// Solvers and factorizations: triangular_solve, _linalg_slogdet (LU-based), linalg_lu_solve and
// linalg_matrix_exp. Outputs that LAPACK writes (solutions, LU factors) have the batched
// column-major strides PyTorch's meta functions give them; everything computes in double and
// rounds once to the output dtype.
#include "exec/ops/linalg_util.h"
#include "exec/ops/register.h"

#include <cmath>
#include <string>

namespace fxray {
using namespace kern;

namespace {

TensorMeta stridedMeta(std::vector<int64_t> shape, std::vector<int64_t> strides, DType dt, const Device& dev) {
    TensorMeta m;
    m.shape = std::move(shape);
    m.strides = std::move(strides);
    m.dtype = dt;
    m.device = dev;
    return m;
}

std::vector<int64_t> withMatrix(std::vector<int64_t> batch, int64_t rows, int64_t cols) {
    batch.push_back(rows);
    batch.push_back(cols);
    return batch;
}

/// checkInputsSolver: A square, B's rows (left) or columns (right) matching, same dtype.
std::optional<Diagnostic> checkSolver(const OpArgs& a, const Tensor& A, const Tensor& B, bool left, const char* fn) {
    if (auto e = checkSquare(a, A, fn)) return e;
    if (B.dim() < 2) return opError(a, std::string(fn) + ": The input tensor B must have at least 2 dimensions.");
    const int64_t n = A.shape().back();
    const int64_t bn = left ? B.shape()[B.dim() - 2] : B.shape().back();
    if (bn != n)
        return opError(a, std::string(fn) + ": Incompatible shapes of A and B for the equation " +
                              (left ? "AX = B" : "XA = B") + " (" + std::to_string(n) + "x" + std::to_string(n) +
                              " and " + std::to_string(B.shape()[B.dim() - 2]) + "x" +
                              std::to_string(B.shape().back()) + ")");
    if (A.dtype() != B.dtype())
        return opError(a, std::string(fn) + ": Expected A and B to have the same dtype, but found A of type " +
                              std::string(dtypeTorchName(A.dtype())) + " and B of type " +
                              std::string(dtypeTorchName(B.dtype())) + " instead");
    return std::nullopt;
}

// ----- triangular_solve -----------------------------------------------------------------------

Expected<Value> metaTriangularSolve(const OpArgs& a) {
    auto b = linalgTensorArg(a, 0);
    if (!b.ok()) return b.error();
    auto A = linalgTensorArg(a, 1);
    if (!A.ok()) return A.error();
    const Tensor& B = **b;
    if (B.dim() < 2)
        return opError(a, "torch.triangular_solve: Expected b to have at least 2 dimensions, but it has " +
                              std::to_string(B.dim()) + " dimensions instead");
    if ((*A)->dim() < 2)
        return opError(a, "torch.triangular_solve: Expected A to have at least 2 dimensions, but it has " +
                              std::to_string((*A)->dim()) + " dimensions instead");
    if (auto e = checkSolver(a, **A, B, true, "triangular_solve")) return *e;
    if (auto e = checkFloatingInput(a, B, "triangular_solve")) return *e;
    auto batch = broadcastBatchDims(B.shape(), (*A)->shape());
    if (!batch)
        return opError(a, "triangular_solve: the batch dimensions of " + linalgShapeStr(B.shape()) + " and " +
                              linalgShapeStr((*A)->shape()) + " do not broadcast");
    const int64_t n = (*A)->shape().back(), k = B.shape().back();
    auto solShape = withMatrix(*batch, n, k), coefShape = withMatrix(*batch, n, n);
    const Device& dev = B.meta.device;
    return Value::ofList({metaValue(stridedMeta(solShape, columnMajorBatchStrides(solShape), B.dtype(), dev)),
                          metaValue(stridedMeta(coefShape, columnMajorBatchStrides(coefShape), B.dtype(), dev))},
                         true);
}

Expected<Value> triangularSolveKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto& solShape = out.list[0].t.shape();
    std::vector<int64_t> batch(solShape.begin(), solShape.end() - 2);
    const int64_t n = solShape[solShape.size() - 2], k = solShape.back();
    auto X = batchedMatrices(a.tensor(0), batch);
    auto A = batchedMatrices(a.tensor(1), batch);
    const bool upper = a.toBool(2), transpose = a.toBool(3), unit = a.toBool(4);
    const int64_t nb = product(batch);
    for (int64_t b = 0; b < nb; ++b)
        triangularSolve(A.data() + b * n * n, n, X.data() + b * n * k, k, upper, transpose, unit);
    return Value::ofList(
        {Value::ofTensor(makeTensor(out.list[0].t.meta, X)), Value::ofTensor(makeTensor(out.list[1].t.meta, A))}, true);
}

// ----- _linalg_slogdet ------------------------------------------------------------------------

Expected<Value> metaSlogdet(const OpArgs& a) {
    auto x = linalgTensorArg(a, 0);
    if (!x.ok()) return x.error();
    const Tensor& A = **x;
    if (auto e = checkSquare(a, A, "linalg.slogdet")) return *e;
    if (auto e = checkFloatingInput(a, A, "linalg.slogdet")) return *e;
    const auto& s = A.shape();
    std::vector<int64_t> batch(s.begin(), s.end() - 2);
    std::vector<int64_t> pivShape(s.begin(), s.end() - 1);
    const Device& dev = A.meta.device;
    return Value::ofList({metaValue(TensorMeta::contiguous(batch, A.dtype(), dev)),
                          metaValue(TensorMeta::contiguous(batch, A.dtype(), dev)),
                          metaValue(stridedMeta(s, columnMajorBatchStrides(s), A.dtype(), dev)),
                          metaValue(TensorMeta::contiguous(pivShape, DType::Int32, dev))},
                         true);
}

Expected<Value> slogdetKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    const auto& s = in.shape();
    const int64_t n = s.back();
    std::vector<int64_t> batch(s.begin(), s.end() - 2);
    const int64_t nb = product(batch);
    auto A = toDoubles(in);
    // PyTorch factors Aᵀ when A is contiguous and real (det(Aᵀ) = det(A), and the transpose is
    // LAPACK's column-major layout without a copy). The LU and pivots it returns are those of Aᵀ,
    // and slogdet's backward solves with them accordingly, so the same factor is made here.
    const bool transposed = in.meta.isContiguous();
    std::vector<double> sign(static_cast<size_t>(nb)), logabs(static_cast<size_t>(nb)), lus(A.size()), pivs;
    std::vector<int64_t> piv;
    for (int64_t b = 0; b < nb; ++b) {
        std::vector<double> m(A.begin() + b * n * n, A.begin() + (b + 1) * n * n);
        if (transposed)
            for (int64_t i = 0; i < n; ++i)
                for (int64_t j = i + 1; j < n; ++j) std::swap(m[i * n + j], m[j * n + i]);
        luFactor(m, n, piv);
        double sg = 1.0, la = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            const double d = m[i * n + i];
            sg *= d > 0 ? 1.0 : d < 0 ? -1.0 : std::isnan(d) ? d : 0.0;
            if (piv[i] != i + 1) sg = -sg;
            la += std::log(std::abs(d));
        }
        sign[b] = sg;
        logabs[b] = la;
        std::copy(m.begin(), m.end(), lus.begin() + b * n * n);
        for (int64_t p : piv) pivs.push_back(static_cast<double>(p));
    }
    return Value::ofList(
        {Value::ofTensor(makeTensor(out.list[0].t.meta, sign)), Value::ofTensor(makeTensor(out.list[1].t.meta, logabs)),
         Value::ofTensor(makeTensor(out.list[2].t.meta, lus)), Value::ofTensor(makeTensor(out.list[3].t.meta, pivs))},
        true);
}

// ----- linalg_lu_solve ------------------------------------------------------------------------

Expected<Value> metaLuSolve(const OpArgs& a) {
    auto lu = linalgTensorArg(a, 0);
    if (!lu.ok()) return lu.error();
    auto pv = linalgTensorArg(a, 1);
    if (!pv.ok()) return pv.error();
    auto b = linalgTensorArg(a, 2);
    if (!b.ok()) return b.error();
    const Tensor &LU = **lu, &P = **pv, &B = **b;
    const bool left = a.toBool(3);
    if (auto e = checkFloatingInput(a, LU, "torch.linalg.lu_solve")) return *e;
    if (LU.dtype() != B.dtype())
        return opError(a, "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type " +
                              std::string(dtypeTorchName(LU.dtype())) + " and B of type " +
                              std::string(dtypeTorchName(B.dtype())) + " instead");
    if (P.dtype() != DType::Int32)
        return opError(a, "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32");
    if (auto e = checkSolver(a, LU, B, left, "linalg.lu_solve")) return *e;
    std::vector<int64_t> want(LU.shape().begin(), LU.shape().end() - 1);
    if (P.shape() != want)
        return opError(
            a, "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape " +
                   linalgShapeStr(P.shape()) + " instead");
    auto batch = broadcastBatchDims(B.shape(), LU.shape());
    if (!batch)
        return opError(a, "linalg.lu_solve: the batch dimensions of " + linalgShapeStr(B.shape()) + " and " +
                              linalgShapeStr(LU.shape()) + " do not broadcast");
    auto shape = withMatrix(*batch, B.shape()[B.dim() - 2], B.shape().back());
    auto strides = left ? columnMajorBatchStrides(shape) : TensorMeta::contiguousStrides(shape);
    return metaValue(stridedMeta(shape, strides, B.dtype(), B.meta.device));
}

Expected<Value> luSolveKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor &LUt = a.tensor(0), &Pt = a.tensor(1);
    const bool left = a.toBool(3), adjoint = a.toBool(4);
    const auto& shape = out.t.shape();
    std::vector<int64_t> batch(shape.begin(), shape.end() - 2);
    const int64_t n = LUt.shape().back(), rows = shape[shape.size() - 2], cols = shape.back();
    const int64_t nb = product(batch);
    auto LU = batchedMatrices(LUt, batch);
    auto B = batchedMatrices(a.tensor(2), batch);
    std::vector<int64_t> pivShape = batch;
    pivShape.push_back(n);
    auto pd = toDoublesBroadcast(Pt, pivShape);
    std::vector<int64_t> piv(pd.size());
    for (size_t i = 0; i < pd.size(); ++i) {
        piv[i] = static_cast<int64_t>(pd[i]);
        if (piv[i] < 1 || piv[i] > n)
            return opError(a, "linalg.lu_solve: pivot " + std::to_string(piv[i]) + " is out of range [1, " +
                                  std::to_string(n) + "]");
    }
    for (int64_t b = 0; b < nb; ++b) {
        double* rhs = B.data() + b * rows * cols;
        const double* f = LU.data() + b * n * n;
        const int64_t* p = piv.data() + b * n;
        if (left) {
            luSolve(f, p, n, rhs, cols, adjoint);
            continue;
        }
        // X·op(M) = B  <=>  op(M)ᵀ·Xᵀ = Bᵀ.
        std::vector<double> t(static_cast<size_t>(rows * cols));
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) t[j * rows + i] = rhs[i * cols + j];
        luSolve(f, p, n, t.data(), rows, !adjoint);
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) rhs[i * cols + j] = t[j * rows + i];
    }
    return Value::ofTensor(makeTensor(out.t.meta, B));
}

// ----- linalg_matrix_exp ----------------------------------------------------------------------

Expected<Value> metaMatrixExp(const OpArgs& a) {
    auto x = linalgTensorArg(a, 0);
    if (!x.ok()) return x.error();
    const Tensor& A = **x;
    if (auto e = checkSquare(a, A, "linalg.matrix_exp")) return *e;
    if (!isFloating(A.dtype()))
        return opError(a, "linalg.matrix_exp: Expected a floating point or complex tensor as input. Got " +
                              std::string(dtypeTorchName(A.dtype())));
    return metaValue(TensorMeta::contiguous(A.shape(), A.dtype(), A.meta.device));
}

void matMul(const std::vector<double>& X, const std::vector<double>& Y, std::vector<double>& Z, int64_t n) {
    Z.assign(static_cast<size_t>(n * n), 0.0);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < n; ++k) {
            const double x = X[i * n + k];
            for (int64_t j = 0; j < n; ++j) Z[i * n + j] += x * Y[k * n + j];
        }
}

/// exp(A) by scaling and squaring: A / 2^s has norm <= 1/2, where a Taylor series reaches double
/// precision in under 20 terms; then s squarings.
std::vector<double> expm(std::vector<double> A, int64_t n) {
    double norm = 0.0;  // the 1-norm (largest column sum)
    for (int64_t j = 0; j < n; ++j) {
        double s = 0.0;
        for (int64_t i = 0; i < n; ++i) s += std::abs(A[i * n + j]);
        norm = std::max(norm, s);
    }
    if (!std::isfinite(norm)) return std::vector<double>(A.size(), std::nan(""));
    int sq = 0;
    if (norm > 0.5) sq = static_cast<int>(std::ceil(std::log2(norm / 0.5)));
    const double scale = std::ldexp(1.0, -sq);
    for (double& v : A) v *= scale;
    std::vector<double> E(A.size(), 0.0), term(A.size(), 0.0), next;
    for (int64_t i = 0; i < n; ++i) E[i * n + i] = term[i * n + i] = 1.0;
    for (int k = 1; k <= 30; ++k) {
        matMul(term, A, next, n);
        double mx = 0.0;
        for (size_t i = 0; i < next.size(); ++i) {
            term[i] = next[i] / k;
            E[i] += term[i];
            mx = std::max(mx, std::abs(term[i]));
        }
        if (mx < 1e-18) break;
    }
    for (int s = 0; s < sq; ++s) {
        matMul(E, E, next, n);
        E.swap(next);
    }
    return E;
}

Expected<Value> matrixExpKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto& s = a.tensor(0).shape();
    const int64_t n = s.back();
    const int64_t nb = n == 0 ? 0 : a.tensor(0).numel() / (n * n);
    auto A = toDoubles(a.tensor(0));
    std::vector<double> R(A.size());
    for (int64_t b = 0; b < nb; ++b) {
        auto e = expm(std::vector<double>(A.begin() + b * n * n, A.begin() + (b + 1) * n * n), n);
        std::copy(e.begin(), e.end(), R.begin() + b * n * n);
    }
    return Value::ofTensor(makeTensor(out.t.meta, R));
}

}  // namespace

void registerLinalgDecompOps(OpRegistry& r) {
    using C = OpCategory;
    r.add("aten.triangular_solve.default",
          "triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, bool unitriangular=False) -> "
          "(Tensor solution, Tensor cloned_coefficient)",
          C::Extern, metaTriangularSolve, triangularSolveKernel);
    r.add("aten._linalg_slogdet.default",
          "_linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet, Tensor LU, Tensor pivots)", C::Extern,
          metaSlogdet, slogdetKernel);
    r.add("aten.linalg_lu_solve.default",
          "linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False) -> Tensor",
          C::Extern, metaLuSolve, luSolveKernel);
    r.add("aten.linalg_matrix_exp.default", "linalg_matrix_exp(Tensor self) -> Tensor", C::Extern, metaMatrixExp,
          matrixExpKernel);
}

}  // namespace fxray
