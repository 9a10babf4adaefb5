#include "partition/min_cut.h"

#include "partition/max_flow.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>

namespace fxray::partition {

const char* banRuleText(BanRule r) {
    switch (r) {
    case BanRule::Input: return "input";
    case BanRule::MustSave: return "MUST_SAVE tag";
    case BanRule::NotInAllowlist: return "not in recompute allowlist";
    case BanRule::Random: return "random op";
    case BanRule::ComputeIntensive: return "compute-intensive op";
    case BanRule::MaterializedInBackward: return "materialized in backward";
    case BanRule::Reduction: return "reduction (output 4x smaller than inputs)";
    case BanRule::UsedFarApart: return "used far apart";
    case BanRule::LongFusibleChain: return "long fusible chain";
    }
    return "?";
}

namespace {

class Solver {
public:
    Solver(const JointAnalysis& analysis, const MinCutOptions& options, const std::vector<char>& noBan, bool free)
            : ja(analysis), opt(options), dontBan(noBan), paramsFree(free), n(analysis.nodes.size()),
              net(static_cast<int>(2 + 2 * analysis.nodes.size())), banned(analysis.nodes.size(), 0),
              inOutEdge(analysis.nodes.size(), -1) {}

    Expected<MinCutSolution> run();

private:
    static int in(int i) { return 2 + 2 * i; }
    static int out(int i) { return 3 + 2 * i; }
    static constexpr int kSource = 0, kSink = 1;

    const NodeFacts& f(int i) const { return ja.nodes[i]; }
    bool fusible(int a, int b) const { return ja.isFusible(a, b); }

    bool isMaterializedBackwards(int i) const;
    bool shouldBan(int i, BanRule& rule) const;
    bool isMaterialized(int i) const;
    int64_t nodeWeight(int i) const;
    bool banIfAllowed(int i, BanRule rule);
    int findFirstUnfusible(const std::vector<int>& starts, int maxRange);
    void banUsedFarApart();
    void banLongFusibleChains();
    std::string vertexName(int v) const;

    const JointAnalysis& ja;
    const MinCutOptions& opt;
    const std::vector<char>& dontBan;
    const bool paramsFree;
    const size_t n;
    FlowNetwork net;
    std::vector<char> banned;
    std::vector<std::pair<int, BanRule>> bannedList;
    std::vector<int> inOutEdge;
    std::vector<uint32_t> queued;  // findFirstUnfusible: (node, fusible) -> search id when queued
    uint32_t searchId = 0;
};

bool Solver::isMaterializedBackwards(int i) const {
    if (f(i).cls.view) return false;
    std::vector<int> todo{i};
    std::vector<char> seen(n, 0);
    seen[i] = 1;
    while (!todo.empty()) {
        int cur = todo.back();
        todo.pop_back();
        for (int u : f(cur).users) {
            // The output node counts as a non-forward, non-fusible user: a value returned by the
            // graph is materialized.
            if (!f(u).requiredFw && !fusible(cur, u)) return true;
            if (f(u).cls.view && !seen[u]) {
                seen[u] = 1;
                todo.push_back(u);
            }
        }
    }
    return false;
}

bool Solver::shouldBan(int i, BanRule& rule) const {
    const Node& node = *f(i).node;
    if (node.kind() != NodeKind::CallFunction) return false;
    if (f(i).cls.getitem) return false;
    if (f(i).policy == RecomputePolicy::MustSave) {
        rule = BanRule::MustSave;
        return true;
    }
    if (node.target() == "torch.ops.aten.lift_fresh_copy.default" ||
        node.target() == "torch.ops.aten.lift_fresh.default")
        return false;
    if (opt.banIfNotInAllowlist) {
        if (!f(i).cls.recomputable) {
            rule = f(i).cls.random             ? BanRule::Random
                   : f(i).cls.computeIntensive ? BanRule::ComputeIntensive
                                               : BanRule::NotInAllowlist;
            return true;
        }
    } else if (f(i).cls.random || f(i).cls.computeIntensive) {
        rule = f(i).cls.random ? BanRule::Random : BanRule::ComputeIntensive;
        return true;
    }
    if (opt.banIfMaterializedBackward && isMaterializedBackwards(i)) {
        rule = BanRule::MaterializedInBackward;
        return true;
    }
    // config.max_dist_from_bw is 1000, which makes PyTorch's distance ban unreachable.
    if (opt.banIfReduction) {
        int64_t inputs = 0;
        for (const auto& a : node.args)
            if (a.isNode()) inputs += f(a.node->index).size;
        if (f(i).size * 4 < inputs) {
            rule = BanRule::Reduction;
            return true;
        }
    }
    return false;
}

bool Solver::isMaterialized(int i) const {
    if (f(i).node->kind() == NodeKind::Placeholder) return true;
    for (int u : f(i).users)
        if (!fusible(i, u)) return true;
    return false;
}

int64_t Solver::nodeWeight(int i) const {
    if (paramsFree && f(i).staticLifetime) return 0;
    const int64_t dist = std::max<int64_t>(std::min<int64_t>(f(i).distFromBw, 100), 1);
    // Bias towards saving values close to the backward (PyTorch's 1.1 ** dist guess).
    int64_t mem = static_cast<int64_t>(static_cast<double>(f(i).size) * std::pow(1.1, static_cast<double>(dist)));
    return isMaterialized(i) ? mem : mem * 2;
}

bool Solver::banIfAllowed(int i, BanRule rule) {
    if (f(i).cls.view) return false;
    if (!dontBan.empty() && dontBan[i]) return false;
    if (ja.mustRecompute(i)) return false;
    if (!banned[i]) {
        banned[i] = 1;
        bannedList.emplace_back(i, rule);
        // Saving is then the only way to get this value to the backward.
        net.addEdge(kSource, in(i), FlowNetwork::kInfinite);
    }
    return true;
}

int Solver::findFirstUnfusible(const std::vector<int>& starts, int maxRange) {
    // Min-heap on (forward order, fusible); for one node the non-fusible entry pops first, as
    // Python orders (order, node, False) before (order, node, True).
    using Item = std::tuple<int, bool, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    ++searchId;
    for (int s : starts) {
        queued[2 * s + 1] = searchId;
        heap.emplace(f(s).fwOrder, true, s);
    }
    while (!heap.empty()) {
        auto [order, isFus, node] = heap.top();
        heap.pop();
        if (!isFus) return order;
        for (int u : f(node).users) {
            if (!f(u).requiredFw || f(u).fwOrder > maxRange) continue;
            bool fu = fusible(node, u);
            uint32_t& q = queued[2 * u + (fu ? 1 : 0)];
            if (q == searchId) continue;  // already queued ("val not in sorted_nodes")
            q = searchId;
            heap.emplace(f(u).fwOrder, fu, u);
        }
    }
    return maxRange;
}

void Solver::banUsedFarApart() {
    // A value used both nearby and, past an unfusible op, far downstream: recomputing the far user
    // would not fuse with the near one, so the far user is banned.
    queued.assign(2 * n, 0);
    std::vector<int> fwUsers;
    for (int used : ja.requiredFwSorted) {
        fwUsers.clear();
        int maxOrder = -1;
        for (int u : f(used).users)
            if (f(u).requiredFw) {
                fwUsers.push_back(u);
                maxOrder = std::max(maxOrder, f(u).fwOrder);
            }
        if (fwUsers.empty()) continue;
        int firstUnfusible = findFirstUnfusible(fwUsers, maxOrder);
        for (int u : f(used).users)
            if (f(u).requiredFw && f(u).fwOrder > firstUnfusible && fusible(used, u) && !banned[u])
                banIfAllowed(u, BanRule::UsedFarApart);
    }
}

void Solver::banLongFusibleChains() {
    // Breaks chains of fusible ops longer than 100 forward nodes (residual streams) so that the
    // backward does not recompute from the start of the model.
    std::vector<char> visited(n, 0);
    using Item = std::pair<int, int>;
    for (int start : ja.requiredFwSorted) {
        std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
        const int startOrder = f(start).fwOrder;
        heap.emplace(startOrder, start);
        while (!heap.empty()) {
            int cur = heap.top().second;
            heap.pop();
            if (visited[cur]) continue;
            visited[cur] = 1;
            if (f(cur).fwOrder > startOrder + 100 && heap.empty()) {
                banIfAllowed(cur, BanRule::LongFusibleChain);
                break;
            }
            for (int u : f(cur).users)
                if (f(u).requiredFw && fusible(cur, u) && !banned[u]) heap.emplace(f(u).fwOrder, u);
        }
    }
}

std::string Solver::vertexName(int v) const {
    if (v == kSource) return "source";
    if (v == kSink) return "sink";
    int i = (v - 2) / 2;
    return f(i).node->name() + ((v - 2) % 2 == 0 ? "_in" : "_out");
}

Expected<MinCutSolution> Solver::run() {
    // Finite weights stay small enough that no cut, however many of them it sums, reaches the
    // infinite capacity.
    const int64_t kMaxFinite = FlowNetwork::kInfinite / static_cast<int64_t>(4 * (n + 1));
    for (size_t k = 0; k < n; ++k) {
        const int i = static_cast<int>(k);
        const NodeFacts& nf = f(i);
        if (nf.isOutput) continue;
        if (nf.requiredBw) {
            if (!nf.primal) {
                net.addEdge(in(i), kSink, FlowNetwork::kInfinite);
                continue;
            }
            // An input the backward returns as-is: it must reach the sink through its own
            // in->out edge, so that it is saved.
            net.addEdge(out(i), kSink, FlowNetwork::kInfinite);
        }
        if (ja.mustRecompute(i)) {
            // Checkpointed: its in-vertex joins the sink side, so it is recomputed.
            net.addEdge(in(i), kSink, FlowNetwork::kInfinite);
            continue;
        }
        if (nf.primal) banIfAllowed(i, BanRule::Input);
        BanRule rule{};
        if (nf.requiredFw && shouldBan(i, rule)) banIfAllowed(i, rule);
        int64_t weight;
        if (nf.sym)
            weight = 1;
        else if (nf.nonTensor)
            weight = FlowNetwork::kInfinite;
        else
            weight = std::min(nodeWeight(i), kMaxFinite);
        inOutEdge[k] = net.addEdge(in(i), out(i), weight);
        for (int u : nf.users)
            if (!f(u).isOutput) net.addEdge(out(i), in(u), FlowNetwork::kInfinite);
    }
    if (opt.banIfUsedFarApart) banUsedFarApart();
    if (opt.banIfLongFusibleChains) banLongFusibleChains();

    if (auto path = net.infinitePath(kSource, kSink); !path.empty()) {
        std::string p;
        for (int v : path) p += (p.empty() ? "" : " -> ") + vertexName(v);
        // Name the banned node the path starts from and the node that forces its recomputation.
        int first = (path[1] - 2) / 2;
        int last = (path[path.size() - 2] - 2) / 2;
        std::string why;
        for (auto& [b, r] : bannedList)
            if (b == first) why = banRuleText(r);
        Diagnostic d =
            makeError("no finite cut: '" + f(first).node->name() + "' may not be recomputed (" + why + ") but '" +
                      f(last).node->name() + "' " +
                      (ja.mustRecompute(last) ? "must be recomputed (checkpoint tag)" : "is needed by the backward") +
                      " and reaches it only through unsaveable values; infinite path: " + p);
        d.node = f(first).node->name();
        d.line = f(first).node->sourceLine;
        d.file = ja.graph->sourceFile;
        return d;
    }

    MinCutSolution sol;
    sol.cutValue = net.maxFlow(kSource, kSink);
    auto sink = net.sinkSide(kSink);
    for (size_t k = 0; k < n; ++k) {
        int e = inOutEdge[k];
        if (e < 0) continue;
        if (!sink[net.from(e)] && sink[net.to(e)]) {
            sol.saved.push_back(static_cast<int>(k));
            sol.cut.emplace_back(static_cast<int>(k), net.capacity(e));
        }
    }
    sol.banned = std::move(bannedList);
    sol.vertices = static_cast<size_t>(net.vertexCount());
    sol.edges = net.edgeCount();
    return sol;
}

}  // namespace

Expected<MinCutSolution> solveMinCut(const JointAnalysis& ja, const MinCutOptions& options,
                                     const std::vector<char>& dontBan, bool parametersFree) {
    Solver s(ja, options, dontBan, parametersFree);
    return s.run();
}

}  // namespace fxray::partition
