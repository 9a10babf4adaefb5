// The device externs of the margin losses', pdist's and the norms' backwards
// (kernels/loss_norm_backward.cu), for fp32/fp64 operands of one dtype and int64 targets. What
// the kernels do not handle (other dtypes, p other than 1 or 2 for the margin loss, sizes that
// disagree) declines to the host before anything is allocated.
#include "codegen/cuda/op_externs.h"

#include "codegen/cuda/op_kernels.h"

#include <string>

namespace fxray::cg::cuda {

namespace {

bool floatType(DType t) { return t == DType::Float32 || t == DType::Float64; }

/// Dense copies of views, held until the call returns.
struct Dense {
    std::vector<DeviceBuffer> tmp;
    Status status;
    CUdeviceptr operator()(const std::optional<DeviceView>& v) {
        if (!v) return 0;
        tmp.emplace_back();
        auto d = denseView(*v, tmp.back());
        if (!d.ok()) {
            status = d.error();
            return 0;
        }
        return elementAddr(*d);
    }
};

Expected<CUfunction> kernel(const std::string& name, DType t) {
    return opKernelModule("loss_norm_backward.cu")->function(name + "_" + kernelSuffix(t));
}

/// Rows of a (C), (N, C) or 0-d class-score input: nframe rows of dim classes.
std::pair<int64_t, int64_t> frames(const TensorMeta& x) {
    if (x.shape.size() == 1) return {1, x.shape[0]};
    if (x.shape.size() == 2) return {x.shape[0], x.shape[1]};
    return {1, 1};
}

/// Output i when the graph asks for it: dense, of dtype t, of n elements; else declined.
bool outputFits(DeviceCall& c, size_t i, DType t, int64_t n) {
    const TensorMeta* m = c.outMeta(i);
    return !m || (m->dtype == t && m->isContiguous() && m->numel() == n);
}

// multi_margin_loss_backward(grad_output, self, target, p, margin, weight, reduction)
// multilabel_margin_loss_backward(grad_output, self, target, reduction, is_target)
template <bool Multilabel>
Expected<bool> marginBackward(DeviceCall& c) {
    const OpArgs* A = c.args();
    const TensorMeta* om = c.out0();
    if (!A || !om || !floatType(om->dtype) || !om->isContiguous()) return false;
    auto go = c.view(0), x = c.view(1), target = c.view(2);
    if (!go || !x || !target || go->meta.dtype != om->dtype || x->meta.dtype != om->dtype ||
        target->meta.dtype != DType::Int64 || x->meta.shape.size() > 2 || om->numel() != x->meta.numel())
        return false;
    const auto [nframe, dim] = frames(x->meta);
    const int64_t goN = go->meta.numel();
    if (dim <= 0 || (goN != 1 && goN != nframe)) return false;
    const int64_t reduction = A->toInt(Multilabel ? 3 : 6);
    double g = 1.0 / static_cast<double>(reduction == 1 ? nframe * dim : dim);
    std::optional<DeviceView> extra;  // weight (multi_margin) or is_target (multilabel)
    double p = 1.0, margin = 1.0;
    if (Multilabel) {
        extra = c.view(4);
        if (!extra || extra->meta.dtype != om->dtype || extra->meta.numel() != x->meta.numel() ||
            target->meta.numel() != x->meta.numel())
            return false;
    } else {
        p = A->toDouble(3), margin = A->toDouble(4);
        if ((p != 1.0 && p != 2.0) || target->meta.numel() != nframe) return false;
        if (!A->isNone(5)) {
            extra = c.view(5);
            if (!extra || extra->meta.dtype != om->dtype || extra->meta.numel() != dim) return false;
        }
    }
    auto fn = kernel(Multilabel ? "fx_multilabel_margin_bwd" : "fx_multi_margin_bwd", om->dtype);
    if (!fn.ok()) return fn.error();
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    Dense dense;
    CUdeviceptr pgo = dense(go), px = dense(x), pt = dense(target), pe = dense(extra), pgx = elementAddr(**o);
    if (!dense.status.ok()) return dense.status.error();
    int64_t nf = nframe, nd = dim, gn = goN;
    Status s;
    if (Multilabel) {
        void* params[] = {&pgo, &px, &pt, &pe, &pgx, &nf, &nd, &gn, &g};
        s = launchOver(*fn, nframe, params, "fx_multilabel_margin_bwd");
    } else {
        void* params[] = {&pgo, &px, &pt, &pe, &pgx, &nf, &nd, &gn, &p, &margin, &g};
        s = launchOver(*fn, nframe, params, "fx_multi_margin_bwd");
    }
    if (!s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

}  // namespace

Expected<bool> multiMarginBackwardOnDevice(DeviceCall& c) { return marginBackward<false>(c); }
Expected<bool> multilabelMarginBackwardOnDevice(DeviceCall& c) { return marginBackward<true>(c); }

// _pdist_backward(grad, self, p, pdist)
Expected<bool> pdistBackwardOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    const TensorMeta* om = c.out0();
    if (!A || !om || !floatType(om->dtype) || !om->isContiguous()) return false;
    auto x = c.view(1);
    if (!x || x->meta.shape.size() != 2 || x->meta.dtype != om->dtype || om->shape != x->meta.shape) return false;
    int64_t n = x->meta.shape[0], m = x->meta.shape[1];
    const int64_t pairs = n > 1 ? n * (n - 1) / 2 : 0;
    // Without pairs (one row) the gradient is zeros and grad / pdist are empty: nothing to read
    // (an empty value may have no device buffer).
    std::optional<DeviceView> grad, dist;
    if (pairs > 0) {
        grad = c.view(0), dist = c.view(3);
        if (!grad || !dist || grad->meta.dtype != om->dtype || dist->meta.dtype != om->dtype ||
            grad->meta.numel() != pairs || dist->meta.numel() != pairs)
            return false;
    } else if (A->tensor(0).meta.numel() != 0 || A->tensor(3).meta.numel() != 0) {
        return false;
    }
    auto fn = kernel("fx_pdist_bwd", om->dtype);
    if (!fn.ok()) return fn.error();
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    Dense dense;
    CUdeviceptr pg = dense(grad), px = dense(x), pd = dense(dist), pgx = elementAddr(**o);
    if (!dense.status.ok()) return dense.status.error();
    double p = A->toDouble(2);
    void* params[] = {&pg, &px, &pd, &pgx, &n, &m, &p};
    if (n * m > 0)
        if (Status s = launchOver(*fn, n * m, params, "fx_pdist_bwd"); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

// native_group_norm_backward(grad_out, input, mean, rstd, weight?, N, C, HxW, group, output_mask)
Expected<bool> groupNormBackwardOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    if (!A || c.outCount() != 3) return false;
    int64_t N = A->toInt(5), C = A->toInt(6), HxW = A->toInt(7), G = A->toInt(8);
    auto dy = c.view(0), x = c.view(1), mean = c.view(2), rstd = c.view(3);
    std::optional<DeviceView> w = A->isNone(4) ? std::nullopt : c.view(4);
    if (!dy || !x || !mean || !rstd || (!A->isNone(4) && !w) || G <= 0 || C % G != 0) return false;
    const DType t = x->meta.dtype;
    if (!floatType(t) || dy->meta.dtype != t || mean->meta.dtype != t || rstd->meta.dtype != t ||
        (w && (w->meta.dtype != t || w->meta.numel() != C)) || x->meta.numel() != N * C * HxW ||
        dy->meta.numel() != N * C * HxW || mean->meta.numel() != N * G || rstd->meta.numel() != N * G ||
        !outputFits(c, 0, t, N * C * HxW) || !outputFits(c, 1, t, C) || !outputFits(c, 2, t, C))
        return false;
    auto fi = kernel("fx_group_norm_bwd_input", t), fa = kernel("fx_group_norm_bwd_affine", t);
    if (!fi.ok()) return fi.error();
    if (!fa.ok()) return fa.error();
    auto outs = c.outs(3);
    if (!outs.ok()) return outs.error();
    const auto& o = *outs;
    Dense dense;
    CUdeviceptr pdy = dense(dy), px = dense(x), pm = dense(mean), pr = dense(rstd), pw = dense(w);
    if (!dense.status.ok()) return dense.status.error();
    CUdeviceptr pgx = o[0] ? elementAddr(*o[0]) : 0, pgw = o[1] ? elementAddr(*o[1]) : 0,
                pgb = o[2] ? elementAddr(*o[2]) : 0;
    if (o[0] && N * G > 0) {
        void* params[] = {&pdy, &px, &pm, &pr, &pw, &pgx, &N, &C, &HxW, &G};
        if (Status s = launchOver(*fi, N * G, params, "fx_group_norm_bwd_input"); !s.ok()) return s.error();
    }
    if ((o[1] || o[2]) && C > 0) {
        void* params[] = {&pdy, &px, &pm, &pr, &pgw, &pgb, &N, &C, &HxW, &G};
        if (Status s = launchOver(*fa, C, params, "fx_group_norm_bwd_affine"); !s.ok()) return s.error();
    }
    ++c.stats().deviceExterns;
    return true;
}

// _fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight?, output_mask)
Expected<bool> rmsNormBackwardOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    if (!A || c.outCount() != 2) return false;
    auto dy = c.view(0), x = c.view(1), rstd = c.view(3);
    std::optional<DeviceView> w = A->isNone(4) ? std::nullopt : c.view(4);
    if (!dy || !x || !rstd || (!A->isNone(4) && !w)) return false;
    int64_t N = 1;
    for (int64_t d : A->toIntList(2)) N *= d;
    const DType t = x->meta.dtype;
    const int64_t total = x->meta.numel();
    if (N <= 0 || total % N != 0 || !floatType(t) || dy->meta.dtype != t || rstd->meta.dtype != t ||
        dy->meta.numel() != total || rstd->meta.numel() != total / N || (w && (w->meta.dtype != t || w->meta.numel() != N)) ||
        !outputFits(c, 0, t, total) || !outputFits(c, 1, t, N))
        return false;
    int64_t M = total / N;
    auto fi = kernel("fx_rms_norm_bwd_input", t), fw = kernel("fx_rms_norm_bwd_weight", t);
    if (!fi.ok()) return fi.error();
    if (!fw.ok()) return fw.error();
    auto outs = c.outs(2);
    if (!outs.ok()) return outs.error();
    const auto& o = *outs;
    Dense dense;
    CUdeviceptr pdy = dense(dy), px = dense(x), pr = dense(rstd), pw = dense(w);
    if (!dense.status.ok()) return dense.status.error();
    if (o[0] && M > 0) {
        CUdeviceptr pgx = elementAddr(*o[0]);
        void* params[] = {&pdy, &px, &pr, &pw, &pgx, &M, &N};
        if (Status s = launchOver(*fi, M, params, "fx_rms_norm_bwd_input"); !s.ok()) return s.error();
    }
    if (o[1]) {
        CUdeviceptr pgw = elementAddr(*o[1]);
        void* params[] = {&pdy, &px, &pr, &pgw, &M, &N};
        if (Status s = launchOver(*fw, N, params, "fx_rms_norm_bwd_weight"); !s.ok()) return s.error();
    }
    ++c.stats().deviceExterns;
    return true;
}


}  // namespace fxray::cg::cuda
