// Pairwise distances between the rows of a matrix (torch.nn.functional.pdist): _pdist_forward and
// _pdist_backward. Pairs (i, j), i < j, are in row-major order of the upper triangle.
#include "exec/ops/distance.h"
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/register.h"

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

}  // namespace

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
                double r;
                if (p == 1.0)
                    r = gk * signOf(diff);
                else if (p < 2.0)
                    r = dk == 0.0 || (diff == 0.0 && p < 1.0)
                            ? 0.0
                            : signOf(diff) * std::pow(std::fabs(diff), p - 1.0) * gk / std::pow(dk, p - 1.0);
                else if (p == 2.0)
                    r = dk == 0.0 ? 0.0 : gk * diff / dk;
                else if (std::isinf(p))
                    r = gk * signOf(diff) * (std::fabs(roundTo(diff, inputDType)) == dk ? 1.0 : 0.0);
                else
                    r = dk == 0.0 ? 0.0 : diff * std::pow(std::fabs(diff), p - 2.0) * gk / std::pow(dk, p - 1.0);
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
}

}  // namespace fxray
