// Ops whose output length the input values give: nonzero (torch.nonzero, torch.argwhere, the
// index list of a boolean mask) and bincount. Dynamo keeps them in a graph only with
// capture_dynamic_output_shape_ops (the size is an unbacked u0), and Inductor runs both as
// fallback kernels. Their metas need real input values, as masked_select's (sort.cpp).
#include "exec/ops/kernel_util.h"
#include "exec/ops/reduce_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <string>

namespace fxray {

namespace kern {

std::vector<double> nonzeroCoords(const std::vector<double>& x, const std::vector<int64_t>& shape) {
    std::vector<double> rows;
    std::vector<int64_t> pos(shape.size(), 0);
    for (double v : x) {
        if (v != 0.0)  // NaN != 0 is true, as in PyTorch
            for (int64_t p : pos) rows.push_back(static_cast<double>(p));
        for (size_t d = pos.size(); d-- > 0;) {  // next row-major position
            if (++pos[d] < shape[d]) break;
            pos[d] = 0;
        }
    }
    return rows;
}

std::vector<double> bincountBins(const std::vector<double>& values, const std::vector<double>* weights, size_t n,
                                 bool f32) {
    std::vector<double> bins(n, 0.0);
    for (size_t i = 0; i < values.size(); ++i) {
        double& c = bins[static_cast<size_t>(values[i])];
        if (!weights)
            c += 1.0;
        else  // float32 weights sum in float, as ATen's kernel (float accumulator) does
            c = f32 ? static_cast<double>(static_cast<float>(c) + static_cast<float>((*weights)[i]))
                    : c + (*weights)[i];
    }
    return bins;
}

}  // namespace kern

using namespace kern;

namespace {

Diagnostic needsValues(const OpArgs& a) {
    return opError(a, "the output shape depends on the input values; it needs real values, not meta tensors");
}

// ----- nonzero(self) -> [n, ndim] int64 --------------------------------------------------------

/// The nonzero rows of self; count is how many (a 0-d tensor's rows have no coordinates).
Expected<std::vector<double>> nonzeroRows(const OpArgs& a, int64_t& count) {
    const Tensor& t = a.tensor(0);
    if (!t.hasData()) return needsValues(a);
    const std::vector<double> x = toDoubles(t);
    count = std::count_if(x.begin(), x.end(), [](double v) { return v != 0.0; });
    return nonzeroCoords(x, t.shape());
}

Expected<Value> metaNonzero(const OpArgs& a) {
    int64_t count = 0;
    auto rows = nonzeroRows(a, count);
    if (!rows.ok()) return rows.error();
    return contiguousMeta({count, static_cast<int64_t>(a.tensor(0).shape().size())}, DType::Int64, a.tensor(0));
}

Expected<Value> nonzeroKernel(const OpArgs& a, const Value& out, ExecContext&) {
    int64_t count = 0;
    auto rows = nonzeroRows(a, count);
    if (!rows.ok()) return rows.error();
    return Value::ofTensor(makeTensor(out.t.meta, *rows));
}

// ----- bincount(self, weights=None, minlength=0) ------------------------------------------------

/// The output dtype: int64 counts without weights; with them float32 for float32 weights, else
/// float64 (ATen's _bincount_cpu converts other weights to double).
DType bincountDtype(const OpArgs& a) {
    if (a.isNone(1)) return DType::Int64;
    return a.tensor(1).dtype() == DType::Float32 ? DType::Float32 : DType::Float64;
}

/// Checks ATen's conditions; the counts (or weight sums) when values are there.
Expected<std::vector<double>> bincountValues(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    const int64_t minlength = a.toInt(2);
    if (minlength < 0) return opError(a, "minlength should be >= 0");
    if (t.shape().size() != 1 || !isIntegral(t.dtype(), false))
        return opError(a, "bincount only supports 1-d non-negative integral inputs.");
    const bool weighted = !a.isNone(1);
    if (weighted && (a.tensor(1).shape().size() != 1 || a.tensor(1).shape()[0] != t.shape()[0]))
        return opError(a, "weights should be 1-d and have the same length as input");
    if (!t.hasData() || (weighted && !a.tensor(1).hasData())) return needsValues(a);
    const std::vector<double> x = toDoubles(t);
    double top = -1.0;
    for (double v : x) {
        if (v < 0.0) return opError(a, "bincount only supports 1-d non-negative integral inputs.");
        top = std::max(top, v);
    }
    // Every count lands in memory: refuse lengths no real histogram has rather than allocate them.
    constexpr double kMaxBins = double(1 << 30);
    if (top + 1.0 > kMaxBins)
        return opError(a,
                       "bincount: the largest value " + std::to_string(int64_t(top)) + " asks for more than 2^30 bins");
    const auto n = static_cast<size_t>(std::max<double>(top + 1.0, static_cast<double>(minlength)));
    if (!weighted) return bincountBins(x, nullptr, n, false);
    const std::vector<double> w = toDoubles(a.tensor(1));
    return bincountBins(x, &w, n, bincountDtype(a) == DType::Float32);
}

Expected<Value> metaBincount(const OpArgs& a) {
    auto c = bincountValues(a);
    if (!c.ok()) return c.error();
    return contiguousMeta({static_cast<int64_t>(c->size())}, bincountDtype(a), a.tensor(0));
}

Expected<Value> bincountKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto c = bincountValues(a);
    if (!c.ok()) return c.error();
    return Value::ofTensor(makeTensor(out.t.meta, *c));
}

}  // namespace

void registerDataSizedOps(OpRegistry& r) {
    r.add("aten.nonzero.default", "nonzero(Tensor self) -> Tensor", OpCategory::Extern, metaNonzero, nonzeroKernel);
    r.add("aten.bincount.default", "bincount(Tensor self, Tensor? weights=None, SymInt minlength=0) -> Tensor",
          OpCategory::Extern, metaBincount, bincountKernel);
}

}  // namespace fxray
