#pragma once
/// Runs a graph and checks its outputs against expected values, with the fp64 second opinion for
/// outputs whose rel_err fails (see judgeWithFp64). Shared by `fxray run` and the tests.
#include "exec/compare.h"
#include "exec/exec_context.h"

#include <map>
#include <string>
#include <vector>

namespace fxray {

/// What runAndCheck needs besides the graph.
struct RunRequest {
    std::vector<Value> inputs;          ///< not modified (in-place ops act on copies)
    std::map<std::string, Value> pins;  ///< node name -> value
    uint64_t seed = 0;
    bool fp64 = false;  ///< run in fp64 throughout
};

/// Outputs of one run, and their comparison when expected values were given.
struct RunResult {
    std::vector<Value> outputs;
    std::vector<OutputComparison> comparisons;  ///< empty without expected values
    bool ok = true;
    double ms = 0.0;         ///< wall time of the main run
    bool fp64Rerun = false;  ///< an fp64 run was made to judge failures
    /// Its wall time: on the host's reference executor, it can dwarf the run itself on big graphs.
    double fp64RerunMs = 0.0;
};

/// Deep copy of a value (tensors get their own storage).
Value deepCopy(const Value& v);

/// Why graph output `outputIndex` has no defined value in PyTorch (so a recorded value of it
/// cannot be compared), or "" when it has one. Today: the philox seed/offset of memory-efficient
/// attention without dropout, which PyTorch leaves uninitialized.
std::string undefinedInPyTorch(const Graph& g, size_t outputIndex);

/// Compares res.outputs with `expect` (filling res.comparisons, res.ok, res.fp64Rerun); outputs
/// whose rel_err fails are re-judged against the reference executor's fp64 run of g with req's
/// inputs, pins and seed (judgeWithFp64) unless the outputs already come from an fp64 run. Shared
/// by every backend so that all of them are judged by one rule.
Status judgeOutputs(const Graph& g, const RunRequest& req, const std::vector<Value>& expect, RunResult& res,
                    bool outputsAreFp64 = false);

/// Runs g; when `expect` is non-null compares outputs, re-judging failing floating outputs
/// against an fp64 run of the same graph, inputs, pins and seed.
Expected<RunResult> runAndCheck(const Graph& g, const RunRequest& req, const std::vector<Value>* expect);

}  // namespace fxray
