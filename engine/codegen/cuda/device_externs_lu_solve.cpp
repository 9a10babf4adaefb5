// The device extern of linalg_lu_solve (kernels/lu_solve.cu), one thread per batch matrix:
// fp32/fp64 factors and right-hand sides, int32 pivots, the left-hand form with batches that
// match. Broadcast batches and right-hand solves (left=False) decline to the host before anything
// is allocated.
#include "codegen/cuda/op_externs.h"

#include "codegen/cuda/op_kernels.h"

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

}  // namespace

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
    auto fn = opKernelModule("lu_solve.cu")->function(std::string("fx_lu_solve_") + kernelSuffix(om->dtype));
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


}  // namespace fxray::cg::cuda
