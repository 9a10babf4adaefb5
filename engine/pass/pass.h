#pragma once
/// A pass: a small object with a name, a one-line summary and `runOnGraph()` (MLIR's model).
/// Failure is signalled through PassResult, never thrown. Debug features (snapshots, timing,
/// verification, skipping) are instrumentation around passes, not code inside them.
#include "ir/graph.h"
#include "pass/compile_trace.h"
#include "pass/records.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fxray {

/// What runOnGraph returns: success or failure (LogicalResult) plus whether anything changed.
struct PassResult {
    bool ok = true;
    bool changed = false;
    std::string message;  ///< why it failed

    static PassResult success(bool changed) { return {true, changed, {}}; }
    static PassResult failure(std::string why) { return {false, false, std::move(why)}; }
};

/// Per-run context handed to a pass: where it records provenance, matches and near-misses.
class PassContext {
public:
    explicit PassContext(RewriteLog& log) : m_log(&log) {}
    RewriteLog& log() { return *m_log; }
    /// "" for the top graph, else the subgraph path.
    const std::string& graphPath() const { return m_log->graph; }
    /// Records a rejected candidate (MLIR's notifyMatchFailure). Returns false so that rules
    /// can `return ctx.notifyMatchFailure(...)`.
    bool notifyMatchFailure(const std::string& rule, const Node& node, std::string reason);
    /// Records a rule application without a pattern graph (hand-written passes).
    void recordMatch(std::string rule, std::vector<std::string> nodes, std::vector<std::string> newNodes = {});

private:
    RewriteLog* m_log;
};

/// Base class of every pass.
class Pass {
public:
    virtual ~Pass() = default;
    /// Stable name used by --skip, dumps and the GUI ("remove_noop_ops").
    virtual std::string_view name() const = 0;
    /// One line: what it does (and, where it differs, what PyTorch does that it does not).
    virtual std::string_view summary() const = 0;
    /// Transforms g in place.
    virtual PassResult runOnGraph(Graph& g, PassContext& ctx) = 0;
    /// Whether the pass manager also applies it to subgraphs of higher-order ops.
    virtual bool recurseIntoSubgraphs() const { return true; }

    /// Counters declared by the pass (reset before each run by the manager).
    const std::vector<PassStatistic>& statistics() const { return m_stats; }
    void resetStatistics() {
        for (auto& s : m_stats) s.value = 0;
    }

protected:
    /// Declares a counter; returns its index for bump().
    size_t declareStatistic(std::string name, std::string description) {
        m_stats.push_back({std::move(name), std::move(description), 0});
        return m_stats.size() - 1;
    }
    void bump(size_t stat, int64_t by = 1) { m_stats[stat].value += by; }

private:
    std::vector<PassStatistic> m_stats;
};

}  // namespace fxray
