// torch.autocast regions in Dynamo graphs: `_enter_autocast(device_type, dtype, enabled, cache)`
// and `_exit_autocast(ctx)` bracket the calls that run under autocast. PyTorch's Autocast
// dispatch key casts the operands of the ATen op a torch-level call binds to (aten/src/ATen/
// autocast_mode.cpp, CUDA): GEMMs and convolutions to the region's lower-precision dtype, ops
// that lose accuracy there (exp, log, pow, norms, losses, softmax and sums without a dtype) to
// float32, and ops that mix operands (cat, stack, addcmul, ...) to the widest. Only operands that
// are floating point, not float64, and on the region's device are cast. Casting the torch-level
// call's operands before its rule lowers it gives the same ops: fxray's rules decompose the call
// into ops that then see the cast values, as the ops below PyTorch's autocast wrapper do.
#include "import/dynamo_lowering_internal.h"

#include <set>

namespace fxray::lowering {

namespace {

enum class CastPolicy { None, Lower, Fp32, Fp32UnlessDtype, Promote, Refuse };

/// The call's op name: `torch._C._nn.linear`, `torch.nn.functional.linear`, `operator.matmul`
/// and the method `x.matmul` are all `matmul`/`linear`. In-place methods (`exp_`) keep their
/// name and so no policy: autocast registers only out-of-place ops, and casting self would write
/// into a copy.
std::string bareName(const TorchCall& call) {
    std::string t = call.target;
    const size_t dot = t.rfind('.');
    if (!call.method && dot != std::string::npos) t = t.substr(dot + 1);
    if (t.size() > 4 && t.rfind("__", 0) == 0 && t.compare(t.size() - 2, 2, "__") == 0) t = t.substr(2, t.size() - 4);
    return t;
}

CastPolicy policyOf(const std::string& name) {
    // autocast_mode.cpp's CUDA lists (lower_precision_fp, fp32, fp32_set_opt_dtype, promote),
    // by the names torch-level calls reach them through.
    static const std::set<std::string> lower = {
        "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
        "convolution", "_convolution", "prelu", "addmm", "addmv", "addr", "matmul", "einsum", "mm", "mv",
        "linalg_vecdot", "vecdot", "linear", "addbmm", "baddbmm", "bmm", "chain_matmul", "multi_dot",
        "linalg_multi_dot", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
        "scaled_dot_product_attention"};
    static const std::set<std::string> fp32 = {
        "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p", "reciprocal", "rsqrt",
        "sinh", "tan", "pow", "softplus", "layer_norm", "group_norm", "norm", "frobenius_norm", "nuclear_norm",
        "cosine_similarity", "poisson_nll_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d",
        "hinge_embedding_loss", "kl_div", "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss",
        "margin_ranking_loss", "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss",
        "multi_margin_loss", "binary_cross_entropy_with_logits", "cross_entropy", "dist", "pdist", "cdist",
        "renorm", "logsumexp", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
        "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d", "upsample_linear1d",
        "upsample_bilinear2d", "upsample_trilinear3d", "upsample_bicubic2d"};
    static const std::set<std::string> fp32UnlessDtype = {"prod", "cumprod", "cumsum", "vector_norm",
                                                          "linalg_vector_norm", "matrix_norm", "linalg_matrix_norm",
                                                          "softmax", "log_softmax", "sum"};
    static const std::set<std::string> promote = {"addcdiv", "addcmul", "atan2", "bilinear", "cross", "dot", "vdot",
                                                  "grid_sample", "grid_sampler", "index_put", "scatter_add",
                                                  "tensordot", "cat", "concat", "concatenate", "stack", "index_copy"};
    // Python-level composites whose inner ops take different policies (the projections in the
    // lower precision, the softmax in float32): not modelled.
    static const std::set<std::string> refuse = {"multi_head_attention_forward"};
    if (lower.count(name)) return CastPolicy::Lower;
    if (fp32.count(name)) return CastPolicy::Fp32;
    if (fp32UnlessDtype.count(name)) return CastPolicy::Fp32UnlessDtype;
    if (promote.count(name)) return CastPolicy::Promote;
    if (refuse.count(name)) return CastPolicy::Refuse;
    return CastPolicy::None;
}

bool lowPrecision(DType t) { return t == DType::Float16 || t == DType::BFloat16; }

/// Autocast's is_eligible: floating point, not float64, on the region's device.
bool eligible(const LowerCtx& c, const Argument& a, const std::string& dev) {
    auto m = c.tensorMeta(a);
    return m && isFloating(m->dtype) && m->dtype != DType::Float64 && m->device.type == dev;
}

/// Applies `f` to every tensor operand (list items included), in place.
template <class F>
Status forEachOperand(TorchCall& call, F&& f) {
    auto visit = [&](Argument& a) -> Status {
        if (a.isSequence()) {
            for (auto& item : a.items)
                if (Status s = f(item); !s.ok()) return s;
            return Status::success();
        }
        return f(a);
    };
    for (auto& a : call.args)
        if (Status s = visit(a); !s.ok()) return s;
    for (auto& [k, a] : call.kwargs)
        if (Status s = visit(a); !s.ok()) return s;
    return Status::success();
}

}  // namespace

Expected<Argument> enterAutocast(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"device_type", "dtype", "enabled", "cache_enabled"});
    if (!p.ok()) return p.error();
    const auto enabled = boolOf((*p)[2], true);
    if (!enabled) return makeError("enabled must be a bool");
    AutocastRegion r;
    r.enabled = *enabled;
    if (r.enabled) {
        const Argument* dev = (*p)[0];
        if (!dev || dev->kind != Argument::Kind::String) return makeError("device_type must be a string");
        if (dev->s != "cuda")
            return makeError("autocast on '" + dev->s + "' is not supported (only CUDA's cast lists are modelled)");
        r.device = "cuda";
        r.dtype = DType::Float16;  // torch.get_autocast_dtype("cuda")'s default
        if (given((*p)[1])) {
            if ((*p)[1]->kind != Argument::Kind::DType || !lowPrecision((*p)[1]->dtype))
                return makeError("autocast dtype must be torch.float16 or torch.bfloat16");
            r.dtype = (*p)[1]->dtype;
        }
    }
    c.autocast().push_back(r);
    return Argument::none();
}

Expected<Argument> exitAutocast(LowerCtx& c, const TorchCall&) {
    if (c.autocast().empty()) return makeError("_exit_autocast without a matching _enter_autocast");
    c.autocast().pop_back();
    return Argument::none();
}

Expected<TorchCall> applyAutocast(LowerCtx& c, const TorchCall& call) {
    if (c.autocast().empty() || !c.autocast().back().enabled) return call;
    const AutocastRegion region = c.autocast().back();
    const std::string name = bareName(call);
    const CastPolicy policy = policyOf(name);
    if (policy == CastPolicy::None) return call;
    if (policy == CastPolicy::Refuse)
        return makeError("'" + name + "' under autocast is not supported (its inner ops take different casts)");
    TorchCall out = call;
    std::optional<DType> to;
    if (policy == CastPolicy::Lower) to = region.dtype;
    if (policy == CastPolicy::Fp32) to = DType::Float32;
    if (policy == CastPolicy::Fp32UnlessDtype) {
        for (const auto& [k, a] : call.kwargs)
            if (k == "dtype" && !a.isNone()) return call;
        for (const auto& a : call.args)
            if (a.kind == Argument::Kind::DType) return call;
        to = DType::Float32;
    }
    if (policy == CastPolicy::Promote) {
        // The widest eligible operand type: float32 if any operand is, else the lower precision.
        bool any = false, wide = false;
        (void)forEachOperand(out, [&](Argument& a) {
            if (eligible(c, a, region.device)) {
                any = true;
                wide = wide || c.tensorMeta(a)->dtype == DType::Float32;
            }
            return Status::success();
        });
        if (!any) return call;
        to = wide ? DType::Float32 : region.dtype;
    }
    Status s = forEachOperand(out, [&](Argument& a) -> Status {
        if (!eligible(c, a, region.device)) return Status::success();
        auto cast = convertTo(c, a, to, std::nullopt, false, std::nullopt);
        if (!cast.ok()) return cast.error();
        a = *cast;
        return Status::success();
    });
    if (!s.ok()) return s.error();
    return out;
}

}  // namespace fxray::lowering
