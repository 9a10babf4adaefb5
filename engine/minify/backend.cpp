#include "minify/backend.h"

#include "exec/interpreter.h"
#include "exec/run_check.h"

#include <mutex>

namespace fxray::minify {

namespace {

/// The reference executor, in fp32 or fp64.
class ReferenceBackend final : public ExecBackend {
public:
    explicit ReferenceBackend(bool fp64) : m_fp64(fp64) {}
    std::string name() const override { return m_fp64 ? "ref64" : "ref"; }
    bool observesNodes() const override { return true; }
    Expected<std::vector<Value>> run(const Graph& g, const std::vector<Value>& inputs, uint64_t seed,
                                     std::map<std::string, Value>* nodeValues) override {
        ExecContext ctx(seed);
        ctx.fp64 = m_fp64;
        Interpreter interp(Interpreter::Mode::Execute, &ctx);
        if (nodeValues)
            interp.onNode = [nodeValues](const Node& n, const Value& v) { (*nodeValues)[n.name()] = v; };
        std::vector<Value> copies;
        copies.reserve(inputs.size());
        for (const auto& v : inputs) copies.push_back(deepCopy(v));
        return interp.run(g, std::move(copies));
    }

private:
    bool m_fp64;
};

std::mutex& registryMutex() {
    static std::mutex m;
    return m;
}
std::map<std::string, BackendFactory>& registry() {
    static std::map<std::string, BackendFactory> r;
    return r;
}

} // namespace

Expected<std::unique_ptr<ExecBackend>> makeBackend(const std::string& name) {
    if (name == "ref" || name == "ref32") return std::unique_ptr<ExecBackend>(new ReferenceBackend(false));
    if (name == "ref64") return std::unique_ptr<ExecBackend>(new ReferenceBackend(true));
    BackendFactory f;
    {
        std::lock_guard<std::mutex> lock(registryMutex());
        auto it = registry().find(name);
        if (it != registry().end()) f = it->second;
    }
    if (f) return f();
    if (name == "cpu" || name == "cuda")
        return makeError("backend '" + name + "' is not available in this build (the compiled backends are not "
                         "built here); use the ref and ref64 sides, e.g. accuracy:ref64-vs-ref32");
    return makeError("unknown backend '" + name + "' (ref, ref64, cpu, cuda)");
}

void registerBackend(const std::string& name, BackendFactory factory) {
    std::lock_guard<std::mutex> lock(registryMutex());
    registry()[name] = std::move(factory);
}

bool backendAvailable(const std::string& name) {
    if (name == "ref" || name == "ref32" || name == "ref64") return true;
    std::lock_guard<std::mutex> lock(registryMutex());
    return registry().count(name) > 0;
}

} // namespace fxray::minify
