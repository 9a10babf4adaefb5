#pragma once
/// The CUDA backend: compiles a whole ATen graph (lowering -> fusion -> CUDA C++ -> NVRTC) and
/// runs it on the GPU with the CPU backend's conventions (one value per placeholder, pinned
/// values for random nodes, lifted constants from the graph), so that `fxray run --backend
/// cuda`, the tests and the benchmarks can use it in place of the reference executor.
///
/// Generated kernels run on the device; GEMMs (mm, addmm, bmm) run through cuBLAS with TF32
/// off; convolutions through cuDNN; the ops Inductor leaves to ATen (attention, pooling with
/// indices, sorting and the uniques, linear algebra, embedding bags, ...) as device externs
/// (device_externs.h), and random ops (rand, randperm, dropout) draw the reference executor's
/// stream on the device (PyTorch's Philox stream is not reproduced, so runs compared with
/// PyTorch pin random nodes). Subgraph ops (cond, checkpoint, wrap) run their subgraphs compiled
/// by this backend, operands and results staying on the device (cond reads its predicate back,
/// one element). Anything else (ops without a lowering or a device extern, instances an extern
/// declines) runs on the host through the reference kernel: an explicit, reported fallback
/// (inputs copied down, the result copied back up).
#include "codegen/cuda/cuda_api.h"
#include "codegen/cuda/cuda_source.h"
#include "codegen/scheduler.h"
#include "codegen/size_guard.h"
#include "codegen/step_profile.h"
#include "codegen/subgraph_call.h"
#include "exec/complex_to_real.h"
#include "exec/run_check.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fxray::cg::cuda {

struct CompileOptions {
    ScheduleOptions schedule;
    /// Nodes whose values are supplied at run time (RunRequest::pins).
    std::vector<std::string> pinned;
    /// FXRAY_CUDA_DUMP: appended to the dumped module's file name (a subgraph's "_cond_true"), so
    /// that a subgraph's module does not overwrite its graph's.
    std::string dumpSuffix;
};

/// Where compile time went.
struct CompileStats {
    double lowerMs = 0, scheduleMs = 0, codegenMs = 0, nvrtcMs = 0, loadMs = 0, totalMs = 0;
    /// The built-in kernels' module, compiled once per process (0 when already loaded).
    double builtinMs = 0;
};

struct SourceOnly;
/// A subgraph op's subgraphs (cond: true, false; checkpoint/wrap: body), each compiled like a
/// graph for the operand metadata the lowering inferred.
struct SubgraphSources {
    SubgraphCall call;
    std::vector<SourceOnly> graphs;
};

/// Generated source and NVRTC output of a graph without running it (no device needed: PTX for
/// `arch` "compute_XX"). This is what CI checks for every corpus graph.
struct SourceOnly {
    const Graph* graph = nullptr;
    Program program;
    CudaSource source;
    NvrtcOutput compiled;
    CompileStats stats;  ///< the subgraphs' compilation included
    /// Opaque call index -> its subgraphs (the call is the extern "subgraph").
    std::map<size_t, SubgraphSources> subgraphs;
    /// Ops run on the host through the reference kernel, with counts, the subgraphs' included.
    std::map<std::string, int> fallbacks;
    /// The given graph with its complex values made real (exec/complex_to_real.h), which `graph`
    /// points into; null for a graph without complex values.
    std::shared_ptr<const RealifiedGraph> complex;
};
Expected<SourceOnly> compileSourceOnly(const Graph& g, const std::vector<Value>& inputs, const std::string& arch,
                                       const CompileOptions& opts = {});

/// Inputs from the placeholders' annotations (static shapes only).
Expected<std::vector<Value>> annotatedInputs(const Graph& g);

struct RunOptions {
    /// Synchronise after every step so that a fault names its kernel (default: on).
    bool syncEachStep = true;
    /// When set: each step's time on the device (CUDA events around it), in Program::steps order.
    std::vector<double>* stepMs = nullptr;
    /// When set: per step, 1 where an extern call ran on the host (no device kernel for it).
    std::vector<char>* stepOnHost = nullptr;
};

/// What one run did besides computing outputs.
struct RunStats {
    size_t kernelLaunches = 0, gemms = 0, deviceCopies = 0, deviceExterns = 0;
    size_t cudnnCalls = 0;    ///< of deviceExterns, convolutions cuDNN ran
    size_t subgraphRuns = 0;  ///< cond branches and checkpoint/wrap bodies run by their compiled graphs
    /// Ops run on the host ("aten.convolution.default" -> count), fallbacks and externs alike.
    std::map<std::string, int> hostOps;
};

/// Repeated runs on device-resident inputs (CompiledGraph::benchmark).
struct BenchStats {
    double medianMs = 0, minMs = 0, maxMs = 0;
    int iters = 0;
    RunStats run;  ///< of one run
};

/// A graph compiled for the GPU.
class CompiledGraph {
public:
    /// Compiles g for inputs with the metadata of `inputs`. Fails with "no CUDA device: ..." when
    /// there is no usable device.
    static Expected<std::unique_ptr<CompiledGraph>> compile(const Graph& g, const std::vector<Value>& inputs,
                                                            const CompileOptions& opts = {});
    ~CompiledGraph();

    /// Runs on host inputs (not modified) and returns host outputs.
    Expected<std::vector<Value>> run(const std::vector<Value>& inputs, const std::map<std::string, Value>& pins = {},
                                     uint64_t seed = 0, const RunOptions& ro = {}, RunStats* stats = nullptr) const;

    /// Times runs without the transfers: inputs uploaded once, every value kept on the device,
    /// kernels queued back to back (no per-step synchronisation); each of `iters` timed runs
    /// (after `warmup` untimed ones) ends with one context synchronise. Host fallbacks, if the
    /// graph has any, still copy their operands and so are part of the time.
    Expected<BenchStats> benchmark(const std::vector<Value>& inputs, const std::map<std::string, Value>& pins = {},
                                   int iters = 20, int warmup = 3, uint64_t seed = 0) const;

    /// One run's steps with their device times (after `warmup` untimed runs), as
    /// codegen/step_profile.h describes them; no per-step synchronisation.
    Expected<std::vector<StepProfile>> profile(const std::vector<Value>& inputs,
                                               const std::map<std::string, Value>& pins = {}, int warmup = 2,
                                               uint64_t seed = 0) const;

    const Graph& graph() const { return *m_graph; }
    const std::vector<CUfunction>& functions() const { return m_functions; }
    const Program& program() const { return m_program; }
    const CudaSource& source() const { return m_source; }
    const CompileStats& stats() const { return m_stats; }
    const std::string& arch() const { return m_arch; }
    /// Ops run on the host through the reference kernel, those of the compiled subgraphs included.
    const std::map<std::string, int>& fallbackOps() const { return m_fallbacks; }
    /// A subgraph op's call and its subgraphs compiled by this backend (cond: true, false;
    /// checkpoint/wrap: body), by opaque call index; null for another call.
    struct Subgraphs {
        SubgraphCall call;
        std::vector<std::unique_ptr<CompiledGraph>> graphs;
    };
    const Subgraphs* subgraphs(size_t callIndex) const {
        auto it = m_subgraphs.find(callIndex);
        return it == m_subgraphs.end() ? nullptr : &it->second;
    }
    /// Dynamic shapes: the binding the code is specialized to (run() refuses another).
    const SizeGuard& sizeGuard() const { return m_guard; }

private:
    CompiledGraph() = default;
    /// Loads so's module (and its subgraphs', recursively), specialized to `guard`'s binding.
    static Expected<std::unique_ptr<CompiledGraph>> load(SourceOnly&& so, SizeGuard guard);
    /// `inputs` for the graph as compiled: complex tensors as their real views when the given
    /// graph held complex values (kept in `storage`), else `inputs` itself.
    const std::vector<Value>& compiledInputs(const std::vector<Value>& inputs, std::vector<Value>& storage) const;
    /// See SourceOnly::complex; inputs and outputs are converted at run().
    std::shared_ptr<const RealifiedGraph> m_complex;
    const Graph* m_graph = nullptr;
    SizeGuard m_guard;
    Program m_program;
    CudaSource m_source;
    CompileStats m_stats;
    std::string m_arch;
    CUmodule m_module = nullptr;
    std::vector<CUfunction> m_functions;
    std::map<std::string, int> m_fallbacks;
    std::map<size_t, Subgraphs> m_subgraphs;
};

/// What runAndCheckCuda adds to RunResult.
struct CudaRunInfo {
    CompileStats compile;
    RunStats run;
    std::map<std::string, int> fallbacks;
    size_t kernels = 0;
    std::string device;
};

/// runAndCheck on the GPU: outputs compared with `expect`, failing floating outputs re-judged
/// against the reference executor's fp64 run (exec/run_check.h).
Expected<RunResult> runAndCheckCuda(const Graph& g, const RunRequest& req, const std::vector<Value>* expect,
                                    CudaRunInfo* info = nullptr);

/// The device's peak memory bandwidth and fp32 FLOP/s from its attributes (0 where unreported).
PeakRates devicePeak();

/// Bytes held by the caching device allocator (in use, cached).
std::pair<size_t, size_t> allocatorBytes();

}  // namespace fxray::cg::cuda
