#include "codegen/backend.h"

#include "exec/node_values.h"

#include <algorithm>
#include <mutex>

namespace fxray {

Expected<Timing> CompiledProgram::benchmark(const std::vector<Value>& inputs, int iters, int warmup, uint64_t seed) {
    for (int i = 0; i < warmup; ++i)
        if (auto r = run(inputs, seed); !r.ok()) return r.error();
    std::vector<double> ms;
    for (int i = 0; i < std::max(iters, 1); ++i) {
        auto t0 = SteadyClock::now();
        if (auto r = run(inputs, seed); !r.ok()) return r.error();
        ms.push_back(msSince(t0));
    }
    return summarize(ms);
}

Expected<std::vector<Value>> Backend::runObserved(const Graph& g, const RunRequest& req,
                                                  std::map<std::string, Value>& nodeValues) {
    GraphRunner runner = [this](const Graph& eg, const RunRequest& er) -> Expected<std::vector<Value>> {
        auto o = run(eg, er);
        if (!o.ok()) return o.error();
        return std::move(o->outputs);
    };
    auto n = runExposed(g, req, runner, nodeValues);
    if (!n.ok()) {
        Diagnostic d = n.error();
        d.message = "the run reporting every node's value failed: " + d.message;
        return d;
    }
    return n;
}

Expected<std::unique_ptr<CompiledProgram>> Backend::compile(const Graph&, const std::vector<Value>&) {
    return makeError("backend '" + name() +
                     "' runs graphs without compiling them; choose a compiled backend (cpu, cuda)");
}

Expected<std::vector<Value>> Backend::outputs(const Graph& g, const std::vector<Value>& inputs, uint64_t seed,
                                              std::map<std::string, Value>* nodeValues, RunReport* report) {
    RunRequest req;
    req.inputs = inputs;  // run() and runObserved() leave inputs unmodified
    req.seed = seed;
    // The reference executor reports node values as it goes: one run does both.
    if (nodeValues && !caps().compiles) {
        if (report) report->device = peak().device;
        return runObserved(g, req, *nodeValues);
    }
    // A compiled backend's outputs come from a run of g as given, with fusion intact (what a
    // user runs); the observed run of the exposed copy only adds the node values.
    auto r = run(g, req, nullptr, report);
    if (!r.ok()) return r.error();
    if (nodeValues)
        if (auto n = runObserved(g, req, *nodeValues); !n.ok()) return n.error();
    return std::move(r->outputs);
}

namespace {

/// The reference executor, in fp32 or fp64.
class ReferenceBackend final : public Backend {
public:
    explicit ReferenceBackend(bool fp64) : m_fp64(fp64) {}
    std::string name() const override { return m_fp64 ? "ref64" : "ref"; }
    BackendCaps caps() const override { return {}; }
    cg::PeakRates peak() const override {
        cg::PeakRates p;
        p.device = "reference executor (host)";
        return p;
    }
    Expected<RunResult> run(const Graph& g, const RunRequest& req, const std::vector<Value>* expect,
                            RunReport* report) override {
        if (report) report->device = peak().device;
        if (!m_fp64) return runAndCheck(g, req, expect);
        RunRequest r64 = req;
        r64.fp64 = true;
        return runAndCheck(g, r64, expect);
    }
    Expected<std::vector<Value>> runObserved(const Graph& g, const RunRequest& req,
                                             std::map<std::string, Value>& nodeValues) override {
        // The interpreter reports each node as it evaluates it: no exposed copy needed.
        RunRequest r = req;
        r.fp64 = r.fp64 || m_fp64;
        return runReferenceObserved(g, r, nodeValues);
    }

private:
    bool m_fp64;
};

std::mutex& tableMutex() {
    static std::mutex m;
    return m;
}
std::map<std::string, BackendFactory>& table() {
    static std::map<std::string, BackendFactory> t;
    return t;
}

}  // namespace

std::unique_ptr<Backend> makeReferenceBackend(bool fp64) { return std::make_unique<ReferenceBackend>(fp64); }

Expected<std::unique_ptr<Backend>> makeBackend(const std::string& name) {
    BackendFactory f;
    {
        std::lock_guard<std::mutex> lock(tableMutex());
        auto it = table().find(name);
        if (it != table().end()) f = it->second;
    }
    if (f) return f();
    if (name == "cpu" || name == "cuda")
        return makeError("backend '" + name +
                         "' is not available in this build (the compiled backends are not "
                         "built here); use the ref and ref64 sides, e.g. accuracy:ref64-vs-ref32");
    std::string known;
    for (const auto& n : backendNames()) known += (known.empty() ? "" : ", ") + n;
    return makeError("unknown backend '" + name + "' (" + known + ")");
}

void registerBackend(const std::string& name, BackendFactory factory) {
    std::lock_guard<std::mutex> lock(tableMutex());
    table()[name] = std::move(factory);
}

bool backendAvailable(const std::string& name) {
    std::lock_guard<std::mutex> lock(tableMutex());
    return table().count(name) > 0;
}

std::vector<std::string> backendNames() {
    std::lock_guard<std::mutex> lock(tableMutex());
    std::vector<std::string> names;
    for (const auto& [n, f] : table()) names.push_back(n);
    return names;
}

}  // namespace fxray
