// Lowering rules for Tensor methods (`x.view(2, 3)`, `x.to(torch.float16)`, `x.size(1)`).
// Methods whose Python signature is the ATen schema with `self` first (transpose, unsqueeze,
// relu, add_, flatten, ...) go through lowerGeneric; the rules here handle varargs sizes,
// conversions, folded size queries and methods whose operand order differs from ATen's.
#include "import/dynamo_lowering_internal.h"

#include <unordered_map>

namespace fxray::lowering {
namespace {

using Args = std::vector<Argument>;

/// x.view(*size) / reshape / expand / permute / repeat: varargs or one sequence.
template <const char* Op>
Expected<Argument> sized(LowerCtx& c, const TorchCall& call) {
    if (call.args.empty() || !c.isTensor(call.args[0])) return makeError("expects a tensor");
    std::optional<Argument> sizes;
    if (call.args.size() == 1) {
        for (const auto& [k, v] : call.kwargs)
            if (k == "size" || k == "shape" || k == "dims" || k == "repeats") sizes = intList(v);
    } else {
        if (call.args[1].kind == Argument::Kind::DType)
            return makeError("reinterpreting a tensor as another dtype is not supported");
        sizes = varargSizes(call, 1);
    }
    for (const auto& [k, v] : call.kwargs)
        if (k != "size" && k != "shape" && k != "dims" && k != "repeats" && k != "implicit")
            return makeError("unexpected keyword argument '" + k + "'");
    if (!sizes) return makeError("sizes must be ints");
    return c.emit(Op, {call.args[0], *sizes});
}
constexpr char kView[] = "aten.view.default";
constexpr char kReshape[] = "aten.reshape.default";
constexpr char kExpand[] = "aten.expand.default";
constexpr char kPermute[] = "aten.permute.default";
constexpr char kRepeat[] = "aten.repeat.default";

Expected<Argument> expandAs(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"self", "other"});
    if (!p.ok()) return p.error();
    auto m = (*p)[1] ? c.tensorMeta(*(*p)[1]) : std::nullopt;
    if (!(*p)[0] || !m) return makeError("expects two tensors");
    auto sizes = c.sizeArgs(*(*p)[1]);
    if (!sizes.ok()) return sizes.error();
    return c.emit("aten.expand.default", {*(*p)[0], Argument::ofList(std::move(sizes).value())});
}

Expected<Argument> viewAs(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"self", "other"});
    if (!p.ok()) return p.error();
    auto m = (*p)[1] ? c.tensorMeta(*(*p)[1]) : std::nullopt;
    if (!(*p)[0] || !m) return makeError("expects two tensors");
    auto sizes = c.sizeArgs(*(*p)[1]);
    if (!sizes.ok()) return sizes.error();
    return c.emit("aten.view.default", {*(*p)[0], Argument::ofList(std::move(sizes).value())});
}

Expected<Argument> contiguous(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"self", "memory_format"});
    if (!p.ok()) return p.error();
    if (!(*p)[0] || !c.isTensor(*(*p)[0])) return makeError("expects a tensor");
    Args args{*(*p)[0]};
    std::vector<std::pair<std::string, Argument>> kw;
    if ((*p)[1] && !(*p)[1]->isNone()) {
        if ((*p)[1]->kind != Argument::Kind::MemoryFormat)
            return makeError("memory_format must be a torch.memory_format");
        if ((*p)[1]->memoryFormat != MemoryFormat::Contiguous) kw.emplace_back("memory_format", *(*p)[1]);
    }
    // Tensor.contiguous() returns self when the tensor already is (PyTorch records no op).
    auto m = c.tensorMeta(*(*p)[0]);
    if (kw.empty() && m && m->stridesKnown && m->strides.size() == m->shape.size() && m->isContiguous())
        return *(*p)[0];
    return c.emit("aten.contiguous.default", std::move(args), std::move(kw));
}

Expected<Argument> split(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"self", "split_size", "dim"});
    if (!p.ok()) return p.error();
    if (!(*p)[0] || !c.isTensor(*(*p)[0]) || !(*p)[1]) return makeError("expects a tensor and a split size");
    Args args{*(*p)[0], *(*p)[1]};
    if ((*p)[2]) {
        if (!intOf((*p)[2])) return makeError("dim must be an int");
        args.push_back(*(*p)[2]);
    }
    if ((*p)[1]->kind == Argument::Kind::Int) return c.emit("aten.split.Tensor", std::move(args));
    auto sizes = intList(*(*p)[1]);
    if (!sizes) return makeError("split_size must be an int or a list of ints");
    args[1] = *sizes;
    return c.emit("aten.split_with_sizes.default", std::move(args));
}

/// sum / mean (self, dim=None, keepdim=False, *, dtype=None).
template <bool Mean>
Expected<Argument> reduce(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"self", "dim", "keepdim", "dtype"});
    if (!p.ok()) return p.error();
    if (!(*p)[0] || !c.isTensor(*(*p)[0])) return makeError("expects a tensor");
    std::vector<std::pair<std::string, Argument>> kw;
    if ((*p)[3] && !(*p)[3]->isNone()) {
        if ((*p)[3]->kind != Argument::Kind::DType) return makeError("dtype must be a torch dtype");
        kw.emplace_back("dtype", *(*p)[3]);
    }
    auto keepdim = boolOf((*p)[2], false);
    if (!keepdim) return makeError("keepdim must be a bool");
    const char* all = Mean ? "aten.mean.default" : "aten.sum.default";
    const char* dims = Mean ? "aten.mean.dim" : "aten.sum.dim_IntList";
    if (!(*p)[1] || (*p)[1]->isNone()) {
        if (*keepdim) return makeError("keepdim without dim is not supported");
        return c.emit(all, {*(*p)[0]}, std::move(kw));
    }
    auto d = intList(*(*p)[1]);
    if (!d) return makeError("dim must be an int or a sequence of ints");
    Args args{*(*p)[0], *d};
    if (*keepdim) args.push_back(Argument::ofBool(true));
    return c.emit(dims, std::move(args), std::move(kw));
}

/// x.type(dtype): a conversion, or x itself when it already has that dtype.
Expected<Argument> typeMethod(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"self", "dtype", "non_blocking"});
    if (!p.ok()) return p.error();
    if (!(*p)[0]) return makeError("expects a tensor");
    if (!(*p)[1] || (*p)[1]->kind != Argument::Kind::DType)
        return makeError("only x.type(<torch dtype>) is supported (the string forms are not)");
    return convertTo(c, *(*p)[0], (*p)[1]->dtype, std::nullopt, false, std::nullopt);
}

/// x.to(dtype) / x.to(device, dtype) / x.to(other) with copy=, non_blocking=, memory_format=.
Expected<Argument> toMethod(LowerCtx& c, const TorchCall& call) {
    if (call.args.empty() || !c.isTensor(call.args[0])) return makeError("expects a tensor");
    std::optional<DType> dtype;
    std::optional<Device> device;
    std::optional<MemoryFormat> mf;
    bool copy = false;
    int bools = 0;
    auto take = [&](const Argument& a, const std::string& key) -> std::optional<std::string> {
        if (a.isNone()) return std::nullopt;
        if (a.kind == Argument::Kind::DType && (key.empty() || key == "dtype"))
            dtype = a.dtype;
        else if (a.kind == Argument::Kind::Device && (key.empty() || key == "device"))
            device = a.device;
        else if (a.kind == Argument::Kind::String && (key.empty() || key == "device")) {
            auto d = parseDevice(a.s);
            if (!d) return "unknown device '" + a.s + "'";
            device = *d;
        } else if (a.isNode() && key.empty()) {
            auto m = c.tensorMeta(a);
            if (!m) return std::string("to(other) needs a tensor");
            dtype = m->dtype;
            device = m->device;
        } else if (a.kind == Argument::Kind::Bool && (key.empty() || key == "copy" || key == "non_blocking")) {
            // Positional bools are (non_blocking, copy).
            if (key == "copy" || (key.empty() && bools++ == 1)) copy = a.b;
        } else if (a.kind == Argument::Kind::MemoryFormat && key == "memory_format") {
            mf = a.memoryFormat;
        } else {
            return "unsupported argument " + a.repr();
        }
        return std::nullopt;
    };
    for (size_t i = 1; i < call.args.size(); ++i)
        if (auto err = take(call.args[i], "")) return makeError(*err);
    for (const auto& [k, v] : call.kwargs) {
        if (k != "dtype" && k != "device" && k != "copy" && k != "non_blocking" && k != "memory_format")
            return makeError("unexpected keyword argument '" + k + "'");
        if (auto err = take(v, k)) return makeError(*err);
    }
    return convertTo(c, call.args[0], dtype, device, copy, mf);
}

/// x.float() / x.half() / ... (memory_format=).
template <DType T>
Expected<Argument> castMethod(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"self", "memory_format"});
    if (!p.ok()) return p.error();
    if (!(*p)[0]) return makeError("expects a tensor");
    std::optional<MemoryFormat> mf;
    if ((*p)[1] && (*p)[1]->kind == Argument::Kind::MemoryFormat) mf = (*p)[1]->memoryFormat;
    return convertTo(c, *(*p)[0], T, std::nullopt, false, mf);
}

/// x.size() / x.size(d): folded to ints where static; a symbolic size is an
/// `aten.sym_size.int` node (torch.export's form).
Expected<Argument> sizeMethod(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"self", "dim"});
    if (!p.ok()) return p.error();
    auto m = (*p)[0] ? c.tensorMeta(*(*p)[0]) : std::nullopt;
    if (!m) return makeError("expects a tensor");
    if (!(*p)[1] || (*p)[1]->isNone()) {
        auto items = c.sizeArgs(*(*p)[0]);
        if (!items.ok()) return items.error();
        return Argument::ofList(std::move(items).value(), true);
    }
    auto d = intOf((*p)[1]);
    if (!d) return makeError("dim must be an int");
    return c.sizeArg(*(*p)[0], *d);
}

template <int What>  // 0: dim(), 1: numel()
Expected<Argument> countMethod(LowerCtx& c, const TorchCall& call) {
    auto m = call.args.size() == 1 ? c.tensorMeta(call.args[0]) : std::nullopt;
    if (!m) return makeError("expects a tensor and no arguments");
    if (What == 0) return Argument::ofInt(m->dim());
    auto sm = c.symMeta(call.args[0]);
    if (sm && sm->hasSymbolicSizes()) return c.emit("aten.sym_numel.default", {call.args[0]});
    return Argument::ofInt(m->numel());
}

/// x.where(condition, y) is torch.where(condition, x, y).
Expected<Argument> whereMethod(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"self", "condition", "other"});
    if (!p.ok()) return p.error();
    if (!(*p)[0] || !(*p)[1] || !(*p)[2]) return makeError("expects condition and other");
    TorchCall fn;
    fn.node = call.node;
    fn.target = "torch.where";
    fn.args = {*(*p)[1], *(*p)[0], *(*p)[2]};
    return findFunctionRule("torch.where")(c, fn);
}

/// Methods that are the torch function of the same name with self as `input`.
template <const char* Fn>
Expected<Argument> asFunction(LowerCtx& c, const TorchCall& call) {
    TorchCall fn = call;
    fn.method = false;
    fn.target = Fn;
    return findFunctionRule(Fn)(c, fn);
}
constexpr char kSoftmax[] = "torch.softmax";
constexpr char kLogSoftmax[] = "torch.log_softmax";
constexpr char kPow[] = "torch.pow";

Expected<Argument> dataDependent(LowerCtx&, const TorchCall&) {
    return makeError("the result depends on tensor data (a graph break in Dynamo); not supported");
}

/// x.nonzero(), x.argwhere(), x.bincount(): Dynamo keeps them only with
/// capture_dynamic_output_shape_ops, annotating the result's length as an unbacked u0; without
/// that annotation the call was a graph break. torch.nonzero(x, as_tuple=True) is refused.
template <const char* Aten>
Expected<Argument> dataSized(LowerCtx& c, const TorchCall& call) {
    if (!call.node || !c.annotatesUnbackedTensor(*call.node))
        return makeError("the result's size depends on tensor data, and the graph does not annotate it as an unbacked "
                         "size (u0; Dynamo's capture_dynamic_output_shape_ops); not supported");
    return lowerGeneric(c, call, Aten);
}
constexpr char kNonzero[] = "nonzero";
constexpr char kBincount[] = "bincount";

/// x.item(): Dynamo keeps it in the graph only when it captured the scalar (the node is a
/// SymInt/SymFloat, "Sym(zf0)"); torch.export records aten.item. Otherwise it was a graph break.
Expected<Argument> item(LowerCtx& c, const TorchCall& call) {
    const std::string& ann = call.node ? call.node->annotationText : std::string();
    if (ann.rfind("Sym(", 0) != 0) return dataDependent(c, call);
    if (call.args.size() != 1 || !call.kwargs.empty() || !c.isTensor(call.args[0]))
        return makeError("expects a tensor");
    return c.emit("aten.item.default", {call.args[0]});
}

/// x.new_zeros(2, 3) / new_ones / new_empty: varargs sizes as ATen's one size list.
template <const char* Aten>
Expected<Argument> newSized(LowerCtx& c, const TorchCall& call) {
    if (call.args.empty() || !c.isTensor(call.args[0])) return makeError("expects a tensor");
    TorchCall k = call;
    if (!(call.args.size() == 2 && call.args[1].isSequence())) {
        auto sizes = varargSizes(call, 1);
        if (!sizes) return makeError("sizes must be ints");
        k.args = {call.args[0], *sizes};
    }
    return lowerGeneric(c, k, Aten);
}
constexpr char kNewZeros[] = "new_zeros";
constexpr char kNewOnes[] = "new_ones";
constexpr char kNewEmpty[] = "new_empty";

/// x.__eq__(y) and the other comparison dunders (Dynamo records `mask == 0` on some values as
/// the method): the operator's rule.
template <const char* Op>
Expected<Argument> asOperator(LowerCtx& c, const TorchCall& call) {
    Rule r = findOperatorRule(Op);
    if (!r) return makeError(std::string("no rule for ") + Op);
    return r(c, call);
}
constexpr char kOpEq[] = "operator.eq";
constexpr char kOpNe[] = "operator.ne";
constexpr char kOpLt[] = "operator.lt";
constexpr char kOpLe[] = "operator.le";
constexpr char kOpGt[] = "operator.gt";
constexpr char kOpGe[] = "operator.ge";

const std::unordered_map<std::string_view, Rule>& table() {
    static const std::unordered_map<std::string_view, Rule> t = {
        {"view", sized<kView>},
        {"reshape", sized<kReshape>},
        {"expand", sized<kExpand>},
        {"permute", sized<kPermute>},
        {"repeat", sized<kRepeat>},
        {"repeat_interleave", lowerRepeatInterleave},
        {"new_zeros", newSized<kNewZeros>},
        {"new_ones", newSized<kNewOnes>},
        {"new_empty", newSized<kNewEmpty>},
        {"expand_as", expandAs},
        {"view_as", viewAs},
        {"reshape_as", viewAs},
        {"contiguous", contiguous},
        {"split", split},
        {"sum", reduce<false>},
        {"mean", reduce<true>},
        {"type", typeMethod},
        {"to", toMethod},
        {"float", castMethod<DType::Float32>},
        {"double", castMethod<DType::Float64>},
        {"half", castMethod<DType::Float16>},
        {"bfloat16", castMethod<DType::BFloat16>},
        {"long", castMethod<DType::Int64>},
        {"int", castMethod<DType::Int32>},
        {"short", castMethod<DType::Int16>},
        {"char", castMethod<DType::Int8>},
        {"byte", castMethod<DType::UInt8>},
        {"bool", castMethod<DType::Bool>},
        {"size", sizeMethod},
        {"dim", countMethod<0>},
        {"ndimension", countMethod<0>},
        {"numel", countMethod<1>},
        {"nelement", countMethod<1>},
        {"where", whereMethod},
        {"softmax", asFunction<kSoftmax>},
        {"log_softmax", asFunction<kLogSoftmax>},
        {"pow", asFunction<kPow>},
        {"item", item},
        {"__eq__", asOperator<kOpEq>},
        {"__ne__", asOperator<kOpNe>},
        {"__lt__", asOperator<kOpLt>},
        {"__le__", asOperator<kOpLe>},
        {"__gt__", asOperator<kOpGt>},
        {"__ge__", asOperator<kOpGe>},
        {"tolist", dataDependent},
        {"nonzero", dataSized<kNonzero>},
        {"argwhere", dataSized<kNonzero>},
        {"bincount", dataSized<kBincount>},
    };
    return t;
}

}  // namespace

Rule findMethodRule(std::string_view method) {
    auto it = table().find(method);
    return it == table().end() ? nullptr : it->second;
}

}  // namespace fxray::lowering
