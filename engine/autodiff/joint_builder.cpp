#include "autodiff/joint_builder.h"

#include "autodiff/emitter.h"
#include "autodiff/joint_symbolic.h"
#include "autodiff/tracer.h"
#include "exec/shape_binding.h"

#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace fxray {

namespace {

bool startsWith(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

Diagnostic optionError(const Graph& g, std::string message, const std::string& node = {}) {
    Diagnostic d = makeError(std::move(message));
    d.file = g.sourceFile;
    d.node = node;
    return d;
}

/// torch.export names parameters `p_*`, buffers `b_*` and lifted constants `c_*`.
bool exportNaming(const std::vector<Node*>& phs) {
    for (const Node* p : phs)
        if (startsWith(p->name(), "p_") || startsWith(p->name(), "b_")) return true;
    return false;
}

bool dynamoNaming(const std::vector<Node*>& phs) {
    for (const Node* p : phs)
        if (p->name().find("_parameters_") != std::string::npos) return true;
    return false;
}

/// Source nodes whose values reach the output, plus in-place and random ops (their effects
/// count without users).
std::unordered_set<const Node*> liveSourceNodes(const Graph& g) {
    std::unordered_set<const Node*> live;
    const auto& nodes = g.nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        const Node* n = it->get();
        bool keep = n->kind() == NodeKind::Output || n->kind() == NodeKind::Placeholder || live.count(n);
        if (!keep && n->op()) {
            const OpInfo& op = *n->op();
            keep = op.category == OpCategory::Random || op.inplace || opPacketName(op.qualname).back() == '_';
        }
        if (!keep && n->isOpCall() && !n->op()) keep = true;  // unknown ops fail when traced
        if (!keep) continue;
        live.insert(n);
        for (const Node* in : n->inputNodes()) live.insert(in);
    }
    return live;
}

/// Removes nodes whose values nobody uses (placeholders, the output and random ops stay: FX
/// counts ops that advance the generator as impure). Returns the number removed.
size_t eliminateDeadCode(Graph& g, const std::vector<Argument>& outputs) {
    std::unordered_map<const Node*, int> uses;
    for (const auto& n : g.nodes())
        for (const Node* in : n->inputNodes()) ++uses[in];
    for (const auto& a : outputs) a.forEachNode([&](Node* n) { ++uses[n]; });
    std::vector<Node*> dead;
    const auto& nodes = g.nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        Node* n = it->get();
        if (n->kind() != NodeKind::CallFunction && n->kind() != NodeKind::GetAttr) continue;
        if (uses[n] > 0) continue;
        if (n->op() && (n->op()->category == OpCategory::Random || n->op()->inplace)) continue;
        dead.push_back(n);
        for (const Node* in : n->inputNodes()) --uses[in];
    }
    for (Node* n : dead) {
        if (n->kind() == NodeKind::GetAttr) g.constants.erase(n->target());
        g.erase(n);
    }
    return dead.size();
}

}  // namespace

Expected<JointGraph> buildJointGraph(const Graph& fwd, const JointOptions& opts) {
    if (graphIsSymbolic(fwd)) return buildSymbolicJoint(fwd, opts);
    return buildJointGraphAt(fwd, opts, {});
}

Expected<JointGraph> buildJointGraphAt(const Graph& fwd, const JointOptions& opts, const SymValues& symValues) {
    const auto phs = fwd.placeholders();
    if (!fwd.outputNode()) return optionError(fwd, "the forward graph has no output node");

    // Constants, primals and which primals require grad.
    const bool exportNames = exportNaming(phs);
    std::set<std::string> constants(opts.constantPlaceholders.begin(), opts.constantPlaceholders.end());
    if (exportNames)
        for (const Node* p : phs)
            if (startsWith(p->name(), "c_")) constants.insert(p->name());
    std::unordered_map<std::string, const Node*> byName;
    for (const Node* p : phs) {
        if (startsWith(p->name(), "tangents_"))
            return optionError(fwd,
                               "the graph already takes tangents (a joint or backward graph); autodiff takes a "
                               "forward or inference graph",
                               p->name());
        byName[p->name()] = p;
        if (symValues.count(p->name())) continue;  // a SymInt primal
        if (p->meta.empty() || p->metaIsTuple)
            return optionError(fwd, "placeholder has no tensor metadata (annotate it or load it from a typed source)",
                               p->name());
        if (p->meta[0].isSymbolic())
            return optionError(fwd, "autodiff needs static shapes; this placeholder's shape is symbolic", p->name());
    }
    for (const auto& c : opts.constantPlaceholders)
        if (!byName.count(c)) return optionError(fwd, "constant placeholder '" + c + "' is not an input of the graph");

    std::vector<const Node*> primals;
    if (opts.primalOrder.empty()) {
        for (const Node* p : phs)
            if (!constants.count(p->name())) primals.push_back(p);
    } else {
        std::set<std::string> seen;
        for (const auto& name : opts.primalOrder) {
            auto it = byName.find(name);
            if (it == byName.end()) return optionError(fwd, "primal order names '" + name + "', which is not an input");
            if (constants.count(name)) return optionError(fwd, "primal order names the constant '" + name + "'");
            if (!seen.insert(name).second) return optionError(fwd, "primal order names '" + name + "' twice");
            primals.push_back(it->second);
        }
        for (const Node* p : phs)
            if (!constants.count(p->name()) && !seen.count(p->name()))
                return optionError(fwd, "primal order leaves out input '" + p->name() + "'");
    }

    const bool dynamoNames = dynamoNaming(phs);
    std::set<std::string> listed(opts.requiresGrad.begin(), opts.requiresGrad.end());
    for (const auto& name : listed)
        if (!byName.count(name))
            return optionError(fwd, "requires-grad list names '" + name + "', which is not an input");
    auto wantsGrad = [&](const Node* p) {
        if (p->meta.empty()) return false;  // a SymInt
        if (!isFloating(p->meta[0].dtype)) return false;
        switch (opts.gradInputs) {
        case GradInputs::Listed: return listed.count(p->name()) > 0;
        case GradInputs::AllFloating: return true;
        case GradInputs::Auto:
            if (exportNames) return startsWith(p->name(), "p_");
            if (dynamoNames) return p->name().find("_parameters_") != std::string::npos;
            return true;
        }
        return false;
    };
    if (opts.gradInputs == GradInputs::Listed)
        for (const auto& name : listed)
            if (byName[name]->meta.empty() || !isFloating(byName[name]->meta[0].dtype))
                return optionError(fwd, "input '" + name + "' is not floating point and cannot require a gradient",
                                   name);

    JointGraph out;
    out.graph = std::make_unique<Graph>();
    Graph& g = *out.graph;
    g.className = "inner_f";
    g.signature.pytreeGroups = {"primals", "tangents"};
    g.signature.pytreeReturn = true;
    g.sourceFile = fwd.sourceFile;
    GraphEmitter e(g);
    Tracer t(e);
    for (const auto& n : fwd.nodes())
        if (auto sv = symValues.find(n->name()); sv != symValues.end())
            t.symValues[n.get()] = sv->second.isFloat()                      ? Argument::ofFloat(sv->second.d)
                                   : sv->second.kind == sym::Num::Kind::Bool ? Argument::ofBool(sv->second.i != 0)
                                                                             : Argument::ofInt(sv->second.i);

    bool devicesKnown = true;
    for (size_t i = 0; i < primals.size(); ++i) {
        const Node* src = primals[i];
        auto sv = symValues.find(src->name());
        Node* p = sv != symValues.end()
                      ? e.symPlaceholder("primals_" + std::to_string(i + 1), src->annotationText, sv->second.i)
                      : e.placeholder("primals_" + std::to_string(i + 1), src->meta[0]);
        t.env[src] = Traced::of(p);
        t.primalOf[src] = p;
        const bool rg = wantsGrad(src);
        if (rg) t.markRequiresGrad(p);
        out.primalSources.push_back(src->name());
        out.requiresGrad.push_back(rg);
        if (!src->meta.empty()) devicesKnown = devicesKnown && src->meta[0].deviceKnown;
    }
    for (const Node* p : phs) {
        if (!constants.count(p->name())) continue;
        auto v = opts.constantValues.find(p->name());
        t.lazyConstants[p] = v != opts.constantValues.end() ? v->second : Tensor::metaOnly(p->meta[0]);
    }
    g.printDevices = devicesKnown;

    // Forward: replay every live source node, recording the tape. Dead code is not traced at
    // all (Dynamo hands AOT a graph without it), which keeps node names PyTorch's.
    const bool skipDead = opts.skipDeadSourceNodes.value_or(exportNames);
    const auto live = skipDead ? liveSourceNodes(fwd) : std::unordered_set<const Node*>{};
    e.onEmit = [&t](Node* n) { t.record(n); };
    for (const auto& src : fwd.nodes()) {
        if (skipDead && !live.count(src.get())) continue;
        e.comment = src->sourceComment;
        t.trace(*src);
        if (!e.ok()) {
            Diagnostic d = e.error();
            if (d.node.empty()) d.node = src->name();
            if (d.file.empty()) {
                d.file = fwd.sourceFile;
                d.line = src->sourceLine;
            }
            return d;
        }
    }
    e.onEmit = nullptr;
    e.comment.clear();
    out.numForwardNodes = g.size() - primals.size();

    std::vector<Argument> outputs;
    std::vector<bool> mutatedNeedsGrad;
    for (size_t i = 0; i < primals.size(); ++i) {
        auto it = t.mutations.find(t.primalOf[primals[i]]);
        if (it == t.mutations.end()) continue;
        outputs.push_back(nodeArg(it->second));
        mutatedNeedsGrad.push_back(out.requiresGrad[i]);
    }
    out.numMutatedInputs = outputs.size();
    for (const auto& a : fwd.outputs()) {
        // A tuple-valued output (a multi-output op returned whole) contributes its elements.
        auto tv = a.isNode() ? t.env.find(a.node) : t.env.end();
        if (tv != t.env.end() && tv->second.isTuple) {
            for (Node* item : tv->second.items) outputs.push_back(item ? nodeArg(item) : Argument::none());
            continue;
        }
        Argument m = t.mapArg(a, *fwd.outputNode());
        if (!e.ok()) return e.error();
        outputs.push_back(m);
    }
    out.numForwardOutputs = outputs.size() - out.numMutatedInputs;

    // Tangents: one per output that carries a gradient, in output order.
    std::unordered_map<const Node*, Node*> grads;
    auto accumulate = [&](Node* x, Node* gr) {
        Node*& slot = grads[x];
        slot = slot ? e.add(slot, gr) : gr;
    };
    for (size_t k = 0; k < outputs.size(); ++k) {
        const Argument& a = outputs[k];
        if (!a.isNode() || !t.requiresGrad(a.node) || !e.isTensor(a.node)) continue;
        // A mutated input gets a tangent only when the input itself requires grad (AOT's
        // traced_tangents); buffers updated under no_grad never do.
        if (k < out.numMutatedInputs && !mutatedNeedsGrad[k]) continue;
        out.tangentOutputs.push_back(k);
        TensorMeta m = e.meta(a.node);
        m.strides = TensorMeta::contiguousStrides(m.shape);
        m.offset = 0;
        Node* tan = e.placeholder("tangents_" + std::to_string(++out.numTangents), m);
        accumulate(a.node, tan);
    }

    // Backward: the tape in reverse, as autograd's engine runs it (highest sequence number first).
    const size_t beforeBackward = g.size();
    auto rgFn = [&t](const Node* x) { return t.requiresGrad(x); };
    for (auto it = t.tape.rbegin(); it != t.tape.rend(); ++it) {
        Node* n = it->node;
        std::vector<Node*> results;
        if (n->metaIsTuple)
            results = t.tupleItems[n];
        else
            results = {n};
        std::vector<Node*> gradOuts;
        bool any = false;
        for (Node* r : results) {
            auto gi = r ? grads.find(r) : grads.end();
            gradOuts.push_back(gi == grads.end() ? nullptr : gi->second);
            any = any || gradOuts.back();
        }
        if (!any) continue;
        e.comment = n->sourceComment;
        auto bound = bindNodeArguments(*n->op(), *n);
        if (!bound.ok()) return bound.error();
        VjpCall call(e, *n, std::move(bound).value(), results, gradOuts, rgFn, it->saved);
        if (it->deferredDetach) call.deferFirstDetach();
        it->rule->fn(call);
        auto given = call.given();
        // Autograd's validate_outputs: gradients of broadcast inputs are summed back to their
        // shape (and cast to their dtype), then accumulated input by input.
        for (auto& gv : given) {
            if (!e.ok()) break;
            if (!e.isTensor(gv.grad) || !e.isTensor(gv.input)) {
                e.fail("the rule for " + n->opName() + " gave a gradient that is not a tensor", gv.grad->name());
                break;
            }
            if (e.shape(gv.grad) != e.shape(gv.input)) gv.grad = e.sumTo(gv.grad, e.shape(gv.input));
            if (gv.grad && e.dtype(gv.grad) != e.dtype(gv.input))
                gv.grad = e.op("aten._to_copy.default", {nodeArg(gv.grad)},
                               {{"dtype", Argument::ofDType(e.dtype(gv.input))}});
        }
        for (auto& gv : given)
            if (gv.grad) accumulate(gv.input, gv.grad);
        if (!e.ok()) {
            Diagnostic d = e.error();
            if (d.node.empty()) d.node = n->name();
            d.message = "backward of " + n->opName() + ": " + d.message;
            return d;
        }
    }
    out.numBackwardNodes = g.size() - beforeBackward - out.numTangents;

    for (size_t i = 0; i < primals.size(); ++i) {
        Node* p = t.primalOf[primals[i]];
        auto gi = grads.find(p);
        outputs.push_back(out.requiresGrad[i] && gi != grads.end() ? nodeArg(gi->second) : Argument::none());
    }

    out.deadNodesRemoved = eliminateDeadCode(g, outputs);
    e.output(std::move(outputs));
    for (const auto& n : g.nodes()) {
        auto it = t.checkpointRegion.find(n.get());
        if (it != t.checkpointRegion.end()) out.checkpointRegion[n->name()] = it->second;
    }
    g.rebuildUsers();
    g.renumber();
    if (auto st = g.verify(); !st.ok()) {
        Diagnostic d = st.error();
        d.message = "internal error: the joint graph does not verify: " + d.message;
        return d;
    }
    return out;
}

}  // namespace fxray
