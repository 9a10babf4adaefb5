#pragma once
/// Every node's value from any backend, and their node-by-node comparison: what `fxray compare`
/// and the minifier's localisation need to name the first node where two backends diverge.
///
/// The reference executor reports each node's value as it evaluates it. A compiled backend fuses
/// nodes into kernels and keeps only its outputs, so it is given a copy of the graph that also
/// returns every tensor-valued node (exposeIntermediates): backend-agnostic, no hook in the
/// code generators. The price is that every intermediate then lives in memory (less fusion,
/// other rounding where a fused kernel kept a value in a register), so a run with node values is
/// a debugging mode; the real outputs are still taken from a run of the graph as given.
#include "exec/compare.h"
#include "exec/run_check.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fxray {

/// A copy of a graph whose output returns, after the graph's own outputs, the nodes `nodes`.
struct ExposedGraph {
    std::unique_ptr<Graph> graph;
    size_t realOutputs = 0;          ///< the original graph's outputs come first
    std::vector<std::string> nodes;  ///< node behind extra output realOutputs + i
};

/// Computed nodes of g (not placeholders, get_attr constants or the output) whose value for
/// inputs with these metadata is one tensor (getitem results included, tuple-valued nodes not),
/// in graph order. Shapes come from the reference executor's meta functions.
Expected<std::vector<std::string>> tensorValuedNodes(const Graph& g, const std::vector<Value>& inputs);

/// The copy of g returning `nodes` as extra outputs. Fails naming a node g does not have.
Expected<ExposedGraph> exposeIntermediates(const Graph& g, const std::vector<std::string>& nodes);

/// A backend's way of running a graph: outputs for req's inputs, pins and seed.
using GraphRunner = std::function<Expected<std::vector<Value>>(const Graph&, const RunRequest&)>;

/// Runs `run` on g's exposed copy (every tensor-valued node an output) and fills nodeValues by
/// node name; returns the copy's first outputs (g's outputs as computed by that copy).
Expected<std::vector<Value>> runExposed(const Graph& g, const RunRequest& req, const GraphRunner& run,
                                        std::map<std::string, Value>& nodeValues);

/// The reference executor (fp64 when req.fp64) with req's pins, reporting every node's value.
Expected<std::vector<Value>> runReferenceObserved(const Graph& g, const RunRequest& req,
                                                  std::map<std::string, Value>& nodeValues);

/// One node's value on one backend against the base backend's.
struct NodeError {
    std::string node;
    std::string target;  ///< "aten.add.Tensor"
    std::string backend;
    double relErr = 0.0;
    double maxAbsErr = 0.0;
    bool ok = true;
    bool fp64Judged = false;  ///< rel_err failed and the fp64 rule decided (judgeWithFp64)
    std::string note;         ///< shape / dtype mismatch
    /// Where a numeric value differs: how many of its elements are off by more than the
    /// tolerance times the base's largest magnitude, and the worst one (its index and both
    /// values). One element off in thousands points at a decision taken on a near-tie upstream
    /// (a relu input within rounding noise of zero, a max-pool tie), not at a wrong kernel.
    int64_t elements = 0;
    int64_t elementsOff = 0;
    std::vector<int64_t> worstAt;  ///< index of the largest |difference| (empty when ok)
    double worstBase = 0.0, worstOther = 0.0;
};

/// Compares `other`'s value of every computed node of g (not placeholders or get_attr
/// constants, nor nodes an in-place op later overwrites, nor unwritten `empty` buffers) for
/// which both sides report a tensor with `base`'s, in graph order, with run_check's rule: rel_err within the dtype's tolerance, else
/// (floating values) judged against `ref64`'s value of the node when given.
std::vector<NodeError> compareNodeValues(const Graph& g, const std::map<std::string, Value>& base,
                                         const std::map<std::string, Value>& other,
                                         const std::map<std::string, Value>* ref64, const std::string& backend);

/// The first entry that is not ok, or null.
const NodeError* firstDivergent(const std::vector<NodeError>& errors);

}  // namespace fxray
