#include "rewrite/rewriter.h"

#include "exec/interpreter.h"
#include "ir/op_registry.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace fxray {

namespace {

Value metaValueOf(const Node& n) {
    if (n.metaIsTuple || n.meta.size() > 1) {
        std::vector<Value> items;
        for (const auto& m : n.meta) {
            // A tuple element without metadata is a None output (masked gradient).
            if (m.shape.empty() && m.strides.empty() && !m.stridesKnown)
                items.push_back(Value::none());
            else
                items.push_back(Value::ofTensor(Tensor::metaOnly(m)));
        }
        return Value::ofList(std::move(items), true);
    }
    if (n.meta.empty()) return Value::none();
    return Value::ofTensor(Tensor::metaOnly(n.meta[0]));
}

Diagnostic nodeDiag(const Node& n, std::string msg) {
    Diagnostic d = makeError(std::move(msg));
    d.node = n.name();
    return d;
}

void remap(Argument& a, Node* from, Node* to) {
    if (a.kind == Argument::Kind::NodeRef && a.node == from) a.node = to;
    for (auto& it : a.items) remap(it, from, to);
}

Argument remapImported(const Argument& a, const std::unordered_map<const Node*, Argument>& map, bool& ok) {
    if (a.kind == Argument::Kind::NodeRef) {
        auto it = map.find(a.node);
        if (it == map.end()) {
            ok = false;
            return a;
        }
        return it->second;
    }
    Argument out = a;
    for (auto& it : out.items) it = remapImported(it, map, ok);
    return out;
}

}  // namespace

Status inferNodeMeta(Node& n) {
    if (n.kind() == NodeKind::CallFunction && n.target() == "operator.getitem") {
        if (n.args.size() != 2 || !n.args[0].isNode() || n.args[1].kind != Argument::Kind::Int)
            return nodeDiag(n, "getitem needs a node and an index");
        const Node& t = *n.args[0].node;
        int64_t i = n.args[1].i;
        if (i < 0) i += static_cast<int64_t>(t.meta.size());
        if (i < 0 || i >= static_cast<int64_t>(t.meta.size()))
            return nodeDiag(n, "index " + std::to_string(n.args[1].i) + " out of range of '" + t.name() + "'");
        n.meta = {t.meta[static_cast<size_t>(i)]};
        n.metaIsTuple = false;
        const TensorMeta& m = n.meta[0];
        n.annotated = !(m.shape.empty() && m.strides.empty() && !m.stridesKnown);  // not a None element
        return Status::success();
    }
    const OpInfo* op = n.op();
    if (!op) return nodeDiag(n, "cannot infer metadata: '" + n.target() + "' is not a registered op");
    std::map<const Node*, Value> env;
    for (Node* in : n.inputNodes()) {
        if (in->meta.empty()) return nodeDiag(n, "input '" + in->name() + "' has no metadata");
        env[in] = metaValueOf(*in);
    }
    std::vector<Value> args;
    for (const auto& a : n.args) args.push_back(argumentValue(a, env));
    std::vector<std::pair<std::string, Value>> kwargs;
    for (const auto& [k, a] : n.kwargs) kwargs.emplace_back(k, argumentValue(a, env));
    auto r = invokeOp(op->qualname, std::move(args), std::move(kwargs), nullptr);
    if (!r.ok()) return nodeDiag(n, r.error().message);
    const Value& v = *r;
    n.meta.clear();
    if (v.isTensor()) {
        n.meta.push_back(v.t.meta);
        n.metaIsTuple = false;
    } else if (v.isList()) {
        n.metaIsTuple = true;
        for (const auto& x : v.list) {
            if (x.isTensor()) {
                n.meta.push_back(x.t.meta);
            } else {
                TensorMeta none;
                none.stridesKnown = false;
                n.meta.push_back(none);
            }
        }
    }
    for (auto& m : n.meta) {
        if (m.shape.empty() && m.strides.empty() && !m.stridesKnown) continue;
        m.stridesKnown = true;
        m.deviceKnown = true;
    }
    // New nodes print with their type annotation, as PyTorch prints nodes that have a value.
    n.annotated = !n.metaIsTuple && n.meta.size() == 1;
    return Status::success();
}

std::string fxNameForOp(std::string_view qualname) {
    // "aten.add.Tensor" -> packet "add", overload "Tensor" -> "add_tensor" (FX snake-cases).
    std::string q(qualname);
    size_t firstDot = q.find('.');
    std::string rest = firstDot == std::string::npos ? q : q.substr(firstDot + 1);
    std::string out;
    for (size_t i = 0; i < rest.size(); ++i) {
        char c = rest[i];
        if (c == '.') {
            out += '_';
            continue;
        }
        if (std::isupper(static_cast<unsigned char>(c))) {
            if (i > 0 && std::islower(static_cast<unsigned char>(rest[i - 1]))) out += '_';
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        } else {
            out += c;
        }
    }
    return out;
}

bool hasSideEffects(const Node& n) {
    if (n.kind() == NodeKind::Placeholder || n.kind() == NodeKind::Output) return true;
    if (n.kind() == NodeKind::GetAttr) return false;
    if (n.kind() != NodeKind::CallFunction) return true;
    if (n.target() == "operator.getitem") return false;
    const OpInfo* op = n.op();
    if (!op) return true;
    if (op->inplace || op->category == OpCategory::Random) return true;
    // Asserts exist for their side effect.
    if (op->qualname.find("assert") != std::string::npos) return true;
    return false;
}

void Rewriter::event(ProvenanceEvent::Kind k, const std::string& node, std::string other, std::string target) {
    ++m_mutations;
    ProvenanceEvent e;
    e.kind = k;
    e.node = node;
    e.replacement = std::move(other);
    e.target = std::move(target);
    e.pass = m_ctx.log().pass;
    e.pattern = m_pattern;
    e.graph = m_ctx.log().graph;
    m_ctx.log().events.push_back(std::move(e));
}

void Rewriter::addUses(Node* n) {
    for (Node* in : n->inputNodes())
        if (std::find(in->users.begin(), in->users.end(), n) == in->users.end()) in->users.push_back(n);
}

Expected<Node*> Rewriter::createOp(Node* pos, std::string_view qualname, std::vector<Argument> args,
                                   std::vector<std::pair<std::string, Argument>> kwargs, std::string_view nameHint) {
    const OpInfo* op = OpRegistry::instance().find(qualname);
    if (!op) return makeError("unknown op '" + std::string(qualname) + "'");
    if (!pos) pos = m_g.outputNode();
    std::string name = m_g.uniqueName(nameHint.empty() ? fxNameForOp(qualname) : std::string(nameHint));
    Node* n = m_g.insertBefore(pos, NodeKind::CallFunction, name, "torch.ops." + std::string(qualname));
    n->setOp(op);
    n->args = std::move(args);
    n->kwargs = std::move(kwargs);
    Status s = inferNodeMeta(*n);
    if (!s.ok()) {
        m_g.erase(n);
        return s.error();
    }
    m_erased.erase(n);
    addUses(n);
    m_created.push_back(n->name());
    event(ProvenanceEvent::Kind::Created, n->name(), {}, std::string(qualname));
    return n;
}

Node* Rewriter::createGetItem(Node* pos, Node* tuple, int64_t i, std::string_view nameHint) {
    if (!pos) pos = m_g.outputNode();
    std::string name = m_g.uniqueName(nameHint.empty() ? std::string("getitem") : std::string(nameHint));
    Node* n = m_g.insertBefore(pos, NodeKind::CallFunction, name, "operator.getitem");
    n->args = {Argument::ofNode(tuple), Argument::ofInt(i)};
    (void)inferNodeMeta(*n);  // the index is ours; a tuple without metadata leaves it empty
    m_erased.erase(n);
    addUses(n);
    m_created.push_back(n->name());
    event(ProvenanceEvent::Kind::Created, n->name(), {}, "operator.getitem");
    return n;
}

Expected<Node*> Rewriter::importNode(const Node& src, Node* pos, const std::unordered_map<const Node*, Argument>& map) {
    bool ok = true;
    std::vector<Argument> args;
    for (const auto& a : src.args) args.push_back(remapImported(a, map, ok));
    std::vector<std::pair<std::string, Argument>> kwargs;
    for (const auto& [k, a] : src.kwargs) kwargs.emplace_back(k, remapImported(a, map, ok));
    if (!ok) return nodeDiag(src, "refers to a node that is not mapped");
    if (src.kind() == NodeKind::CallFunction && src.target() == "operator.getitem") {
        if (args.size() != 2 || !args[0].isNode() || args[1].kind != Argument::Kind::Int)
            return nodeDiag(src, "getitem needs a node and an index");
        return createGetItem(pos, args[0].node, args[1].i);
    }
    if (!src.isOpCall()) return nodeDiag(src, "only op calls can be instantiated, not '" + src.target() + "'");
    return createOp(pos, src.opName(), std::move(args), std::move(kwargs));
}

void Rewriter::replaceUsesIn(Node* user, Node* from, Node* to) {
    for (auto& a : user->args) remap(a, from, to);
    for (auto& kv : user->kwargs) remap(kv.second, from, to);
    auto& fu = from->users;
    fu.erase(std::remove(fu.begin(), fu.end(), user), fu.end());
    if (std::find(to->users.begin(), to->users.end(), user) == to->users.end()) to->users.push_back(user);
}

void Rewriter::replaceAllUsesWith(Node* from, Node* to) {
    if (from == to) return;
    std::vector<Node*> users = from->users;
    for (Node* u : users) {
        if (u == to) continue;  // do not make `to` use itself
        replaceUsesIn(u, from, to);
    }
    event(ProvenanceEvent::Kind::Replaced, from->name(), to->name());
}

void Rewriter::erase(Node* n) {
    assert(n->users.empty() && "erase a node that still has users");
    for (Node* in : n->inputNodes()) {
        auto& u = in->users;
        u.erase(std::remove(u.begin(), u.end(), n), u.end());
    }
    std::string name = n->name();
    m_erased.insert(n);
    m_g.erase(n);
    event(ProvenanceEvent::Kind::Erased, name);
}

bool Rewriter::eraseIfDead(Node* n) {
    if (!n->users.empty() || hasSideEffects(*n)) return false;
    erase(n);
    return true;
}

void Rewriter::moveBefore(Node* n, Node* pos) {
    m_g.moveBefore(n, pos);
    ++m_mutations;
}

}  // namespace fxray
