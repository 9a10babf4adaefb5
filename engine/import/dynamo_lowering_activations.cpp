// Lowering rules for the torch.nn.functional activations, normalizations, distances, 1-D pools and
// evaluation-mode dropouts and the affine grid that have no ATen op of their own name in fxray (torch.selu,
// torch.cosine_similarity, torch.rms_norm, torch.avg_pool1d, ... are CompositeImplicit in ATen, so
// the generic torch.X -> aten.X mapping finds nothing). Each is registered under the names Dynamo
// records it by: the torch.* binding the functional calls, and torch.nn.functional.* where the
// functional is kept in the graph. Each emits the ops of ATen's own composite.
#include "exec/ops/kernel_util.h"
#include "import/dynamo_lowering_internal.h"

#include <limits>
#include <unordered_map>

namespace fxray::lowering {
namespace {

using Args = std::vector<Argument>;

Argument F(double v) { return Argument::ofFloat(v); }
Argument I(int64_t v) { return Argument::ofInt(v); }

/// `inplace=True` refused (the result would alias the input); absent or False accepted.
Status notInplace(const Argument* a, const char* what) {
    auto v = boolOf(a, false);
    if (!v) return makeError("inplace must be a bool");
    if (*v) return makeError(std::string("in-place ") + what + " is not supported");
    return Status::success();
}

/// F.selu(input, inplace=False) = elu(x, alpha, scale, 1) with SELU's constants.
Expected<Argument> selu(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "inplace"});
    if (!b.ok()) return b.error();
    if (Status s = notInplace(b->p[1], "selu"); !s.ok()) return s.error();
    return c.emit("aten.elu.default", {b->x, F(1.6732632423543772848170429916717), F(1.0507009873554804934193349852946),
                                       F(1.0)});
}

/// F.celu(input, alpha=1.0, inplace=False) = elu(x, alpha, 1, 1 / alpha).
Expected<Argument> celu(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "alpha", "inplace"});
    if (!b.ok()) return b.error();
    if (Status s = notInplace(b->p[2], "celu"); !s.ok()) return s.error();
    const auto alpha = given(b->p[1]) ? numberOf(b->p[1]) : std::optional<double>(1.0);
    if (!alpha || *alpha == 0.0) return makeError("alpha must be a non-zero number");
    return c.emit("aten.elu.default", {b->x, F(*alpha), F(1.0), F(1.0 / *alpha)});
}

/// F.softsign(input) = input / (|input| + 1).
Expected<Argument> softsign(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    auto a = c.emit("aten.abs.default", {b->x});
    if (!a.ok()) return a;
    auto d = c.emit("aten.add.Tensor", {*a, I(1)});
    if (!d.ok()) return d;
    return c.emit("aten.div.Tensor", {b->x, *d});
}

/// F.tanhshrink(input) = input - tanh(input).
Expected<Argument> tanhshrink(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    auto t = c.emit("aten.tanh.default", {b->x});
    if (!t.ok()) return t;
    return c.emit("aten.sub.Tensor", {b->x, *t});
}

/// F.logsigmoid / torch._C._nn.log_sigmoid(input): log_sigmoid_forward's output.
Expected<Argument> logSigmoid(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input"});
    if (!b.ok()) return b.error();
    auto r = c.emit("aten.log_sigmoid_forward.default", {b->x});
    if (!r.ok()) return r;
    return c.emitItem(*r, 0);
}

/// F.softmin(input, dim=None, _stacklevel=3, dtype=None) = softmax(-input); no dim takes
/// F's legacy implicit one (0 for 0-, 1- and 3-d input, else 1).
Expected<Argument> softmin(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "dim", "_stacklevel", "dtype"});
    if (!b.ok()) return b.error();
    const int64_t nd = b->m.dim();
    const auto dim = given(b->p[1]) ? intOf(b->p[1]) : std::optional<int64_t>(nd == 0 || nd == 1 || nd == 3 ? 0 : 1);
    if (!dim) return makeError("dim must be an int");
    const Argument* dt = b->p[3];
    if (given(dt) && dt->kind != Argument::Kind::DType) return makeError("dtype must be a torch dtype");
    auto n = c.emit("aten.neg.default", {b->x});
    if (!n.ok()) return n;
    Args args{*n, I(*dim)};
    if (given(dt)) args.push_back(*dt);
    return c.emit("aten.softmax.int", std::move(args));
}

/// torch.prelu(input, weight): where(x > 0, x, w * x), a per-channel weight laid along dim 1.
Expected<Argument> prelu(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "weight"});
    if (!b.ok()) return b.error();
    auto w = needTensor(c, b->p[1], "weight");
    if (!w.ok()) return w;
    const TensorMeta* xm = &b->m;
    auto wm = c.tensorMeta(*w);
    if (!wm) return makeError("prelu needs tensors");
    Argument wv = *w;
    if (wm->numel() != 1) {
        if (xm->dim() < 2 || wm->dim() != 1 || wm->shape[0] != xm->shape[1])
            return makeError("prelu's weight must have one element or one per channel (dim 1)");
        Args shape(static_cast<size_t>(xm->dim() - 1), I(1));
        shape[0] = I(wm->shape[0]);
        auto v = c.emit("aten.view.default", {*w, Argument::ofList(std::move(shape))});
        if (!v.ok()) return v;
        wv = *v;
    }
    auto prod = c.emit("aten.mul.Tensor", {wv, b->x});
    if (!prod.ok()) return prod;
    auto pos = c.emit("aten.gt.Scalar", {b->x, I(0)});
    if (!pos.ok()) return pos;
    return c.emit("aten.where.self", {*pos, b->x, *prod});
}

/// torch.rms_norm(input, normalized_shape, weight=None, eps=None): _fused_rms_norm's output
/// (the op ATen's composite dispatches to).
Expected<Argument> rmsNorm(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "normalized_shape", "weight", "eps"});
    if (!b.ok()) return b.error();
    if (!b->p[1]) return makeError("rms_norm needs normalized_shape");
    auto shape = intList(*b->p[1]);
    if (!shape) return makeError("normalized_shape must be ints");
    Args args{b->x, *shape, given(b->p[2]) ? *b->p[2] : Argument::none()};
    if (given(b->p[3])) {
        auto eps = numberOf(b->p[3]);
        if (!eps) return makeError("eps must be a number");
        args.push_back(F(*eps));
    } else {
        args.push_back(Argument::none());
    }
    auto r = c.emit("aten._fused_rms_norm.default", std::move(args));
    if (!r.ok()) return r;
    return c.emitItem(*r, 0);
}

/// torch.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum,
/// eps, cudnn_enabled) with the input's own statistics and no running statistics to update:
/// group_norm with one group per channel (the same statistics, the same affine).
Expected<Argument> instanceNorm(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call,
                       {"input", "running_mean", "running_var", "weight", "bias", "use_input_stats", "momentum", "eps",
                        "cudnn_enabled"});
    if (!b.ok()) return b.error();
    if (given(b->p[1]) || given(b->p[2]))
        return makeError("instance_norm with running statistics is not supported");
    auto use = boolOf(b->p[5], true);
    if (!use || !*use) return makeError("instance_norm without the input's statistics is not supported");
    if (b->m.dim() < 2) return makeError("instance_norm needs [N, C, ...] input");
    const auto eps = given(b->p[7]) ? numberOf(b->p[7]) : std::optional<double>(1e-5);
    if (!eps) return makeError("eps must be a number");
    return c.emit("aten.group_norm.default",
                  {b->x, I(b->m.shape[1]), given(b->p[3]) ? *b->p[3] : Argument::none(),
                   given(b->p[4]) ? *b->p[4] : Argument::none(), F(*eps), Argument::ofBool(false)});
}

/// torch.cosine_similarity(x1, x2, dim=1, eps=1e-8): the operands broadcast, each divided by its
/// 2-norm over dim clamped to eps, the products summed over dim (ATen's composite).
Expected<Argument> cosineSimilarity(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"x1", "x2", "dim", "eps"});
    if (!p.ok()) return p.error();
    auto a = needTensor(c, (*p)[0], "x1");
    if (!a.ok()) return a;
    auto bt = needTensor(c, (*p)[1], "x2");
    if (!bt.ok()) return bt;
    const auto dim = given((*p)[2]) ? intOf((*p)[2]) : std::optional<int64_t>(1);
    const auto eps = given((*p)[3]) ? numberOf((*p)[3]) : std::optional<double>(1e-8);
    if (!dim || !eps) return makeError("dim must be an int and eps a number");
    auto ma = c.tensorMeta(*a), mb = c.tensorMeta(*bt);
    if (!ma || !mb) return makeError("cosine_similarity needs tensors");
    Args ops{*a, *bt};
    if (ma->shape != mb->shape) {
        auto both = kern::broadcastShapes(ma->shape, mb->shape);
        if (!both) return makeError("x1 and x2 do not broadcast");
        Args sizes;
        for (int64_t v : *both) sizes.push_back(I(v));
        for (size_t i = 0; i < 2; ++i) {
            if ((i == 0 ? ma : mb)->shape == *both) continue;
            auto e = c.emit("aten.expand.default", {ops[i], Argument::ofList(sizes)});
            if (!e.ok()) return e;
            ops[i] = *e;
        }
    }
    Args unit;
    for (const auto& x : ops) {
        auto n = c.emit("aten.linalg_vector_norm.default",
                        {x, F(2.0), Argument::ofList({I(*dim)}), Argument::ofBool(true)});
        if (!n.ok()) return n;
        auto cl = c.emit("aten.clamp_min.default", {*n, F(*eps)});
        if (!cl.ok()) return cl;
        auto u = c.emit("aten.div.Tensor", {x, *cl});
        if (!u.ok()) return u;
        unit.push_back(*u);
    }
    auto prod = c.emit("aten.mul.Tensor", {unit[0], unit[1]});
    if (!prod.ok()) return prod;
    return c.emit("aten.sum.dim_IntList", {*prod, Argument::ofList({I(*dim)})});
}

/// torch.pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False) = ||x1 - x2 + eps||_p over
/// the last dim.
Expected<Argument> pairwiseDistance(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"x1", "x2", "p", "eps", "keepdim"});
    if (!p.ok()) return p.error();
    auto a = needTensor(c, (*p)[0], "x1");
    if (!a.ok()) return a;
    auto bt = needTensor(c, (*p)[1], "x2");
    if (!bt.ok()) return bt;
    const auto norm = given((*p)[2]) ? numberOf((*p)[2]) : std::optional<double>(2.0);
    const auto eps = given((*p)[3]) ? numberOf((*p)[3]) : std::optional<double>(1e-6);
    const auto keep = boolOf((*p)[4], false);
    if (!norm || !eps || !keep) return makeError("p and eps must be numbers, keepdim a bool");
    auto d = c.emit("aten.sub.Tensor", {*a, *bt});
    if (!d.ok()) return d;
    auto s = c.emit("aten.add.Tensor", {*d, F(*eps)});
    if (!s.ok()) return s;
    return c.emit("aten.linalg_vector_norm.default",
                  {*s, F(*norm), Argument::ofList({I(-1)}), Argument::ofBool(*keep)});
}

/// The evaluation-mode dropouts (torch.alpha_dropout / feature_dropout / feature_alpha_dropout
/// (input, p, train) and F.dropout1d/2d/3d / alpha_dropout / feature_alpha_dropout (input, p,
/// training, inplace)): the identity. In training they draw random masks: refused.
template <bool Functional>
Expected<Argument> evalDropout(LowerCtx& c, const TorchCall& call) {
    auto b = Functional ? bindInput(c, call, {"input", "p", "training", "inplace"})
                        : bindInput(c, call, {"input", "p", "train"});
    if (!b.ok()) return b.error();
    const auto training = boolOf(b->p[2], Functional);
    if (!training) return makeError("training must be a bool");
    if (*training) return makeError("this dropout in training mode is not supported");
    if (Functional)
        if (Status s = notInplace(b->p[3], "dropout"); !s.ok()) return s.error();
    return c.emit("aten.alias.default", {b->x});
}

/// 1-D pools as ATen's composites run them: a size-1 dim inserted before the last, the 2-D
/// pool, the dim removed.
Expected<Argument> squeezeBack(LowerCtx& c, const Expected<Argument>& r, int64_t at) {
    if (!r.ok()) return r;
    return c.emit("aten.squeeze.dim", {*r, I(at)});
}

/// Parameter `a` (an int or a one-int list) as the 2-D list (lead, v): the inserted dim gets
/// lead (1 for a window or stride, 0 for padding); `def` where absent.
std::optional<Argument> pair1d(const Argument* a, std::optional<int64_t> def, int64_t lead) {
    std::optional<int64_t> v;
    if (!given(a))
        v = def;
    else if (a->kind == Argument::Kind::Int)
        v = a->i;
    else if (a->isSequence() && a->items.size() == 1 && a->items[0].kind == Argument::Kind::Int)
        v = a->items[0].i;
    if (!v) return std::nullopt;
    return Argument::ofList({I(lead), I(*v)});
}

/// torch.avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
/// count_include_pad=True).
Expected<Argument> avgPool1d(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"});
    if (!b.ok()) return b.error();
    if (b->m.dim() != 2 && b->m.dim() != 3) return makeError("avg_pool1d needs [C, L] or [N, C, L] input");
    auto k = pair1d(b->p[1], std::nullopt, 1);
    auto st = given(b->p[2]) ? pair1d(b->p[2], std::nullopt, 1) : k;
    auto pad = pair1d(b->p[3], 0, 0);
    if (!k || !st || !pad) return makeError("kernel_size, stride and padding must be ints");
    auto ceil = boolOf(b->p[4], false), incl = boolOf(b->p[5], true);
    if (!ceil || !incl) return makeError("ceil_mode and count_include_pad must be bools");
    auto u = c.emit("aten.unsqueeze.default", {b->x, I(-2)});
    if (!u.ok()) return u;
    return squeezeBack(c,
                       c.emit("aten.avg_pool2d.default",
                              {*u, *k, *st, *pad, Argument::ofBool(*ceil), Argument::ofBool(*incl)}),
                       -2);
}

/// torch.max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False).
Expected<Argument> maxPool1d(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "kernel_size", "stride", "padding", "dilation", "ceil_mode",
                                 "return_indices"});
    if (!b.ok()) return b.error();
    if (boolOf(b->p[6], false).value_or(true)) return makeError("max_pool1d with return_indices is not supported");
    if (b->m.dim() != 2 && b->m.dim() != 3) return makeError("max_pool1d needs [C, L] or [N, C, L] input");
    auto k = pair1d(b->p[1], std::nullopt, 1);
    auto st = given(b->p[2]) ? pair1d(b->p[2], std::nullopt, 1) : k;
    auto pad = pair1d(b->p[3], 0, 0);
    auto dil = pair1d(b->p[4], 1, 1);
    if (!k || !st || !pad || !dil) return makeError("kernel_size, stride, padding and dilation must be ints");
    auto ceil = boolOf(b->p[5], false);
    if (!ceil) return makeError("ceil_mode must be a bool");
    auto u = c.emit("aten.unsqueeze.default", {b->x, I(-2)});
    if (!u.ok()) return u;
    auto r = c.emit("aten.max_pool2d_with_indices.default", {*u, *k, *st, *pad, *dil, Argument::ofBool(*ceil)});
    if (!r.ok()) return r;
    return squeezeBack(c, c.emitItem(*r, 0), -2);
}

/// torch.adaptive_avg_pool1d(input, output_size) and F.adaptive_max_pool1d(input, output_size,
/// return_indices=False).
template <bool Max>
Expected<Argument> adaptivePool1d(LowerCtx& c, const TorchCall& call) {
    auto b = Max ? bindInput(c, call, {"input", "output_size", "return_indices"})
                 : bindInput(c, call, {"input", "output_size"});
    if (!b.ok()) return b.error();
    if (Max && boolOf(b->p[2], false).value_or(true))
        return makeError("adaptive_max_pool1d with return_indices is not supported");
    if (b->m.dim() != 2 && b->m.dim() != 3) return makeError("adaptive pooling needs [C, L] or [N, C, L] input");
    auto size = pair1d(b->p[1], std::nullopt, 1);
    if (!size) return makeError("output_size must be an int");
    auto u = c.emit("aten.unsqueeze.default", {b->x, I(-2)});
    if (!u.ok()) return u;
    if (!Max) return squeezeBack(c, c.emit("aten._adaptive_avg_pool2d.default", {*u, *size}), -2);
    auto r = c.emit("aten.adaptive_max_pool2d.default", {*u, *size});
    if (!r.ok()) return r;
    return squeezeBack(c, c.emitItem(*r, 0), -2);
}

/// torch.affine_grid_generator(theta, size, align_corners) / F.affine_grid(theta, size,
/// align_corners=None), 2-D: torch/_decomp's form. The base grid [H, W, 3] holds (x, y, 1) with
/// x, y from linspace(-a, a) (a = (n - 1) / n, or 1 with align_corners; 0 for one step), and
/// each point is multiplied by theta: sum over 3 of base [HW, 3, 1] * theta^T [N, 1, 3, 2].
Expected<Argument> affineGrid(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"theta", "size", "align_corners"});
    if (!p.ok()) return p.error();
    auto theta = needTensor(c, (*p)[0], "theta");
    if (!theta.ok()) return theta;
    auto tm = c.tensorMeta(*theta);
    auto size = (*p)[1] ? intList(*(*p)[1]) : std::nullopt;
    if (!tm || !size) return makeError("affine_grid needs a theta tensor and a size");
    if (size->items.size() != 4) return makeError("affine_grid supports 2-D sizes (N, C, H, W) only");
    const auto align = boolOf((*p)[2], false);
    if (!align) return makeError("align_corners must be a bool");
    const int64_t n = size->items[0].i, h = size->items[2].i, w = size->items[3].i;
    if (tm->shape != std::vector<int64_t>{n, 2, 3}) return makeError("theta must be [N, 2, 3] for a 2-D size");
    std::vector<std::pair<std::string, Argument>> like = {{"dtype", Argument::ofDType(tm->dtype)},
                                                          {"device", Argument::ofDevice(tm->device)}};
    auto axis = [&](int64_t steps) -> Expected<Argument> {
        const double a = steps <= 1 ? 0.0 : *align ? 1.0 : double(steps - 1) / double(steps);
        return c.emit("aten.linspace.default", {F(-a), F(a), I(steps)}, like);
    };
    auto gx = axis(w);
    if (!gx.ok()) return gx;
    auto gy = axis(h);
    if (!gy.ok()) return gy;
    auto hw = Argument::ofList({I(h), I(w)});
    auto xr = c.emit("aten.view.default", {*gx, Argument::ofList({I(1), I(w)})});
    if (!xr.ok()) return xr;
    auto xe = c.emit("aten.expand.default", {*xr, hw});
    if (!xe.ok()) return xe;
    auto yr = c.emit("aten.view.default", {*gy, Argument::ofList({I(h), I(1)})});
    if (!yr.ok()) return yr;
    auto ye = c.emit("aten.expand.default", {*yr, hw});
    if (!ye.ok()) return ye;
    auto ones = c.emit("aten.ones.default", {hw}, like);
    if (!ones.ok()) return ones;
    auto base = c.emit("aten.stack.default", {Argument::ofList({*xe, *ye, *ones}), I(-1)});
    if (!base.ok()) return base;
    auto bv = c.emit("aten.view.default", {*base, Argument::ofList({I(h * w), I(3), I(1)})});
    if (!bv.ok()) return bv;
    auto tt = c.emit("aten.transpose.int", {*theta, I(1), I(2)});
    if (!tt.ok()) return tt;
    auto tu = c.emit("aten.unsqueeze.default", {*tt, I(1)});
    if (!tu.ok()) return tu;
    auto prod = c.emit("aten.mul.Tensor", {*bv, *tu});
    if (!prod.ok()) return prod;
    auto sum = c.emit("aten.sum.dim_IntList", {*prod, Argument::ofList({I(-2)})});
    if (!sum.ok()) return sum;
    return c.emit("aten.view.default", {*sum, Argument::ofList({I(n), I(h), I(w), I(2)})});
}

/// F.X(input, ..., inplace=False) with the parameters of ATen's X (hardtanh, threshold,
/// hardshrink, softshrink) and the shuffles.
template <const char* Aten>
Expected<Argument> asAten(LowerCtx& c, const TorchCall& call) {
    TorchCall k = call;
    k.kwargs.clear();
    for (const auto& [key, v] : call.kwargs) {
        if (key == "inplace") {
            if (Status s = notInplace(&v, Aten); !s.ok()) return s.error();
            continue;
        }
        k.kwargs.emplace_back(key, v);
    }
    return lowerGeneric(c, k, Aten);
}
constexpr char kHardtanh[] = "hardtanh";
constexpr char kThreshold[] = "threshold";
constexpr char kHardshrink[] = "hardshrink";
constexpr char kSoftshrink[] = "softshrink";
constexpr char kPixelShuffle[] = "pixel_shuffle";
constexpr char kPixelUnshuffle[] = "pixel_unshuffle";
constexpr char kChannelShuffle[] = "channel_shuffle";
constexpr char kConvT1[] = "conv_transpose1d";
constexpr char kConvT2[] = "conv_transpose2d";
constexpr char kConvT3[] = "conv_transpose3d";

const std::unordered_map<std::string_view, Rule>& table() {
    static const std::unordered_map<std::string_view, Rule> t = {
        {"torch.selu", selu},
        {"torch.nn.functional.selu", selu},
        {"torch.celu", celu},
        {"torch.nn.functional.celu", celu},
        {"torch.nn.functional.softsign", softsign},
        {"torch.nn.functional.tanhshrink", tanhshrink},
        {"torch._C._nn.log_sigmoid", logSigmoid},
        {"torch.nn.functional.logsigmoid", logSigmoid},
        {"torch.nn.functional.softmin", softmin},
        {"torch.prelu", prelu},
        {"torch.nn.functional.prelu", prelu},
        {"torch.rms_norm", rmsNorm},
        {"torch.nn.functional.rms_norm", rmsNorm},
        {"torch.instance_norm", instanceNorm},
        {"torch.cosine_similarity", cosineSimilarity},
        {"torch.nn.functional.cosine_similarity", cosineSimilarity},
        {"torch.pairwise_distance", pairwiseDistance},
        {"torch.nn.functional.pairwise_distance", pairwiseDistance},
        {"torch.alpha_dropout", evalDropout<false>},
        {"torch.feature_dropout", evalDropout<false>},
        {"torch.feature_alpha_dropout", evalDropout<false>},
        {"torch.nn.functional.dropout1d", evalDropout<true>},
        {"torch.nn.functional.dropout2d", evalDropout<true>},
        {"torch.nn.functional.dropout3d", evalDropout<true>},
        {"torch.nn.functional.alpha_dropout", evalDropout<true>},
        {"torch.nn.functional.feature_alpha_dropout", evalDropout<true>},
        {"torch.avg_pool1d", avgPool1d},
        {"torch.nn.functional.avg_pool1d", avgPool1d},
        {"torch.max_pool1d", maxPool1d},
        {"torch.nn.functional.max_pool1d", maxPool1d},
        {"torch.adaptive_avg_pool1d", adaptivePool1d<false>},
        {"torch.nn.functional.adaptive_avg_pool1d", adaptivePool1d<false>},
        {"torch.nn.functional.adaptive_max_pool1d", adaptivePool1d<true>},
        {"torch.adaptive_max_pool1d", adaptivePool1d<true>},
        {"torch.nn.functional.hardtanh", asAten<kHardtanh>},
        {"torch.nn.functional.threshold", asAten<kThreshold>},
        {"torch.nn.functional.hardshrink", asAten<kHardshrink>},
        {"torch.nn.functional.softshrink", asAten<kSoftshrink>},
        {"torch.nn.functional.pixel_shuffle", asAten<kPixelShuffle>},
        {"torch.nn.functional.pixel_unshuffle", asAten<kPixelUnshuffle>},
        {"torch.nn.functional.channel_shuffle", asAten<kChannelShuffle>},
        {"torch.nn.functional.conv_transpose1d", asAten<kConvT1>},
        {"torch.nn.functional.conv_transpose2d", asAten<kConvT2>},
        {"torch.nn.functional.conv_transpose3d", asAten<kConvT3>},
        {"torch.affine_grid_generator", affineGrid},
        {"torch.nn.functional.affine_grid", affineGrid},
    };
    return t;
}

}  // namespace

Rule findActivationFunctionRule(std::string_view target) {
    auto it = table().find(target);
    return it == table().end() ? findFftFunctionRule(target) : it->second;
}

}  // namespace fxray::lowering
