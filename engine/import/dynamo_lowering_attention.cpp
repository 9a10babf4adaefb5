// torch.nn.functional.multi_head_attention_forward (nn.MultiheadAttention: ViT, DETR, CLIP,
// Perceiver, nn.Transformer layers, ...) lowered to the ATen ops torch/nn/functional.py runs: the
// three input projections (slices of the packed in_proj weight, or the separate q/k/v weights of
// kdim/vdim != embed_dim), heads split by views, then scaled_dot_product_attention, or with
// need_weights=True the explicit scores, softmax and product (the weights averaged over heads
// unless asked per head), the merge back and the output projection. Masks of padded keys join the
// attention mask as F does (boolean masks become -inf where True). bias_k/bias_v, zero attention
// and static keys are not lowered (an error names what is not supported).
#include "import/dynamo_lowering_internal.h"

#include <cmath>
#include <string>
#include <utility>

namespace fxray::lowering {

namespace {}  // namespace

Expected<Argument> lowerMultiHeadAttention(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"query",
                        "key",
                        "value",
                        "embed_dim_to_check",
                        "num_heads",
                        "in_proj_weight",
                        "in_proj_bias",
                        "bias_k",
                        "bias_v",
                        "add_zero_attn",
                        "dropout_p",
                        "out_proj_weight",
                        "out_proj_bias",
                        "training",
                        "key_padding_mask",
                        "need_weights",
                        "attn_mask",
                        "use_separate_proj_weight",
                        "q_proj_weight",
                        "k_proj_weight",
                        "v_proj_weight",
                        "static_k",
                        "static_v",
                        "average_attn_weights",
                        "is_causal"});
    if (!p.ok()) return p.error();
    const auto& a = *p;
    // Parameters this lowering refuses when given (by position in the signature above).
    static const std::pair<size_t, const char*> refused[] = {
        {7, "bias_k"}, {8, "bias_v"}, {21, "static_k"}, {22, "static_v"}};
    for (const auto& [i, name] : refused)
        if (given(a[i])) return makeError(std::string(name) + " is not supported");
    if (boolOf(a[9], false).value_or(true)) return makeError("add_zero_attn is not supported");
    const auto separate = boolOf(a[17], false);
    const auto needWeights = boolOf(a[15], true), average = boolOf(a[23], true);
    if (!separate || !needWeights || !average) return makeError("bad use_separate_proj_weight or need_weights");
    if (*separate ? !given(a[18]) || !given(a[19]) || !given(a[20]) : !given(a[5]))
        return makeError("missing projection weights");
    const double dropout = numberOf(a[10]).value_or(0.0);
    if (dropout != 0.0 && boolOf(a[13], true).value_or(true)) return makeError("attention dropout is not supported");
    auto qm = a[0] ? c.tensorMeta(*a[0]) : std::nullopt;
    auto km = a[1] ? c.tensorMeta(*a[1]) : std::nullopt;
    auto vm = a[2] ? c.tensorMeta(*a[2]) : std::nullopt;
    auto E = intOf(a[3]);
    auto H = intOf(a[4]);
    if (!qm || !km || !vm || qm->shape.size() != 3 || km->shape.size() != 3 || vm->shape.size() != 3)
        return makeError("expects batched [L, N, E] query, key and value");
    if (!E || !H || *H <= 0 || *E % *H != 0 || qm->shape[2] != *E || !a[11])
        return makeError("expects embed_dim divisible by num_heads, in_proj_weight and out_proj_weight");
    const int64_t L = qm->shape[0], N = qm->shape[1], S = km->shape[0], hd = *E / *H;
    for (int64_t s : {L, N, S})
        if (s < 0) return makeError("symbolic sizes are not supported");
    // q, k, v = linear(query / key / value, in_proj_weight[k*E:(k+1)*E], in_proj_bias[...]).
    std::vector<Argument> heads;
    for (int64_t k = 0; k < 3; ++k) {
        auto w = *separate ? Expected<Argument>(*a[18 + static_cast<size_t>(k)])
                           : c.emit("aten.slice.Tensor", {*a[5], Argument::ofInt(0), Argument::ofInt(k * *E),
                                                          Argument::ofInt((k + 1) * *E)});
        if (!w.ok()) return w;
        std::vector<Argument> args{*a[static_cast<size_t>(k)], *w};
        if (given(a[6])) {
            auto b = c.emit("aten.slice.Tensor",
                            {*a[6], Argument::ofInt(0), Argument::ofInt(k * *E), Argument::ofInt((k + 1) * *E)});
            if (!b.ok()) return b;
            args.push_back(*b);
        }
        auto proj = c.emit("aten.linear.default", std::move(args));
        if (!proj.ok()) return proj;
        // [len, N, E] -> [len, N * H, hd] -> [N * H, len, hd] -> [N, H, len, hd]
        const int64_t len = k == 0 ? L : S;
        auto v1 =
            c.emit("aten.view.default",
                   {*proj, Argument::ofList({Argument::ofInt(len), Argument::ofInt(N * *H), Argument::ofInt(hd)})});
        if (!v1.ok()) return v1;
        auto t = c.emit("aten.transpose.int", {*v1, Argument::ofInt(0), Argument::ofInt(1)});
        if (!t.ok()) return t;
        auto v2 = c.emit("aten.view.default", {*t, Argument::ofList({Argument::ofInt(N), Argument::ofInt(*H),
                                                                     Argument::ofInt(len), Argument::ofInt(hd)})});
        if (!v2.ok()) return v2;
        heads.push_back(*v2);
    }
    // Masks as F.multi_head_attention_forward merges them: booleans become -inf where True (in
    // the query's dtype), the padding mask [N, S] joins as [N, 1, 1, S].
    auto canonical = [&](const Argument& m) -> Expected<Argument> {
        auto mm = c.tensorMeta(m);
        if (!mm) return makeError("masks must be tensors");
        if (mm->dtype != DType::Bool) return m;
        auto z = c.emit("aten.zeros_like.default", {m}, {{"dtype", Argument::ofDType(qm->dtype)}});
        if (!z.ok()) return z;
        return c.emit("aten.masked_fill.Scalar", {*z, m, Argument::ofFloat(-INFINITY)});
    };
    Argument mask = Argument::none();
    if (given(a[16])) {
        auto m = canonical(*a[16]);
        if (!m.ok()) return m;
        mask = *m;
    }
    if (given(a[14])) {
        auto m = canonical(*a[14]);
        if (!m.ok()) return m;
        auto kpm = c.emit("aten.view.default", {*m, Argument::ofList({Argument::ofInt(N), Argument::ofInt(1),
                                                                      Argument::ofInt(1), Argument::ofInt(S)})});
        if (!kpm.ok()) return kpm;
        if (mask.isNone()) {
            mask = *kpm;
        } else {
            auto sum = c.emit("aten.add.Tensor", {mask, *kpm});
            if (!sum.ok()) return sum;
            mask = *sum;
        }
    }
    const bool causal = boolOf(a[24], false).value_or(false);
    Argument weights = Argument::none();
    Expected<Argument> att = Argument::none();
    if (*needWeights) {
        if (dropout != 0.0 && boolOf(a[13], true).value_or(true))
            return makeError("attention dropout is not supported");
        if (causal && mask.isNone()) return makeError("is_causal without a mask is not supported with need_weights");
        // scores = q / sqrt(hd) @ k^T (+ mask), softmax over the keys, @ v.
        auto qs = c.emit("aten.mul.Tensor", {heads[0], Argument::ofFloat(1.0 / std::sqrt(double(hd)))});
        if (!qs.ok()) return qs;
        auto kt = c.emit("aten.transpose.int", {heads[1], Argument::ofInt(-2), Argument::ofInt(-1)});
        if (!kt.ok()) return kt;
        auto sc = c.emit("aten.matmul.default", {*qs, *kt});
        if (!sc.ok()) return sc;
        if (!mask.isNone()) {
            sc = c.emit("aten.add.Tensor", {*sc, mask});
            if (!sc.ok()) return sc;
        }
        auto pr = c.emit("aten._softmax.default", {*sc, Argument::ofInt(-1), Argument::ofBool(false)});
        if (!pr.ok()) return pr;
        att = c.emit("aten.matmul.default", {*pr, heads[2]});
        if (!att.ok()) return att;
        if (*average) {
            auto w = c.emit("aten.mean.dim", {*pr, Argument::ofList({Argument::ofInt(1)}), Argument::ofBool(false)});
            if (!w.ok()) return w;
            weights = *w;
        } else {
            weights = *pr;
        }
    } else {
        att = c.emit("aten.scaled_dot_product_attention.default",
                     {heads[0], heads[1], heads[2], mask, Argument::ofFloat(dropout), Argument::ofBool(causal)});
        if (!att.ok()) return att;
    }
    auto perm = c.emit("aten.permute.default", {*att, Argument::ofList({Argument::ofInt(2), Argument::ofInt(0),
                                                                        Argument::ofInt(1), Argument::ofInt(3)})});
    if (!perm.ok()) return perm;
    auto cont =
        c.emit("aten.clone.default", {*perm}, {{"memory_format", Argument::ofMemoryFormat(MemoryFormat::Contiguous)}});
    if (!cont.ok()) return cont;
    auto flat = c.emit("aten.view.default", {*cont, Argument::ofList({Argument::ofInt(L * N), Argument::ofInt(*E)})});
    if (!flat.ok()) return flat;
    std::vector<Argument> oargs{*flat, *a[11]};
    if (given(a[12])) oargs.push_back(*a[12]);
    auto out = c.emit("aten.linear.default", std::move(oargs));
    if (!out.ok()) return out;
    auto o3 = c.emit("aten.view.default",
                     {*out, Argument::ofList({Argument::ofInt(L), Argument::ofInt(N), Argument::ofInt(*E)})});
    if (!o3.ok()) return o3;
    return Argument::ofList({*o3, weights}, true);
}

}  // namespace fxray::lowering
