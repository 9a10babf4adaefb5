#include "exec/interpreter.h"

#include "exec/complex_to_real.h"
#include "exec/ops/kernel_util.h"
#include "exec/python_scalar_ops.h"
#include "exec/shape_binding.h"

namespace fxray {

Value argumentValue(const Argument& a, const std::map<const Node*, Value>& env) {
    Value v;
    switch (a.kind) {
    case Argument::Kind::None: break;
    case Argument::Kind::Bool: v = Value::ofBool(a.b); break;
    case Argument::Kind::Int: v = Value::ofInt(a.i); break;
    case Argument::Kind::Float: v = Value::ofDouble(a.f); break;
    case Argument::Kind::String:
    case Argument::Kind::Sym:
        v.kind = Value::Kind::String;
        v.s = a.s;
        break;
    case Argument::Kind::NodeRef: {
        auto it = env.find(a.node);
        if (it != env.end()) v = it->second;
        break;
    }
    case Argument::Kind::List:
    case Argument::Kind::Tuple: {
        std::vector<Value> items;
        items.reserve(a.items.size());
        for (const auto& it : a.items) items.push_back(argumentValue(it, env));
        v = Value::ofList(std::move(items), a.kind == Argument::Kind::Tuple);
        break;
    }
    case Argument::Kind::Slice: {
        std::vector<Value> items;
        for (const auto& it : a.items) items.push_back(argumentValue(it, env));
        v = Value::ofList(std::move(items));
        v.kind = Value::Kind::Slice;
        break;
    }
    case Argument::Kind::DType: v = Value::ofDType(a.dtype); break;
    case Argument::Kind::Device:
        v.kind = Value::Kind::Device;
        v.device = a.device;
        break;
    case Argument::Kind::Layout:
        v.kind = Value::Kind::Layout;
        v.layout = a.layout;
        break;
    case Argument::Kind::MemoryFormat:
        v.kind = Value::Kind::MemoryFormat;
        v.memoryFormat = a.memoryFormat;
        break;
    case Argument::Kind::Ellipsis: v.kind = Value::Kind::Ellipsis; break;
    }
    return v;
}

namespace {

Diagnostic nodeError(const Node& n, const Graph& g, std::string msg) {
    Diagnostic d = makeError(std::move(msg));
    d.node = n.name();
    d.file = g.sourceFile;
    d.line = n.sourceLine;
    return d;
}

/// The fp64 reference runs the whole graph in double: floating inputs and constants are widened.
Value widenToF64(const Value& v) {
    if (!v.isTensor() || !v.t.hasData() || !isFloating(v.t.dtype()) || v.t.dtype() == DType::Float64) return v;
    TensorMeta m = v.t.meta;
    m.dtype = DType::Float64;
    m.offset = 0;
    return Value::ofTensor(kern::makeTensor(m, kern::toDoubles(v.t)));
}

/// widenToF64 on a tensor or on each tensor of a (nested) list.
Value widenAllToF64(const Value& v) {
    if (!v.isList()) return widenToF64(v);
    Value r = v;
    for (auto& x : r.list) x = widenAllToF64(x);
    return r;
}

/// Checks a real input against its placeholder's annotation (symbolic sizes under `b`).
std::optional<std::string> checkInput(const Node& ph, const Value& v, const sym::Binding& b) {
    if (ph.meta.empty() || !ph.annotated) return std::nullopt;
    TensorMeta m = ph.meta[0];
    if (!v.isTensor()) return "expects a tensor " + m.annotation(false, false) + ", got " + v.describe();
    if (m.isSymbolic()) {
        auto bound = bindMeta(m, b);
        if (!bound.ok()) return bound.error().message;
        m = std::move(bound).value();
    }
    if (v.t.shape() != m.shape || v.t.dtype() != m.dtype)
        return "expects " + m.annotation(false, false) + ", got " + v.t.meta.annotation(false, false);
    return std::nullopt;
}

}  // namespace

Expected<std::vector<Value>> Interpreter::run(const Graph& g, std::vector<Value> inputs) {
    if (m_mode == Mode::Execute && graphHasComplex(g)) {
        // The kernels are real-valued: complex values run as real ones (exec/complex_to_real.h).
        auto rg = complexToReal(g);
        if (!rg.ok()) {
            Diagnostic d = rg.error();
            d.file = g.sourceFile;
            return d;
        }
        const RealifiedGraph& real = **rg;
        auto hook = onNode;
        if (hook)
            onNode = [&](const Node& n, const Value& v) {
                // Report the original graph's nodes only, with their complex values.
                if (const Node* o = g.find(n.name())) hook(*o, real.restoreNode(n.name(), v));
            };
        auto outs = run(*real.graph, real.realInputs(inputs));
        onNode = hook;
        if (outs.ok()) real.restoreOutputs(*outs);
        return outs;
    }
    std::map<const Node*, Value> env;
    auto phs = g.placeholders();
    if (inputs.size() != phs.size()) {
        Diagnostic d = makeError("graph has " + std::to_string(phs.size()) + " inputs but " +
                                 std::to_string(inputs.size()) + " were given");
        d.file = g.sourceFile;
        return d;
    }
    sym::Binding binding;
    if (m_mode == Mode::Execute && graphIsSymbolic(g)) {
        // Dynamic shapes: the symbols take their values from the inputs, every placeholder
        // agrees with them, and nothing else about the run changes.
        scalarizeSymInputs(g, inputs);
        auto b = bindInputs(g, inputs);
        if (!b.ok()) return b.error();
        binding = std::move(b).value();
    }
    m_binding = binding;
    for (size_t i = 0; i < phs.size(); ++i) {
        if (m_mode == Mode::Execute) {
            if (auto err = checkInput(*phs[i], inputs[i], binding))
                return nodeError(*phs[i], g, "input " + std::to_string(i) + " " + *err);
        }
        if (m_mode == Mode::Execute && m_ctx->fp64) inputs[i] = widenToF64(inputs[i]);
        env[phs[i]] = std::move(inputs[i]);
        if (onNode) onNode(*phs[i], env[phs[i]]);
    }
    for (const auto& up : g.nodes()) {
        const Node& n = *up;
        if (n.kind() == NodeKind::Placeholder) continue;
        if (n.kind() == NodeKind::Output) {
            std::vector<Value> outs;
            for (const auto& a : g.outputs()) outs.push_back(argumentValue(a, env));
            return outs;
        }
        auto pin = pins.find(n.name());
        // A pinned value takes part in an fp64 run as an input does: widened (a recorded fp32
        // value would otherwise meet fp64 operands, which convolution and matmul refuse).
        Expected<Value> v = pin == pins.end()                        ? evalNode(n, g, env)
                            : m_mode == Mode::Execute && m_ctx->fp64 ? Expected<Value>(widenAllToF64(pin->second))
                                                                     : Expected<Value>(pin->second);
        if (!v.ok()) {
            Diagnostic d = v.error();
            if (d.node.empty()) d.node = n.name();
            if (d.file.empty()) {
                d.file = g.sourceFile;
                d.line = n.sourceLine;
            }
            return d;
        }
        if (onNode) onNode(n, *v);
        env[&n] = std::move(v).value();
    }
    return nodeError(*g.nodes().back(), g, "graph has no output node");
}

Expected<Value> Interpreter::evalNode(const Node& n, const Graph& g, std::map<const Node*, Value>& env) {
    auto annotationValue = [&]() -> Expected<Value> {
        if (n.meta.empty()) return nodeError(n, g, "no metadata for '" + n.target() + "'");
        if (n.metaIsTuple || n.meta.size() > 1) {
            std::vector<Tensor> ts;
            for (const auto& m : n.meta) ts.push_back(Tensor::metaOnly(m));
            return Value::ofTensors(std::move(ts));
        }
        return Value::ofTensor(Tensor::metaOnly(n.meta[0]));
    };

    if (n.kind() == NodeKind::GetAttr) {
        if (const Graph* sub = g.subgraph(n.target())) {
            Value v;
            v.kind = Value::Kind::Graph;
            v.graph = sub;
            return v;
        }
        auto it = g.constants.find(n.target());
        if (it != g.constants.end()) {
            if (m_mode == Mode::Meta) return Value::ofTensor(Tensor::metaOnly(it->second.meta));
            if (m_ctx->fp64) return widenToF64(Value::ofTensor(it->second));
            return Value::ofTensor(it->second);
        }
        if (m_mode == Mode::Meta && metaFallbackToAnnotation && !n.meta.empty()) {
            m_unresolved.push_back(n.name());
            return annotationValue();
        }
        return nodeError(n, g, "attribute '" + n.target() + "' has no value");
    }

    std::vector<Value> args;
    for (const auto& a : n.args) args.push_back(argumentValue(a, env));
    std::vector<std::pair<std::string, Value>> kwargs;
    for (const auto& [k, a] : n.kwargs) kwargs.emplace_back(k, argumentValue(a, env));

    if (n.kind() == NodeKind::CallFunction && n.target() == "operator.getitem") {
        if (args.size() != 2) return nodeError(n, g, "getitem takes 2 arguments");
        const Value& seq = args[0];
        if (seq.isList() && args[1].kind == Value::Kind::Int) {
            int64_t i = args[1].i;
            int64_t sz = static_cast<int64_t>(seq.list.size());
            if (i < 0) i += sz;
            if (i < 0 || i >= sz)
                return nodeError(n, g, "index " + std::to_string(args[1].i) + " out of range for " + seq.describe());
            return seq.list[static_cast<size_t>(i)];
        }
        // Tensor indexing (x[..., None]) is a torch-level construct; lowering maps it to ATen.
    } else if (n.kind() == NodeKind::CallFunction && n.opName().rfind("higher_order.", 0) == 0) {
        auto r = callHigherOrder(n.opName(), std::move(args), std::move(kwargs));
        if (!r.ok() && r.error().node.empty()) r.error().node = n.name();
        return r;
    } else if (const OpInfo* op = n.op()) {
        auto r = callOp(n, *op, std::move(args), std::move(kwargs));
        if (!r.ok() && m_mode == Mode::Meta && metaFallbackToAnnotation) {
            m_unresolved.push_back(n.name());
            return n.meta.empty() ? Expected<Value>(Value::none()) : annotationValue();
        }
        return r;
    } else if (n.kind() == NodeKind::CallFunction && kwargs.empty()) {
        // SymInt arithmetic between the ops of a dynamic-shape graph (operator.mul(s0, s1), ...).
        if (auto r = callPythonScalarOp(n.target(), args)) {
            if (!r->ok()) return nodeError(n, g, r->error().message);
            return std::move(*r);
        }
    }

    if (m_mode == Mode::Meta && metaFallbackToAnnotation) {
        m_unresolved.push_back(n.name());
        if (!n.meta.empty()) return annotationValue();
        return Value::none();
    }
    std::string what = n.kind() == NodeKind::CallMethod ? "method '" + n.target() + "'" : "op '" + n.opName() + "'";
    return nodeError(n, g, "unsupported " + what + ": fxray cannot execute it");
}

Expected<Value> Interpreter::callOp(const Node& n, const OpInfo& op, std::vector<Value> args,
                                    std::vector<std::pair<std::string, Value>> kwargs) {
    auto bound = bindArgs(op, std::move(args), std::move(kwargs));
    if (!bound.ok()) return bound.error();
    if (!op.meta) return kern::opError(*bound, "no shape rule");
    auto meta = op.meta(*bound);
    if (!meta.ok()) return meta;
    if (m_mode == Mode::Meta) return meta;
    if (!op.kernel) return kern::opError(*bound, "no reference kernel");
    auto out = op.kernel(*bound, *meta, *m_ctx);
    if (out.ok() && m_ctx->fp64) {
        // ref64: keep floating results in double precision.
        auto widen = [](Value& v) {
            if (v.isTensor() && v.t.hasData() && isFloating(v.t.dtype()) && v.t.dtype() != DType::Float64) {
                TensorMeta m = v.t.meta;
                m.dtype = DType::Float64;
                v.t = kern::makeTensor(m, kern::toDoubles(v.t));
            }
        };
        if (!op.aliasesInput) {
            widen(*out);
            for (auto& x : out->list) widen(x);
        }
    }
    (void)n;
    return out;
}

Expected<Value> Interpreter::callHigherOrder(const std::string& name, std::vector<Value> args,
                                             std::vector<std::pair<std::string, Value>> kwargs) {
    auto runSub = [&](const Graph* sub, std::vector<Value> operands) -> Expected<Value> {
        Interpreter inner(m_mode, m_ctx);
        inner.metaFallbackToAnnotation = metaFallbackToAnnotation;
        auto r = inner.run(*sub, std::move(operands));
        if (!r.ok()) return r.error();
        return Value::ofList(std::move(r).value(), true);
    };
    if (name == "higher_order.cond") {
        if (args.size() != 4 || args[1].kind != Value::Kind::Graph || args[2].kind != Value::Kind::Graph ||
            !args[3].isList())
            return makeError("cond expects (pred, true_graph, false_graph, operands)");
        bool pred = true;
        if (m_mode == Mode::Execute) {
            const Value& p = args[0];
            if (p.isTensor()) {
                if (p.t.numel() != 1) return makeError("cond predicate must have one element");
                pred = kern::toDoubles(p.t)[0] != 0.0;
            } else {
                pred = p.toDouble() != 0.0;
            }
        }
        return runSub(pred ? args[1].graph : args[2].graph, args[3].list);
    }
    if (name == "higher_order.tag_activation_checkpoint" || name == "higher_order.wrap") {
        if (args.empty() || args[0].kind != Value::Kind::Graph)
            return makeError(name + " expects a subgraph as its first argument");
        std::vector<Value> operands(args.begin() + 1, args.end());
        (void)kwargs;  // use_reentrant, context_fn: no effect on values
        return runSub(args[0].graph, std::move(operands));
    }
    return makeError("unsupported higher-order op '" + name + "'");
}

}  // namespace fxray

namespace fxray {

Expected<Value> invokeOp(std::string_view qualname, std::vector<Value> args,
                         std::vector<std::pair<std::string, Value>> kwargs, ExecContext* ctx) {
    if (qualname.rfind("higher_order.", 0) == 0) {
        Interpreter interp(ctx ? Interpreter::Mode::Execute : Interpreter::Mode::Meta, ctx);
        return interp.callHigherOrder(std::string(qualname), std::move(args), std::move(kwargs));
    }
    const OpInfo* op = OpRegistry::instance().find(qualname);
    if (!op) return makeError("unknown op '" + std::string(qualname) + "'");
    auto bound = bindArgs(*op, std::move(args), std::move(kwargs));
    if (!bound.ok()) return bound.error();
    if (!op->meta) return kern::opError(*bound, "no shape rule");
    auto meta = op->meta(*bound);
    if (!meta.ok() || !ctx) return meta;
    if (!op->kernel) return kern::opError(*bound, "no reference kernel");
    // The kernels are real-valued: a complex operand reaches only those written for complex
    // values and plain views (graphs run complex values through exec/complex_to_real.h; a direct
    // call, as constant folding makes, must not read only the real parts).
    if (!isComplexOnlyOp(qualname) && op->category != OpCategory::View) {
        bool complexOperand = meta->isTensor() && isComplex(meta->t.dtype());
        for (const Value& v : bound->values()) {
            complexOperand = complexOperand || (v.isTensor() && isComplex(v.t.dtype()));
            if (v.isList())
                for (const Value& x : v.list)
                    complexOperand = complexOperand || (x.isTensor() && isComplex(x.t.dtype()));
        }
        if (complexOperand)
            return kern::opError(*bound, "fxray's reference kernel of this op is real-valued; complex values run "
                                         "only in whole graphs (rewritten into real ones)");
    }
    return op->kernel(*bound, *meta, *ctx);
}

}  // namespace fxray
