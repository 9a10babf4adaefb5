// Lowering rules for torch-level functions: `torch.*`, `torch._C._nn.*`, `torch.nn.functional.*`.
// Functions whose Python signature is the ATen schema (torch.matmul, torch.addmm, torch.gather,
// torch.index_add, torch.cat, ...) go through lowerGeneric; the rules here are the ones whose
// Python signature differs from ATen's or that need a decision PyTorch makes in Python.
#include "exec/ops/kernel_util.h"
#include "import/dynamo_lowering_internal.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>

namespace fxray::lowering {
namespace {

using Args = std::vector<Argument>;
using KwArgs = std::vector<std::pair<std::string, Argument>>;

Argument orNone(const Argument* a) { return a ? *a : Argument::none(); }

// ---- linear algebra and activations --------------------------------------------------------

Expected<Argument> linear(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "weight", "bias"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    if (!(*p)[1]) return makeError("missing weight");
    Args args{*x, *(*p)[1]};
    if (given((*p)[2])) args.push_back(*(*p)[2]);
    return c.emit("aten.linear.default", std::move(args));
}

/// F.relu / F.silu / ... (input, inplace=False).
template <const char* Op, const char* InplaceOp>
Expected<Argument> activationInplace(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "inplace"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto inplace = boolOf((*p)[1], false);
    if (!inplace) return makeError("inplace must be a bool");
    return c.emit(*inplace ? InplaceOp : Op, {*x});
}
constexpr char kRelu[] = "aten.relu.default";
constexpr char kReluInplace[] = "aten.relu_.default";
constexpr char kSilu[] = "aten.silu.default";
constexpr char kSiluInplace[] = "aten.silu_.default";

Expected<Argument> gelu(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "approximate"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    KwArgs kw;
    if (given((*p)[1])) {
        if ((*p)[1]->kind != Argument::Kind::String) return makeError("approximate must be a string");
        if ((*p)[1]->s != "none") kw.emplace_back("approximate", *(*p)[1]);
    }
    return c.emit("aten.gelu.default", {*x}, std::move(kw));
}

Expected<Argument> leakyRelu(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "negative_slope", "inplace"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    if (boolOf((*p)[2], false).value_or(true)) return makeError("in-place leaky_relu is not supported");
    Args args{*x};
    if (given((*p)[1])) args.push_back(asFloat(*(*p)[1]));
    return c.emit("aten.leaky_relu.default", std::move(args));
}

Expected<Argument> dropout(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "p", "training", "inplace"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto prob = (*p)[1] ? numberOf((*p)[1]) : std::optional<double>(0.5);
    if (!prob || *prob < 0.0 || *prob > 1.0) return makeError("dropout probability must be a number in [0, 1]");
    auto training = boolOf((*p)[2], true);
    auto inplace = boolOf((*p)[3], false);
    if (!training || !inplace) return makeError("training and inplace must be bools");
    if (*inplace) return makeError("in-place dropout is not supported");
    return c.emit("aten.dropout.default", {*x, Argument::ofFloat(*prob), Argument::ofBool(*training)});
}

/// F.softmax(input, dim, _stacklevel, dtype), torch.softmax(input, dim, dtype), and log_softmax.
template <bool Log, bool Functional>
Expected<Argument> softmax(LowerCtx& c, const TorchCall& call) {
    auto p = Functional ? call.bind({"input", "dim", "_stacklevel", "dtype"}) : call.bind({"input", "dim", "dtype"});
    if (!p.ok()) return p.error();
    const Argument* dt = (*p)[Functional ? 3 : 2];
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto dim = intOf((*p)[1]);
    if (!dim) return makeError("softmax without an explicit dim is not supported");
    if (given(dt) && dt->kind != Argument::Kind::DType) return makeError("dtype must be a torch dtype");
    if (!Log) {
        Args args{*x, Argument::ofInt(*dim)};
        if (given(dt)) args.push_back(*dt);
        return c.emit("aten.softmax.int", std::move(args));
    }
    // log_softmax.int is CompositeImplicit: convert first, then _log_softmax.
    Argument in = *x;
    if (given(dt)) {
        auto conv = convertTo(c, in, dt->dtype, std::nullopt, false, std::nullopt);
        if (!conv.ok()) return conv;
        in = *conv;
    }
    return c.emit("aten._log_softmax.default", {in, Argument::ofInt(*dim), Argument::ofBool(false)});
}

// ---- normalization and embedding -----------------------------------------------------------

Expected<Argument> layerNorm(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "normalized_shape", "weight", "bias", "eps"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto shape = (*p)[1] ? intList(*(*p)[1]) : std::nullopt;
    if (!shape) return makeError("normalized_shape must be an int or a sequence of ints");
    auto eps = (*p)[4] ? numberOf((*p)[4]) : std::optional<double>(1e-5);
    if (!eps) return makeError("eps must be a number");
    // cudnn_enable as torch.export records F.layer_norm's call (no effect on values).
    return c.emit("aten.layer_norm.default",
                  {*x, *shape, orNone((*p)[2]), orNone((*p)[3]), Argument::ofFloat(*eps), Argument::ofBool(false)});
}

/// F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps) ->
/// aten.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
/// cudnn_enabled): the argument order differs.
Expected<Argument> batchNorm(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto training = boolOf((*p)[5], false);
    if (!training) return makeError("training must be a bool");
    if ((*p)[6] && (*p)[6]->isNone()) return makeError("momentum=None (cumulative moving average) is not supported");
    auto momentum = (*p)[6] ? numberOf((*p)[6]) : std::optional<double>(0.1);
    auto eps = (*p)[7] ? numberOf((*p)[7]) : std::optional<double>(1e-5);
    if (!momentum || !eps) return makeError("momentum and eps must be numbers");
    return c.emit("aten.batch_norm.default",
                  {*x, orNone((*p)[3]), orNone((*p)[4]), orNone((*p)[1]), orNone((*p)[2]), Argument::ofBool(*training),
                   Argument::ofFloat(*momentum), Argument::ofFloat(*eps),
                   Argument::ofBool(false)});  // cudnn_enabled as torch.export records it
}

/// F.embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse) ->
/// aten.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse).
Expected<Argument> embedding(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "weight", "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto w = c.tensorMeta((*p)[1] ? *(*p)[1] : Argument::none());
    if (!w || w->dim() != 2) return makeError("weight must be a 2-d tensor");
    if (given((*p)[3])) return makeError("max_norm renormalizes the weight in place; not supported");
    int64_t pad = -1;
    if (given((*p)[2])) {
        auto v = intOf((*p)[2]);
        if (!v) return makeError("padding_idx must be an int");
        pad = *v < 0 ? *v + w->shape[0] : *v;  // F.embedding normalizes negative indices
    }
    auto sgbf = boolOf((*p)[5], false);
    auto sparse = boolOf((*p)[6], false);
    if (!sgbf || !sparse) return makeError("scale_grad_by_freq and sparse must be bools");
    Args args{*(*p)[1], *x};
    if (pad != -1 || *sgbf || *sparse) args.push_back(Argument::ofInt(pad));
    if (*sgbf || *sparse) args.push_back(Argument::ofBool(*sgbf));
    if (*sparse) args.push_back(Argument::ofBool(true));
    return c.emit("aten.embedding.default", std::move(args));
}

// ---- convolution and pooling ----------------------------------------------------------------

template <int N>
Expected<Argument> conv(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "weight", "bias", "stride", "padding", "dilation", "groups"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    if (!(*p)[1]) return makeError("missing weight");
    auto list = [&](const Argument* a, int64_t def) { return a ? intList(*a, N) : intList(Argument::ofInt(def), N); };
    auto stride = list((*p)[3], 1), dilation = list((*p)[5], 1);
    auto groups = (*p)[6] ? intOf((*p)[6]) : std::optional<int64_t>(1);
    if (!stride || !dilation || !groups) return makeError("stride, dilation and groups must be ints");
    const std::string d = std::to_string(N);
    if ((*p)[4] && (*p)[4]->kind == Argument::Kind::String)
        return c.emit("aten.conv" + d + "d.padding",
                      {*x, *(*p)[1], orNone((*p)[2]), *stride, *(*p)[4], *dilation, Argument::ofInt(*groups)});
    auto padding = list((*p)[4], 0);
    if (!padding) return makeError("padding must be an int, a sequence of ints or a string");
    return c.emit("aten.conv" + d + "d.default",
                  {*x, *(*p)[1], orNone((*p)[2]), *stride, *padding, *dilation, Argument::ofInt(*groups)});
}

/// F.max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
/// return_indices=False); torch.max_pool2d has no return_indices.
template <bool WithIndices>
Expected<Argument> maxPool2d(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto ks = (*p)[1] ? intList(*(*p)[1], 2) : std::nullopt;
    auto stride = given((*p)[2]) ? intList(*(*p)[2], 2) : std::optional<Argument>(Argument::ofList({}));
    auto padding = (*p)[3] ? intList(*(*p)[3], 2) : intList(Argument::ofInt(0), 2);
    auto dilation = (*p)[4] ? intList(*(*p)[4], 2) : intList(Argument::ofInt(1), 2);
    auto ceil = boolOf((*p)[5], false);
    auto indices = boolOf((*p)[6], WithIndices);
    if (!ks || !stride || !padding || !dilation || !ceil || !indices)
        return makeError("kernel_size, stride, padding and dilation must be ints or pairs of ints");
    Args args{*x, *ks, *stride, *padding, *dilation, Argument::ofBool(*ceil)};
    return c.emit(*indices ? "aten.max_pool2d_with_indices.default" : "aten.max_pool2d.default", std::move(args));
}

Expected<Argument> avgPool2d(LowerCtx& c, const TorchCall& call) {
    auto p =
        call.bind({"input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto ks = (*p)[1] ? intList(*(*p)[1], 2) : std::nullopt;
    auto stride = given((*p)[2]) ? intList(*(*p)[2], 2) : std::optional<Argument>(Argument::ofList({}));
    auto padding = (*p)[3] ? intList(*(*p)[3], 2) : intList(Argument::ofInt(0), 2);
    auto ceil = boolOf((*p)[4], false);
    auto cip = boolOf((*p)[5], true);
    if (!ks || !stride || !padding || !ceil || !cip) return makeError("bad pooling arguments");
    return c.emit("aten.avg_pool2d.default",
                  {*x, *ks, *stride, *padding, Argument::ofBool(*ceil), Argument::ofBool(*cip), orNone((*p)[6])});
}

/// F.adaptive_avg_pool2d(input, output_size) and F.adaptive_max_pool2d(input, output_size,
/// return_indices=False) (ATen's max returns the indices too: item 0 unless asked for both).
template <bool Max>
Expected<Argument> adaptivePool2d(LowerCtx& c, const TorchCall& call) {
    auto p = Max ? call.bind({"input", "output_size", "return_indices"}) : call.bind({"input", "output_size"});
    if (!p.ok()) return p.error();
    auto m = c.tensorMeta((*p)[0] ? *(*p)[0] : Argument::none());
    if (!m || m->dim() < 2) return makeError("input must be a tensor of at least 2 dimensions");
    if (!(*p)[1]) return makeError("missing output_size");
    // None in output_size keeps the input's size there (F.adaptive_avg_pool2d's _list_with_default).
    Argument size = *(*p)[1];
    if (size.kind == Argument::Kind::Int) size = Argument::ofList({size, size});
    if (!size.isSequence() || size.items.size() != 2) return makeError("output_size must be an int or a pair");
    std::vector<Argument> items;
    for (size_t i = 0; i < 2; ++i) {
        const Argument& it = size.items[i];
        if (it.isNone()) {
            auto sz = c.sizeArg(*(*p)[0], m->dim() - 2 + static_cast<int64_t>(i));
            if (!sz.ok()) return sz.error();
            items.push_back(std::move(sz).value());
        } else if (it.kind == Argument::Kind::Int)
            items.push_back(it);
        else
            return makeError("output_size must hold ints or None");
    }
    if (!Max) return c.emit("aten.adaptive_avg_pool2d.default", {*(*p)[0], Argument::ofList(std::move(items))});
    auto indices = boolOf(Max ? (*p)[2] : nullptr, false);
    if (!indices) return makeError("return_indices must be a bool");
    auto r = c.emit("aten.adaptive_max_pool2d.default", {*(*p)[0], Argument::ofList(std::move(items))});
    if (!r.ok() || *indices) return r;
    return c.emitItem(*r, 0);
}

Expected<Argument> pad(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "pad", "mode", "value"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    const std::string mode = (*p)[2] && (*p)[2]->kind == Argument::Kind::String ? (*p)[2]->s : "constant";
    if ((*p)[2] && (*p)[2]->kind != Argument::Kind::String && (*p)[2]->kind != Argument::Kind::None)
        return makeError("mode must be a string");
    auto pads = (*p)[1] ? intList(*(*p)[1]) : std::nullopt;
    if (!pads) return makeError("pad must be a sequence of ints");
    if (mode == "reflect" || mode == "replicate") {
        // F.pad's non-constant modes are the N-d padding ops over the last len(pad) / 2 dims.
        const size_t n = pads->items.size() / 2;
        if (pads->items.size() % 2 != 0 || n < 1 || n > 3)
            return makeError("mode='" + mode + "' pads 1 to 3 trailing dims: pad needs 2, 4 or 6 entries");
        return c.emit("aten." + std::string(mode == "reflect" ? "reflection" : "replication") + "_pad" +
                          std::to_string(n) + "d.default",
                      Args{*x, *pads});
    }
    if (mode != "constant")
        return makeError("mode='" + mode + "' padding is not supported (constant, reflect, replicate are)");
    Args args{*x, *pads};
    if (given((*p)[3])) args.push_back(*(*p)[3]);
    return c.emit("aten.constant_pad_nd.default", std::move(args));
}

// ---- elementwise choices made in Python -----------------------------------------------------

/// torch.where(condition, input, other): the overload follows which operands are tensors.
Expected<Argument> where(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"condition", "input", "other"});
    if (!p.ok()) return p.error();
    if (!(*p)[1] || !(*p)[2]) return makeError("torch.where(condition) (nonzero) is not supported");
    auto cond = needTensor(c, (*p)[0], "condition");
    if (!cond.ok()) return cond;
    bool ta = c.isTensor(*(*p)[1]), tb = c.isTensor(*(*p)[2]);
    if ((!ta && !numberOf((*p)[1])) || (!tb && !numberOf((*p)[2])))
        return makeError("operands must be tensors or numbers");
    const char* op = ta && tb ? "aten.where.self"
                     : ta     ? "aten.where.ScalarOther"
                     : tb     ? "aten.where.ScalarSelf"
                              : "aten.where.Scalar";
    return c.emit(op, {*cond, *(*p)[1], *(*p)[2]});
}

Expected<Argument> pow(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "exponent"});
    if (!p.ok()) return p.error();
    if (!(*p)[0] || !(*p)[1]) return makeError("needs input and exponent");
    bool ta = c.isTensor(*(*p)[0]), tb = c.isTensor(*(*p)[1]);
    if (ta && tb) return c.emit("aten.pow.Tensor_Tensor", {*(*p)[0], *(*p)[1]});
    if (ta && numberOf((*p)[1])) return c.emit("aten.pow.Tensor_Scalar", {*(*p)[0], *(*p)[1]});
    if (tb && numberOf((*p)[0])) return c.emit("aten.pow.Scalar", {*(*p)[0], *(*p)[1]});
    return makeError("operands must be tensors or numbers");
}

// ---- factories -------------------------------------------------------------------------------

/// Keyword options of tensor factories (dtype, layout, device, pin_memory), PyTorch-style:
/// pin_memory=False is spelled out when a device is given, as make_fx records it.
Expected<KwArgs> factoryOptions(const TorchCall& call, const std::vector<std::string_view>& positional) {
    KwArgs kw;
    bool pinGiven = false, deviceGiven = false;
    for (const auto& [k, v] : call.kwargs) {
        if (std::find(positional.begin(), positional.end(), k) != positional.end()) continue;
        if (k == "requires_grad") continue;  // autograd state, no effect on values
        if (k == "out") return makeError("out= is not supported");
        if (k == "generator") {
            if (!v.isNone()) return makeError("an explicit generator is not supported");
            continue;
        }
        if (k != "dtype" && k != "layout" && k != "device" && k != "pin_memory")
            return makeError("unexpected keyword argument '" + k + "'");
        if (v.isNone()) continue;
        if (k == "device" && v.kind == Argument::Kind::String) {
            auto d = parseDevice(v.s);
            if (!d) return makeError("unknown device '" + v.s + "'");
            kw.emplace_back(k, Argument::ofDevice(*d));
        } else {
            kw.emplace_back(k, v);
        }
        pinGiven = pinGiven || k == "pin_memory";
        deviceGiven = deviceGiven || k == "device";
    }
    if (deviceGiven && !pinGiven) kw.emplace_back("pin_memory", Argument::ofBool(false));
    return kw;
}

Expected<Argument> arange(LowerCtx& c, const TorchCall& call) {
    const Argument* start = nullptr;
    const Argument* end = nullptr;
    const Argument* step = nullptr;
    if (call.args.size() > 3) return makeError("takes at most 3 positional arguments");
    if (call.args.size() == 1) end = &call.args[0];
    if (call.args.size() >= 2) {
        start = &call.args[0];
        end = &call.args[1];
    }
    if (call.args.size() == 3) step = &call.args[2];
    for (const auto& [k, v] : call.kwargs) {
        if (k == "start")
            start = &v;
        else if (k == "end")
            end = &v;
        else if (k == "step")
            step = &v;
    }
    if (!end) return makeError("missing end");
    for (const Argument* a : {start, end, step})
        if (a && !c.isScalar(*a)) return makeError("start, end and step must be numbers");
    auto kw = factoryOptions(call, {"start", "end", "step"});
    if (!kw.ok()) return kw.error();
    if (step) return c.emit("aten.arange.start_step", {start ? *start : Argument::ofInt(0), *end, *step}, *kw);
    if (start) return c.emit("aten.arange.start", {*start, *end}, *kw);
    return c.emit("aten.arange.default", {*end}, *kw);
}

Expected<Argument> randperm(LowerCtx& c, const TorchCall& call) {
    const Argument* n = call.args.empty() ? nullptr : &call.args[0];
    if (call.args.size() > 1) return makeError("takes 1 positional argument");
    for (const auto& [k, v] : call.kwargs)
        if (k == "n") n = &v;
    if (!n || !intOf(n)) return makeError("n must be an int");
    auto kw = factoryOptions(call, {"n"});
    if (!kw.ok()) return kw.error();
    return c.emit("aten.randperm.default", {*n}, *kw);
}

/// Flattens a numeric literal (number or nested sequence) into values and a shape.
bool flattenLiteral(const Argument& a, std::vector<double>& vals, std::vector<int64_t>& shape, size_t depth,
                    bool& anyFloat, bool& allBool) {
    if (a.isNumber()) {
        if (depth != shape.size()) return false;
        anyFloat = anyFloat || a.kind == Argument::Kind::Float;
        allBool = allBool && a.kind == Argument::Kind::Bool;
        vals.push_back(*numberOf(&a));
        return true;
    }
    if (!a.isSequence()) return false;
    if (depth == shape.size())
        shape.push_back(static_cast<int64_t>(a.items.size()));
    else if (shape[depth] != static_cast<int64_t>(a.items.size()))
        return false;
    if (vals.size() > (size_t(1) << 24)) return false;  // a literal in a graph is small; cap it
    for (const auto& it : a.items)
        if (!flattenLiteral(it, vals, shape, depth + 1, anyFloat, allBool)) return false;
    return true;
}

/// torch.tensor(literal, dtype=, device=) becomes FX's lifted-constant form: a
/// `_tensor_constantN` attribute and `aten.lift_fresh_copy` of it.
Expected<Argument> tensorLiteral(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"data", "dtype", "device", "requires_grad", "pin_memory"});
    if (!p.ok()) return p.error();
    if (!(*p)[0]) return makeError("missing data");
    std::vector<double> vals;
    std::vector<int64_t> shape;
    bool anyFloat = false, allBool = true;
    if (!flattenLiteral(*(*p)[0], vals, shape, 0, anyFloat, allBool))
        return makeError("data must be a number or a rectangular nested list of numbers");
    // torch.tensor's inference: any float -> the default dtype, all bools -> bool, else int64;
    // an empty list is float.
    DType dt = vals.empty() || anyFloat ? DType::Float32 : allBool ? DType::Bool : DType::Int64;
    if (given((*p)[1])) {
        if ((*p)[1]->kind != Argument::Kind::DType) return makeError("dtype must be a torch dtype");
        dt = (*p)[1]->dtype;
    }
    TensorMeta m = TensorMeta::contiguous(shape, dt);
    if (given((*p)[2])) {
        if ((*p)[2]->kind == Argument::Kind::Device)
            m.device = (*p)[2]->device;
        else if (auto d = (*p)[2]->kind == Argument::Kind::String ? parseDevice((*p)[2]->s) : std::nullopt)
            m.device = *d;
        else
            return makeError("device must be a device");
    }
    Argument k = c.emitConstant(kern::makeTensor(m, vals));
    return c.emit("aten.lift_fresh_copy.default", {k});
}

/// Calls kept by Dynamo for their side effects on Python state; they produce no value.
Expected<Argument> dropCall(LowerCtx&, const TorchCall&) { return Argument::none(); }

/// torch.Size([s23, s27, 384]): a tuple of sizes (ints and SymInt nodes), as x.size() gives.
Expected<Argument> torchSize(LowerCtx&, const TorchCall& call) {
    if (call.args.size() > 1 || !call.kwargs.empty()) return makeError("takes one sequence of sizes");
    if (call.args.empty()) return Argument::ofList({}, true);
    auto sizes = intList(call.args[0]);
    if (!sizes || call.args[0].kind == Argument::Kind::Int) return makeError("takes a sequence of ints");
    return Argument::ofList(sizes->items, true);
}

/// torch.ones(2, 3, dtype=...) / zeros / empty / rand / randn: sizes as varargs or one sequence,
/// the rest as ATen's keywords.
template <const char* Aten>
Expected<Argument> factory(LowerCtx& c, const TorchCall& call) {
    TorchCall k = call;
    if (!(call.args.size() == 1 && call.args[0].isSequence())) {
        auto sizes = varargSizes(call, 0);
        if (!sizes) return makeError("sizes must be ints");
        k.args = {*sizes};
    }
    return lowerGeneric(c, k, Aten);
}
constexpr char kOnes[] = "ones";
constexpr char kZeros[] = "zeros";
constexpr char kEmpty[] = "empty";
constexpr char kRand[] = "rand";
constexpr char kRandn[] = "randn";

/// torch.min(a, b) / torch.max(a, b) of two tensors are ATen's minimum / maximum (min.other);
/// a reduction otherwise.
template <bool Max>
Expected<Argument> minMax(LowerCtx& c, const TorchCall& call) {
    const Argument* other = call.args.size() == 2 ? &call.args[1] : nullptr;
    for (const auto& [k, v] : call.kwargs)
        if (k == "other") other = &v;
    if (other && c.isTensor(*other)) return lowerGeneric(c, call, Max ? "maximum" : "minimum");
    return lowerGeneric(c, call, Max ? "max" : "min");
}

/// torch.outer(a, b) = a[:, None] * b (PyTorch's own decomposition).
Expected<Argument> outer(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "vec2"});
    if (!p.ok()) return p.error();
    if (!(*p)[0] || !(*p)[1] || !c.isTensor(*(*p)[0]) || !c.isTensor(*(*p)[1])) return makeError("expects two tensors");
    auto col = c.emit("aten.unsqueeze.default", {*(*p)[0], Argument::ofInt(1)});
    if (!col.ok()) return col.error();
    return c.emit("aten.mul.Tensor", {*col, *(*p)[1]});
}

/// torch.nn.functional.X(input, ..., inplace=False) whose other parameters are ATen X's, in
/// order: the functional form of X (inplace=True is refused: its result aliases the input).
template <const char* Aten>
Expected<Argument> functionalAsAten(LowerCtx& c, const TorchCall& call) {
    TorchCall k = call;
    k.kwargs.clear();
    for (const auto& [key, v] : call.kwargs) {
        if (key != "inplace") {
            k.kwargs.emplace_back(key, v);
            continue;
        }
        if (v.kind != Argument::Kind::Bool || v.b)
            return makeError("in-place " + std::string(Aten) + " is not supported");
    }
    return lowerGeneric(c, k, Aten);
}
constexpr char kHardswish[] = "hardswish";
constexpr char kHardsigmoid[] = "hardsigmoid";
constexpr char kMish[] = "mish";
constexpr char kSoftplus[] = "softplus";
constexpr char kElu[] = "elu";
constexpr char kGlu[] = "glu";
constexpr char kGroupNorm[] = "group_norm";
constexpr char kAvgPool3d[] = "avg_pool3d";

/// F.relu6(input, inplace=False) = hardtanh(input, 0, 6).
Expected<Argument> relu6(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "inplace"});
    if (!p.ok()) return p.error();
    if (!(*p)[0] || !c.isTensor(*(*p)[0])) return makeError("expects a tensor");
    if ((*p)[1] && ((*p)[1]->kind != Argument::Kind::Bool || (*p)[1]->b))
        return makeError("in-place relu6 is not supported");
    return c.emit("aten.hardtanh.default", {*(*p)[0], Argument::ofFloat(0.0), Argument::ofFloat(6.0)});
}

/// F.interpolate(input, size=None, scale_factor=None, mode='nearest', align_corners=None,
/// recompute_scale_factor=None, antialias=False): ATen's upsample_*.vec(input, output_size,
/// [align_corners,] scale_factors), as torch/nn/functional.py calls it.
Expected<Argument> interpolate(LowerCtx& c, const TorchCall& call) {
    auto p =
        call.bind({"input", "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor", "antialias"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    const auto m = c.tensorMeta(*x);
    const size_t n = m->shape.size() >= 3 ? m->shape.size() - 2 : 0;
    if (n < 1 || n > 3) return makeError("expects a 3-D, 4-D or 5-D input");
    const std::string mode = given((*p)[3]) ? (*p)[3]->s : "nearest";
    if (given((*p)[6]) && boolOf((*p)[6], false).value_or(true)) return makeError("antialias is not supported");
    std::string op;
    if (mode == "nearest")
        op = "upsample_nearest" + std::to_string(n) + "d";
    else if (mode == "linear" && n == 1)
        op = "upsample_linear1d";
    else if (mode == "bilinear" && n == 2)
        op = "upsample_bilinear2d";
    else if (mode == "trilinear" && n == 3)
        op = "upsample_trilinear3d";
    else if (mode == "bicubic" && n == 2)
        op = "upsample_bicubic2d";
    else
        return makeError("mode '" + mode + "' is not supported for a " + std::to_string(n + 2) + "-D input");
    const bool linear = mode != "nearest";
    if (given((*p)[4]) && !linear) return makeError("align_corners only applies to the linear and cubic modes");
    if (given((*p)[1]) == given((*p)[2])) return makeError("expects exactly one of size and scale_factor");
    Argument size = Argument::none(), scales = Argument::none();
    if (given((*p)[1])) {
        auto l = intList(*(*p)[1], n);
        if (!l || l->items.size() != n) return makeError("size must be an int or " + std::to_string(n) + " ints");
        size = *l;
    } else {
        std::vector<double> f;
        if (auto one = numberOf((*p)[2])) {
            f.assign(n, *one);
        } else if ((*p)[2]->isSequence()) {
            for (const auto& it : (*p)[2]->items)
                if (auto v = numberOf(&it)) f.push_back(*v);
        }
        if (f.size() != n) return makeError("scale_factor must be a number or " + std::to_string(n) + " numbers");
        if (boolOf((*p)[5], false).value_or(false)) {
            // recompute_scale_factor: the output size floor(in * scale), no scales passed on.
            std::vector<Argument> out;
            for (size_t d = 0; d < n; ++d)
                out.push_back(Argument::ofInt(static_cast<int64_t>(std::floor(double(m->shape[2 + d]) * f[d]))));
            size = Argument::ofList(std::move(out));
        } else {
            std::vector<Argument> sf;
            for (double v : f) sf.push_back(Argument::ofFloat(v));
            scales = Argument::ofList(std::move(sf));
        }
    }
    if (!linear) return c.emit("aten." + op + ".vec", {*x, size, scales});
    return c.emit("aten." + op + ".vec", {*x, size, Argument::ofBool(boolOf((*p)[4], false).value_or(false)), scales});
}

/// F.grid_sample(input, grid, mode='bilinear', padding_mode='zeros', align_corners=None):
/// grid_sampler_2d/3d with the modes as ATen's enum values.
Expected<Argument> gridSample(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "grid", "mode", "padding_mode", "align_corners"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto grid = needTensor(c, (*p)[1], "grid");
    if (!grid.ok()) return grid;
    const std::string mode = given((*p)[2]) ? (*p)[2]->s : "bilinear", pad = given((*p)[3]) ? (*p)[3]->s : "zeros";
    const int64_t im = mode == "bilinear" ? 0 : mode == "nearest" ? 1 : mode == "bicubic" ? 2 : -1;
    const int64_t pm = pad == "zeros" ? 0 : pad == "border" ? 1 : pad == "reflection" ? 2 : -1;
    if (im < 0 || pm < 0) return makeError("unknown mode '" + mode + "' or padding_mode '" + pad + "'");
    const size_t rank = c.tensorMeta(*x)->shape.size();
    if (rank != 4 && rank != 5) return makeError("expects a 4-D or 5-D input");
    return c.emit(rank == 4 ? "aten.grid_sampler_2d.default" : "aten.grid_sampler_3d.default",
                  {*x, *grid, Argument::ofInt(im), Argument::ofInt(pm),
                   Argument::ofBool(boolOf((*p)[4], false).value_or(false))});
}

/// x @ w.T (+ b): the gate matmuls of the RNN cells.
Expected<Argument> gateLinear(LowerCtx& c, const Argument& x, const Argument& w) {
    auto wt = c.emit("aten.t.default", {w});
    if (!wt.ok()) return wt;
    return c.emit("aten.mm.default", {x, *wt});
}

/// torch.lstm_cell(input, (hx, cx), w_ih, w_hh, b_ih=None, b_hh=None) -> (hy, cy): the two gate
/// matmuls and _thnn_fused_lstm_cell, as PyTorch runs it on CUDA (its third output, the
/// workspace, is never read from the torch-level result).
Expected<Argument> lstmCell(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "hx", "w_ih", "w_hh", "b_ih", "b_hh"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    if (!(*p)[1] || !(*p)[1]->isSequence() || (*p)[1]->items.size() != 2 || !(*p)[2] || !(*p)[3])
        return makeError("expects input, (hx, cx), w_ih and w_hh");
    const Argument &h = (*p)[1]->items[0], &cx = (*p)[1]->items[1];
    if (given((*p)[4]) != given((*p)[5])) return makeError("expects both biases or neither");
    auto ig = gateLinear(c, *x, *(*p)[2]);
    if (!ig.ok()) return ig;
    auto hg = gateLinear(c, h, *(*p)[3]);
    if (!hg.ok()) return hg;
    return c.emit("aten._thnn_fused_lstm_cell.default", {*ig, *hg, cx, orNone((*p)[4]), orNone((*p)[5])});
}

/// torch.gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> hy, as ATen's gru_cell
/// composes it: r, z = sigmoid of the summed gate blocks, n = tanh(i_n + r * h_n),
/// hy = n + z * (hx - n) (gate blocks as slices, so that the result is one tensor).
Expected<Argument> gruCell(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "hx", "w_ih", "w_hh", "b_ih", "b_hh"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto hx = needTensor(c, (*p)[1], "hx");
    if (!hx.ok()) return hx;
    if (!(*p)[2] || !(*p)[3]) return makeError("expects w_ih and w_hh");
    const auto hm = c.tensorMeta(*hx);
    if (hm->shape.size() != 2 || hm->shape[1] < 0) return makeError("expects a [B, H] hidden state of static size");
    const int64_t H = hm->shape[1];
    auto gates = [&](const Argument& in, const Argument* w, const Argument* b) -> Expected<Argument> {
        if (!given(b)) return gateLinear(c, in, *w);
        auto wt = c.emit("aten.t.default", {*w});
        if (!wt.ok()) return wt;
        return c.emit("aten.addmm.default", {*b, in, *wt});
    };
    auto gi = gates(*x, (*p)[2], (*p)[4]);
    if (!gi.ok()) return gi;
    auto gh = gates(*hx, (*p)[3], (*p)[5]);
    if (!gh.ok()) return gh;
    std::vector<Argument> parts;
    for (const Argument* g : {&*gi, &*gh})
        for (int64_t k = 0; k < 3; ++k) {
            auto s = c.emit("aten.slice.Tensor",
                            {*g, Argument::ofInt(1), Argument::ofInt(k * H), Argument::ofInt((k + 1) * H)});
            if (!s.ok()) return s;
            parts.push_back(*s);
        }
    auto emit = [&](const char* op, std::vector<Argument> a) { return c.emit(op, std::move(a)); };
    auto rs = emit("aten.add.Tensor", {parts[0], parts[3]});
    if (!rs.ok()) return rs;
    auto r = emit("aten.sigmoid.default", {*rs});
    auto zs = emit("aten.add.Tensor", {parts[1], parts[4]});
    if (!r.ok() || !zs.ok()) return makeError("gate sums failed");
    auto z = emit("aten.sigmoid.default", {*zs});
    auto rn = emit("aten.mul.Tensor", {*r, parts[5]});
    if (!z.ok() || !rn.ok()) return makeError("gate products failed");
    auto ns = emit("aten.add.Tensor", {parts[2], *rn});
    if (!ns.ok()) return ns;
    auto n = emit("aten.tanh.default", {*ns});
    if (!n.ok()) return n;
    auto d = emit("aten.sub.Tensor", {*hx, *n});
    if (!d.ok()) return d;
    auto zd = emit("aten.mul.Tensor", {*z, *d});
    if (!zd.ok()) return zd;
    return emit("aten.add.Tensor", {*n, *zd});
}

/// torch.lstm(input, (h0, c0), params, has_biases, num_layers, dropout, train, bidirectional,
/// batch_first) and torch.gru(input, h0, params, ...) (nn.LSTM / nn.GRU with Dynamo's allow_rnn):
/// unrolled into torch.lstm_cell / torch.gru_cell steps as above, layer by layer, the reverse
/// direction walking time backwards, directions concatenated on the features; returns
/// (output, h_n[, c_n]). Projections (proj_size) and dropout between layers are not lowered.
template <bool Lstm>
Expected<Argument> rnn(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind(
        {"input", "hx", "params", "has_biases", "num_layers", "dropout", "train", "bidirectional", "batch_first"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    const auto& a = *p;
    auto biases = boolOf(a[3], true);
    auto layers = intOf(a[4]);
    auto dropout = numberOf(a[5]);
    auto train = boolOf(a[6], false), bidir = boolOf(a[7], false), batchFirst = boolOf(a[8], false);
    if (!biases || !layers || !dropout || !train || !bidir || !batchFirst || *layers < 1 || !a[1] || !a[2] ||
        !a[2]->isSequence())
        return makeError("expects input, hx, a list of parameters and the flags of torch." +
                         std::string(Lstm ? "lstm" : "gru"));
    if (*dropout != 0.0 && *train && *layers > 1) return makeError("dropout between layers is not supported");
    Argument h0 = *a[1], c0 = Argument::none();
    if (Lstm) {
        if (!a[1]->isSequence() || a[1]->items.size() != 2) return makeError("expects hx = (h0, c0)");
        h0 = a[1]->items[0], c0 = a[1]->items[1];
    }
    const int64_t D = *bidir ? 2 : 1, P = *biases ? 4 : 2;
    const auto& params = a[2]->items;
    if (static_cast<int64_t>(params.size()) != *layers * D * P)
        return makeError("expects " + std::to_string(*layers * D * P) + " parameters (projections are not supported)");
    auto xm = c.tensorMeta(*x);
    if (!xm || xm->dim() != 3 || xm->shape[0] < 0 || xm->shape[1] < 0) return makeError("expects a batched 3-D input");
    const int64_t tdim = *batchFirst ? 1 : 0, T = xm->shape[static_cast<size_t>(tdim)];
    Argument in = *x;
    std::vector<Argument> hn, cn;
    for (int64_t l = 0; l < *layers; ++l) {
        std::vector<Argument> dirOut;
        for (int64_t d = 0; d < D; ++d) {
            const int64_t k = l * D + d;
            const size_t base = static_cast<size_t>(k * P);
            auto h = c.emit("aten.select.int", {h0, Argument::ofInt(0), Argument::ofInt(k)});
            if (!h.ok()) return h;
            Argument hcur = *h, ccur = Argument::none();
            if (Lstm) {
                auto cs = c.emit("aten.select.int", {c0, Argument::ofInt(0), Argument::ofInt(k)});
                if (!cs.ok()) return cs;
                ccur = *cs;
            }
            std::vector<Argument> outs(static_cast<size_t>(T));
            for (int64_t step = 0; step < T; ++step) {
                const int64_t t = d == 0 ? step : T - 1 - step;
                auto xt = c.emit("aten.select.int", {in, Argument::ofInt(tdim), Argument::ofInt(t)});
                if (!xt.ok()) return xt;
                TorchCall cell;
                cell.node = call.node;
                cell.target = Lstm ? "torch.lstm_cell" : "torch.gru_cell";
                cell.args = {*xt, Lstm ? Argument::ofList({hcur, ccur}, true) : hcur, params[base], params[base + 1]};
                if (*biases) cell.args.insert(cell.args.end(), {params[base + 2], params[base + 3]});
                auto r = Lstm ? lstmCell(c, cell) : gruCell(c, cell);
                if (!r.ok()) return r;
                if (Lstm) {
                    auto hy = c.emitItem(*r, 0);
                    if (!hy.ok()) return hy;
                    auto cy = c.emitItem(*r, 1);
                    if (!cy.ok()) return cy;
                    hcur = *hy, ccur = *cy;
                } else {
                    hcur = *r;
                }
                outs[static_cast<size_t>(t)] = hcur;
            }
            auto st = c.emit("aten.stack.default", {Argument::ofList(std::move(outs)), Argument::ofInt(tdim)});
            if (!st.ok()) return st;
            dirOut.push_back(*st);
            hn.push_back(hcur);
            if (Lstm) cn.push_back(ccur);
        }
        if (D == 1) {
            in = dirOut[0];
        } else {
            auto cat = c.emit("aten.cat.default", {Argument::ofList(std::move(dirOut)), Argument::ofInt(-1)});
            if (!cat.ok()) return cat;
            in = *cat;
        }
    }
    auto h = c.emit("aten.stack.default", {Argument::ofList(std::move(hn)), Argument::ofInt(0)});
    if (!h.ok()) return h;
    std::vector<Argument> result{in, *h};
    if (Lstm) {
        auto cc = c.emit("aten.stack.default", {Argument::ofList(std::move(cn)), Argument::ofInt(0)});
        if (!cc.ok()) return cc;
        result.push_back(*cc);
    }
    return Argument::ofList(std::move(result), true);
}

/// torch.repeat_interleave(input, repeats: int, dim=None): each element (slice along dim)
/// repeated; as unsqueeze + expand + reshape (PyTorch's decomposition for int repeats).
Expected<Argument> repeatInterleaveInt(LowerCtx& c, const Argument& x, const Argument* repeats, const Argument* dim) {
    auto r = intOf(repeats);
    if (!r) return makeError("only an int number of repeats is supported (a tensor of repeats is data-dependent)");
    auto m = c.tensorMeta(x);
    if (!m) return makeError("expects a tensor");
    Argument src = x;
    std::vector<int64_t> shape = m->shape;
    int64_t d = 0;
    if (!given(dim)) {
        int64_t n = 1;
        for (int64_t s : shape) n *= s;
        auto flat = c.emit("aten.reshape.default", {x, Argument::ofList({Argument::ofInt(n)})});
        if (!flat.ok()) return flat;
        src = *flat;
        shape = {n};
    } else {
        auto dv = intOf(dim);
        if (!dv) return makeError("dim must be an int");
        d = *dv < 0 ? *dv + static_cast<int64_t>(shape.size()) : *dv;
        if (d < 0 || d >= static_cast<int64_t>(shape.size())) return makeError("dim out of range");
    }
    for (int64_t s : shape)
        if (s < 0) return makeError("symbolic sizes are not supported");
    auto u = c.emit("aten.unsqueeze.default", {src, Argument::ofInt(d + 1)});
    if (!u.ok()) return u;
    std::vector<Argument> ex, out;
    for (size_t i = 0; i < shape.size(); ++i) {
        ex.push_back(Argument::ofInt(shape[i]));
        if (static_cast<int64_t>(i) == d) ex.push_back(Argument::ofInt(*r));
        out.push_back(Argument::ofInt(static_cast<int64_t>(i) == d ? shape[i] * *r : shape[i]));
    }
    auto e = c.emit("aten.expand.default", {*u, Argument::ofList(std::move(ex))});
    if (!e.ok()) return e;
    return c.emit("aten.reshape.default", {*e, Argument::ofList(std::move(out))});
}

// ---- functions blocks of popular architectures call (bench/gen_popular_more.py) -------------

/// F.max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
/// return_indices=False): max_pool3d_with_indices, item 0 unless the indices are asked for.
Expected<Argument> maxPool3d(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto ks = (*p)[1] ? intList(*(*p)[1], 3) : std::nullopt;
    auto stride = given((*p)[2]) ? intList(*(*p)[2], 3) : std::optional<Argument>(Argument::ofList({}));
    auto padding = (*p)[3] ? intList(*(*p)[3], 3) : intList(Argument::ofInt(0), 3);
    auto dilation = (*p)[4] ? intList(*(*p)[4], 3) : intList(Argument::ofInt(1), 3);
    auto ceil = boolOf((*p)[5], false);
    auto indices = boolOf((*p)[6], false);
    if (!ks || !stride || !padding || !dilation || !ceil || !indices)
        return makeError("kernel_size, stride, padding and dilation must be ints or triples of ints");
    auto r = c.emit("aten.max_pool3d_with_indices.default",
                    {*x, *ks, *stride, *padding, *dilation, Argument::ofBool(*ceil)});
    if (!r.ok() || *indices) return r;
    return c.emitItem(*r, 0);
}

/// torch.einsum(equation, *operands) with explicit or implicit output and no repeated
/// subscript within one operand, no ellipsis: each operand permuted into one letter order (the
/// output's letters, then the summed ones) and reshaped with size-1 dims for the letters it
/// lacks, their broadcast product summed over the trailing letters (rotary embeddings'
/// "i,j->ij" outer product, attention's "bhqd,bhkd->bhqk").
Expected<Argument> einsum(LowerCtx& c, const TorchCall& call) {
    if (call.args.empty() || call.args[0].kind != Argument::Kind::String || !call.kwargs.empty())
        return makeError("expects an equation string and operands");
    std::vector<Argument> ops(call.args.begin() + 1, call.args.end());
    if (ops.size() == 1 && ops[0].isSequence()) ops = ops[0].items;
    std::string eq;
    for (char ch : call.args[0].s)
        if (ch != ' ') eq += ch;
    const size_t arrow = eq.find("->");
    std::vector<std::string> subs(1);
    for (char ch : eq.substr(0, arrow)) {
        if (ch == ',')
            subs.emplace_back();
        else
            subs.back() += ch;
    }
    if (subs.size() != ops.size()) return makeError("the equation names " + std::to_string(subs.size()) + " operands");
    std::map<char, int> count;
    std::string seen;
    for (const auto& s : subs)
        for (char ch : s) {
            if (!std::isalpha(static_cast<unsigned char>(ch))) return makeError("only letter subscripts are supported");
            if (std::count(s.begin(), s.end(), ch) > 1) return makeError("repeated subscripts are not supported");
            if (count[ch]++ == 0) seen += ch;
        }
    std::string out;
    if (arrow == std::string::npos) {
        for (const auto& [ch, n] : count)
            if (n == 1) out += ch;
    } else {
        out = eq.substr(arrow + 2);
        for (char ch : out)
            if (!count.count(ch) || std::count(out.begin(), out.end(), ch) > 1)
                return makeError(std::string("output subscript '") + ch + "' is not one operand subscript");
    }
    std::string order = out;
    for (char ch : seen)
        if (out.find(ch) == std::string::npos) order += ch;
    std::optional<Argument> prod;
    for (size_t k = 0; k < ops.size(); ++k) {
        auto m = c.tensorMeta(ops[k]);
        if (!m || m->dim() != static_cast<int64_t>(subs[k].size()))
            return makeError("operand " + std::to_string(k) + " does not have the equation's " +
                             std::to_string(subs[k].size()) + " dims");
        std::vector<Argument> perm, shape;
        bool identity = true;
        for (char ch : order) {
            const size_t at = subs[k].find(ch);
            if (at == std::string::npos) {
                shape.push_back(Argument::ofInt(1));
                continue;
            }
            identity = identity && at == perm.size();
            perm.push_back(Argument::ofInt(static_cast<int64_t>(at)));
            shape.push_back(Argument::ofInt(m->shape[at]));
        }
        Argument t = ops[k];
        if (!identity) {
            auto r = c.emit("aten.permute.default", {t, Argument::ofList(std::move(perm))});
            if (!r.ok()) return r;
            t = *r;
        }
        if (shape.size() != static_cast<size_t>(m->dim())) {
            auto r = c.emit("aten.reshape.default", {t, Argument::ofList(std::move(shape))});
            if (!r.ok()) return r;
            t = *r;
        }
        if (prod) {
            auto r = c.emit("aten.mul.Tensor", {*prod, t});
            if (!r.ok()) return r;
            t = *r;
        }
        prod = t;
    }
    if (!prod) return makeError("expects operands");
    if (order.size() > out.size()) {
        std::vector<Argument> dims;
        for (size_t d = out.size(); d < order.size(); ++d) dims.push_back(Argument::ofInt(static_cast<int64_t>(d)));
        return c.emit("aten.sum.dim_IntList", {*prod, Argument::ofList(std::move(dims)), Argument::ofBool(false)});
    }
    if (ops.size() == 1 && prod->isNode() && ops[0].isNode() && prod->node == ops[0].node)
        return c.emit("aten.alias.default", {*prod});
    return *prod;
}

/// torch.cdist(x1, x2, p=2.0, compute_mode=...): _cdist_forward (PyTorch takes a matmul form
/// for p = 2 past 25 rows; the values differ by rounding only).
Expected<Argument> cdist(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"x1", "x2", "p", "compute_mode"});
    if (!p.ok()) return p.error();
    auto x1 = needTensor(c, (*p)[0], "x1");
    if (!x1.ok()) return x1;
    auto x2 = needTensor(c, (*p)[1], "x2");
    if (!x2.ok()) return x2;
    auto pv = given((*p)[2]) ? numberOf((*p)[2]) : std::optional<double>(2.0);
    if (!pv) return makeError("p must be a number");
    return c.emit("aten._cdist_forward.default", {*x1, *x2, Argument::ofFloat(*pv), Argument::none()});
}

/// torch._weight_norm(v, g, dim=0): w of _weight_norm_interface(v, g, dim).
Expected<Argument> weightNorm(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"v", "g", "dim"});
    if (!p.ok()) return p.error();
    auto v = needTensor(c, (*p)[0], "v");
    if (!v.ok()) return v;
    auto g = needTensor(c, (*p)[1], "g");
    if (!g.ok()) return g;
    auto dim = (*p)[2] ? intOf((*p)[2]) : std::optional<int64_t>(0);
    if (!dim) return makeError("dim must be an int");
    auto r = c.emit("aten._weight_norm_interface.default", {*v, *g, Argument::ofInt(*dim)});
    if (!r.ok()) return r;
    return c.emitItem(*r, 0);
}

/// F.embedding_bag(input, weight, offsets, max_norm, norm_type, scale_grad_by_freq, mode, sparse,
/// per_sample_weights, include_last_offset, padding_idx): _embedding_bag's item 0; a 2-D input is
/// one bag per row (offsets 0, n, 2n, ... and the input and weights flattened, as F does).
Expected<Argument> embeddingBag(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "weight", "offsets", "max_norm", "norm_type", "scale_grad_by_freq", "mode", "sparse",
                        "per_sample_weights", "include_last_offset", "padding_idx"});
    if (!p.ok()) return p.error();
    auto in = needTensor(c, (*p)[0], "input");
    if (!in.ok()) return in;
    auto w = needTensor(c, (*p)[1], "weight");
    if (!w.ok()) return w;
    if (given((*p)[3])) return makeError("max_norm is not supported (it renormalises the weight in place)");
    const std::string mode = (*p)[6] && (*p)[6]->kind == Argument::Kind::String ? (*p)[6]->s : "mean";
    const int64_t modeEnum = mode == "sum" ? 0 : mode == "mean" ? 1 : mode == "max" ? 2 : -1;
    if (modeEnum < 0) return makeError("mode must be 'sum', 'mean' or 'max'");
    auto scale = boolOf((*p)[5], false);
    auto sparse = boolOf((*p)[7], false);
    auto last = boolOf((*p)[9], false);
    auto pad = given((*p)[10]) ? intOf((*p)[10]) : std::optional<int64_t>(-1);
    if (!scale || !sparse || !last || !pad) return makeError("bad embedding_bag arguments");
    auto im = c.tensorMeta(*in);
    Argument indices = *in, offsets = orNone((*p)[2]), psw = orNone((*p)[8]);
    if (im->dim() == 2) {
        if (given((*p)[2])) return makeError("offsets must be None for a 2-D input");
        auto flat = c.emit("aten.reshape.default", {*in, Argument::ofList({Argument::ofInt(-1)})});
        if (!flat.ok()) return flat;
        indices = *flat;
        auto o = c.emit("aten.arange.start_step",
                        {Argument::ofInt(0), Argument::ofInt(im->numel()), Argument::ofInt(im->shape[1])},
                        {{"dtype", Argument::ofDType(im->dtype)}, {"device", Argument::ofDevice(im->device)}});
        if (!o.ok()) return o;
        offsets = *o;
        if (given((*p)[8])) {
            auto f = c.emit("aten.reshape.default", {psw, Argument::ofList({Argument::ofInt(-1)})});
            if (!f.ok()) return f;
            psw = *f;
        }
    } else if (im->dim() != 1 || !given((*p)[2])) {
        return makeError("a 1-D input needs offsets");
    }
    if (*pad < 0 && given((*p)[10])) *pad += c.tensorMeta(*w)->shape[0];
    auto r = c.emit("aten._embedding_bag.default",
                    {*w, indices, offsets, Argument::ofBool(*scale), Argument::ofInt(modeEnum),
                     Argument::ofBool(*sparse), psw, Argument::ofBool(*last), Argument::ofInt(*pad)});
    if (!r.ok()) return r;
    return c.emitItem(*r, 0);
}

/// F.adaptive_avg_pool3d(input, output_size): _adaptive_avg_pool3d (an int is used for all three dims).
Expected<Argument> adaptiveAvgPool3d(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "output_size"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto size = (*p)[1] ? intList(*(*p)[1], 3) : std::nullopt;
    if (!size) return makeError("output_size must be an int or three ints");
    return c.emit("aten._adaptive_avg_pool3d.default", {*x, *size});
}

/// F.l1_loss(input, target, size_average, reduce, reduction='mean'): |input - target| reduced.
Expected<Argument> l1Loss(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "target", "size_average", "reduce", "reduction"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    auto t = needTensor(c, (*p)[1], "target");
    if (!t.ok()) return t;
    if (given((*p)[2]) || given((*p)[3])) return makeError("size_average and reduce are not supported");
    auto red = reductionOf((*p)[4]);
    if (!red) return makeError("reduction must be 'none', 'mean' or 'sum'");
    auto d = c.emit("aten.sub.Tensor", {*x, *t});
    if (!d.ok()) return d;
    auto a = c.emit("aten.abs.default", {*d});
    if (!a.ok() || *red == 0) return a;
    return c.emit(*red == 1 ? "aten.mean.default" : "aten.sum.default", {*a});
}

/// F.scaled_dot_product_attention(query, key, value, ...): ATen's op as it is for 4-D operands;
/// query/key/value of 3 dims ([B, L, E]: MobileViT's single head) get a leading dim of 1 (a
/// mask broadcasts against it unchanged) and lose it after. A boolean attn_mask becomes the
/// additive mask SDPA itself makes of it (convert_boolean_attn_mask: 0 where True, -inf where
/// False, in the query's dtype), so that the devices' fused kernels, which take float biases,
/// run it (BART's cross-attention padding mask ran on the host).
Expected<Argument> sdpa(LowerCtx& c, const TorchCall& call) {
    TorchCall k = call;
    // enable_gqa=True (HF's SDPA path for Llama/Mistral/Qwen without a mask): key and value with
    // fewer heads than the query are repeated head by head (repeat_interleave over dim -3, what
    // SDPA's math path does), and the flag is dropped.
    bool gqa = false;
    for (auto it = k.kwargs.begin(); it != k.kwargs.end();) {
        if (it->first != "enable_gqa") {
            ++it;
            continue;
        }
        auto v = boolOf(&it->second, false);
        if (!v) return makeError("enable_gqa must be a bool");
        gqa = *v;
        it = k.kwargs.erase(it);
    }
    if (gqa && k.args.size() >= 3) {
        auto qm = c.tensorMeta(k.args[0]);
        for (size_t i = 1; i < 3 && qm; ++i) {
            auto m = c.tensorMeta(k.args[i]);
            if (!m || m->dim() < 3 || m->dim() != qm->dim()) return makeError("enable_gqa needs query, key and value of the same rank");
            const size_t hd = static_cast<size_t>(m->dim() - 3);
            const int64_t hq = qm->shape[hd], hk = m->shape[hd];
            if (hk == hq) continue;
            if (hk <= 0 || hq % hk != 0)
                return makeError("enable_gqa: the query's heads must be a multiple of the key's and value's");
            std::vector<Argument> ex, to;
            for (size_t d = 0; d < m->shape.size(); ++d) {
                if (d == hd) ex.push_back(Argument::ofInt(hk)), ex.push_back(Argument::ofInt(hq / hk));
                else ex.push_back(Argument::ofInt(m->shape[d]));
                to.push_back(Argument::ofInt(d == hd ? hq : m->shape[d]));
            }
            auto u = c.emit("aten.unsqueeze.default", {k.args[i], Argument::ofInt(static_cast<int64_t>(hd) + 1)});
            if (!u.ok()) return u;
            auto e = c.emit("aten.expand.default", {*u, Argument::ofList(std::move(ex))});
            if (!e.ok()) return e;
            auto r = c.emit("aten.reshape.default", {*e, Argument::ofList(std::move(to))});
            if (!r.ok()) return r;
            k.args[i] = *r;
        }
    }
    Argument* mask = k.args.size() > 3 ? &k.args[3] : nullptr;
    for (auto& [key, v] : k.kwargs)
        if (key == "attn_mask") mask = &v;
    auto mm = mask && c.isTensor(*mask) ? c.tensorMeta(*mask) : std::nullopt;
    auto q0 = k.args.empty() ? std::nullopt : c.tensorMeta(k.args[0]);
    if (mm && q0 && mm->dtype == DType::Bool && isFloating(q0->dtype)) {
        auto z = c.emit("aten.zeros_like.default", {*mask}, {{"dtype", Argument::ofDType(q0->dtype)}});
        if (!z.ok()) return z;
        auto off = c.emit("aten.logical_not.default", {*mask});
        if (!off.ok()) return off;
        auto bias = c.emit("aten.masked_fill.Scalar", {*z, *off, Argument::ofFloat(-INFINITY)});
        if (!bias.ok()) return bias;
        *mask = *bias;
    }
    if (k.args.size() < 3) return lowerGeneric(c, k, "scaled_dot_product_attention");
    auto qm = c.tensorMeta(k.args[0]), km = c.tensorMeta(k.args[1]), vm = c.tensorMeta(k.args[2]);
    if (!qm || !km || !vm || qm->dim() != 3 || km->dim() != 3 || vm->dim() != 3)
        return lowerGeneric(c, k, "scaled_dot_product_attention");
    for (size_t i = 0; i < 3; ++i) {
        auto u = c.emit("aten.unsqueeze.default", {k.args[i], Argument::ofInt(0)});
        if (!u.ok()) return u;
        k.args[i] = *u;
    }
    auto r = lowerGeneric(c, k, "scaled_dot_product_attention");
    if (!r.ok()) return r;
    return c.emit("aten.squeeze.dim", {*r, Argument::ofInt(0)});
}

/// F.unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> im2col and
/// F.fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> col2im (ints or
/// pairs, as F passes them on).
template <bool Fold>
Expected<Argument> foldOrUnfold(LowerCtx& c, const TorchCall& call) {
    auto p = Fold ? call.bind({"input", "output_size", "kernel_size", "dilation", "padding", "stride"})
                  : call.bind({"input", "kernel_size", "dilation", "padding", "stride"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    const size_t f = Fold ? 1 : 0;
    std::vector<Argument> args{*x};
    if (Fold) {
        auto os = (*p)[1] ? intList(*(*p)[1], 2) : std::nullopt;
        if (!os) return makeError("output_size must be an int or a pair");
        args.push_back(*os);
    }
    const int64_t dflt[4] = {-1, 1, 0, 1};
    for (size_t i = 0; i < 4; ++i) {
        const Argument* a = (*p)[f + 1 + i];
        auto v = a ? intList(*a, 2) : dflt[i] < 0 ? std::nullopt : intList(Argument::ofInt(dflt[i]), 2);
        if (!v) return makeError("kernel_size, dilation, padding and stride must be ints or pairs");
        args.push_back(*v);
    }
    return c.emit(Fold ? "aten.col2im.default" : "aten.im2col.default", std::move(args));
}

const std::unordered_map<std::string_view, Rule>& table() {
    static const std::unordered_map<std::string_view, Rule> t = {
        {"torch._C._nn.linear", linear},
        {"torch.nn.functional.linear", linear},
        {"torch.nn.functional.relu", activationInplace<kRelu, kReluInplace>},
        {"torch.nn.functional.silu", activationInplace<kSilu, kSiluInplace>},
        {"torch.nn.functional.leaky_relu", leakyRelu},
        {"torch._C._nn.gelu", gelu},
        {"torch.nn.functional.gelu", gelu},
        {"torch.nn.functional.dropout", dropout},
        {"torch.nn.functional.softmax", softmax<false, true>},
        {"torch.nn.functional.log_softmax", softmax<true, true>},
        {"torch.softmax", softmax<false, false>},
        {"torch.log_softmax", softmax<true, false>},
        {"torch.nn.functional.layer_norm", layerNorm},
        {"torch.nn.functional.batch_norm", batchNorm},
        {"torch.nn.functional.embedding", embedding},
        {"torch.conv1d", conv<1>},
        {"torch.conv2d", conv<2>},
        {"torch.conv3d", conv<3>},
        {"torch.nn.functional.conv1d", conv<1>},
        {"torch.nn.functional.conv2d", conv<2>},
        {"torch.nn.functional.conv3d", conv<3>},
        {"torch.nn.functional.max_pool2d", maxPool2d<false>},
        {"torch.nn.functional.max_pool2d_with_indices", maxPool2d<true>},
        {"torch.max_pool2d", maxPool2d<false>},
        {"torch.nn.functional.avg_pool2d", avgPool2d},
        {"torch._C._nn.avg_pool2d", avgPool2d},
        {"torch.nn.functional.adaptive_avg_pool2d", adaptivePool2d<false>},
        {"torch.nn.functional.adaptive_max_pool2d", adaptivePool2d<true>},
        {"torch.nn.functional.max_pool3d", maxPool3d},
        {"torch.nn.functional.unfold", foldOrUnfold<false>},
        {"torch.nn.functional.fold", foldOrUnfold<true>},
        {"torch._C._nn.scaled_dot_product_attention", sdpa},
        {"torch.nn.functional.scaled_dot_product_attention", sdpa},
        {"torch.nn.functional.adaptive_avg_pool3d", adaptiveAvgPool3d},
        {"torch._C._nn.avg_pool3d", functionalAsAten<kAvgPool3d>},
        {"torch.nn.functional.avg_pool3d", functionalAsAten<kAvgPool3d>},
        {"torch.nn.functional.l1_loss", l1Loss},
        {"torch.functional.einsum", einsum},
        {"torch.einsum", einsum},
        {"torch.functional.cdist", cdist},
        {"torch.cdist", cdist},
        {"torch._weight_norm", weightNorm},
        {"torch.nn.functional.embedding_bag", embeddingBag},
        {"torch.nn.functional.pad", pad},
        // F.pad calls this binding; Dynamo records it when it inlines F.pad (StyleGAN2, SAM).
        {"torch._C._nn.pad", pad},
        {"torch.where", where},
        {"torch.pow", pow},
        {"torch.arange", arange},
        {"torch.randperm", randperm},
        {"torch.tensor", tensorLiteral},
        {"torch.as_tensor", tensorLiteral},
        {"torch.Size", torchSize},
        {"torch.ones", factory<kOnes>},
        {"torch.zeros", factory<kZeros>},
        {"torch.empty", factory<kEmpty>},
        {"torch.rand", factory<kRand>},
        {"torch.randn", factory<kRandn>},
        {"torch.min", minMax<false>},
        {"torch.max", minMax<true>},
        {"torch.outer", outer},
        {"torch.repeat_interleave", lowerRepeatInterleave},
        {"torch.lstm_cell", lstmCell},
        {"torch.gru_cell", gruCell},
        {"torch.lstm", rnn<true>},
        {"torch.gru", rnn<false>},
        {"torch.nn.functional.interpolate", interpolate},
        {"torch.nn.functional.grid_sample", gridSample},
        {"torch.nn.functional.multi_head_attention_forward", lowerMultiHeadAttention},
        {"torch.nn.functional.hardswish", functionalAsAten<kHardswish>},
        {"torch.nn.functional.hardsigmoid", functionalAsAten<kHardsigmoid>},
        {"torch.nn.functional.mish", functionalAsAten<kMish>},
        {"torch.nn.functional.softplus", functionalAsAten<kSoftplus>},
        {"torch._C._nn.softplus", functionalAsAten<kSoftplus>},
        {"torch.nn.functional.elu", functionalAsAten<kElu>},
        {"torch.nn.functional.glu", functionalAsAten<kGlu>},
        {"torch.nn.functional.group_norm", functionalAsAten<kGroupNorm>},
        {"torch.nn.functional.relu6", relu6},
        {"torch._C._set_grad_enabled", dropCall},
        {"torch.amp.autocast_mode._enter_autocast", enterAutocast},
        {"torch.amp.autocast_mode._exit_autocast", exitAutocast},
        {"torch._assert", dropCall},
        {"torch._assert_async", dropCall},
        {"torch._check", dropCall},
        {"torch._check_is_size", dropCall},
        {"torch._constrain_as_size", dropCall},
        {"torch.sym_constrain_range_for_size", dropCall},
        {"torch._C._log_api_usage_once", dropCall},
        {"torch.autograd.grad_mode._enter_inference_mode", dropCall},
        {"torch.autograd.grad_mode._exit_inference_mode", dropCall},
    };
    return t;
}

}  // namespace

Expected<Argument> lowerRepeatInterleave(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"input", "repeats", "dim", "output_size"});
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x;
    return repeatInterleaveInt(c, *x, (*p)[1], (*p)[2]);
}

Rule findFunctionRule(std::string_view target) {
    auto it = table().find(target);
    return it == table().end() ? findPopularFunctionRule(target) : it->second;
}

}  // namespace fxray::lowering
