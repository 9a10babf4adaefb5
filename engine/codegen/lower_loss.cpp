// Lowerings of pointwise losses and their backwards: an elementwise loss over the broadcast
// operands, then PyTorch's reduction (0 none, 1 mean, 2 sum) as a sum over every dim (scaled
// by 1/N for mean). Backwards scale by 1/N for mean and read the (possibly 0-dim) gradient
// broadcast. nll_loss_forward/backward (and the 2d forms over [N, C, H, W]) gather the target
// class per sample.
#include "codegen/lower_util.h"

#include <functional>

namespace fxray::cg {

namespace {

/// A tensor operand (or an absent optional one) read broadcast to the loss's shape.
struct Arg {
    int id = -1;
    std::vector<int64_t> shape;
    ExprP get(Loader& L, const std::vector<Index>& co, DType ct, double absent) const {
        if (id < 0) return econst(absent, ct);
        return eto(loadBroadcast(L, id, shape, co), ct);
    }
};

Arg argOf(LowerCtx& c, size_t i) {
    Arg a;
    if (i < c.args().size() && c.args()[i].isTensor()) {
        a.id = c.in(i);
        if (a.id >= 0) a.shape = c.meta(a.id).shape;
    }
    return a;
}

ExprP kc(double v, const ExprP& like) { return econst(v, like->type); }
ExprP add(ExprP a, ExprP b) { return ebinary(Op::Add, std::move(a), std::move(b)); }
ExprP sub(ExprP a, ExprP b) { return ebinary(Op::Sub, std::move(a), std::move(b)); }
ExprP mul(ExprP a, ExprP b) { return ebinary(Op::Mul, std::move(a), std::move(b)); }
ExprP div(ExprP a, ExprP b) { return ebinary(Op::Div, std::move(a), std::move(b)); }

using ElemFn = std::function<ExprP(const std::vector<ExprP>&)>;

/// loss(args at `idx`, absent optional ones as `absent`) reduced by `reduction`.
std::optional<LValue> loss(LowerCtx& c, const std::vector<size_t>& idx, const std::vector<double>& absent,
                           int64_t reduction, ElemFn f) {
    if (!c.out().isTensor() || !isFloating(c.outMeta().dtype) || reduction < 0 || reduction > 2) return std::nullopt;
    std::vector<Arg> args;
    std::vector<int> deps;
    std::vector<int64_t> shape;
    for (size_t i : idx) {
        Arg a = argOf(c, i);
        if (a.id < 0 && i < 2) return std::nullopt;
        if (a.id >= 0) {
            deps.push_back(a.id);
            if (a.shape.size() > shape.size()) shape.resize(a.shape.size(), 1);
            for (size_t d = 0; d < a.shape.size(); ++d) {
                int64_t& s = shape[shape.size() - a.shape.size() + d];
                if (s == 1) s = a.shape[d];
            }
        }
        args.push_back(a);
    }
    TensorMeta om = c.outMeta();
    DType ct = computeType(om.dtype);
    auto body = [args, absent, ct, f](Loader& L, const std::vector<Index>& co) {
        std::vector<ExprP> v;
        for (size_t i = 0; i < args.size(); ++i) v.push_back(args[i].get(L, co, ct, absent[i]));
        return f(v);
    };
    if (reduction == 0) return tensorValue(c.pointwise(om, deps, body));
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    if (shape.empty()) return tensorValue(c.pointwise(om, deps, body));
    std::vector<bool> mask(shape.size(), true);
    int r = reduceTo(c, TensorMeta::contiguous(om.shape, ct, om.device), shape, mask, false, ReduceOp::Sum, body, deps,
                     ".sum");
    double scale = reduction == 1 ? (n ? 1.0 / static_cast<double>(n) : NAN) : 1.0;
    return tensorValue(c.pointwise(om, {r}, [r, ct, scale](Loader& L, const std::vector<Index>& co) {
        return ebinary(Op::Mul, eto(L.load(r, co), ct), econst(scale, ct));
    }));
}

/// The backward of a loss: g(grad, args...) * (1/N for mean) at the output's coordinates.
std::optional<LValue> lossBackward(LowerCtx& c, const std::vector<size_t>& idx, const std::vector<double>& absent,
                                   int64_t reduction, ElemFn f) {
    if (!c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    TensorMeta om = c.outMeta();
    double scale = reduction == 1 ? 1.0 / static_cast<double>(std::max<int64_t>(om.numel(), 1)) : 1.0;
    std::vector<Arg> args;
    std::vector<int> deps;
    for (size_t i : idx) {
        Arg a = argOf(c, i);
        if (a.id < 0 && i < 3) return std::nullopt;
        if (a.id >= 0) deps.push_back(a.id);
        args.push_back(a);
    }
    DType ct = computeType(om.dtype);
    return tensorValue(c.pointwise(om, deps, [=](Loader& L, const std::vector<Index>& co) {
        std::vector<ExprP> v;
        for (size_t i = 0; i < args.size(); ++i) v.push_back(args[i].get(L, co, ct, absent[i]));
        ExprP r = f(v);
        return scale == 1.0 ? r : mul(r, econst(scale, ct));
    }));
}

int64_t intArg(LowerCtx& c, size_t i, int64_t d) {
    return i < c.args().size() && c.args()[i].isNumber() ? c.args().toInt(i) : d;
}
double numArg(LowerCtx& c, size_t i, double d) {
    return i < c.args().size() && c.args()[i].isNumber() ? c.args()[i].toDouble() : d;
}

ExprP lt(const ExprP& a, double v) { return ebinary(Op::Lt, a, kc(v, a)); }
ExprP gt(const ExprP& a, double v) { return ebinary(Op::Gt, a, kc(v, a)); }

/// What nll_loss_forward/backward read per sample: the target class t (clamped for loads), whether
/// it counts (t != ignore_index) and its weight (weight[t], else 1), for self [N, C] or [C], or
/// (nll_loss2d) self [N, C, H, W] with target [N, H, W]. A sample is its coordinates in the
/// target: {n}, {} (unbatched) or {n, h, w}.
struct Nll {
    int self = -1, target = -1, weight = -1;
    int64_t classes = 0, ignore = -100;
    bool batched = true, spatial = false;
    DType ct = DType::Float32;
    /// The samples' extent (the target's shape).
    std::vector<int64_t> samples;
    ExprP targetOf(Loader& L, const std::vector<Index>& s) const {
        return eto(L.load(target, s), DType::Int64);
    }
    /// self's coordinates of class `cls` of sample s.
    std::vector<Index> selfAt(const std::vector<Index>& s, Index cls) const {
        if (spatial) return {s[0], std::move(cls), s[1], s[2]};
        if (batched) return {s[0], std::move(cls)};
        return {std::move(cls)};
    }
    /// The sample of self's coordinates co (their class is co's class dim).
    std::vector<Index> sampleOf(const std::vector<Index>& co) const {
        if (spatial) return {co[0], co[2], co[3]};
        if (batched) return {co[0]};
        return {};
    }
    Index classOf(const std::vector<Index>& co) const { return spatial || batched ? co[1] : co[0]; }
    ExprP valid(const ExprP& t) const { return ebinary(Op::Ne, t, econst(double(ignore), DType::Int64)); }
    Index clampedClass(const ExprP& t) const {
        return ivalue(
            ebinary(Op::Min, ebinary(Op::Max, t, econst(0, DType::Int64)), econst(double(classes - 1), DType::Int64)));
    }
    /// weight[t] where the sample counts, else 0.
    ExprP weightOf(Loader& L, const ExprP& t) const {
        ExprP w = weight >= 0 ? eto(L.load(weight, {clampedClass(t)}), ct) : econst(1.0, ct);
        return ewhere(valid(t), w, econst(0.0, ct));
    }
};

/// Arguments (self, target, weight, reduction, ignore_index) from position `first`; spatial:
/// nll_loss2d's.
std::optional<Nll> nllOf(LowerCtx& c, size_t first, bool spatial) {
    Nll r;
    r.self = c.in(first);
    r.target = c.in(first + 1);
    if (r.self < 0 || r.target < 0) return std::nullopt;
    const auto& xs = c.meta(r.self).shape;
    const auto& ts = c.meta(r.target).shape;
    if (!isFloating(c.meta(r.self).dtype)) return std::nullopt;
    r.spatial = spatial;
    if (spatial) {
        if (xs.size() != 4 || ts.size() != 3 || ts[0] != xs[0] || ts[1] != xs[2] || ts[2] != xs[3]) return std::nullopt;
        r.classes = xs[1];
    } else {
        if (xs.empty() || xs.size() > 2) return std::nullopt;
        r.batched = xs.size() == 2;
        r.classes = xs.back();
        if (ts.size() != (r.batched ? 1u : 0u)) return std::nullopt;
    }
    if (r.classes <= 0) return std::nullopt;
    r.samples = ts;
    if (c.args()[first + 2].isTensor()) r.weight = c.in(first + 2);
    r.ignore = c.args().toInt(first + 4);
    r.ct = computeType(c.meta(r.self).dtype);
    return r;
}

/// nll_loss_forward / nll_loss2d_forward(self, target, weight, reduction, ignore_index) ->
/// (output, total_weight): -self[sample, t] * w per sample, summed (or divided by the total
/// weight for mean).
template <bool Spatial>
std::optional<LValue> nllLossForward(LowerCtx& c) {
    auto nll = nllOf(c, 0, Spatial);
    if (!nll || !c.out().isList() || c.out().list.size() != 2) return std::nullopt;
    const Nll a = *nll;
    const int64_t reduction = c.args().toInt(3);
    auto perSample = [a](Loader& L, const std::vector<Index>& s) {
        ExprP t = a.targetOf(L, s);
        return eunary(Op::Neg, ebinary(Op::Mul, eto(L.load(a.self, a.selfAt(s, a.clampedClass(t))), a.ct),
                                       a.weightOf(L, t)));
    };
    std::vector<int> deps{a.self, a.target};
    if (a.weight >= 0) deps.push_back(a.weight);
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    if (reduction == 0) {
        // One loss per sample (an unbatched input's single sample is a 0-d output).
        int out = c.pointwise(c.outMeta(0), deps,
                              [perSample](Loader& L, const std::vector<Index>& co) { return perSample(L, co); });
        int tw = c.pointwise(
            c.outMeta(1), {}, [a](Loader&, const std::vector<Index>&) { return econst(0.0, a.ct); }, ".total_weight");
        r.items = {tensorValue(out), tensorValue(tw)};
        return r;
    }
    if (reduction != 1 && reduction != 2) return std::nullopt;
    // Reduced over every sample ({1} stands for an unbatched input's one sample).
    const std::vector<int64_t> extent = a.samples.empty() ? std::vector<int64_t>{1} : a.samples;
    const std::vector<bool> all(extent.size(), true);
    const bool unbatched = a.samples.empty();
    auto sampleAt = [unbatched](const std::vector<Index>& co) { return unbatched ? std::vector<Index>{} : co; };
    const TensorMeta sm = TensorMeta::contiguous({}, a.ct, c.outMeta(0).device);
    int sum = reduceTo(
        c, sm, extent, all, false, ReduceOp::Sum,
        [perSample, sampleAt](Loader& L, const std::vector<Index>& co) { return perSample(L, sampleAt(co)); }, deps,
        ".sum");
    int tw = reduceTo(
        c, c.outMeta(1), extent, all, false, ReduceOp::Sum,
        [a, sampleAt](Loader& L, const std::vector<Index>& co) { return a.weightOf(L, a.targetOf(L, sampleAt(co))); },
        deps, ".total_weight");
    int out = c.pointwise(c.outMeta(0), {sum, tw}, [a, sum, tw, reduction](Loader& L, const std::vector<Index>&) {
        ExprP v = eto(L.load(sum, {}), a.ct);
        return reduction == 1 ? ebinary(Op::Div, v, eto(L.load(tw, {}), a.ct)) : v;
    });
    r.items = {tensorValue(out), tensorValue(tw)};
    return r;
}

/// nll_loss_backward / nll_loss2d_backward(grad_output, self, target, weight, reduction,
/// ignore_index, total_weight): -w * g at (sample, t), 0 elsewhere; g is grad_output per sample
/// (none), or grad_output (sum), divided by total_weight (mean).
template <bool Spatial>
std::optional<LValue> nllLossBackward(LowerCtx& c) {
    auto nll = nllOf(c, 1, Spatial);
    const int g = c.in(0), tw = c.in(6);
    if (!nll || g < 0 || tw < 0 || !c.out().isTensor()) return std::nullopt;
    const Nll a = *nll;
    const int64_t reduction = c.args().toInt(4);
    if (reduction < 0 || reduction > 2) return std::nullopt;
    const bool perSample = reduction == 0 && !a.samples.empty();
    std::vector<int> deps{g, a.target, tw};
    if (a.weight >= 0) deps.push_back(a.weight);
    return tensorValue(c.pointwise(c.outMeta(), deps, [=](Loader& L, const std::vector<Index>& co) {
        const std::vector<Index> s = a.sampleOf(co);
        ExprP t = a.targetOf(L, s);
        ExprP gv = eto(L.load(g, perSample ? s : std::vector<Index>{}), a.ct);
        if (reduction == 1) gv = ebinary(Op::Div, gv, eto(L.load(tw, {}), a.ct));
        ExprP v = eunary(Op::Neg, ebinary(Op::Mul, a.weightOf(L, t), gv));
        return ewhere(ebinary(Op::Eq, t, eindex(a.classOf(co))), v, econst(0.0, a.ct));
    }));
}

/// multi_margin_loss(self, target, p=1, margin=1, weight=None, reduction=mean): per sample,
/// sum over classes i != y of max(0, margin - x[y] + x[i])^p (times weight[y]) / C.
std::optional<LValue> multiMarginLoss(LowerCtx& c) {
    const int x = c.in(0), target = c.in(1);
    if (x < 0 || target < 0 || !c.out().isTensor() || !isFloating(c.outMeta().dtype)) return std::nullopt;
    const auto xs = c.meta(x).shape;
    if (xs.size() > 2) return std::nullopt;
    // A 0-d self is one sample of one class.
    const bool batched = xs.size() == 2, scalar = xs.empty();
    const int64_t N = batched ? xs[0] : 1, C = scalar ? 1 : xs.back();
    const int64_t p = c.args().toInt(2);
    const double margin = c.args()[3].toDouble();
    const int weight = c.args().size() > 4 && c.args()[4].isTensor() ? c.in(4) : -1;
    const int64_t reduction = c.args().size() > 5 && c.args()[5].isNumber() ? c.args().toInt(5) : 1;
    if ((p != 1 && p != 2) || C == 0 || N == 0 || reduction < 0 || reduction > 2) return std::nullopt;
    const DType ct = computeType(c.outMeta().dtype);
    auto row = [batched, scalar](const Index& n, Index i) {
        if (scalar) return std::vector<Index>{};
        return batched ? std::vector<Index>{n, std::move(i)} : std::vector<Index>{std::move(i)};
    };
    std::vector<int> deps{x, target};
    if (weight >= 0) deps.push_back(weight);
    // [N, C] terms, summed over classes (then over samples unless reduction is none).
    const std::vector<int64_t> in = {N, C};
    auto term = [=](Loader& L, const std::vector<Index>& co) {
        ExprP y = eto(L.load(target, batched ? std::vector<Index>{co[0]} : std::vector<Index>{}), DType::Int64);
        y = ebinary(Op::Min, ebinary(Op::Max, y, econst(0, DType::Int64)), econst(double(C - 1), DType::Int64));
        ExprP xy = eto(L.load(x, row(co[0], ivalue(y))), ct);
        ExprP z = ebinary(Op::Add, ebinary(Op::Sub, econst(margin, ct), xy), eto(L.load(x, row(co[0], co[1])), ct));
        z = ebinary(Op::Max, z, econst(0, ct));
        if (p == 2) z = ebinary(Op::Mul, z, z);
        if (weight >= 0) z = ebinary(Op::Mul, z, eto(L.load(weight, {ivalue(y)}), ct));
        z = ebinary(Op::Div, z, econst(double(C), ct));
        return ewhere(ebinary(Op::Eq, eindex(co[1]), y), econst(0, ct), z);
    };
    if (reduction == 0) {
        if (!batched) return std::nullopt;
        return tensorValue(reduceTo(c, c.outMeta(), in, {false, true}, false, ReduceOp::Sum, term, deps));
    }
    const int sum = reduceTo(c, TensorMeta::contiguous({}, ct, c.outMeta().device), in, {true, true}, false,
                             ReduceOp::Sum, term, deps, ".sum");
    const double scale = reduction == 1 ? 1.0 / double(N) : 1.0;
    return tensorValue(c.pointwise(c.outMeta(), {sum}, [sum, ct, scale](Loader& L, const std::vector<Index>&) {
        return ebinary(Op::Mul, eto(L.load(sum, {}), ct), econst(scale, ct));
    }));
}

/// multilabel_margin_loss_forward(self, target, reduction) -> (loss, is_target): a sample's
/// targets are its target entries before the first negative one; its loss sums
/// max(0, 1 - (x[y_j] - x[i])) over targets j and non-target classes i, divided by C.
std::optional<LValue> multilabelMarginLoss(LowerCtx& c) {
    const int x = c.in(0), target = c.in(1);
    if (x < 0 || target < 0 || !c.out().isList() || c.out().list.size() != 2 || !isFloating(c.meta(x).dtype))
        return std::nullopt;
    const auto xs = c.meta(x).shape;
    if (xs.size() > 2 || c.meta(target).shape != xs) return std::nullopt;
    const size_t rank = xs.size();
    const int64_t N = rank == 2 ? xs[0] : 1, C = rank == 0 ? 1 : xs.back();
    const int64_t reduction = c.args().toInt(2);
    if (N == 0 || C == 0 || reduction < 0 || reduction > 2) return std::nullopt;
    const DType ct = computeType(c.meta(x).dtype), I = DType::Int64;
    const auto dev = c.outMeta(0).device;
    // (n, c) as coordinates of self/target.
    auto at = [rank](const Index& n, const Index& k) {
        if (rank == 2) return std::vector<Index>{n, k};
        if (rank == 1) return std::vector<Index>{k};
        return std::vector<Index>{};
    };
    auto tgt = [=](Loader& L, const Index& n, const Index& k) { return eto(L.load(target, at(n, k)), I); };
    // negatives[n, j]: negative target entries at or before j (0: entry j is a target).
    const int negatives = reduceTo(
        c, TensorMeta::contiguous({N, C}, I, dev), {N, C, C}, {false, false, true}, false, ReduceOp::Sum,
        [=](Loader& L, const std::vector<Index>& co) {
            ExprP neg = ebinary(Op::Lt, tgt(L, co[0], co[2]), econst(0, I));
            return eto(ebinary(Op::And, ebinary(Op::Le, eindex(co[2]), eindex(co[1])), neg), I);
        },
        {target}, ".negatives");
    auto isTargetEntry = [=](Loader& L, const Index& n, const Index& j) {
        return ebinary(Op::Eq, L.load(negatives, {n, j}), econst(0, I));
    };
    // hits[n, i]: target entries naming class i.
    const int hits = reduceTo(
        c, TensorMeta::contiguous({N, C}, I, dev), {N, C, C}, {false, false, true}, false, ReduceOp::Sum,
        [=](Loader& L, const std::vector<Index>& co) {
            ExprP names = ebinary(Op::Eq, tgt(L, co[0], co[2]), eindex(co[1]));
            return eto(ebinary(Op::And, isTargetEntry(L, co[0], co[2]), names), I);
        },
        {target, negatives}, ".hits");
    // per-sample loss over (j, i).
    const int perSample = reduceTo(
        c, TensorMeta::contiguous({N}, ct, dev), {N, C, C}, {false, true, true}, false, ReduceOp::Sum,
        [=](Loader& L, const std::vector<Index>& co) {
            ExprP y = ebinary(Op::Min, ebinary(Op::Max, tgt(L, co[0], co[1]), econst(0, I)), econst(double(C - 1), I));
            ExprP xy = eto(L.load(x, at(co[0], ivalue(y))), ct), xi = eto(L.load(x, at(co[0], co[2])), ct);
            ExprP z = ebinary(Op::Max, ebinary(Op::Add, ebinary(Op::Sub, econst(1, ct), xy), xi), econst(0, ct));
            ExprP use = ebinary(Op::And, isTargetEntry(L, co[0], co[1]),
                                ebinary(Op::Eq, L.load(hits, {co[0], co[2]}), econst(0, I)));
            return ewhere(use, ebinary(Op::Div, z, econst(double(C), ct)), econst(0, ct));
        },
        {x, target, negatives, hits}, ".per_sample");
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    int loss;
    if (reduction == 0 && rank == 2) {
        loss = c.pointwise(c.outMeta(0), {perSample},
                           [perSample](Loader& L, const std::vector<Index>& co) { return L.load(perSample, {co[0]}); });
    } else {
        const double scale = reduction == 1 ? 1.0 / double(N) : 1.0;
        const int sum = reduceTo(
            c, TensorMeta::contiguous({}, ct, dev), {N}, {true}, false, ReduceOp::Sum,
            [perSample](Loader& L, const std::vector<Index>& co) { return L.load(perSample, {co[0]}); }, {perSample},
            ".sum");
        loss = c.pointwise(c.outMeta(0), {sum}, [sum, ct, scale](Loader& L, const std::vector<Index>&) {
            return ebinary(Op::Mul, eto(L.load(sum, {}), ct), econst(scale, ct));
        });
    }
    const int isTarget = c.pointwise(
        c.outMeta(1), {hits},
        [hits, rank, ct](Loader& L, const std::vector<Index>& co) {
            const Index n = rank == 2 ? co[0] : iconst(0), k = rank == 0 ? iconst(0) : co.back();
            return ewhere(ebinary(Op::Gt, L.load(hits, {n, k}), econst(0, DType::Int64)), econst(1, ct), econst(0, ct));
        },
        ".is_target");
    r.items = {tensorValue(loss), tensorValue(isTarget)};
    return r;
}

}  // namespace

void addLossLowerings(std::map<std::string, LowerFn>& t) {
    t["aten.multilabel_margin_loss_forward.default"] = multilabelMarginLoss;
    t["aten.multi_margin_loss.default"] = multiMarginLoss;
    t["aten.nll_loss_forward.default"] = nllLossForward<false>;
    t["aten.nll_loss_backward.default"] = nllLossBackward<false>;
    t["aten.nll_loss2d_forward.default"] = nllLossForward<true>;
    t["aten.nll_loss2d_backward.default"] = nllLossBackward<true>;
    t["aten.mse_loss.default"] = [](LowerCtx& c) {
        return loss(c, {0, 1}, {0, 0}, intArg(c, 2, 1), [](const auto& v) {
            ExprP d = sub(v[0], v[1]);
            return mul(d, d);
        });
    };
    t["aten.huber_loss.default"] = [](LowerCtx& c) {
        double delta = numArg(c, 3, 1.0);
        return loss(c, {0, 1}, {0, 0}, intArg(c, 2, 1), [delta](const auto& v) {
            ExprP z = eunary(Op::Abs, sub(v[0], v[1]));
            return ewhere(lt(z, delta), mul(kc(0.5, z), mul(z, z)), mul(kc(delta, z), sub(z, kc(0.5 * delta, z))));
        });
    };
    t["aten.smooth_l1_loss.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        double beta = numArg(c, 3, 1.0);
        return loss(c, {0, 1}, {0, 0}, intArg(c, 2, 1), [beta](const auto& v) {
            ExprP z = eunary(Op::Abs, sub(v[0], v[1]));
            if (beta == 0.0) return z;
            return ewhere(lt(z, beta), div(mul(kc(0.5, z), mul(z, z)), kc(beta, z)), sub(z, kc(0.5 * beta, z)));
        });
    };
    t["aten.soft_margin_loss.default"] = [](LowerCtx& c) {
        return loss(c, {0, 1}, {0, 0}, intArg(c, 2, 1),
                    [](const auto& v) { return eunary(Op::Log1p, eunary(Op::Exp, eunary(Op::Neg, mul(v[1], v[0])))); });
    };
    t["aten.binary_cross_entropy.default"] = [](LowerCtx& c) {
        // (self, target, weight?, reduction): -w (t max(log x, -100) + (1 - t) max(log(1 - x), -100))
        return loss(c, {0, 1, 2}, {0, 0, 1}, intArg(c, 3, 1), [](const auto& v) {
            const ExprP &x = v[0], &tg = v[1];
            ExprP lx = ebinary(Op::Max, eunary(Op::Log, x), kc(-100, x));
            ExprP l1x = ebinary(Op::Max, eunary(Op::Log1p, eunary(Op::Neg, x)), kc(-100, x));
            return mul(v[2], sub(mul(sub(tg, kc(1, tg)), l1x), mul(tg, lx)));
        });
    };
    t["aten.binary_cross_entropy_with_logits.default"] = [](LowerCtx& c) {
        // (self, target, weight?, pos_weight?, reduction)
        bool posWeight = c.args()[3].isTensor();
        return loss(c, {0, 1, 2, 3}, {0, 0, 1, 1}, intArg(c, 4, 1), [posWeight](const auto& v) {
            const ExprP &x = v[0], &tg = v[1];
            ExprP maxv = ebinary(Op::Max, eunary(Op::Neg, x), kc(0, x));
            ExprP lse = add(eunary(Op::Log, add(eunary(Op::Exp, eunary(Op::Neg, maxv)),
                                                eunary(Op::Exp, sub(eunary(Op::Neg, x), maxv)))),
                            maxv);
            ExprP lw = posWeight ? add(mul(sub(v[3], kc(1, tg)), tg), kc(1, tg)) : kc(1, tg);
            return mul(v[2], add(mul(sub(kc(1, tg), tg), x), mul(lw, lse)));
        });
    };

    t["aten.mse_loss_backward.default"] = [](LowerCtx& c) {
        return lossBackward(c, {0, 1, 2}, {0, 0, 0}, intArg(c, 3, 1),
                            [](const auto& v) { return mul(mul(kc(2, v[0]), sub(v[1], v[2])), v[0]); });
    };
    t["aten.huber_loss_backward.default"] = [](LowerCtx& c) {
        double delta = numArg(c, 4, 1.0);
        return lossBackward(c, {0, 1, 2}, {0, 0, 0}, intArg(c, 3, 1), [delta](const auto& v) {
            const ExprP& g = v[0];
            ExprP d = sub(v[1], v[2]);
            return ewhere(lt(d, -delta), mul(kc(-delta, g), g), ewhere(gt(d, delta), mul(kc(delta, g), g), mul(d, g)));
        });
    };
    t["aten.smooth_l1_loss_backward.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        double beta = numArg(c, 4, 1.0);
        if (beta == 0.0) return std::nullopt;
        return lossBackward(c, {0, 1, 2}, {0, 0, 0}, intArg(c, 3, 1), [beta](const auto& v) {
            const ExprP& g = v[0];
            ExprP d = sub(v[1], v[2]);
            return ewhere(lt(d, -beta), eunary(Op::Neg, g), ewhere(gt(d, beta), g, div(mul(d, g), kc(beta, g))));
        });
    };
    t["aten.binary_cross_entropy_backward.default"] = [](LowerCtx& c) {
        // (grad, self, target, weight?, reduction): grad (x - t) / max((1 - x) x, 1e-12) w
        return lossBackward(c, {0, 1, 2, 3}, {0, 0, 0, 1}, intArg(c, 4, 1), [](const auto& v) {
            const ExprP &g = v[0], &x = v[1];
            ExprP den = ebinary(Op::Max, mul(sub(kc(1, x), x), x), kc(1e-12, x));
            return mul(mul(g, div(sub(x, v[2]), den)), v[3]);
        });
    };
}

}  // namespace fxray::cg
