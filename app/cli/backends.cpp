#include "cli/backends.h"

#include "codegen/cuda/cuda_backend.h"
#include "exec/run_check.h"
#include "minify/backend.h"

#ifdef FXRAY_HAVE_CPU_BACKEND
#include "codegen/cpu/cpu_backend.h"
#endif

namespace fxray::cli {

namespace {

/// A compiled backend as the minifier sees it: outputs only (fused kernels do not keep every
/// node's value, so localisation falls back to the reducer's general strategies).
template <typename RunFn>
class CompiledBackend final : public minify::ExecBackend {
public:
    CompiledBackend(std::string name, RunFn fn) : m_name(std::move(name)), m_fn(fn) {}
    std::string name() const override { return m_name; }
    Expected<std::vector<Value>> run(const Graph& g, const std::vector<Value>& inputs, uint64_t seed,
                                     std::map<std::string, Value>*) override {
        RunRequest req;
        for (const auto& v : inputs) req.inputs.push_back(deepCopy(v));
        req.seed = seed;
        auto r = m_fn(g, req);
        if (!r.ok()) return r.error();
        return std::move(r->outputs);
    }

private:
    std::string m_name;
    RunFn m_fn;
};

template <typename RunFn>
minify::BackendFactory factoryFor(std::string name, RunFn fn) {
    return [name, fn]() -> Expected<std::unique_ptr<minify::ExecBackend>> {
        return std::unique_ptr<minify::ExecBackend>(new CompiledBackend<RunFn>(name, fn));
    };
}

} // namespace

void registerCompiledBackends() {
#ifdef FXRAY_HAVE_CPU_BACKEND
    minify::registerBackend("cpu", factoryFor("cpu", [](const Graph& g, const RunRequest& req) {
        return cg::cpu::runAndCheckCpu(g, req, nullptr);
    }));
#endif
    // Always registered: without a GPU its runs fail with "no CUDA device", which the check
    // reports as such (a failure of the setup, not an interesting candidate).
    minify::registerBackend("cuda", factoryFor("cuda", [](const Graph& g, const RunRequest& req) {
        return cg::cuda::runAndCheckCuda(g, req, nullptr);
    }));
}

} // namespace fxray::cli
