#include "autodiff/tracer.h"

#include "exec/ops/inplace.h"

#include <string>

namespace fxray {

namespace {

const std::unordered_map<std::string, Decomposition>& decompositions() {
    static const auto* t = [] {
        std::vector<Decomposition> all;
        addLinalgDecompositions(all);
        addNnDecompositions(all);
        addShapeDecompositions(all);
        auto* m = new std::unordered_map<std::string, Decomposition>;
        for (const auto& d : all) m->emplace(std::string(d.qualname), d);
        return m;
    }();
    return *t;
}

/// "aten.add.Tensor" for "aten.add_.Tensor": the functional op an in-place op becomes.
std::string functionalName(const std::string& qualname) {
    size_t a = qualname.find('.');
    size_t b = qualname.find('.', a + 1);
    if (a == std::string::npos || b == std::string::npos || b == a + 1 || qualname[b - 1] != '_') return {};
    return qualname.substr(0, b - 1) + qualname.substr(b);
}

bool isInplace(const OpInfo& op) { return op.inplace || !functionalName(op.qualname).empty(); }

bool anyFloating(const Node& n) {
    for (const auto& m : n.meta)
        if (isFloating(m.dtype) || isComplex(m.dtype)) return true;
    return false;
}

}  // namespace

const Decomposition* findDecomposition(std::string_view qualname) {
    auto it = decompositions().find(std::string(qualname));
    return it == decompositions().end() ? nullptr : &it->second;
}

void DecompCall::mutate(size_t i, Node* value) {
    if (i < srcArgs.size() && srcArgs[i].isNode()) t.rebind(srcArgs[i].node, value);
}

Tracer::Tracer(GraphEmitter& em) : e(em) {}

void Tracer::rebind(const Node* src, Node* value) {
    env[src] = Traced::of(value);
    auto it = primalOf.find(src);
    if (it != primalOf.end()) mutations[it->second] = value;
}

Argument Tracer::mapArg(const Argument& a, const Node& user) {
    if (a.isNode()) {
        if (auto sv = symValues.find(a.node); sv != symValues.end()) return sv->second;
        auto it = env.find(a.node);
        if (it == env.end()) {
            auto lc = lazyConstants.find(a.node);
            if (lc != lazyConstants.end()) {
                Node* attr = e.getAttr("_tensor_constant" + std::to_string(m_constantCounter++), lc->second);
                env[a.node] = Traced::of(attr);
                return Argument::ofNode(attr);
            }
            e.fail("input '" + a.node->name() + "' has no value in the joint graph", user.name());
            return Argument::ofNode(nullptr);
        }
        if (it->second.isTuple) {
            e.fail("a tuple value '" + a.node->name() + "' is used as a tensor", user.name());
            return Argument::ofNode(nullptr);
        }
        return it->second.node ? Argument::ofNode(it->second.node) : Argument::none();
    }
    if (a.isSequence()) {
        Argument out = a;
        for (auto& it : out.items) it = mapArg(it, user);
        return out;
    }
    return a;
}

Traced Tracer::emit(std::string_view qualname, std::vector<Argument> args, Kwargs kwargs) {
    Node* n = e.op(qualname, std::move(args), std::move(kwargs));
    if (!n) return {};
    if (!n->metaIsTuple) return Traced::of(n);
    Traced t;
    t.node = n;
    t.isTuple = true;
    for (size_t i = 0; i < n->meta.size(); ++i) t.items.push_back(e.getitem(n, static_cast<int64_t>(i)));
    tupleItems[n] = t.items;
    // A tuple op whose rule saves its result saves output 0 (the attention ops' `out`): autograd
    // detaches it once every output exists, as PyTorch's joint graphs show after the getitems.
    if (!tape.empty() && tape.back().node == n && tape.back().rule->savesResult && !t.items.empty() &&
        !tape.back().saved)
        tape.back().saved = e.op("aten.detach.default", {nodeArg(t.items[0])});
    return t;
}

void Tracer::record(Node* n) {
    if (m_region) checkpointRegion[n] = m_region;
    if (n->target() == "operator.getitem") {
        const Node* tuple = n->args.empty() ? nullptr : n->args[0].node;
        if (!requiresGrad(tuple) || !anyFloating(*n)) return;
        const VjpRule* rule = tuple->op() ? findVjp(tuple->opName()) : nullptr;
        const int64_t index = n->args.size() > 1 ? n->args[1].i : 0;
        if (rule && index >= 0 && index < 32 && (rule->nonDifferentiableOutputs >> index) & 1u) return;
        m_rg.insert(n);
        return;
    }
    if (!n->op()) return;
    bool anyInput = false;
    for (const Node* in : n->inputNodes()) anyInput = anyInput || requiresGrad(in);
    if (!anyInput) return;
    const std::string qual = n->opName();
    if (isNonDifferentiable(qual) || !anyFloating(*n)) return;
    const VjpRule* rule = findVjp(qual);
    if (!rule) {
        e.fail("fxray has no VJP rule for " + qual + ": cannot differentiate through it", n->name());
        return;
    }
    m_rg.insert(n);
    TapeEntry te;
    te.node = n;
    te.rule = rule;
    if (rule->savesResult && n->metaIsTuple) {
        tape.push_back(te);  // output 0 is detached in emit(), after the getitems
        return;
    }
    if (rule->savesResult) {
        if (inplaceSource) {
            // The output of an in-place op is saved differently: PyTorch's joint graphs show a
            // forward detach nobody uses and both live detaches in the backward. The dead one is
            // emitted too (dead-code elimination removes it) so node names stay PyTorch's.
            te.saved = n;
            te.deferredDetach = true;
            tape.push_back(te);
            e.op("aten.detach.default", {nodeArg(n)});
            return;
        } else {
            tape.push_back(te);
            // Autograd saves the output detached, right after computing it.
            Node* d = e.op("aten.detach.default", {nodeArg(n)});
            tape.back().saved = d;
            return;
        }
    }
    tape.push_back(te);
}

void Tracer::trace(const Node& src) {
    if (symValues.count(&src)) return;  // a SymInt: used as its integer value
    switch (src.kind()) {
    case NodeKind::Placeholder:
    case NodeKind::Output: return;
    case NodeKind::GetAttr: {
        const Graph* g = src.owner();
        if (g && g->subgraph(src.target())) {
            // Subgraphs only feed higher-order ops, which fail below with a clearer message.
            env[&src] = Traced{};
            return;
        }
        Tensor value;
        if (g && g->constants.count(src.target()))
            value = g->constants.at(src.target());
        else if (!src.meta.empty())
            value = Tensor::metaOnly(src.meta[0]);
        else
            return e.fail("attribute '" + src.target() + "' has neither a value nor metadata", src.name());
        env[&src] = Traced::of(e.getAttr(src.target(), value));
        return;
    }
    case NodeKind::CallMethod:
    case NodeKind::CallModule:
        return e.fail("'" + src.target() + "' is a torch-level call: lower the graph to ATen first", src.name());
    case NodeKind::CallFunction: break;
    }

    if (src.target() == "operator.getitem") {
        auto it = src.args.empty() || !src.args[0].isNode() ? env.end() : env.find(src.args[0].node);
        if (it == env.end() || !it->second.isTuple || src.args.size() < 2 || src.args[1].kind != Argument::Kind::Int)
            return e.fail("getitem of something that is not a traced tuple", src.name());
        int64_t i = src.args[1].i;
        if (i < 0) i += static_cast<int64_t>(it->second.items.size());
        if (i < 0 || i >= static_cast<int64_t>(it->second.items.size()))
            return e.fail("getitem index out of range", src.name());
        env[&src] = Traced::of(it->second.items[static_cast<size_t>(i)]);
        return;
    }
    const std::string hop = src.opName();
    // `.item()` of a 0-d tensor is a data-dependent scalar (`Sym(zf85)`): its users take the
    // 0-d tensor itself, as AOT's joint graphs show (`mul.Tensor(x, scalar_tensor)`).
    if ((hop == "aten.item.default" || hop == "aten._local_scalar_dense.default") && !src.args.empty()) {
        Argument x = mapArg(src.args[0], src);
        if (!e.ok()) return;
        if (x.isNode() && e.isTensor(x.node) && e.shape(x.node).empty()) {
            env[&src] = Traced::of(x.node);
            return;
        }
    }
    // Runtime asserts on SymInts: the sizes are traced as integers, where they hold trivially.
    if (hop == "aten._assert_scalar.default" || hop == "aten.sym_constrain_range_for_size.default") return;
    if (hop == "higher_order.tag_activation_checkpoint" || hop == "higher_order.wrap")
        return inlineBody(src, hop == "higher_order.tag_activation_checkpoint");
    const OpInfo* op = src.op();
    if (!op) {
        if (src.opName().rfind("higher_order.", 0) == 0)
            return e.fail("autodiff does not support higher-order op '" + src.opName() + "' yet", src.name());
        return e.fail("unknown op '" + src.target() + "': fxray cannot differentiate it", src.name());
    }

    std::string qual = op->qualname;
    const bool inplace = isInplace(*op);
    if (inplace) {
        if (qual == "aten.detach_.default") {
            // detach_ on a value that carries no gradient changes nothing the joint graph sees.
            auto m = mapArg(src.args.empty() ? Argument::none() : src.args[0], src);
            env[&src] = m.isNode() ? Traced::of(m.node) : Traced{};
            return;
        }
        // The in-place table knows the functional ops whose names differ (pow_.Scalar runs
        // pow.Tensor_Scalar).
        const std::string tabled = inplaceFunctionalOp(qual);
        qual = tabled.empty() ? functionalName(qual) : tabled;
        if (qual.empty() || !OpRegistry::instance().find(qual))
            return e.fail("no functional form of in-place op '" + op->qualname + "'", src.name());
    }

    inplaceSource = inplace;
    std::optional<Traced> result;
    if (const Decomposition* d = findDecomposition(qual)) {
        const OpInfo* fop = OpRegistry::instance().find(qual);
        auto bound = bindNodeArguments(*fop, src);
        if (!bound.ok()) {
            inplaceSource = false;
            return e.fail(bound.error());
        }
        DecompCall call{*this, e, src, {}, *bound};
        for (const auto& a : *bound) call.args.push_back(mapArg(a, src));
        if (e.ok()) result = d->fn(call);
    } else {
        std::vector<Argument> args;
        for (const auto& a : src.args) args.push_back(mapArg(a, src));
        Kwargs kwargs;
        for (const auto& [k, a] : src.kwargs) kwargs.emplace_back(k, mapArg(a, src));
        if (e.ok()) result = emit(qual, std::move(args), std::move(kwargs));
    }
    inplaceSource = false;
    if (!result || !e.ok()) return;
    env[&src] = *result;
    if (inplace && !src.args.empty() && src.args[0].isNode() && result->node) {
        rebind(src.args[0].node, result->node);
        writeBack(*src.args[0].node, result->node);
    }
}

void Tracer::writeBack(const Node& view, Node* value) {
    // The scatter op that puts a view's new value back into its base (functionalization's view
    // replay), by view op.
    static const std::unordered_map<std::string, std::string> kScatterOf = {
        {"aten.slice.Tensor", "aten.slice_scatter.default"},
        {"aten.select.int", "aten.select_scatter.default"},
        {"aten.diagonal.default", "aten.diagonal_scatter.default"},
    };
    if (!view.op() || view.args.empty() || !view.args[0].isNode()) return;
    auto it = kScatterOf.find(view.op()->qualname);
    if (it == kScatterOf.end()) return;
    const Node* base = view.args[0].node;
    std::vector<Argument> args = {mapArg(view.args[0], view), nodeArg(value)};
    for (size_t i = 1; i < view.args.size(); ++i) args.push_back(mapArg(view.args[i], view));
    Kwargs kwargs;
    for (const auto& [k, a] : view.kwargs) kwargs.emplace_back(k, mapArg(a, view));
    if (!e.ok()) return;
    Node* updated = e.op(it->second, std::move(args), std::move(kwargs));
    if (!updated) return;
    rebind(base, updated);
    writeBack(*base, updated);
}

void Tracer::inlineBody(const Node& src, bool checkpoint) {
    const Graph* owner = src.owner();
    const Graph* body = nullptr;
    if (!src.args.empty() && src.args[0].isNode() && owner) body = owner->subgraph(src.args[0].node->target());
    if (!body) return e.fail("the body of " + src.opName() + " is not a submodule of the graph", src.name());
    auto phs = body->placeholders();
    if (phs.size() + 1 != src.args.size())
        return e.fail(src.opName() + " passes " + std::to_string(src.args.size() - 1) + " operands to a body with " +
                          std::to_string(phs.size()) + " inputs",
                      src.name());
    for (size_t i = 0; i < phs.size(); ++i) {
        Argument m = mapArg(src.args[i + 1], src);
        if (!e.ok()) return;
        if (!m.isNode() && !m.isNone()) symValues[phs[i]] = m;  // a SymInt operand
        env[phs[i]] = m.isNode() ? Traced::of(m.node) : Traced{};
    }
    const int outer = m_region;
    if (checkpoint) m_region = ++m_regionCount;
    const std::string comment = e.comment;
    for (const auto& n : body->nodes()) {
        e.comment = n->sourceComment.empty() ? comment : n->sourceComment;
        trace(*n);
        if (!e.ok()) break;
    }
    e.comment = comment;
    m_region = outer;
    if (!e.ok()) return;
    Traced result;
    result.isTuple = true;
    for (const auto& a : body->outputs()) {
        Argument m = mapArg(a, src);
        if (!e.ok()) return;
        result.items.push_back(m.isNode() ? m.node : nullptr);
    }
    env[&src] = result;
}

}  // namespace fxray
