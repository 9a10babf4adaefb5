#pragma once
/// Instrumentation around passes (MLIR's PassInstrumentation, TVM's veto): hooks called before
/// and after each pass run. The built-ins give snapshots on change, timing, verify-after-pass,
/// print-after-all, skipping by name and bisection.
#include "pass/pass.h"

#include <functional>
#include <set>
#include <string>

namespace fxray {

/// Hooks around every pass run. `rec` is the run's record in the trace; hooks may fill it.
class PassInstrumentation {
public:
    virtual ~PassInstrumentation() = default;
    /// Return false to veto (skip) the pass.
    virtual bool runBeforePass(const Pass& p, const Graph& g, PassRecord& rec) {
        (void)p, (void)g, (void)rec;
        return true;
    }
    /// After a pass that succeeded (the graph is the result).
    virtual void runAfterPass(const Pass& p, const Graph& g, PassRecord& rec) { (void)p, (void)g, (void)rec; }
    /// After a pass that failed (the graph has been restored to its state before the pass).
    virtual void runAfterPassFailed(const Pass& p, const Graph& g, PassRecord& rec) { (void)p, (void)g, (void)rec; }
};

/// Skips passes by name (`--skip PASS`).
class SkipPassesInstrumentation : public PassInstrumentation {
public:
    explicit SkipPassesInstrumentation(std::set<std::string> names) : m_names(std::move(names)) {}
    bool runBeforePass(const Pass& p, const Graph& g, PassRecord& rec) override;

private:
    std::set<std::string> m_names;
};

/// Runs only the first `limit` pass runs and skips the rest: bisection over a pipeline (the
/// minifier halves `limit` until the first bad pass is found).
class BisectInstrumentation : public PassInstrumentation {
public:
    explicit BisectInstrumentation(size_t limit) : m_limit(limit) {}
    bool runBeforePass(const Pass& p, const Graph& g, PassRecord& rec) override;
    size_t seen() const { return m_seen; }

private:
    size_t m_limit;
    size_t m_seen = 0;
};

/// Calls `sink(passName, graphPath, fxText)` after every pass run (`--print-after-all`).
/// With onlyChanged, after those that changed the graph.
class PrintAfterAllInstrumentation : public PassInstrumentation {
public:
    using Sink = std::function<void(const std::string& pass, const std::string& graph, const std::string& text)>;
    PrintAfterAllInstrumentation(Sink sink, bool onlyChanged) : m_sink(std::move(sink)), m_onlyChanged(onlyChanged) {}
    void runAfterPass(const Pass& p, const Graph& g, PassRecord& rec) override;

private:
    Sink m_sink;
    bool m_onlyChanged;
};

}  // namespace fxray
