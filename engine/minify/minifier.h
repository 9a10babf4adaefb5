#pragma once
/// The minifier: shrinks a graph that fails (a pass fails, two backends disagree, a command says
/// so, PyTorch's torch.compile fails on it) to a small graph that fails the same way. This is the API the CLI (`fxray minify`) and the
/// GUI's Minifier panel use.
///
/// Use:
///   auto spec = minify::parseFailureSpec({"accuracy:ref-vs-ref"}, {"aten.tanh.default:scale=1.01"});
///   minify::MinifyOptions opts;  opts.spec = *spec;  opts.oracle.jobs = 2;
///   auto r = minify::minifyGraph(graph, inputs, opts, [](const minify::MinifyProgress& p) {
///       // called from the calling thread after every query wave and every accepted step;
///       // p.best is the smallest failing graph so far (immutable, safe to hand to a view)
///   });
///   if (r.ok() && r->reproduced) { r->graph, r->inputs, r->signature, r->queries, ... }
/// Run it on a worker thread in the GUI and set `*opts.cancel = true` to stop early (the best
/// graph so far is returned). Every query runs in a child process (the fxray executable's
/// `__minify-query`), so a crash or a hang in the code under test never takes the caller down.
///
/// Strategy (PyTorch's FX minifier, `torch/_functorch/fx_minifier.py`, plus delta debugging and a
/// pass over the module hierarchy, repeated to a fixpoint):
///  0. bisection of the pass pipeline for pass-fails checks: the failing pass run is found, the
///     graph as that pass received it becomes the input, and queries run that pass alone;
///  1. localisation for accuracy checks: the first query also reports where the two sides first
///     disagree; that node alone, its inputs holding their concrete values, is tried first;
///  2. truncate suffix, by bisection over the node order (then truncate to the last node kept);
///  3. replace a prefix by inputs holding their concrete values, by bisection;
///  4. ddmin over layers, over provenance blocks and source lines, then over single nodes
///     (removing a set = replacing it by inputs where still read, dead code elimination);
///  5. drop outputs (ddmin over the returned values).
/// Unused inputs are dropped and placeholders consolidated whenever a candidate is built.
/// In a dynamic-shape graph, inputs that stand for cut nodes stay symbolic and every symbol stays
/// bound to the run's value (minify/sym_inputs.h); a candidate that would not bind is not built.
/// A candidate is kept only when it is smaller and fails with the same signature (no slipping).
#include "minify/candidate.h"
#include "minify/oracle.h"
#include "minify/spec.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fxray::minify {

/// Knobs of one minification.
struct MinifyOptions {
    FailureSpec spec;
    /// Pipeline for pass-fails checks (pass names); empty: the "joint" pipeline.
    std::vector<std::string> passes;
    OracleOptions oracle;
    bool localize = true;      ///< step 1
    bool bisectPasses = true;  ///< step 0
    bool hierarchy = true;     ///< layer / block / line levels of step 4
    size_t maxQueries = 0;     ///< stop after this many queries (0: no limit)
    std::atomic<bool>* cancel = nullptr;
};

/// Where a run is.
struct MinifyProgress {
    size_t queries = 0;
    size_t cacheHits = 0;
    size_t nodesBefore = 0;
    size_t nodes = 0;      ///< current best, PyTorch's count (placeholders and output included)
    std::string strategy;  ///< what is being tried
    double seconds = 0.0;
    std::shared_ptr<const Graph> best;
};
using ProgressFn = std::function<void(const MinifyProgress&)>;

/// The outcome.
struct MinifyResult {
    bool reproduced = false;             ///< the input graph showed the failure (otherwise nothing was done)
    std::string message;                 ///< the first query's message (why it failed, or did not)
    std::string signature;               ///< the failure kept throughout
    std::shared_ptr<const Graph> graph;  ///< the minimized graph
    std::vector<Value> inputs;           ///< its inputs, placeholder order
    /// Dynamic shapes: the sizes of the run (each input symbol read off the given inputs) and
    /// what the minimized graph's inputs bind, checked to agree (empty for static graphs).
    sym::Binding recordedSizes, sizes;
    size_t nodesBefore = 0, nodesAfter = 0;
    size_t queries = 0, cacheHits = 0;
    double seconds = 0.0;
    std::vector<std::string> steps;   ///< accepted steps: "truncate suffix: 29 -> 12 nodes"
    std::string bisection;            ///< "pass run 3 (remove_noop_ops) fails; minified with it alone"
    std::vector<std::string> passes;  ///< the pipeline the result fails under (pass-fails)
    bool cancelled = false;
};

/// Minifies g (inputs: one per placeholder). Fails only on bad input (inputs that do not fit, a
/// spec that cannot run here); a graph that does not fail gives reproduced == false.
Expected<MinifyResult> minifyGraph(const Graph& g, std::vector<Value> inputs, const MinifyOptions& opts,
                                   const ProgressFn& progress = {});

}  // namespace fxray::minify
