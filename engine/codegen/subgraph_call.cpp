#include "codegen/subgraph_call.h"

namespace fxray::cg {

std::optional<SubgraphCall> subgraphCall(const OpaqueCall& call, const Graph& g, const LoweredGraph& lg) {
    const Node& n = *call.node;
    auto graphOf = [&g](const Argument& a) -> const Graph* {
        if (!a.isNode() || a.node->kind() != NodeKind::GetAttr) return nullptr;
        return g.subgraph(a.node->target());
    };
    SubgraphCall sc;
    const std::string name = n.opName();
    if (name == "higher_order.cond") {
        if (n.args.size() != 4 || !n.kwargs.empty() || !n.args[3].isSequence()) return std::nullopt;
        sc.isCond = true;
        sc.predicate = &n.args[0];
        sc.graphs = {graphOf(n.args[1]), graphOf(n.args[2])};
        for (const auto& a : n.args[3].items) sc.operands.push_back(&a);
    } else if (name == "higher_order.tag_activation_checkpoint" || name == "higher_order.wrap") {
        if (n.args.empty()) return std::nullopt;
        sc.graphs = {graphOf(n.args[0])};
        for (size_t i = 1; i < n.args.size(); ++i) sc.operands.push_back(&n.args[i]);
    } else {
        return std::nullopt;
    }
    for (const Graph* s : sc.graphs)
        if (!s) return std::nullopt;
    for (const Argument* a : sc.operands) {
        if (!a->isNode()) return std::nullopt;
        const LValue* found = callInput(lg, call, a->node);
        if (!found) return std::nullopt;
        const LValue& lv = *found;
        if (lv.kind == LValue::Kind::Tensor) {
            TensorMeta m = lg.nodes[static_cast<size_t>(lv.node)].meta;
            m.offset = 0;
            sc.operandMetas.push_back(Value::ofTensor(Tensor::metaOnly(m)));
        } else if (lv.kind == LValue::Kind::Other) {
            sc.operandMetas.push_back(lv.other);
        } else if (lv.kind == LValue::Kind::None) {
            sc.operandMetas.push_back(Value::none());
        } else {
            return std::nullopt;
        }
    }
    return sc;
}

std::string subgraphRole(bool isCond, size_t i) {
    if (!isCond) return "the body";
    return i == 0 ? "the true branch" : "the false branch";
}

}  // namespace fxray::cg
