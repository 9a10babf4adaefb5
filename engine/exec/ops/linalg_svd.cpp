// The singular value decomposition and what is built on it: _linalg_svd (one-sided Jacobi in
// double) and linalg_pinv.atol_rtol_tensor.
//
// Singular vectors are unique only up to a sign per singular pair (and up to a rotation within
// repeated singular values); cuSOLVER and LAPACK make no canonical choice either. fxray flips each
// pair so that the largest-magnitude entry of its left vector is positive. PyTorch's graphs use
// U and Vh together (U·diag(g)·Vh in svd's backward, Vhᴴ·diag(1/S)·Uᴴ in pinv), which the choice
// does not change; U or Vh compared on their own can differ from PyTorch's in sign.
#include "exec/ops/linalg_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace fxray {
using namespace kern;

namespace {

std::optional<Diagnostic> checkMatrix(const OpArgs& a, const Tensor& t, const char* fn) {
    if (t.dim() >= 2) return std::nullopt;
    return opError(a, std::string(fn) + ": The input tensor A must have at least 2 dimensions.");
}

// ----- _linalg_svd ----------------------------------------------------------------------------

Expected<Value> metaSvd(const OpArgs& a) {
    auto x = linalgTensorArg(a, 0);
    if (!x.ok()) return x.error();
    const Tensor& A = **x;
    if (auto e = checkMatrix(a, A, "linalg.svd")) return *e;
    if (auto e = checkFloatingInput(a, A, "linalg.svd")) return *e;
    const bool full = a.toBool(1), uv = a.toBool(2);
    const auto& s = A.shape();
    std::vector<int64_t> batch(s.begin(), s.end() - 2);
    const int64_t m = s[s.size() - 2], n = s.back(), k = std::min(m, n);
    const Device& dev = A.meta.device;
    std::vector<int64_t> sShape = batch;
    sShape.push_back(k);
    Value S = metaValue(TensorMeta::contiguous(sShape, A.dtype(), dev));
    if (!uv) {
        Value empty = metaValue(TensorMeta::contiguous({0}, A.dtype(), dev));
        return Value::ofList({empty, S, empty}, true);
    }
    std::vector<int64_t> uShape = batch, vShape = batch;
    uShape.insert(uShape.end(), {m, full ? m : k});
    vShape.insert(vShape.end(), {full ? n : k, n});
    TensorMeta U = TensorMeta::contiguous(uShape, A.dtype(), dev);
    U.strides = columnMajorBatchStrides(uShape);
    // The meta function gives Vh row-major strides on CUDA (cuSOLVER writes it so), column-major
    // elsewhere.
    TensorMeta V = TensorMeta::contiguous(vShape, A.dtype(), dev);
    if (dev.type != "cuda") V.strides = columnMajorBatchStrides(vShape);
    return Value::ofList({metaValue(U), S, metaValue(V)}, true);
}

Expected<Value> svdKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    const bool full = a.toBool(1), uv = a.toBool(2);
    const auto& s = in.shape();
    const int64_t m = s[s.size() - 2], n = s.back();
    const int64_t nb = product(std::vector<int64_t>(s.begin(), s.end() - 2));
    auto A = toDoubles(in);
    std::vector<double> U, S, Vh;
    for (int64_t b = 0; b < nb; ++b) {
        Svd r = svdDecompose(std::vector<double>(A.begin() + b * m * n, A.begin() + (b + 1) * m * n), m, n, full);
        S.insert(S.end(), r.S.begin(), r.S.end());
        if (!uv) continue;
        U.insert(U.end(), r.U.begin(), r.U.end());
        Vh.insert(Vh.end(), r.Vh.begin(), r.Vh.end());
    }
    return Value::ofList({Value::ofTensor(makeTensor(out.list[0].t.meta, U)),
                          Value::ofTensor(makeTensor(out.list[1].t.meta, S)),
                          Value::ofTensor(makeTensor(out.list[2].t.meta, Vh))},
                         true);
}

// ----- linalg_pinv ----------------------------------------------------------------------------

/// A tolerance argument (atol/rtol): None, or a real tensor broadcasting to the batch shape.
std::optional<Diagnostic> checkTolerance(const OpArgs& a, size_t i, const std::vector<int64_t>& batch) {
    if (a.isNone(i)) return std::nullopt;
    const std::string& name = a.op().schema.args[i].name;
    if (!a.isTensor(i)) return opError(a, "argument '" + name + "' must be a tensor, got " + a[i].describe());
    const Tensor& t = a.tensor(i);
    if (isComplex(t.dtype())) return opError(a, "linalg.pinv: " + name + " tensor of complex type is not supported.");
    auto b = broadcastShapes(t.shape(), batch);
    if (!b || *b != batch)
        return opError(a, "linalg.pinv: " + name + " of shape " + linalgShapeStr(t.shape()) +
                              " does not broadcast to the batch shape " + linalgShapeStr(batch));
    return std::nullopt;
}

Expected<Value> metaPinv(const OpArgs& a) {
    auto x = linalgTensorArg(a, 0);
    if (!x.ok()) return x.error();
    const Tensor& A = **x;
    if (auto e = checkMatrix(a, A, "linalg.pinv")) return *e;
    if (auto e = checkFloatingInput(a, A, "linalg.pinv")) return *e;
    if (a.toBool(3))
        if (auto e = checkSquare(a, A, "linalg.pinv")) return *e;
    const auto& s = A.shape();
    std::vector<int64_t> batch(s.begin(), s.end() - 2);
    for (size_t i : {size_t(1), size_t(2)})
        if (auto e = checkTolerance(a, i, batch)) return *e;
    std::vector<int64_t> shape = batch;
    shape.insert(shape.end(), {s.back(), s[s.size() - 2]});
    return metaValue(TensorMeta::contiguous(shape, A.dtype(), A.meta.device));
}

double machineEps(DType t) {
    return t == DType::Float64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
}

Expected<Value> pinvKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    const auto& s = in.shape();
    const int64_t m = s[s.size() - 2], n = s.back();
    std::vector<int64_t> batch(s.begin(), s.end() - 2);
    const int64_t nb = product(batch);
    const bool hermitian = a.toBool(3);
    // get_atol_rtol: atol defaults to 0; rtol to eps·max(m, n), or to 0 where a positive atol is given.
    std::vector<double> atol(static_cast<size_t>(nb), 0.0), rtol;
    if (!a.isNone(1)) atol = toDoublesBroadcast(a.tensor(1), batch);
    if (!a.isNone(2)) {
        rtol = toDoublesBroadcast(a.tensor(2), batch);
    } else {
        const double dflt = machineEps(in.dtype()) * static_cast<double>(std::max(m, n));
        rtol.assign(static_cast<size_t>(nb), dflt);
        if (!a.isNone(1))
            for (int64_t b = 0; b < nb; ++b) rtol[b] = atol[b] > 0 ? 0.0 : dflt;
    }
    auto A = toDoubles(in);
    std::vector<double> R(static_cast<size_t>(nb * n * m), 0.0);
    for (int64_t b = 0; b < nb; ++b) {
        std::vector<double> mat(A.begin() + b * m * n, A.begin() + (b + 1) * m * n);
        if (hermitian)  // eigh reads the lower triangle only
            for (int64_t i = 0; i < n; ++i)
                for (int64_t j = i + 1; j < n; ++j) mat[i * n + j] = mat[j * n + i];
        Svd r = svdDecompose(mat, m, n, false);
        const int64_t k = std::min(m, n);
        const double smax = k > 0 ? r.S[0] : 0.0;
        const double tol = std::max(atol[b], rtol[b] * smax);
        double* dst = R.data() + b * n * m;
        for (int64_t l = 0; l < k; ++l) {
            if (!(r.S[l] > tol)) continue;
            const double inv = 1.0 / r.S[l];
            for (int64_t i = 0; i < n; ++i)
                for (int64_t j = 0; j < m; ++j) dst[i * m + j] += r.Vh[l * n + i] * inv * r.U[j * k + l];
        }
    }
    return Value::ofTensor(makeTensor(out.t.meta, R));
}

}  // namespace

void registerLinalgSvdOps(OpRegistry& r) {
    using C = OpCategory;
    r.add("aten._linalg_svd.default",
          "_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? driver=None) -> "
          "(Tensor U, Tensor S, Tensor Vh)",
          C::Extern, metaSvd, svdKernel);
    r.add("aten.linalg_pinv.atol_rtol_tensor",
          "linalg_pinv.atol_rtol_tensor(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, bool hermitian=False) -> "
          "Tensor",
          C::Extern, metaPinv, pinvKernel);
}

}  // namespace fxray
