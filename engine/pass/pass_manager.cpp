#include "pass/pass_manager.h"

#include "ir/printer.h"
#include "support/timing.h"

#include <chrono>
#include <unordered_map>

namespace fxray {

const std::string& GraphSnapshot::text() const {
    std::call_once(m_once, [this] { m_text = graph ? printGraph(*graph) : std::string(); });
    return m_text;
}

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

void restoreGraph(Graph& dst, const Graph& src) {
    // Back to front, so that every node is erased after its users.
    while (!dst.nodes().empty()) dst.erase(dst.nodes().back().get());
    dst.className = src.className;
    dst.signature = src.signature;
    dst.printStrides = src.printStrides;
    dst.printDevices = src.printDevices;
    dst.sourceFile = src.sourceFile;
    dst.constants = src.constants;
    dst.subgraphs().clear();
    for (const auto& [name, sub] : src.subgraphs()) dst.subgraphs().emplace_back(name, sub->clone());
    std::unordered_map<const Node*, Node*> map;
    for (const auto& n : src.nodes()) map[n.get()] = dst.importNode(*n, nullptr, map);
    dst.rebuildUsers();
}

const Pass* PassManager::find(std::string_view name) const {
    for (const auto& p : m_passes)
        if (p->name() == name) return p.get();
    return nullptr;
}

CompileTrace PassManager::run(Graph& g) {
    CompileTrace trace;
    trace.pipeline = m_name;
    trace.nodesBefore = g.computeNodeCount();
    auto t0 = Clock::now();
    if (m_opts.snapshots)
        trace.initial = std::make_shared<GraphSnapshot>(g.fingerprint(), std::shared_ptr<const Graph>(g.clone()),
                                                        trace.nodesBefore);
    std::shared_ptr<const Graph> lastGood;
    runOn(g, "", trace, lastGood);
    trace.ms = msSince(t0);
    trace.nodesAfter = g.computeNodeCount();
    return trace;
}

void PassManager::runOn(Graph& g, const std::string& path, CompileTrace& trace,
                        std::shared_ptr<const Graph>& lastGood) {
    // Bodies of higher-order ops first, as _recursive_joint_graph_passes does.
    if (m_opts.recurse) {
        for (auto& [name, sub] : g.subgraphs()) {
            std::shared_ptr<const Graph> subGood;
            runOn(*sub, path.empty() ? name : path + "." + name, trace, subGood);
        }
    }
    g.rebuildUsers();
    const bool keepCopies = m_opts.snapshots || m_opts.captureFailures;
    uint64_t fp = g.fingerprint();
    if (keepCopies) {
        // The input snapshot is this state already unless subgraph passes changed something.
        if (path.empty() && trace.initial && trace.initial->fingerprint == fp)
            lastGood = trace.initial->graph;
        else
            lastGood = std::shared_ptr<const Graph>(g.clone());
    }
    for (auto& p : m_passes) {
        if (!path.empty() && !p->recurseIntoSubgraphs()) continue;
        runPass(*p, g, path, trace, lastGood, fp);
    }
}

void PassManager::runPass(Pass& p, Graph& g, const std::string& path, CompileTrace& trace,
                          std::shared_ptr<const Graph>& lastGood, uint64_t& fingerprint) {
    PassRecord rec;
    rec.name = std::string(p.name());
    rec.summary = std::string(p.summary());
    rec.graph = path;
    rec.nodesBefore = g.computeNodeCount();
    rec.fingerprintBefore = fingerprint;
    for (auto& i : m_instr) {
        if (!i->runBeforePass(p, g, rec)) {
            rec.skipped = true;
            break;
        }
    }
    if (rec.skipped) {
        rec.nodesAfter = rec.nodesBefore;
        rec.fingerprintAfter = rec.fingerprintBefore;
        trace.passes.push_back(std::move(rec));
        return;
    }

    RewriteLog log;
    log.pass = rec.name;
    log.graph = path;
    PassContext ctx(log);
    p.resetStatistics();
    g.rebuildUsers();
    auto t0 = Clock::now();
    PassResult r = p.runOnGraph(g, ctx);
    rec.ms = msSince(t0);
    if (r.ok && m_opts.verifyEach) {
        Status s = g.verify();
        if (!s.ok()) r = PassResult::failure("the graph does not verify after the pass: " + s.error().str());
    }
    rec.fingerprintAfter = g.fingerprint();

    if (!r.ok) {
        rec.failed = true;
        rec.error = r.message.empty() ? "the pass reported failure" : r.message;
        PassFailure f;
        f.pass = rec.name;
        f.graph = path;
        f.message = rec.error;
        if (lastGood) {
            f.graphBefore = lastGood;
            f.textBefore = printGraph(*lastGood);
            if (rec.fingerprintAfter != rec.fingerprintBefore) restoreGraph(g, *lastGood);
            rec.fingerprintAfter = rec.fingerprintBefore;
        } else {
            f.message += " (the graph could not be restored: failure capture is off)";
        }
        trace.failures.push_back(std::move(f));
        // Records of a failed pass describe mutations that were undone; keep them for the
        // report but they no longer apply to the graph.
        rec.nodesAfter = g.computeNodeCount();
        for (auto& i : m_instr) i->runAfterPassFailed(p, g, rec);
    } else {
        rec.changed = rec.fingerprintAfter != rec.fingerprintBefore;
        rec.nodesAfter = g.computeNodeCount();
        if (rec.changed && (m_opts.snapshots || m_opts.captureFailures)) {
            auto copy = std::shared_ptr<const Graph>(g.clone());
            lastGood = copy;
            if (m_opts.snapshots)
                rec.snapshot = std::make_shared<GraphSnapshot>(rec.fingerprintAfter, copy, rec.nodesAfter);
        }
        for (auto& i : m_instr) i->runAfterPass(p, g, rec);
    }
    rec.events = std::move(log.events);
    rec.matches = std::move(log.matches);
    rec.nearMisses = std::move(log.nearMisses);
    rec.droppedNearMisses = log.droppedNearMisses;
    rec.statistics = p.statistics();
    fingerprint = rec.fingerprintAfter;
    trace.passes.push_back(std::move(rec));
}

}  // namespace fxray
