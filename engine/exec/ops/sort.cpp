// Sorting and searching: sort, bucketize, isin, _unique and masked_select. sort is stable and
// orders NaN above every number (last ascending, first descending), so ties and NaNs give
// PyTorch's indices. _unique and masked_select have data-dependent output sizes: their metas
// need real input values.
#include "exec/ops/kernel_util.h"
#include "exec/ops/reduce_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace fxray {
using namespace kern;

namespace {

Diagnostic needsValues(const OpArgs& a) {
    return opError(a, "the output shape depends on the input values; it needs real values, not meta tensors");
}

// ----- sort(self, dim=-1, descending=False) -> (values, indices) -----------------------------

/// c10's is_non_overlapping_and_dense: the dims, by increasing stride (size-1 dims last), tile
/// the storage without gaps.
bool nonOverlappingAndDense(const TensorMeta& m) {
    const size_t nd = m.shape.size();
    std::vector<size_t> perm(nd);
    std::iota(perm.begin(), perm.end(), size_t{0});
    std::stable_sort(perm.begin(), perm.end(), [&](size_t x, size_t y) {
        if (m.shape[x] < 2 || m.shape[y] < 2) return m.shape[x] >= 2 && m.shape[y] < 2;
        return m.strides[x] < m.strides[y];
    });
    int64_t need = 1;
    for (size_t i : perm) {
        if (m.shape[i] < 2) return true;
        if (m.strides[i] != need) return false;
        need *= m.shape[i];
    }
    return true;
}

/// Both outputs take the input's strides when it is dense, else dense strides in its dim order.
Expected<Value> metaSort(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    TensorMeta m = TensorMeta::contiguous(t.shape(), t.dtype(), t.meta.device);
    if (t.meta.strides.size() == t.shape().size())
        m.strides = nonOverlappingAndDense(t.meta) ? t.meta.strides : stridesLike(t.shape(), t.meta);
    TensorMeta mi = m;
    mi.dtype = DType::Int64;
    return Value::ofTensors({Tensor::metaOnly(m), Tensor::metaOnly(mi)});
}

/// Strict weak order of a stable sort with NaN above everything.
bool sortsBefore(double x, double y, bool descending) {
    if (descending) return (std::isnan(x) && !std::isnan(y)) || x > y;
    return (!std::isnan(x) && std::isnan(y)) || x < y;
}

Expected<Value> sortKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(1));
    if (!s.ok()) return s.error();
    const bool descending = a.toBool(2);
    std::vector<double> x = toDoubles(t);
    std::vector<double> idx(x.size(), 0.0);
    std::vector<int64_t> order(static_cast<size_t>(s->n));
    std::vector<double> row(order.size());
    forEachRow(*s, [&](int64_t base, int64_t step) {
        for (int64_t k = 0; k < s->n; ++k) row[k] = x[base + k * step];
        std::iota(order.begin(), order.end(), int64_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](int64_t p, int64_t q) { return sortsBefore(row[p], row[q], descending); });
        for (int64_t k = 0; k < s->n; ++k) {
            x[base + k * step] = row[order[k]];
            idx[base + k * step] = static_cast<double>(order[k]);
        }
    });
    return Value::ofTensors({makeTensor(out.list[0].t.meta, x), makeTensor(out.list[1].t.meta, idx)});
}

// ----- bucketize.Tensor(self, boundaries, *, out_int32=False, right=False) -------------------

Expected<Value> metaBucketize(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    const Tensor& b = a.tensor(1);
    if (b.dim() != 1)
        return opError(a, "boundaries tensor must be 1 dimension, but got dim(" + std::to_string(b.dim()) + ")");
    if (t.dtype() == DType::Bool || b.dtype() == DType::Bool) return opError(a, "not implemented for torch.bool");
    return contiguousMeta(t.shape(), a.toBool(2) ? DType::Int32 : DType::Int64, t);
}

/// PyTorch's binary search, step for step, so that unsorted boundaries and NaN (which lands
/// past the end) give the same answers: left finds the first b >= x, right the first b > x.
Expected<Value> bucketizeKernel(const OpArgs& a, const Value& out, ExecContext&) {
    std::vector<double> x = toDoubles(a.tensor(0));
    const std::vector<double> b = toDoubles(a.tensor(1));
    const bool right = a.toBool(3);
    for (double& v : x) {
        int64_t lo = 0, hi = static_cast<int64_t>(b.size());
        while (lo < hi) {
            const int64_t mid = lo + ((hi - lo) >> 1);
            const double m = b[static_cast<size_t>(mid)];
            if (!(right ? m > v : m >= v))
                lo = mid + 1;
            else
                hi = mid;
        }
        v = static_cast<double>(lo);
    }
    return Value::ofTensor(makeTensor(out.t.meta, x));
}

// ----- isin.Tensor_Tensor(elements, test_elements, *, assume_unique=False, invert=False) -----

Expected<Value> metaIsin(const OpArgs& a) { return contiguousMeta(a.tensor(0).shape(), DType::Bool, a.tensor(0)); }

/// Membership by ==, so NaN is never found.
Expected<Value> isinKernel(const OpArgs& a, const Value& out, ExecContext&) {
    std::vector<double> x = toDoubles(a.tensor(0));
    std::vector<double> test = toDoubles(a.tensor(1));
    // NaN matches nothing, and would break the sort's ordering.
    test.erase(std::remove_if(test.begin(), test.end(), [](double v) { return std::isnan(v); }), test.end());
    std::sort(test.begin(), test.end());
    const bool invert = a.toBool(3);
    for (double& v : x) {
        const bool found = !std::isnan(v) && std::binary_search(test.begin(), test.end(), v);
        v = found != invert ? 1.0 : 0.0;
    }
    return Value::ofTensor(makeTensor(out.t.meta, x));
}

// ----- _unique(self, sorted=True, return_inverse=False) -> (Tensor, Tensor) ------------------

/// The sorted distinct values (PyTorch sorts whatever `sorted` says; each NaN stays distinct
/// and sorts last), and the position of every input element in them.
void uniqueValues(const Tensor& t, std::vector<double>& values, std::vector<double>& inverse) {
    const std::vector<double> x = toDoubles(t);
    std::vector<size_t> order(x.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t p, size_t q) { return sortsBefore(x[p], x[q], false); });
    values.clear();
    inverse.assign(x.size(), 0.0);
    for (size_t i = 0; i < order.size(); ++i) {
        const double v = x[order[i]];
        if (values.empty() || !(values.back() == v)) values.push_back(v);
        inverse[order[i]] = static_cast<double>(values.size() - 1);
    }
}

Expected<Value> metaUnique(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    if (!t.hasData()) return needsValues(a);
    std::vector<double> values, inverse;
    uniqueValues(t, values, inverse);
    const std::vector<int64_t> invShape = a.toBool(2) ? t.shape() : std::vector<int64_t>{0};
    return Value::ofTensors(
        {Tensor::metaOnly(TensorMeta::contiguous({static_cast<int64_t>(values.size())}, t.dtype(), t.meta.device)),
         Tensor::metaOnly(TensorMeta::contiguous(invShape, DType::Int64, t.meta.device))});
}

Expected<Value> uniqueKernel(const OpArgs& a, const Value& out, ExecContext&) {
    std::vector<double> values, inverse;
    uniqueValues(a.tensor(0), values, inverse);
    if (!a.toBool(2)) inverse.clear();
    return Value::ofTensors({makeTensor(out.list[0].t.meta, values), makeTensor(out.list[1].t.meta, inverse)});
}

// ----- masked_select(self, mask) -------------------------------------------------------------

/// The elements of self (broadcast with mask) where mask is true, in row-major order.
Expected<std::vector<double>> selectValues(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    const Tensor& mask = a.tensor(1);
    if (mask.dtype() != DType::Bool) return opError(a, "expected BoolTensor for mask, got " + dtName(mask.dtype()));
    auto shape = broadcastShapes(t.shape(), mask.shape());
    if (!shape)
        return opError(a, "the shapes of self " + t.meta.annotation(false, false) + " and mask " +
                              mask.meta.annotation(false, false) + " are not broadcastable");
    if (!t.hasData() || !mask.hasData()) return needsValues(a);
    const std::vector<double> x = toDoublesBroadcast(t, *shape);
    const std::vector<double> m = toDoublesBroadcast(mask, *shape);
    std::vector<double> sel;
    for (size_t i = 0; i < x.size(); ++i)
        if (m[i] != 0.0) sel.push_back(x[i]);
    return sel;
}

Expected<Value> metaMaskedSelect(const OpArgs& a) {
    auto sel = selectValues(a);
    if (!sel.ok()) return sel.error();
    return contiguousMeta({static_cast<int64_t>(sel->size())}, a.tensor(0).dtype(), a.tensor(0));
}

Expected<Value> maskedSelectKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto sel = selectValues(a);
    if (!sel.ok()) return sel.error();
    return Value::ofTensor(makeTensor(out.t.meta, *sel));
}

}  // namespace

void registerSortOps(OpRegistry& r) {
    r.add("aten.sort.default",
          "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)", OpCategory::Extern,
          metaSort, sortKernel);
    r.add("aten.bucketize.Tensor",
          "bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor",
          OpCategory::Extern, metaBucketize, bucketizeKernel);
    r.add("aten.isin.Tensor_Tensor",
          "isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, "
          "bool invert=False) -> Tensor",
          OpCategory::Extern, metaIsin, isinKernel);
    r.add("aten._unique.default",
          "_unique(Tensor self, bool sorted=True, bool return_inverse=False) -> (Tensor, Tensor)", OpCategory::Extern,
          metaUnique, uniqueKernel);
    r.add("aten.masked_select.default", "masked_select(Tensor self, Tensor mask) -> Tensor", OpCategory::Extern,
          metaMaskedSelect, maskedSelectKernel);
}

}  // namespace fxray
