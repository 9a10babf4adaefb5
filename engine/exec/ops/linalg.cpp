// Matrix products: mm, bmm, addmm, baddbmm, addbmm, addmv, addr, dot, vdot, mv, matmul, linear;
// also block_diag and linalg_cross. Outputs are dense row-major (PyTorch's meta functions
// allocate them with new_empty, and matmul/linear compose those ops), in the operands' dtype. Products accumulate in double through the shared GEMM and
// round once to the output dtype.
#include "exec/ops/gemm.h"
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <string>

namespace fxray {
using namespace kern;

namespace {

bool symbolic(const TensorMeta& m) { return m.hasUnboundSizes(); }

/// The tensor at i, or an error naming the argument when it is a number or symbolic.
Expected<const Tensor*> tensorArg(const OpArgs& a, size_t i) {
    const std::string& name = a.op().schema.args[i].name;
    if (!a.isTensor(i)) return opError(a, "argument '" + name + "' must be a tensor, got " + a[i].describe());
    if (symbolic(a.tensor(i).meta)) return opError(a, "symbolic shapes are not supported");
    return &a.tensor(i);
}

Value denseOut(std::vector<int64_t> shape, DType dt, const Device& dev) {
    return metaValue(TensorMeta::contiguous(std::move(shape), dt, dev));
}

/// Same-dtype rule of the BLAS ops ("expected m1 and m2 to have the same dtype").
std::optional<Diagnostic> sameDtype(const OpArgs& a, const Tensor& x, const Tensor& y) {
    if (x.dtype() == y.dtype()) return std::nullopt;
    return opError(a, std::string("expected both operands to have the same dtype, but got ") +
                          std::string(dtypeTorchName(x.dtype())) + " and " + std::string(dtypeTorchName(y.dtype())));
}

/// out[b] = A[b]·B[b] for `batch` row-major matrices stored back to back.
std::vector<double> batchedProduct(const std::vector<double>& A, const std::vector<double>& B, int64_t batch, int64_t M,
                                   int64_t K, int64_t N) {
    std::vector<double> C(static_cast<size_t>(batch * M * N));
    for (int64_t b = 0; b < batch; ++b)
        gemm(M, N, K, MatView{A.data() + b * M * K, K, 1}, MatView{B.data() + b * K * N, N, 1}, C.data() + b * M * N,
             N);
    return C;
}

/// beta * self + alpha * prod, self (tensor or number) broadcast to the output's shape. beta == 0
/// ignores self entirely (NaN/inf in it do not propagate), as BLAS and PyTorch do.
void addScaled(const OpArgs& a, size_t selfIdx, const std::vector<int64_t>& shape, double beta, double alpha,
               std::vector<double>& prod) {
    if (alpha != 1.0)
        for (double& v : prod) v *= alpha;
    if (beta == 0.0) return;
    if (!a.isTensor(selfIdx)) {
        const double s = beta * a.toDouble(selfIdx);
        for (double& v : prod) v += s;
        return;
    }
    auto self = toDoublesBroadcast(a.tensor(selfIdx), shape);
    for (size_t i = 0; i < prod.size(); ++i) prod[i] += beta * self[i];
}

/// Checks that `self` (tensor or number) broadcasts to `shape` as addmm's bias must.
std::optional<Diagnostic> checkBias(const OpArgs& a, size_t i, const std::vector<int64_t>& shape) {
    if (!a.isTensor(i)) return std::nullopt;
    const auto& s = a.tensor(i).shape();
    auto b = broadcastShapes(s, shape);
    if (!b || *b != shape)
        return opError(a,
                       "self of shape " + shapeStr(s) + " cannot be broadcast to the result shape " + shapeStr(shape));
    return std::nullopt;
}

// ----- mm / bmm / addmm / baddbmm -------------------------------------------------------------

/// Shape rules of mm over the arguments at i, j (mm: 0, 1; addmm: 1, 2).
Expected<Value> mmShape(const OpArgs& a, size_t i, size_t j) {
    auto x = tensorArg(a, i);
    if (!x.ok()) return x.error();
    auto y = tensorArg(a, j);
    if (!y.ok()) return y.error();
    const Tensor& m1 = **x;
    const Tensor& m2 = **y;
    if (m1.dim() != 2 || m2.dim() != 2)
        return opError(a, "expects 2-D matrices, got " + shapeStr(m1.shape()) + " and " + shapeStr(m2.shape()));
    if (m1.shape()[1] != m2.shape()[0])
        return opError(a, "mat1 and mat2 shapes cannot be multiplied (" + std::to_string(m1.shape()[0]) + "x" +
                              std::to_string(m1.shape()[1]) + " and " + std::to_string(m2.shape()[0]) + "x" +
                              std::to_string(m2.shape()[1]) + ")");
    if (auto e = sameDtype(a, m1, m2)) return *e;
    return denseOut({m1.shape()[0], m2.shape()[1]}, m1.dtype(), m1.meta.device);
}

Expected<Value> mmKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& m1 = a.tensor(0);
    const Tensor& m2 = a.tensor(1);
    auto C = batchedProduct(toDoubles(m1), toDoubles(m2), 1, m1.shape()[0], m1.shape()[1], m2.shape()[1]);
    return Value::ofTensor(makeTensor(out.t.meta, C));
}

Expected<Value> bmmShape(const OpArgs& a, size_t i, size_t j) {
    auto x = tensorArg(a, i);
    if (!x.ok()) return x.error();
    auto y = tensorArg(a, j);
    if (!y.ok()) return y.error();
    const Tensor& b1 = **x;
    const Tensor& b2 = **y;
    if (b1.dim() != 3 || b2.dim() != 3)
        return opError(a, "expects 3-D tensors, got " + shapeStr(b1.shape()) + " and " + shapeStr(b2.shape()));
    if (b1.shape()[0] != b2.shape()[0] || b1.shape()[2] != b2.shape()[1])
        return opError(a, "batch shapes " + shapeStr(b1.shape()) + " and " + shapeStr(b2.shape()) +
                              " cannot be multiplied");
    if (auto e = sameDtype(a, b1, b2)) return *e;
    return denseOut({b1.shape()[0], b1.shape()[1], b2.shape()[2]}, b1.dtype(), b1.meta.device);
}

Expected<Value> bmmKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto& s1 = a.tensor(0).shape();
    const auto& s2 = a.tensor(1).shape();
    auto C = batchedProduct(toDoubles(a.tensor(0)), toDoubles(a.tensor(1)), s1[0], s1[1], s1[2], s2[2]);
    return Value::ofTensor(makeTensor(out.t.meta, C));
}

/// addmm / baddbmm / addmv: the product of args 1, 2 plus a broadcastable self (arg 0).
template <Expected<Value> (*ProductShape)(const OpArgs&, size_t, size_t)>
Expected<Value> metaAddProduct(const OpArgs& a) {
    auto m = ProductShape(a, 1, 2);
    if (!m.ok()) return m;
    if (a.isTensor(0) && symbolic(a.tensor(0).meta)) return opError(a, "symbolic shapes are not supported");
    if (auto e = checkBias(a, 0, m->t.shape())) return *e;
    return m;
}

template <Expected<Value> (*ProductShape)(const OpArgs&, size_t, size_t)>
Expected<Value> metaProduct(const OpArgs& a) {
    return ProductShape(a, 0, 1);
}

Expected<Value> addmmKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& m1 = a.tensor(1);
    const Tensor& m2 = a.tensor(2);
    auto C = batchedProduct(toDoubles(m1), toDoubles(m2), 1, m1.shape()[0], m1.shape()[1], m2.shape()[1]);
    addScaled(a, 0, out.t.shape(), a.toDouble(3), a.toDouble(4), C);
    return Value::ofTensor(makeTensor(out.t.meta, C));
}

Expected<Value> baddbmmKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto& s1 = a.tensor(1).shape();
    const auto& s2 = a.tensor(2).shape();
    auto C = batchedProduct(toDoubles(a.tensor(1)), toDoubles(a.tensor(2)), s1[0], s1[1], s1[2], s2[2]);
    addScaled(a, 0, out.t.shape(), a.toDouble(3), a.toDouble(4), C);
    return Value::ofTensor(makeTensor(out.t.meta, C));
}

// ----- dot / mv / addmv -----------------------------------------------------------------------

Expected<Value> metaDot(const OpArgs& a) {
    auto x = tensorArg(a, 0);
    if (!x.ok()) return x.error();
    auto y = tensorArg(a, 1);
    if (!y.ok()) return y.error();
    const Tensor& v1 = **x;
    const Tensor& v2 = **y;
    if (v1.dim() != 1 || v2.dim() != 1)
        return opError(a, "1D tensors expected, but got " + std::to_string(v1.dim()) + "D and " +
                              std::to_string(v2.dim()) + "D tensors");
    if (v1.numel() != v2.numel())
        return opError(a, "inconsistent tensor size, expected tensor " + shapeStr(v1.shape()) + " and src " +
                              shapeStr(v2.shape()) + " to have the same number of elements");
    if (auto e = sameDtype(a, v1, v2)) return *e;
    return denseOut({}, v1.dtype(), v1.meta.device);
}

Expected<Value> dotKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto x = toDoubles(a.tensor(0));
    auto y = toDoubles(a.tensor(1));
    double s = 0.0;
    for (size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
    return Value::ofTensor(makeTensor(out.t.meta, {s}));
}

Expected<Value> mvShape(const OpArgs& a, size_t i, size_t j) {
    auto x = tensorArg(a, i);
    if (!x.ok()) return x.error();
    auto y = tensorArg(a, j);
    if (!y.ok()) return y.error();
    const Tensor& m = **x;
    const Tensor& v = **y;
    if (m.dim() != 2 || v.dim() != 1)
        return opError(a,
                       "vector + matrix @ vector expected, got " + shapeStr(m.shape()) + " and " + shapeStr(v.shape()));
    if (m.shape()[1] != v.shape()[0])
        return opError(a, "size mismatch, got input (" + std::to_string(m.shape()[0]) + "), mat (" +
                              std::to_string(m.shape()[0]) + "x" + std::to_string(m.shape()[1]) + "), vec (" +
                              std::to_string(v.shape()[0]) + ")");
    if (auto e = sameDtype(a, m, v)) return *e;
    return denseOut({m.shape()[0]}, m.dtype(), m.meta.device);
}

std::vector<double> matVec(const Tensor& m, const Tensor& v) {
    auto A = toDoubles(m);
    auto x = toDoubles(v);
    const int64_t rows = m.shape()[0], cols = m.shape()[1];
    std::vector<double> y(static_cast<size_t>(rows), 0.0);
    for (int64_t i = 0; i < rows; ++i) {
        double s = 0.0;
        for (int64_t k = 0; k < cols; ++k) s += A[i * cols + k] * x[k];
        y[i] = s;
    }
    return y;
}

Expected<Value> mvKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return Value::ofTensor(makeTensor(out.t.meta, matVec(a.tensor(0), a.tensor(1))));
}

Expected<Value> addmvKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto y = matVec(a.tensor(1), a.tensor(2));
    addScaled(a, 0, out.t.shape(), a.toDouble(3), a.toDouble(4), y);
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

// ----- matmul ---------------------------------------------------------------------------------

/// torch.matmul's shape logic: 1-D operands get a unit dim that the result then drops; batch
/// dims broadcast.
struct MatmulPlan {
    std::vector<int64_t> batch;           ///< broadcast batch shape
    std::vector<int64_t> batch1, batch2;  ///< each operand's batch shape, left-padded with 1s
    int64_t n = 0, k = 0, p = 0;
    std::vector<int64_t> outShape;
};

Expected<MatmulPlan> planMatmul(const OpArgs& a, const TensorMeta& t1, const TensorMeta& t2) {
    const int64_t d1 = t1.dim(), d2 = t2.dim();
    if (d1 == 0 || d2 == 0)
        return opError(a, "both arguments to matmul need to be at least 1D, but they are " + std::to_string(d1) +
                              "D and " + std::to_string(d2) + "D");
    MatmulPlan p;
    p.n = d1 == 1 ? 1 : t1.shape[d1 - 2];
    p.k = t1.shape[d1 - 1];
    const int64_t k2 = d2 == 1 ? t2.shape[0] : t2.shape[d2 - 2];
    p.p = d2 == 1 ? 1 : t2.shape[d2 - 1];
    if (p.k != k2)
        return opError(a, "shapes " + shapeStr(t1.shape) + " and " + shapeStr(t2.shape) + " cannot be multiplied (" +
                              std::to_string(p.k) + " != " + std::to_string(k2) + ")");
    std::vector<int64_t> b1(t1.shape.begin(), t1.shape.end() - std::min<int64_t>(d1, 2));
    std::vector<int64_t> b2(t2.shape.begin(), t2.shape.end() - std::min<int64_t>(d2, 2));
    auto b = broadcastShapes(b1, b2);
    if (!b)
        return opError(a, "batch dimensions of " + shapeStr(t1.shape) + " and " + shapeStr(t2.shape) +
                              " do not broadcast");
    p.batch = *b;
    p.batch1.assign(p.batch.size() - b1.size(), 1);
    p.batch1.insert(p.batch1.end(), b1.begin(), b1.end());
    p.batch2.assign(p.batch.size() - b2.size(), 1);
    p.batch2.insert(p.batch2.end(), b2.begin(), b2.end());
    p.outShape = p.batch;
    if (d1 > 1) p.outShape.push_back(p.n);
    if (d2 > 1) p.outShape.push_back(p.p);
    return p;
}

Expected<Value> metaMatmul(const OpArgs& a) {
    auto x = tensorArg(a, 0);
    if (!x.ok()) return x.error();
    auto y = tensorArg(a, 1);
    if (!y.ok()) return y.error();
    auto plan = planMatmul(a, (*x)->meta, (*y)->meta);
    if (!plan.ok()) return plan.error();
    if (auto e = sameDtype(a, **x, **y)) return *e;
    return denseOut(plan->outShape, (*x)->dtype(), (*x)->meta.device);
}

/// Offset (in matrices) of output batch index `flat` inside an operand whose batch shape `own`
/// broadcasts to `batch`.
int64_t batchOffset(int64_t flat, const std::vector<int64_t>& batch, const std::vector<int64_t>& own) {
    int64_t off = 0, mul = 1;
    for (size_t d = batch.size(); d-- > 0;) {
        const int64_t idx = flat % batch[d];
        flat /= batch[d];
        if (own[d] != 1) off += idx * mul;
        mul *= own[d];
    }
    return off;
}

Expected<Value> matmulKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto plan = planMatmul(a, a.tensor(0).meta, a.tensor(1).meta);
    if (!plan.ok()) return plan.error();
    const MatmulPlan& p = *plan;
    auto A = toDoubles(a.tensor(0));  // [batch1..., n, k] (n == 1 for a 1-D operand)
    auto B = toDoubles(a.tensor(1));  // [batch2..., k, p]; a 1-D operand is k×1 as stored
    const int64_t nb = product(p.batch);
    std::vector<double> C(static_cast<size_t>(nb * p.n * p.p));
    for (int64_t b = 0; b < nb; ++b) {
        const double* ab = A.data() + batchOffset(b, p.batch, p.batch1) * p.n * p.k;
        const double* bb = B.data() + batchOffset(b, p.batch, p.batch2) * p.k * p.p;
        gemm(p.n, p.p, p.k, MatView{ab, p.k, 1}, MatView{bb, p.p, 1}, C.data() + b * p.n * p.p, p.p);
    }
    return Value::ofTensor(makeTensor(out.t.meta, C));
}

// ----- linear ---------------------------------------------------------------------------------

Expected<Value> metaLinear(const OpArgs& a) {
    auto x = tensorArg(a, 0);
    if (!x.ok()) return x.error();
    auto w = tensorArg(a, 1);
    if (!w.ok()) return w.error();
    const Tensor& in = **x;
    const Tensor& wt = **w;
    if (in.dim() == 0) return opError(a, "input must be at least 1-D");
    if (wt.dim() != 2 && wt.dim() != 1) return opError(a, "weight must be 1-D or 2-D, got " + shapeStr(wt.shape()));
    const int64_t inF = in.shape().back();
    const int64_t wIn = wt.shape().back();
    if (inF != wIn)
        return opError(a, "input shape " + shapeStr(in.shape()) + " and weight shape " + shapeStr(wt.shape()) +
                              " cannot be multiplied (" + std::to_string(inF) + " != " + std::to_string(wIn) + ")");
    if (auto e = sameDtype(a, in, wt)) return *e;
    std::vector<int64_t> shape(in.shape().begin(), in.shape().end() - 1);
    if (wt.dim() == 2) shape.push_back(wt.shape()[0]);
    if (!a.isNone(2)) {
        if (a.isTensor(2) && symbolic(a.tensor(2).meta)) return opError(a, "symbolic shapes are not supported");
        if (auto e = checkBias(a, 2, shape)) return *e;
    }
    return denseOut(std::move(shape), in.dtype(), in.meta.device);
}

Expected<Value> linearKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& in = a.tensor(0);
    const Tensor& wt = a.tensor(1);
    const int64_t K = in.shape().back();
    const int64_t M = K == 0 ? product(in.shape()) : in.numel() / K;
    const int64_t N = wt.dim() == 2 ? wt.shape()[0] : 1;
    auto X = toDoubles(in);
    auto W = toDoubles(wt);  // [N, K]: read transposed
    std::vector<double> C(static_cast<size_t>(M * N));
    gemm(M, N, K, MatView{X.data(), K, 1}, MatView{W.data(), 1, K}, C.data(), N);
    if (!a.isNone(2)) addScaled(a, 2, out.t.shape(), 1.0, 1.0, C);
    return Value::ofTensor(makeTensor(out.t.meta, C));
}

// ----- addbmm / addr / vdot -------------------------------------------------------------------

/// addbmm(self, batch1, batch2): the bmm's products summed over the batch, [n, p].
Expected<Value> metaAddbmm(const OpArgs& a) {
    auto m = bmmShape(a, 1, 2);
    if (!m.ok()) return m;
    const auto& s = m->t.shape();
    std::vector<int64_t> shape{s[1], s[2]};
    if (a.isTensor(0) && symbolic(a.tensor(0).meta)) return opError(a, "symbolic shapes are not supported");
    if (auto e = checkBias(a, 0, shape)) return *e;
    if (auto e = sameDtype(a, a.tensor(0), a.tensor(1))) return *e;
    return denseOut(std::move(shape), a.tensor(1).dtype(), a.tensor(1).meta.device);
}

Expected<Value> addbmmKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto& s1 = a.tensor(1).shape();
    const auto& s2 = a.tensor(2).shape();
    const int64_t n = s1[1], p = s2[2];
    auto P = batchedProduct(toDoubles(a.tensor(1)), toDoubles(a.tensor(2)), s1[0], n, s1[2], p);
    std::vector<double> C(static_cast<size_t>(n * p), 0.0);
    for (int64_t b = 0; b < s1[0]; ++b)
        for (int64_t i = 0; i < n * p; ++i) C[i] += P[b * n * p + i];
    addScaled(a, 0, out.t.shape(), a.toDouble(3), a.toDouble(4), C);
    return Value::ofTensor(makeTensor(out.t.meta, C));
}

/// addr(self, vec1, vec2): beta·self + alpha·outer(vec1, vec2), a TensorIterator over self
/// (expanded), vec1 as a column and vec2; all three of one dtype.
Expected<Value> metaAddr(const OpArgs& a) {
    auto x = tensorArg(a, 1);
    if (!x.ok()) return x.error();
    auto y = tensorArg(a, 2);
    if (!y.ok()) return y.error();
    const Tensor& v1 = **x;
    const Tensor& v2 = **y;
    if (v1.dim() != 1 || v2.dim() != 1)
        return opError(a, "addr: Expected 1-D arguments vec1 and vec2, but got " + std::to_string(v1.dim()) +
                              "-D and " + std::to_string(v2.dim()) + "-D");
    std::vector<int64_t> shape{v1.shape()[0], v2.shape()[0]};
    auto self = tensorArg(a, 0);
    if (!self.ok()) return self.error();
    if (auto e = checkBias(a, 0, shape)) return *e;
    if (auto e = sameDtype(a, v1, v2)) return *e;
    if (auto e = sameDtype(a, **self, v1)) return *e;
    TensorMeta col = v1.meta;  // vec1.reshape({n, 1})
    col.shape = {v1.shape()[0], 1};
    col.strides = {v1.strides().empty() ? 1 : v1.strides()[0], 1};
    TensorMeta m = TensorMeta::contiguous(shape, v1.dtype(), v1.meta.device);
    m.strides = pointwiseStrides(shape, {&(*self)->meta, &col, &v2.meta});
    return metaValue(std::move(m));
}

Expected<Value> addrKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto x = toDoubles(a.tensor(1));
    auto y = toDoubles(a.tensor(2));
    const double beta = a.toDouble(3), alpha = a.toDouble(4);
    const size_t n = x.size(), p = y.size();
    std::vector<double> C(n * p);
    if (out.t.dtype() == DType::Bool) {
        // Bool addr is logical: (beta and self) or (alpha and vec1 and vec2).
        auto self = toDoublesBroadcast(a.tensor(0), out.t.shape());
        for (size_t i = 0; i < n; ++i)
            for (size_t j = 0; j < p; ++j)
                C[i * p + j] = (beta != 0 && self[i * p + j] != 0) || (alpha != 0 && x[i] != 0 && y[j] != 0);
        return Value::ofTensor(makeTensor(out.t.meta, C));
    }
    for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < p; ++j) C[i * p + j] = x[i] * y[j];
    addScaled(a, 0, out.t.shape(), beta, alpha, C);
    return Value::ofTensor(makeTensor(out.t.meta, C));
}

// ----- block_diag -----------------------------------------------------------------------------

Expected<Value> metaBlockDiag(const OpArgs& a) {
    const auto& items = a[0].list;
    if (items.empty()) return denseOut({1, 0}, DType::Float32, {});
    std::vector<const Value*> ops;
    int64_t rows = 0, cols = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        if (!items[i].isTensor()) return opError(a, "tensors[" + std::to_string(i) + "] is not a tensor");
        const TensorMeta& m = items[i].t.meta;
        if (symbolic(m)) return opError(a, "symbolic shapes are not supported");
        if (m.dim() > 2)
            return opError(a, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input " +
                                  std::to_string(i) + " has " + std::to_string(m.dim()) + " dimensions");
        if (!(m.device == items[0].t.meta.device))
            return opError(a, "torch.block_diag: input tensors must all be on the same device. Input 0 is on device " +
                                  items[0].t.meta.device.str() + " and input " + std::to_string(i) + " is on device " +
                                  m.device.str());
        rows += m.dim() == 2 ? m.shape[0] : 1;
        cols += m.dim() == 2 ? m.shape[1] : m.dim() == 1 ? m.shape[0] : 1;
        ops.push_back(&items[i]);
    }
    return denseOut({rows, cols}, resultType(ops), items[0].t.meta.device);
}

Expected<Value> blockDiagKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const int64_t cols = out.t.shape()[1];
    std::vector<double> C(static_cast<size_t>(out.t.numel()), 0.0);
    int64_t r0 = 0, c0 = 0;
    for (const auto& v : a[0].list) {
        const TensorMeta& m = v.t.meta;
        const int64_t h = m.dim() == 2 ? m.shape[0] : 1;
        const int64_t w = m.dim() == 2 ? m.shape[1] : m.dim() == 1 ? m.shape[0] : 1;
        auto vals = toDoubles(v.t);
        for (int64_t i = 0; i < h; ++i)
            for (int64_t j = 0; j < w; ++j) C[(r0 + i) * cols + c0 + j] = vals[i * w + j];
        r0 += h;
        c0 += w;
    }
    return Value::ofTensor(makeTensor(out.t.meta, C));
}

// ----- linalg_cross ---------------------------------------------------------------------------

Expected<Value> metaCross(const OpArgs& a) {
    auto x = tensorArg(a, 0);
    if (!x.ok()) return x.error();
    auto y = tensorArg(a, 1);
    if (!y.ok()) return y.error();
    const Tensor& in = **x;
    const Tensor& other = **y;
    if (in.dim() != other.dim()) return opError(a, "linalg.cross: inputs must have the same number of dimensions.");
    auto dim = wrapDim(a.toInt(2), in.dim());
    if (!dim || in.dim() == 0)
        return opError(a, "Dimension out of range (expected to be in range of [" + std::to_string(-in.dim()) + ", " +
                              std::to_string(in.dim() - 1) + "], but got " + std::to_string(a.toInt(2)) + ")");
    if (in.shape()[*dim] != 3 || other.shape()[*dim] != 3)
        return opError(a, "linalg.cross: inputs dimension " + std::to_string(a.toInt(2)) + " must have length 3. Got " +
                              std::to_string(in.shape()[*dim]) + " and " + std::to_string(other.shape()[*dim]));
    auto shape = broadcastShapes(in.shape(), other.shape());
    if (!shape)
        return opError(a, "linalg.cross: the shapes " + shapeStr(in.shape()) + " and " + shapeStr(other.shape()) +
                              " do not broadcast");
    if (auto e = sameDtype(a, in, other)) return *e;
    return denseOut(*shape, in.dtype(), in.meta.device);
}

Expected<Value> crossKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const auto& shape = out.t.shape();
    const int64_t dim = *wrapDim(a.toInt(2), static_cast<int64_t>(shape.size()));
    auto X = toDoublesBroadcast(a.tensor(0), shape);
    auto Y = toDoublesBroadcast(a.tensor(1), shape);
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(dim) + 1; d < shape.size(); ++d) inner *= shape[d];
    const int64_t outer = product(shape) / (3 * inner);
    std::vector<double> C(X.size());
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            const int64_t base = o * 3 * inner + i;
            auto x = [&](int k) { return X[base + k * inner]; };
            auto y = [&](int k) { return Y[base + k * inner]; };
            C[base] = x(1) * y(2) - x(2) * y(1);
            C[base + inner] = x(2) * y(0) - x(0) * y(2);
            C[base + 2 * inner] = x(0) * y(1) - x(1) * y(0);
        }
    return Value::ofTensor(makeTensor(out.t.meta, C));
}

}  // namespace

void registerLinalgOps(OpRegistry& r) {
    r.add("aten.mm.default", "mm(Tensor self, Tensor mat2) -> Tensor", OpCategory::Extern, metaProduct<mmShape>,
          mmKernel);
    r.add("aten.bmm.default", "bmm(Tensor self, Tensor mat2) -> Tensor", OpCategory::Extern, metaProduct<bmmShape>,
          bmmKernel);
    r.add("aten.addmm.default",
          "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
          OpCategory::Extern, metaAddProduct<mmShape>, addmmKernel);
    r.add("aten.baddbmm.default",
          "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
          OpCategory::Extern, metaAddProduct<bmmShape>, baddbmmKernel);
    r.add("aten.addmv.default",
          "addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor", OpCategory::Extern,
          metaAddProduct<mvShape>, addmvKernel);
    r.add("aten.addbmm.default",
          "addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
          OpCategory::Extern, metaAddbmm, addbmmKernel);
    r.add("aten.addr.default",
          "addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", OpCategory::Extern,
          metaAddr, addrKernel);
    r.add("aten.dot.default", "dot(Tensor self, Tensor tensor) -> Tensor", OpCategory::Extern, metaDot, dotKernel);
    // vdot conjugates self; on real dtypes (fxray has no complex ones) it is dot.
    r.add("aten.vdot.default", "vdot(Tensor self, Tensor other) -> Tensor", OpCategory::Extern, metaDot, dotKernel);
    r.add("aten.block_diag.default", "block_diag(Tensor[] tensors) -> Tensor", OpCategory::Other, metaBlockDiag,
          blockDiagKernel);
    r.add("aten.linalg_cross.default", "linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor",
          OpCategory::Extern, metaCross, crossKernel);
    r.add("aten.mv.default", "mv(Tensor self, Tensor vec) -> Tensor", OpCategory::Extern, metaProduct<mvShape>,
          mvKernel);
    r.add("aten.matmul.default", "matmul(Tensor self, Tensor other) -> Tensor", OpCategory::Extern, metaMatmul,
          matmulKernel);
    r.add("aten.linear.default", "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", OpCategory::Extern,
          metaLinear, linearKernel);
}

}  // namespace fxray
