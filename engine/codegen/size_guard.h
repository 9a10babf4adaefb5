#pragma once
/// Compiled code for a dynamic-shape graph is specialized to the sizes it was compiled for:
/// lowering runs the shape rules on the example inputs, so sizes and SymInt arithmetic become
/// constants in the kernels. A SizeGuard remembers that binding and refuses inputs of another
/// one (PyTorch's guards, reduced to the one that matters here); SizeSpecializedCache keeps one
/// compile per binding so that one graph serves every size.
#include "ir/graph.h"
#include "ir/sym_expr.h"
#include "ir/value.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace fxray::cg {

class SizeGuard {
public:
    /// The binding of `inputs` (empty for a static graph). Fails as exec's bindInputs does.
    static Expected<SizeGuard> forInputs(const Graph& g, const std::vector<Value>& inputs);
    const sym::Binding& binding() const { return m_binding; }
    bool isStatic() const { return m_binding.empty(); }
    /// Success when `inputs` bind the same values; else names the first symbol that differs.
    Status check(const Graph& g, const std::vector<Value>& inputs) const;

private:
    sym::Binding m_binding;
};

/// One compiled artifact per binding of a dynamic-shape graph (a static graph has one entry).
/// `Compiled` is a backend's CompiledGraph; the compile function gets the example inputs.
template <typename Compiled>
class SizeSpecializedCache {
public:
    using CompileFn = std::function<Expected<std::unique_ptr<Compiled>>(const std::vector<Value>&)>;
    SizeSpecializedCache(const Graph& g, CompileFn compile) : m_graph(&g), m_compile(std::move(compile)) {}

    /// The artifact for the inputs' binding, compiled on first use. `compiled` tells whether
    /// this call compiled.
    Expected<const Compiled*> get(const std::vector<Value>& inputs, bool* compiled = nullptr) {
        auto guard = SizeGuard::forInputs(*m_graph, inputs);
        if (!guard.ok()) return guard.error();
        const std::string key = sym::bindingStr(guard->binding());
        std::lock_guard<std::mutex> lock(m_mu);
        if (compiled) *compiled = false;
        auto it = m_entries.find(key);
        if (it != m_entries.end()) return it->second.get();
        auto c = m_compile(inputs);
        if (!c.ok()) return c.error();
        if (compiled) *compiled = true;
        return (m_entries[key] = std::move(c).value()).get();
    }
    size_t size() const { return m_entries.size(); }

private:
    const Graph* m_graph;
    CompileFn m_compile;
    std::mutex m_mu;
    std::map<std::string, std::unique_ptr<Compiled>> m_entries;
};

}  // namespace fxray::cg
