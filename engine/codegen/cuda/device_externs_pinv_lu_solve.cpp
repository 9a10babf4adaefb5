// The device externs of linalg_pinv.atol_rtol_tensor and linalg_lu_solve
// (kernels/pinv_lu_solve.cu), one thread per batch matrix: fp32/fp64 matrices, tolerances given
// as one-element fp64 tensors (or None), lu_solve's left-hand form with batches that match. The
// hermitian pinv (which reads one triangle), broadcast batches and right-hand solves decline to
// the host before anything is allocated.
#include "codegen/cuda/device_externs.h"

#include "codegen/cuda/op_kernels.h"

#include <algorithm>
#include <limits>
#include <string>

namespace fxray::cg::cuda {

namespace {

bool floatType(DType t) { return t == DType::Float32 || t == DType::Float64; }

int64_t batchOf(const std::vector<int64_t>& s) {
    int64_t b = 1;
    for (size_t i = 0; i + 2 < s.size(); ++i) b *= s[i];
    return b;
}

/// The output computed dense (in `tmp` when its own layout is not), copied into place by finish().
struct DenseOut {
    DeviceView out, dense;
    DeviceBuffer tmp;
    Status finish() { return dense.base == out.base ? Status::success() : stridedCopy(dense, out); }
};

Expected<bool> makeDenseOut(const DeviceView& out, DenseOut& d) {
    d.out = out;
    if (out.meta.isContiguous()) {
        d.dense = out;
        return true;
    }
    auto b = denseBuffer(out.meta.shape, out.meta.dtype, d.tmp);
    if (!b.ok()) return b.error();
    d.dense = *b;
    return true;
}

// linalg_pinv.atol_rtol_tensor(self, *, atol=None, rtol=None, hermitian=False)
Expected<bool> pinvOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    const TensorMeta* om = c.out0();
    auto x = c.view(0);
    if (!A || !om || !x || !floatType(om->dtype) || x->meta.dtype != om->dtype || x->meta.shape.size() < 2 ||
        (A->size() > 3 && !A->isNone(3) && A->toBool(3)))
        return false;
    const size_t nd = x->meta.shape.size();
    const int64_t m = x->meta.shape[nd - 2], n = x->meta.shape[nd - 1], batches = batchOf(x->meta.shape);
    std::vector<int64_t> want(x->meta.shape.begin(), x->meta.shape.end() - 2);
    want.insert(want.end(), {n, m});
    if (om->shape != want) return false;
    std::optional<DeviceView> tol[2];
    for (size_t i = 0; i < 2; ++i) {
        if (A->size() <= i + 1 || A->isNone(i + 1)) continue;
        tol[i] = c.view(i + 1);
        if (!tol[i] || tol[i]->meta.dtype != DType::Float64 || tol[i]->meta.numel() != 1) return false;
    }
    auto fn = opKernelModule("pinv_lu_solve.cu")->function(std::string("fx_pinv_") + kernelSuffix(om->dtype));
    if (!fn.ok()) return fn.error();
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    DenseOut d;
    if (auto r = makeDenseOut(**o, d); !r.ok()) return r.error();
    if (batches * m * n > 0) {
        const int64_t p = std::max(m, n), q = std::min(m, n);
        DeviceBuffer tx, scratch;
        auto xd = denseView(*x, tx);
        if (!xd.ok()) return xd.error();
        auto s = denseBuffer({batches * (p * q + q * q + q)}, DType::Float64, scratch);
        if (!s.ok()) return s.error();
        const double eps = om->dtype == DType::Float64 ? std::numeric_limits<double>::epsilon()
                                                       : static_cast<double>(std::numeric_limits<float>::epsilon());
        double rtolDefault = eps * static_cast<double>(p);
        CUdeviceptr px = elementAddr(*xd), po = elementAddr(d.dense), ps = elementAddr(*s),
                    pa = tol[0] ? elementAddr(*tol[0]) : 0, pr = tol[1] ? elementAddr(*tol[1]) : 0;
        int64_t nb = batches, mm = m, nn = n;
        void* params[] = {&px, &po, &ps, &pa, &pr, &rtolDefault, &nb, &mm, &nn};
        if (Status st = launchOver(*fn, batches, params, "fx_pinv"); !st.ok()) return st.error();
    } else if (Status st = zeroFill(d.dense); !st.ok()) {
        return st.error();
    }
    if (Status st = d.finish(); !st.ok()) return st.error();
    ++c.stats().deviceExterns;
    return true;
}

// linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False)
Expected<bool> luSolveOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    const TensorMeta* om = c.out0();
    auto lu = c.view(0), piv = c.view(1), b = c.view(2);
    if (!A || !om || !lu || !piv || !b || !floatType(om->dtype) || lu->meta.dtype != om->dtype ||
        b->meta.dtype != om->dtype || piv->meta.dtype != DType::Int32 || om->shape.size() < 2 ||
        b->meta.shape != om->shape || (A->size() > 3 && !A->isNone(3) && !A->toBool(3)))
        return false;
    const size_t nd = om->shape.size();
    const int64_t n = om->shape[nd - 2], k = om->shape[nd - 1], batches = batchOf(om->shape);
    std::vector<int64_t> luShape(om->shape.begin(), om->shape.end() - 2), pivShape = luShape;
    luShape.insert(luShape.end(), {n, n});
    pivShape.push_back(n);
    if (lu->meta.shape != luShape || piv->meta.shape != pivShape) return false;
    const bool adjoint = A->size() > 4 && !A->isNone(4) && A->toBool(4);
    auto fn = opKernelModule("pinv_lu_solve.cu")->function(std::string("fx_lu_solve_") + kernelSuffix(om->dtype));
    if (!fn.ok()) return fn.error();
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    DenseOut d;
    if (auto r = makeDenseOut(**o, d); !r.ok()) return r.error();
    if (Status s = stridedCopy(*b, d.dense); !s.ok()) return s.error();
    if (batches * n * k > 0) {
        DeviceBuffer tl, tp, scratch;
        auto ld = denseView(*lu, tl), pd = denseView(*piv, tp);
        if (!ld.ok()) return ld.error();
        if (!pd.ok()) return pd.error();
        auto s = denseBuffer({batches * n * k}, DType::Float64, scratch);
        if (!s.ok()) return s.error();
        CUdeviceptr pl = elementAddr(*ld), pp = elementAddr(*pd), px = elementAddr(d.dense), ps = elementAddr(*s);
        int64_t nb = batches, nn = n, kk = k;
        int adj = adjoint ? 1 : 0;
        void* params[] = {&pl, &pp, &px, &ps, &nb, &nn, &kk, &adj};
        if (Status st = launchOver(*fn, batches, params, "fx_lu_solve"); !st.ok()) return st.error();
    }
    if (Status st = d.finish(); !st.ok()) return st.error();
    ++c.stats().deviceExterns;
    return true;
}

}  // namespace

const std::vector<DeviceExtern>& pinvLuSolveDeviceExterns() {
    static const std::vector<DeviceExtern> t = {
        {"pinv", pinvOnDevice},
        {"lu_solve", luSolveOnDevice},
    };
    return t;
}

}  // namespace fxray::cg::cuda
