#include "exec/shape_inference.h"

#include "exec/interpreter.h"
#include "ir/op_registry.h"

#include <algorithm>
#include <map>

namespace fxray {

std::vector<std::string> resolveOps(Graph& g) {
    std::vector<std::string> unknown;
    const auto& reg = OpRegistry::instance();
    for (const auto& n : g.nodes()) {
        if (!n->isOpCall()) continue;
        std::string name = n->opName();
        if (name.rfind("higher_order.", 0) == 0) continue;  // handled by the interpreter
        const OpInfo* op = reg.find(name);
        n->setOp(op);
        if (!op && std::find(unknown.begin(), unknown.end(), name) == unknown.end()) unknown.push_back(name);
    }
    for (auto& [k, sub] : g.subgraphs())
        for (auto& u : resolveOps(*sub))
            if (std::find(unknown.begin(), unknown.end(), u) == unknown.end()) unknown.push_back(u);
    return unknown;
}

namespace {

void compare(const std::string& graphName, const Node& n, const TensorMeta& ann, const TensorMeta& inf,
             InferenceReport& rep) {
    auto add = [&](const char* what) {
        rep.mismatches.push_back(
            {graphName, n.name(), ann.annotation(ann.stridesKnown, false), inf.annotation(true, false), what});
    };
    ++rep.checked;
    if (ann.dtype != inf.dtype) {
        add("dtype");
        return;
    }
    if (ann.isSymbolic()) return;
    if (ann.shape != inf.shape) {
        add("shape");
        return;
    }
    if (!ann.stridesKnown || inf.strides.size() != ann.strides.size()) return;
    for (size_t i = 0; i < ann.shape.size(); ++i) {
        if (ann.shape[i] > 1 && ann.strides[i] != inf.strides[i]) {
            add("strides");
            return;
        }
    }
}

void inferInto(Graph& g, const std::string& graphName, InferenceReport& rep) {
    Interpreter interp(Interpreter::Mode::Meta, nullptr);
    std::map<const Node*, Value> values;
    interp.onNode = [&](const Node& n, const Value& v) { values[&n] = v; };
    std::vector<Value> inputs;
    for (Node* ph : g.placeholders()) {
        if (!ph->meta.empty())
            inputs.push_back(Value::ofTensor(Tensor::metaOnly(ph->meta[0])));
        else
            inputs.push_back(Value::none());
    }
    auto r = interp.run(g, std::move(inputs));
    for (const auto& name : interp.unresolvedNodes())
        rep.unresolved.push_back(graphName.empty() ? name : graphName + "." + name);
    for (const auto& up : g.nodes()) {
        Node& n = *up;
        if (n.kind() == NodeKind::Placeholder || n.kind() == NodeKind::Output) continue;
        auto it = values.find(&n);
        if (it == values.end()) continue;
        const Value& v = it->second;
        if (std::find(interp.unresolvedNodes().begin(), interp.unresolvedNodes().end(), n.name()) !=
            interp.unresolvedNodes().end())
            continue;
        std::vector<TensorMeta> metas;
        bool tuple = false;
        if (v.isTensor()) {
            metas.push_back(v.t.meta);
        } else if (v.isList()) {
            tuple = true;
            for (const auto& x : v.list)
                if (x.isTensor())
                    metas.push_back(x.t.meta);
                else
                    metas.push_back(TensorMeta());  // None element (masked gradient)
        } else {
            continue;
        }
        if (n.annotated && n.meta.size() == 1 && metas.size() == 1 && !tuple) {
            compare(graphName, n, n.meta[0], metas[0], rep);
        } else if (!n.annotated) {
            // Keep the annotation's print choices consistent with the graph.
            for (auto& m : metas) {
                m.stridesKnown = true;
                m.deviceKnown = true;
            }
            n.meta = std::move(metas);
            n.metaIsTuple = tuple;
            ++rep.filled;
        }
    }
    (void)r;
    for (auto& [name, sub] : g.subgraphs()) inferInto(*sub, graphName.empty() ? name : graphName + "." + name, rep);
}

}  // namespace

InferenceReport inferMeta(Graph& g) {
    InferenceReport rep;
    inferInto(g, "", rep);
    return rep;
}

}  // namespace fxray
