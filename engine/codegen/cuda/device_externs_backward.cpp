// Device externs for backward ops Inductor runs as fallback kernels (the margin losses'
// backwards, _pdist_backward) or that fxray does not decompose (native_group_norm_backward,
// _fused_rms_norm_backward): backward_ops.h. Each checks sizes and dtypes as the CPU backend's
// extern does before allocating, declining to the host otherwise. Listed in deviceExternTable().
#include "codegen/cuda/backward_ops.h"
#include "codegen/cuda/device_externs.h"

namespace fxray::cg::cuda {

namespace {

/// Whether v is a tensor of dtype t with `numel` elements.
bool fits(const std::optional<DeviceView>& v, DType t, int64_t numel) {
    return v && v->meta.dtype == t && v->meta.numel() == numel;
}

/// Rows and classes of a (C), (N, C) or 0-d class-score input.
std::pair<int64_t, int64_t> framesOf(const TensorMeta& x) {
    if (x.shape.size() == 1) return {1, x.shape[0]};
    if (x.shape.size() == 2) return {x.shape[0], x.shape[1]};
    return {1, 1};
}

Expected<bool> multiMarginBackwardOnDevice(DeviceCall& c) {
    // multi_margin_loss_backward(grad_output, self, target, p, margin, weight=None, reduction=Mean)
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && backwardOpsSupport(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A) return false;
    auto go = c.view(0), x = c.view(1), t = c.view(2);
    std::optional<DeviceView> w = A->isNone(5) ? std::nullopt : c.view(5);
    const DType dt = om->dtype;
    if (!x || x->meta.shape.size() > 2 || x->meta.dtype != dt || om->numel() != x->meta.numel()) return false;
    const auto [rows, dim] = framesOf(x->meta);
    const double p = A->toDouble(3);
    if ((p != 1.0 && p != 2.0) || dim <= 0 || !fits(t, DType::Int64, rows) || (!A->isNone(5) && !fits(w, dt, dim)) ||
        !go || go->meta.dtype != dt || (go->meta.numel() != 1 && go->meta.numel() != rows))
        return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = multiMarginBackward(*go, *x, *t, w, p, A->toDouble(4), A->toInt(6), rows, dim, **o); !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> multilabelMarginBackwardOnDevice(DeviceCall& c) {
    // multilabel_margin_loss_backward(grad_output, self, target, reduction, is_target)
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && backwardOpsSupport(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A) return false;
    auto go = c.view(0), x = c.view(1), t = c.view(2), isTarget = c.view(4);
    const DType dt = om->dtype;
    if (!x || x->meta.shape.size() > 2 || x->meta.dtype != dt || om->numel() != x->meta.numel()) return false;
    const auto [rows, dim] = framesOf(x->meta);
    if (dim <= 0 || !fits(t, DType::Int64, x->meta.numel()) || !fits(isTarget, dt, x->meta.numel()) || !go ||
        go->meta.dtype != dt || (go->meta.numel() != 1 && go->meta.numel() != rows))
        return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = multilabelMarginBackward(*go, *x, *t, *isTarget, A->toInt(3), rows, dim, **o); !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> pdistBackwardOnDevice(DeviceCall& c) {
    // _pdist_backward(grad, self, p, pdist)
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && backwardOpsSupport(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A) return false;
    auto g = c.view(0), x = c.view(1), dist = c.view(3);
    const DType dt = om->dtype;
    if (!x || x->meta.shape.size() != 2 || x->meta.dtype != dt || om->numel() != x->meta.numel()) return false;
    const int64_t n = x->meta.shape[0], pairs = n > 1 ? n * (n - 1) / 2 : 0;
    if (!fits(g, dt, pairs) || !fits(dist, dt, pairs)) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = pdistBackward(*g, *x, A->toDouble(2), *dist, **o); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// Whether each requested output i (among count) is dense of dtype t with numel[i] elements.
bool outsFit(DeviceCall& c, size_t count, DType t, const std::vector<int64_t>& numel) {
    if (c.outCount() < count) return false;
    for (size_t i = 0; i < count; ++i)
        if (c.hasOut(i) &&
            (!c.outMeta(i)->isContiguous() || c.outMeta(i)->dtype != t || c.outMeta(i)->numel() != numel[i]))
            return false;
    return true;
}

Expected<bool> groupNormBackwardOnDevice(DeviceCall& c) {
    // native_group_norm_backward(grad_out, input, mean, rstd, weight?, N, C, HxW, group, output_mask)
    const OpArgs* A = c.args();
    auto dy = c.view(0), x = c.view(1), mean = c.view(2), rstd = c.view(3);
    std::optional<DeviceView> w = A && !A->isNone(4) ? c.view(4) : std::nullopt;
    if (!A || !x || !groupNormBackwardSupports(x->meta.dtype)) return false;
    const DType dt = x->meta.dtype;
    const int64_t N = A->toInt(5), C = A->toInt(6), HxW = A->toInt(7), G = A->toInt(8);
    if (G <= 0 || C % G != 0 || x->meta.numel() != N * C * HxW || !fits(dy, dt, N * C * HxW) ||
        !fits(mean, dt, N * G) || !fits(rstd, dt, N * G) || (!A->isNone(4) && !fits(w, dt, C)) ||
        !outsFit(c, 3, dt, {N * C * HxW, C, C}))
        return false;
    auto outs = c.outs(3);
    if (!outs.ok()) return outs.error();
    const auto& o = *outs;
    if (Status s = groupNormBackward(*dy, *x, *mean, *rstd, w, N, C, HxW, G, o[0], o[1], o[2]); !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> rmsNormBackwardOnDevice(DeviceCall& c) {
    // _fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight?, output_mask)
    const OpArgs* A = c.args();
    auto dy = c.view(0), x = c.view(1), rstd = c.view(3);
    std::optional<DeviceView> w = A && !A->isNone(4) ? c.view(4) : std::nullopt;
    if (!A || !x || !backwardOpsSupport(x->meta.dtype)) return false;
    const DType dt = x->meta.dtype;
    int64_t n = 1;
    for (int64_t d : A->toIntList(2)) n *= d;
    if (n <= 0 || x->meta.numel() % n != 0 || !fits(dy, dt, x->meta.numel()) || !fits(rstd, dt, x->meta.numel() / n) ||
        (!A->isNone(4) && !fits(w, dt, n)) || !outsFit(c, 2, dt, {x->meta.numel(), n}))
        return false;
    auto outs = c.outs(2);
    if (!outs.ok()) return outs.error();
    const auto& o = *outs;
    if (Status s = rmsNormBackward(*dy, *x, n, *rstd, w, o[0], o[1]); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

}  // namespace

const std::vector<DeviceExtern>& backwardDeviceExterns() {
    static const std::vector<DeviceExtern> t = {
        {"multi_margin_loss_backward", multiMarginBackwardOnDevice},
        {"multilabel_margin_loss_backward", multilabelMarginBackwardOnDevice},
        {"pdist_backward", pdistBackwardOnDevice},
        {"group_norm_backward", groupNormBackwardOnDevice},
        {"rms_norm_backward", rmsNormBackwardOnDevice},
    };
    return t;
}

}  // namespace fxray::cg::cuda
