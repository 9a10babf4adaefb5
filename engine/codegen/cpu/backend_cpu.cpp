#include "codegen/cpu/backend_cpu.h"

#include "codegen/cpu/cpu_backend.h"

namespace fxray::cg::cpu {

namespace {

PeakRates hostPeak() {
    PeakRates p;
    p.device = "host CPU (" + std::to_string(CompiledGraph::threads()) + " threads)";
    return p;
}

class CpuProgram final : public CompiledProgram {
public:
    explicit CpuProgram(std::unique_ptr<CompiledGraph> cg) : m_cg(std::move(cg)) {}
    Expected<std::vector<Value>> run(const std::vector<Value>& inputs, uint64_t seed) override {
        return m_cg->run(inputs, {}, seed);
    }
    Expected<std::vector<StepProfile>> profile(const std::vector<Value>& inputs, uint64_t seed) override {
        return m_cg->profile(inputs, {}, 1, seed);
    }

private:
    std::unique_ptr<CompiledGraph> m_cg;
};

class CpuBackend final : public Backend {
public:
    std::string name() const override { return "cpu"; }
    BackendCaps caps() const override { return {/*compiles=*/true, /*device=*/false}; }
    PeakRates peak() const override { return hostPeak(); }
    Expected<RunResult> run(const Graph& g, const RunRequest& req, const std::vector<Value>* expect,
                            RunReport* report) override {
        CpuRunInfo info;
        auto r = runAndCheckCpu(g, req, expect, report ? &info : nullptr);
        if (report) {
            report->compileMs = info.compile.totalMs;
            report->kernels = info.kernels;
            report->externCalls = info.externCalls;
            report->fallbacks = info.fallbacks;
            report->device = hostPeak().device;
        }
        return r;
    }
    Expected<std::unique_ptr<CompiledProgram>> compile(const Graph& g, const std::vector<Value>& inputs) override {
        auto c = CompiledGraph::compile(g, inputs);
        if (!c.ok()) return c.error();
        return std::unique_ptr<CompiledProgram>(new CpuProgram(std::move(c).value()));
    }
};

}  // namespace

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

}  // namespace fxray::cg::cpu
