// Losses over class scores with integer targets, and their backward ops: nll_loss (and
// nll_loss2d over (N, C, H, W) scores), multi_margin_loss and multilabel_margin_loss. Inputs are (C) or (N, C) (multi-margin and
// multilabel-margin also take a 0-d input as one sample of one class); outputs are contiguous,
// as PyTorch's kernels allocate them. Targets are checked before they index anything.
#include "exec/ops/kernel_util.h"
#include "exec/ops/loss_util.h"
#include "exec/ops/reduce_util.h"
#include "exec/ops/register.h"

#include <cmath>
#include <limits>
#include <string>

namespace fxray {
using namespace kern;

namespace {

/// Samples and classes of an input seen as (nframe, dim); nll_loss2d's (N, C, H, W) input has
/// N * H * W samples, class c of sample (n, hw) at (n * C + c) * hw + hw (`spatial` = H * W).
struct Frames {
    int64_t nframe = 1, dim = 1, spatial = 0;
    /// Where class c of sample i sits in the row-major input.
    int64_t at(int64_t i, int64_t c) const {
        if (spatial == 0) return i * dim + c;
        return ((i / spatial) * dim + c) * spatial + i % spatial;
    }
};

Expected<int64_t> classIndex(const OpArgs& a, double t, int64_t classes) {
    const auto c = static_cast<int64_t>(t);
    if (c < 0 || c >= classes)
        return opError(a,
                       "target " + std::to_string(c) + " is out of bounds for " + std::to_string(classes) + " classes");
    return c;
}

// ----- nll_loss_forward(self, target, weight, reduction, ignore_index) -> (output, total_weight)

/// The checks of PyTorch's nll_loss: a 1-D or 2-D input, a 0-D or 1-D integer target with
/// one entry per sample, and one weight per class.
Expected<Frames> checkNll(const OpArgs& a, size_t self, size_t target, size_t weight) {
    const Tensor& x = a.tensor(self);
    const Tensor& t = a.tensor(target);
    if (x.dim() < 1 || x.dim() > 2) return opError(a, "input tensor should be 1D or 2D");
    if (t.dim() > 1) return opError(a, "0D or 1D target tensor expected, multi-target not supported");
    if (!isIntegral(t.dtype())) return opError(a, "expected an integer target, got " + dtName(t.dtype()));
    if (!isFloating(x.dtype())) return opError(a, "not implemented for " + dtName(x.dtype()));
    Frames f;
    f.nframe = x.dim() == 2 ? x.shape()[0] : 1;
    f.dim = x.shape().back();
    const bool noBatch = x.dim() == 1 && t.dim() == 0;
    if (!noBatch && (t.dim() == 0 || x.shape()[0] != t.shape()[0]) && x.dim() == 2)
        return opError(a, "size mismatch (got input: " + x.meta.annotation(false, false) +
                              ", target: " + t.meta.annotation(false, false) + ")");
    if (x.dim() == 1 && t.numel() != 1)
        return opError(a, "size mismatch (got input: " + x.meta.annotation(false, false) +
                              ", target: " + t.meta.annotation(false, false) + ")");
    if (!a.isNone(weight) && a.tensor(weight).numel() != f.dim)
        return opError(a, "weight tensor should be defined either for all " + std::to_string(f.dim) +
                              " classes or no classes but got weight tensor of shape: " +
                              a.tensor(weight).meta.annotation(false, false));
    return f;
}

/// nll_loss2d's checks: a 4-D input (N, C, H, W), a 3-D integer target (N, H, W), one weight
/// per class.
Expected<Frames> checkNll2d(const OpArgs& a, size_t self, size_t target, size_t weight) {
    const Tensor& x = a.tensor(self);
    const Tensor& t = a.tensor(target);
    if (x.dim() != 4) return opError(a, "only batches of spatial inputs supported (4D tensors), but got input of size: " +
                                            x.meta.annotation(false, false));
    if (t.dim() != 3)
        return opError(a, "only batches of spatial targets supported (3D tensors) but got targets of size: " +
                              t.meta.annotation(false, false));
    if (!isIntegral(t.dtype())) return opError(a, "expected an integer target, got " + dtName(t.dtype()));
    if (!isFloating(x.dtype())) return opError(a, "not implemented for " + dtName(x.dtype()));
    const auto &xs = x.shape(), &ts = t.shape();
    if (xs[0] != ts[0] || xs[2] != ts[1] || xs[3] != ts[2])
        return opError(a, "input and target batch or spatial sizes don't match: target " +
                              t.meta.annotation(false, false) + ", input " + x.meta.annotation(false, false));
    Frames f;
    f.dim = xs[1];
    f.spatial = xs[2] * xs[3];
    f.nframe = xs[0] * f.spatial;
    if (!a.isNone(weight) && a.tensor(weight).numel() != f.dim)
        return opError(a, "weight tensor should be defined either for all " + std::to_string(f.dim) +
                              " classes or no classes but got weight tensor of shape: " +
                              a.tensor(weight).meta.annotation(false, false));
    return f;
}

/// The checks of nll_loss (Spatial false) or nll_loss2d.
template <bool Spatial>
Expected<Frames> checkNllOf(const OpArgs& a, size_t self, size_t target, size_t weight) {
    return Spatial ? checkNll2d(a, self, target, weight) : checkNll(a, self, target, weight);
}

template <bool Spatial>
Expected<Value> metaNll(const OpArgs& a) {
    auto f = checkNllOf<Spatial>(a, 0, 1, 2);
    if (!f.ok()) return f.error();
    auto r = lossReduction(a, 3);
    if (!r.ok()) return r.error();
    const Tensor& x = a.tensor(0);
    std::vector<int64_t> shape;
    if (*r == LossReduction::None && Spatial) shape = a.tensor(1).shape();
    if (*r == LossReduction::None && !Spatial && x.dim() == 2) shape = {f->nframe};
    return Value::ofTensors({Tensor::metaOnly(TensorMeta::contiguous(shape, x.dtype(), x.meta.device)),
                             Tensor::metaOnly(TensorMeta::contiguous({}, x.dtype(), x.meta.device))});
}

/// -weight[t] * x[i, t] per sample (0 for ignore_index); mean divides the sum by the total
/// weight of the counted samples (0/0 = NaN when all are ignored). total_weight is 0 for a
/// batched none.
template <bool Spatial>
Expected<Value> nllKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto f = checkNllOf<Spatial>(a, 0, 1, 2);
    if (!f.ok()) return f.error();
    auto r = lossReduction(a, 3);
    if (!r.ok()) return r.error();
    const std::vector<double> x = toDoubles(a.tensor(0));
    const std::vector<double> t = toDoubles(a.tensor(1));
    const std::vector<double> w = a.isNone(2) ? std::vector<double>(f->dim, 1.0) : toDoubles(a.tensor(2));
    const int64_t ignore = a.toInt(4);
    std::vector<double> losses(static_cast<size_t>(f->nframe), 0.0);
    double total = 0.0, sum = 0.0;
    for (int64_t i = 0; i < f->nframe; ++i) {
        if (static_cast<int64_t>(t[i]) == ignore) continue;
        auto c = classIndex(a, t[i], f->dim);
        if (!c.ok()) return c.error();
        losses[i] = -w[*c] * x[static_cast<size_t>(f->at(i, *c))];
        total += w[*c];
        sum += losses[i];
    }
    std::vector<double> value = losses;
    if (*r == LossReduction::None && (Spatial || a.tensor(0).dim() == 2))
        total = 0.0;
    else
        value = {*r == LossReduction::Mean ? sum / total : sum};
    return Value::ofTensors({makeTensor(out.list[0].t.meta, value), makeTensor(out.list[1].t.meta, {total})});
}

// ----- nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight) --

template <bool Spatial>
Expected<Value> metaNllBackward(const OpArgs& a) {
    auto f = checkNllOf<Spatial>(a, 1, 2, 3);
    if (!f.ok()) return f.error();
    auto r = lossReduction(a, 4);
    if (!r.ok()) return r.error();
    const int64_t gradCount = *r == LossReduction::None && (Spatial || a.tensor(1).dim() == 2) ? f->nframe : 1;
    if (a.tensor(0).numel() != gradCount)
        return opError(a, "expected grad_output to hold " + std::to_string(gradCount) + " elements but got " +
                              a.tensor(0).meta.annotation(false, false));
    if (a.tensor(6).numel() != 1) return opError(a, "expected total_weight to be a single element tensor");
    return contiguousMeta(a.tensor(1).shape(), a.tensor(1).dtype(), a.tensor(1));
}

template <bool Spatial>
Expected<Value> nllBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto f = checkNllOf<Spatial>(a, 1, 2, 3);
    if (!f.ok()) return f.error();
    auto r = lossReduction(a, 4);
    if (!r.ok()) return r.error();
    const std::vector<double> g = toDoubles(a.tensor(0));
    const std::vector<double> t = toDoubles(a.tensor(2));
    const std::vector<double> w = a.isNone(3) ? std::vector<double>(f->dim, 1.0) : toDoubles(a.tensor(3));
    const double total = toDoubles(a.tensor(6))[0];
    const int64_t ignore = a.toInt(5);
    std::vector<double> gx(static_cast<size_t>(a.tensor(1).numel()), 0.0);
    for (int64_t i = 0; i < f->nframe; ++i) {
        if (static_cast<int64_t>(t[i]) == ignore) continue;
        auto c = classIndex(a, t[i], f->dim);
        if (!c.ok()) return c.error();
        double gi = g.size() > 1 ? g[i] : g[0];
        if (*r == LossReduction::Mean) gi /= total;
        gx[static_cast<size_t>(f->at(i, *c))] = -w[*c] * gi;
    }
    return Value::ofTensor(makeTensor(out.t.meta, gx));
}

// ----- multi_margin_loss(self, target, p=1, margin=1, weight=None, reduction=Mean) ----------

/// PyTorch's multi_margin_loss_shape_check: a non-empty (C), (N, C) or 0-d input, one target
/// per sample, one weight per class; p must be 1 or 2.
Expected<Frames> checkMultiMargin(const OpArgs& a, size_t self, size_t target, size_t p, size_t weight) {
    const Tensor& x = a.tensor(self);
    const Tensor& t = a.tensor(target);
    if (!((x.dim() == 2 && x.shape()[1] != 0) || (x.dim() == 1 && x.shape()[0] != 0) || x.dim() == 0))
        return opError(a, "expected non-empty vector or matrix with optional 0-dim batch size, but got: " +
                              x.meta.annotation(false, false));
    if (!isFloating(x.dtype())) return opError(a, "not implemented for " + dtName(x.dtype()));
    if (!isIntegral(t.dtype())) return opError(a, "expected an integer target, got " + dtName(t.dtype()));
    Frames f;
    f.nframe = x.dim() <= 1 ? 1 : x.shape()[0];
    f.dim = x.dim() == 0 ? 1 : x.shape().back();
    if (t.dim() > 1 || t.numel() != f.nframe)
        return opError(a, "inconsistent target size, expected " + std::to_string(f.nframe) + " but got " +
                              t.meta.annotation(false, false));
    if (!a.isNone(weight) && (a.tensor(weight).dim() > 1 || a.tensor(weight).numel() != f.dim))
        return opError(a, "inconsistent weight size, expected " + std::to_string(f.dim) + " but got " +
                              a.tensor(weight).meta.annotation(false, false));
    const double pv = a.toDouble(p);
    if (pv != 1.0 && pv != 2.0) return opError(a, "only p == 1 and p == 2 supported");
    return f;
}

Expected<Value> metaMultiMargin(const OpArgs& a) {
    auto f = checkMultiMargin(a, 0, 1, 2, 4);
    if (!f.ok()) return f.error();
    auto r = lossReduction(a, 5);
    if (!r.ok()) return r.error();
    const bool perSample = *r == LossReduction::None && a.tensor(1).dim() > 0;
    return contiguousMeta(perSample ? std::vector<int64_t>{f->nframe} : std::vector<int64_t>{}, a.tensor(0).dtype(),
                          a.tensor(0));
}

/// Per sample: sum over classes d != y of max(0, margin - x[y] + x[d])^p * weight[y], / C.
Expected<Value> multiMarginKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto f = checkMultiMargin(a, 0, 1, 2, 4);
    if (!f.ok()) return f.error();
    auto r = lossReduction(a, 5);
    if (!r.ok()) return r.error();
    const std::vector<double> x = toDoubles(a.tensor(0));
    const std::vector<double> t = toDoubles(a.tensor(1));
    const std::vector<double> w = a.isNone(4) ? std::vector<double>() : toDoubles(a.tensor(4));
    const double p = a.toDouble(2), margin = a.toDouble(3);
    std::vector<double> losses(static_cast<size_t>(f->nframe), 0.0);
    for (int64_t i = 0; i < f->nframe; ++i) {
        auto c = classIndex(a, t[i], f->dim);
        if (!c.ok()) return c.error();
        const double* row = x.data() + i * f->dim;
        double sum = 0.0;
        for (int64_t d = 0; d < f->dim; ++d) {
            if (d == *c) continue;
            const double z = margin - row[*c] + row[d];
            if (z <= 0) continue;
            double h = p == 1.0 ? z : z * z;
            if (!w.empty()) h *= w[*c];
            sum += h;
        }
        losses[i] = sum / static_cast<double>(f->dim);
    }
    if (out.t.numel() == f->nframe && out.t.dim() == 1) return Value::ofTensor(makeTensor(out.t.meta, losses));
    double acc = 0.0;
    for (double l : losses) acc += l;
    if (*r == LossReduction::Mean) acc /= static_cast<double>(f->nframe);
    return Value::ofTensor(makeTensor(out.t.meta, {acc}));
}

// multi_margin_loss_backward(grad_output, self, target, p, margin, weight=None, reduction=Mean)

Expected<Value> metaMultiMarginBackward(const OpArgs& a) {
    auto f = checkMultiMargin(a, 1, 2, 3, 5);
    if (!f.ok()) return f.error();
    auto r = lossReduction(a, 6);
    if (!r.ok()) return r.error();
    const Tensor& g = a.tensor(0);
    if (*r == LossReduction::None && g.dim() > 0 && g.numel() != f->nframe)
        return opError(a, "expected grad_output to hold " + std::to_string(f->nframe) + " elements but got " +
                              g.meta.annotation(false, false));
    if ((*r != LossReduction::None || g.dim() == 0) && g.numel() != 1)
        return opError(a, "expected a single element grad_output but got " + g.meta.annotation(false, false));
    return contiguousMeta(a.tensor(1).shape(), a.tensor(1).dtype(), a.tensor(1));
}

/// Each violated margin moves g (p = 1) or 2 g z (p = 2), times weight[y], up at class d and
/// down at the target class; g = 1/C (1/(N C) for mean), then times grad_output.
Expected<Value> multiMarginBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto f = checkMultiMargin(a, 1, 2, 3, 5);
    if (!f.ok()) return f.error();
    auto r = lossReduction(a, 6);
    if (!r.ok()) return r.error();
    const std::vector<double> go = toDoubles(a.tensor(0));
    const std::vector<double> x = toDoubles(a.tensor(1));
    const std::vector<double> t = toDoubles(a.tensor(2));
    const std::vector<double> w = a.isNone(5) ? std::vector<double>() : toDoubles(a.tensor(5));
    const double p = a.toDouble(3), margin = a.toDouble(4);
    const double g = 1.0 / static_cast<double>(*r == LossReduction::Mean ? f->nframe * f->dim : f->dim);
    std::vector<double> gx(x.size(), 0.0);
    for (int64_t i = 0; i < f->nframe; ++i) {
        auto c = classIndex(a, t[i], f->dim);
        if (!c.ok()) return c.error();
        const double* row = x.data() + i * f->dim;
        double* grow = gx.data() + i * f->dim;
        double gt = 0.0;
        for (int64_t d = 0; d < f->dim; ++d) {
            if (d == *c) continue;
            const double z = margin - row[*c] + row[d];
            if (z <= 0) continue;
            double h = p == 1.0 ? g : 2.0 * g * z;
            if (!w.empty()) h *= w[*c];
            gt -= h;
            grow[d] = h;
        }
        grow[*c] = gt;
        const double scale = go.size() == 1 ? go[0] : go[i];
        for (int64_t d = 0; d < f->dim; ++d) grow[d] *= scale;
    }
    return Value::ofTensor(makeTensor(out.t.meta, gx));
}

// ----- multilabel_margin_loss_forward(self, target, reduction) -> (output, is_target) --------

/// A non-empty (C), (N, C) or 0-d input and an integer target of the same layout, each row a
/// list of class indices ended by the first -1.
Expected<Frames> checkMultilabel(const OpArgs& a, size_t self, size_t target) {
    const Tensor& x = a.tensor(self);
    const Tensor& t = a.tensor(target);
    if (!((x.dim() == 2 && x.shape()[1] != 0) || (x.dim() == 1 && x.shape()[0] != 0) || x.dim() == 0))
        return opError(a, "expected non-empty vector or matrix with optional 0-dim batch size, but got: " +
                              x.meta.annotation(false, false));
    if (!isFloating(x.dtype())) return opError(a, "not implemented for " + dtName(x.dtype()));
    if (t.dtype() != DType::Int64) return opError(a, "expected a torch.int64 target, got " + dtName(t.dtype()));
    Frames f;
    f.nframe = x.dim() <= 1 ? 1 : x.shape()[0];
    f.dim = x.dim() == 0 ? 1 : x.shape().back();
    const bool ok = x.dim() <= 1 ? t.dim() <= 1 && t.numel() == f.dim
                                 : t.dim() == 2 && t.shape()[0] == f.nframe && t.shape()[1] == f.dim;
    if (!ok)
        return opError(a, "inconsistent target size: " + t.meta.annotation(false, false) +
                              " for input of size: " + x.meta.annotation(false, false));
    return f;
}

/// Per row, the target classes (up to the first -1) and the 0/1 is_target mask.
Expected<std::vector<std::vector<int64_t>>> targetLists(const OpArgs& a, const Frames& f, const std::vector<double>& t,
                                                        std::vector<double>& isTarget) {
    std::vector<std::vector<int64_t>> lists(static_cast<size_t>(f.nframe));
    isTarget.assign(t.size(), 0.0);
    for (int64_t i = 0; i < f.nframe; ++i)
        for (int64_t k = 0; k < f.dim; ++k) {
            const double v = t[i * f.dim + k];
            if (v < 0) break;
            auto c = classIndex(a, v, f.dim);
            if (!c.ok()) return c.error();
            lists[i].push_back(*c);
            isTarget[i * f.dim + *c] = 1.0;
        }
    return lists;
}

Expected<Value> metaMultilabel(const OpArgs& a) {
    auto f = checkMultilabel(a, 0, 1);
    if (!f.ok()) return f.error();
    auto r = lossReduction(a, 2);
    if (!r.ok()) return r.error();
    const Tensor& x = a.tensor(0);
    const bool perSample = *r == LossReduction::None && a.tensor(1).dim() > 1;
    TensorMeta out = TensorMeta::contiguous(perSample ? std::vector<int64_t>{f->nframe} : std::vector<int64_t>{},
                                            x.dtype(), x.meta.device);
    TensorMeta isTarget = TensorMeta::contiguous(a.tensor(1).shape(), x.dtype(), x.meta.device);
    return Value::ofTensors({Tensor::metaOnly(out), Tensor::metaOnly(isTarget)});
}

/// Per sample: sum over target classes j and non-target classes d of max(0, 1 - x[j] + x[d]), / C.
Expected<Value> multilabelKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto f = checkMultilabel(a, 0, 1);
    if (!f.ok()) return f.error();
    auto r = lossReduction(a, 2);
    if (!r.ok()) return r.error();
    const std::vector<double> x = toDoubles(a.tensor(0));
    std::vector<double> isTarget;
    auto lists = targetLists(a, *f, toDoubles(a.tensor(1)), isTarget);
    if (!lists.ok()) return lists.error();
    std::vector<double> losses(static_cast<size_t>(f->nframe), 0.0);
    for (int64_t i = 0; i < f->nframe; ++i) {
        const double* row = x.data() + i * f->dim;
        double sum = 0.0;
        for (int64_t j : (*lists)[i])
            for (int64_t d = 0; d < f->dim; ++d) {
                if (isTarget[i * f->dim + d] != 0.0) continue;
                const double z = 1.0 - row[j] + row[d];
                if (z > 0) sum += z;
            }
        losses[i] = sum / static_cast<double>(f->dim);
    }
    std::vector<double> value = losses;
    if (out.list[0].t.dim() == 0) {
        double acc = 0.0;
        for (double l : losses) acc += l;
        if (*r == LossReduction::Mean) acc /= static_cast<double>(f->nframe);
        value = {acc};
    }
    return Value::ofTensors({makeTensor(out.list[0].t.meta, value), makeTensor(out.list[1].t.meta, isTarget)});
}

// multilabel_margin_loss_backward(grad_output, self, target, reduction, is_target)

Expected<Value> metaMultilabelBackward(const OpArgs& a) {
    auto f = checkMultilabel(a, 1, 2);
    if (!f.ok()) return f.error();
    auto r = lossReduction(a, 3);
    if (!r.ok()) return r.error();
    if (a.tensor(4).shape() != a.tensor(2).shape())
        return opError(a, "is_target " + a.tensor(4).meta.annotation(false, false) + " does not match target " +
                              a.tensor(2).meta.annotation(false, false));
    const Tensor& g = a.tensor(0);
    const bool perSample = *r == LossReduction::None && g.dim() > 0;
    if (perSample ? g.numel() != f->nframe : g.numel() != 1)
        return opError(a, "unexpected grad_output " + g.meta.annotation(false, false));
    return contiguousMeta(a.tensor(1).shape(), a.tensor(1).dtype(), a.tensor(1));
}

/// Each violated pair (j target, d not) moves g down at j and up at d; g = 1/C (1/(N C) for
/// mean), then times grad_output. The target lists come from target, the mask from is_target.
Expected<Value> multilabelBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto f = checkMultilabel(a, 1, 2);
    if (!f.ok()) return f.error();
    auto r = lossReduction(a, 3);
    if (!r.ok()) return r.error();
    const std::vector<double> go = toDoubles(a.tensor(0));
    const std::vector<double> x = toDoubles(a.tensor(1));
    std::vector<double> unused;
    auto lists = targetLists(a, *f, toDoubles(a.tensor(2)), unused);
    if (!lists.ok()) return lists.error();
    const std::vector<double> isTarget = toDoubles(a.tensor(4));
    const double g = 1.0 / static_cast<double>(*r == LossReduction::Mean ? f->nframe * f->dim : f->dim);
    std::vector<double> gx(x.size(), 0.0);
    for (int64_t i = 0; i < f->nframe; ++i) {
        const double* row = x.data() + i * f->dim;
        double* grow = gx.data() + i * f->dim;
        for (int64_t j : (*lists)[i])
            for (int64_t d = 0; d < f->dim; ++d) {
                if (isTarget[i * f->dim + d] != 0.0) continue;
                if (1.0 - row[j] + row[d] > 0) {
                    grow[j] -= g;
                    grow[d] += g;
                }
            }
        const double scale = go.size() == 1 ? go[0] : go[i];
        for (int64_t d = 0; d < f->dim; ++d) grow[d] *= scale;
    }
    return Value::ofTensor(makeTensor(out.t.meta, gx));
}

}  // namespace

void registerClassLossOps(OpRegistry& r) {
    constexpr auto RD = OpCategory::Reduction;
    constexpr auto EX = OpCategory::Extern;
    r.add("aten.nll_loss_forward.default",
          "nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> "
          "(Tensor output, Tensor total_weight)",
          RD, metaNll<false>, nllKernel<false>);
    r.add("aten.nll_loss_backward.default",
          "nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
          "SymInt ignore_index, Tensor total_weight) -> Tensor",
          EX, metaNllBackward<false>, nllBackwardKernel<false>);
    // Cross entropy over (N, C, H, W) scores, as segmentation models train.
    r.add("aten.nll_loss2d_forward.default",
          "nll_loss2d_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> "
          "(Tensor output, Tensor total_weight)",
          RD, metaNll<true>, nllKernel<true>);
    r.add("aten.nll_loss2d_backward.default",
          "nll_loss2d_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, "
          "SymInt ignore_index, Tensor total_weight) -> Tensor",
          EX, metaNllBackward<true>, nllBackwardKernel<true>);
    r.add("aten.multi_margin_loss.default",
          "multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, Tensor? weight=None, "
          "int reduction=Mean) -> Tensor",
          RD, metaMultiMargin, multiMarginKernel);
    r.add("aten.multi_margin_loss_backward.default",
          "multi_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, Scalar p, Scalar margin, "
          "Tensor? weight=None, int reduction=Mean) -> Tensor",
          EX, metaMultiMarginBackward, multiMarginBackwardKernel);
    r.add("aten.multilabel_margin_loss_forward.default",
          "multilabel_margin_loss_forward(Tensor self, Tensor target, int reduction) -> "
          "(Tensor output, Tensor is_target)",
          RD, metaMultilabel, multilabelKernel);
    r.add("aten.multilabel_margin_loss_backward.default",
          "multilabel_margin_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction, "
          "Tensor is_target) -> Tensor",
          EX, metaMultilabelBackward, multilabelBackwardKernel);
}

}  // namespace fxray
