// Extern kernels of the CPU backend for backward ops that Inductor runs as fallback kernels
// (make_fallback: multi_margin_loss_backward, multilabel_margin_loss_backward, _pdist_backward,
// _efficientzerotensor) or that fxray does not decompose yet (native_group_norm_backward and
// _fused_rms_norm_backward, which Inductor decomposes into reductions): each gradient is a sum
// over a row, a group or a pair list with data-dependent terms (violated margins, target lists).
// Their table: extern_table.h backwardOpExterns().
//
// The formulas are the reference kernels' (exec/ops/class_loss.cpp, distance.cpp, norm.cpp,
// rms_norm.cpp), computed in double and rounded once into the output. Anything the reference
// would reject (a class index out of range, sizes that disagree) returns false before writing:
// the reference kernel then reports it, a reported fallback.
#include "codegen/cpu/extern_table.h"

#include "codegen/cpu/extern_util.h"
#include "exec/ops/distance.h"
#include "exec/ops/kernel_util.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace fxray::cg::cpu {

namespace {

using kern::toDoubles;

/// Rows of a (C), (N, C) or 0-d class-score input: nframe rows of dim classes.
struct Frames {
    int64_t nframe = 1, dim = 1;
};
Frames framesOf(const Tensor& x) {
    Frames f;
    if (x.dim() == 1) f.dim = x.shape()[0];
    if (x.dim() == 2) f = {x.shape()[0], x.shape()[1]};
    return f;
}

/// grad_output's value for row i: one value for a reduced loss, one per row otherwise.
double rowGrad(const std::vector<double>& go, int64_t i) { return go.size() == 1 ? go[0] : go[static_cast<size_t>(i)]; }

/// multi_margin_loss_backward(grad_output, self, target, p, margin, weight, reduction): each
/// violated margin moves g (p = 1) or 2 g z (p = 2), times weight[y], up at class d and down at
/// the target class y; g = 1/C (1/(N C) for mean).
bool multiMarginBackward(const OpArgs& a, Tensor& out) {
    const Tensor& xt = a.tensor(1);
    const Frames f = framesOf(xt);
    const double p = a.toDouble(3), margin = a.toDouble(4);
    const int64_t reduction = a.toInt(6);
    if (xt.dim() > 2 || (p != 1.0 && p != 2.0) || f.dim <= 0 || out.numel() != xt.numel()) return false;
    const auto go = toDoubles(a.tensor(0)), x = toDoubles(xt), t = toDoubles(a.tensor(2));
    const std::vector<double> w = a.isNone(5) ? std::vector<double>() : toDoubles(a.tensor(5));
    if (static_cast<int64_t>(t.size()) != f.nframe || (!w.empty() && static_cast<int64_t>(w.size()) != f.dim))
        return false;
    if (go.size() != 1 && static_cast<int64_t>(go.size()) != f.nframe) return false;
    const double g = 1.0 / static_cast<double>(reduction == 1 ? f.nframe * f.dim : f.dim);
    std::vector<double> gx(x.size(), 0.0);
    for (int64_t i = 0; i < f.nframe; ++i) {
        const int64_t c = static_cast<int64_t>(t[static_cast<size_t>(i)]);
        if (c < 0 || c >= f.dim) return false;
        const double* row = x.data() + i * f.dim;
        double* grow = gx.data() + i * f.dim;
        double gt = 0.0;
        for (int64_t d = 0; d < f.dim; ++d) {
            const double z = margin - row[c] + row[d];
            if (d == c || z <= 0) continue;
            double h = p == 1.0 ? g : 2.0 * g * z;
            if (!w.empty()) h *= w[static_cast<size_t>(c)];
            gt -= h;
            grow[d] = h;
        }
        grow[c] = gt;
        for (int64_t d = 0; d < f.dim; ++d) grow[d] *= rowGrad(go, i);
    }
    kern::fromDoubles(out, gx);
    return true;
}

/// multilabel_margin_loss_backward(grad_output, self, target, reduction, is_target): each row's
/// targets are its target entries before the first negative one; each violated pair (j a target,
/// d not) moves g down at j and up at d, g = 1/C (1/(N C) for mean).
bool multilabelMarginBackward(const OpArgs& a, Tensor& out) {
    const Tensor& xt = a.tensor(1);
    const Frames f = framesOf(xt);
    const int64_t reduction = a.toInt(3);
    if (xt.dim() > 2 || f.dim <= 0 || out.numel() != xt.numel() || a.tensor(2).numel() != xt.numel() ||
        a.tensor(4).numel() != xt.numel())
        return false;
    const auto go = toDoubles(a.tensor(0)), x = toDoubles(xt), t = toDoubles(a.tensor(2)),
               isTarget = toDoubles(a.tensor(4));
    if (go.size() != 1 && static_cast<int64_t>(go.size()) != f.nframe) return false;
    const double g = 1.0 / static_cast<double>(reduction == 1 ? f.nframe * f.dim : f.dim);
    std::vector<double> gx(x.size(), 0.0);
    for (int64_t i = 0; i < f.nframe; ++i) {
        const double* row = x.data() + i * f.dim;
        const double* mask = isTarget.data() + i * f.dim;
        double* grow = gx.data() + i * f.dim;
        for (int64_t k = 0; k < f.dim; ++k) {
            const double v = t[static_cast<size_t>(i * f.dim + k)];
            if (v < 0) break;
            const int64_t j = static_cast<int64_t>(v);
            if (j >= f.dim) return false;
            for (int64_t d = 0; d < f.dim; ++d)
                if (mask[d] == 0.0 && 1.0 - row[j] + row[d] > 0) {
                    grow[j] -= g;
                    grow[d] += g;
                }
        }
        for (int64_t d = 0; d < f.dim; ++d) grow[d] *= rowGrad(go, i);
    }
    kern::fromDoubles(out, gx);
    return true;
}

/// _pdist_backward(grad, self, p, pdist): the reference's per-pair formula (exec/ops/distance.h).
bool pdistBackward(const OpArgs& a, Tensor& out) {
    const Tensor& xt = a.tensor(1);
    if (xt.dim() != 2 || out.numel() != xt.numel()) return false;
    const int64_t n = xt.shape()[0], m = xt.shape()[1];
    const int64_t pairs = n > 1 ? n * (n - 1) / 2 : 0;
    if (a.tensor(0).numel() != pairs || a.tensor(3).numel() != pairs) return false;
    kern::fromDoubles(out, pdistBackwardValues(toDoubles(xt), toDoubles(a.tensor(0)), toDoubles(a.tensor(3)), n, m,
                                               a.toDouble(2), xt.dtype()));
    return true;
}

/// native_group_norm_backward(grad_out, input, mean, rstd, weight?, N, C, HxW, group,
/// output_mask) -> (grad_input, grad_weight, grad_bias), each null where not asked for. With dyw
/// the weighted gradient and xhat the normalised input, over each group:
/// dx = rstd * (dyw - mean(dyw) - xhat * mean(dyw * xhat)).
bool groupNormBackward(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    const int64_t N = a.toInt(5), C = a.toInt(6), HxW = a.toInt(7), G = a.toInt(8);
    if (outs.size() < 3 || G <= 0 || C % G != 0 || a.tensor(1).numel() != N * C * HxW ||
        a.tensor(0).numel() != N * C * HxW || a.tensor(2).numel() != N * G || a.tensor(3).numel() != N * G)
        return false;
    const int64_t per = C / G, span = per * HxW;
    const auto dy = toDoubles(a.tensor(0)), x = toDoubles(a.tensor(1)), mean = toDoubles(a.tensor(2)),
               rstd = toDoubles(a.tensor(3));
    const std::vector<double> w = a.isNone(4) ? std::vector<double>() : toDoubles(a.tensor(4));
    if (!w.empty() && static_cast<int64_t>(w.size()) != C) return false;
    std::vector<double> gi(x.size(), 0.0), gw(static_cast<size_t>(C), 0.0), gb(static_cast<size_t>(C), 0.0);
    for (int64_t ng = 0; ng < N * G; ++ng) {
        const int64_t base = ng * span;
        const double mu = mean[static_cast<size_t>(ng)], r = rstd[static_cast<size_t>(ng)];
        auto channel = [&](int64_t i) { return static_cast<size_t>((ng % G) * per + i / HxW); };
        double s1 = 0.0, s2 = 0.0;
        for (int64_t i = 0; i < span; ++i) {
            const size_t e = static_cast<size_t>(base + i), c = channel(i);
            const double xhat = (x[e] - mu) * r, dyw = dy[e] * (w.empty() ? 1.0 : w[c]);
            s1 += dyw;
            s2 += dyw * xhat;
            gw[c] += dy[e] * xhat;
            gb[c] += dy[e];
        }
        const double m1 = s1 / static_cast<double>(span), m2 = s2 / static_cast<double>(span);
        for (int64_t i = 0; i < span; ++i) {
            const size_t e = static_cast<size_t>(base + i), c = channel(i);
            const double xhat = (x[e] - mu) * r, dyw = dy[e] * (w.empty() ? 1.0 : w[c]);
            gi[e] = r * (dyw - m1 - xhat * m2);
        }
    }
    const std::vector<double>* parts[] = {&gi, &gw, &gb};
    for (size_t i = 0; i < 3; ++i)
        if (outs[i] && outs[i]->numel() != static_cast<int64_t>(parts[i]->size())) return false;
    for (size_t i = 0; i < 3; ++i)
        if (outs[i]) kern::fromDoubles(*outs[i], *parts[i]);
    return true;
}

/// _fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight?, output_mask) ->
/// (grad_input, grad_weight): over each normalised row, with dyw = dy * w and xhat = x * rstd,
/// dx = rstd * (dyw - xhat * mean(dyw * xhat)); grad_weight sums dy * xhat over the rows.
bool rmsNormBackward(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    const Tensor& in = a.tensor(1);
    const int64_t N = kern::product(a.toIntList(2));
    if (outs.size() < 2 || N <= 0 || in.numel() % N != 0 || a.tensor(0).numel() != in.numel()) return false;
    const int64_t M = in.numel() / N;
    const auto dy = toDoubles(a.tensor(0)), x = toDoubles(in), rstd = toDoubles(a.tensor(3));
    const std::vector<double> w = a.isNone(4) ? std::vector<double>() : toDoubles(a.tensor(4));
    if (static_cast<int64_t>(rstd.size()) != M || (!w.empty() && static_cast<int64_t>(w.size()) != N)) return false;
    std::vector<double> gi(x.size()), gw(static_cast<size_t>(N), 0.0);
    for (int64_t m = 0; m < M; ++m) {
        const double r = rstd[static_cast<size_t>(m)];
        const size_t base = static_cast<size_t>(m * N);
        auto wt = [&](int64_t j) { return w.empty() ? 1.0 : w[static_cast<size_t>(j)]; };
        double dot = 0.0;
        for (int64_t j = 0; j < N; ++j) {
            const double xhat = x[base + static_cast<size_t>(j)] * r;
            dot += dy[base + static_cast<size_t>(j)] * wt(j) * xhat;
            gw[static_cast<size_t>(j)] += dy[base + static_cast<size_t>(j)] * xhat;
        }
        const double mdot = dot / static_cast<double>(N);
        for (int64_t j = 0; j < N; ++j) {
            const size_t e = base + static_cast<size_t>(j);
            gi[e] = r * (dy[e] * wt(j) - x[e] * r * mdot);
        }
    }
    if ((outs[0] && outs[0]->numel() != in.numel()) || (outs[1] && outs[1]->numel() != N)) return false;
    if (outs[0]) kern::fromDoubles(*outs[0], gi);
    if (outs[1]) kern::fromDoubles(*outs[1], gw);
    return true;
}

/// _efficientzerotensor(size, ...): PyTorch's zero tensor that owns no storage; here zeros.
bool zeros(const OpArgs&, Tensor& out) {
    kern::fromDoubles(out, std::vector<double>(static_cast<size_t>(out.numel()), 0.0));
    return true;
}

}  // namespace

const std::vector<CpuExtern>& backwardOpExterns() {
    static const std::vector<CpuExtern> t = {
        {"multi_margin_loss_backward", single<multiMarginBackward>},
        {"multilabel_margin_loss_backward", single<multilabelMarginBackward>},
        {"pdist_backward", single<pdistBackward>},
        {"group_norm_backward", groupNormBackward},
        {"rms_norm_backward", rmsNormBackward},
        {"efficient_zero_tensor", single<zeros>},
    };
    return t;
}

}  // namespace fxray::cg::cpu
