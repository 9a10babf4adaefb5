// Lowering rules for torch-level functions that held-out popular blocks (bench/gen_popular_third.py)
// call in their Dynamo graphs: F.normalize (Swin-V2, NeRF, Reformer), F.one_hot (VQ-VAE, GShard
// MoE, capsules), torch.functional.split / norm / meshgrid (Mamba, ConvNeXt-V2, Swin-V2), the
// classification losses over K dims and with label smoothing (WaveNet, PixelCNN, PointNet, BART),
// the regression, binary, margin and embedding losses with a reduction string (a losses block),
// and the *_like factories with requires_grad=False. Each emits
// what PyTorch's own decomposition records in the AOT graphs of the same models.
#include "import/dynamo_lowering_internal.h"

#include <unordered_map>

namespace fxray::lowering {
namespace {

using Args = std::vector<Argument>;

/// A loss call bound by `names`: its first `tensors` arguments required tensors, the legacy
/// size_average / reduce refused and the reduction ('none', 'mean', 'sum') parsed wherever the
/// signature puts them.
struct LossArgs {
    std::vector<const Argument*> p;  ///< bound, in `names` order
    Args t;                          ///< the tensor operands
    int64_t reduction = 1;
};
Expected<LossArgs> lossArgs(LowerCtx& c, const TorchCall& call, std::initializer_list<std::string_view> names,
                            size_t tensors) {
    auto p = call.bind(names);
    if (!p.ok()) return p.error();
    LossArgs r;
    r.p = std::move(p).value();
    size_t i = 0;
    for (std::string_view n : names) {
        const Argument* a = r.p[i++];
        if (r.t.size() < tensors) {
            auto x = needTensor(c, a, std::string(n).c_str());
            if (!x.ok()) return x.error();
            r.t.push_back(*x);
        } else if ((n == "size_average" || n == "reduce") && given(a)) {
            return makeError("size_average and reduce are not supported");
        } else if (n == "reduction") {
            auto red = reductionOf(a);
            if (!red) return makeError("reduction must be 'none', 'mean' or 'sum'");
            r.reduction = *red;
        }
    }
    return r;
}

/// F.normalize(input, p=2.0, dim=1, eps=1e-12): input / clamp_min(norm over dim, eps), the
/// denominator expanded to input's shape as torch/nn/functional.py does.
Expected<Argument> normalize(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "p", "dim", "eps", "out"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    if (given((*p)[4])) return makeError("out= is not supported");
    const double ord = given((*p)[1]) ? numberOf((*p)[1]).value_or(2.0) : 2.0;
    const auto dim = given((*p)[2]) ? intOf((*p)[2]) : std::optional<int64_t>(1);
    const double eps = given((*p)[3]) ? numberOf((*p)[3]).value_or(1e-12) : 1e-12;
    if (!dim) return makeError("dim must be an int");
    auto n = c.emit("aten.linalg_vector_norm.default",
                    {*x, Argument::ofFloat(ord), Argument::ofList({Argument::ofInt(*dim)}), Argument::ofBool(true)});
    if (!n.ok()) return n;
    auto cl = c.emit("aten.clamp_min.default", {*n, Argument::ofFloat(eps)});
    if (!cl.ok()) return cl;
    auto sizes = c.sizeArgs(*x);
    if (!sizes.ok()) return sizes.error();
    auto ex = c.emit("aten.expand.default", {*cl, Argument::ofList(std::move(sizes).value())});
    if (!ex.ok()) return ex;
    return c.emit("aten.div.Tensor", {*x, *ex});
}

/// F.one_hot(tensor, num_classes): (tensor[..., None] == arange(num_classes)) as int64, as
/// PyTorch's decomposition records it (num_classes=-1 needs the data's maximum: refused).
Expected<Argument> oneHot(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "num_classes"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    const auto k = given((*p)[1]) ? intOf((*p)[1]) : std::optional<int64_t>(-1);
    if (!k || *k < 0) return makeError("one_hot needs num_classes (its default reads the data's maximum)");
    auto m = c.tensorMeta(*x);
    auto r = c.emit("aten.arange.default", {Argument::ofInt(*k)},
                    {{"dtype", Argument::ofDType(DType::Int64)}, {"device", Argument::ofDevice(m->device)}});
    if (!r.ok()) return r;
    auto u = c.emit("aten.unsqueeze.default", {*x, Argument::ofInt(-1)});
    if (!u.ok()) return u;
    auto eq = c.emit("aten.eq.Tensor", {*u, *r});
    if (!eq.ok()) return eq;
    return convertTo(c, *eq, DType::Int64, std::nullopt, false, std::nullopt);
}

/// torch.functional.split(tensor, split_size_or_sections, dim=0): Tensor.split.
Expected<Argument> functionalSplit(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"tensor", "split_size_or_sections", "dim"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "tensor");
    if (!x.ok()) return x;
    if (!(*p)[1]) return makeError("expects a split size");
    TorchCall k = call;
    k.kwargs.clear();
    k.args = {*x, *(*p)[1]};
    if ((*p)[2]) k.args.push_back(*(*p)[2]);
    Rule r = findMethodRule("split");
    if (!r) return makeError("no split rule");
    return r(c, k);
}

/// torch.functional.norm(input, p='fro', dim=None, keepdim=False, out=None, dtype=None) for vector
/// norms (a number p, or 'fro' over one or two dims / all of them): linalg_vector_norm, which
/// torch.norm calls for these.
Expected<Argument> functionalNorm(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "p", "dim", "keepdim", "out", "dtype"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    if (given((*p)[4]) || given((*p)[5])) return makeError("out= and dtype= are not supported");
    double ord = 2.0;
    if (given((*p)[1])) {
        if ((*p)[1]->kind == Argument::Kind::String) {
            if ((*p)[1]->s != "fro") return makeError("only vector norms and 'fro' are supported");
        } else if (auto v = numberOf((*p)[1])) {
            ord = *v;
        } else {
            return makeError("p must be a number or 'fro'");
        }
    }
    Argument dims = Argument::none();
    if (given((*p)[2])) {
        auto d = intList(*(*p)[2]);
        if (!d) return makeError("dim must be an int or a list of ints");
        dims = *d;
    }
    auto keep = boolOf((*p)[3], false);
    if (!keep) return makeError("keepdim must be a bool");
    return c.emit("aten.linalg_vector_norm.default", {*x, Argument::ofFloat(ord), dims, Argument::ofBool(*keep)});
}

/// F.<loss>(input, target, ..., reduction): aten.<loss>(self, target, reduction) for the
/// elementwise losses whose other arguments Dynamo passes by keyword or leaves at defaults;
/// Extra names one more float argument after the reduction (smooth_l1's beta, huber's delta).
template <const char* Aten, const char* Extra>
Expected<Argument> pairLoss(LowerCtx& c, const TorchCall& call) {
    const bool extra = Extra[0] != '\0';
    auto p = extra ? call.bind({"input", "target", "size_average", "reduce", "reduction", Extra, "weight"})
                   : call.bind({"input", "target", "size_average", "reduce", "reduction", "weight"});
    const size_t weight = extra ? 6 : 5;
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto t = needTensor(c, (*p)[1], "target");
    if (!t.ok()) return t;
    if (given((*p)[2]) || given((*p)[3])) return makeError("size_average and reduce are not supported");
    if (given((*p)[weight])) return makeError("weight is not supported");
    auto red = reductionOf((*p)[4]);
    if (!red) return makeError("reduction must be 'none', 'mean' or 'sum'");
    Args args{*x, *t, Argument::ofInt(*red)};
    if (extra) args.push_back(Argument::ofFloat(given((*p)[5]) ? numberOf((*p)[5]).value_or(1.0) : 1.0));
    return c.emit(std::string("aten.") + Aten + ".default", std::move(args));
}
constexpr char kMse[] = "mse_loss";
constexpr char kL1[] = "l1_loss";
constexpr char kSmoothL1[] = "smooth_l1_loss";
constexpr char kHuber[] = "huber_loss";
constexpr char kNoExtra[] = "";
constexpr char kBeta[] = "beta";
constexpr char kDelta[] = "delta";

/// F.binary_cross_entropy(input, target, weight=None, size_average, reduce, reduction='mean').
Expected<Argument> binaryCrossEntropy(LowerCtx& c, const TorchCall& call) {
    auto L = lossArgs(c, call, {"input", "target", "weight", "size_average", "reduce", "reduction"}, 2);
    if (!L.ok()) return L.error();
    const std::vector<const Argument*>& p = L->p;
    const Argument x = L->t[0];
    const Argument t = L->t[1];
    const int64_t red = L->reduction;
    return c.emit("aten.binary_cross_entropy.default",
                  {x, t, given(p[2]) ? *p[2] : Argument::none(), Argument::ofInt(red)});
}

/// F.binary_cross_entropy_with_logits(input, target, weight, size_average, reduce, reduction,
/// pos_weight).
Expected<Argument> bceWithLogits(LowerCtx& c, const TorchCall& call) {
    auto L = lossArgs(c, call, {"input", "target", "weight", "size_average", "reduce", "reduction", "pos_weight"}, 2);
    if (!L.ok()) return L.error();
    const std::vector<const Argument*>& p = L->p;
    const Argument x = L->t[0];
    const Argument t = L->t[1];
    const int64_t red = L->reduction;
    return c.emit(
        "aten.binary_cross_entropy_with_logits.default",
        {x, t, given(p[2]) ? *p[2] : Argument::none(), given(p[6]) ? *p[6] : Argument::none(), Argument::ofInt(red)});
}

/// F.kl_div(input, target, size_average, reduce, reduction='mean', log_target=False) as
/// torch.kl_div's composite computes it (fxray has no aten.kl_div; AOT graphs hold this form):
/// xlogy(target, target) - target * input, or exp(target) * (target - input) for log targets,
/// then the reduction; 'batchmean' is the sum divided by input.size(0).
Expected<Argument> klDiv(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "target", "size_average", "reduce", "reduction", "log_target"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto t = needTensor(c, (*p)[1], "target");
    if (!t.ok()) return t;
    if (given((*p)[2]) || given((*p)[3])) return makeError("size_average and reduce are not supported");
    auto logTarget = boolOf((*p)[5], false);
    if (!logTarget) return makeError("log_target must be a bool");
    const bool batchmean = given((*p)[4]) && (*p)[4]->kind == Argument::Kind::String && (*p)[4]->s == "batchmean";
    auto red = batchmean ? std::optional<int64_t>(2) : reductionOf((*p)[4]);
    if (!red) return makeError("reduction must be 'none', 'mean', 'sum' or 'batchmean'");
    Expected<Argument> pw = makeError("");
    if (*logTarget) {
        auto e = c.emit("aten.exp.default", {*t});
        if (!e.ok()) return e;
        auto d = c.emit("aten.sub.Tensor", {*t, *x});
        if (!d.ok()) return d;
        pw = c.emit("aten.mul.Tensor", {*e, *d});
    } else {
        auto xl = c.emit("aten.xlogy.Tensor", {*t, *t});
        if (!xl.ok()) return xl;
        auto ti = c.emit("aten.mul.Tensor", {*t, *x});
        if (!ti.ok()) return ti;
        pw = c.emit("aten.sub.Tensor", {*xl, *ti});
    }
    if (!pw.ok() || *red == 0) return pw;
    auto r = c.emit(*red == 1 ? "aten.mean.default" : "aten.sum.default", {*pw});
    if (!r.ok() || !batchmean) return r;
    auto m = c.tensorMeta(*x);
    if (m->dim() == 0) return r;
    return c.emit("aten.div.Scalar", {*r, Argument::ofInt(m->shape[0])});
}

/// apply_loss_reduction: none (as is), mean or sum of all elements.
Expected<Argument> reduced(LowerCtx& c, const Expected<Argument>& x, int64_t red) {
    if (!x.ok() || red == 0) return x;
    return c.emit(red == 1 ? "aten.mean.default" : "aten.sum.default", {*x});
}

/// a (op) b for emitted tensors, passing the first error on.
Expected<Argument> binaryOp(LowerCtx& c, const char* op, const Expected<Argument>& a, const Argument& b) {
    if (!a.ok()) return a;
    return c.emit(op, {*a, b});
}

/// log(sigmoid(x)): log_sigmoid_forward's output.
Expected<Argument> logSigmoid(LowerCtx& c, const Argument& x) {
    auto r = c.emit("aten.log_sigmoid_forward.default", {x});
    if (!r.ok()) return r;
    return c.emitItem(*r, 0);
}

/// F.multilabel_soft_margin_loss(input, target, weight=None, size_average, reduce, reduction):
/// -(t * logsigmoid(x) + (1 - t) * logsigmoid(-x)), weighted, summed over the classes / C.
Expected<Argument> multilabelSoftMargin(LowerCtx& c, const TorchCall& call) {
    auto L = lossArgs(c, call, {"input", "target", "weight", "size_average", "reduce", "reduction"}, 2);
    if (!L.ok()) return L.error();
    const std::vector<const Argument*>& p = L->p;
    const Argument x = L->t[0];
    const Argument t = L->t[1];
    const int64_t red = L->reduction;
    auto ls = logSigmoid(c, x);
    if (!ls.ok()) return ls;
    auto nx = c.emit("aten.neg.default", {x});
    if (!nx.ok()) return nx;
    auto lsn = logSigmoid(c, *nx);
    if (!lsn.ok()) return lsn;
    auto a = c.emit("aten.mul.Tensor", {t, *ls});
    auto omt = c.emit("aten.rsub.Scalar", {t, Argument::ofInt(1)});
    if (!omt.ok()) return omt;
    auto b = c.emit("aten.mul.Tensor", {*omt, *lsn});
    if (!a.ok() || !b.ok()) return a.ok() ? b : a;
    auto sum = c.emit("aten.add.Tensor", {*a, *b});
    if (!sum.ok()) return sum;
    auto loss = c.emit("aten.neg.default", {*sum});
    if (given(p[2])) loss = binaryOp(c, "aten.mul.Tensor", loss, *p[2]);
    auto xm = c.tensorMeta(x);
    const int64_t cd = xm->dim() - 1;
    if (!loss.ok()) return loss;
    auto s = c.emit("aten.sum.dim_IntList", {*loss, Argument::ofList({Argument::ofInt(cd)})});
    loss = binaryOp(c, "aten.div.Scalar", s, Argument::ofInt(xm->shape[static_cast<size_t>(cd)]));
    return reduced(c, loss, red);
}

/// F.cosine_embedding_loss(input1, input2, target, margin=0, ...): ATen's composite (Loss.cpp):
/// cos = <x1, x2> / sqrt((|x1|^2 + 1e-12)(|x2|^2 + 1e-12)); 1 - cos where target is 1,
/// max(cos - margin, 0) where it is -1.
Expected<Argument> cosineEmbedding(LowerCtx& c, const TorchCall& call) {
    auto L = lossArgs(c, call, {"input1", "input2", "target", "margin", "size_average", "reduce", "reduction"}, 3);
    if (!L.ok()) return L.error();
    const std::vector<const Argument*>& p = L->p;
    const Argument x1 = L->t[0];
    const Argument x2 = L->t[1];
    const Argument t = L->t[2];
    const int64_t red = L->reduction;
    const double margin = given(p[3]) ? numberOf(p[3]).value_or(0.0) : 0.0;
    const Argument dim = Argument::ofList({Argument::ofInt(c.tensorMeta(x1)->dim() - 1)});
    auto dotOf = [&](const Argument& a, const Argument& b) -> Expected<Argument> {
        auto m = c.emit("aten.mul.Tensor", {a, b});
        if (!m.ok()) return m;
        return c.emit("aten.sum.dim_IntList", {*m, dim});
    };
    auto prod = dotOf(x1, x2);
    auto m1 = binaryOp(c, "aten.add.Tensor", dotOf(x1, x1), Argument::ofFloat(1e-12));
    auto m2 = binaryOp(c, "aten.add.Tensor", dotOf(x2, x2), Argument::ofFloat(1e-12));
    if (!prod.ok() || !m1.ok() || !m2.ok()) return !prod.ok() ? prod : !m1.ok() ? m1 : m2;
    auto den = c.emit("aten.mul.Tensor", {*m1, *m2});
    if (!den.ok()) return den;
    auto sq = c.emit("aten.sqrt.default", {*den});
    if (!sq.ok()) return sq;
    auto cos = c.emit("aten.div.Tensor", {*prod, *sq});
    if (!cos.ok()) return cos;
    auto zeros = c.emit("aten.zeros_like.default", {*cos});
    auto pos = c.emit("aten.rsub.Scalar", {*cos, Argument::ofInt(1)});
    auto neg = binaryOp(c, "aten.clamp_min.default", binaryOp(c, "aten.sub.Tensor", cos, Argument::ofFloat(margin)),
                        Argument::ofInt(0));
    auto isPos = c.emit("aten.eq.Scalar", {t, Argument::ofInt(1)});
    auto isNeg = c.emit("aten.eq.Scalar", {t, Argument::ofInt(-1)});
    for (const auto* e : {&zeros, &pos, &neg, &isPos, &isNeg})
        if (!e->ok()) return *e;
    auto op = c.emit("aten.where.self", {*isPos, *pos, *zeros});
    auto on = c.emit("aten.where.self", {*isNeg, *neg, *zeros});
    if (!op.ok() || !on.ok()) return op.ok() ? on : op;
    return reduced(c, c.emit("aten.add.Tensor", {*op, *on}), red);
}

/// F.triplet_margin_loss(anchor, positive, negative, margin=1, p=2, eps=1e-6, swap=False, ...):
/// max(margin + d(a, p) - d(a, n), 0) with pairwise_distance d = ||x1 - x2 + eps||_p over the
/// last dim.
Expected<Argument> tripletMargin(LowerCtx& c, const TorchCall& call) {
    auto L = lossArgs(
        c, call,
        {"anchor", "positive", "negative", "margin", "p", "eps", "swap", "size_average", "reduce", "reduction"}, 3);
    if (!L.ok()) return L.error();
    const std::vector<const Argument*>& p = L->p;
    const Argument a = L->t[0];
    const Argument pos = L->t[1];
    const Argument neg = L->t[2];
    const int64_t red = L->reduction;
    if (boolOf(p[6], false).value_or(true)) return makeError("swap=True is not supported");
    const double margin = given(p[3]) ? numberOf(p[3]).value_or(1.0) : 1.0;
    const double ord = given(p[4]) ? numberOf(p[4]).value_or(2.0) : 2.0;
    const double eps = given(p[5]) ? numberOf(p[5]).value_or(1e-6) : 1e-6;
    auto dist = [&](const Argument& x, const Argument& y) -> Expected<Argument> {
        auto d = binaryOp(c, "aten.add.Tensor", c.emit("aten.sub.Tensor", {x, y}), Argument::ofFloat(eps));
        if (!d.ok()) return d;
        return c.emit("aten.linalg_vector_norm.default",
                      {*d, Argument::ofFloat(ord), Argument::ofList({Argument::ofInt(-1)}), Argument::ofBool(false)});
    };
    auto dp = dist(a, pos), dn = dist(a, neg);
    if (!dp.ok() || !dn.ok()) return dp.ok() ? dn : dp;
    auto diff = binaryOp(c, "aten.add.Tensor", c.emit("aten.sub.Tensor", {*dp, *dn}), Argument::ofFloat(margin));
    return reduced(c, binaryOp(c, "aten.clamp_min.default", diff, Argument::ofInt(0)), red);
}

/// F.margin_ranking_loss(input1, input2, target, margin=0, ...): max(-t * (x1 - x2) + margin, 0).
Expected<Argument> marginRanking(LowerCtx& c, const TorchCall& call) {
    auto L = lossArgs(c, call, {"input1", "input2", "target", "margin", "size_average", "reduce", "reduction"}, 3);
    if (!L.ok()) return L.error();
    const std::vector<const Argument*>& p = L->p;
    const Argument x1 = L->t[0];
    const Argument x2 = L->t[1];
    const Argument t = L->t[2];
    const int64_t red = L->reduction;
    const double margin = given(p[3]) ? numberOf(p[3]).value_or(0.0) : 0.0;
    auto nt = c.emit("aten.neg.default", {t});
    if (!nt.ok()) return nt;
    auto d = c.emit("aten.sub.Tensor", {x1, x2});
    if (!d.ok()) return d;
    auto m = binaryOp(c, "aten.add.Tensor", c.emit("aten.mul.Tensor", {*nt, *d}), Argument::ofFloat(margin));
    return reduced(c, binaryOp(c, "aten.clamp_min.default", m, Argument::ofInt(0)), red);
}

/// F.poisson_nll_loss(input, target, log_input=True, full=False, size_average, eps=1e-8, reduce,
/// reduction): exp(x) - t * x, or x - t * log(x + eps) (full=False only).
Expected<Argument> poissonNll(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "target", "log_input", "full", "size_average", "eps", "reduce", "reduction"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto t = needTensor(c, (*p)[1], "target");
    if (!t.ok()) return t;
    if (given((*p)[4]) || given((*p)[6])) return makeError("size_average and reduce are not supported");
    if (boolOf((*p)[3], false).value_or(true)) return makeError("full=True is not supported");
    auto logInput = boolOf((*p)[2], true);
    auto red = reductionOf((*p)[7]);
    if (!red || !logInput) return makeError("reduction must be 'none', 'mean' or 'sum'");
    const double eps = given((*p)[5]) ? numberOf((*p)[5]).value_or(1e-8) : 1e-8;
    Expected<Argument> loss = makeError("");
    if (*logInput) {
        auto e = c.emit("aten.exp.default", {*x});
        auto tx = c.emit("aten.mul.Tensor", {*t, *x});
        if (!e.ok() || !tx.ok()) return e.ok() ? tx : e;
        loss = c.emit("aten.sub.Tensor", {*e, *tx});
    } else {
        auto xe = c.emit("aten.add.Tensor", {*x, Argument::ofFloat(eps)});
        if (!xe.ok()) return xe;
        auto lg = c.emit("aten.log.default", {*xe});
        if (!lg.ok()) return lg;
        auto tl = c.emit("aten.mul.Tensor", {*t, *lg});
        if (!tl.ok()) return tl;
        loss = c.emit("aten.sub.Tensor", {*x, *tl});
    }
    return reduced(c, loss, *red);
}

/// F.multi_margin_loss(input, target, p=1, margin=1, weight=None, size_average, reduce,
/// reduction): ATen's multi_margin_loss.
Expected<Argument> multiMargin(LowerCtx& c, const TorchCall& call) {
    auto L = lossArgs(c, call, {"input", "target", "p", "margin", "weight", "size_average", "reduce", "reduction"}, 2);
    if (!L.ok()) return L.error();
    const std::vector<const Argument*>& p = L->p;
    const Argument x = L->t[0];
    const Argument t = L->t[1];
    const int64_t red = L->reduction;
    const auto pp = given(p[2]) ? intOf(p[2]) : std::optional<int64_t>(1);
    const double margin = given(p[3]) ? numberOf(p[3]).value_or(1.0) : 1.0;
    if (!pp) return makeError("p must be 1 or 2");
    return c.emit("aten.multi_margin_loss.default", {x, t, Argument::ofInt(*pp), Argument::ofFloat(margin),
                                                     given(p[4]) ? *p[4] : Argument::none(), Argument::ofInt(red)});
}

/// input [N, C, d1, ...] with the classes moved last and flattened to [M, C], the target to [M]
/// (PyTorch's nll_loss2d/nd give the same sums and counts); [N, C] and [C] stay as they are.
struct Classes {
    Argument x, t;
    int64_t n = 0;  ///< classes
};

Expected<Classes> classesLast(LowerCtx& c, const Argument& x, const Argument& t) {
    auto xm = c.tensorMeta(x);
    auto tm = c.tensorMeta(t);
    if (!xm || !tm || !isIntegral(tm->dtype) || xm->dim() < 1 || tm->dim() != xm->dim() - 1)
        return makeError("expects class-index targets with one dim less than the input");
    Classes r{x, t, xm->shape[xm->dim() == 1 ? 0 : 1]};
    if (xm->dim() <= 2) return r;
    Args perm{Argument::ofInt(0)};
    for (int64_t d = 2; d < xm->dim(); ++d) perm.push_back(Argument::ofInt(d));
    perm.push_back(Argument::ofInt(1));
    auto xp = c.emit("aten.permute.default", {x, Argument::ofList(std::move(perm))});
    if (!xp.ok()) return xp.error();
    auto xf = c.emit("aten.reshape.default", {*xp, Argument::ofList({Argument::ofInt(-1), Argument::ofInt(r.n)})});
    if (!xf.ok()) return xf.error();
    auto tf = c.emit("aten.reshape.default", {t, Argument::ofList({Argument::ofInt(-1)})});
    if (!tf.ok()) return tf.error();
    r.x = *xf;
    r.t = *tf;
    return r;
}

/// nll_loss_forward's loss over flattened classes; reduction 'none' gets the target's shape back.
Expected<Argument> nllOf(LowerCtx& c, const Classes& k, const Argument& target, const Argument& weight, int64_t red,
                         int64_t ignore) {
    auto r = c.emit("aten.nll_loss_forward.default", {k.x, k.t, weight, Argument::ofInt(red), Argument::ofInt(ignore)});
    if (!r.ok()) return r;
    auto loss = c.emitItem(*r, 0);
    if (!loss.ok() || red != 0 || k.t.node == target.node) return loss;
    auto sizes = c.sizeArgs(target);
    if (!sizes.ok()) return sizes.error();
    return c.emit("aten.reshape.default", {*loss, Argument::ofList(std::move(sizes).value())});
}

/// cross_entropy's label-smoothing term (aten/src/ATen/native/LossNLL.cpp): the negative sum of
/// the (weighted) log-probabilities per sample, zero where the target is ignore_index, reduced
/// ('mean' divides by the summed weights of the kept targets, or their count), times eps / C.
Expected<Argument> smoothingTerm(LowerCtx& c, const Classes& k, const Argument& target, const Argument& weight,
                                 int64_t red, int64_t ignore, double eps) {
    Argument lp = k.x;
    if (!weight.isNone()) {
        auto w = c.emit("aten.mul.Tensor", {lp, weight});
        if (!w.ok()) return w;
        lp = *w;
    }
    auto s = c.emit("aten.sum.dim_IntList", {lp, Argument::ofList({Argument::ofInt(-1)})});
    if (!s.ok()) return s;
    auto neg = c.emit("aten.neg.default", {*s});
    if (!neg.ok()) return neg;
    auto ignored = c.emit("aten.eq.Scalar", {k.t, Argument::ofInt(ignore)});
    if (!ignored.ok()) return ignored;
    auto smooth = c.emit("aten.masked_fill.Scalar", {*neg, *ignored, Argument::ofFloat(0.0)});
    if (!smooth.ok()) return smooth;
    Argument term = *smooth;
    if (red == 0 && k.t.node != target.node) {
        auto sizes = c.sizeArgs(target);
        if (!sizes.ok()) return sizes.error();
        auto back = c.emit("aten.reshape.default", {term, Argument::ofList(std::move(sizes).value())});
        if (!back.ok()) return back;
        term = *back;
    }
    if (red != 0) {
        auto total = c.emit("aten.sum.default", {term});
        if (!total.ok()) return total;
        term = *total;
    }
    if (red == 1) {
        Argument denom;
        if (!weight.isNone()) {
            auto safe = c.emit("aten.clamp.default", {k.t, Argument::ofInt(0), Argument::ofInt(k.n - 1)});
            if (!safe.ok()) return safe;
            auto wt = c.emit("aten.index.Tensor", {weight, Argument::ofList({*safe})});
            if (!wt.ok()) return wt;
            auto kept = c.emit("aten.masked_fill.Scalar", {*wt, *ignored, Argument::ofFloat(0.0)});
            if (!kept.ok()) return kept;
            auto sum = c.emit("aten.sum.default", {*kept});
            if (!sum.ok()) return sum;
            denom = *sum;
        } else {
            auto keep = c.emit("aten.logical_not.default", {*ignored});
            if (!keep.ok()) return keep;
            auto cnt = c.emit("aten.sum.default", {*keep});
            if (!cnt.ok()) return cnt;
            denom = *cnt;
        }
        auto mean = c.emit("aten.div.Tensor", {term, denom});
        if (!mean.ok()) return mean;
        term = *mean;
    }
    return c.emit("aten.mul.Tensor", {term, Argument::ofFloat(eps / static_cast<double>(k.n))});
}

/// F.cross_entropy(input [N, C, d...] / [N, C] / [C], class-index target, weight, size_average,
/// ignore_index, reduce, reduction, label_smoothing): log_softmax over the classes, nll_loss,
/// and with label_smoothing eps, (1 - eps) * nll + the smoothing term.
Expected<Argument> crossEntropy(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind(
        {"input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto t = needTensor(c, (*p)[1], "target");
    if (!t.ok()) return t;
    if (given((*p)[3]) || given((*p)[5])) return makeError("size_average and reduce are not supported");
    auto tm = c.tensorMeta(*t);
    if (!tm || !isIntegral(tm->dtype)) return makeError("only class-index targets are supported");
    auto red = reductionOf((*p)[6]);
    auto ignore = given((*p)[4]) ? intOf((*p)[4]) : std::optional<int64_t>(-100);
    const double eps = given((*p)[7]) ? numberOf((*p)[7]).value_or(-1.0) : 0.0;
    if (!red || !ignore || eps < 0.0 || eps > 1.0)
        return makeError("reduction must be 'none', 'mean' or 'sum', ignore_index an int, label_smoothing in [0, 1]");
    auto xm = c.tensorMeta(*x);
    auto lp =
        c.emit("aten._log_softmax.default", {*x, Argument::ofInt(xm->dim() == 1 ? 0 : 1), Argument::ofBool(false)});
    if (!lp.ok()) return lp;
    auto k = classesLast(c, *lp, *t);
    if (!k.ok()) return k.error();
    const Argument weight = given((*p)[2]) ? *(*p)[2] : Argument::none();
    auto nll = nllOf(c, *k, *t, weight, *red, *ignore);
    if (!nll.ok() || eps == 0.0) return nll;
    auto term = smoothingTerm(c, *k, *t, weight, *red, *ignore, eps);
    if (!term.ok()) return term;
    auto kept = c.emit("aten.mul.Tensor", {*nll, Argument::ofFloat(1.0 - eps)});
    if (!kept.ok()) return kept;
    return c.emit("aten.add.Tensor", {*kept, *term});
}

/// F.nll_loss(input [N, C, d...] / [N, C] / [C], target, weight, size_average, ignore_index,
/// reduce, reduction).
Expected<Argument> nllLoss(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto t = needTensor(c, (*p)[1], "target");
    if (!t.ok()) return t;
    if (given((*p)[3]) || given((*p)[5])) return makeError("size_average and reduce are not supported");
    auto red = reductionOf((*p)[6]);
    auto ignore = given((*p)[4]) ? intOf((*p)[4]) : std::optional<int64_t>(-100);
    if (!red || !ignore) return makeError("reduction must be 'none', 'mean' or 'sum', ignore_index an int");
    auto k = classesLast(c, *x, *t);
    if (!k.ok()) return k.error();
    return nllOf(c, *k, *t, given((*p)[2]) ? *(*p)[2] : Argument::none(), *red, *ignore);
}

/// torch.meshgrid(*tensors, indexing='ij'|'xy') of 1-D tensors: each viewed along its own dim and
/// expanded to all lengths ('xy' swaps the first two dims' roles), a tuple.
Expected<Argument> meshgrid(LowerCtx& c, const TorchCall& call) {
    std::vector<Argument> ts = call.args;
    if (ts.size() == 1 && ts[0].isSequence()) ts = ts[0].items;
    std::string indexing = "ij";
    for (const auto& [key, v] : call.kwargs) {
        if (key != "indexing" || v.kind != Argument::Kind::String)
            return makeError("unexpected argument '" + key + "'");
        indexing = v.s;
    }
    if (indexing != "ij" && indexing != "xy") return makeError("indexing must be 'ij' or 'xy'");
    std::vector<int64_t> lens;
    for (const auto& a : ts) {
        auto m = c.tensorMeta(a);
        if (!m || m->dim() > 1) return makeError("meshgrid expects 0-D or 1-D tensors");
        lens.push_back(m->dim() == 0 ? 1 : m->shape[0]);
    }
    const bool xy = indexing == "xy" && ts.size() >= 2;
    std::vector<size_t> pos(ts.size());
    for (size_t i = 0; i < ts.size(); ++i) pos[i] = i;
    if (xy) std::swap(pos[0], pos[1]);
    Args full;
    for (size_t i = 0; i < ts.size(); ++i) full.push_back(Argument::ofInt(lens[pos[i]]));
    Args out;
    for (size_t i = 0; i < ts.size(); ++i) {
        Args shape(ts.size(), Argument::ofInt(1));
        const size_t at = xy && i < 2 ? 1 - i : i;
        shape[at] = Argument::ofInt(lens[i]);
        auto v = c.emit("aten.view.default", {ts[i], Argument::ofList(shape)});
        if (!v.ok()) return v;
        auto e = c.emit("aten.expand.default", {*v, Argument::ofList(full)});
        if (!e.ok()) return e;
        out.push_back(*e);
    }
    return Argument::ofList(std::move(out), true);
}

/// torch.zeros_like / ones_like / empty_like / full_like / rand_like / randn_like with
/// requires_grad=False (what Dynamo keeps of `zeros_like(p, requires_grad=False)`): the ATen op
/// without it (a graph value never requires grad by itself).
template <const char* Aten>
Expected<Argument> likeFactory(LowerCtx& c, const TorchCall& call) {
    TorchCall k = call;
    k.kwargs.clear();
    for (const auto& [key, v] : call.kwargs) {
        if (key != "requires_grad") {
            k.kwargs.emplace_back(key, v);
            continue;
        }
        if (boolOf(&v, false).value_or(true)) return makeError("requires_grad=True is not supported");
    }
    return lowerGeneric(c, k, Aten);
}
constexpr char kZerosLike[] = "zeros_like";
constexpr char kOnesLike[] = "ones_like";
constexpr char kEmptyLike[] = "empty_like";
constexpr char kFullLike[] = "full_like";

const std::unordered_map<std::string_view, Rule>& table() {
    static const std::unordered_map<std::string_view, Rule> t = {
        {"torch.nn.functional.normalize", normalize},
        {"torch._C._nn.one_hot", oneHot},
        {"torch.nn.functional.one_hot", oneHot},
        {"torch.functional.split", functionalSplit},
        {"torch.split", functionalSplit},
        {"torch.functional.norm", functionalNorm},
        {"torch.norm", functionalNorm},
        {"torch.nn.functional.mse_loss", pairLoss<kMse, kNoExtra>},
        {"torch.nn.functional.l1_loss", pairLoss<kL1, kNoExtra>},
        {"torch.nn.functional.smooth_l1_loss", pairLoss<kSmoothL1, kBeta>},
        {"torch.nn.functional.huber_loss", pairLoss<kHuber, kDelta>},
        {"torch.nn.functional.binary_cross_entropy", binaryCrossEntropy},
        {"torch.nn.functional.binary_cross_entropy_with_logits", bceWithLogits},
        {"torch.nn.functional.kl_div", klDiv},
        {"torch.nn.functional.multilabel_soft_margin_loss", multilabelSoftMargin},
        {"torch.nn.functional.cosine_embedding_loss", cosineEmbedding},
        {"torch.nn.functional.triplet_margin_loss", tripletMargin},
        {"torch.nn.functional.margin_ranking_loss", marginRanking},
        {"torch.nn.functional.poisson_nll_loss", poissonNll},
        {"torch.nn.functional.multi_margin_loss", multiMargin},
        {"torch.nn.functional.cross_entropy", crossEntropy},
        {"torch.nn.functional.nll_loss", nllLoss},
        {"torch.functional.meshgrid", meshgrid},
        {"torch.meshgrid", meshgrid},
        {"torch.zeros_like", likeFactory<kZerosLike>},
        {"torch.ones_like", likeFactory<kOnesLike>},
        {"torch.empty_like", likeFactory<kEmptyLike>},
        {"torch.full_like", likeFactory<kFullLike>},
    };
    return t;
}

}  // namespace

Rule findPopularFunctionRule(std::string_view target) {
    auto it = table().find(target);
    return it == table().end() ? findActivationFunctionRule(target) : it->second;
}

}  // namespace fxray::lowering
