#pragma once
/// The CPU backend: compiles a whole ATen graph (lowering -> fusion -> LLVM) and runs it with
/// the reference executor's input/output conventions (one value per placeholder, pinned values
/// for random nodes, lifted constants from the graph), so that it can stand in for the
/// Interpreter in `fxray run --backend cpu`, the tests and the benchmarks.
///
/// Nodes the lowering leaves as opaque calls run as extern kernels (GEMM, convolution, scatters,
/// cpu/extern_*.h), `higher_order.cond` / checkpoint / wrap as their subgraphs compiled by this
/// backend (each branch of a cond compiled ahead, the one taken picked at run time), and the
/// random ops (randperm, native_dropout) and data-sized ones (_unique, repeat_interleave) as
/// extern kernels attached by qualname (cpu/cpu_ops.h qualnameExterns()). Whatever remains runs on the reference kernel and is reported as a
/// fallback (fallbackOps()). program().lowered keeps the lowering's own classification of the
/// calls (the AOT cache's plan is keyed on it); the group map (program().groups) shows them as
/// extern.
#include "codegen/cpu/llvm_jit.h"
#include "codegen/scheduler.h"
#include "codegen/size_guard.h"
#include "codegen/step_profile.h"
#include "exec/run_check.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fxray::cg::cpu {

struct CompileOptions {
    ScheduleOptions schedule;
    JitOptions jit;
    /// Nodes whose values are supplied at run time (RunRequest::pins).
    std::vector<std::string> pinned;
};

/// Where compile time went.
struct CompileStats {
    double lowerMs = 0, scheduleMs = 0, llvmMs = 0, totalMs = 0;
};

/// A graph compiled for the CPU.
class CompiledGraph {
public:
    /// Compiles g for inputs with the metadata of `inputs` (tensors may be meta-only).
    static Expected<std::unique_ptr<CompiledGraph>> compile(const Graph& g, const std::vector<Value>& inputs,
                                                            const CompileOptions& opts = {});
    /// Inputs from the placeholders' annotations (no real inputs at hand).
    static Expected<std::vector<Value>> annotatedInputs(const Graph& g);

    /// Runs on inputs (not modified); `pins` must hold every pinned node; `seed` drives the
    /// random ops that run through the reference kernels.
    /// `stepMs` (optional): each step's wall time, in Program::steps order.
    /// `declined` (optional): ops whose extern kernel declined this instance at run time and ran
    /// through the reference kernel instead (a 1-D convolution, a dtype a kernel lacks), counted
    /// per op: fallbacks the compile-time list cannot show.
    Expected<std::vector<Value>> run(const std::vector<Value>& inputs, const std::map<std::string, Value>& pins = {},
                                     uint64_t seed = 0, std::vector<double>* stepMs = nullptr,
                                     std::map<std::string, int>* declined = nullptr) const;

    /// One run's steps with their times (after `warmup` untimed runs), as codegen/step_profile.h
    /// describes them.
    Expected<std::vector<StepProfile>> profile(const std::vector<Value>& inputs,
                                               const std::map<std::string, Value>& pins = {}, int warmup = 1,
                                               uint64_t seed = 0) const;

    const Program& program() const { return m_program; }
    const KernelJit& jit() const { return *m_jit; }
    const CompileStats& stats() const { return m_stats; }
    /// Dynamic shapes: the binding the code is specialized to (run() refuses another).
    const SizeGuard& sizeGuard() const { return m_guard; }
    /// Ops run through the reference kernel ("aten.embedding_dense_backward.default" -> count);
    /// the ops of compiled subgraphs included.
    const std::map<std::string, int>& fallbackOps() const { return m_fallbacks; }
    /// Opaque calls run by extern kernels (compiled subgraphs and random kernels included).
    size_t externCalls() const;
    /// Worker threads used for kernels (1 = caller only).
    static int threads();

private:
    CompiledGraph() = default;
    const Graph* m_graph = nullptr;
    SizeGuard m_guard;
    Program m_program;
    std::unique_ptr<KernelJit> m_jit;
    CompileStats m_stats;
    std::map<std::string, int> m_fallbacks;
    /// Opaque call index -> its compiled subgraphs (cond: true, false; checkpoint/wrap: body).
    std::map<size_t, std::vector<std::unique_ptr<CompiledGraph>>> m_subgraphs;
    /// Calls the lowering left as fallbacks that run here instead ("subgraph", "randperm",
    /// "native_dropout"), by opaque call index.
    std::map<size_t, std::string> m_externOf;

    Status compileSubgraphs(const Graph& g, const CompileOptions& opts);
};

/// What runAndCheckCpu adds to RunResult.
struct CpuRunInfo {
    CompileStats compile;
    /// Ops the reference kernel ran: the lowering's fallbacks and the run's declined externs.
    std::map<std::string, int> fallbacks;
    size_t kernels = 0;
    size_t externCalls = 0;
};

/// runAndCheck on the CPU backend: outputs compared with `expect`, failing floating outputs
/// re-judged against the reference executor's fp64 run (exec/run_check.h).
Expected<RunResult> runAndCheckCpu(const Graph& g, const RunRequest& req, const std::vector<Value>* expect,
                                   CpuRunInfo* info = nullptr);

}  // namespace fxray::cg::cpu
