// Host side of kernels/svd.cu: layouts checked, scratch allocated, one launch.
#include "codegen/cuda/linalg_svd.h"

#include "codegen/cuda/kernel_module.h"

#include "codegen/cuda/kernels/svd_args.h"

#include <algorithm>
#include <limits>

namespace fxray::cg::cuda {

namespace {

KernelModule& svdModule() {
    static KernelModule* m = new KernelModule("fxray_svd", {"svd_args.h", "svd.cu"});  // never destroyed
    return *m;
}

/// Batches, m and n of A [.., m, n]; false for fewer than 2 dims.
bool sizesOf(const TensorMeta& A, FxSvdArgs& a) {
    const size_t nd = A.shape.size();
    if (nd < 2) return false;
    a.m = A.shape[nd - 2];
    a.n = A.shape[nd - 1];
    a.batches = 1;
    for (size_t d = 0; d + 2 < nd; ++d) a.batches *= A.shape[d];
    return true;
}

/// Row and column strides of a [.., r, c] factor whose batches sit r * c apart; false otherwise.
bool factorStrides(const TensorMeta& f, int64_t batches, int64_t r, int64_t c, long long& row, long long& col,
                   long long& batch) {
    const size_t nd = f.shape.size();
    if (nd < 2 || f.shape[nd - 2] != r || f.shape[nd - 1] != c || f.numel() != batches * r * c) return false;
    row = f.strides[nd - 2];
    col = f.strides[nd - 1];
    batch = r * c;
    int64_t expect = r * c;
    for (size_t d = nd - 2; d-- > 0;) {
        if (f.shape[d] != 1 && f.strides[d] != expect) return false;
        expect *= f.shape[d];
    }
    return true;
}

int64_t scratchPerMatrix(int64_t m, int64_t n) {
    const int64_t p = std::max(m, n), q = std::min(m, n);
    return 2 * p * q + 2 * q * q + 2 * q;
}

const char* suffixOf(DType t) { return t == DType::Float64 ? "f64" : "f32"; }

Status launch(const char* name, DType t, int64_t batches, void** params) {
    auto fn = svdModule().function(std::string(name) + suffixOf(t));
    if (!fn.ok()) return fn.error();
    return launchGrid(*fn, static_cast<unsigned>(std::min<int64_t>((batches + 63) / 64, 65535)), 1, 64, params, name);
}

}  // namespace

Expected<std::string> svdSource() { return svdModule().source(); }

bool svdSupports(DType t) { return t == DType::Float32 || t == DType::Float64; }

Status svd(const DeviceView& A, const DeviceView& S, const std::optional<DeviceView>& U,
           const std::optional<DeviceView>& Vh) {
    const DType t = A.meta.dtype;
    FxSvdArgs a{};
    if (!svdSupports(t) || !sizesOf(A.meta, a)) return makeError("device SVD needs fp32/fp64 matrices");
    const int64_t k = std::min(a.m, a.n);
    if (S.meta.dtype != t || !S.meta.isContiguous() || S.meta.numel() != a.batches * k)
        return makeError("device SVD needs dense singular values [.., k] of A's dtype");
    a.wantUV = U && Vh ? 1 : 0;
    if (a.wantUV && (U->meta.dtype != t || Vh->meta.dtype != t ||
                     !factorStrides(U->meta, a.batches, a.m, k, a.uRow, a.uCol, a.uBatch) ||
                     !factorStrides(Vh->meta, a.batches, k, a.n, a.vRow, a.vCol, a.vBatch)))
        return makeError("device SVD: U or Vh are not reduced factors with batches apart");
    if (a.batches * k == 0) return Status::success();
    DeviceBuffer ta;
    auto ad = denseView(A, ta);
    if (!ad.ok()) return ad.error();
    auto scratch = DeviceBuffer::allocate(static_cast<size_t>(a.batches * scratchPerMatrix(a.m, a.n)) * sizeof(double));
    if (!scratch.ok()) return scratch.error();
    CUdeviceptr pa = ad->address(), ps = S.address(), pu = a.wantUV ? U->address() : 0,
                pv = a.wantUV ? Vh->address() : 0, pscr = scratch->ptr();
    void* params[] = {&pa, &pu, &ps, &pv, &pscr, &a};
    return launch("fx_svd_", t, a.batches, params);
}

bool pinvTolerance(const DeviceView& v, int64_t batches) {
    return svdSupports(v.meta.dtype) && v.meta.isContiguous() && (v.meta.numel() == 1 || v.meta.numel() == batches);
}

Status pinv(const DeviceView& A, const std::optional<DeviceView>& atol, const std::optional<DeviceView>& rtol,
            const DeviceView& R) {
    const DType t = A.meta.dtype;
    FxSvdArgs a{};
    if (!svdSupports(t) || !sizesOf(A.meta, a)) return makeError("device pinv needs fp32/fp64 matrices");
    if (R.meta.dtype != t || !R.meta.isContiguous() || R.meta.numel() != a.batches * a.n * a.m)
        return makeError("device pinv needs a dense [.., n, m] output of A's dtype");
    if ((atol && !pinvTolerance(*atol, a.batches)) || (rtol && !pinvTolerance(*rtol, a.batches)))
        return makeError("device pinv: atol / rtol must be fp32/fp64, one value or one per matrix");
    a.hasAtol = atol ? 1 : 0;
    a.hasRtol = rtol ? 1 : 0;
    a.atolStride = atol && atol->meta.numel() != 1 ? 1 : 0;
    a.rtolStride = rtol && rtol->meta.numel() != 1 ? 1 : 0;
    a.atolF64 = atol && atol->meta.dtype == DType::Float64 ? 1 : 0;
    a.rtolF64 = rtol && rtol->meta.dtype == DType::Float64 ? 1 : 0;
    const double eps = t == DType::Float64 ? std::numeric_limits<double>::epsilon()
                                           : static_cast<double>(std::numeric_limits<float>::epsilon());
    a.defaultRtol = eps * static_cast<double>(std::max(a.m, a.n));
    if (R.meta.numel() == 0) return Status::success();
    DeviceBuffer ta;
    auto ad = denseView(A, ta);
    if (!ad.ok()) return ad.error();
    auto scratch = DeviceBuffer::allocate(static_cast<size_t>(a.batches * scratchPerMatrix(a.m, a.n)) * sizeof(double));
    if (!scratch.ok()) return scratch.error();
    CUdeviceptr pa = ad->address(), pat = atol ? atol->address() : 0, prt = rtol ? rtol->address() : 0,
                pr = R.address(), pscr = scratch->ptr();
    void* params[] = {&pa, &pat, &prt, &pr, &pscr, &a};
    return launch("fx_pinv_", t, a.batches, params);
}

}  // namespace fxray::cg::cuda
