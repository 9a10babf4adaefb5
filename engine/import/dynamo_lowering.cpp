#include "import/dynamo_lowering.h"

#include "exec/interpreter.h"
#include "exec/python_scalar_ops.h"
#include "exec/shape_binding.h"
#include "import/dynamo_lowering_internal.h"
#include "ir/op_registry.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace fxray {
namespace lowering {

// ---------------------------------------------------------------------------------------------
// TorchCall and shared helpers

Expected<std::vector<const Argument*>> TorchCall::bind(std::initializer_list<std::string_view> params) const {
    std::vector<std::string_view> names(params);
    std::vector<const Argument*> out(names.size(), nullptr);
    if (args.size() > names.size())
        return makeError("takes at most " + std::to_string(names.size()) + " positional arguments but " +
                         std::to_string(args.size()) + " were given");
    for (size_t i = 0; i < args.size(); ++i) out[i] = &args[i];
    for (const auto& [k, v] : kwargs) {
        auto it = std::find(names.begin(), names.end(), k);
        if (it == names.end()) return makeError("unexpected keyword argument '" + k + "'");
        size_t idx = static_cast<size_t>(it - names.begin());
        if (out[idx]) return makeError("got multiple values for argument '" + k + "'");
        out[idx] = &v;
    }
    return out;
}

std::optional<double> numberOf(const Argument* a) {
    if (!a) return std::nullopt;
    switch (a->kind) {
    case Argument::Kind::Int: return double(a->i);
    case Argument::Kind::Float: return a->f;
    case Argument::Kind::Bool: return a->b ? 1.0 : 0.0;
    default: return std::nullopt;
    }
}

std::optional<int64_t> intOf(const Argument* a) {
    if (!a) return std::nullopt;
    if (a->kind == Argument::Kind::Int) return a->i;
    if (a->kind == Argument::Kind::Bool) return a->b ? 1 : 0;
    return std::nullopt;
}

std::optional<bool> boolOf(const Argument* a, bool def) {
    if (!a || a->isNone()) return def;
    if (a->kind == Argument::Kind::Bool) return a->b;
    if (a->kind == Argument::Kind::Int) return a->i != 0;
    return std::nullopt;
}

bool given(const Argument* a) { return a && !a->isNone(); }

Expected<Argument> needTensor(LowerCtx& c, const Argument* a, const char* what) {
    if (!a || !c.isTensor(*a)) return makeError(std::string(what) + " must be a tensor");
    return *a;
}

Expected<InputCall> bindInput(LowerCtx& c, const TorchCall& call, std::initializer_list<std::string_view> names) {
    auto p = call.bind(names);
    if (!p.ok()) return p.error();
    auto x = needTensor(c, (*p)[0], "input");
    if (!x.ok()) return x.error();
    auto m = c.tensorMeta(*x);
    if (!m) return makeError("input must be a tensor");
    return InputCall{*x, *m, std::move(p).value()};
}

std::optional<int64_t> reductionOf(const Argument* a) {
    if (!a) return 1;
    if (a->kind != Argument::Kind::String) return std::nullopt;
    if (a->s == "none") return 0;
    if (a->s == "mean") return 1;
    if (a->s == "sum") return 2;
    return std::nullopt;
}

namespace {
bool isSizeItem(const Argument& a) {
    return a.kind == Argument::Kind::Int || a.isNode() || a.kind == Argument::Kind::Sym;
}
}  // namespace

std::optional<Argument> intList(const Argument& a, size_t n) {
    if (a.kind == Argument::Kind::Int) return Argument::ofList(std::vector<Argument>(n, a));
    if (!a.isSequence()) return std::nullopt;
    for (const auto& it : a.items)
        if (!isSizeItem(it)) return std::nullopt;
    return Argument::ofList(a.items);
}

std::optional<Argument> varargSizes(const TorchCall& call, size_t first) {
    if (call.args.size() == first + 1 && call.args[first].isSequence()) return intList(call.args[first]);
    std::vector<Argument> items;
    for (size_t i = first; i < call.args.size(); ++i) {
        if (!isSizeItem(call.args[i])) return std::nullopt;
        items.push_back(call.args[i]);
    }
    return Argument::ofList(std::move(items));
}

Argument asFloat(const Argument& a) {
    if (a.kind == Argument::Kind::Int) return Argument::ofFloat(double(a.i));
    if (a.kind == Argument::Kind::Bool) return Argument::ofFloat(a.b ? 1.0 : 0.0);
    return a;
}

Expected<Argument> convertTo(LowerCtx& c, const Argument& x, std::optional<DType> dtype, std::optional<Device> device,
                             bool copy, std::optional<MemoryFormat> memoryFormat) {
    auto m = c.tensorMeta(x);
    if (!m) return makeError("expects a tensor");
    bool sameDtype = !dtype || *dtype == m->dtype;
    // "cuda" names the current device: it matches cuda:0 (the tensor's index may be unknown too).
    // Without devices in the annotations (print_readable without them) the tensor's device is
    // unknown; a device move does not change values, so it is taken as no move.
    bool sameDevice = !device || !c.devicesKnown() ||
                      (device->type == m->device.type &&
                       (device->index == m->device.index || device->index < 0 || m->device.index < 0));
    bool keepFormat = !memoryFormat || *memoryFormat == MemoryFormat::Preserve;
    if (sameDtype && sameDevice && keepFormat && !copy) return x;  // Tensor.to returns self
    std::vector<std::pair<std::string, Argument>> kw;
    if (dtype && (!sameDtype || copy)) kw.emplace_back("dtype", Argument::ofDType(*dtype));
    if (device && !sameDevice) kw.emplace_back("device", Argument::ofDevice(*device));
    if (memoryFormat) kw.emplace_back("memory_format", Argument::ofMemoryFormat(*memoryFormat));
    return c.emit("aten._to_copy.default", {x}, std::move(kw));
}

// ---------------------------------------------------------------------------------------------
// LowerCtx

namespace {

/// FX never names a node after a Python builtin or keyword: `sum` becomes `sum_1`.
bool isPythonBuiltin(std::string_view s) {
    static const std::unordered_set<std::string_view> names = {
        "abs",    "all",   "any",    "bool",   "float", "int",   "len",  "list",  "max",    "min", "pow", "range",
        "round",  "slice", "sum",    "tuple",  "type",  "input", "iter", "map",   "filter", "zip", "id",  "hash",
        "format", "print", "object", "str",    "set",   "dict",  "and",  "or",    "not",    "is",  "in",  "del",
        "def",    "class", "return", "lambda", "pass",  "with",  "for",  "while", "if",     "else"};
    return names.count(s) > 0;
}

std::string opBaseName(std::string_view qualname) {
    // "aten.add.Tensor" -> "add"
    auto a = qualname.find('.');
    auto b = qualname.find('.', a + 1);
    if (a == std::string_view::npos) return std::string(qualname);
    return std::string(qualname.substr(a + 1, b == std::string_view::npos ? std::string_view::npos : b - a - 1));
}

/// Whether an emitted argument equals a schema default (`[1, 1]` equals `int[2] dilation=1`,
/// `1e-05` equals `float eps=1e-05` whether written as int or float).
bool equalsDefault(const Argument& a, const SchemaArg& formal) {
    if (!formal.hasDefault) return false;
    const Argument& d = formal.defaultValue;
    if (a.sameAs(d)) return true;
    if (a.isNumber() && d.isNumber() && a.kind != Argument::Kind::Bool && d.kind != Argument::Kind::Bool)
        return *numberOf(&a) == *numberOf(&d);
    if (a.isSequence() && d.kind == Argument::Kind::Int && !a.items.empty()) {
        for (const auto& it : a.items)
            if (it.kind != Argument::Kind::Int || it.i != d.i) return false;
        return true;
    }
    return false;
}

/// FX prints ATen calls the way make_fx/export record them: trailing positional arguments equal
/// to the schema's defaults are left out.
void trimTrailingDefaults(std::vector<Argument>& args, const Schema& schema) {
    while (!args.empty() && args.size() <= schema.args.size() && !schema.args[args.size() - 1].kwOnly &&
           equalsDefault(args.back(), schema.args[args.size() - 1]))
        args.pop_back();
}

}  // namespace

LowerCtx::LowerCtx(Graph& g) : m_g(g) {
    for (Node* ph : g.placeholders())
        m_devicesKnown = m_devicesKnown || (!ph->meta.empty() && ph->annotated && ph->meta[0].deviceKnown);
    initBindings();
}

void LowerCtx::begin(Node* n) {
    m_cur = n;
    m_emitted.clear();
    m_emittedConstants.clear();
}

Value LowerCtx::valueUnder(const Argument& a, size_t k) const {
    switch (a.kind) {
    case Argument::Kind::NodeRef: {
        if (k > 0) {
            // Probe bindings: symbolic annotations (the file's, or recovered at emit) say how
            // the value changes with the sizes; anything else is the same at every size.
            Value v = annotationUnder(*a.node, k);
            if (!v.isNone()) return v;
        }
        auto it = m_values.find(a.node);
        if (it != m_values.end()) return it->second;
        return annotationUnder(*a.node, 0);
    }
    case Argument::Kind::List:
    case Argument::Kind::Tuple:
    case Argument::Kind::Slice: {
        std::vector<Value> items;
        for (const auto& it : a.items) items.push_back(valueUnder(it, k));
        Value v = Value::ofList(std::move(items), a.kind == Argument::Kind::Tuple);
        if (a.kind == Argument::Kind::Slice) v.kind = Value::Kind::Slice;
        return v;
    }
    default: return argumentValue(a, {});
    }
}

std::optional<TensorMeta> LowerCtx::tensorMeta(const Argument& a) const {
    if (!a.isNode()) return std::nullopt;
    Value v = valueOf(a);
    if (!v.isTensor()) return std::nullopt;
    return v.t.meta;
}

Expected<Argument> LowerCtx::emit(std::string_view qualname, std::vector<Argument> args,
                                  std::vector<std::pair<std::string, Argument>> kwargs) {
    const OpInfo* op = OpRegistry::instance().find(qualname);
    if (!op) return makeError("needs '" + std::string(qualname) + "', which fxray does not implement");
    std::vector<Value> pv;
    for (const auto& a : args) pv.push_back(valueOf(a));
    std::vector<std::pair<std::string, Value>> kv;
    for (const auto& [k, a] : kwargs) kv.emplace_back(k, valueOf(a));
    auto bound = bindArgs(*op, std::move(pv), std::move(kv));
    if (!bound.ok()) return makeError(bound.error().message);
    // Python tuples passed for list parameters (`torch.cat((a, b), dim=-1)`) are lists in ATen
    // graphs, as PyTorch's own lowering writes them; the backends read Tensor[] arguments as lists.
    auto listify = [&](Argument& a, int index) {
        if (a.kind == Argument::Kind::Tuple && index >= 0 && static_cast<size_t>(index) < op->schema.args.size() &&
            op->schema.args[static_cast<size_t>(index)].type.find('[') != std::string::npos)
            a.kind = Argument::Kind::List;
    };
    for (size_t i = 0; i < args.size(); ++i) listify(args[i], static_cast<int>(i));
    for (auto& [k, a] : kwargs) listify(a, op->schema.indexOf(k));
    Value out;
    bool dataSized = false;
    if (op->meta) {
        auto m = op->meta(*bound);
        if (m.ok()) {
            out = std::move(m).value();
        } else if (annotatesUnbackedTensor(*m_cur)) {
            // Dynamo captured an output whose size the data gives (nonzero, masked_select with
            // capture_dynamic_output_shape_ops): its annotation names an unbacked u0, and the
            // op's meta, which needs values, cannot say more than that annotation does.
            out = annotationUnder(*m_cur, 0);
            dataSized = true;
        } else if (qualname == "aten.item.default" || qualname == "aten._local_scalar_dense.default") {
            // x.item() has no value before run time; PyTorch named it ("Sym(zf0)"), and the
            // binding gives that symbol a stand-in.
            out = annotationUnder(*m_cur, 0);
            if (!out.isNumber()) out = Value::ofDouble(1.0);
        } else {
            return makeError(std::string(qualname) + ": " + m.error().message);
        }
    }
    // Dynamic shapes: the same call at the probe sizes, to tell symbolic sizes from static ones.
    std::array<Value, 2> probes;
    if (dataSized) {
        for (size_t k = 1; k <= 2; ++k) probes[k - 1] = annotationUnder(*m_cur, k);
    } else if (m_symbolic && op->meta) {
        for (size_t k = 1; k <= 2; ++k) {
            std::vector<Value> pk;
            for (const auto& a : args) pk.push_back(valueUnder(a, k));
            std::vector<std::pair<std::string, Value>> kk;
            for (const auto& [key, a] : kwargs) kk.emplace_back(key, valueUnder(a, k));
            auto bk = bindArgs(*op, std::move(pk), std::move(kk));
            if (!bk.ok()) continue;
            auto mk = op->meta(*bk);
            if (mk.ok()) probes[k - 1] = std::move(mk).value();
        }
    }
    trimTrailingDefaults(args, op->schema);
    std::string base = opBaseName(qualname);
    std::string name = isPythonBuiltin(base) ? m_g.uniqueName(base + "_1") : m_g.uniqueName(base);
    Node* n = m_g.insertBefore(m_cur, NodeKind::CallFunction, name, "torch.ops." + std::string(qualname));
    n->args = std::move(args);
    n->kwargs = std::move(kwargs);
    n->setOp(op);
    n->sourceComment = m_cur->sourceComment;
    n->sourceLine = m_cur->sourceLine;
    if (m_symbolic) resymbolize(n, out, probes);
    if (qualname == "aten.sym_size.int") m_sizeNodes.insert(n);
    m_values[n] = std::move(out);
    m_emitted.push_back(n);
    return Argument::ofNode(n);
}

Expected<Argument> LowerCtx::emitItem(const Argument& tuple, size_t i) {
    const Value v = valueOf(tuple);
    if (!v.isList() || i >= v.list.size()) return makeError("expected a tuple with an item " + std::to_string(i));
    Node* n = m_g.insertBefore(m_cur, NodeKind::CallFunction, m_g.uniqueName("getitem"), "operator.getitem");
    n->args = {tuple, Argument::ofInt(static_cast<int64_t>(i))};
    n->sourceComment = m_cur->sourceComment;
    n->sourceLine = m_cur->sourceLine;
    if (m_symbolic) {
        std::array<Value, 2> probes;
        for (size_t k = 1; k <= 2; ++k) {
            const Value pk = valueUnder(tuple, k);
            if (pk.isList() && i < pk.list.size()) probes[k - 1] = pk.list[i];
        }
        resymbolize(n, v.list[i], probes);
    }
    m_values[n] = v.list[i];
    m_emitted.push_back(n);
    return Argument::ofNode(n);
}

Argument LowerCtx::emitConstant(Tensor t) {
    std::string name;
    for (int i = 0;; ++i) {
        name = "_tensor_constant" + std::to_string(i);
        if (!m_g.find(name) && !m_g.constants.count(name) && !m_g.subgraph(name)) break;
    }
    Node* n = m_g.insertBefore(m_cur, NodeKind::GetAttr, name, name);
    n->sourceComment = m_cur->sourceComment;
    n->sourceLine = m_cur->sourceLine;
    m_values[n] = Value::ofTensor(Tensor::metaOnly(t.meta));
    m_g.constants[name] = std::move(t);
    m_emitted.push_back(n);
    m_emittedConstants.push_back(name);
    return Argument::ofNode(n);
}

void LowerCtx::preferAnnotatedDevice(const Node& n) {
    auto it = m_values.find(&n);
    if (it == m_values.end() || !it->second.isTensor() || n.meta.size() != 1 || !n.meta[0].deviceKnown) return;
    it->second.t.meta.device = n.meta[0].device;
}

void LowerCtx::rollback() {
    for (auto it = m_emitted.rbegin(); it != m_emitted.rend(); ++it) {
        m_values.erase(*it);
        m_sizeNodes.erase(*it);
        m_g.erase(*it);
    }
    for (const auto& c : m_emittedConstants) m_g.constants.erase(c);
    m_emitted.clear();
    m_emittedConstants.clear();
}

void LowerCtx::computeValue(const Node& n) {
    computeValueRaw(n);
    if (n.annotated) preferAnnotatedDevice(n);
}

void LowerCtx::computeValueRaw(const Node& n) {
    auto fallback = [&] { m_values[&n] = annotationUnder(n, 0); };
    if (n.kind() == NodeKind::Placeholder) return fallback();
    if (n.kind() == NodeKind::GetAttr) {
        if (const Graph* sub = m_g.subgraph(n.target())) {
            Value v;
            v.kind = Value::Kind::Graph;
            v.graph = sub;
            m_values[&n] = v;
        } else if (auto it = m_g.constants.find(n.target()); it != m_g.constants.end()) {
            m_values[&n] = Value::ofTensor(Tensor::metaOnly(it->second.meta));
        } else {
            fallback();
        }
        return;
    }
    if (n.kind() != NodeKind::CallFunction) return fallback();
    std::vector<Value> args;
    for (const auto& a : n.args) args.push_back(valueOf(a));
    if (n.kwargs.empty() && isPythonScalarOp(n.target())) {
        // SymInt arithmetic kept from the file (`operator.mul(s0, 4)`): its value at the hints.
        if (auto r = callPythonScalarOp(n.target(), args); r && r->ok()) {
            m_values[&n] = std::move(*r).value();
            return;
        }
        return fallback();
    }
    if (n.target() == "operator.getitem") {
        if (args.size() == 2 && args[0].isList() && args[1].kind == Value::Kind::Int) {
            int64_t i = args[1].i, sz = static_cast<int64_t>(args[0].list.size());
            if (i < 0) i += sz;
            if (i >= 0 && i < sz) {
                m_values[&n] = args[0].list[static_cast<size_t>(i)];
                return;
            }
        }
        return fallback();
    }
    if (n.opName().rfind("higher_order.", 0) == 0) {
        // Run the body on meta tensors: cond(pred, true_fn, false_fn, operands) takes the true
        // branch (both have the same output metadata), the others take (body, *operands).
        size_t gi = 0;
        while (gi < args.size() && args[gi].kind != Value::Kind::Graph) ++gi;
        if (gi < args.size()) {
            std::vector<Value> operands;
            if (n.opName() == "higher_order.cond" && args.size() == 4 && args[3].isList())
                operands = args[3].list;
            else
                operands.assign(args.begin() + static_cast<std::ptrdiff_t>(gi) + 1, args.end());
            Interpreter inner(Interpreter::Mode::Meta, nullptr);
            auto r = inner.run(*args[gi].graph, std::move(operands));
            if (r.ok()) {
                m_values[&n] = Value::ofList(std::move(r).value(), true);
                return;
            }
        }
        return fallback();
    }
    const OpInfo* op = n.op() ? n.op() : OpRegistry::instance().find(n.opName());
    if (!op || !op->meta) return fallback();
    std::vector<std::pair<std::string, Value>> kw;
    for (const auto& [k, a] : n.kwargs) kw.emplace_back(k, valueOf(a));
    auto bound = bindArgs(*op, std::move(args), std::move(kw));
    if (!bound.ok()) return fallback();
    auto m = op->meta(*bound);
    if (!m.ok()) return fallback();
    m_values[&n] = std::move(m).value();
}

// ---------------------------------------------------------------------------------------------
// Generic mapping onto aten.X.*

namespace {

/// PyTorch's alias functions (native_functions.yaml's "alias for" entries): the Python name
/// binds to the same schema as the op it names, so torch.multiply(a, b) / a.multiply(b) lower as
/// aten.mul.
std::string_view atenAlias(std::string_view name) {
    static const std::unordered_map<std::string_view, std::string_view> aliases = {
        {"absolute", "abs"},      {"arccos", "acos"},          {"arcsin", "asin"},      {"arctan", "atan"},
        {"arctan2", "atan2"},     {"arccosh", "acosh"},        {"arcsinh", "asinh"},    {"arctanh", "atanh"},
        {"fix", "trunc"},         {"negative", "neg"},         {"multiply", "mul"},     {"divide", "div"},
        {"true_divide", "div"},   {"subtract", "sub"},         {"greater", "gt"},       {"greater_equal", "ge"},
        {"less", "lt"},           {"less_equal", "le"},        {"not_equal", "ne"},     {"special_expit", "sigmoid"},
        {"special_logit", "logit"}, {"clip", "clamp"},         {"clip_", "clamp_"},     {"absolute_", "abs_"},
        {"negative_", "neg_"},    {"multiply_", "mul_"},       {"divide_", "div_"},     {"subtract_", "sub_"},
        {"true_divide_", "div_"}, {"fix_", "trunc_"},          {"swapaxes", "transpose"}, {"swapdims", "transpose"},
        {"swapaxes_", "transpose_"}, {"swapdims_", "transpose_"}, {"concatenate", "cat"}, {"concat", "cat"},
        {"special_erfinv", "erfinv"}, {"special_logsumexp", "logsumexp"}, {"special_gammaln", "lgamma"},
        {"special_sinc", "sinc"},   {"special_round", "round"},  {"special_psi", "digamma"},
        {"special_digamma", "digamma"}, {"special_erf", "erf"},  {"special_erfc", "erfc"},
        {"special_exp2", "exp2"},   {"special_expm1", "expm1"},  {"special_log1p", "log1p"}, {"special_i0", "i0"},
        {"special_multigammaln", "mvlgamma"}, {"argwhere", "nonzero"},
    };
    auto it = aliases.find(name);
    return it == aliases.end() ? name : it->second;
}

}  // namespace

Expected<Argument> lowerGeneric(LowerCtx& c, const TorchCall& call, std::string_view atenName) {
    atenName = atenAlias(atenName);
    const std::string prefix = "aten." + std::string(atenName) + ".";
    std::vector<const OpInfo*> cands;
    for (const auto& op : OpRegistry::instance().all())
        if (op->qualname.rfind(prefix, 0) == 0 && op->qualname.find('.', prefix.size()) == std::string::npos)
            cands.push_back(op.get());
    if (cands.empty())
        return makeError("unsupported " + std::string(call.method ? "method" : "function") + " (no ATen op '" +
                         std::string(atenName) + "' in fxray)");
    // Prefer the overload whose Tensor parameters receive tensors and Scalar ones numbers (a
    // number bound to a Tensor parameter is PyTorch's wrapped-number fallback), then `.default`.
    const OpInfo* best = nullptr;
    int bestScore = 0;
    std::string firstError;
    for (const OpInfo* op : cands) {
        std::vector<Value> pv;
        for (const auto& a : call.args) pv.push_back(c.valueOf(a));
        std::vector<std::pair<std::string, Value>> kv;
        for (const auto& [k, a] : call.kwargs) {
            // Python functions name the first tensor `input`, ATen schemas `self`.
            std::string key = k == "input" && op->schema.indexOf("input") < 0 ? "self" : k;
            kv.emplace_back(key, c.valueOf(a));
        }
        auto bound = bindArgs(*op, pv, kv);
        if (!bound.ok()) {
            if (firstError.empty()) firstError = bound.error().message;
            continue;
        }
        int score = 0;
        for (size_t i = 0; i < op->schema.args.size() && i < bound->size(); ++i) {
            const std::string& t = op->schema.args[i].type;
            if ((t == "Tensor" || t == "Tensor?") && (*bound)[i].isNumber()) score += 2;
        }
        if (op->schema.overload.empty() || op->schema.overload == "default") score -= 1;
        if (!best || score < bestScore) {
            best = op;
            bestScore = score;
        }
    }
    if (!best)
        return makeError("arguments match no overload of aten." + std::string(atenName) + " (" + firstError + ")");
    // Keywords that name positional parameters become positional (`cat([a, b], -2)`, as FX
    // records ATen calls); keyword-only ones stay keywords.
    const auto& formals = best->schema.args;
    std::vector<Argument> args = call.args;
    std::vector<std::pair<std::string, Argument>> kw;
    std::vector<std::optional<Argument>> byPos(formals.size());
    for (const auto& [k, a] : call.kwargs) {
        std::string key = k == "input" && best->schema.indexOf("input") < 0 ? "self" : k;
        int idx = best->schema.indexOf(key);
        if (idx >= 0 && !formals[static_cast<size_t>(idx)].kwOnly)
            byPos[static_cast<size_t>(idx)] = a;
        else
            kw.emplace_back(key, a);
    }
    size_t last = args.size();
    for (size_t i = args.size(); i < formals.size(); ++i)
        if (byPos[i]) last = i + 1;
    for (size_t i = args.size(); i < last; ++i) {
        if (byPos[i])
            args.push_back(*byPos[i]);
        else if (formals[i].hasDefault)
            args.push_back(formals[i].defaultValue);
        else
            args.push_back(Argument::none());
    }
    return c.emit(best->qualname, std::move(args), std::move(kw));
}

}  // namespace lowering

// ---------------------------------------------------------------------------------------------
// Driver

namespace {

using namespace lowering;

bool keepsAsIs(const Node& n) {
    if (n.kind() == NodeKind::CallMethod) return false;
    if (n.kind() != NodeKind::CallFunction) return true;
    // SymInt arithmetic of a dynamic-shape graph (`mul: "Sym(4*s0)" = s0 * 4`) is ATen-level:
    // AOT and export graphs keep it as such.
    if (isPythonScalarOp(n.target()) && isSymPlaceholder(n)) return true;
    return n.target().rfind("torch.ops.", 0) == 0;
}

void substitute(Argument& a, const std::unordered_map<const Node*, Argument>& replaced) {
    if (a.isNode()) {
        auto it = replaced.find(a.node);
        if (it != replaced.end()) a = it->second;
        return;
    }
    for (auto& it : a.items) substitute(it, replaced);
}

/// A call on numbers where at least one is a SymInt/SymFloat node (`s0 * 4`, `torch.sym_max`,
/// `torch._sym_sqrt(s0)`): it stays a Python-level node; with literals only it folds.
std::optional<Expected<Argument>> lowerScalarCall(LowerCtx& c, const TorchCall& call) {
    if (call.method || !call.kwargs.empty() || !isPythonScalarOp(call.target) || call.args.empty()) return std::nullopt;
    bool anyNode = false;
    for (const auto& a : call.args) {
        if (!c.isScalar(a)) return std::nullopt;
        anyNode = anyNode || a.isNode();
    }
    if (anyNode) return c.emitScalar(call.target, call.args);
    if (findOperatorRule(call.target)) return std::nullopt;  // operator.* on literals folds there
    std::vector<Value> vals;
    for (const auto& a : call.args) vals.push_back(c.valueOf(a));
    auto r = callPythonScalarOp(call.target, vals);
    if (!r) return std::nullopt;
    if (!r->ok()) return Expected<Argument>(r->error());
    const Value& v = **r;
    if (v.kind == Value::Kind::Int) return Expected<Argument>(Argument::ofInt(v.i));
    if (v.kind == Value::Kind::Double) return Expected<Argument>(Argument::ofFloat(v.d));
    if (v.kind == Value::Kind::Bool) return Expected<Argument>(Argument::ofBool(v.b));
    return std::nullopt;
}

Expected<Argument> lowerNode(LowerCtx& c, const TorchCall& call) {
    if (auto r = lowerScalarCall(c, call)) return std::move(*r);
    if (call.method) {
        if (Rule r = findMethodRule(call.target)) return r(c, call);
        if (Rule r = findCompositeRule(call.target)) return r(c, call);
        if (call.args.empty() || !c.isTensor(call.args[0]))
            return makeError("method called on a value that is not a tensor");
        return lowerGeneric(c, call, call.target);
    }
    if (Rule r = findOperatorRule(call.target)) return r(c, call);
    if (Rule r = findFunctionRule(call.target)) return r(c, call);
    // torch.X / torch._C._nn.X / torch._C._VariableFunctions.X are bindings of aten::X.
    // torch.special.X / torch.linalg.X are special_X / linalg_X (torch._C._special and _linalg
    // name them so already).
    for (std::string_view ns : {"torch._C._VariableFunctions.", "torch._C._nn.", "torch._C._special.",
                                "torch._C._linalg.", "torch.special.", "torch.linalg.", "torch."}) {
        std::string_view t = call.target;
        if (t.rfind(ns, 0) != 0) continue;
        std::string_view rest = t.substr(ns.size());
        if (rest.empty() || rest.find('.') != std::string_view::npos || rest[0] == '_') break;
        if (ns == "torch.special." || ns == "torch.linalg.") {
            const std::string full = std::string(ns == "torch.special." ? "special_" : "linalg_") + std::string(rest);
            if (Rule r = findCompositeRule(full)) return r(c, call);
            return lowerGeneric(c, call, full);
        }
        if (Rule r = findCompositeRule(rest)) return r(c, call);
        return lowerGeneric(c, call, rest);
    }
    return makeError("unsupported torch-level function");
}

Status lowerGraph(Graph& g) {
    Status first;
    auto note = [&](Status s) {
        if (first.ok() && !s.ok()) first = std::move(s);
    };
    for (auto& [name, sub] : g.subgraphs()) note(lowerGraph(*sub));

    LowerCtx c(g);
    std::unordered_map<const Node*, Argument> replaced;
    std::vector<Node*> dead;
    std::vector<Node*> original;
    for (const auto& n : g.nodes()) original.push_back(n.get());

    for (Node* n : original) {
        for (auto& a : n->args) substitute(a, replaced);
        for (auto& [k, a] : n->kwargs) substitute(a, replaced);
        if (n->kind() == NodeKind::Output) continue;
        if (n->kind() == NodeKind::CallModule) {
            Diagnostic d =
                makeError("cannot lower call_module '" + n->target() + "' to ATen: submodule calls are not supported");
            d.node = n->name();
            d.file = g.sourceFile;
            d.line = n->sourceLine;
            note(Status(d));
            c.computeValue(*n);
            continue;
        }
        if (keepsAsIs(*n)) {
            c.computeValue(*n);
            continue;
        }
        TorchCall call;
        call.node = n;
        call.target = n->target();
        call.method = n->kind() == NodeKind::CallMethod;
        call.args = n->args;
        call.kwargs = n->kwargs;
        // Indexing a tuple (split, cond, checkpoint results) stays operator.getitem, as in ATen graphs.
        if (!call.method && call.target == "operator.getitem" && call.args.size() == 2 && call.args[0].isNode()) {
            Value obj = c.valueOf(call.args[0]);
            if (obj.isList() || call.args[0].node->opName().rfind("higher_order.", 0) == 0) {
                c.computeValue(*n);
                continue;
            }
        }
        c.begin(n);
        auto cast = applyAutocast(c, call);
        auto r = cast.ok() ? lowerNode(c, *cast) : Expected<Argument>(cast.error());
        if (!r.ok()) {
            c.rollback();
            std::string what = call.method ? "method '" + call.target + "'" : "'" + call.target + "'";
            Diagnostic d = r.error();
            d.message = "cannot lower " + what + " to ATen: " + d.message;
            d.node = n->name();
            d.file = g.sourceFile;
            d.line = n->sourceLine;
            note(Status(d));
            c.computeValue(*n);
            continue;
        }
        Argument res = std::move(r).value();
        const auto& em = c.emitted();
        if (res.isNode() && std::find(em.begin(), em.end(), res.node) != em.end()) {
            Node* rn = res.node;
            std::string orig = n->name();
            g.rename(n, g.uniqueName(orig + "__torch_level"));
            g.rename(rn, orig);
            if (n->annotated || !n->annotationText.empty()) {
                rn->meta = n->meta;
                rn->metaIsTuple = n->metaIsTuple;
                rn->annotated = n->annotated;
                rn->annotationText = n->annotationText;
                c.preferAnnotatedDevice(*rn);
            }
        }
        replaced[n] = std::move(res);
        dead.push_back(n);
    }
    for (auto it = dead.rbegin(); it != dead.rend(); ++it) g.erase(*it);
    g.rebuildUsers();
    c.dropUnusedSizeNodes();
    return first;
}

bool torchLevel(const Graph& g) {
    for (const auto& n : g.nodes()) {
        if (n->kind() == NodeKind::CallMethod) return true;
        if (n->kind() == NodeKind::CallFunction && !keepsAsIs(*n) && n->target() != "operator.getitem") return true;
    }
    for (const auto& [k, sub] : g.subgraphs())
        if (torchLevel(*sub)) return true;
    return false;
}

}  // namespace

Status lowerToAten(Graph& g) { return lowerGraph(g); }

bool isTorchLevel(const Graph& g) { return torchLevel(g); }

}  // namespace fxray
