#pragma once
/// The one interface for running a graph, implemented by every backend of a build: "ref" (the
/// reference executor), "ref64" (the same in fp64 throughout), "cpu" (LLVM; when built) and
/// "cuda" (NVRTC; making it fails without a usable GPU). `fxray run`, `compare` and `bench`, the
/// minifier's accuracy checks, and the app (through those commands in a child process) all go
/// through it, so a backend added to the table is usable everywhere at once.
///
/// The table is filled at start-up by the composition root (registry/backends.h, which
/// initOpRegistry() calls), like the op table: this layer does not know the CPU backend above it.
#include "codegen/step_profile.h"
#include "exec/run_check.h"
#include "support/timing.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fxray {

/// What a backend can do beyond run().
struct BackendCaps {
    bool compiles = false;  ///< generates code: compile() works, runs report kernels and fallbacks
    bool device = false;    ///< runs on an accelerator (inputs and outputs are copied over)
};

/// What one run did besides computing outputs (compile and code facts are zero for "ref").
struct RunReport {
    double compileMs = 0;
    size_t kernels = 0;      ///< generated kernels
    size_t externCalls = 0;  ///< library and hand-written kernels (GEMM, convolution, attention, ...)
    /// Ops the backend did not run itself but handed to the reference kernel, with counts: the
    /// op coverage gaps a user should know about.
    std::map<std::string, int> fallbacks;
    std::string device;  ///< what it ran on ("host CPU (16 threads)", "NVIDIA H100 ... (sm_90)")
};

/// A graph compiled once for inputs of given sizes and run many times (`fxray bench`).
class CompiledProgram {
public:
    virtual ~CompiledProgram() = default;
    /// Runs on copies of inputs (not modified); `seed` drives random ops.
    virtual Expected<std::vector<Value>> run(const std::vector<Value>& inputs, uint64_t seed) = 0;
    /// `iters` timed runs after `warmup` untimed ones. Default: run() in a loop; a device backend
    /// keeps the values resident so that transfers are not timed.
    virtual Expected<Timing> benchmark(const std::vector<Value>& inputs, int iters, int warmup, uint64_t seed);
    /// One run's steps with their times, as codegen/step_profile.h describes them.
    virtual Expected<std::vector<cg::StepProfile>> profile(const std::vector<Value>& inputs, uint64_t seed) = 0;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    virtual BackendCaps caps() const = 0;
    /// The machine it runs on, and its peak rates for "% of peak" columns (0 where unknown).
    virtual cg::PeakRates peak() const = 0;

    /// Runs g on req (inputs not modified). With `expect`, compares the outputs by run_check's
    /// one rule (judgeOutputs). `report`, when given, says what the run did.
    virtual Expected<RunResult> run(const Graph& g, const RunRequest& req, const std::vector<Value>* expect = nullptr,
                                    RunReport* report = nullptr) = 0;

    /// Runs g and fills `nodeValues` with every tensor-valued node's value by name; returns the
    /// outputs. Default: run() on the copy of g returning every node (exec/node_values.h), a
    /// debugging mode for compiled backends (every intermediate goes to memory).
    virtual Expected<std::vector<Value>> runObserved(const Graph& g, const RunRequest& req,
                                                     std::map<std::string, Value>& nodeValues);

    /// Compiles g for the sizes of `inputs`. Default: an error saying this backend runs graphs
    /// without compiling them.
    virtual Expected<std::unique_ptr<CompiledProgram>> compile(const Graph& g, const std::vector<Value>& inputs);

    /// g's outputs on copies of `inputs` with random ops seeded by `seed`, and every node's value
    /// when `nodeValues` is non-null: what compare and the minifier ask of each side. `report`,
    /// when given, says what the run of g as given did (fallbacks, device).
    Expected<std::vector<Value>> outputs(const Graph& g, const std::vector<Value>& inputs, uint64_t seed,
                                         std::map<std::string, Value>* nodeValues = nullptr,
                                         RunReport* report = nullptr);
};

/// The reference executor as a backend ("ref", or "ref64" with fp64 throughout).
std::unique_ptr<Backend> makeReferenceBackend(bool fp64);

using BackendFactory = std::function<Expected<std::unique_ptr<Backend>>()>;

/// Makes the named backend. Fails naming the known backends for an unknown name, saying so for
/// a backend this build lacks ("cpu" without LLVM), and with the factory's reason otherwise
/// ("no CUDA device: ...").
Expected<std::unique_ptr<Backend>> makeBackend(const std::string& name);
/// Registers (or replaces) a backend. Thread-safe.
void registerBackend(const std::string& name, BackendFactory factory);
/// Whether `name` is registered in this build (making it may still fail, e.g. without a GPU).
bool backendAvailable(const std::string& name);
/// The registered names, sorted.
std::vector<std::string> backendNames();

}  // namespace fxray
