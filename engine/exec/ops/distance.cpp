// Pairwise distances between the rows of a matrix (torch.nn.functional.pdist): _pdist_forward and
// _pdist_backward. Pairs (i, j), i < j, are in row-major order of the upper triangle. Between the
// rows of two (batched) matrices (torch.cdist): _cdist_forward and _cdist_backward.
#include "exec/ops/distance.h"
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace fxray {
using namespace kern;
using namespace nn;

namespace {

double signOf(double v) { return double((v > 0.0) - (v < 0.0)); }

/// Checks a pdist input (2-D floating, p >= 0).
std::optional<Diagnostic> checkPdist(const OpArgs& a, const Tensor& x, double p) {
    if (x.dim() != 2) return opError(a, "pdist only supports 2D tensors, got: " + std::to_string(x.dim()) + "D");
    if (!isFloating(x.dtype())) return opError(a, "pdist only supports floating-point dtypes");
    if (!(p >= 0.0)) return opError(a, "pdist only supports non-negative p values");
    return std::nullopt;
}

// _pdist_forward(self, p=2)
Expected<Value> metaPdist(const OpArgs& a) {
    auto x = reqTensor(a, 0);
    if (!x.ok()) return x.error();
    if (auto e = checkPdist(a, **x, a.toDouble(1))) return *e;
    const int64_t n = (*x)->shape()[0];
    return metaValue(TensorMeta::contiguous({n > 1 ? n * (n - 1) / 2 : 0}, (*x)->dtype(), (*x)->meta.device));
}

Expected<Value> pdistKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& xt = a.tensor(0);
    const double p = a.toDouble(1);
    const int64_t n = xt.shape()[0], m = xt.shape()[1];
    auto x = toDoubles(xt);
    std::vector<double> y;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = i + 1; j < n; ++j) {
            double acc = 0.0;
            for (int64_t c = 0; c < m; ++c) {
                const double d = std::fabs(x[static_cast<size_t>(i * m + c)] - x[static_cast<size_t>(j * m + c)]);
                if (p == 0.0)
                    acc += d != 0.0 ? 1.0 : 0.0;
                else if (std::isinf(p))
                    acc = std::isnan(d) || d > acc ? d : acc;
                else if (p == 1.0)
                    acc += d;
                else if (p == 2.0)
                    acc += d * d;
                else
                    acc += std::pow(d, p);
            }
            if (p == 2.0)
                acc = std::sqrt(acc);
            else if (p != 0.0 && p != 1.0 && !std::isinf(p))
                acc = std::pow(acc, 1.0 / p);
            y.push_back(acc);
        }
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

// _pdist_backward(grad, self, p, pdist)
Expected<Value> metaPdistBackward(const OpArgs& a) {
    auto g = reqTensor(a, 0);
    if (!g.ok()) return g.error();
    auto x = reqTensor(a, 1);
    if (!x.ok()) return x.error();
    auto d = reqTensor(a, 3);
    if (!d.ok()) return d.error();
    if (auto e = checkPdist(a, **x, a.toDouble(2))) return *e;
    const int64_t n = (*x)->shape()[0];
    const int64_t pairs = n > 1 ? n * (n - 1) / 2 : 0;
    if ((*g)->numel() != pairs || (*d)->numel() != pairs)
        return opError(a, "grad and pdist must have " + std::to_string(pairs) + " elements (one per pair of rows)");
    return metaValue(TensorMeta::contiguous((*x)->shape(), (*x)->dtype(), (*x)->meta.device));
}

Expected<Value> pdistBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& xt = a.tensor(1);
    const int64_t n = xt.shape()[0], m = xt.shape()[1];
    return Value::ofTensor(
        makeTensor(out.t.meta, pdistBackwardValues(toDoubles(xt), toDoubles(a.tensor(0)), toDoubles(a.tensor(3)), n, m,
                                                   a.toDouble(2), xt.dtype())));
}

/// [*, P, M] and [*, R, M] with equal batch dims (or batch dims broadcast to one shape): the
/// broadcast batch shape, and each operand's batch strides in elements of its rows (0: broadcast).
struct CdistShape {
    std::vector<int64_t> batch;
    int64_t B = 1, P = 0, R = 0, M = 0;
    std::vector<int64_t> b1, b2;  ///< per flat batch: the row block of x1 / x2
};

Expected<CdistShape> cdistShape(const OpArgs& a, const Tensor& x1, const Tensor& x2) {
    if (x1.dim() < 2 || x2.dim() < 2)
        return opError(a, "cdist only supports at least 2D tensors, X1 got: " + std::to_string(x1.dim()) + "D");
    if (!isFloating(x1.dtype()) || x2.dtype() != x1.dtype())
        return opError(a, "cdist only supports floating-point dtypes, both operands of one dtype");
    CdistShape s;
    s.P = x1.shape()[static_cast<size_t>(x1.dim() - 2)];
    s.R = x2.shape()[static_cast<size_t>(x2.dim() - 2)];
    s.M = x1.shape().back();
    if (x2.shape().back() != s.M)
        return opError(a, "X1 and X2 must have the same number of columns. X1: " + std::to_string(s.M) +
                              " X2: " + std::to_string(x2.shape().back()));
    std::vector<int64_t> s1(x1.shape().begin(), x1.shape().end() - 2), s2(x2.shape().begin(), x2.shape().end() - 2);
    const size_t nb = std::max(s1.size(), s2.size());
    s1.insert(s1.begin(), nb - s1.size(), 1);
    s2.insert(s2.begin(), nb - s2.size(), 1);
    for (size_t d = 0; d < nb; ++d) {
        if (s1[d] != s2[d] && s1[d] != 1 && s2[d] != 1)
            return opError(a, "the batch dims of X1 " + shapeStr(x1.shape()) + " and X2 " + shapeStr(x2.shape()) +
                                  " do not broadcast");
        s.batch.push_back(std::max(s1[d], s2[d]));
        s.B *= s.batch.back();
    }
    for (int64_t b = 0; b < s.B; ++b) {
        int64_t rest = b, o1 = 0, o2 = 0, m1 = 1, m2 = 1;
        for (size_t d = nb; d-- > 0;) {
            const int64_t idx = rest % s.batch[d];
            rest /= s.batch[d];
            o1 += (s1[d] == 1 ? 0 : idx) * m1;
            o2 += (s2[d] == 1 ? 0 : idx) * m2;
            m1 *= s1[d];
            m2 *= s2[d];
        }
        s.b1.push_back(o1);
        s.b2.push_back(o2);
    }
    return s;
}

double pNormAccumulate(double acc, double d, double p) {
    if (p == 0.0) return acc + (d != 0.0 ? 1.0 : 0.0);
    if (std::isinf(p)) return std::isnan(d) || d > acc ? d : acc;
    if (p == 1.0) return acc + d;
    if (p == 2.0) return acc + d * d;
    return acc + std::pow(d, p);
}

double pNormFinish(double acc, double p) {
    if (p == 2.0) return std::sqrt(acc);
    if (p != 0.0 && p != 1.0 && !std::isinf(p)) return std::pow(acc, 1.0 / p);
    return acc;
}

// _cdist_forward(x1 [*, P, M], x2 [*, R, M], p, compute_mode?) -> [*, P, R]: the p-norm distance
// of every row pair (exact; PyTorch's mm path for p = 2 past 25 rows differs by rounding only).
Expected<Value> metaCdist(const OpArgs& a) {
    auto x1 = reqTensor(a, 0);
    if (!x1.ok()) return x1.error();
    auto x2 = reqTensor(a, 1);
    if (!x2.ok()) return x2.error();
    if (!(a.toDouble(2) >= 0.0)) return opError(a, "cdist only supports non-negative p values");
    auto s = cdistShape(a, **x1, **x2);
    if (!s.ok()) return s.error();
    std::vector<int64_t> shape = s->batch;
    shape.push_back(s->P);
    shape.push_back(s->R);
    return metaValue(TensorMeta::contiguous(shape, (*x1)->dtype(), (*x1)->meta.device));
}

Expected<Value> cdistKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = cdistShape(a, a.tensor(0), a.tensor(1));
    if (!s.ok()) return s.error();
    const double p = a.toDouble(2);
    const auto x1 = toDoubles(a.tensor(0)), x2 = toDoubles(a.tensor(1));
    std::vector<double> y;
    y.reserve(static_cast<size_t>(s->B * s->P * s->R));
    for (int64_t b = 0; b < s->B; ++b)
        for (int64_t i = 0; i < s->P; ++i)
            for (int64_t j = 0; j < s->R; ++j) {
                const double* r1 = x1.data() + (s->b1[static_cast<size_t>(b)] * s->P + i) * s->M;
                const double* r2 = x2.data() + (s->b2[static_cast<size_t>(b)] * s->R + j) * s->M;
                double acc = 0.0;
                for (int64_t c = 0; c < s->M; ++c) acc = pNormAccumulate(acc, std::fabs(r1[c] - r2[c]), p);
                y.push_back(pNormFinish(acc, p));
            }
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

// _cdist_backward(grad [*, P, R], x1, x2, p, cdist) -> the gradient of x1, of x1 expanded to the
// broadcast batch shape (autograd sums it back), row-major. x2's gradient is the same op with the
// operands swapped and grad/cdist transposed (derivatives.yaml).
Expected<Value> metaCdistBackward(const OpArgs& a) {
    for (size_t i : {0u, 1u, 2u, 4u}) {
        auto t = reqTensor(a, i);
        if (!t.ok()) return t.error();
    }
    const Tensor& x1 = a.tensor(1);
    auto s = cdistShape(a, x1, a.tensor(2));
    if (!s.ok()) return s.error();
    const int64_t pairs = s->B * s->P * s->R;
    if (a.tensor(0).numel() != pairs || a.tensor(4).numel() != pairs)
        return opError(a, "grad and cdist must have " + std::to_string(pairs) + " elements (one per pair of rows)");
    std::vector<int64_t> shape = s->batch;
    shape.push_back(s->P);
    shape.push_back(s->M);
    return metaValue(TensorMeta::contiguous(shape, x1.dtype(), x1.meta.device));
}

Expected<Value> cdistBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = cdistShape(a, a.tensor(1), a.tensor(2));
    if (!s.ok()) return s.error();
    const double p = a.toDouble(3);
    const auto g = toDoubles(a.tensor(0)), x1 = toDoubles(a.tensor(1)), x2 = toDoubles(a.tensor(2)),
               dist = toDoubles(a.tensor(4));
    std::vector<double> gx(static_cast<size_t>(s->B * s->P * s->M), 0.0);
    for (int64_t b = 0; b < s->B; ++b)
        for (int64_t i = 0; i < s->P; ++i)
            for (int64_t j = 0; j < s->R; ++j) {
                const size_t k = static_cast<size_t>((b * s->P + i) * s->R + j);
                const double* r1 = x1.data() + (s->b1[static_cast<size_t>(b)] * s->P + i) * s->M;
                const double* r2 = x2.data() + (s->b2[static_cast<size_t>(b)] * s->R + j) * s->M;
                double* o = gx.data() + (b * s->P + i) * s->M;
                for (int64_t c = 0; c < s->M; ++c)
                    o[c] += distanceGradTerm(r1[c] - r2[c], g[k], dist[k], p, a.tensor(1).dtype());
            }
    return Value::ofTensor(makeTensor(out.t.meta, gx));
}

}  // namespace

double distanceGradTerm(double diff, double g, double d, double p, DType inputDType) {
    if (p == 0.0) return 0.0;
    if (p == 1.0) return g * signOf(diff);
    if (p < 2.0)
        return d == 0.0 || (diff == 0.0 && p < 1.0)
                   ? 0.0
                   : signOf(diff) * std::pow(std::fabs(diff), p - 1.0) * g / std::pow(d, p - 1.0);
    if (p == 2.0) return d == 0.0 ? 0.0 : g * diff / d;
    if (std::isinf(p)) return g * signOf(diff) * (std::fabs(roundTo(diff, inputDType)) == d ? 1.0 : 0.0);
    return d == 0.0 ? 0.0 : diff * std::pow(std::fabs(diff), p - 2.0) * g / std::pow(d, p - 1.0);
}

std::vector<double> pdistBackwardValues(const std::vector<double>& x, const std::vector<double>& g,
                                        const std::vector<double>& dist, int64_t n, int64_t m, double p,
                                        DType inputDType) {
    std::vector<double> gx(static_cast<size_t>(n * m), 0.0);
    if (p == 0.0) return gx;
    size_t k = 0;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = i + 1; j < n; ++j, ++k) {
            const double gk = g[k], dk = dist[k];
            for (int64_t c = 0; c < m; ++c) {
                const double diff = x[static_cast<size_t>(i * m + c)] - x[static_cast<size_t>(j * m + c)];
                const double r = distanceGradTerm(diff, gk, dk, p, inputDType);
                gx[static_cast<size_t>(i * m + c)] += r;
                gx[static_cast<size_t>(j * m + c)] -= r;
            }
        }
    return gx;
}

void registerDistanceOps(OpRegistry& r) {
    r.add("aten._pdist_forward.default", "_pdist_forward(Tensor self, float p=2) -> Tensor", OpCategory::Other,
          metaPdist, pdistKernel);
    r.add("aten._pdist_backward.default", "_pdist_backward(Tensor grad, Tensor self, float p, Tensor pdist) -> Tensor",
          OpCategory::Other, metaPdistBackward, pdistBackwardKernel);
    r.add("aten._cdist_forward.default", "_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor",
          OpCategory::Other, metaCdist, cdistKernel);
    r.add("aten._cdist_backward.default",
          "_cdist_backward(Tensor grad, Tensor x1, Tensor x2, float p, Tensor cdist) -> Tensor", OpCategory::Other,
          metaCdistBackward, cdistBackwardKernel);
}

}  // namespace fxray
