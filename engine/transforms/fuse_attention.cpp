// fuse_attention (sfdp): PyTorch's fx_passes/fuse_attention.py. softmax(q·kᵀ·scale [+ mask])
// [-> dropout] · v, as ATen decomposes matmul (bmm between views), is replaced by the fused
// memory-efficient attention op; in joint graphs the attention's backward is matched too and
// replaced by the fused backward (PyTorch's `_training` patterns, traced with joint_fwd_bwd).
//
// The forms mirror PyTorch's: scale by mul (pattern 2, 4) or div (1, 3), with dropout (3, 4),
// with an additive mask (the mask-add part of 5, 6, 14, 16), training and inference. One
// search graph per form is generated below as FX text; value-preserving nodes (the clone and
// expand of matmul's reshape, detach, dropout with p=0) are looked through, where PyTorch traces
// extra variants. PyTorch 2.11 did not fuse the corpus models (their q/k/v come transposed
// through clone + _unsafe_view, which its traced variants do not cover); fxray does.
#include "rewrite/pattern_rewriter.h"
#include "transforms/pass_util.h"
#include "transforms/passes.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace fxray {

namespace {

using namespace passutil;

struct Form {
    bool div;       ///< scores / inv_scale instead of scores * scale
    bool mask;      ///< + attn_mask before the softmax
    bool dropout;   ///< native_dropout on the probabilities
    bool training;  ///< the backward is part of the pattern
};

std::string formName(const Form& f) {
    std::string n = std::string("sfdp_") + (f.div ? "div" : "mul");
    if (f.mask) n += "_mask";
    if (f.dropout) n += "_dropout";
    return n + (f.training ? "_training" : "_inference");
}

std::string searchText(const Form& f) {
    std::ostringstream s;
    const char* scale = f.div ? "inv_scale" : "scale";
    const char* scaleOp = f.div ? "torch.ops.aten.div.Tensor" : "torch.ops.aten.mul.Tensor";
    s << "class Sfdp(torch.nn.Module):\n    def forward(self, query, key, value";
    if (f.mask) s << ", attn_mask";
    if (f.dropout) s << ", dropout_p";
    if (f.training) s << ", tangent";
    s << ", " << scale;
    // The div forms' replacement takes `scale`, which the extra check derives from inv_scale:
    // an input no search node uses.
    if (f.div) s << ", scale";
    std::ostringstream body;
    auto line = [&](const std::string& l) { body << "        " << l << "\n"; };
    // Wildcards (`_x...`) must be parameters too: collect them from the body at the end.
    auto finish = [&]() {
        std::string b = body.str();
        std::vector<std::string> wild;
        for (size_t i = 0; i + 1 < b.size(); ++i) {
            if (b[i] != '_' || b[i + 1] != 'x' ||
                (i > 0 && (std::isalnum(static_cast<unsigned char>(b[i - 1])) || b[i - 1] == '_' || b[i - 1] == '.')))
                continue;
            size_t j = i;
            while (j < b.size() && (std::isalnum(static_cast<unsigned char>(b[j])) || b[j] == '_')) ++j;
            std::string w = b.substr(i, j - i);
            if (std::find(wild.begin(), wild.end(), w) == wild.end()) wild.push_back(w);
        }
        for (const auto& w : wild) s << ", " << w;
        s << "):\n" << b;
        return s.str();
    };
    line("transpose = torch.ops.aten.transpose.int(key, _xk0, _xk1)");
    line("view = torch.ops.aten.view.default(query, _xs0)");
    line("view_1 = torch.ops.aten.view.default(transpose, _xs1)");
    line("bmm = torch.ops.aten.bmm.default(view, view_1)");
    line("view_2 = torch.ops.aten.view.default(bmm, _xs2)");
    line(std::string("scaled = ") + scaleOp + "(view_2, " + scale + ")");
    std::string logits = "scaled";
    if (f.mask) {
        line("add = torch.ops.aten.add.Tensor(scaled, attn_mask)");
        logits = "add";
    }
    line("_softmax = torch.ops.aten._softmax.default(" + logits + ", _xdim, False)");
    std::string probs = "_softmax";
    if (f.dropout) {
        line("native_dropout = torch.ops.aten.native_dropout.default(_softmax, dropout_p, True)");
        line("getitem = native_dropout[0]");
        line("getitem_1 = native_dropout[1]");
        probs = "getitem";
    }
    line("view_3 = torch.ops.aten.view.default(" + probs + ", _xs3)");
    line("view_4 = torch.ops.aten.view.default(value, _xs4)");
    line("bmm_1 = torch.ops.aten.bmm.default(view_3, view_4)");
    line("view_5 = torch.ops.aten.view.default(bmm_1, _xs5)");
    if (!f.training) {
        line("return (view_5,)");
        return finish();
    }
    line("view_6 = torch.ops.aten.view.default(tangent, _xs6)");
    line("transpose_1 = torch.ops.aten.transpose.int(view_3, _xb0, _xb1)");
    line("bmm_2 = torch.ops.aten.bmm.default(transpose_1, view_6)");
    line("transpose_2 = torch.ops.aten.transpose.int(view_4, _xb2, _xb3)");
    line("bmm_3 = torch.ops.aten.bmm.default(view_6, transpose_2)");
    line("view_7 = torch.ops.aten.view.default(bmm_2, _xs7)");
    line("view_8 = torch.ops.aten.view.default(bmm_3, _xs8)");
    std::string gp = "view_8";
    if (f.dropout) {
        line("native_dropout_backward = torch.ops.aten.native_dropout_backward.default(view_8, getitem_1, _xdscale)");
        gp = "native_dropout_backward";
    }
    line("_softmax_backward_data = torch.ops.aten._softmax_backward_data.default(" + gp +
         ", _softmax, _xdim1, _xdtype)");
    line(std::string("scaled_1 = ") + scaleOp + "(_softmax_backward_data, " + scale + ")");
    line("view_9 = torch.ops.aten.view.default(scaled_1, _xs9)");
    line("transpose_3 = torch.ops.aten.transpose.int(view, _xb4, _xb5)");
    line("bmm_4 = torch.ops.aten.bmm.default(transpose_3, view_9)");
    line("transpose_4 = torch.ops.aten.transpose.int(view_1, _xb6, _xb7)");
    line("bmm_5 = torch.ops.aten.bmm.default(view_9, transpose_4)");
    line("view_10 = torch.ops.aten.view.default(bmm_4, _xs10)");
    line("view_11 = torch.ops.aten.view.default(bmm_5, _xs11)");
    line("transpose_5 = torch.ops.aten.transpose.int(view_10, _xk2, _xk3)");
    line("return (view_5, view_11, transpose_5, view_7)");
    return finish();
}

std::string replacementText(const Form& f) {
    std::ostringstream s;
    s << "class Replacement(torch.nn.Module):\n    def forward(self, query, key, value";
    if (f.mask) s << ", attn_mask";
    if (f.dropout) s << ", dropout_p";
    if (f.training) s << ", tangent";
    s << ", scale):\n";
    const std::string bias = f.mask ? "attn_mask" : "None";
    const std::string p = f.dropout ? "dropout_p" : "0.0";
    auto line = [&](const std::string& l) { s << "        " << l << "\n"; };
    line(std::string("_scaled_dot_product_efficient_attention = torch.ops.aten._scaled_dot_product_efficient_attention."
                     "default(query, key, value, ") +
         bias + ", " + (f.training ? "True" : "False") + ", " + p + ", scale = scale)");
    line("getitem = _scaled_dot_product_efficient_attention[0]");
    if (!f.training) {
        line("return (getitem,)");
        return s.str();
    }
    line("getitem_1 = _scaled_dot_product_efficient_attention[1]");
    line("getitem_2 = _scaled_dot_product_efficient_attention[2]");
    line("getitem_3 = _scaled_dot_product_efficient_attention[3]");
    line("_scaled_dot_product_efficient_attention_backward = torch.ops.aten._scaled_dot_product_efficient_attention_"
         "backward.default(tangent, query, key, value, " +
         bias + ", getitem, getitem_1, getitem_2, getitem_3, " + p + ", [True, True, True, False], scale = scale)");
    line("getitem_4 = _scaled_dot_product_efficient_attention_backward[0]");
    line("getitem_5 = _scaled_dot_product_efficient_attention_backward[1]");
    line("getitem_6 = _scaled_dot_product_efficient_attention_backward[2]");
    line("return (getitem, getitem_4, getitem_5, getitem_6)");
    return s.str();
}

std::string shapeStr(const std::vector<int64_t>& v) {
    std::string r = "[";
    for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
    return r + "]";
}

/// The semantic checks PyTorch gets from re-tracing the pattern with the matched shapes, plus
/// _sfdp_params_check / _sfdp_extra_check: shapes of every view, the transposed dims, the
/// softmax dim, a numeric scale, matching dtypes and devices, the mask's dtype.
std::optional<std::string> checkForm(const Form& f, Match& m) {
    const Node* q = m.boundNode("query");
    const Node* k = m.boundNode("key");
    const Node* v = m.boundNode("value");
    if (!q || !k || !v) return "query, key and value must be tensors";
    const TensorMeta *qm = tensorMeta(*q), *km = tensorMeta(*k), *vm = tensorMeta(*v);
    if (!qm || !km || !vm || qm->dim() != 4 || km->dim() != 4 || vm->dim() != 4)
        return "query, key and value must be 4-D tensors with metadata";
    if (qm->isSymbolic() || km->isSymbolic() || vm->isSymbolic()) return "symbolic shapes are not handled";
    if (qm->dtype != km->dtype || qm->dtype != vm->dtype) return "query, key and value have different dtypes";
    if (!(qm->device == km->device) || !(qm->device == vm->device))
        return "query, key and value are on different devices";
    const int64_t B = qm->shape[0], H = qm->shape[1], M = qm->shape[2], K = qm->shape[3];
    const int64_t N = km->shape[2], Kv = vm->shape[3];
    if (km->shape != std::vector<int64_t>{B, H, N, K})
        return "key's shape " + shapeStr(km->shape) + " does not fit query's";
    if (vm->shape != std::vector<int64_t>{B, H, N, Kv})
        return "value's shape " + shapeStr(vm->shape) + " does not fit key's";
    auto shapeIs = [&](const char* node, std::vector<int64_t> want) -> std::optional<std::string> {
        const Node* n = m.image(node);
        const TensorMeta* nm = n ? tensorMeta(*n) : nullptr;
        if (!nm || nm->shape != want)
            return std::string("'") + (n ? n->name() : node) + "' is not the " + shapeStr(want) +
                   " reshape attention needs";
        return std::nullopt;
    };
    for (auto [node, want] :
         std::initializer_list<std::pair<const char*, std::vector<int64_t>>>{{"view", {B * H, M, K}},
                                                                             {"view_1", {B * H, K, N}},
                                                                             {"view_2", {B, H, M, N}},
                                                                             {"view_3", {B * H, M, N}},
                                                                             {"view_4", {B * H, N, Kv}},
                                                                             {"view_5", {B, H, M, Kv}}}) {
        if (auto e = shapeIs(node, want)) return e;
    }
    auto dimsAre = [&](const char* node, int64_t a, int64_t b) -> bool {
        const Node* n = m.image(node);
        if (!n || n->args.size() < 3) return false;
        auto d0 = asInt(n->args[1]), d1 = asInt(n->args[2]);
        const TensorMeta* in = n->args[0].isNode() ? tensorMeta(*n->args[0].node) : nullptr;
        if (!d0 || !d1 || !in) return false;
        int64_t r = in->dim(), x = *d0 < 0 ? *d0 + r : *d0, y = *d1 < 0 ? *d1 + r : *d1;
        return (x == a && y == b) || (x == b && y == a);
    };
    if (!dimsAre("transpose", 2, 3)) return "key is not transposed in its last two dims";
    auto softmaxDimOk = [&](const char* node, size_t idx) {
        const Node* n = m.image(node);
        auto d = n && n->args.size() > idx ? asInt(n->args[idx]) : std::nullopt;
        return d && (*d == -1 || *d == 3);
    };
    if (!softmaxDimOk("_softmax", 1)) return "softmax is not over the last dim";
    // Scale: a number (PyTorch: `isinstance(scale_factor, (float, int))`).
    const Argument* sc = m.binding(f.div ? "inv_scale" : "scale");
    auto scv = sc ? asNumber(*sc) : std::nullopt;
    if (!scv || sc->kind == Argument::Kind::Bool) return "the scale is not a number";
    if (f.div && *scv == 0.0) return "division by a zero scale";
    if (f.div) m.bindings["scale"] = Argument::ofFloat(1.0 / *scv);
    if (f.mask) {
        const Node* mask = m.boundNode("attn_mask");
        const TensorMeta* mm = mask ? tensorMeta(*mask) : nullptr;
        if (!mm) return "the mask is not a tensor";
        if (!(mm->dtype == qm->dtype || mm->dtype == DType::Bool || mm->dtype == DType::Float32))
            return "the mask's dtype is neither the query's, bool nor float32";
        if (!(mm->device == qm->device)) return "the mask is on another device";
        if (mm->dtype == DType::Bool) return "a boolean mask added to scores is not an attention bias";
    }
    if (f.dropout) {
        auto p = asNumber(*m.binding("dropout_p"));
        if (!p || *p < 0.0 || *p >= 1.0) return "dropout probability is not in [0, 1)";
    }
    if (!f.training) return std::nullopt;
    const Node* t = m.boundNode("tangent");
    const TensorMeta* tm = t ? tensorMeta(*t) : nullptr;
    if (!tm || tm->shape != std::vector<int64_t>{B, H, M, Kv})
        return "the output's gradient does not have the output's shape";
    for (auto [node, want] :
         std::initializer_list<std::pair<const char*, std::vector<int64_t>>>{{"view_6", {B * H, M, Kv}},
                                                                             {"view_7", {B, H, N, Kv}},
                                                                             {"view_9", {B * H, M, N}},
                                                                             {"view_10", {B, H, K, N}},
                                                                             {"view_11", {B, H, M, K}},
                                                                             {"transpose_5", {B, H, N, K}}}) {
        if (auto e = shapeIs(node, want)) return e;
    }
    for (const char* tr : {"transpose_1", "transpose_2", "transpose_3", "transpose_4"})
        if (!dimsAre(tr, 1, 2))
            return std::string("backward transpose '") + m.image(tr)->name() + "' is not a batch transpose";
    if (!dimsAre("transpose_5", 2, 3)) return "the key gradient is not transposed back";
    if (!softmaxDimOk("_softmax_backward_data", 2)) return "softmax backward is not over the last dim";
    if (f.dropout) {
        const Node* ndb = m.image("native_dropout_backward");
        auto p = asNumber(*m.binding("dropout_p"));
        auto s = ndb && ndb->args.size() > 2 ? asNumber(ndb->args[2]) : std::nullopt;
        if (!s || std::abs(*s - 1.0 / (1.0 - *p)) > 1e-6 * *s) return "dropout backward does not rescale by 1/(1-p)";
    }
    return std::nullopt;
}

std::vector<Pattern> patterns() {
    std::vector<Pattern> out;
    PatternOptions opts;
    opts.lookThroughIdentity = true;
    opts.viewsEquivalent = true;
    // Training forms first: an inference form would find a training graph's forward but fail
    // on the softmax's backward users.
    for (bool training : {true, false})
        for (bool dropout : {true, false})
            for (bool mask : {true, false})
                for (bool div : {false, true}) {
                    if (dropout && !training) continue;  // eval graphs have no dropout
                    Form f{div, mask, dropout, training};
                    auto p = patternFromFxText(formName(f), searchText(f), replacementText(f), opts);
                    if (!p.ok()) {
                        // A built-in pattern that does not parse is a bug in fxray.
                        std::fprintf(stderr, "fxray: internal error: %s\n", p.error().str().c_str());
                        std::abort();
                    }
                    p->extraCheck = [f](Match& m) { return checkForm(f, m); };
                    out.push_back(std::move(p).value());
                }
    return out;
}

}  // namespace

std::unique_ptr<Pass> createFuseAttentionPass() {
    return std::make_unique<PatternRewritePass>(
        "fuse_attention",
        "sfdp: replace softmax(q·kᵀ·scale [+ mask]) [dropout] · v, and in joint graphs its backward, by "
        "_scaled_dot_product_efficient_attention (+ backward); causal and boolean-mask forms "
        "(PyTorch's patterns 7-18) are not matched yet",
        patterns());
}

}  // namespace fxray
