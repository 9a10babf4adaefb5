// Decompositions of neural-network composites into the ops AOT autograd's joint graphs show:
// layer_norm -> native_layer_norm, batch_norm -> _native_batch_norm_legit_functional (running
// statistics updated functionally), dropout -> native_dropout (or clone when inactive),
// conv2d -> convolution, softmax -> _softmax, max_pool2d -> max_pool2d_with_indices,
// adaptive_avg_pool2d -> mean over H, W (1x1 output) or _adaptive_avg_pool2d,
// group_norm -> native_group_norm, upsample_*.vec -> upsample_* (sizes and scales per dim),
// scaled_dot_product_attention -> _scaled_dot_product_efficient_attention (as on CUDA).
#include "autodiff/tracer.h"

#include <cmath>
#include <string>

namespace fxray {

namespace {

std::optional<Traced> single(Node* n) {
    if (!n) return std::nullopt;
    return Traced::of(n);
}

/// Element 0 of a traced tuple as the op's value (the composite returns only that).
std::optional<Traced> first(const Traced& t) {
    if (!t.isTuple || t.items.empty() || !t.items[0]) return std::nullopt;
    return Traced::of(t.items[0]);
}

bool truthy(const Argument& a) { return a.kind == Argument::Kind::Bool ? a.b : !a.isNone() && numberOf(a) != 0.0; }

/// An int[N] argument expanded to N entries (`1` or `[1]` -> `[1, 1]`).
Argument expandList(const Argument& a, size_t n) {
    auto v = intsOf(a);
    if (v.size() == 1 && n > 1) v.assign(n, v[0]);
    return intList(v);
}

// layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable): native_layer_norm[0].
std::optional<Traced> layerNorm(DecompCall& c) {
    return first(c.t.emit("aten.native_layer_norm.default", {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4)}));
}

// batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn).
std::optional<Traced> batchNorm(DecompCall& c) {
    const bool training = truthy(c.arg(5));
    const bool stats = c.in(3) && c.in(4);
    if (training && stats) {
        Traced t =
            c.t.emit("aten._native_batch_norm_legit_functional.default",
                     {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), Argument::ofBool(true), c.arg(6), c.arg(7)});
        if (!t.isTuple || t.items.size() != 5) return std::nullopt;
        // The running statistics are buffers updated in place: functionalised, they become new
        // values that the joint graph returns as mutated inputs.
        c.mutate(3, t.items[3]);
        c.mutate(4, t.items[4]);
        return first(t);
    }
    if (training)
        return first(c.t.emit("aten._native_batch_norm_legit.no_stats",
                              {c.arg(0), c.arg(1), c.arg(2), Argument::ofBool(true), c.arg(6), c.arg(7)}));
    return first(c.t.emit("aten._native_batch_norm_legit_no_training.default",
                          {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(6), c.arg(7)}));
}

// dropout(input, p, train): native_dropout(input, p, train)[0] when active, else input.clone().
std::optional<Traced> dropout(DecompCall& c) {
    if (truthy(c.arg(2)) && numberOf(c.arg(1)) != 0.0)
        return first(c.t.emit("aten.native_dropout.default", {c.arg(0), c.arg(1), c.arg(2)}));
    return single(c.e.op("aten.clone.default", {c.arg(0)}));
}

/// convN(input, weight, bias, stride, padding, dilation, groups) -> convolution.
std::optional<Traced> convNd(DecompCall& c, size_t n) {
    std::vector<int64_t> zeros(n, 0);
    return single(c.e.op("aten.convolution.default",
                         {c.arg(0), c.arg(1), c.arg(2), expandList(c.arg(3), n), expandList(c.arg(4), n),
                          expandList(c.arg(5), n), Argument::ofBool(false), intList(zeros), c.arg(6)}));
}
std::optional<Traced> conv1d(DecompCall& c) { return convNd(c, 1); }
std::optional<Traced> conv2d(DecompCall& c) { return convNd(c, 2); }

/// softmax(self, dim, dtype) / log_softmax: the internal op, after a dtype conversion if asked.
std::optional<Traced> softmaxLike(DecompCall& c, const char* internal) {
    Argument x = c.arg(0);
    if (c.arg(2).kind == Argument::Kind::DType && c.in(0) && c.e.dtype(c.in(0)) != c.arg(2).dtype)
        x = nodeArg(c.e.op("aten._to_copy.default", {x}, {{"dtype", c.arg(2)}}));
    return single(c.e.op(internal, {x, c.arg(1), Argument::ofBool(false)}));
}
std::optional<Traced> softmax(DecompCall& c) { return softmaxLike(c, "aten._softmax.default"); }
std::optional<Traced> logSoftmax(DecompCall& c) { return softmaxLike(c, "aten._log_softmax.default"); }

// max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode) -> with_indices[0].
std::optional<Traced> maxPool2d(DecompCall& c) {
    return first(
        c.t.emit("aten.max_pool2d_with_indices.default", {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5)}));
}

// adaptive_avg_pool2d(self, output_size): a mean over H and W for a 1x1 output.
std::optional<Traced> adaptiveAvgPool2d(DecompCall& c) {
    auto out = intsOf(c.arg(1));
    if (out.size() == 2 && out[0] == 1 && out[1] == 1)
        return single(c.e.op("aten.mean.dim", {c.arg(0), intList({-1, -2}), Argument::ofBool(true)}));
    return single(c.e.op("aten._adaptive_avg_pool2d.default", {c.arg(0), c.arg(1)}));
}

// group_norm(input, num_groups, weight, bias, eps, cudnn_enabled): native_group_norm(input,
// weight, bias, N, C, HxW, group, eps)[0].
std::optional<Traced> groupNorm(DecompCall& c) {
    if (!c.in(0)) return std::nullopt;
    const auto& s = c.e.shape(c.in(0));
    if (s.size() < 2) {
        c.e.fail("group_norm expects an input with at least 2 dims", c.src.name());
        return std::nullopt;
    }
    int64_t hw = 1;
    for (size_t d = 2; d < s.size(); ++d) hw *= s[d];
    return first(
        c.t.emit("aten.native_group_norm.default", {c.arg(0), c.arg(2), c.arg(3), Argument::ofInt(s[0]),
                                                    Argument::ofInt(s[1]), Argument::ofInt(hw), c.arg(1), c.arg(4)}));
}

// upsample_*.vec(input, output_size?, [align_corners,] scale_factors?): the .default overload
// with the output size (floor(in * scale) when only scales are given) and one scale per dim.
std::optional<Traced> upsampleVec(DecompCall& c) {
    if (!c.in(0)) return std::nullopt;
    const std::string q = c.src.opName();
    const std::string base = q.substr(0, q.rfind('.'));
    const bool align = c.args.size() == 4;
    const Argument& scales = c.arg(align ? 3 : 2);
    const auto& s = c.e.shape(c.in(0));
    const size_t n = s.size() - 2;
    std::vector<int64_t> out = intsOf(c.arg(1));
    std::vector<Argument> sc(n, Argument::none());
    if (scales.isSequence() && scales.items.size() == n)
        for (size_t d = 0; d < n; ++d) sc[d] = Argument::ofFloat(numberOf(scales.items[d]));
    if (out.size() != n) {
        if (!scales.isSequence() || scales.items.size() != n) {
            c.e.fail(base + ".vec needs output_size or scale_factors", c.src.name());
            return std::nullopt;
        }
        out.clear();
        for (size_t d = 0; d < n; ++d)
            out.push_back(static_cast<int64_t>(std::floor(double(s[2 + d]) * numberOf(scales.items[d]))));
    }
    std::vector<Argument> args{c.arg(0), intList(out)};
    if (align) args.push_back(c.arg(2));
    args.insert(args.end(), sc.begin(), sc.end());
    return single(c.e.op(base + ".default", std::move(args)));
}

// scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, *, scale, enable_gqa):
// _scaled_dot_product_efficient_attention(q, k, v, attn_mask, compute_log_sumexp=True,
// dropout_p, is_causal, scale=scale)[0], the fused op CUDA graphs of fp32 models hold (a float
// mask as the additive bias; bool masks are not decomposed). With enable_gqa, key and value
// with fewer heads are first repeated head by head (unsqueeze, expand, clone, view: HF's
// repeat_kv, what SDPA's math path does with repeat_interleave).
std::optional<Traced> sdpa(DecompCall& c) {
    Argument key = c.arg(1), value = c.arg(2);
    if (c.arg(7).kind == Argument::Kind::Bool && c.arg(7).b && c.in(0) && c.in(1) && c.in(2)) {
        const auto q = c.e.shape(c.in(0)), k = c.e.shape(c.in(1)), v = c.e.shape(c.in(2));
        if (q.size() != 4 || k.size() != 4 || v.size() != 4 || k[1] <= 0 || k[1] != v[1] || q[1] % k[1] != 0) {
            c.e.fail("scaled_dot_product_attention with enable_gqa=True: key and value need the same heads, a "
                     "divisor of the query's",
                     c.src.name());
            return std::nullopt;
        }
        const int64_t group = q[1] / k[1];
        auto repeat = [&](Node* x, const std::vector<int64_t>& s) {
            Node* u = c.e.unsqueeze(x, 2);
            Node* e = c.e.expand(u, {s[0], s[1], group, s[2], s[3]});
            return c.e.view(c.e.contiguousClone(e), {s[0], s[1] * group, s[2], s[3]});
        };
        if (group > 1) {
            key = Argument::ofNode(repeat(c.in(1), k));
            value = Argument::ofNode(repeat(c.in(2), v));
        }
    }
    if (c.in(3) && c.e.dtype(c.in(3)) == DType::Bool) {
        c.e.fail("scaled_dot_product_attention with a bool attn_mask has no decomposition", c.src.name());
        return std::nullopt;
    }
    if (!c.in(0) || c.e.shape(c.in(0)).size() != 4) {
        c.e.fail("scaled_dot_product_attention: only 4-D query/key/value decompose", c.src.name());
        return std::nullopt;
    }
    return first(c.t.emit("aten._scaled_dot_product_efficient_attention.default",
                          {c.arg(0), key, value, c.arg(3), Argument::ofBool(true), c.arg(4), c.arg(5)},
                          {{"scale", c.arg(6)}}));
}

}  // namespace

void addNnDecompositions(std::vector<Decomposition>& out) {
    out.push_back({"aten.layer_norm.default", layerNorm});
    out.push_back({"aten.batch_norm.default", batchNorm});
    out.push_back({"aten.dropout.default", dropout});
    out.push_back({"aten.conv1d.default", conv1d});
    out.push_back({"aten.conv2d.default", conv2d});
    out.push_back({"aten.softmax.int", softmax});
    out.push_back({"aten.log_softmax.int", logSoftmax});
    out.push_back({"aten.max_pool2d.default", maxPool2d});
    out.push_back({"aten.adaptive_avg_pool2d.default", adaptiveAvgPool2d});
    out.push_back({"aten.group_norm.default", groupNorm});
    out.push_back({"aten.scaled_dot_product_attention.default", sdpa});
    for (const char* op : {"aten.upsample_nearest1d.vec", "aten.upsample_nearest2d.vec", "aten.upsample_nearest3d.vec",
                           "aten.upsample_linear1d.vec", "aten.upsample_bilinear2d.vec",
                           "aten.upsample_trilinear3d.vec", "aten.upsample_bicubic2d.vec"})
        out.push_back({op, upsampleVec});
}

}  // namespace fxray
