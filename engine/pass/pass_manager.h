#pragma once
/// PassManager: runs a named pipeline of passes over a graph and its subgraphs, with
/// instrumentation around every pass run, and returns a CompileTrace.
///
/// Like `_recursive_joint_graph_passes`, the pipeline is applied to the bodies of higher-order
/// ops first (depth first, in file order), then to the graph that holds them. The built-in
/// instrumentation is part of the run loop because it steers it: wall time of every pass,
/// verify-after-pass, a snapshot after each pass that changed the fingerprint, and failure
/// capture — a pass that fails or leaves a graph that does not verify is reported with the graph
/// before it, the graph is restored, and the pipeline goes on with the next pass.
#include "pass/instrumentation.h"
#include "pass/pass.h"

#include <memory>
#include <string>
#include <vector>

namespace fxray {

/// What the run loop does around each pass.
struct PassManagerOptions {
    bool verifyEach = true;       ///< Graph::verify() after each pass; failure undoes the pass
    bool snapshots = true;        ///< keep text + clone after each pass that changed the graph
    bool captureFailures = true;  ///< keep the graph before a failing pass (needs a copy)
    bool recurse = true;          ///< apply the pipeline to subgraphs of higher-order ops
};

/// A named, ordered list of passes.
class PassManager {
public:
    explicit PassManager(std::string pipelineName, PassManagerOptions opts = {})
            : m_name(std::move(pipelineName)), m_opts(opts) {}

    const std::string& name() const { return m_name; }
    PassManagerOptions& options() { return m_opts; }

    void addPass(std::unique_ptr<Pass> p) { m_passes.push_back(std::move(p)); }
    const std::vector<std::unique_ptr<Pass>>& passes() const { return m_passes; }
    /// The pass with this name, or null.
    const Pass* find(std::string_view name) const;

    /// Instrumentation called around every pass run, in the order added.
    void addInstrumentation(std::unique_ptr<PassInstrumentation> i) { m_instr.push_back(std::move(i)); }

    /// Runs the pipeline on g (in place). Never fails as a whole: failures are in the trace.
    CompileTrace run(Graph& g);

private:
    void runOn(Graph& g, const std::string& path, CompileTrace& trace, std::shared_ptr<const Graph>& lastGood);
    /// `fingerprint` is g's fingerprint before the pass; updated to the one after.
    void runPass(Pass& p, Graph& g, const std::string& path, CompileTrace& trace,
                 std::shared_ptr<const Graph>& lastGood, uint64_t& fingerprint);

    std::string m_name;
    PassManagerOptions m_opts;
    std::vector<std::unique_ptr<Pass>> m_passes;
    std::vector<std::unique_ptr<PassInstrumentation>> m_instr;
};

/// Replaces the contents of dst (nodes, subgraphs, constants, signature) with a deep copy of
/// src, keeping dst's identity. Used to undo a failed pass.
void restoreGraph(Graph& dst, const Graph& src);

}  // namespace fxray
