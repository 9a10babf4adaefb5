#include "partition/op_classes.h"

#include "ir/op_registry.h"

#include <algorithm>
#include <unordered_map>

namespace fxray::partition {

namespace {

enum Bits : uint8_t {
    kRecomputable = 1,
    kView = 2,
    kRandom = 4,
    kComputeIntensive = 8,
    kCat = 16,
    kGetitem = 32,
};

/// Packet -> category bits. Built once from PyTorch's lists.
const std::unordered_map<std::string, uint8_t>& bitsTable() {
    static const std::unordered_map<std::string, uint8_t> t = [] {
        std::unordered_map<std::string, uint8_t> m;
        auto add = [&m](std::initializer_list<const char*> names, uint8_t bits) {
            for (const char* n : names) m[n] |= bits;
        };
        // default_recomputable_ops, first block.
        add({"aten.add",         "aten.sub",         "aten.div",
             "aten.atan2",       "aten.mul",         "aten.max",
             "aten.min",         "aten.pow",         "aten.remainder",
             "aten.fmod",        "aten.__and__",     "aten.__or__",
             "aten.__xor__",     "aten.__lshift__",  "aten.__rshift__",
             "aten.eq",          "aten.ne",          "aten.ge",
             "aten.gt",          "aten.le",          "aten.lt",
             "aten.abs",         "aten.bitwise_not", "aten.ceil",
             "aten.floor",       "aten.frac",        "aten.neg",
             "aten.relu",        "aten.round",       "aten.silu",
             "aten.trunc",       "aten.log",         "aten.log10",
             "aten.log1p",       "aten.log2",        "aten.lgamma",
             "aten.exp",         "aten.expm1",       "aten.erf",
             "aten.erfc",        "aten.cos",         "aten.acos",
             "aten.cosh",        "aten.sin",         "aten.asin",
             "aten.sinh",        "aten.tan",         "aten.atan",
             "aten.tanh",        "aten.atanh",       "aten.sqrt",
             "aten.rsqrt",       "aten.reciprocal",  "aten.sigmoid",
             "aten.softplus",    "aten.threshold",   "aten.threshold_backward",
             "aten.clamp",       "aten.where",       "aten.lerp",
             "aten.addcmul",     "aten.gelu",        "aten.gelu_backward",
             "aten.sum",         "aten.mean",        "aten._grad_sum_to_size",
             "aten.sum_to_size", "aten.amax",        "aten.to",
             "aten.type_as",     "operator.getitem", "aten.squeeze",
             "aten.unsqueeze",   "aten.rsub",        "aten._to_copy"},
            kRecomputable);
        // view_ops (recomputable too).
        add({"aten.squeeze", "aten.unsqueeze", "aten.alias", "aten.view", "aten.slice", "aten.t",
             "prims.broadcast_in_dim", "aten.expand", "aten.as_strided", "aten.permute", "aten.select", "aten.split"},
            kView | kRecomputable);
        // default_recomputable_ops, second block, indexing, zeros_like.
        add({"prims.div",
             "prims.convert_element_type",
             "aten.clone",
             "aten._to_copy",
             "aten.full_like",
             "prims.var",
             "prims.sum",
             "aten.var",
             "aten.std",
             "prims.broadcast_in_dim",
             "aten.select",
             "aten._unsafe_view",
             "aten.view",
             "aten.expand",
             "aten.slice",
             "aten.reshape",
             "aten.broadcast_tensors",
             "aten.scalar_tensor",
             "aten.ones",
             "aten.new_zeros",
             "aten.lift_fresh_copy",
             "aten.arange",
             "aten.triu",
             "aten.var_mean",
             "aten.isinf",
             "aten.any",
             "aten.full",
             "aten.as_strided",
             "aten.zeros",
             "aten.empty",
             "aten.empty_like",
             "aten.argmax",
             "aten.maximum",
             "prims.iota",
             "prims._low_memory_max_pool_offsets_to_indices",
             "prims._low_memory_max_pool2d_offsets_to_indices",
             "aten.index",
             "aten.gather",
             "aten.zeros_like"},
            kRecomputable);
        // pointwise_ops(): every aten packet with an overload tagged torch.Tag.pointwise in
        // native_functions.yaml (the ones fxray can meet; the tag list is PyTorch's).
        add({"aten.abs",
             "aten.absolute",
             "aten.acos",
             "aten.arccos",
             "aten.acosh",
             "aten.arccosh",
             "aten.add",
             "aten.addcdiv",
             "aten.addcmul",
             "aten.asin",
             "aten.arcsin",
             "aten.asinh",
             "aten.arcsinh",
             "aten.atan",
             "aten.arctan",
             "aten.atanh",
             "aten.arctanh",
             "aten.atan2",
             "aten.arctan2",
             "aten.bitwise_and",
             "aten.bitwise_or",
             "aten.bitwise_xor",
             "aten.bitwise_not",
             "aten.bitwise_left_shift",
             "aten.bitwise_right_shift",
             "aten.ceil",
             "aten.clamp",
             "aten.clamp_max",
             "aten.clamp_min",
             "aten.clip",
             "aten.copysign",
             "aten.cos",
             "aten.cosh",
             "aten.deg2rad",
             "aten.digamma",
             "aten.div",
             "aten.divide",
             "aten.true_divide",
             "aten.floor_divide",
             "aten.elu",
             "aten.eq",
             "aten.erf",
             "aten.erfc",
             "aten.erfinv",
             "aten.exp",
             "aten.exp2",
             "aten.expm1",
             "aten.float_power",
             "aten.floor",
             "aten.fmax",
             "aten.fmin",
             "aten.fmod",
             "aten.frac",
             "aten.ge",
             "aten.greater_equal",
             "aten.gelu",
             "aten.gelu_backward",
             "aten.gt",
             "aten.greater",
             "aten.hardshrink",
             "aten.hardsigmoid",
             "aten.hardsigmoid_backward",
             "aten.hardswish",
             "aten.hardswish_backward",
             "aten.hardtanh",
             "aten.hardtanh_backward",
             "aten.heaviside",
             "aten.hypot",
             "aten.i0",
             "aten.igamma",
             "aten.igammac",
             "aten.isnan",
             "aten.isneginf",
             "aten.isposinf",
             "aten.le",
             "aten.less_equal",
             "aten.leaky_relu",
             "aten.leaky_relu_backward",
             "aten.lerp",
             "aten.lgamma",
             "aten.log",
             "aten.log10",
             "aten.log1p",
             "aten.log2",
             "aten.logaddexp",
             "aten.logaddexp2",
             "aten.logical_and",
             "aten.logical_not",
             "aten.logical_or",
             "aten.logical_xor",
             "aten.logit",
             "aten.logit_backward",
             "aten.lt",
             "aten.less",
             "aten.masked_fill",
             "aten.maximum",
             "aten.minimum",
             "aten.mish",
             "aten.mul",
             "aten.multiply",
             "aten.mvlgamma",
             "aten.nan_to_num",
             "aten.ne",
             "aten.not_equal",
             "aten.neg",
             "aten.negative",
             "aten.nextafter",
             "aten.polygamma",
             "aten.pow",
             "aten.rad2deg",
             "aten.reciprocal",
             "aten.remainder",
             "aten.round",
             "aten.rsqrt",
             "aten.sgn",
             "aten.sigmoid",
             "aten.sigmoid_backward",
             "aten.sign",
             "aten.signbit",
             "aten.silu",
             "aten.silu_backward",
             "aten.sin",
             "aten.sinc",
             "aten.sinh",
             "aten.softplus",
             "aten.softplus_backward",
             "aten.softshrink",
             "aten.sqrt",
             "aten.square",
             "aten.sub",
             "aten.subtract",
             "aten.tan",
             "aten.tanh",
             "aten.tanh_backward",
             "aten.threshold",
             "aten.threshold_backward",
             "aten.trunc",
             "aten.fix",
             "aten.where",
             "aten.xlogy",
             "aten.native_dropout_backward",
             "aten.relu",
             "aten.elu_backward",
             "aten.mish_backward"},
            kRecomputable);
        // Sym arithmetic (magic methods) is recomputable.
        add({"operator.add",  "operator.sub",  "operator.mul",    "operator.truediv", "operator.floordiv",
             "operator.mod",  "operator.pow",  "operator.neg",    "operator.eq",      "operator.ne",
             "operator.lt",   "operator.le",   "operator.gt",     "operator.ge",      "operator.and_",
             "operator.or_",  "operator.abs",  "torch.sym_float", "torch.sym_int",    "torch.sym_max",
             "torch.sym_min", "torch.sym_not", "torch.sym_sqrt",  "torch.sym_ite",    "math.ceil",
             "math.floor",    "math.trunc"},
            kRecomputable);
        add({"aten.native_dropout", "aten.rand_like", "aten.randn_like"}, kRandom);
        add({"aten.mm", "aten.convolution", "aten.convolution_backward", "aten.bmm", "aten.addmm",
             "aten._scaled_dot_product_flash_attention", "aten._scaled_dot_product_efficient_attention",
             "aten._scaled_dot_product_cudnn_attention", "aten._flash_attention_forward", "aten._efficient_attention_forward", "aten.upsample_bilinear2d",
             "aten._scaled_mm"},
            kComputeIntensive);
        add({"aten.cat"}, kCat);
        add({"operator.getitem"}, kGetitem);
        return m;
    }();
    return t;
}

/// Packet -> class, from the bits; the entries stay put (the registry points at them).
const std::unordered_map<std::string, OpClass>& classTable() {
    static const std::unordered_map<std::string, OpClass> t = [] {
        std::unordered_map<std::string, OpClass> m;
        for (const auto& [packet, b] : bitsTable()) {
            OpClass c;
            c.recomputable = b & kRecomputable;
            c.view = b & kView;
            c.random = b & kRandom;
            c.computeIntensive = b & kComputeIntensive;
            c.cat = b & kCat;
            c.getitem = b & kGetitem;
            c.fusible = c.recomputable || c.random;
            m.emplace(packet, c);
        }
        return m;
    }();
    return t;
}

int64_t prod(const std::vector<int64_t>& v, size_t from = 0, size_t to = SIZE_MAX) {
    int64_t p = 1;
    for (size_t i = from; i < std::min(to, v.size()); ++i) p *= v[i];
    return p;
}

const TensorMeta* argMeta(const Node& n, size_t i) {
    if (i >= n.args.size() || !n.args[i].isNode()) return nullptr;
    const Node* a = n.args[i].node;
    if (a->meta.size() != 1 || a->metaIsTuple) return nullptr;
    return &a->meta[0];
}

/// flop_counter's conv_flop_count.
double convFlops(const std::vector<int64_t>& x, const std::vector<int64_t>& w, const std::vector<int64_t>& out,
                 bool transposed) {
    if (x.size() < 2 || w.size() < 2 || out.size() < 2) return 0;
    const auto& convShape = transposed ? x : out;
    return double(prod(convShape, 2)) * double(prod(w, 2)) * double(x[0]) * double(w[0]) * double(w[1]) * 2.0;
}

std::vector<int64_t> swap01(std::vector<int64_t> s) {
    if (s.size() >= 2) std::swap(s[0], s[1]);
    return s;
}

bool boolItem(const Argument& a, size_t i) {
    return a.isSequence() && i < a.items.size() && a.items[i].kind == Argument::Kind::Bool && a.items[i].b;
}

}  // namespace

std::string opPacket(const Node& n) {
    if (n.kind() != NodeKind::CallFunction) return n.target();
    return packetOf(n.opName());
}

OpClass classifyOp(const Node& n) {
    if (n.kind() != NodeKind::CallFunction) return {};
    if (const OpInfo* op = n.op()) return op->opClass ? *op->opClass : OpClass{};
    const OpClass* c = opClassOfPacket(opPacket(n));
    return c ? *c : OpClass{};
}

const OpClass* opClassOfPacket(std::string_view packet) {
    auto it = classTable().find(std::string(packet));
    return it == classTable().end() ? nullptr : &it->second;
}

std::string packetOf(std::string_view name) {
    if (name.substr(0, 5) == "aten." || name.substr(0, 6) == "prims.") {
        auto dot = name.rfind('.');
        if (dot != std::string_view::npos && name.find('.') != dot) return std::string(name.substr(0, dot));
    }
    return std::string(name);
}

void attachOpClasses(OpRegistry& r) {
    for (const auto& op : r.all()) op->opClass = opClassOfPacket(packetOf(op->qualname));
}

std::string opClassName(const OpClass& c) {
    std::string s;
    auto add = [&s](bool on, const char* name) {
        if (on) s += (s.empty() ? "" : "+") + std::string(name);
    };
    add(c.view, "view");
    add(c.recomputable && !c.view, "recomputable");
    add(c.random, "random");
    add(c.computeIntensive, "compute-intensive");
    add(c.cat, "cat");
    add(c.getitem, "getitem");
    return s;
}

bool isNondeterministicSeeded(const Node& n) {
    if (n.kind() != NodeKind::CallFunction) return false;
    if (n.op() && n.op()->category == OpCategory::Random) return true;
    static const char* kSeeded[] = {"aten.native_dropout",
                                    "aten.dropout",
                                    "aten.bernoulli",
                                    "aten.rand",
                                    "aten.randn",
                                    "aten.randint",
                                    "aten.randperm",
                                    "aten.rand_like",
                                    "aten.randn_like",
                                    "aten.randint_like",
                                    "aten.normal",
                                    "aten.uniform",
                                    "aten.multinomial",
                                    "aten.poisson",
                                    "aten.exponential",
                                    "aten.geometric",
                                    "aten.cauchy",
                                    "aten.log_normal",
                                    "aten.rrelu_with_noise",
                                    "aten._fused_dropout",
                                    "aten._standard_gamma",
                                    "aten.binomial",
                                    "prims.inductor_random",
                                    "prims.inductor_seeds",
                                    "prims.inductor_randint"};
    std::string p = opPacket(n);
    for (const char* s : kSeeded)
        if (p == s) return true;
    return false;
}

bool isImpure(const Node& n) {
    if (n.kind() == NodeKind::Placeholder || n.kind() == NodeKind::Output) return true;
    if (n.kind() != NodeKind::CallFunction) return false;
    if (n.op() && (n.op()->inplace || n.op()->schema.text.find("!)") != std::string::npos)) return true;
    // Unknown ops: an in-place name (`add_`) mutates its input.
    if (!n.op() && n.isOpCall()) {
        std::string p = opPacket(n);
        if (!p.empty() && p.back() == '_' && p.find("__") == std::string::npos) return true;
    }
    if (n.target() == "torch.ops.aten._assert_async.msg" || n.target() == "torch.ops.aten._assert_scalar.default" ||
        n.target() == "torch._assert" || n.target() == "torch.ops.aten.print.default")
        return true;
    return isNondeterministicSeeded(n);
}

bool isSymNode(const Node& n) { return n.meta.empty() && n.annotationText.compare(0, 4, "Sym(") == 0; }

int64_t sizeOfNode(const Node& n) {
    if (isSymNode(n)) return 1;
    int64_t total = 0;
    for (const auto& m : n.meta) {
        int64_t numel = m.isSymbolic() ? 4096 : m.numel();
        total += numel * dtypeItemSize(m.dtype);
    }
    return total;
}

double estimateFlops(const Node& n) {
    if (n.kind() != NodeKind::CallFunction) return 0;
    std::string p = opPacket(n);
    auto mmFlops = [](const TensorMeta* a, const TensorMeta* b) -> double {
        if (!a || !b || a->dim() < 2 || b->dim() < 2) return 0;
        // [.., m, k] @ [.., k, n]: batch * m * n * 2k
        double batch = double(prod(a->shape, 0, a->shape.size() - 2));
        return batch * double(a->shape[a->dim() - 2]) * double(b->shape[b->dim() - 1]) * 2.0 *
               double(a->shape[a->dim() - 1]);
    };
    if (p == "aten.mm" || p == "aten.bmm") return mmFlops(argMeta(n, 0), argMeta(n, 1));
    if (p == "aten.addmm" || p == "aten.baddbmm") return mmFlops(argMeta(n, 1), argMeta(n, 2));
    if (p == "aten.convolution" && n.meta.size() == 1) {
        const TensorMeta* x = argMeta(n, 0);
        const TensorMeta* w = argMeta(n, 1);
        bool transposed = n.args.size() > 6 && n.args[6].kind == Argument::Kind::Bool && n.args[6].b;
        if (!x || !w) return 0;
        return convFlops(x->shape, w->shape, n.meta[0].shape, transposed);
    }
    if (p == "aten.convolution_backward" && n.meta.size() >= 2) {
        const TensorMeta* gradOut = argMeta(n, 0);
        const TensorMeta* x = argMeta(n, 1);
        const TensorMeta* w = argMeta(n, 2);
        if (!gradOut || !x || !w) return 0;
        bool transposed = n.args.size() > 7 && n.args[7].kind == Argument::Kind::Bool && n.args[7].b;
        const Argument* mask = n.args.size() > 10 ? &n.args[10] : nullptr;
        double f = 0;
        if (mask && boolItem(*mask, 0)) f += convFlops(gradOut->shape, w->shape, n.meta[0].shape, !transposed);
        if (mask && boolItem(*mask, 1)) {
            if (transposed)
                f += convFlops(swap01(gradOut->shape), swap01(x->shape), swap01(n.meta[1].shape), false);
            else
                f += convFlops(swap01(x->shape), swap01(gradOut->shape), swap01(n.meta[1].shape), false);
        }
        return f;
    }
    if (p == "aten._scaled_dot_product_flash_attention" || p == "aten._scaled_dot_product_efficient_attention" ||
        p == "aten._scaled_dot_product_cudnn_attention") {
        const TensorMeta* q = argMeta(n, 0);
        const TensorMeta* k = argMeta(n, 1);
        const TensorMeta* v = argMeta(n, 2);
        if (!q || !k || !v || q->dim() != 4 || k->dim() != 4 || v->dim() != 4) return 0;
        double bh = double(q->shape[0]) * double(q->shape[1]);
        double sq = double(q->shape[2]), sk = double(k->shape[2]);
        return 2.0 * bh * sq * sk * double(q->shape[3]) + 2.0 * bh * sq * sk * double(v->shape[3]);
    }
    return 0;
}

}  // namespace fxray::partition
