// Sorting and searching: sort (and sort.stable, topk), bucketize, searchsorted, isin, _unique, _unique2,
// unique_consecutive and masked_select. Every sort is stable and orders NaN above every number
// (last ascending, first descending), so ties and NaNs give PyTorch's indices. The uniques and
// masked_select have data-dependent output sizes: their metas need real input values.
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

/// Strict weak order of a stable sort with NaN above everything.
bool sortsBefore(double x, double y, bool descending) {
    if (descending) return (std::isnan(x) && !std::isnan(y)) || x > y;
    return (!std::isnan(x) && std::isnan(y)) || x < y;
}

/// The first k of every row along the split, stably sorted ([outer, k, inner], row-major):
/// sort keeps all n, topk the first k.
void sortedRows(const Tensor& t, const DimSplit& s, bool descending, int64_t k, std::vector<double>& values,
                std::vector<double>& indices) {
    const std::vector<double> x = toDoubles(t);
    values.assign(static_cast<size_t>(s.outer * k * s.inner), 0.0);
    indices.assign(values.size(), 0.0);
    std::vector<int64_t> order(static_cast<size_t>(s.n));
    std::vector<double> row(order.size());
    for (int64_t o = 0; o < s.outer; ++o)
        for (int64_t i = 0; i < s.inner; ++i) {
            const int64_t base = o * s.n * s.inner + i;
            for (int64_t j = 0; j < s.n; ++j) row[static_cast<size_t>(j)] = x[static_cast<size_t>(base + j * s.inner)];
            std::iota(order.begin(), order.end(), int64_t{0});
            std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
                return sortsBefore(row[static_cast<size_t>(p)], row[static_cast<size_t>(q)], descending);
            });
            for (int64_t j = 0; j < k; ++j) {
                const auto e = static_cast<size_t>((o * k + j) * s.inner + i);
                values[e] = row[static_cast<size_t>(order[static_cast<size_t>(j)])];
                indices[e] = static_cast<double>(order[static_cast<size_t>(j)]);
            }
        }
}

/// sort(self, dim, descending) and sort.stable(self, *, stable, dim, descending): `dimArg` is
/// where dim sits (descending follows it). Every sort here is stable.
template <size_t DimArg>
Expected<Value> metaSortAt(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(DimArg));
    if (!s.ok()) return s.error();
    TensorMeta m = TensorMeta::contiguous(t.shape(), t.dtype(), t.meta.device);
    if (t.meta.strides.size() == t.shape().size())
        m.strides = nonOverlappingAndDense(t.meta) ? t.meta.strides : stridesLike(t.shape(), t.meta);
    TensorMeta mi = m;
    mi.dtype = DType::Int64;
    return Value::ofTensors({Tensor::metaOnly(m), Tensor::metaOnly(mi)});
}

template <size_t DimArg>
Expected<Value> sortKernelAt(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(DimArg));
    if (!s.ok()) return s.error();
    std::vector<double> x, idx;
    sortedRows(t, *s, a.toBool(DimArg + 1), s->n, x, idx);
    return Value::ofTensors({makeTensor(out.list[0].t.meta, x), makeTensor(out.list[1].t.meta, idx)});
}

// ----- topk(self, k, dim=-1, largest=True, sorted=True) -> (values, indices) -----------------

/// The k largest (smallest) of every row, in order, NaN counting as the largest; among equal
/// values the first in the row comes first. Unsorted requests get the sorted order too (PyTorch
/// leaves that order unspecified).
Expected<Value> metaTopk(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(2));
    if (!s.ok()) return s.error();
    const int64_t k = a.toInt(1);
    if (k < 0 || k > s->n) return opError(a, "selected index k out of range");
    std::vector<int64_t> shape = t.shape();
    if (!shape.empty()) {
        int64_t d = a.toInt(2);
        if (d < 0) d += static_cast<int64_t>(shape.size());
        shape[static_cast<size_t>(d)] = k;
    }
    return Value::ofTensors({Tensor::metaOnly(TensorMeta::contiguous(shape, t.dtype(), t.meta.device)),
                             Tensor::metaOnly(TensorMeta::contiguous(shape, DType::Int64, t.meta.device))});
}

Expected<Value> topkKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& t = a.tensor(0);
    auto s = splitAt(a, t.shape(), a.toInt(2));
    if (!s.ok()) return s.error();
    std::vector<double> x, idx;
    sortedRows(t, *s, a.toBool(3), a.toInt(1), x, idx);
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

// ----- searchsorted.Tensor(sorted_sequence, self, *, out_int32=False, right=False, side=None,
//       sorter=None) --------------------------------------------------------------------------

/// right, or side == "right" (side overrides; "left" with right=True is PyTorch's error).
Expected<bool> searchRight(const OpArgs& a) {
    const bool right = a.toBool(3);
    if (a.isNone(4)) return right;
    const std::string& side = a[4].s;
    if (side != "left" && side != "right")
        return opError(a, "side can only be 'left' or 'right' but got " + side);
    if (side == "left" && right)
        return opError(a, "side and right can't be set to opposites, got side of left while right was True");
    return side == "right";
}

Expected<Value> metaSearchsorted(const OpArgs& a) {
    const Tensor& b = a.tensor(0);
    const Tensor& t = a.tensor(1);
    if (b.dim() == 0) return opError(a, "boundaries tensor should have positive dimension, but got 0 dimension");
    if (b.dim() != 1) {
        bool same = b.dim() == t.dim();
        for (int64_t d = 0; same && d + 1 < b.dim(); ++d) same = b.shape()[static_cast<size_t>(d)] == t.shape()[static_cast<size_t>(d)];
        if (!same)
            return opError(a, "boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
                              "tensor and input value tensor must match, but we got boundaries tensor " +
                                  shapeStr(b.shape()) + " and input value tensor " + shapeStr(t.shape()));
    }
    if (t.dtype() == DType::Bool || b.dtype() == DType::Bool) return opError(a, "not implemented for torch.bool");
    auto right = searchRight(a);
    if (!right.ok()) return right.error();
    if (!a.isNone(5) && a.tensor(5).shape() != b.shape())
        return opError(a, "boundary and sorter must have the same size");
    return contiguousMeta(t.shape(), a.toBool(2) ? DType::Int32 : DType::Int64, t);
}

/// bucketize's binary search per row of the boundaries (one row when they are 1-D), through
/// sorter's indices when given.
Expected<Value> searchsortedKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const std::vector<double> b = toDoubles(a.tensor(0));
    std::vector<double> x = toDoubles(a.tensor(1));
    std::vector<double> sorter;
    if (!a.isNone(5)) sorter = toDoubles(a.tensor(5));
    auto right = searchRight(a);
    if (!right.ok()) return right.error();
    const int64_t nb = a.tensor(0).shape().back();
    const int64_t nx = a.tensor(1).dim() == 0 ? 1 : a.tensor(1).shape().back();
    const bool rows = a.tensor(0).dim() > 1;
    for (size_t i = 0; i < x.size(); ++i) {
        const int64_t row = rows ? static_cast<int64_t>(i) / nx : 0;
        auto at = [&](int64_t j) {
            const auto k = static_cast<size_t>(row * nb + j);
            return sorter.empty() ? b[k] : b[static_cast<size_t>(row * nb + static_cast<int64_t>(sorter[k]))];
        };
        int64_t lo = 0, hi = nb;
        while (lo < hi) {
            const int64_t mid = lo + ((hi - lo) >> 1);
            const double m = at(mid);
            if (!(*right ? m > x[i] : m >= x[i]))
                lo = mid + 1;
            else
                hi = mid;
        }
        x[i] = static_cast<double>(lo);
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

// ----- _unique, _unique2 and unique_consecutive (flattened; dim=None) ----------------------

/// The distinct values (sorted, each NaN distinct and last; or, consecutive, runs of equal
/// values in input order), the position of every input element in them, and how many elements
/// each has.
struct Uniques {
    std::vector<double> values, inverse, counts;
};

Uniques uniquesOf(const Tensor& t, bool consecutive) {
    const std::vector<double> x = toDoubles(t);
    std::vector<size_t> order(x.size());
    std::iota(order.begin(), order.end(), size_t{0});
    if (!consecutive)
        std::stable_sort(order.begin(), order.end(), [&](size_t p, size_t q) { return sortsBefore(x[p], x[q], false); });
    Uniques u;
    u.inverse.assign(x.size(), 0.0);
    for (size_t i = 0; i < order.size(); ++i) {
        const double v = x[order[i]];
        if (u.values.empty() || !(u.values.back() == v)) {
            u.values.push_back(v);
            u.counts.push_back(0.0);
        }
        u.counts.back() += 1.0;
        u.inverse[order[i]] = static_cast<double>(u.values.size() - 1);
    }
    return u;
}

/// InverseArg and CountsArg: which arguments ask for the inverse and the counts (-1: the op has
/// no counts output); Consecutive: the op keeps input order (unique_consecutive).
template <int InverseArg, int CountsArg, bool Consecutive>
Expected<Value> metaUniqueOf(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    if (Consecutive && !a.isNone(3)) return opError(a, "unique_consecutive over a dim is not supported");
    if (!t.hasData()) return needsValues(a);
    const Uniques u = uniquesOf(t, Consecutive);
    const auto n = static_cast<int64_t>(u.values.size());
    std::vector<Value> outs{
        Value::ofTensor(Tensor::metaOnly(TensorMeta::contiguous({n}, t.dtype(), t.meta.device))),
        Value::ofTensor(Tensor::metaOnly(TensorMeta::contiguous(a.toBool(InverseArg) ? t.shape() : std::vector<int64_t>{0},
                                                                DType::Int64, t.meta.device)))};
    if (CountsArg >= 0)
        outs.push_back(Value::ofTensor(Tensor::metaOnly(TensorMeta::contiguous(
            {a.toBool(static_cast<size_t>(CountsArg)) ? n : 0}, DType::Int64, t.meta.device))));
    return Value::ofList(std::move(outs), true);
}

template <int InverseArg, int CountsArg, bool Consecutive>
Expected<Value> uniqueKernelOf(const OpArgs& a, const Value& out, ExecContext&) {
    Uniques u = uniquesOf(a.tensor(0), Consecutive);
    if (!a.toBool(InverseArg)) u.inverse.clear();
    std::vector<Tensor> outs{makeTensor(out.list[0].t.meta, u.values), makeTensor(out.list[1].t.meta, u.inverse)};
    if (CountsArg >= 0) {
        if (!a.toBool(static_cast<size_t>(CountsArg))) u.counts.clear();
        outs.push_back(makeTensor(out.list[2].t.meta, u.counts));
    }
    return Value::ofTensors(outs);
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

// ----- histc(self, bins=100, min=0, max=0) --------------------------------------------------

namespace kern {

std::vector<double> histcCounts(const std::vector<double>& x, int64_t bins, double lo, double hi) {
    // min == max: the data's range (NaN ignored), widened by 1 on each side when it is one value.
    if (lo == hi) {
        bool any = false;
        for (double v : x)
            if (!std::isnan(v)) {
                lo = any ? std::min(lo, v) : v;
                hi = any ? std::max(hi, v) : v;
                any = true;
            }
        if (lo == hi) lo -= 1, hi += 1;
    }
    std::vector<double> counts(static_cast<size_t>(bins), 0.0);
    for (double v : x) {
        if (!(v >= lo && v <= hi)) continue;  // outside the range, or NaN: not counted
        auto b = static_cast<int64_t>((v - lo) / (hi - lo) * static_cast<double>(bins));
        if (b >= bins) b = bins - 1;  // max itself goes to the last bin
        counts[static_cast<size_t>(b)] += 1.0;
    }
    return counts;
}

}  // namespace kern

namespace {

Expected<Value> metaHistc(const OpArgs& a) {
    const Tensor& t = a.tensor(0);
    if (!isFloating(t.dtype()))
        return opError(a, std::string("\"histogram_cpu\" not implemented for '") + std::string(dtypeTorchName(t.dtype())) + "'");
    const int64_t bins = a.toInt(1);
    if (bins <= 0) return opError(a, "bins must be > 0");
    if (a.toDouble(2) > a.toDouble(3)) return opError(a, "max must be larger than min");
    return contiguousMeta({bins}, t.dtype(), t);
}

/// Equal-width bins over [min, max] (the data's range when min == max), the count of the
/// elements in each in the input's dtype; elements outside the range and NaN are not counted.
Expected<Value> histcKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return Value::ofTensor(makeTensor(
        out.t.meta, kern::histcCounts(toDoubles(a.tensor(0)), a.toInt(1), a.toDouble(2), a.toDouble(3))));
}

}  // namespace

void registerSortOps(OpRegistry& r) {
    r.add("aten.histc.default", "histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor",
          OpCategory::Extern, metaHistc, histcKernel);
    r.add("aten.sort.default",
          "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)", OpCategory::Extern,
          metaSortAt<1>, sortKernelAt<1>);
    r.add("aten.sort.stable",
          "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, "
          "Tensor indices)",
          OpCategory::Extern, metaSortAt<2>, sortKernelAt<2>);
    r.add("aten.topk.default",
          "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, "
          "Tensor indices)",
          OpCategory::Extern, metaTopk, topkKernel);
    r.add("aten.bucketize.Tensor",
          "bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor",
          OpCategory::Extern, metaBucketize, bucketizeKernel);
    r.add("aten.searchsorted.Tensor",
          "searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, "
          "str? side=None, Tensor? sorter=None) -> Tensor",
          OpCategory::Extern, metaSearchsorted, searchsortedKernel);
    r.add("aten.isin.Tensor_Tensor",
          "isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, "
          "bool invert=False) -> Tensor",
          OpCategory::Extern, metaIsin, isinKernel);
    r.add("aten._unique.default",
          "_unique(Tensor self, bool sorted=True, bool return_inverse=False) -> (Tensor, Tensor)", OpCategory::Extern,
          metaUniqueOf<2, -1, false>, uniqueKernelOf<2, -1, false>);
    r.add("aten._unique2.default",
          "_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> "
          "(Tensor, Tensor, Tensor)",
          OpCategory::Extern, metaUniqueOf<2, 3, false>, uniqueKernelOf<2, 3, false>);
    r.add("aten.unique_consecutive.default",
          "unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, int? dim=None) -> "
          "(Tensor, Tensor, Tensor)",
          OpCategory::Extern, metaUniqueOf<1, 2, true>, uniqueKernelOf<1, 2, true>);
    r.add("aten.masked_select.default", "masked_select(Tensor self, Tensor mask) -> Tensor", OpCategory::Extern,
          metaMaskedSelect, maskedSelectKernel);
}

}  // namespace fxray
