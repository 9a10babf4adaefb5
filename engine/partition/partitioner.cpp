#include "partition/partitioner.h"

#include "partition/extract.h"
#include "partition/joint_analysis.h"
#include "partition/knapsack.h"
#include "partition/min_cut.h"
#include "partition/op_classes.h"
#include "partition/sym_bytes.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <unordered_set>

namespace fxray {

using namespace partition;

namespace {

std::string fmtDouble(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

/// A node's bytes as a polynomial over the size symbols; `bytes` (its size at the binding) when
/// it is static, a scalar, or a size that does not parse.
SymPoly bytesPolyOf(const Node& n, int64_t bytes) {
    if (isSymNode(n)) return SymPoly::constant(bytes);
    SymPoly total;
    for (const auto& m : n.meta) {
        if (!m.isSymbolic()) {
            total += SymPoly::constant(m.nbytes());
            continue;
        }
        auto p = bytesPoly(m);
        if (!p.ok()) return SymPoly::constant(bytes);
        total += *p;
    }
    return total;
}

/// The expression of a SymInt node ("s33" for `primals_3: "Sym(s33)"`), or "".
std::string symExprOfNode(const Node& n) {
    const std::string& a = n.annotationText;
    if (!isSymNode(n) || a.size() < 6 || a.back() != ')') return {};
    return a.substr(4, a.size() - 5);
}

/// `is_symbol_binding_fx_node`: a placeholder whose value is a plain symbol (primals_3:
/// "Sym(s33)"), or any node that is an unbacked one (u0). Returns the symbol or "".
std::string symbolBound(const Node& n) {
    std::string e = symExprOfNode(n);
    if (e.empty() || !sym::isSymbolName(e)) return {};
    if (n.kind() == NodeKind::Placeholder || e[0] == 'u') return e;
    return {};
}

/// PyTorch's `_extract_fwd_bwd_modules` after the saved set is final: every symbol the backward
/// inputs mention (a saved [s33, 128] tensor, a tangent's sizes) must be bound in the backward,
/// so the SymInt node binding it (the first in the graph, a placeholder) is saved too, ahead of
/// the derived SymInts. The backward may not use it in any op: its sizes need it.
void bindBackwardSymbols(const Graph& g, std::vector<const Node*>& savedSym,
                         const std::vector<const Node*>& savedValues, const std::vector<const Node*>& tangents) {
    std::set<std::string> saved;
    std::vector<const Node*> binding, derived;
    for (const Node* n : savedSym) {
        std::string s = symbolBound(*n);
        if (!s.empty()) {
            saved.insert(s);
            binding.push_back(n);
        } else {
            derived.push_back(n);
        }
    }
    std::map<std::string, const Node*> bindings;  // find_symbol_binding_fx_nodes: first occurrence
    for (const auto& n : g.nodes()) {
        std::string s = symbolBound(*n);
        if (!s.empty()) bindings.emplace(s, n.get());
    }
    auto freeOf = [](const Node& n) {
        std::set<std::string> out;
        if (isSymNode(n)) return sym::freeSymbols(symExprOfNode(n));
        for (const auto& m : n.meta) {
            for (const auto& t : m.symShape) t.freeSymbols(out);
            for (const auto& t : m.symStrides) t.freeSymbols(out);
        }
        return out;
    };
    std::vector<const Node*> order = derived;
    order.insert(order.end(), savedValues.begin(), savedValues.end());
    order.insert(order.end(), tangents.begin(), tangents.end());
    for (const Node* n : order) {
        std::set<std::string> fresh;  // sorted by name, as PyTorch sorts them
        for (const auto& s : freeOf(*n))
            if (!saved.count(s)) fresh.insert(s);
        for (const auto& s : fresh)
            if (auto it = bindings.find(s); it != bindings.end()) binding.push_back(it->second);
        saved.insert(fresh.begin(), fresh.end());
    }
    savedSym = std::move(binding);
    savedSym.insert(savedSym.end(), derived.begin(), derived.end());
}

double activationGb(const JointAnalysis& ja, const std::vector<int>& nodes) {
    int64_t total = 0;
    for (int i : nodes) total += ja.nodes[i].size;
    return static_cast<double>(total) / 1e9;
}

/// The chosen saved set and the solve that chose it.
struct Choice {
    std::vector<int> saved;
    MinCutSolution solution;  ///< empty when the inputs were returned without a cut
    std::string strategy;
};

/// PyTorch's choose_saved_values_set: the runtime-optimal cut at budget 1; below it, cuts with
/// fewer ban heuristics, then a knapsack over the values banned from recomputation.
Expected<Choice> chooseSavedValues(const JointAnalysis& ja, const PartitionOptions& o) {
    MinCutOptions base;
    if (o.aggressiveRecomputation) {
        base.banIfUsedFarApart = base.banIfLongFusibleChains = base.banIfMaterializedBackward = false;
        base.banIfNotInAllowlist = false;
    }
    const bool paramsFree = !o.staticLifetimeInputs.empty();
    const std::vector<char> none;
    Choice c;
    if (o.memoryBudget == 0) {
        c.saved = ja.inputs;
        c.strategy = "inputs";
        return c;
    }
    auto runtimeOptimal = solveMinCut(ja, base, none, paramsFree);
    if (!runtimeOptimal.ok()) return runtimeOptimal.error();
    if (o.memoryBudget == 1) {
        c.saved = runtimeOptimal->saved;
        c.solution = std::move(runtimeOptimal).value();
        c.strategy = "min-cut";
        return c;
    }
    const double minAct = activationGb(ja, ja.inputs);
    const double maxAct = activationGb(ja, runtimeOptimal->saved);
    if (maxAct <= minAct) {
        c.saved = runtimeOptimal->saved;
        c.solution = std::move(runtimeOptimal).value();
        c.strategy = "min-cut";
        return c;
    }
    auto memRatio = [&](const std::vector<int>& s) { return (activationGb(ja, s) - minAct) / (maxAct - minAct); };

    MinCutOptions moreAggressive = base;
    moreAggressive.banIfUsedFarApart = moreAggressive.banIfLongFusibleChains = false;
    moreAggressive.banIfMaterializedBackward = false;
    auto more = solveMinCut(ja, moreAggressive, none, paramsFree);
    if (!more.ok()) return more.error();
    if (memRatio(more->saved) < o.memoryBudget) {
        c.saved = more->saved;
        c.solution = std::move(more).value();
        c.strategy = "more-aggressive";
        return c;
    }
    MinCutOptions aggressive = moreAggressive;
    aggressive.banIfNotInAllowlist = false;
    auto aggr = solveMinCut(ja, aggressive, none, paramsFree);
    if (!aggr.ok()) return aggr.error();
    if (memRatio(aggr->saved) < o.memoryBudget) {
        c.saved = aggr->saved;
        c.solution = std::move(aggr).value();
        c.strategy = "aggressive";
        return c;
    }

    // Values the aggressive cut still bans that the backward needs and that are not inputs'
    // storage: the knapsack decides which of them to recompute after all.
    std::set<int> inputStorages;
    for (int i : ja.inputs) inputStorages.insert(ja.nodes[i].storage);
    std::vector<int> candidates, mustSave;
    for (auto& [i, rule] : aggr->banned) {
        const NodeFacts& f = ja.nodes[i];
        if (f.distFromBw >= 1000000000 || inputStorages.count(f.storage)) continue;
        (f.policy == RecomputePolicy::MustSave ? mustSave : candidates).push_back(i);
    }
    // Sorted by name first so that equal sizes break ties deterministically, then by size.
    std::sort(candidates.begin(), candidates.end(),
              [&](int a, int b) { return ja.nodes[a].node->name() < ja.nodes[b].node->name(); });
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](int a, int b) { return ja.nodes[a].size > ja.nodes[b].size; });
    if (candidates.empty()) {
        c.saved = ja.inputs;
        c.saved.insert(c.saved.end(), mustSave.begin(), mustSave.end());
        c.strategy = "inputs";
        return c;
    }
    std::vector<double> memory, runtimes;
    for (int i : candidates) {
        memory.push_back((static_cast<double>(ja.nodes[i].size) / 1e9) / (maxAct - minAct));
        runtimes.push_back(std::max(estimateFlops(*ja.nodes[i].measured), 1.0));
    }
    KnapsackResult k = o.solver == KnapsackSolver::Greedy ? greedyKnapsack(memory, runtimes, o.memoryBudget)
                                                          : dpKnapsack(memory, runtimes, o.memoryBudget);
    std::vector<char> dontBan(ja.nodes.size(), 0);
    for (int idx : k.recomputed) dontBan[candidates[idx]] = 1;
    auto fin = solveMinCut(ja, aggressive, dontBan, paramsFree);
    if (!fin.ok()) return fin.error();
    c.saved = fin->saved;
    c.solution = std::move(fin).value();
    c.strategy = "knapsack";
    return c;
}

}  // namespace

std::vector<std::string> staticInputsFromDynamo(const Graph& joint, const Graph& dynamo) {
    std::vector<std::string> primals;
    for (Node* p : joint.placeholders()) {
        const std::string& t = p->target();
        if (t.find("tangents") == std::string::npos && t.find("_seed") == std::string::npos &&
            t.find("_base_offset") == std::string::npos)
            primals.push_back(p->name());
    }
    auto phs = dynamo.placeholders();
    std::vector<std::string> out;
    if (phs.size() != primals.size()) return out;
    for (size_t i = 0; i < phs.size(); ++i) {
        const std::string& n = phs[i]->name();
        if (n.find("_parameters_") != std::string::npos || n.find("_buffers_") != std::string::npos)
            out.push_back(primals[i]);
    }
    return out;
}

Expected<PartitionResult> partitionJoint(const Graph& joint, const PartitionOptions& o) {
    if (!(o.memoryBudget >= 0.0 && o.memoryBudget <= 1.0)) {
        Diagnostic d = makeError("memory budget " + fmtDouble(o.memoryBudget) +
                                 " is outside [0, 1] (0 saves only the inputs, 1 the runtime-optimal set)");
        d.file = joint.sourceFile;
        return d;
    }
    auto jaE = analyzeJoint(joint, o);
    if (!jaE.ok()) return jaE.error();
    JointAnalysis& ja = *jaE;
    const Graph& g = *ja.graph;

    auto choice = chooseSavedValues(ja, o);
    if (!choice.ok()) return choice.error();

    // Symbolic values are stashed in ctx, tensors via save_for_backward: syms first.
    std::vector<const Node*> savedSym, savedValues;
    for (int i : choice->saved) (ja.nodes[i].sym ? savedSym : savedValues).push_back(ja.nodes[i].node);
    std::vector<const Node*> primals, tangents, bwdSeeds;
    for (int i : ja.inputs) primals.push_back(ja.nodes[i].node);
    for (int i : ja.tangents) tangents.push_back(ja.nodes[i].node);
    for (int i : ja.bwdSeeds) bwdSeeds.push_back(ja.nodes[i].node);

    auto bwdInputs = [&] {
        std::vector<const Node*> in = savedSym;
        in.insert(in.end(), savedValues.begin(), savedValues.end());
        in.insert(in.end(), tangents.begin(), tangents.end());
        in.insert(in.end(), bwdSeeds.begin(), bwdSeeds.end());
        return in;
    };
    // First backward extraction: drop saved values the backward does not use after all.
    GraphIndex index;
    for (const auto& f : ja.nodes) {
        index.inputs.push_back(f.inputs);
        index.impure.push_back(f.impure);
    }
    {
        auto in = bwdInputs();
        auto used = usedInputs(g, index, in, ja.bwdOutputs, "backward");
        if (!used.ok()) return used.error();
        std::unordered_set<const Node*> drop;
        for (size_t k = 0; k < in.size(); ++k)
            if (!(*used)[k]) drop.insert(in[k]);
        auto keep = [&](std::vector<const Node*>& v) {
            v.erase(std::remove_if(v.begin(), v.end(), [&](const Node* n) { return drop.count(n) > 0; }), v.end());
        };
        keep(savedSym);
        keep(savedValues);
    }
    bindBackwardSymbols(g, savedSym, savedValues, tangents);
    std::vector<Argument> fwdOuts = ja.fwdOutputs;
    for (const Node* n : savedValues) fwdOuts.push_back(Argument::ofNode(const_cast<Node*>(n)));
    for (const Node* n : savedSym) fwdOuts.push_back(Argument::ofNode(const_cast<Node*>(n)));

    ExtractOptions fwdOpts;
    auto fwd = extractSubgraph(g, index, primals, fwdOuts, fwdOpts, "forward");
    if (!fwd.ok()) return fwd.error();
    ExtractOptions bwdOpts;
    bwdOpts.mimicAutograd = true;
    auto bwd = extractSubgraph(g, index, bwdInputs(), ja.bwdOutputs, bwdOpts, "backward");
    if (!bwd.ok()) return bwd.error();

    PartitionResult r;
    r.forward = std::move(fwd).value();
    r.backward = std::move(bwd).value();
    std::set<int> inputStorages;
    for (int i : ja.inputs) inputStorages.insert(ja.nodes[i].storage);
    auto isInput = [&](const Node* n) {
        if (n->kind() == NodeKind::Placeholder) return true;  // a primal (a SymInt has no storage)
        int st = ja.nodes[n->index].storage;
        return st >= 0 && inputStorages.count(st) > 0;
    };
    // Bytes at the binding (the cut's own measure) and as expressions over the symbols.
    SymPoly savedPoly, activationPoly;
    auto addSaved = [&](const Node* n, bool sym) {
        SavedValue s{n->name(), ja.nodes[n->index].size, {}, sym, isInput(n)};
        SymPoly p = bytesPolyOf(*n, s.bytes);
        s.bytesExpr = p.str();
        savedPoly += p;
        if (!s.input) activationPoly += p;
        r.saved.push_back(std::move(s));
    };
    for (const Node* n : savedSym) addSaved(n, true);
    for (const Node* n : savedValues) addSaved(n, false);
    for (const auto& s : r.saved) {
        r.savedBytes += s.bytes;
        if (!s.input) r.activationBytes += s.bytes;
    }
    r.savedBytesExpr = savedPoly.str();
    r.activationBytesExpr = activationPoly.str();
    r.binding = ja.binding;
    r.defaultedSymbols = ja.defaultedSymbols;
    std::unordered_set<std::string> bwdCalls;
    for (const auto& n : r.backward->nodes())
        if (n->kind() == NodeKind::CallFunction) bwdCalls.insert(n->name());
    for (const auto& n : r.forward->nodes())
        if (n->kind() == NodeKind::CallFunction && bwdCalls.count(n->name())) r.recomputed.push_back(n->name());
    for (auto& [i, rule] : choice->solution.banned) r.banned.push_back({ja.nodes[i].node->name(), banRuleText(rule)});
    for (auto& [i, cap] : choice->solution.cut) r.cut.push_back({ja.nodes[i].node->name(), cap});
    r.cutValue = choice->solution.cutValue;
    r.networkVertices = choice->solution.vertices;
    r.networkEdges = choice->solution.edges;
    r.numFwdOutputs = ja.fwdOutputs.size();
    r.strategy = choice->strategy;
    r.nodesBefore = ja.nodesBefore;
    r.removedByDce = ja.removedByDce;
    r.removedByCse = ja.removedByCse;
    for (const auto& f : ja.nodes) {
        if (f.isOutput) continue;
        NodeRegion reg = f.requiredFw   ? NodeRegion::Forward
                         : f.requiredBw ? NodeRegion::Backward
                                        : NodeRegion::Unclaimed;
        r.regions.emplace_back(f.node->name(), reg);
    }
    return r;
}

}  // namespace fxray
