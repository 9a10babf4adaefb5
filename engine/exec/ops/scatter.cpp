// Scatters with a reduction and the index_* family: scatter_reduce.two, scatter.reduce /
// value_reduce, the in-place scatter_ overloads, index_reduce, index_fill and index_copy.
// Reductions run in double over every contribution and round once; `mean` divides by the
// number of contributions (floor division for integer dtypes, as ATen does).
#include "exec/ops/register.h"
#include "exec/ops/shape_util.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace fxray {
using namespace kern;

namespace {

// ----- reductions ----------------------------------------------------------------------------

enum class Reduce { Assign, Sum, Prod, Mean, Amax, Amin };

/// The reduction named by `name` for scatter_reduce / index_reduce (sum only for the former).
Expected<Reduce> parseReduce(const OpArgs& a, const std::string& name, bool allowSum, const char* what) {
    if (name == "sum" && allowSum) return Reduce::Sum;
    if (name == "prod") return Reduce::Prod;
    if (name == "mean") return Reduce::Mean;
    if (name == "amax") return Reduce::Amax;
    if (name == "amin") return Reduce::Amin;
    if (allowSum)
        return opError(a,
                       std::string(what) + "reduce argument must be either sum, prod, mean, amax or amin, got " + name);
    return opError(a,
                   std::string(what) + "Expected reduce to be one of prod, mean, amax or amin but got " + name + ".");
}

/// scatter's legacy `reduce=` strings.
Expected<Reduce> parseLegacyReduce(const OpArgs& a, const std::string& name) {
    if (name == "add") return Reduce::Sum;
    if (name == "multiply") return Reduce::Prod;
    return opError(a, "reduce argument must be either add or multiply, got " + name);
}

double identityOf(Reduce r) {
    switch (r) {
    case Reduce::Prod: return 1.0;
    case Reduce::Amax: return -std::numeric_limits<double>::infinity();
    case Reduce::Amin: return std::numeric_limits<double>::infinity();
    default: return 0.0;
    }
}

double combine(Reduce r, double acc, double v) {
    switch (r) {
    case Reduce::Assign: return v;
    case Reduce::Sum:
    case Reduce::Mean: return acc + v;
    case Reduce::Prod: return acc * v;
    case Reduce::Amax: return std::isnan(acc) || std::isnan(v) ? std::nan("") : std::max(acc, v);
    case Reduce::Amin: return std::isnan(acc) || std::isnan(v) ? std::nan("") : std::min(acc, v);
    }
    return v;
}

/// Applies contributions (target offset, value) to vals (row-major self values): targets start
/// at the identity unless includeSelf, mean divides by the contribution count.
void reduceInto(std::vector<double>& vals, const std::vector<std::pair<int64_t, double>>& contribs, Reduce r,
                bool includeSelf, DType dt) {
    if (r == Reduce::Assign) {
        for (const auto& [o, v] : contribs) vals[static_cast<size_t>(o)] = v;
        return;
    }
    std::vector<int64_t> count(vals.size(), 0);
    for (const auto& [o, v] : contribs) {
        auto k = static_cast<size_t>(o);
        if (count[k] == 0 && !includeSelf) vals[k] = identityOf(r);
        ++count[k];
        vals[k] = combine(r, vals[k], v);
    }
    if (r != Reduce::Mean) return;
    for (size_t k = 0; k < vals.size(); ++k) {
        if (count[k] == 0) continue;
        const double n = static_cast<double>(count[k] + (includeSelf ? 1 : 0));
        vals[k] = isFloating(dt) ? vals[k] / n : std::floor(vals[k] / n);
    }
}

// ----- scatter -------------------------------------------------------------------------------

/// The scatter shape and dtype rules; returns the wrapped dim.
Expected<int64_t> checkScatter(const OpArgs& a, const TensorMeta& self, const Tensor& index, const TensorMeta* src) {
    if (index.dtype() != DType::Int64) return opError(a, "scatter(): Expected dtype int64 for index");
    if (src && src->dtype != self.dtype) return opError(a, "scatter(): Expected self.dtype to be equal to src.dtype");
    auto d = dimArg(a, a.toInt(1), self.dim());
    if (!d.ok()) return d.error();
    if (index.numel() == 0) return *d;
    const auto rank = [](const TensorMeta& m) { return std::max<int64_t>(m.dim(), 1); };
    if (rank(index.meta) != rank(self))
        return opError(a, "Index tensor must have the same number of dimensions as self tensor");
    if (src && rank(*src) != rank(index.meta))
        return opError(a, "Index tensor must have the same number of dimensions as src tensor");
    for (int64_t k = 0; k < index.dim(); ++k) {
        const int64_t n = index.shape()[k];
        // A 0-dim tensor counts as one element along its one dim.
        const bool selfOk = k == *d || n <= (self.dim() == 0 ? 1 : self.shape[k]);
        const bool srcOk = !src || n <= (src->dim() == 0 ? 1 : src->shape[k]);
        if (!selfOk || !srcOk)
            return opError(a, "Expected index " + shapeStr(index.shape()) + " to be smaller than self " +
                                  shapeStr(self.shape) + " apart from dimension " + std::to_string(*d) +
                                  (src ? " and to be smaller size than src " + shapeStr(src->shape) : std::string()));
    }
    return *d;
}

/// Row-major values of scatter(self, dim, index, src-or-value) with reduction r.
Expected<std::vector<double>> scatterValues(const OpArgs& a, Reduce r, bool includeSelf) {
    const Tensor& self = a.tensor(0);
    const Tensor& index = a.tensor(2);
    const bool srcTensor = a.isTensor(3);
    auto d = checkScatter(a, self.meta, index, srcTensor ? &a.tensor(3).meta : nullptr);
    if (!d.ok()) return d.error();
    auto vals = toDoubles(self);
    const std::vector<int64_t> selfShape = self.dim() == 0 ? std::vector<int64_t>{1} : self.shape();
    auto iv = indexValues(a, index, selfShape[*d], *d, false);
    if (!iv.ok()) return iv.error();
    const auto sst = rowMajorStrides(selfShape);
    std::vector<double> srcVals;
    std::vector<int64_t> srcStrides;
    if (srcTensor) {
        const Tensor& src = a.tensor(3);
        srcVals = toDoubles(src);
        srcStrides = rowMajorStrides(src.dim() == 0 ? std::vector<int64_t>{1} : src.shape());
    }
    const double scalar = srcTensor ? 0.0 : a.toDouble(3);
    const std::vector<int64_t> ishape = index.dim() == 0 ? std::vector<int64_t>{1} : index.shape();
    std::vector<std::pair<int64_t, double>> contribs;
    std::vector<int64_t> pos(ishape.size(), 0);
    for (size_t e = 0; e < iv->size(); ++e) {
        int64_t target = 0, so = 0;
        for (size_t k = 0; k < pos.size(); ++k) {
            target += (static_cast<int64_t>(k) == *d ? (*iv)[e] : pos[k]) * sst[k];
            if (srcTensor) so += pos[k] * srcStrides[k];
        }
        contribs.emplace_back(target, srcTensor ? srcVals[static_cast<size_t>(so)] : scalar);
        for (size_t k = pos.size(); k-- > 0;) {
            if (++pos[k] < ishape[k]) break;
            pos[k] = 0;
        }
    }
    reduceInto(vals, contribs, r, includeSelf, self.dtype());
    return vals;
}

/// Out-of-place scatters write a fresh contiguous tensor.
Expected<Value> metaScatterOut(const OpArgs& a) {
    const TensorMeta& self = a.tensor(0).meta;
    auto d = checkScatter(a, self, a.tensor(2), a.isTensor(3) ? &a.tensor(3).meta : nullptr);
    if (!d.ok()) return d.error();
    return metaValue(contiguousLike(self, self.shape));
}

/// In-place scatters return self.
Expected<Value> metaScatterInplace(const OpArgs& a) {
    auto checked = metaScatterOut(a);
    if (!checked.ok()) return checked;
    return metaValue(a.tensor(0).meta);
}

/// The reduction of a scatter overload and whether self takes part.
Expected<std::pair<Reduce, bool>> scatterMode(const OpArgs& a) {
    const Schema& s = a.op().schema;
    if (s.name.rfind("scatter_reduce", 0) == 0) {
        auto r = parseReduce(a, a[4].s, true, "");
        if (!r.ok()) return r.error();
        return std::make_pair(*r, a.toBool(5));
    }
    if (s.name == "scatter_add_") return std::make_pair(Reduce::Sum, true);
    const int ri = s.indexOf("reduce");
    if (ri >= 0) {
        auto r = parseLegacyReduce(a, a[static_cast<size_t>(ri)].s);
        if (!r.ok()) return r.error();
        return std::make_pair(*r, true);
    }
    return std::make_pair(Reduce::Assign, true);
}

Expected<Value> scatterOutKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto mode = scatterMode(a);
    if (!mode.ok()) return mode.error();
    auto vals = scatterValues(a, mode->first, mode->second);
    if (!vals.ok()) return vals.error();
    return Value::ofTensor(makeTensor(out.t.meta, *vals));
}

Expected<Value> scatterInplaceKernel(const OpArgs& a, const Value&, ExecContext&) {
    auto mode = scatterMode(a);
    if (!mode.ok()) return mode.error();
    auto vals = scatterValues(a, mode->first, mode->second);
    if (!vals.ok()) return vals.error();
    Tensor self = a.tensor(0);
    fromDoubles(self, *vals);
    return Value::ofTensor(self);
}

/// scatter_reduce.two also validates its reduce string in the meta function.
Expected<Value> metaScatterReduce(const OpArgs& a) {
    auto mode = scatterMode(a);
    if (!mode.ok()) return mode.error();
    return metaScatterOut(a);
}

// ----- index along a dim ---------------------------------------------------------------------

/// self seen as [outer, size, inner] around dim (a 0-dim self as one element), with the
/// checked index values.
struct AlongDim {
    int64_t dim, outer, size, inner;
    std::vector<int64_t> idx;
};

Expected<AlongDim> alongDim(const OpArgs& a, const TensorMeta& self, const Tensor& index, bool allowNegative,
                            const std::string& what) {
    auto d = dimArg(a, a.toInt(1), self.dim());
    if (!d.ok()) return d.error();
    if (index.dim() > 1) return opError(a, what + "Index is supposed to be a vector");
    AlongDim p{*d, 1, 1, 1, {}};
    if (self.dim() > 0) {
        for (int64_t k = 0; k < *d; ++k) p.outer *= self.shape[k];
        for (int64_t k = *d + 1; k < self.dim(); ++k) p.inner *= self.shape[k];
        p.size = self.shape[*d];
    }
    if (!index.hasData()) return p;
    auto iv = indexValues(a, index, p.size, *d, allowNegative);
    if (!iv.ok()) return iv.error();
    p.idx = std::move(iv).value();
    return p;
}

/// source must be self with dim's size replaced by the number of indices (scalars aside).
Expected<bool> checkSource(const OpArgs& a, const TensorMeta& self, const TensorMeta& source, const Tensor& index,
                           int64_t dim, const std::string& what) {
    if (source.dtype != self.dtype)
        return opError(a, what + "self (" + std::string(dtypeTorchName(self.dtype)) + ") and source (" +
                              std::string(dtypeTorchName(source.dtype)) + ") must have the same scalar type");
    const int64_t n = source.dim() == 0 ? 1 : (dim < source.dim() ? source.shape[dim] : -1);
    if (n != index.numel())
        return opError(a, what + "Number of indices (" + std::to_string(index.numel()) +
                              ") should be equal to source.size(dim) (" + std::to_string(n) + ")");
    if (self.dim() > 0 && source.dim() > 0) {
        std::vector<int64_t> want = self.shape;
        want[dim] = index.numel();
        if (source.shape != want)
            return opError(a, what + "source tensor shape " + shapeStr(source.shape) +
                                  " must match self tensor shape " + shapeStr(self.shape) +
                                  ", excluding the specified dimension " + std::to_string(dim));
    } else {
        // A scalar source (or self) pairs one element with each index: self must hold a single
        // element apart from dim.
        const int64_t perRow = self.dim() == 0 ? 1 : self.numel() / std::max<int64_t>(self.shape[dim], 1);
        if (source.numel() != index.numel() || (self.numel() > 0 && perRow != 1))
            return opError(a, what + "source tensor shape " + shapeStr(source.shape) +
                                  " must match self tensor shape " + shapeStr(self.shape) +
                                  ", excluding the specified dimension " + std::to_string(dim));
    }
    return true;
}

/// Contributions of source row i to self row idx[i], for every outer/inner position.
std::vector<std::pair<int64_t, double>> rowContribs(const AlongDim& p, const std::vector<double>& src) {
    std::vector<std::pair<int64_t, double>> contribs;
    const auto n = static_cast<int64_t>(p.idx.size());
    for (int64_t o = 0; o < p.outer; ++o)
        for (int64_t i = 0; i < n; ++i)
            for (int64_t k = 0; k < p.inner; ++k)
                contribs.emplace_back((o * p.size + p.idx[static_cast<size_t>(i)]) * p.inner + k,
                                      src[static_cast<size_t>((o * n + i) * p.inner + k)]);
    return contribs;
}

Expected<Value> metaIndexReduce(const OpArgs& a) {
    const std::string what = "index_reduce_(): ";
    const TensorMeta& self = a.tensor(0).meta;
    const Tensor& index = a.tensor(2);
    if (index.dtype() != DType::Int64 && index.dtype() != DType::Int32)
        return opError(a, what + "Expected dtype int32/int64 for index");
    auto r = parseReduce(a, a[4].s, false, what.c_str());
    if (!r.ok()) return r.error();
    auto p = alongDim(a, self, Tensor::metaOnly(index.meta), false, what);
    if (!p.ok()) return p.error();
    auto ok = checkSource(a, self, a.tensor(3).meta, index, p->dim, what);
    if (!ok.ok()) return ok.error();
    return metaValue(contiguousLike(self, self.shape));
}

Expected<Value> indexReduceKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& self = a.tensor(0);
    auto r = parseReduce(a, a[4].s, false, "index_reduce_(): ");
    if (!r.ok()) return r.error();
    auto p = alongDim(a, self.meta, a.tensor(2), false, "index_reduce_(): ");
    if (!p.ok()) return p.error();
    auto vals = toDoubles(self);
    reduceInto(vals, rowContribs(*p, toDoubles(a.tensor(3))), *r, a.toBool(5), self.dtype());
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> metaIndexCopy(const OpArgs& a) {
    const std::string what = "index_copy_(): ";
    const TensorMeta& self = a.tensor(0).meta;
    const Tensor& index = a.tensor(2);
    if (index.dtype() != DType::Int64)
        return opError(a, what + "Expected a long tensor for index, but got " +
                              std::string(dtypeTorchName(index.dtype())));
    auto p = alongDim(a, self, Tensor::metaOnly(index.meta), false, what);
    if (!p.ok()) return p.error();
    auto ok = checkSource(a, self, a.tensor(3).meta, index, p->dim, what);
    if (!ok.ok()) return ok.error();
    return metaValue(contiguousLike(self, self.shape));
}

Expected<Value> indexCopyKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& self = a.tensor(0);
    auto p = alongDim(a, self.meta, a.tensor(2), false, "index_copy_(): ");
    if (!p.ok()) return p.error();
    auto vals = toDoubles(self);
    reduceInto(vals, rowContribs(*p, toDoubles(a.tensor(3))), Reduce::Assign, true, self.dtype());
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

/// index_fill: a clone of self (its layout kept) with the indexed rows set to value.
Expected<Value> metaIndexFill(const OpArgs& a) {
    const std::string what = "index_fill_(): ";
    auto self = inputMeta(a);
    if (!self.ok()) return self.error();
    const Tensor& index = a.tensor(2);
    if (index.dtype() != DType::Int64) return opError(a, what + "Expected dtype int64 for index.");
    if (a.isTensor(3) && a.tensor(3).dim() != 0)
        return opError(a, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with " +
                              std::to_string(a.tensor(3).dim()) + " dimension(s).");
    auto p = alongDim(a, *self, Tensor::metaOnly(index.meta), true, what);
    if (!p.ok()) return p.error();
    return metaValue(freshMeta(*self, self->shape, preserveStrides(*self)));
}

Expected<Value> indexFillKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& self = a.tensor(0);
    auto p = alongDim(a, self.meta, a.tensor(2), true, "index_fill_(): ");
    if (!p.ok()) return p.error();
    const double v = roundTo(a.isTensor(3) ? toDoubles(a.tensor(3))[0] : a.toDouble(3), self.dtype());
    auto vals = toDoubles(self);
    for (int64_t o = 0; o < p->outer; ++o)
        for (int64_t i : p->idx)
            for (int64_t k = 0; k < p->inner; ++k) vals[static_cast<size_t>((o * p->size + i) * p->inner + k)] = v;
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

}  // namespace

void registerScatterOps(OpRegistry& r) {
    using C = OpCategory;
    r.add("aten.scatter_reduce.two",
          "scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) "
          "-> Tensor",
          C::Other, metaScatterReduce, scatterOutKernel);
    r.add("aten.scatter.reduce",
          "scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor", C::Other,
          metaScatterReduce, scatterOutKernel);
    r.add("aten.scatter.value_reduce",
          "scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor", C::Other,
          metaScatterReduce, scatterOutKernel);
    auto inplace = [&r](const char* name, const char* schema) {
        OpInfo& op = r.add(name, schema, C::Other, metaScatterInplace, scatterInplaceKernel);
        op.inplace = true;
        op.aliasesInput = true;
    };
    inplace("aten.scatter_.src", "scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)");
    inplace("aten.scatter_.value",
            "scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)");
    inplace("aten.scatter_.reduce",
            "scatter_.reduce(Tensor(a!) self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor(a!)");
    inplace("aten.scatter_.value_reduce",
            "scatter_.value_reduce(Tensor(a!) self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor(a!)");
    inplace("aten.scatter_reduce_.two",
            "scatter_reduce_.two(Tensor(a!) self, int dim, Tensor index, Tensor src, str reduce, *, "
            "bool include_self=True) -> Tensor(a!)");
    inplace("aten.scatter_add_.default",
            "scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)");
    r.add("aten.index_reduce.default",
          "index_reduce(Tensor self, int dim, Tensor index, Tensor source, str reduce, *, bool include_self=True) "
          "-> Tensor",
          C::Other, metaIndexReduce, indexReduceKernel);
    r.add("aten.index_copy.default", "index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
          C::Other, metaIndexCopy, indexCopyKernel);
    r.add("aten.index_fill.int_Scalar",
          "index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", C::Other, metaIndexFill,
          indexFillKernel);
    r.add("aten.index_fill.int_Tensor",
          "index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor", C::Other, metaIndexFill,
          indexFillKernel);
}

}  // namespace fxray
