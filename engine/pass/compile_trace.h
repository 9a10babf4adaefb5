#pragma once
/// CompileTrace: the immutable result of running a pass pipeline, which the GUI steps through
/// and `fxray compile --json` prints. One record per pass run (per graph, since pipelines recurse
/// into subgraphs), with what it changed, how long it took, what matched and what nearly did.
#include "ir/graph.h"
#include "pass/records.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace fxray {

/// The graph as it was after a pass that changed it: a clone (what the GUI draws and re-runs)
/// and its printed FX text (what diffs and dumps use), printed on first use so that a pipeline
/// run does not pay for text nobody reads.
class GraphSnapshot {
public:
    GraphSnapshot(uint64_t fp, std::shared_ptr<const Graph> g, size_t nodeCount)
            : fingerprint(fp), graph(std::move(g)), nodes(nodeCount) {}
    uint64_t fingerprint = 0;
    std::shared_ptr<const Graph> graph;
    size_t nodes = 0;  ///< Graph::computeNodeCount()
    /// print_readable text of `graph` (computed once; safe to call from several threads).
    const std::string& text() const;

private:
    mutable std::once_flag m_once;
    mutable std::string m_text;
};

/// A named counter a pass declared (MLIR's Statistic).
struct PassStatistic {
    std::string name;
    std::string description;
    int64_t value = 0;
};

/// One run of one pass on one graph.
struct PassRecord {
    std::string name;
    std::string summary;
    std::string graph;     ///< "" for the top graph, else the subgraph path ("true_graph_0")
    bool changed = false;  ///< the fingerprint differs after the pass
    bool skipped = false;  ///< vetoed by an instrumentation (--skip, bisection)
    bool failed = false;   ///< the pass reported failure or broke the graph; it was undone
    std::string error;     ///< why it failed
    double ms = 0.0;
    size_t nodesBefore = 0;
    size_t nodesAfter = 0;
    uint64_t fingerprintBefore = 0;
    uint64_t fingerprintAfter = 0;
    std::shared_ptr<const GraphSnapshot> snapshot;  ///< set when changed and snapshots are on
    std::vector<MatchRecord> matches;
    std::vector<NearMiss> nearMisses;
    size_t droppedNearMisses = 0;
    std::vector<ProvenanceEvent> events;
    std::vector<PassStatistic> statistics;
};

/// A pass that failed: enough to reproduce it (the graph before it ran, the pass, the message).
struct PassFailure {
    std::string pass;
    std::string graph;
    std::string message;
    std::shared_ptr<const Graph> graphBefore;
    std::string textBefore;
};

/// The whole run.
struct CompileTrace {
    std::string pipeline;
    size_t nodesBefore = 0;
    size_t nodesAfter = 0;
    double ms = 0.0;
    std::shared_ptr<const GraphSnapshot> initial;  ///< the input graph (when snapshots are on)
    std::vector<PassRecord> passes;
    std::vector<PassFailure> failures;
    bool ok() const { return failures.empty(); }
};

}  // namespace fxray
