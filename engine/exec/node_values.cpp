#include "exec/node_values.h"

#include "exec/interpreter.h"
#include "exec/ops/kernel_util.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

namespace fxray {

Expected<std::vector<std::string>> tensorValuedNodes(const Graph& g, const std::vector<Value>& inputs) {
    std::map<const Node*, bool> isTensor;
    Interpreter meta(Interpreter::Mode::Meta, nullptr);
    meta.metaFallbackToAnnotation = true;
    meta.onNode = [&isTensor](const Node& n, const Value& v) { isTensor[&n] = v.isTensor(); };
    std::vector<Value> ins;
    for (const auto& v : inputs) ins.push_back(v.isTensor() ? Value::ofTensor(Tensor::metaOnly(v.t.meta)) : v);
    auto r = meta.run(g, std::move(ins));
    if (!r.ok()) return r.error();
    std::vector<std::string> names;
    for (const auto& n : g.nodes()) {
        if (n->kind() == NodeKind::Placeholder || n->kind() == NodeKind::Output || n->kind() == NodeKind::GetAttr)
            continue;
        auto it = isTensor.find(n.get());
        if (it != isTensor.end() && it->second) names.push_back(n->name());
    }
    return names;
}

Expected<ExposedGraph> exposeIntermediates(const Graph& g, const std::vector<std::string>& nodes) {
    ExposedGraph e;
    e.graph = g.clone();
    Node* out = e.graph->outputNode();
    if (!out) {
        Diagnostic d = makeError("the graph has no output node");
        d.file = g.sourceFile;
        return d;
    }
    std::vector<Argument> items = e.graph->outputs();
    e.realOutputs = items.size();
    for (const auto& name : nodes) {
        Node* n = e.graph->find(name);
        if (!n) {
            Diagnostic d = makeError("no node '" + name + "' in the graph");
            d.file = g.sourceFile;
            return d;
        }
        items.push_back(Argument::ofNode(n));
        e.nodes.push_back(name);
    }
    // The return becomes a flat tuple (own outputs first), whatever form it had.
    out->args.assign(1, Argument::ofList(std::move(items), true));
    out->kwargs.clear();
    e.graph->rebuildUsers();
    return e;
}

Expected<std::vector<Value>> runExposed(const Graph& g, const RunRequest& req, const GraphRunner& run,
                                        std::map<std::string, Value>& nodeValues) {
    auto names = tensorValuedNodes(g, req.inputs);
    if (!names.ok()) return names.error();
    auto e = exposeIntermediates(g, *names);
    if (!e.ok()) return e.error();
    auto outs = run(*e->graph, req);
    if (!outs.ok()) return outs.error();
    if (outs->size() != e->realOutputs + e->nodes.size())
        return makeError("the run with every node exposed returned " + std::to_string(outs->size()) +
                         " values, expected " + std::to_string(e->realOutputs + e->nodes.size()));
    for (size_t i = 0; i < e->nodes.size(); ++i) nodeValues[e->nodes[i]] = (*outs)[e->realOutputs + i];
    outs->resize(e->realOutputs);
    return outs;
}

Expected<std::vector<Value>> runReferenceObserved(const Graph& g, const RunRequest& req,
                                                  std::map<std::string, Value>& nodeValues) {
    ExecContext ctx(req.seed);
    ctx.fp64 = req.fp64;
    Interpreter interp(Interpreter::Mode::Execute, &ctx);
    interp.pins = req.pins;
    interp.onNode = [&nodeValues](const Node& n, const Value& v) { nodeValues[n.name()] = v; };
    std::vector<Value> copies;
    copies.reserve(req.inputs.size());
    for (const auto& v : req.inputs) copies.push_back(deepCopy(v));
    return interp.run(g, std::move(copies));
}

namespace {

/// Fills e's element facts for two same-shape tensors that differ (values in logical order).
void locateDifference(const Tensor& base, const Tensor& other, double tolerance, NodeError& e) {
    auto b = kern::toDoubles(base), o = kern::toDoubles(other);
    if (b.size() != o.size() || b.empty()) return;
    double scale = 0.0;
    for (double v : b)
        if (std::isfinite(v)) scale = std::max(scale, std::abs(v));
    const double bound = tolerance * scale;
    size_t worst = 0;
    double worstDiff = -1.0;
    e.elements = static_cast<int64_t>(b.size());
    for (size_t i = 0; i < b.size(); ++i) {
        // NaN or infinity on one side only counts as off, and as the worst.
        double d = b[i] == o[i] ? 0.0 : std::abs(b[i] - o[i]);
        if (std::isnan(d)) d = INFINITY;
        if (d > bound) ++e.elementsOff;
        if (d > worstDiff) worstDiff = d, worst = i;
    }
    // The flat index as a multi-index of the shape.
    const auto& shape = base.shape();
    e.worstAt.assign(shape.size(), 0);
    int64_t rest = static_cast<int64_t>(worst);
    for (size_t d = shape.size(); d-- > 0;) {
        if (shape[d] == 0) break;
        e.worstAt[d] = rest % shape[d];
        rest /= shape[d];
    }
    e.worstBase = b[worst];
    e.worstOther = o[worst];
}

/// The node whose storage n's value is: through views and in-place ops (their result is their
/// first argument's storage), else n itself.
const Node* storageOwner(const Node* n) {
    for (;;) {
        const OpInfo* op = n->op();
        if (!op || !op->aliasesInput || n->args.empty() || !n->args[0].isNode()) return n;
        n = n->args[0].node;
    }
}

/// Nodes that have no one value to compare: those an in-place op later in the graph writes over
/// (through the same storage: `ge` before `logical_or_(ge, ...)`, `lerp_` before `squeeze_`),
/// since the reference reports a node's value when it runs and a compiled backend its buffer at
/// the end; and fresh `empty` buffers, undefined until written.
std::set<const Node*> notComparable(const Graph& g) {
    std::set<const Node*> out;
    std::unordered_map<const Node*, std::vector<const Node*>> sharing;  // owner -> nodes so far
    for (const auto& n : g.nodes()) {
        const std::string op = n->opName();
        if (op.starts_with("aten.empty") || op.starts_with("aten.new_empty")) out.insert(n.get());
        auto& same = sharing[storageOwner(n.get())];
        if (n->op() && n->op()->inplace) out.insert(same.begin(), same.end());
        same.push_back(n.get());
    }
    return out;
}

}  // namespace

std::vector<NodeError> compareNodeValues(const Graph& g, const std::map<std::string, Value>& base,
                                         const std::map<std::string, Value>& other,
                                         const std::map<std::string, Value>* ref64, const std::string& backend) {
    std::vector<NodeError> errs;
    const std::set<const Node*> skip = notComparable(g);
    for (const auto& n : g.nodes()) {
        // Inputs and constants are the same on every side: computed nodes only.
        if (n->kind() == NodeKind::Placeholder || n->kind() == NodeKind::Output || n->kind() == NodeKind::GetAttr)
            continue;
        if (skip.count(n.get())) continue;
        auto x = base.find(n->name());
        auto y = other.find(n->name());
        if (x == base.end() || y == other.end() || !x->second.isTensor() || !y->second.isTensor()) continue;
        if (!x->second.t.hasData() || !y->second.t.hasData()) continue;
        OutputComparison c = compareValues(0, y->second, x->second);
        NodeError e;
        // Before the fp64 judgement, which adds its own note.
        const bool numeric = !c.ok && c.note.empty();
        if (!c.ok && ref64 && isFloating(y->second.t.dtype())) {
            auto r = ref64->find(n->name());
            if (r != ref64->end() && r->second.isTensor() && r->second.t.hasData())
                judgeWithFp64(c, y->second, x->second, r->second);
        }
        if (numeric && !c.ok) locateDifference(x->second.t, y->second.t, c.tolerance, e);
        e.node = n->name();
        e.target = n->opName();
        e.backend = backend;
        e.relErr = c.relErr;
        e.maxAbsErr = c.maxAbsErr;
        e.ok = c.ok;
        e.fp64Judged = c.fp64Judged;
        e.note = c.note;
        errs.push_back(std::move(e));
    }
    return errs;
}

const NodeError* firstDivergent(const std::vector<NodeError>& errors) {
    for (const auto& e : errors)
        if (!e.ok) return &e;
    return nullptr;
}

}  // namespace fxray
