#include "codegen/cuda/backend_cuda.h"

#include "codegen/cuda/cuda_backend.h"

namespace fxray::cg::cuda {

namespace {

class CudaProgram final : public CompiledProgram {
public:
    explicit CudaProgram(std::unique_ptr<CompiledGraph> cg) : m_cg(std::move(cg)) {}
    Expected<std::vector<Value>> run(const std::vector<Value>& inputs, uint64_t seed) override {
        return m_cg->run(inputs, {}, seed);
    }
    Expected<Timing> benchmark(const std::vector<Value>& inputs, int iters, int warmup, uint64_t seed) override {
        // Device-resident: inputs uploaded once, no transfer in the timed runs.
        auto b = m_cg->benchmark(inputs, {}, iters, warmup, seed);
        if (!b.ok()) return b.error();
        return Timing{b->medianMs, b->minMs, b->maxMs, b->iters};
    }
    Expected<std::vector<StepProfile>> profile(const std::vector<Value>& inputs, uint64_t seed) override {
        return m_cg->profile(inputs, {}, 1, seed);
    }

private:
    std::unique_ptr<CompiledGraph> m_cg;
};

class CudaBackend final : public Backend {
public:
    std::string name() const override { return "cuda"; }
    BackendCaps caps() const override { return {/*compiles=*/true, /*device=*/true}; }
    PeakRates peak() const override { return devicePeak(); }
    Expected<RunResult> run(const Graph& g, const RunRequest& req, const std::vector<Value>* expect,
                            RunReport* report) override {
        CudaRunInfo info;
        auto r = runAndCheckCuda(g, req, expect, report ? &info : nullptr);
        if (report) {
            report->compileMs = info.compile.totalMs;
            report->kernels = info.kernels;
            report->externCalls = info.run.gemms + info.run.deviceExterns;
            // Everything that ran on the host: lowering fallbacks and host-run extern calls alike.
            report->fallbacks = info.run.hostOps;
            report->device = info.device;
        }
        return r;
    }
    Expected<std::unique_ptr<CompiledProgram>> compile(const Graph& g, const std::vector<Value>& inputs) override {
        auto c = CompiledGraph::compile(g, inputs);
        if (!c.ok()) return c.error();
        return std::unique_ptr<CompiledProgram>(new CudaProgram(std::move(c).value()));
    }
};

}  // namespace

Expected<std::unique_ptr<Backend>> makeCudaBackend() {
    if (Status s = requireDevice(); !s.ok()) return s.error();
    return std::unique_ptr<Backend>(new CudaBackend());
}

}  // namespace fxray::cg::cuda
