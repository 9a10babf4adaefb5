#include "codegen/size_guard.h"

#include "exec/shape_binding.h"

namespace fxray::cg {

Expected<SizeGuard> SizeGuard::forInputs(const Graph& g, const std::vector<Value>& inputs) {
    SizeGuard s;
    if (!graphIsSymbolic(g)) return s;
    std::vector<Value> in = inputs;
    scalarizeSymInputs(g, in);
    auto b = bindInputs(g, in);
    if (!b.ok()) return b.error();
    s.m_binding = std::move(b).value();
    return s;
}

Status SizeGuard::check(const Graph& g, const std::vector<Value>& inputs) const {
    if (m_binding.empty()) return Status::success();
    auto other = forInputs(g, inputs);
    if (!other.ok()) return other.error();
    for (const auto& [name, v] : m_binding) {
        auto it = other->m_binding.find(name);
        if (it != other->m_binding.end() && it->second.toDouble() == v.toDouble()) continue;
        Diagnostic d = makeError("compiled for " + sym::bindingStr(m_binding) + ", but the inputs have " + name + "=" +
                                 (it == other->m_binding.end() ? std::string("?") : it->second.str()) +
                                 ": the compiled code is specialized to its sizes; compile for these inputs");
        d.file = g.sourceFile;
        return d;
    }
    return Status::success();
}

}  // namespace fxray::cg
