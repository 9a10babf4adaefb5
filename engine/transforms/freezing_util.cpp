// Shared pieces of the freezing passes: which placeholders are parameters, constant nodes
// (get_attr `_frozen_paramN`) and their values.
#include "exec/compare.h"
#include "exec/interpreter.h"
#include "rewrite/rewriter.h"
#include "transforms/freezing.h"

namespace fxray {

Expected<std::vector<bool>> parameterPlaceholders(const Graph& aot, const Graph& dynamo) {
    auto a = aot.placeholders();
    auto d = dynamo.placeholders();
    if (a.size() != d.size())
        return makeError("the Dynamo graph has " + std::to_string(d.size()) + " inputs where the graph to freeze has " +
                         std::to_string(a.size()));
    std::vector<bool> out;
    for (const Node* p : d) {
        const std::string& n = p->name();
        // Dynamo names module state L_self_modules_x_parameters_weight_ / L_fn_..._buffers_...
        out.push_back(n.find("_parameters_") != std::string::npos || n.find("_buffers_") != std::string::npos);
    }
    return out;
}

Expected<FreezeInputs> freezeInputsFromValues(const Graph& aot, const std::vector<bool>& isParam,
                                              const std::vector<Value>& values) {
    auto phs = aot.placeholders();
    if (isParam.size() != phs.size() || values.size() != phs.size())
        return makeError("freezing needs one value and one parameter flag per input (" + std::to_string(phs.size()) +
                         ")");
    FreezeInputs fi;
    for (size_t i = 0; i < phs.size(); ++i) {
        if (!isParam[i]) continue;
        if (!values[i].isTensor()) return makeError("parameter input '" + phs[i]->name() + "' has no tensor value");
        fi.params[phs[i]->name()] = withAnnotatedStrides(values[i].t, *phs[i]);
    }
    return fi;
}

std::string nextFrozenParamName(const Graph& g) {
    for (int i = 0;; ++i) {
        std::string n = "_frozen_param" + std::to_string(i);
        if (!g.constants.count(n)) return n;
    }
}

const Tensor* constantValue(const Node* n) {
    if (!n || n->kind() != NodeKind::GetAttr) return nullptr;
    auto it = n->owner()->constants.find(n->target());
    return it == n->owner()->constants.end() ? nullptr : &it->second;
}

Node* addConstantNode(Graph& g, Rewriter& rw, Tensor value, std::string_view nameHint, Node* pos) {
    if (!pos) {
        for (const auto& n : g.nodes())
            if (n->kind() != NodeKind::Placeholder) {
                pos = n.get();
                break;
            }
    }
    std::string attr = nextFrozenParamName(g);
    Node* n = g.insertBefore(pos, NodeKind::GetAttr, g.uniqueName(nameHint), attr);
    TensorMeta m = value.meta;
    m.offset = 0;
    n->meta = {m};
    n->annotated = true;
    g.constants[attr] = std::move(value);
    ProvenanceEvent e;
    e.kind = ProvenanceEvent::Kind::Created;
    e.node = n->name();
    e.target = attr;
    e.pass = rw.context().log().pass;
    e.pattern = rw.pattern();
    e.graph = rw.context().log().graph;
    rw.context().log().events.push_back(std::move(e));
    return n;
}

Expected<Tensor> evalConstantOp(std::string_view op, std::vector<Value> args) {
    ExecContext ctx(0);
    auto r = invokeOp(op, std::move(args), {}, &ctx);
    if (!r.ok()) return r.error();
    if (!r->isTensor()) return makeError(std::string(op) + " did not return a tensor");
    return r->t;
}

}  // namespace fxray
