#include "codegen/cuda/cuda_backend.h"

#include "codegen/cuda/builtin_kernels.h"
#include "codegen/cuda/cuda_executor.h"
#include "codegen/cuda/cuda_ops.h"
#include "codegen/cuda/device_ops.h"
#include "support/timing.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fxray::cg::cuda {

namespace {

/// The extern kernel name of a subgraph op run by its compiled subgraphs.
constexpr const char* kSubgraphExtern = "subgraph";

std::vector<Value> metasOf(const std::vector<Value>& inputs) {
    std::vector<Value> metas;
    for (const auto& v : inputs) {
        if (!v.isTensor()) {
            metas.push_back(v);
            continue;
        }
        TensorMeta m = v.t.meta;
        m.offset = 0;  // inputs are uploaded relaid to their own strides at offset 0
        metas.push_back(Value::ofTensor(Tensor::metaOnly(m)));
    }
    return metas;
}

Expected<Program> lowerAndSchedule(const Graph& g, const std::vector<Value>& inputs, const CompileOptions& opts,
                                   CompileStats& st) {
    auto t0 = std::chrono::steady_clock::now();
    auto lg = lowerGraph(g, metasOf(inputs), opts.pinned, &inputs);
    if (!lg.ok()) return lg.error();
    // Ops without a rule but with a device kernel (rand, dropout) and subgraph ops (their
    // subgraphs compiled by this backend, compileSourceOnly): extern calls, not fallbacks.
    for (OpaqueCall& call : lg->calls) {
        if (call.kind != OpaqueCall::Kind::Fallback) continue;
        const char* k = fallbackDeviceExternFor(call.node->opName());
        if (!k && subgraphCall(call, g, *lg)) k = kSubgraphExtern;
        if (!k) continue;
        call.kind = OpaqueCall::Kind::Extern;
        call.fn = k;
        if (auto it = lg->fallbackOps.find(call.node->opName()); it != lg->fallbackOps.end() && --it->second == 0)
            lg->fallbackOps.erase(it);
    }
    st.lowerMs = msSince(t0);
    auto t1 = std::chrono::steady_clock::now();
    auto prog = schedule(std::move(lg).value(), opts.schedule);
    if (!prog.ok()) return prog.error();
    st.scheduleMs = msSince(t1);
    return prog;
}

/// Each subgraph of so's subgraph calls compiled like a graph (recursively: a branch may hold a
/// cond of its own), for the operand metadata the lowering inferred; their fallbacks and compile
/// times added to so's.
Status compileSubgraphSources(SourceOnly& so, const std::string& arch, const CompileOptions& opts) {
    const LoweredGraph& lg = so.program.lowered;
    for (size_t ci = 0; ci < lg.calls.size(); ++ci) {
        const OpaqueCall& call = lg.calls[ci];
        if (call.kind != OpaqueCall::Kind::Extern || call.fn != kSubgraphExtern) continue;
        const Node& n = *call.node;
        auto sc = subgraphCall(call, *so.graph, lg);
        if (!sc) return makeError("subgraph call '" + n.name() + "' is no longer in its usual form");
        CompileOptions sub;
        sub.schedule = opts.schedule;  // pins name the graph's own nodes: none in a subgraph
        SubgraphSources ss;
        for (size_t i = 0; i < sc->graphs.size(); ++i) {
            sub.dumpSuffix =
                opts.dumpSuffix + "_" + n.name() + "_" + (sc->isCond ? (i == 0 ? "true" : "false") : "body");
            auto c = compileSourceOnly(*sc->graphs[i], sc->operandMetas, arch, sub);
            if (!c.ok()) {
                Diagnostic d = c.error();
                if (d.node.empty()) d.node = n.name();
                d.message = "compiling " + subgraphRole(sc->isCond, i) + " of '" + n.name() + "': " + d.message;
                return d;
            }
            for (const auto& [op, k] : c->fallbacks) so.fallbacks[op] += k;
            so.stats.lowerMs += c->stats.lowerMs;
            so.stats.scheduleMs += c->stats.scheduleMs;
            so.stats.codegenMs += c->stats.codegenMs;
            so.stats.nvrtcMs += c->stats.nvrtcMs;
            ss.graphs.push_back(std::move(c).value());
        }
        ss.call = std::move(*sc);
        so.subgraphs.emplace(ci, std::move(ss));
    }
    return Status::success();
}

}  // namespace

Expected<std::vector<Value>> annotatedInputs(const Graph& g) { return annotatedStaticInputs(g, "CUDA"); }

Expected<SourceOnly> compileSourceOnly(const Graph& g, const std::vector<Value>& inputs, const std::string& arch,
                                       const CompileOptions& opts) {
    if (graphHasComplex(g)) {
        auto real = complexToReal(g);
        if (!real.ok()) return real.error();
        auto so = compileSourceOnly(*(*real)->graph, (*real)->realInputs(inputs), arch, opts);
        if (so.ok()) so->complex = std::move(real).value();
        return so;
    }
    auto t0 = std::chrono::steady_clock::now();
    SourceOnly so;
    auto prog = lowerAndSchedule(g, inputs, opts, so.stats);
    if (!prog.ok()) return prog.error();
    so.program = std::move(prog).value();
    auto t1 = std::chrono::steady_clock::now();
    auto src = generateCudaSource(so.program.kernels);
    if (!src.ok()) return src.error();
    so.source = std::move(src).value();
    so.stats.codegenMs = msSince(t1);
    if (const char* dump = std::getenv("FXRAY_CUDA_DUMP"); dump && *dump) {
        // Debugging aid: the module as NVRTC sees it.
        std::ofstream(
            std::string(dump) + "/" +
            (g.sourceFile.empty() ? std::string("graph") : std::filesystem::path(g.sourceFile).stem().string()) +
            opts.dumpSuffix + ".cu")
            << so.source.source;
    }
    auto out = nvrtcCompile(so.source.source, "fxray_graph", arch);
    if (!out.ok()) return out.error();
    so.compiled = std::move(out).value();
    so.stats.nvrtcMs = so.compiled.ms;
    so.graph = &g;
    so.fallbacks = so.program.lowered.fallbackOps;
    if (Status s = compileSubgraphSources(so, arch, opts); !s.ok()) return s.error();
    so.stats.totalMs = msSince(t0);
    return so;
}

CompiledGraph::~CompiledGraph() {
    if (m_module) runtime().cu.cuModuleUnload(m_module);
}

Expected<std::unique_ptr<CompiledGraph>> CompiledGraph::compile(const Graph& g, const std::vector<Value>& inputs,
                                                                const CompileOptions& opts) {
    if (Status s = requireDevice(); !s.ok()) return s.error();
    if (graphHasComplex(g)) {
        auto real = complexToReal(g);
        if (!real.ok()) return real.error();
        auto cg = compile(*(*real)->graph, (*real)->realInputs(inputs), opts);
        if (cg.ok()) (*cg)->m_complex = std::move(real).value();
        return cg;
    }
    auto t0 = std::chrono::steady_clock::now();
    auto guard = SizeGuard::forInputs(g, inputs);
    if (!guard.ok()) return guard.error();
    auto so = compileSourceOnly(g, inputs, targetArch(), opts);
    if (!so.ok()) return so.error();
    auto cg = load(std::move(so).value(), std::move(guard).value());
    if (!cg.ok()) return cg.error();
    // The built-in kernels (copies, convolution, scatters) are compiled on first use in the
    // process; paying it here keeps that time out of the first run and in the compile report.
    if (!(*cg)->m_program.lowered.calls.empty()) {
        auto t2 = std::chrono::steady_clock::now();
        if (Status s = warmBuiltins(); !s.ok()) return s.error();
        (*cg)->m_stats.builtinMs = msSince(t2);
    }
    (*cg)->m_stats.totalMs = msSince(t0);
    return cg;
}

Expected<std::unique_ptr<CompiledGraph>> CompiledGraph::load(SourceOnly&& so, SizeGuard guard) {
    const CudaRuntime& rt = runtime();
    std::unique_ptr<CompiledGraph> cg(new CompiledGraph());
    cg->m_graph = so.graph;
    cg->m_complex = so.complex;
    cg->m_guard = std::move(guard);
    cg->m_arch = targetArch();
    cg->m_program = std::move(so.program);
    cg->m_source = std::move(so.source);
    cg->m_stats = so.stats;
    cg->m_fallbacks = std::move(so.fallbacks);
    auto t1 = std::chrono::steady_clock::now();
    if (!cg->m_program.kernels.empty()) {
        if (Status s = check(rt.cu.cuModuleLoadData(&cg->m_module, so.compiled.image.data()), "loading the kernels");
            !s.ok())
            return s.error();
        for (const auto& plan : cg->m_source.plans) {
            CUfunction f = nullptr;
            if (Status s = check(rt.cu.cuModuleGetFunction(&f, cg->m_module, plan.name.c_str()), "kernel " + plan.name);
                !s.ok())
                return s.error();
            cg->m_functions.push_back(f);
        }
    }
    for (auto& [ci, ss] : so.subgraphs) {
        Subgraphs& sub = cg->m_subgraphs[ci];
        for (SourceOnly& sg : ss.graphs) {
            auto sgGuard = SizeGuard::forInputs(*sg.graph, ss.call.operandMetas);
            if (!sgGuard.ok()) return sgGuard.error();
            auto c = load(std::move(sg), std::move(sgGuard).value());
            if (!c.ok()) return c.error();
            sub.graphs.push_back(std::move(c).value());
        }
        sub.call = std::move(ss.call);
    }
    cg->m_stats.loadMs += msSince(t1);
    return cg;
}

Expected<std::vector<Value>> CompiledGraph::run(const std::vector<Value>& inputs,
                                                const std::map<std::string, Value>& pins, uint64_t seed,
                                                const RunOptions& ro, RunStats* stats) const {
    RunStats local;
    std::vector<Value> storage;
    const auto& in = compiledInputs(inputs, storage);
    if (Status s = m_guard.check(*m_graph, in); !s.ok()) return s.error();
    Executor ex(*this);
    if (Status s = ex.prepare(in, pins); !s.ok()) return s.error();
    if (Status s = ex.execute(seed, ro, stats ? *stats : local); !s.ok()) return s.error();
    auto outs = ex.outputs();
    if (m_complex && outs.ok()) m_complex->restoreOutputs(*outs);
    return outs;
}

const std::vector<Value>& CompiledGraph::compiledInputs(const std::vector<Value>& inputs,
                                                        std::vector<Value>& storage) const {
    if (!m_complex) return inputs;
    storage = m_complex->realInputs(inputs);
    return storage;
}

Expected<std::vector<StepProfile>> CompiledGraph::profile(const std::vector<Value>& inputs,
                                                          const std::map<std::string, Value>& pins, int warmup,
                                                          uint64_t seed) const {
    std::vector<Value> storage;
    const auto& in = compiledInputs(inputs, storage);
    if (Status s = m_guard.check(*m_graph, in); !s.ok()) return s.error();
    Executor ex(*this);
    if (Status s = ex.prepare(in, pins); !s.ok()) return s.error();
    RunOptions ro;
    ro.syncEachStep = false;
    for (int i = 0; i < std::max(0, warmup); ++i) {
        RunStats rs;
        if (Status s = ex.execute(seed, ro, rs); !s.ok()) return s.error();
    }
    std::vector<double> ms;
    std::vector<char> onHost;
    ro.stepMs = &ms;
    ro.stepOnHost = &onHost;
    RunStats rs;
    if (Status s = ex.execute(seed, ro, rs); !s.ok()) return s.error();
    auto steps = describeSteps(m_program);
    for (size_t i = 0; i < steps.size() && i < ms.size(); ++i) {
        steps[i].ms = ms[i];
        // An extern call without a device kernel for this instance ran on the host.
        if (i < onHost.size() && onHost[i] && steps[i].kind == "extern") steps[i].kind = "host";
    }
    return steps;
}

PeakRates devicePeak() {
    const CudaRuntime& rt = runtime();
    PeakRates p;
    p.device = rt.deviceName + (rt.pciBusId.empty() ? "" : " (PCI " + rt.pciBusId + ")");
    // DDR: two transfers per memory clock over the bus.
    p.bytesPerSecond = 2.0 * rt.memClockKHz * 1e3 * (rt.busWidthBits / 8.0);
    // fp32 FMA lanes per SM: 128 on every architecture since Ampere's GA10x/Hopper (64 on GA100 /
    // Volta); an FMA counts two FLOPs.
    const int lanes = rt.ccMajor == 7 || (rt.ccMajor == 8 && rt.ccMinor == 0) ? 64 : 128;
    p.flopsPerSecond = 2.0 * lanes * rt.smCount * rt.clockKHz * 1e3;
    return p;
}

Expected<BenchStats> CompiledGraph::benchmark(const std::vector<Value>& inputs,
                                              const std::map<std::string, Value>& pins, int iters, int warmup,
                                              uint64_t seed) const {
    const CudaRuntime& rt = runtime();
    std::vector<Value> storage;
    const auto& in = compiledInputs(inputs, storage);
    if (Status s = m_guard.check(*m_graph, in); !s.ok()) return s.error();
    Executor ex(*this);
    if (Status s = ex.prepare(in, pins); !s.ok()) return s.error();
    RunOptions ro;
    ro.syncEachStep = false;
    BenchStats bs;
    for (int i = 0; i < std::max(0, warmup); ++i) {
        RunStats rs;
        if (Status s = ex.execute(seed, ro, rs); !s.ok()) return s.error();
        bs.run = rs;
    }
    if (Status s = check(rt.cu.cuCtxSynchronize(), "warming up"); !s.ok()) return s.error();
    std::vector<double> times;
    for (int i = 0; i < std::max(1, iters); ++i) {
        RunStats rs;
        auto t0 = std::chrono::steady_clock::now();
        if (Status s = ex.execute(seed, ro, rs); !s.ok()) return s.error();
        if (Status s = check(rt.cu.cuCtxSynchronize(), "finishing a timed run"); !s.ok()) return s.error();
        times.push_back(msSince(t0));
        bs.run = rs;
    }
    const Timing t = summarize(times);
    bs.iters = t.iters;
    bs.medianMs = t.medianMs;
    bs.minMs = t.minMs;
    bs.maxMs = t.maxMs;
    return bs;
}

Expected<RunResult> runAndCheckCuda(const Graph& g, const RunRequest& req, const std::vector<Value>* expect,
                                    CudaRunInfo* info) {
    CompileOptions opts;
    for (const auto& [k, v] : req.pins) opts.pinned.push_back(k);
    auto cg = CompiledGraph::compile(g, req.inputs, opts);
    if (!cg.ok()) return cg.error();
    RunResult res;
    RunStats rs;
    auto t0 = std::chrono::steady_clock::now();
    auto outs = (*cg)->run(req.inputs, req.pins, req.seed, {}, &rs);
    res.ms = msSince(t0);
    if (info) {
        info->compile = (*cg)->stats();
        info->fallbacks = (*cg)->fallbackOps();
        info->kernels = (*cg)->program().kernels.size();
        info->run = rs;
        // The PCI bus id tells apart the devices of a multi-GPU host (a sweep's workers).
        const CudaRuntime& rt = runtime();
        info->device = rt.deviceName + " (" + (*cg)->arch() + (rt.pciBusId.empty() ? "" : ", PCI " + rt.pciBusId) + ")";
    }
    if (!outs.ok()) return outs.error();
    res.outputs = std::move(outs).value();
    if (!expect) return res;
    if (Status s = judgeOutputs(g, req, *expect, res); !s.ok()) return s.error();
    return res;
}

std::pair<size_t, size_t> allocatorBytes() { return cacheBytes(); }

}  // namespace fxray::cg::cuda
