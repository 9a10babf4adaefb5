// Host side of kernels/backward_ops.cu: operands made dense, launches.
#include "codegen/cuda/backward_ops.h"

#include "codegen/cuda/kernel_module.h"

#include <algorithm>
#include <array>

namespace fxray::cg::cuda {

namespace {

KernelModule& backwardModule() {
    static KernelModule* m =
        new KernelModule("fxray_backward_ops", {"dtype_io.cuh", "backward_ops.cu"});  // never destroyed
    return *m;
}

/// Dense copies of the operands where they are not dense already (held for the launch).
struct Dense {
    std::array<DeviceBuffer, 6> tmp;
    size_t used = 0;
    Expected<CUdeviceptr> operator()(const DeviceView& v) {
        auto d = denseView(v, tmp[used++]);
        if (!d.ok()) return d.error();
        return d->address();
    }
    Expected<CUdeviceptr> operator()(const std::optional<DeviceView>& v) {
        if (!v) return CUdeviceptr{0};
        return (*this)(*v);
    }
};

Status launch(const std::string& name, DType t, int64_t work, void** params) {
    const char* suffix = t == DType::Float64    ? "_f64"
                         : t == DType::Float16  ? "_f16"
                         : t == DType::BFloat16 ? "_bf16"
                                                : "_f32";
    auto fn = backwardModule().function(name + suffix);
    if (!fn.ok()) return fn.error();
    const int64_t cap = static_cast<int64_t>(std::max(1, runtime().smCount)) * 32;
    return launchGrid(*fn, static_cast<unsigned>(std::clamp<int64_t>((work + 127) / 128, 1, cap)), 1, 128, params,
                      name.c_str());
}

bool denseOut(const std::optional<DeviceView>& v, DType t) {
    return !v || (v->meta.isContiguous() && v->meta.dtype == t);
}

}  // namespace

Expected<std::string> backwardOpsSource() { return backwardModule().source(); }

bool backwardOpsSupport(DType t) { return t == DType::Float32 || t == DType::Float64; }
bool groupNormBackwardSupports(DType t) { return backwardOpsSupport(t) || t == DType::Float16 || t == DType::BFloat16; }

bool halfEmbeddingBackwardSupports(DType t) { return isHalfFloat(t); }

Status embeddingBackwardHalf(const DeviceView& grad, const DeviceView& indices, const DeviceView& out,
                             int64_t paddingIdx) {
    const TensorMeta& om = out.meta;
    const DType t = om.dtype;
    const DType it = indices.meta.dtype;
    if (!halfEmbeddingBackwardSupports(t) || grad.meta.dtype != t || om.shape.size() != 2 || !om.isContiguous() ||
        (it != DType::Int64 && it != DType::Int32))
        return makeError("device half-type embedding_dense_backward needs a dense 2-D output and int indices");
    const int64_t num = om.shape[0], D = om.shape[1], rows = indices.meta.numel();
    if (grad.meta.numel() != rows * D) return makeError("device embedding_dense_backward: grad does not match indices");
    const int64_t n = num * D;
    if (n == 0) return Status::success();
    auto acc = DeviceBuffer::allocate(static_cast<size_t>(n) * sizeof(float));
    if (!acc.ok()) return acc.error();
    if (Status s = check(runtime().cu.cuMemsetD8(acc->ptr(), 0, static_cast<size_t>(n) * sizeof(float)),
                         "zeroing embedding_dense_backward's fp32 sums");
        !s.ok())
        return s;
    Dense dense;
    auto pg = dense(grad);
    if (!pg.ok()) return pg.error();
    auto pi = dense(indices);
    if (!pi.ok()) return pi.error();
    CUdeviceptr pa = acc->ptr(), po = out.address();
    int64_t isize = dtypeItemSize(it), pad = paddingIdx, r = rows, d = D, nm = num, count = n;
    void* params[] = {&*pg, &*pi, &pa, &r, &d, &isize, &nm, &pad};
    if (rows * D > 0)
        if (Status s = launch("fx_embedding_bwd_acc", t, rows * D, params); !s.ok()) return s;
    void* rparams[] = {&pa, &po, &count};
    return launch("fx_round_from_f32", t, n, rparams);
}

Status maxPoolBackwardHalf(const DeviceView& gy, const DeviceView& indices, const DeviceView& gx, size_t spatialDims) {
    const TensorMeta& m = gx.meta;
    const DType t = m.dtype;
    if (!isHalfFloat(t) || gy.meta.dtype != t || !m.isContiguous() || m.shape.size() < spatialDims + 1 ||
        indices.meta.dtype != DType::Int64 || indices.meta.numel() != gy.meta.numel())
        return makeError("device half-type max pooling backward needs a dense gradient and int64 indices");
    const size_t nd = m.shape.size();
    int64_t planes = 1, HW = 1;
    for (size_t d = 0; d < nd; ++d) (d + spatialDims < nd ? planes : HW) *= m.shape[d];
    int64_t per = planes ? gy.meta.numel() / planes : 0, n = m.numel();
    if (n == 0) return Status::success();
    auto acc = DeviceBuffer::allocate(static_cast<size_t>(n) * sizeof(float));
    if (!acc.ok()) return acc.error();
    if (Status s = check(runtime().cu.cuMemsetD8(acc->ptr(), 0, static_cast<size_t>(n) * sizeof(float)),
                         "zeroing max pooling's fp32 gradient sums");
        !s.ok())
        return s;
    Dense dense;
    auto pg = dense(gy);
    if (!pg.ok()) return pg.error();
    auto pi = dense(indices);
    if (!pi.ok()) return pi.error();
    CUdeviceptr pa = acc->ptr(), po = gx.address();
    void* params[] = {&*pg, &*pi, &pa, &planes, &HW, &per};
    if (planes * per > 0)
        if (Status s = launch("fx_maxpool_bwd_acc", t, planes * per, params); !s.ok()) return s;
    void* rparams[] = {&pa, &po, &n};
    return launch("fx_round_from_f32", t, n, rparams);
}

namespace {

struct BnHalfArgs {
    int64_t N, C, S;
    int32_t wt, rt, st, nt;
    double mom, eps;
    int64_t train;
};

/// The kernels' type code of a per-channel tensor: 0 fp32, 1 fp16, 2 bf16, 3 fp64; -1 otherwise.
int typeCode(DType t) {
    return t == DType::Float32 ? 0 : t == DType::Float16 ? 1 : t == DType::BFloat16 ? 2 : t == DType::Float64 ? 3 : -1;
}

/// A dense [C] per-channel tensor of a float dtype (or absent); the code of its dtype into `code`
/// where present (the pair's dtypes must agree).
bool channelTensor(const std::optional<DeviceView>& v, int64_t C, int& code) {
    if (!v) return true;
    const int t = typeCode(v->meta.dtype);
    if (t < 0 || v->meta.numel() != C || (C > 1 && !v->meta.isContiguous()) || (code >= 0 && code != t)) return false;
    code = t;
    return true;
}

CUdeviceptr ptrOf(const std::optional<DeviceView>& v) { return v ? v->address() : CUdeviceptr{0}; }

Status launchPerChannel(const std::string& name, DType t, int64_t C, void** params) {
    auto fn = backwardModule().function(name + (t == DType::Float16 ? "_f16" : "_bf16"));
    if (!fn.ok()) return fn.error();
    return launchGrid(*fn, static_cast<unsigned>(std::clamp<int64_t>(C, 1, 65535)), 1, 256, params, name.c_str());
}

}  // namespace

bool halfBatchNormSupports(DType x) { return isHalfFloat(x); }

Status batchNormTrainHalf(const DeviceView& x, const std::optional<DeviceView>& w, const std::optional<DeviceView>& b,
                          const std::optional<DeviceView>& rm, const std::optional<DeviceView>& rv, const DeviceView& y,
                          const DeviceView& mean, const DeviceView& invstd, const std::optional<DeviceView>& nrm,
                          const std::optional<DeviceView>& nrv, double momentum, double eps) {
    const TensorMeta& xm = x.meta;
    if (!halfBatchNormSupports(xm.dtype) || xm.shape.size() < 2 || y.meta.dtype != xm.dtype || !y.meta.isContiguous() ||
        y.meta.shape != xm.shape || (rm.has_value() != rv.has_value()) || (nrm.has_value() != rm.has_value()) ||
        (nrv.has_value() != rv.has_value()))
        return makeError("device half-type batch norm: layouts");
    const int64_t N = xm.shape[0], C = xm.shape[1], S = N * C == 0 ? 0 : xm.numel() / (N * C);
    int wt = -1, rt = -1, st = -1, nt = -1;
    if (!channelTensor(w, C, wt) || !channelTensor(b, C, wt) || !channelTensor(rm, C, rt) ||
        !channelTensor(rv, C, rt) || !channelTensor(mean, C, st) || !channelTensor(invstd, C, st) ||
        !channelTensor(nrm, C, nt) || !channelTensor(nrv, C, nt))
        return makeError("device half-type batch norm needs dense float [C] per-channel tensors");
    if (C == 0 || N * S == 0) return Status::success();
    Dense dense;
    auto px = dense(x);
    if (!px.ok()) return px.error();
    BnHalfArgs a{N, C, S, std::max(wt, 0), std::max(rt, 0), std::max(st, 0), std::max(nt, 0), momentum, eps, 1};
    CUdeviceptr pw = ptrOf(w), pb = ptrOf(b), prm = ptrOf(rm), prv = ptrOf(rv), py = y.address(), pm = mean.address(),
                pis = invstd.address(), pnm = ptrOf(nrm), pnv = ptrOf(nrv);
    void* params[] = {&*px, &pw, &pb, &prm, &prv, &py, &pm, &pis, &pnm, &pnv, &a};
    return launchPerChannel("fx_bn_train_half", xm.dtype, C, params);
}

Status batchNormBackwardHalf(const DeviceView& gy, const DeviceView& x, const std::optional<DeviceView>& w,
                             const std::optional<DeviceView>& rm, const std::optional<DeviceView>& rv,
                             const std::optional<DeviceView>& mean, const std::optional<DeviceView>& invstd, bool train,
                             double eps, const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gw,
                             const std::optional<DeviceView>& gb) {
    const TensorMeta& xm = x.meta;
    if (!halfBatchNormSupports(xm.dtype) || xm.shape.size() < 2 || gy.meta.shape != xm.shape ||
        gy.meta.dtype != xm.dtype ||
        (gx && (gx->meta.dtype != xm.dtype || !gx->meta.isContiguous() || gx->meta.shape != xm.shape)))
        return makeError("device half-type batch norm backward: layouts");
    if (train ? (!mean || !invstd) : (!rm || !rv)) return makeError("device batch norm backward: statistics missing");
    const int64_t N = xm.shape[0], C = xm.shape[1], S = N * C == 0 ? 0 : xm.numel() / (N * C);
    int wt = -1, rt = -1, st = -1;
    if (!channelTensor(w, C, wt) || !channelTensor(gw, C, wt) || !channelTensor(gb, C, wt) ||
        !channelTensor(rm, C, rt) || !channelTensor(rv, C, rt) || !channelTensor(mean, C, st) ||
        !channelTensor(invstd, C, st))
        return makeError("device half-type batch norm backward needs dense float [C] per-channel tensors");
    if (C == 0) return Status::success();
    Dense dense;
    auto pgy = dense(gy);
    if (!pgy.ok()) return pgy.error();
    auto px = dense(x);
    if (!px.ok()) return px.error();
    BnHalfArgs a{N, C, S, std::max(wt, 0), std::max(rt, 0), std::max(st, 0), 0, 0.0, eps, train ? 1 : 0};
    CUdeviceptr pw = ptrOf(w), prm = ptrOf(rm), prv = ptrOf(rv), pm = ptrOf(mean), pis = ptrOf(invstd), pgx = ptrOf(gx),
                pgw = ptrOf(gw), pgb = ptrOf(gb);
    void* params[] = {&*pgy, &*px, &pw, &prm, &prv, &pm, &pis, &pgx, &pgw, &pgb, &a};
    return launchPerChannel("fx_bn_bwd_half", xm.dtype, C, params);
}

Status multiMarginBackward(const DeviceView& go, const DeviceView& x, const DeviceView& target,
                           const std::optional<DeviceView>& weight, double p, double margin, int64_t reduction,
                           int64_t rows, int64_t dim, const DeviceView& gx) {
    const DType t = x.meta.dtype;
    if (rows * dim == 0) return Status::success();
    if (!backwardOpsSupport(t) || target.meta.dtype != DType::Int64 || !denseOut(gx, t))
        return makeError("device multi_margin_loss_backward: operands");
    Dense dense;
    auto pgo = dense(go), px = dense(x), pt = dense(target), pw = dense(weight);
    for (auto* e : {&pgo, &px, &pt, &pw})
        if (!e->ok()) return e->error();
    CUdeviceptr a0 = *pgo, a1 = *px, a2 = *pt, a3 = *pw, a4 = gx.address();
    long long goLen = go.meta.numel(), r = rows, d = dim;
    double g = 1.0 / static_cast<double>(reduction == 1 ? rows * dim : dim);
    void* params[] = {&a0, &goLen, &a1, &a2, &a3, &a4, &r, &d, &p, &margin, &g};
    return launch("fx_multi_margin_bwd", t, rows, params);
}

Status multilabelMarginBackward(const DeviceView& go, const DeviceView& x, const DeviceView& target,
                                const DeviceView& isTarget, int64_t reduction, int64_t rows, int64_t dim,
                                const DeviceView& gx) {
    const DType t = x.meta.dtype;
    if (rows * dim == 0) return Status::success();
    if (!backwardOpsSupport(t) || target.meta.dtype != DType::Int64 || isTarget.meta.dtype != t || !denseOut(gx, t))
        return makeError("device multilabel_margin_loss_backward: operands");
    Dense dense;
    auto pgo = dense(go), px = dense(x), pt = dense(target), pm = dense(isTarget);
    for (auto* e : {&pgo, &px, &pt, &pm})
        if (!e->ok()) return e->error();
    CUdeviceptr a0 = *pgo, a1 = *px, a2 = *pt, a3 = *pm, a4 = gx.address();
    long long goLen = go.meta.numel(), r = rows, d = dim;
    double g = 1.0 / static_cast<double>(reduction == 1 ? rows * dim : dim);
    void* params[] = {&a0, &goLen, &a1, &a2, &a3, &a4, &r, &d, &g};
    return launch("fx_multilabel_margin_bwd", t, rows, params);
}

Status pdistBackward(const DeviceView& grad, const DeviceView& x, double p, const DeviceView& dist,
                     const DeviceView& gx) {
    const DType t = x.meta.dtype;
    if (!backwardOpsSupport(t) || x.meta.shape.size() != 2 || grad.meta.dtype != t || dist.meta.dtype != t ||
        !denseOut(gx, t))
        return makeError("device _pdist_backward: operands");
    const int64_t n = x.meta.shape[0], m = x.meta.shape[1];
    if (n * m == 0) return Status::success();
    Dense dense;
    auto pg = dense(grad), px = dense(x), pd = dense(dist);
    for (auto* e : {&pg, &px, &pd})
        if (!e->ok()) return e->error();
    CUdeviceptr a0 = *pg, a1 = *px, a2 = *pd, a3 = gx.address();
    long long nn = n, mm = m;
    void* params[] = {&a0, &a1, &a2, &a3, &nn, &mm, &p};
    return launch("fx_pdist_bwd", t, n * m, params);
}

Status groupNormBackward(const DeviceView& dy, const DeviceView& x, const DeviceView& mean, const DeviceView& rstd,
                         const std::optional<DeviceView>& weight, int64_t N, int64_t C, int64_t HxW, int64_t G,
                         const std::optional<DeviceView>& gi, const std::optional<DeviceView>& gw,
                         const std::optional<DeviceView>& gb) {
    const DType t = x.meta.dtype;
    if (!groupNormBackwardSupports(t) || G <= 0 || C % G != 0 || !denseOut(gi, t) || !denseOut(gw, t) ||
        !denseOut(gb, t))
        return makeError("device native_group_norm_backward: operands");
    Dense dense;
    auto pdy = dense(dy), px = dense(x), pm = dense(mean), pr = dense(rstd), pw = dense(weight);
    for (auto* e : {&pdy, &px, &pm, &pr, &pw})
        if (!e->ok()) return e->error();
    CUdeviceptr a0 = *pdy, a1 = *px, a2 = *pm, a3 = *pr, a4 = *pw;
    long long n = N, c = C, g = G, hw = HxW, ng = N * G, per = C / G;
    if (gi && N * C * HxW > 0) {
        CUdeviceptr o = gi->address();
        void* params[] = {&a0, &a1, &a2, &a3, &a4, &o, &ng, &g, &per, &hw};
        if (Status s = launch("fx_group_norm_bwd_input", t, N * G, params); !s.ok()) return s;
    }
    if ((gw || gb) && C > 0) {
        CUdeviceptr ow = gw ? gw->address() : 0, ob = gb ? gb->address() : 0;
        void* params[] = {&a0, &a1, &a2, &a3, &ow, &ob, &n, &c, &g, &hw};
        if (Status s = launch("fx_group_norm_bwd_affine", t, C, params); !s.ok()) return s;
    }
    return Status::success();
}

Status rmsNormBackward(const DeviceView& dy, const DeviceView& x, int64_t n, const DeviceView& rstd,
                       const std::optional<DeviceView>& weight, const std::optional<DeviceView>& gi,
                       const std::optional<DeviceView>& gw) {
    const DType t = x.meta.dtype;
    if (!backwardOpsSupport(t) || n <= 0 || x.meta.numel() % n != 0 || !denseOut(gi, t) || !denseOut(gw, t))
        return makeError("device _fused_rms_norm_backward: operands");
    const int64_t rows = x.meta.numel() / n;
    Dense dense;
    auto pdy = dense(dy), px = dense(x), pr = dense(rstd), pw = dense(weight);
    for (auto* e : {&pdy, &px, &pr, &pw})
        if (!e->ok()) return e->error();
    CUdeviceptr a0 = *pdy, a1 = *px, a2 = *pr, a3 = *pw;
    long long M = rows, N = n;
    if (gi && rows > 0) {
        CUdeviceptr o = gi->address();
        void* params[] = {&a0, &a1, &a2, &a3, &o, &M, &N};
        if (Status s = launch("fx_rms_norm_bwd_input", t, rows, params); !s.ok()) return s;
    }
    if (gw) {
        CUdeviceptr o = gw->address();
        void* params[] = {&a0, &a1, &a2, &o, &M, &N};
        if (Status s = launch("fx_rms_norm_bwd_weight", t, n, params); !s.ok()) return s;
    }
    return Status::success();
}

}  // namespace fxray::cg::cuda
