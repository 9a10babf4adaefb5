// Lowerings of normalisations (layer norm forward/backward, inference batch norm, group norm,
// RMS norm, weight norm and its backward) into row reductions over the normalised dims plus pointwise epilogues, and of
// indexing reads (embedding, index_select, gather) into pointwise bodies with data-dependent
// indices.
#include "codegen/lower_util.h"

namespace fxray::cg {

namespace {

/// A loader of an optional per-feature tensor (weight/bias) broadcast over x's trailing dims.
struct Feature {
    int id = -1;
    std::vector<int64_t> shape;
    ExprP get(Loader& L, const std::vector<Index>& co, DType ct, double dflt) const {
        if (id < 0) return econst(dflt, ct);
        return eto(loadBroadcast(L, id, shape, co), ct);
    }
};

Feature feature(LowerCtx& c, size_t i) {
    Feature f;
    f.id = c.in(i);
    if (f.id >= 0) f.shape = c.meta(f.id).shape;
    return f;
}

std::optional<LValue> layerNorm(LowerCtx& c) {
    int x = c.in(0);
    // native_layer_norm -> (out, mean, rstd); layer_norm (as Dynamo-stage graphs keep it) -> out.
    const bool single = c.out().isTensor();
    if (x < 0 || (!single && (!c.out().isList() || c.out().list.size() != 3))) return std::nullopt;
    const TensorMeta xm = c.meta(x);
    if (!isFloating(xm.dtype)) return std::nullopt;
    size_t nnorm = c.args().toIntList(1).size();
    size_t axis = xm.shape.size() - nnorm;
    std::vector<bool> mask(xm.shape.size(), false);
    for (size_t d = axis; d < mask.size(); ++d) mask[d] = true;
    double eps = c.args().toDouble(4);
    DType ct = computeType(xm.dtype);
    Feature w = feature(c, 2), b = feature(c, 3);
    int64_t count = 1;
    for (size_t d = axis; d < xm.shape.size(); ++d) count *= xm.shape[d];
    auto kshape = keptShape(xm.shape, mask);

    int mean = rowMean(c, x, mask, ct, ".mean");
    int ss = reduceTo(
        c, keptMeta(xm, mask, ct), xm.shape, mask, true, ReduceOp::Sum,
        [x, mean, ct, kshape](Loader& L, const std::vector<Index>& co) {
            ExprP d = ebinary(Op::Sub, eto(L.load(x, co), ct), loadBroadcast(L, mean, kshape, co));
            return ebinary(Op::Mul, d, d);
        },
        {x, mean}, ".var");
    double inv = count ? 1.0 / static_cast<double>(count) : NAN;
    const TensorMeta meanMeta = single ? keptMeta(xm, mask, ct) : c.outMeta(1),
                     rstdMeta = single ? keptMeta(xm, mask, ct) : c.outMeta(2);
    int rstd = c.pointwise(
        rstdMeta, {ss},
        [ss, ct, inv, eps](Loader& L, const std::vector<Index>& co) {
            ExprP var = ebinary(Op::Mul, eto(L.load(ss, co), ct), econst(inv, ct));
            return eunary(Op::Rsqrt, ebinary(Op::Add, var, econst(eps, ct)));
        },
        ".rstd");
    int meanOut = mean;
    if (meanMeta.dtype != ct) {
        meanOut = c.pointwise(
            meanMeta, {mean},
            [mean, md = meanMeta.dtype](Loader& L, const std::vector<Index>& co) {
                return ecast(L.load(mean, co), md);
            },
            ".mean_out");
    }
    std::vector<int> deps = {x, mean, rstd};
    if (w.id >= 0) deps.push_back(w.id);
    if (b.id >= 0) deps.push_back(b.id);
    int out = c.pointwise(c.outMeta(0), deps, [=](Loader& L, const std::vector<Index>& co) {
        ExprP v = ebinary(Op::Sub, eto(L.load(x, co), ct), loadBroadcast(L, mean, kshape, co));
        v = ebinary(Op::Mul, v, eto(loadBroadcast(L, rstd, kshape, co), ct));
        if (w.id >= 0) v = ebinary(Op::Mul, v, w.get(L, co, ct, 1.0));
        if (b.id >= 0) v = ebinary(Op::Add, v, b.get(L, co, ct, 0.0));
        return v;
    });
    if (single) return tensorValue(out);
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    r.items = {tensorValue(out), tensorValue(meanOut), tensorValue(rstd)};
    return r;
}

std::optional<LValue> layerNormBackward(LowerCtx& c) {
    // (grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
    int g = c.in(0), x = c.in(1), mean = c.in(3), rstd = c.in(4);
    if (g < 0 || x < 0 || mean < 0 || rstd < 0 || !c.out().isList() || c.out().list.size() != 3) return std::nullopt;
    const TensorMeta xm = c.meta(x);
    if (!isFloating(xm.dtype)) return std::nullopt;
    size_t nnorm = c.args().toIntList(2).size();
    size_t axis = xm.shape.size() - nnorm;
    std::vector<bool> rowMask(xm.shape.size(), false), colMask(xm.shape.size(), false);
    for (size_t d = 0; d < rowMask.size(); ++d) (d >= axis ? rowMask : colMask)[d] = true;
    DType ct = computeType(xm.dtype);
    Feature w = feature(c, 5);
    int64_t count = 1;
    for (size_t d = axis; d < xm.shape.size(); ++d) count *= xm.shape[d];
    std::vector<int64_t> mshape = c.meta(mean).shape, rshape = c.meta(rstd).shape;
    auto xhat = [x, mean, rstd, ct, mshape, rshape](Loader& L, const std::vector<Index>& co) {
        ExprP v = ebinary(Op::Sub, eto(L.load(x, co), ct), eto(loadBroadcast(L, mean, mshape, co), ct));
        return ebinary(Op::Mul, v, eto(loadBroadcast(L, rstd, rshape, co), ct));
    };
    auto gw = [g, w, ct](Loader& L, const std::vector<Index>& co) {
        ExprP v = eto(L.load(g, co), ct);
        return w.id >= 0 ? ebinary(Op::Mul, v, w.get(L, co, ct, 1.0)) : v;
    };
    std::vector<int> deps = {g, x, mean, rstd};
    if (w.id >= 0) deps.push_back(w.id);
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    r.items.resize(3);
    const Value& o = c.out();
    if (o.list[0].isTensor()) {
        auto kshape = keptShape(xm.shape, rowMask);
        int s1 = reduceTo(c, keptMeta(xm, rowMask, ct), xm.shape, rowMask, true, ReduceOp::Sum, gw, deps, ".sum_gw");
        int s2 = reduceTo(
            c, keptMeta(xm, rowMask, ct), xm.shape, rowMask, true, ReduceOp::Sum,
            [gw, xhat](Loader& L, const std::vector<Index>& co) { return ebinary(Op::Mul, gw(L, co), xhat(L, co)); },
            deps, ".sum_gw_xhat");
        double n = static_cast<double>(count);
        std::vector<int> d2 = deps;
        d2.push_back(s1);
        d2.push_back(s2);
        int gi = c.pointwise(
            o.list[0].t.meta, d2,
            [=](Loader& L, const std::vector<Index>& co) {
                // rstd / N * (N * gw - sum(gw) - xhat * sum(gw * xhat))
                ExprP a = ebinary(Op::Mul, econst(n, ct), gw(L, co));
                a = ebinary(Op::Sub, a, loadBroadcast(L, s1, kshape, co));
                a = ebinary(Op::Sub, a, ebinary(Op::Mul, xhat(L, co), loadBroadcast(L, s2, kshape, co)));
                ExprP scale = ebinary(Op::Div, eto(loadBroadcast(L, rstd, rshape, co), ct), econst(n, ct));
                return ebinary(Op::Mul, scale, a);
            },
            ".grad_input");
        r.items[0] = tensorValue(gi);
    }
    if (o.list[1].isTensor()) {
        TensorMeta m = o.list[1].t.meta;
        int gwr = reduceTo(
            c, m, xm.shape, colMask, false, ReduceOp::Sum,
            [g, xhat, ct](Loader& L, const std::vector<Index>& co) {
                return ebinary(Op::Mul, eto(L.load(g, co), ct), xhat(L, co));
            },
            deps, ".grad_weight");
        r.items[1] = tensorValue(gwr);
    }
    if (o.list[2].isTensor()) {
        TensorMeta m = o.list[2].t.meta;
        int gbr = reduceTo(
            c, m, xm.shape, colMask, false, ReduceOp::Sum,
            [g, ct](Loader& L, const std::vector<Index>& co) { return eto(L.load(g, co), ct); }, {g}, ".grad_bias");
        r.items[2] = tensorValue(gbr);
    }
    return r;
}

/// _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var,
/// momentum, eps) -> (out, empty, empty), or (EpsArg 7) batch_norm(input, weight, bias,
/// running_mean, running_var, training, momentum, eps, cudnn_enabled) -> out as Dynamo-stage
/// graphs keep it, in evaluation mode (training updates the running statistics in place).
template <size_t EpsArg>
std::optional<LValue> batchNormInference(LowerCtx& c) {
    int x = c.in(0), rm = c.in(3), rv = c.in(4);
    const bool single = c.out().isTensor();
    if (x < 0 || rm < 0 || rv < 0 || (!single && !c.out().isList())) return std::nullopt;
    if (EpsArg == 7 && c.args().toBool(5)) return std::nullopt;
    const TensorMeta xm = c.meta(x);
    if (!isFloating(xm.dtype) || xm.shape.size() < 2) return std::nullopt;
    double eps = c.args().toDouble(EpsArg);
    DType ct = computeType(xm.dtype);
    int w = c.in(1), b = c.in(2);
    // Per-channel tensors index dim 1.
    auto chan = [](Loader& L, int id, const std::vector<Index>& co, DType t) { return eto(L.load(id, {co[1]}), t); };
    std::vector<int> deps = {x, rm, rv};
    if (w >= 0) deps.push_back(w);
    if (b >= 0) deps.push_back(b);
    int out = c.pointwise(c.outMeta(0), deps, [=](Loader& L, const std::vector<Index>& co) {
        ExprP v = ebinary(Op::Sub, eto(L.load(x, co), ct), chan(L, rm, co, ct));
        v = ebinary(Op::Mul, v, eunary(Op::Rsqrt, ebinary(Op::Add, chan(L, rv, co, ct), econst(eps, ct))));
        if (w >= 0) v = ebinary(Op::Mul, v, chan(L, w, co, ct));
        if (b >= 0) v = ebinary(Op::Add, v, chan(L, b, co, ct));
        return v;
    });
    if (single) return tensorValue(out);
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    r.items.push_back(tensorValue(out));
    for (size_t i = 1; i < c.out().list.size(); ++i) {
        const TensorMeta& m = c.out().list[i].t.meta;
        r.items.push_back(tensorValue(c.pointwise(
            m, {}, [dt = m.dtype](Loader&, const std::vector<Index>&) { return econst(0.0, dt); },
            "." + std::to_string(i))));
    }
    return r;
}

/// An index value read from `idx` at coordinates, wrapped (negative) and clamped to [0, n).
ExprP indexValue(Loader& L, int idx, const std::vector<Index>& co, int64_t n) {
    ExprP i = eto(L.load(idx, co), DType::Int64);
    i = ewhere(ebinary(Op::Lt, i, econst(0, DType::Int64)), ebinary(Op::Add, i, econst(double(n), DType::Int64)), i);
    i = ebinary(Op::Max, i, econst(0, DType::Int64));
    return ebinary(Op::Min, i, econst(double(n - 1), DType::Int64));
}

/// native_group_norm(input, weight?, bias?, N, C, HxW, group, eps) -> (out, mean, rstd): x seen
/// as [N, group, C / group * HxW] (a row-major reshape view), mean and biased variance over the
/// last dim, then the per-channel affine epilogue over x's own coordinates.
/// Composite: group_norm(input, num_groups, weight?, bias?, eps, cudnn_enabled) -> out, as
/// Dynamo-stage graphs keep it (N, C and HxW from the input's shape).
template <bool Composite>
std::optional<LValue> groupNorm(LowerCtx& c) {
    const int x = c.in(0);
    if (x < 0 || (Composite ? !c.out().isTensor() : !c.out().isList() || c.out().list.size() != 3)) return std::nullopt;
    const TensorMeta xm = c.meta(x);
    if (!isFloating(xm.dtype) || xm.shape.size() < 2) return std::nullopt;
    const int64_t N = Composite ? xm.shape[0] : c.args().toInt(3), C = Composite ? xm.shape[1] : c.args().toInt(4);
    const int64_t HxW = Composite ? (N * C == 0 ? 0 : xm.numel() / (N * C)) : c.args().toInt(5),
                  G = c.args().toInt(Composite ? 1 : 6);
    if (G <= 0 || C % G != 0 || N * C * HxW != xm.numel() || xm.shape[0] != N || xm.shape[1] != C || N * C * HxW == 0)
        return std::nullopt;
    const double eps = c.args().toDouble(Composite ? 4 : 7);
    const DType ct = computeType(xm.dtype);
    const int64_t D = C / G * HxW;
    const std::vector<int64_t> gshape{N, G, D}, xshape = xm.shape;
    const int grouped = c.view(
        TensorMeta::contiguous(gshape, xm.dtype, xm.device), x,
        [gshape, xshape](const std::vector<Index>& co) { return reshapeCoords(co, gshape, xshape); }, false);
    const std::vector<bool> mask{false, false, true};
    const std::vector<int64_t> kshape{N, G, 1};
    const int mean = rowMean(c, grouped, mask, ct, ".mean");
    const int ss = reduceTo(
        c, TensorMeta::contiguous(kshape, ct, xm.device), gshape, mask, true, ReduceOp::Sum,
        [grouped, mean, ct](Loader& L, const std::vector<Index>& co) {
            ExprP d = ebinary(Op::Sub, eto(L.load(grouped, co), ct), L.load(mean, {co[0], co[1], iconst(0)}));
            return ebinary(Op::Mul, d, d);
        },
        {grouped, mean}, ".var");
    const double inv = 1.0 / static_cast<double>(D);
    const TensorMeta statMeta = TensorMeta::contiguous({N, G}, xm.dtype, xm.device);
    const int rstd = c.pointwise(
        Composite ? statMeta : c.outMeta(2), {ss},
        [ss, ct, inv, eps](Loader& L, const std::vector<Index>& co) {
            ExprP var = ebinary(Op::Mul, eto(L.load(ss, {co[0], co[1], iconst(0)}), ct), econst(inv, ct));
            return eunary(Op::Rsqrt, ebinary(Op::Add, var, econst(eps, ct)));
        },
        ".rstd");
    const int meanOut = c.pointwise(
        Composite ? statMeta : c.outMeta(1), {mean},
        [mean](Loader& L, const std::vector<Index>& co) {
            return L.load(mean, {co[0], co[1], iconst(0)});
        },
        ".mean_out");
    const int w = c.in(Composite ? 2 : 1), b = c.in(Composite ? 3 : 2);
    std::vector<int> deps = {x, mean, rstd};
    if (w >= 0) deps.push_back(w);
    if (b >= 0) deps.push_back(b);
    const int64_t perGroup = C / G;
    const int out = c.pointwise(c.outMeta(0), deps, [=](Loader& L, const std::vector<Index>& co) {
        const std::vector<Index> at{co[0], idiv(co[1], perGroup)};
        ExprP v = ebinary(Op::Sub, eto(L.load(x, co), ct), L.load(mean, {at[0], at[1], iconst(0)}));
        v = ebinary(Op::Mul, v, eto(L.load(rstd, at), ct));
        if (w >= 0) v = ebinary(Op::Mul, v, eto(L.load(w, {co[1]}), ct));
        if (b >= 0) v = ebinary(Op::Add, v, eto(L.load(b, {co[1]}), ct));
        return v;
    });
    if (Composite) return tensorValue(out);
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    r.items = {tensorValue(out), tensorValue(meanOut), tensorValue(rstd)};
    return r;
}

/// _fused_rms_norm(input, normalized_shape, weight?, eps?) -> (out, rstd): rstd = rsqrt(mean of
/// x^2 over the normalised dims + eps), eps defaulting to the dtype's machine epsilon.
std::optional<LValue> rmsNorm(LowerCtx& c) {
    const int x = c.in(0);
    if (x < 0 || !c.out().isList() || c.out().list.size() != 2) return std::nullopt;
    const TensorMeta xm = c.meta(x);
    if (!isFloating(xm.dtype)) return std::nullopt;
    const size_t nnorm = c.args().toIntList(1).size();
    if (nnorm > xm.shape.size()) return std::nullopt;
    const size_t axis = xm.shape.size() - nnorm;
    std::vector<bool> mask(xm.shape.size(), false);
    for (size_t d = axis; d < mask.size(); ++d) mask[d] = true;
    double eps = xm.dtype == DType::Float64    ? 2.220446049250313e-16
                 : xm.dtype == DType::Float16  ? 0.0009765625
                 : xm.dtype == DType::BFloat16 ? 0.0078125
                                               : 1.1920928955078125e-07;
    if (c.args().size() > 3 && !c.args().isNone(3)) eps = c.args().toDouble(3);
    const DType ct = computeType(xm.dtype);
    int64_t count = 1;
    for (size_t d = axis; d < xm.shape.size(); ++d) count *= xm.shape[d];
    if (count == 0 || c.outMeta(1).shape != keptShape(xm.shape, mask)) return std::nullopt;
    const auto kshape = keptShape(xm.shape, mask);
    const int ss = reduceTo(
        c, keptMeta(xm, mask, ct), xm.shape, mask, true, ReduceOp::Sum,
        [x, ct](Loader& L, const std::vector<Index>& co) {
            ExprP v = eto(L.load(x, co), ct);
            return ebinary(Op::Mul, v, v);
        },
        {x}, ".sumsq");
    const double inv = 1.0 / static_cast<double>(count);
    const int rstd = c.pointwise(
        c.outMeta(1), {ss},
        [ss, ct, inv, eps](Loader& L, const std::vector<Index>& co) {
            ExprP ms = ebinary(Op::Mul, eto(L.load(ss, co), ct), econst(inv, ct));
            return eunary(Op::Rsqrt, ebinary(Op::Add, ms, econst(eps, ct)));
        },
        ".rstd");
    Feature w = feature(c, 2);
    std::vector<int> deps = {x, rstd};
    if (w.id >= 0) deps.push_back(w.id);
    const int out = c.pointwise(c.outMeta(0), deps, [=](Loader& L, const std::vector<Index>& co) {
        ExprP v = ebinary(Op::Mul, eto(L.load(x, co), ct), eto(loadBroadcast(L, rstd, kshape, co), ct));
        return w.id >= 0 ? ebinary(Op::Mul, v, w.get(L, co, ct, 1.0)) : v;
    });
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    r.items = {tensorValue(out), tensorValue(rstd)};
    return r;
}

/// Weight norm over every dim of v but `dim`, when g (and the norms) have v's shape with 1 in the
/// other dims (torch.nn.utils.weight_norm's g): the reduction mask and that kept shape.
std::optional<std::pair<std::vector<bool>, std::vector<int64_t>>> weightNormDims(LowerCtx& c, int v, int g,
                                                                                 int64_t dim) {
    const TensorMeta vm = c.meta(v);
    const int64_t nd = static_cast<int64_t>(vm.shape.size());
    if (dim < 0) dim += nd;
    if (nd == 0 || dim < 0 || dim >= nd || !isFloating(vm.dtype) || vm.numel() == 0) return std::nullopt;
    std::vector<bool> mask(static_cast<size_t>(nd), true);
    mask[static_cast<size_t>(dim)] = false;
    const auto kshape = keptShape(vm.shape, mask);
    if (c.meta(g).shape != kshape) return std::nullopt;
    return std::make_pair(mask, kshape);
}

/// _weight_norm_interface(v, g, dim) -> (w = v * g / norms, norms = ||v|| over the other dims).
std::optional<LValue> weightNorm(LowerCtx& c) {
    const int v = c.in(0), g = c.in(1);
    if (v < 0 || g < 0 || !c.out().isList() || c.out().list.size() != 2) return std::nullopt;
    const auto dims = weightNormDims(c, v, g, c.args().toInt(2));
    if (!dims || c.outMeta(1).shape != dims->second) return std::nullopt;
    const auto [mask, kshape] = *dims;
    const DType ct = computeType(c.meta(v).dtype);
    const int ss = reduceTo(
        c, keptMeta(c.meta(v), mask, ct), c.meta(v).shape, mask, true, ReduceOp::Sum,
        [v, ct](Loader& L, const std::vector<Index>& co) {
            ExprP x = eto(L.load(v, co), ct);
            return ebinary(Op::Mul, x, x);
        },
        {v}, ".sumsq");
    const int norms = c.pointwise(
        c.outMeta(1), {ss},
        [ss, ct](Loader& L, const std::vector<Index>& co) { return eunary(Op::Sqrt, eto(L.load(ss, co), ct)); },
        ".norms");
    const int w = c.pointwise(c.outMeta(0), {v, g, norms}, [=](Loader& L, const std::vector<Index>& co) {
        ExprP scale = ebinary(Op::Div, eto(loadBroadcast(L, g, kshape, co), ct), eto(loadBroadcast(L, norms, kshape, co), ct));
        return ebinary(Op::Mul, eto(L.load(v, co), ct), scale);
    });
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    r.items = {tensorValue(w), tensorValue(norms)};
    return r;
}

/// _weight_norm_interface_backward(grad_w, v, g, norms, dim) -> (grad_v, grad_g):
/// grad_g = sum(grad_w * v) / norms, grad_v = g / norms * (grad_w - v * grad_g / norms).
std::optional<LValue> weightNormBackward(LowerCtx& c) {
    const int gw = c.in(0), v = c.in(1), g = c.in(2), n = c.in(3);
    if (gw < 0 || v < 0 || g < 0 || n < 0 || !c.out().isList() || c.out().list.size() != 2) return std::nullopt;
    const auto dims = weightNormDims(c, v, g, c.args().toInt(4));
    if (!dims || c.meta(n).shape != dims->second || c.meta(gw).shape != c.meta(v).shape) return std::nullopt;
    const auto [mask, kshape] = *dims;
    const DType ct = computeType(c.meta(v).dtype);
    const int dot = reduceTo(
        c, keptMeta(c.meta(v), mask, ct), c.meta(v).shape, mask, true, ReduceOp::Sum,
        [gw, v, ct](Loader& L, const std::vector<Index>& co) {
            return ebinary(Op::Mul, eto(L.load(gw, co), ct), eto(L.load(v, co), ct));
        },
        {gw, v}, ".dot");
    const int gg = c.pointwise(c.outMeta(1), {dot, n}, [=](Loader& L, const std::vector<Index>& co) {
        return ebinary(Op::Div, eto(L.load(dot, co), ct), eto(L.load(n, co), ct));
    });
    const int gv = c.pointwise(c.outMeta(0), {gw, v, g, n, dot}, [=](Loader& L, const std::vector<Index>& co) {
        ExprP nv = eto(loadBroadcast(L, n, kshape, co), ct);
        ExprP ggv = ebinary(Op::Div, eto(loadBroadcast(L, dot, kshape, co), ct), nv);
        ExprP inner = ebinary(Op::Sub, eto(L.load(gw, co), ct),
                              ebinary(Op::Mul, eto(L.load(v, co), ct), ebinary(Op::Div, ggv, nv)));
        return ebinary(Op::Mul, ebinary(Op::Div, eto(loadBroadcast(L, g, kshape, co), ct), nv), inner);
    });
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    r.items = {tensorValue(gv), tensorValue(gg)};
    return r;
}

}  // namespace

void addNormLowerings(std::map<std::string, LowerFn>& t) {
    t["aten._weight_norm_interface.default"] = weightNorm;
    t["aten._weight_norm_interface_backward.default"] = weightNormBackward;
    t["aten.native_layer_norm.default"] = t["aten.layer_norm.default"] = layerNorm;
    t["aten.native_layer_norm_backward.default"] = layerNormBackward;
    t["aten._native_batch_norm_legit_no_training.default"] = batchNormInference<6>;
    t["aten.batch_norm.default"] = batchNormInference<7>;
    t["aten.native_group_norm.default"] = groupNorm<false>;
    t["aten.group_norm.default"] = groupNorm<true>;
    t["aten._fused_rms_norm.default"] = rmsNorm;

    t["aten.embedding.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int w = c.in(0), idx = c.in(1);
        if (w < 0 || idx < 0 || c.meta(w).shape.size() != 2) return std::nullopt;
        int64_t n = c.meta(w).shape[0];
        size_t ni = c.meta(idx).shape.size();
        return tensorValue(c.pointwise(c.outMeta(), {w, idx}, [=](Loader& L, const std::vector<Index>& co) {
            std::vector<Index> ic(co.begin(), co.begin() + static_cast<long>(ni));
            return L.load(w, {ivalue(indexValue(L, idx, ic, n)), co.back()});
        }));
    };
    t["aten.index_select.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int x = c.in(0), idx = c.in(2);
        if (x < 0 || idx < 0) return std::nullopt;
        auto shape = c.meta(x).shape;
        int64_t dim = c.args().toInt(1);
        if (dim < 0) dim += static_cast<int64_t>(shape.size());
        if (shape.empty()) {
            // a 0-dim self has one element, which every (valid) index selects
            if (!c.outMeta().shape.empty() && c.outMeta().numel() != 1) return std::nullopt;
            return tensorValue(
                c.pointwise(c.outMeta(), {x}, [x](Loader& L, const std::vector<Index>&) { return L.load(x, {}); }));
        }
        int64_t n = shape[static_cast<size_t>(dim)];
        bool idx0d = c.meta(idx).shape.empty();
        return tensorValue(c.pointwise(c.outMeta(), {x, idx}, [=](Loader& L, const std::vector<Index>& co) {
            std::vector<Index> xc = co;
            std::vector<Index> ic;
            if (!idx0d) ic.push_back(co[static_cast<size_t>(dim)]);
            xc[static_cast<size_t>(dim)] = ivalue(indexValue(L, idx, ic, n));
            return L.load(x, xc);
        }));
    };
    t["aten.gather.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        int x = c.in(0), idx = c.in(2);
        if (x < 0 || idx < 0) return std::nullopt;
        auto shape = c.meta(x).shape;
        int64_t dim = c.args().toInt(1);
        if (dim < 0) dim += static_cast<int64_t>(shape.size());
        if (shape.empty() || c.meta(idx).shape.size() != shape.size()) return std::nullopt;
        int64_t n = shape[static_cast<size_t>(dim)];
        return tensorValue(c.pointwise(c.outMeta(), {x, idx}, [=](Loader& L, const std::vector<Index>& co) {
            std::vector<Index> xc = co;
            xc[static_cast<size_t>(dim)] = ivalue(indexValue(L, idx, co, n));
            return L.load(x, xc);
        }));
    };
}

}  // namespace fxray::cg
