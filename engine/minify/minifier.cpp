#include "minify/minifier.h"

#include "import/loader.h"
#include "minify/hierarchy.h"
#include "minify/inject.h"
#include "minify/torch_check.h"

#include <algorithm>
#include <chrono>
#include <set>

namespace fxray::minify {

namespace {

using Clock = std::chrono::steady_clock;

/// The fixpoint loop over the strategies, on one workspace.
class Reducer {
public:
    Reducer(std::shared_ptr<const Workspace> ws, Oracle& oracle, const MinifyOptions& opts, const ProgressFn& progress,
            Clock::time_point t0, size_t nodesBefore)
            : m_ws(std::move(ws)), m_oracle(oracle), m_opts(opts), m_progress(progress), m_t0(t0),
              m_nodesBefore(nodesBefore) {}

    /// Starts from the full candidate, already known to fail with `signature`.
    void run(Materialized full, const std::string& signature, const std::vector<std::string>& divergent) {
        m_cur = std::move(full);
        m_sig = signature;
        report("start");
        if (m_opts.localize && !divergent.empty()) isolateDivergent(divergent);
        for (;;) {
            if (stopped()) return;
            bool changed = false;
            changed |= truncateSuffix();
            changed |= replacePrefix();
            if (m_opts.hierarchy)
                for (const auto& level : hierarchyLevels(*m_ws, m_cur.kept))
                    changed |= ddmin(level, "ddmin over layers/blocks");
            std::vector<std::vector<int>> singles;
            for (int i : m_cur.kept) singles.push_back({i});
            changed |= ddmin(singles, "ddmin over nodes");
            changed |= dropOutputs();
            if (!changed) return;
        }
    }

    const Materialized& best() const { return m_cur; }
    const std::vector<std::string>& steps() const { return m_steps; }
    bool stopped() const {
        return (m_opts.cancel && m_opts.cancel->load()) ||
               (m_opts.maxQueries && m_oracle.queries() >= m_opts.maxQueries);
    }

private:
    bool accepts(const QueryOutcome& o) const { return o.interesting() && o.signature == m_sig; }

    /// The order candidates must descend in: total nodes, then computations (at equal size a
    /// node replaced by an input is a simpler repro), then returned values. Strict, so the
    /// fixpoint loop ends.
    bool smaller(const Materialized& m) const {
        if (m.nodes != m_cur.nodes) return m.nodes < m_cur.nodes;
        if (m.kept.size() != m_cur.kept.size()) return m.kept.size() < m_cur.kept.size();
        return m.outs.size() < m_cur.outs.size();
    }

    void report(const std::string& strategy) {
        if (!m_progress) return;
        MinifyProgress p;
        p.queries = m_oracle.queries();
        p.cacheHits = m_oracle.cacheHits();
        p.nodesBefore = m_nodesBefore;
        p.nodes = m_cur.nodes;
        p.strategy = strategy;
        p.seconds = std::chrono::duration<double>(Clock::now() - m_t0).count();
        p.best = m_cur.graph;
        m_progress(p);
    }

    void adopt(Materialized m, const std::string& strategy) {
        m_steps.push_back(strategy + ": " + std::to_string(m_cur.nodes) + " -> " + std::to_string(m.nodes) + " nodes");
        m_cur = std::move(m);
        report(strategy);
    }

    /// Materializes, keeps those smaller than the current graph (first of equal fingerprints),
    /// asks the oracle in order and adopts the first that fails the same way.
    bool tryCandidates(const std::vector<Candidate>& cs, const std::string& strategy) {
        std::vector<Materialized> ms;
        std::set<uint64_t> seen;
        for (const auto& c : cs) {
            auto m = materialize(*m_ws, c);
            if (!m.ok() || !smaller(*m) || !seen.insert(m->fingerprint).second) continue;
            ms.push_back(std::move(m).value());
        }
        if (ms.empty() || stopped()) return false;
        std::vector<const Materialized*> ptrs;
        for (const auto& m : ms) ptrs.push_back(&m);
        int k = m_oracle.firstAccepted(ptrs, [this](const QueryOutcome& o) { return accepts(o); });
        report(strategy);
        if (k < 0) return false;
        adopt(std::move(ms[static_cast<size_t>(k)]), strategy);
        return true;
    }

    /// Step 1: the first divergent nodes, each alone with its inputs as placeholders.
    void isolateDivergent(const std::vector<std::string>& names) {
        std::vector<Candidate> cs;
        for (const auto& name : names) {
            const Node* n = m_ws->graph().find(name);
            if (!n || !m_ws->isCompute(n->index)) continue;
            cs.push_back(keepOnly(*m_ws, {n->index}));
            if (cs.size() >= 4) break;
        }
        tryCandidates(cs, "isolate the first divergent node");
    }

    /// Bisection over a family of candidates indexed 0..n where `good` is known to fail and
    /// `bad` is known not to; returns the failing index closest to `bad`. Monotone families
    /// (prefixes, suffixes) make this a binary search; `jobs` points are tried per round.
    size_t bisect(size_t good, size_t bad, const std::function<Candidate(size_t)>& family,
                  const std::string& strategy) {
        const size_t jobs = static_cast<size_t>(std::max(1, m_opts.oracle.jobs));
        while ((good > bad ? good - bad : bad - good) > 1 && !stopped()) {
            const bool up = bad > good;  // indices toward bad are better
            size_t span = up ? bad - good : good - bad;
            size_t k = std::min(jobs, span - 1);
            std::vector<size_t> points;
            for (size_t t = 1; t <= k; ++t)
                points.push_back(up ? good + span * t / (k + 1) : good - span * t / (k + 1));
            std::vector<Materialized> ms;
            std::vector<const Materialized*> ptrs;
            std::vector<char> valid;
            for (size_t p : points) {
                auto m = materialize(*m_ws, family(p));
                valid.push_back(m.ok());
                ms.push_back(m.ok() ? std::move(m).value() : Materialized{});
            }
            std::vector<size_t> idx;
            for (size_t i = 0; i < ms.size(); ++i)
                if (valid[i]) ptrs.push_back(&ms[i]), idx.push_back(i);
            auto outs = m_oracle.evaluateAll(ptrs);
            std::vector<char> fails(points.size(), 0);
            for (size_t i = 0; i < idx.size(); ++i) fails[idx[i]] = accepts(outs[i]);
            report(strategy);
            // Points are ordered from good toward bad: the furthest failing one wins; the
            // nearest passing one after it bounds the next round.
            size_t newGood = good, newBad = bad;
            for (size_t i = 0; i < points.size(); ++i) {
                if (fails[i]) newGood = points[i];
            }
            for (size_t i = 0; i < points.size(); ++i) {
                bool beyond = up ? points[i] > newGood : points[i] < newGood;
                if (!fails[i] && beyond) {
                    newBad = points[i];
                    break;
                }
            }
            good = newGood;
            bad = newBad;
        }
        return good;
    }

    /// Step 2: the shortest prefix (in node order) that still fails, returning its sinks; then
    /// only the ancestors of its last node.
    bool truncateSuffix() {
        const std::vector<int> L = m_cur.kept;
        const std::vector<int> curOuts = m_cur.outs;
        if (L.size() < 2) return false;
        auto family = [&](size_t p) {
            return keepOnly(*m_ws, std::vector<int>(L.begin(), L.begin() + static_cast<std::ptrdiff_t>(p)), curOuts);
        };
        // Prefix L.size() is the current graph; prefix 0 is empty. Bisection goes from the full
        // prefix (good) toward the empty one (bad).
        size_t p = bisect(L.size(), 0, family, "truncate suffix (bisection)");
        bool changed = false;
        if (p < L.size()) {
            auto m = materialize(*m_ws, family(p));
            if (m.ok() && smaller(*m) && accepts(m_oracle.query(*m))) {
                adopt(std::move(m).value(), "truncate suffix");
                changed = true;
            }
        }
        // Truncate to the last node of the prefix: its ancestors only.
        int last = L[p - 1];
        std::vector<int> anc;
        std::set<int> inCur(m_cur.kept.begin(), m_cur.kept.end());
        std::vector<int> stack{last};
        std::set<int> seen;
        while (!stack.empty()) {
            int i = stack.back();
            stack.pop_back();
            if (!seen.insert(i).second) continue;
            anc.push_back(i);
            for (int m : m_ws->inputsOf(i))
                if (inCur.count(m)) stack.push_back(m);
        }
        std::sort(anc.begin(), anc.end());
        Candidate c = keepOnly(*m_ws, anc);
        c.outs = {last};
        changed |= tryCandidates({c}, "truncate to one output");
        return changed;
    }

    /// Step 3: the longest prefix that can be replaced by inputs holding concrete values.
    bool replacePrefix() {
        const std::vector<int> L = m_cur.kept;
        const std::vector<int> curOuts = m_cur.outs;
        if (L.size() < 2) return false;
        auto family = [&](size_t s) {
            Candidate c;
            c.keep.assign(m_ws->size(), 0);
            for (size_t i = s; i < L.size(); ++i) c.keep[static_cast<size_t>(L[i])] = 1;
            for (int o : curOuts)
                if (c.keep[static_cast<size_t>(o)]) c.outs.push_back(o);
            if (c.outs.empty())
                c = keepOnly(*m_ws, std::vector<int>(L.begin() + static_cast<std::ptrdiff_t>(s), L.end()));
            return c;
        };
        size_t s = bisect(0, L.size(), family, "replace prefix by inputs (bisection)");
        if (s == 0) return false;
        auto m = materialize(*m_ws, family(s));
        if (m.ok() && smaller(*m) && accepts(m_oracle.query(*m))) {
            adopt(std::move(m).value(), "replace prefix by inputs");
            return true;
        }
        return false;
    }

    /// The current graph without `drop`: where a dropped node is still read it becomes an input,
    /// and what only fed dropped nodes is returned instead (it may matter to the failure).
    Candidate removing(const std::set<int>& drop) const {
        std::vector<int> rest;
        for (int i : m_cur.kept)
            if (!drop.count(i)) rest.push_back(i);
        return keepOnly(*m_ws, rest, m_cur.outs);
    }

    /// Step 4: delta debugging over units (groups of nodes): keep only one chunk, or remove one.
    bool ddmin(std::vector<std::vector<int>> units, const std::string& strategy) {
        bool changed = false;
        size_t n = 2;
        while (units.size() >= 2 && !stopped()) {
            n = std::min(n, units.size());
            std::vector<std::set<int>> chunks(n);
            for (size_t u = 0; u < units.size(); ++u)
                chunks[u * n / units.size()].insert(units[u].begin(), units[u].end());
            std::vector<Candidate> cs;
            for (const auto& ch : chunks) {
                std::vector<int> nodes(ch.begin(), ch.end());
                cs.push_back(keepOnly(*m_ws, nodes, m_cur.outs));
            }
            for (const auto& ch : chunks) cs.push_back(removing(ch));
            if (tryCandidates(cs, strategy)) {
                changed = true;
                std::set<int> live(m_cur.kept.begin(), m_cur.kept.end());
                std::vector<std::vector<int>> next;
                for (auto& u : units) {
                    std::vector<int> v;
                    for (int i : u)
                        if (live.count(i)) v.push_back(i);
                    if (!v.empty()) next.push_back(std::move(v));
                }
                units = std::move(next);
                n = std::max<size_t>(n - 1, 2);
                continue;
            }
            if (n >= units.size()) break;
            n = std::min(units.size(), n * 2);
        }
        return changed;
    }

    /// Step 5: fewer returned values.
    bool dropOutputs() {
        bool changed = false;
        size_t n = 2;
        while (m_cur.outs.size() >= 2 && !stopped()) {
            const std::vector<int> outs = m_cur.outs;
            n = std::min(n, outs.size());
            std::vector<Candidate> cs;
            for (size_t k = 0; k < n; ++k) {
                Candidate keepChunk = m_cur.normalized(*m_ws), dropChunk = keepChunk;
                keepChunk.outs.clear();
                dropChunk.outs.clear();
                for (size_t u = 0; u < outs.size(); ++u)
                    (u * n / outs.size() == k ? keepChunk : dropChunk).outs.push_back(outs[u]);
                cs.push_back(keepChunk);
                cs.push_back(dropChunk);
            }
            if (tryCandidates(cs, "drop outputs")) {
                changed = true;
                n = std::max<size_t>(n - 1, 2);
                continue;
            }
            if (n >= outs.size()) break;
            n = std::min(outs.size(), n * 2);
        }
        return changed;
    }

    std::shared_ptr<const Workspace> m_ws;
    Oracle& m_oracle;
    const MinifyOptions& m_opts;
    const ProgressFn& m_progress;
    Clock::time_point m_t0;
    size_t m_nodesBefore;
    Materialized m_cur;
    std::string m_sig;
    std::vector<std::string> m_steps;
};

QueryRequest requestFor(const MinifyOptions& opts) {
    QueryRequest req;
    req.spec = opts.spec;
    req.passes = opts.passes;
    req.localize = true;  // the signature names the op where the sides part; opts.localize only gates step 1
    return req;
}

/// Step 0: for a pass failure, the graph as the failing pass received it, and that pass alone.
/// Returns false (and leaves everything as it was) when it cannot narrow the failure down.
bool bisectPasses(Oracle& oracle, const Materialized& full, const QueryOutcome& first, const FailureSpec& spec,
                  std::unique_ptr<Graph>& narrowed, std::vector<Value>& narrowedInputs, std::string& note) {
    const CheckSpec* pf = nullptr;
    for (const auto& c : spec.checks)
        if (c.kind == CheckSpec::Kind::PassFails) pf = pf ? pf : &c;
    if (!pf || first.failedPassRun < 0) return false;
    const int k = first.failedPassRun;
    QueryRequest req = oracle.request();
    req.passLimit = k;
    std::filesystem::path dir;
    QueryOutcome o = oracle.runChild(*full.graph, full.inputs, req, &dir);
    auto after = dir / "after.py";
    if (k > 0 && (o.kind != QueryOutcome::Kind::Clean || !std::filesystem::exists(after))) return false;
    if (k > 0) {
        auto f = loadFile(after);
        if (!f.ok()) return false;
        auto lg = selectGraph(*f, "");
        if (!lg.ok()) return false;
        narrowed = std::move((*lg)->graph);
        // Passes keep the inputs; match them by name.
        narrowedInputs.clear();
        auto fullPhs = full.graph->placeholders();
        for (Node* ph : narrowed->placeholders()) {
            size_t j = 0;
            while (j < fullPhs.size() && fullPhs[j]->name() != ph->name()) ++j;
            if (j == fullPhs.size()) return false;
            narrowedInputs.push_back(full.inputs[j]);
        }
    } else {
        narrowed = full.graph->clone();
        narrowedInputs = full.inputs;
    }
    note = "pass run " + std::to_string(k) + " (" + pf->pass + ") is the first that fails; minified with " + pf->pass +
           " alone on the graph it received";
    return true;
}

}  // namespace

Expected<MinifyResult> minifyGraph(const Graph& g, std::vector<Value> inputs, const MinifyOptions& opts,
                                   const ProgressFn& progress) {
    auto t0 = Clock::now();
    MinifyResult res;
    res.nodesBefore = g.size();
    // torch-compile checks: a missing Python or PyTorch is bad input, said once, not a "clean"
    // answer to every query.
    std::string torchNote;
    for (const auto& c : opts.spec.checks) {
        if (c.kind != CheckSpec::Kind::TorchCompile) continue;
        auto info = probeTorch(torchPython(opts.oracle.python), c, std::max(opts.oracle.timeoutSeconds, 120.0));
        if (!info.ok()) return info.error();
        torchNote = "PyTorch " + info->version + " (" + info->python + (info->cuda ? ", CUDA" : ", no CUDA") + ")";
    }
    auto wsE = Workspace::build(g, std::move(inputs), opts.spec.seed);
    if (!wsE.ok()) return wsE.error();
    std::shared_ptr<const Workspace> ws = std::move(wsE).value();
    Oracle oracle(requestFor(opts), opts.oracle);
    auto fullE = materialize(*ws, fullCandidate(*ws));
    if (!fullE.ok())
        return makeError(ws->symbolic() && fullE.error().message != "the candidate returns nothing"
                             ? fullE.error().message
                             : "the graph returns no computed value to minify");
    Materialized full = std::move(fullE).value();
    if (progress) {
        // The first query can take long (a cold torch.compile): say what is running.
        MinifyProgress p;
        p.nodesBefore = p.nodes = full.nodes;
        p.best = full.graph;
        p.strategy = torchNote.empty() ? "first query" : "first query (" + torchNote + ")";
        p.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        progress(p);
    }
    QueryOutcome first = oracle.query(full);
    res.message = first.message;
    auto finish = [&](const Materialized& best) {
        res.graph = best.graph;
        res.inputs = best.inputs;
        res.recordedSizes = ws->binding();
        res.sizes = best.sizes;
        res.nodesAfter = best.nodes;
        res.queries = oracle.queries();
        res.cacheHits = oracle.cacheHits();
        res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        res.cancelled = opts.cancel && opts.cancel->load();
    };
    if (!first.interesting()) {
        if (first.kind == QueryOutcome::Kind::Error && first.message.find("not available") != std::string::npos)
            return makeError(first.message);
        finish(full);
        return res;
    }
    res.reproduced = true;
    res.signature = first.signature;
    res.passes = oracle.request().passes;

    // Step 0: narrow a pass failure down to the failing pass and the graph it received.
    std::unique_ptr<Graph> narrowed;
    std::vector<Value> narrowedInputs;
    std::string note;
    if (opts.bisectPasses && bisectPasses(oracle, full, first, opts.spec, narrowed, narrowedInputs, note)) {
        QueryRequest old = oracle.request();
        QueryRequest fixed = old;
        for (const auto& c : opts.spec.checks)
            if (c.kind == CheckSpec::Kind::PassFails) fixed.passes = {c.pass};
        oracle.setRequest(fixed);
        auto ws2 = Workspace::build(*narrowed, narrowedInputs, opts.spec.seed);
        bool ok = false;
        if (ws2.ok()) {
            auto full2 = materialize(**ws2, fullCandidate(**ws2));
            if (full2.ok()) {
                QueryOutcome o2 = oracle.query(*full2);
                if (o2.interesting() && o2.signature == first.signature) {
                    ws = std::move(ws2).value();
                    full = std::move(full2).value();
                    first = o2;
                    res.bisection = note;
                    res.passes = fixed.passes;
                    ok = true;
                }
            }
        }
        if (!ok) oracle.setRequest(old);
    }

    Reducer r(ws, oracle, opts, progress, t0, res.nodesBefore);
    r.run(full, first.signature, first.divergent);
    res.steps = r.steps();
    if (!res.bisection.empty()) res.steps.insert(res.steps.begin(), res.bisection);
    if (!torchNote.empty()) res.steps.insert(res.steps.begin(), torchNote);
    finish(r.best());
    return res;
}

}  // namespace fxray::minify
