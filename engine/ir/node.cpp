#include "ir/node.h"

#include <algorithm>

namespace fxray {

std::string_view nodeKindName(NodeKind k) {
    switch (k) {
    case NodeKind::Placeholder: return "placeholder";
    case NodeKind::CallFunction: return "call_function";
    case NodeKind::CallMethod: return "call_method";
    case NodeKind::CallModule: return "call_module";
    case NodeKind::GetAttr: return "get_attr";
    case NodeKind::Output: return "output";
    }
    return "?";
}

std::string Node::opName() const {
    constexpr std::string_view prefix = "torch.ops.";
    if (m_target.compare(0, prefix.size(), prefix) == 0) return m_target.substr(prefix.size());
    return m_target;
}

bool Node::isOpCall() const { return m_kind == NodeKind::CallFunction && m_target.compare(0, 10, "torch.ops.") == 0; }

const Argument* Node::kwarg(std::string_view key) const {
    for (const auto& [k, v] : kwargs)
        if (k == key) return &v;
    return nullptr;
}

std::vector<Node*> Node::inputNodes() const {
    std::vector<Node*> out;
    auto add = [&](Node* n) {
        if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    };
    for (const auto& a : args) a.forEachNode(add);
    for (const auto& kv : kwargs) kv.second.forEachNode(add);
    return out;
}

}  // namespace fxray
