#include "autodiff/emitter.h"

#include "autodiff/geometry.h"
#include "exec/interpreter.h"

#include <cassert>
#include <cstdlib>

namespace fxray {

Argument intList(const std::vector<int64_t>& v) {
    std::vector<Argument> items;
    items.reserve(v.size());
    for (auto x : v) items.push_back(Argument::ofInt(x));
    return Argument::ofList(std::move(items));
}

Argument boolList(const std::vector<bool>& v) {
    std::vector<Argument> items;
    for (bool b : v) items.push_back(Argument::ofBool(b));
    return Argument::ofList(std::move(items));
}

std::vector<int64_t> intsOf(const Argument& a) {
    if (a.kind == Argument::Kind::Int) return {a.i};
    std::vector<int64_t> out;
    if (a.isSequence())
        for (const auto& it : a.items)
            if (it.kind == Argument::Kind::Int) out.push_back(it.i);
    return out;
}

double numberOf(const Argument& a) {
    switch (a.kind) {
    case Argument::Kind::Float: return a.f;
    case Argument::Kind::Int: return static_cast<double>(a.i);
    case Argument::Kind::Bool: return a.b ? 1.0 : 0.0;
    default: return 0.0;
    }
}

namespace {

/// IValue equality of an argument with a schema default, as the dispatcher decides which
/// arguments to leave out: same kind and value; `int[2] x=1` defaults compare element-wise.
bool equalsDefault(const Argument& a, const SchemaArg& s) {
    if (!s.hasDefault) return false;
    const Argument& d = s.defaultValue;
    if (d.kind == Argument::Kind::Int && a.kind == Argument::Kind::List && s.type.find('[') != std::string::npos) {
        if (a.items.empty()) return false;
        for (const auto& it : a.items)
            if (it.kind != Argument::Kind::Int || it.i != d.i) return false;
        return true;
    }
    return a.sameAs(d);
}

bool hasNullNode(const Argument& a) {
    bool null = false;
    a.forEachNode([&](Node* n) { null = null || n == nullptr; });
    return null;
}

/// Positional form as the dispatcher produces it: every non-keyword-only argument positional
/// (keywords naming one move there), trailing defaults dropped, keyword-only defaults dropped.
void normalise(const OpInfo& op, std::vector<Argument>& args, Kwargs& kwargs) {
    const auto& sa = op.schema.args;
    size_t kwStart = sa.size();
    while (kwStart > 0 && sa[kwStart - 1].kwOnly) --kwStart;
    // Keywords that name positional parameters become positional.
    for (auto it = kwargs.begin(); it != kwargs.end();) {
        int idx = op.schema.indexOf(it->first);
        if (idx >= 0 && static_cast<size_t>(idx) < kwStart) {
            while (args.size() <= static_cast<size_t>(idx)) {
                const SchemaArg& f = sa[args.size()];
                args.push_back(f.hasDefault ? f.defaultValue : Argument::none());
            }
            args[static_cast<size_t>(idx)] = it->second;
            it = kwargs.erase(it);
        } else {
            ++it;
        }
    }
    while (!args.empty() && args.size() <= kwStart && equalsDefault(args.back(), sa[args.size() - 1])) args.pop_back();
    for (auto it = kwargs.begin(); it != kwargs.end();) {
        int idx = op.schema.indexOf(it->first);
        if (idx >= 0 && equalsDefault(it->second, sa[static_cast<size_t>(idx)]))
            it = kwargs.erase(it);
        else
            ++it;
    }
}

/// A schema default as the op receives it: `int[2] dilation=1` is the list [1, 1].
Argument expandedDefault(const SchemaArg& s) {
    const Argument& d = s.defaultValue;
    size_t open = s.type.find('[');
    if (d.kind != Argument::Kind::Int || open == std::string::npos) return d;
    size_t n = static_cast<size_t>(std::strtoul(s.type.c_str() + open + 1, nullptr, 10));
    if (n == 0) return d;
    return intList(std::vector<int64_t>(n, d.i));
}

}  // namespace

Expected<std::vector<Argument>> bindNodeArguments(const OpInfo& op, const Node& n) {
    const auto& sa = op.schema.args;
    std::vector<Argument> out(sa.size());
    std::vector<bool> set(sa.size(), false);
    auto err = [&](std::string m) {
        Diagnostic d = makeError(op.qualname + ": " + m);
        d.node = n.name();
        return d;
    };
    size_t pos = 0;
    for (const auto& a : n.args) {
        while (pos < sa.size() && sa[pos].kwOnly) ++pos;
        if (pos >= sa.size()) return err("too many positional arguments");
        out[pos] = a;
        set[pos] = true;
        ++pos;
    }
    for (const auto& [k, v] : n.kwargs) {
        int idx = op.schema.indexOf(k);
        if (idx < 0) return err("unexpected keyword argument '" + k + "'");
        out[static_cast<size_t>(idx)] = v;
        set[static_cast<size_t>(idx)] = true;
    }
    for (size_t i = 0; i < sa.size(); ++i) {
        if (set[i]) continue;
        if (sa[i].hasDefault)
            out[i] = expandedDefault(sa[i]);
        else if (sa[i].optional())
            out[i] = Argument::none();
        else
            return err("missing argument '" + sa[i].name + "'");
    }
    return out;
}

GraphEmitter::GraphEmitter(Graph& g) : m_g(g) {
    for (const auto& n : g.nodes()) m_names.reserve(n->name());
}

void GraphEmitter::fail(Diagnostic d) {
    if (!m_error) m_error = std::move(d);
}

void GraphEmitter::fail(std::string message, const std::string& node) {
    Diagnostic d = makeError(std::move(message));
    d.node = node;
    fail(std::move(d));
}

bool GraphEmitter::isTensor(const Node* n) const {
    auto it = m_values.find(n);
    return it != m_values.end() && it->second.isTensor();
}

const Value* GraphEmitter::value(const Node* n) const {
    auto it = m_values.find(n);
    return it == m_values.end() ? nullptr : &it->second;
}

const TensorMeta& GraphEmitter::meta(const Node* n) const {
    auto it = m_values.find(n);
    assert(it != m_values.end() && it->second.isTensor());
    return it->second.t.meta;
}

Node* GraphEmitter::record(Node* n, Value v) {
    n->sourceComment = comment;
    if (v.isTensor()) {
        n->meta = {v.t.meta};
        n->metaIsTuple = false;
        n->annotated = true;
    } else if (v.isList()) {
        n->meta.clear();
        for (const auto& x : v.list) n->meta.push_back(x.isTensor() ? x.t.meta : TensorMeta{});
        n->metaIsTuple = true;
        n->annotated = false;
    }
    m_values[n] = std::move(v);
    if (onEmit) onEmit(n);
    return n;
}

Node* GraphEmitter::placeholder(std::string_view name, const TensorMeta& m) {
    Node* pos = nullptr;
    for (const auto& n : m_g.nodes())
        if (n->kind() != NodeKind::Placeholder) {
            pos = n.get();
            break;
        }
    std::string nm = m_names.create(name);
    Node* n = m_g.insertBefore(pos, NodeKind::Placeholder, nm, nm);
    TensorMeta mm = m;
    if (mm.strides.size() != mm.shape.size() || !mm.stridesKnown) {
        mm.strides = TensorMeta::contiguousStrides(mm.shape);
        mm.stridesKnown = true;
    }
    n->meta = {mm};
    n->annotated = true;
    m_values[n] = Value::ofTensor(Tensor::metaOnly(mm));
    return n;
}

Node* GraphEmitter::symPlaceholder(std::string_view name, const std::string& annotation, int64_t value) {
    Node* pos = nullptr;
    for (const auto& n : m_g.nodes())
        if (n->kind() != NodeKind::Placeholder) {
            pos = n.get();
            break;
        }
    std::string nm = m_names.create(name);
    Node* n = m_g.insertBefore(pos, NodeKind::Placeholder, nm, nm);
    n->annotationText = annotation;
    m_values[n] = Value::ofInt(value);
    return n;
}

Node* GraphEmitter::op(std::string_view qualname, std::vector<Argument> args, Kwargs kwargs) {
    if (!ok()) return nullptr;
    for (const auto& a : args)
        if (hasNullNode(a)) return nullptr;
    for (const auto& kv : kwargs)
        if (hasNullNode(kv.second)) return nullptr;
    const OpInfo* info = OpRegistry::instance().find(qualname);
    if (!info) {
        fail("fxray has no op '" + std::string(qualname) + "' to emit");
        return nullptr;
    }
    normalise(*info, args, kwargs);
    std::vector<Value> av;
    av.reserve(args.size());
    for (const auto& a : args) av.push_back(argumentValue(a, m_values));
    std::vector<std::pair<std::string, Value>> kv;
    for (const auto& [k, a] : kwargs) kv.emplace_back(k, argumentValue(a, m_values));
    auto v = invokeOp(qualname, std::move(av), std::move(kv), nullptr);
    std::string name = m_names.create(opPacketName(qualname));
    if (!v.ok()) {
        Diagnostic d = v.error();
        d.message = "while building " + name + ": " + d.message;
        fail(std::move(d));
        return nullptr;
    }
    Node* n = m_g.append(NodeKind::CallFunction, name, "torch.ops." + std::string(qualname));
    n->args = std::move(args);
    n->kwargs = std::move(kwargs);
    n->setOp(info);
    return record(n, std::move(v).value());
}

Node* GraphEmitter::getitem(Node* tuple, int64_t index) {
    if (!ok() || !tuple) return nullptr;
    const Value* tv = value(tuple);
    if (!tv || !tv->isList() || index < 0 || index >= static_cast<int64_t>(tv->list.size())) {
        fail("getitem " + std::to_string(index) + " of a value that is not a tuple of that size", tuple->name());
        return nullptr;
    }
    Value item = tv->list[static_cast<size_t>(index)];
    Node* n = m_g.append(NodeKind::CallFunction, m_names.create("getitem"), "operator.getitem");
    n->args = {nodeArg(tuple), Argument::ofInt(index)};
    return record(n, std::move(item));
}

Node* GraphEmitter::getAttr(const std::string& name, const Tensor& value) {
    if (!ok()) return nullptr;
    std::string nm = m_names.create(name);
    Node* n = m_g.append(NodeKind::GetAttr, nm, nm);
    n->sourceComment = comment;
    TensorMeta m = value.meta;
    if (m.strides.size() != m.shape.size()) m.strides = TensorMeta::contiguousStrides(m.shape);
    n->meta = {m};
    n->annotated = true;
    if (value.hasData()) m_g.constants[nm] = value;
    m_values[n] = Value::ofTensor(Tensor::metaOnly(m));
    return n;
}

Node* GraphEmitter::output(std::vector<Argument> outs) {
    Node* n = m_g.append(NodeKind::Output, "output", "output");
    n->args = {Argument::ofList(std::move(outs))};
    return n;
}

// ----- building blocks ---------------------------------------------------------------------------

Node* GraphEmitter::view(Node* x, const std::vector<int64_t>& shape) {
    return op("aten.view.default", {nodeArg(x), intList(shape)});
}

Node* GraphEmitter::reshape(Node* x, const std::vector<int64_t>& shapeArg) {
    if (!x || !ok()) return nullptr;
    const TensorMeta& m = meta(x);
    auto shape = inferShape(shapeArg, m.numel());
    if (!shape) {
        fail("cannot reshape " + m.annotation(false, false) + " to the requested shape", x->name());
        return nullptr;
    }
    // Under AOT tracing the viewable case reaches `view` with the shape as proposed (a -1 stays),
    // the copying case `_unsafe_view` with the inferred one.
    if (reshapeIsView(m, *shape)) return view(x, shapeArg);
    return op("aten._unsafe_view.default", {nodeArg(contiguousClone(x)), intList(*shape)});
}

Node* GraphEmitter::t(Node* x) { return op("aten.t.default", {nodeArg(x)}); }

Node* GraphEmitter::transpose(Node* x, int64_t d0, int64_t d1) {
    return op("aten.transpose.int", {nodeArg(x), Argument::ofInt(d0), Argument::ofInt(d1)});
}

Node* GraphEmitter::mm(Node* a, Node* b) { return op("aten.mm.default", {nodeArg(a), nodeArg(b)}); }
Node* GraphEmitter::bmm(Node* a, Node* b) { return op("aten.bmm.default", {nodeArg(a), nodeArg(b)}); }

Node* GraphEmitter::expand(Node* x, const std::vector<int64_t>& shape) {
    return op("aten.expand.default", {nodeArg(x), intList(shape)});
}

Node* GraphEmitter::unsqueeze(Node* x, int64_t dim) {
    return op("aten.unsqueeze.default", {nodeArg(x), Argument::ofInt(dim)});
}

Node* GraphEmitter::squeeze(Node* x, int64_t dim) { return op("aten.squeeze.dim", {nodeArg(x), Argument::ofInt(dim)}); }

Node* GraphEmitter::mul(Node* a, const Argument& b) { return op("aten.mul.Tensor", {nodeArg(a), b}); }
Node* GraphEmitter::add(Node* a, Node* b) { return op("aten.add.Tensor", {nodeArg(a), nodeArg(b)}); }
Node* GraphEmitter::neg(Node* x) { return op("aten.neg.default", {nodeArg(x)}); }

Node* GraphEmitter::sumTo(Node* x, const std::vector<int64_t>& shape) {
    if (!x || !ok()) return nullptr;
    const auto& from = this->shape(x);
    if (from == shape) return x;
    auto plan = sumToPlan(from, shape);
    if (!plan) {
        fail("gradient of shape " + meta(x).annotation(false, false) + " does not reduce to the input's shape",
             x->name());
        return nullptr;
    }
    Node* r = x;
    if (!plan->dims.empty()) r = op("aten.sum.dim_IntList", {nodeArg(r), intList(plan->dims), Argument::ofBool(true)});
    if (plan->view) r = view(r, shape);
    return r;
}

Node* GraphEmitter::contiguousClone(Node* x) {
    return op("aten.clone.default", {nodeArg(x)},
              {{"memory_format", Argument::ofMemoryFormat(MemoryFormat::Contiguous)}});
}

Node* GraphEmitter::zerosLike(Node* like, const std::vector<int64_t>& shape) {
    if (!like || !ok()) return nullptr;
    const TensorMeta& m = meta(like);
    return op("aten.zeros.default", {intList(shape)},
              {{"dtype", Argument::ofDType(m.dtype)},
               {"layout", Argument::ofLayout(Layout::Strided)},
               {"device", Argument::ofDevice(m.device)},
               {"pin_memory", Argument::ofBool(false)}});
}

}  // namespace fxray
