#include "cli/backends.h"

#include "codegen/cuda/cuda_backend.h"
#include "exec/node_values.h"
#include "exec/run_check.h"
#include "minify/backend.h"

#ifdef FXRAY_HAVE_CPU_BACKEND
#include "codegen/cpu/cpu_backend.h"
#endif

namespace fxray::cli {

namespace {

/// A compiled backend as compare and the minifier see it. Outputs come from the graph as given
/// (the fused code a user runs). Node values, when asked for, come from a second compile of a
/// copy that returns every tensor-valued node (exec/node_values.h): every intermediate is then
/// written to memory, so fusion is weaker than in the real run and that run is a debugging mode.
template <typename RunFn>
class CompiledBackend final : public minify::ExecBackend {
public:
    CompiledBackend(std::string name, RunFn fn) : m_name(std::move(name)), m_fn(fn) {}
    std::string name() const override { return m_name; }
    bool observesNodes() const override { return true; }
    Expected<std::vector<Value>> run(const Graph& g, const std::vector<Value>& inputs, uint64_t seed,
                                     std::map<std::string, Value>* nodeValues) override {
        RunRequest req;
        for (const auto& v : inputs) req.inputs.push_back(deepCopy(v));
        req.seed = seed;
        auto r = m_fn(g, req);
        if (!r.ok()) return r.error();
        if (nodeValues) {
            GraphRunner runner = [this](const Graph& eg, const RunRequest& er) -> Expected<std::vector<Value>> {
                auto o = m_fn(eg, er);
                if (!o.ok()) return o.error();
                return std::move(o->outputs);
            };
            auto n = runExposed(g, req, runner, *nodeValues);
            if (!n.ok()) {
                Diagnostic d = n.error();
                d.message = "the run reporting every node's value failed: " + d.message;
                return d;
            }
        }
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
    // Always registered; without a usable GPU making it fails with "no CUDA device: ...", which
    // compare reports as bad setup (exit 2) and an accuracy check as a failure of the setup, not
    // as an interesting candidate.
    auto cuda = factoryFor("cuda", [](const Graph& g, const RunRequest& req) {
        return cg::cuda::runAndCheckCuda(g, req, nullptr);
    });
    minify::registerBackend("cuda", [cuda]() -> Expected<std::unique_ptr<minify::ExecBackend>> {
        if (Status s = cg::cuda::requireDevice(); !s.ok()) return s.error();
        return cuda();
    });
}

} // namespace fxray::cli
