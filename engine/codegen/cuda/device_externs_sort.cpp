// Device externs of the sorting ops (sort_kernels.h): sort, sort.stable and topk as a stable
// merge sort of every row, the uniques (_unique, _unique2, unique_consecutive) over the
// flattened input, and repeat_interleave.Tensor on the same one-block scan. Their outputs were
// sized ahead from the graph's annotations; an input that needs another size is an error that
// says so. Listed in deviceExternTable().
#include "codegen/cuda/device_externs.h"

#include "codegen/cuda/sort_kernels.h"

namespace fxray::cg::cuda {

namespace {

/// sort(self, dim, descending) / sort.stable(self, *, stable, dim, descending) when K < 0;
/// topk(self, k, dim, largest, sorted) otherwise (K: k's argument).
template <int DimArg, int K>
Expected<bool> sortOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    auto x = c.view(0);
    if (!A || !x || !deviceSortSupports(x->meta.dtype) || c.outCount() != 2) return false;
    const int64_t nd = std::max<int64_t>(static_cast<int64_t>(x->meta.shape.size()), 1);
    int64_t dim = A->toInt(DimArg);
    if (dim < 0) dim += nd;
    if (dim < 0 || dim >= nd) return false;
    const int64_t n = x->meta.shape.empty() ? 1 : x->meta.shape[static_cast<size_t>(dim)];
    const int64_t k = K < 0 ? n : A->toInt(K);
    if (k < 0 || k > n) return false;
    auto outs = c.outs(2);
    if (!outs.ok()) return outs.error();
    const auto& o = *outs;
    if (Status s = sortRowsOnDevice(*x, dim, A->toBool(DimArg + 1), k, o[0] ? &*o[0] : nullptr,
                                    o[1] ? &*o[1] : nullptr);
        !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// _unique(self, sorted, return_inverse), _unique2(self, sorted, return_inverse, return_counts),
/// unique_consecutive(self, return_inverse, return_counts, dim=None).
template <int InverseArg, int CountsArg, bool Consecutive>
Expected<bool> uniqueOnDeviceExtern(DeviceCall& c) {
    const OpArgs* A = c.args();
    auto x = c.view(0);
    if (!A || !x || !deviceSortSupports(x->meta.dtype)) return false;
    if (Consecutive && !A->isNone(3)) return false;
    const bool wantInverse = A->toBool(InverseArg), wantCounts = CountsArg >= 0 && A->toBool(CountsArg);
    auto outs = c.outs(c.outCount());
    if (!outs.ok()) return outs.error();
    const auto& o = *outs;
    auto at = [&](size_t i, bool wanted) -> const DeviceView* {
        return wanted && i < o.size() && o[i] && o[i]->meta.numel() > 0 ? &*o[i] : nullptr;
    };
    const DeviceView* values = o.empty() || !o[0] ? nullptr : &*o[0];
    if (Status s = uniqueOnDevice(*x, Consecutive, values, at(1, wantInverse), at(2, wantCounts)); !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// repeat_interleave.Tensor(repeats, *, output_size): int64 repeats only.
Expected<bool> repeatInterleaveOnDeviceExtern(DeviceCall& c) {
    auto r = c.view(0);
    const TensorMeta* om = c.out0();
    if (!r || !om || r->meta.dtype != DType::Int64 || r->meta.shape.size() > 1 || !om->isContiguous()) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = repeatInterleaveOnDevice(*r, **o); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

}  // namespace

const std::vector<DeviceExtern>& sortDeviceExterns() {
    static const std::vector<DeviceExtern> t = {
        {"sort", sortOnDevice<1, -1>},
        {"sort_stable", sortOnDevice<2, -1>},
        {"topk", sortOnDevice<2, 1>},
        {"unique", uniqueOnDeviceExtern<2, -1, false>},
        {"unique2", uniqueOnDeviceExtern<2, 3, false>},
        {"unique_consecutive", uniqueOnDeviceExtern<1, 2, true>},
        {"repeat_interleave", repeatInterleaveOnDeviceExtern},
    };
    return t;
}

}  // namespace fxray::cg::cuda
