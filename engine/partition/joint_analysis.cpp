#include "partition/joint_analysis.h"

#include "exec/shape_binding.h"
#include "ir/op_registry.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace fxray::partition {

namespace {

Diagnostic nodeError(const Graph& g, const Node* n, std::string msg) {
    Diagnostic d = makeError(std::move(msg));
    d.file = g.sourceFile;
    if (n) {
        d.node = n->name();
        d.line = n->sourceLine;
    }
    return d;
}

bool contains(const std::string& s, std::string_view w) { return s.find(w) != std::string::npos; }

bool isMutationOp(const Node& n) {
    if (n.kind() == NodeKind::CallMethod) return !n.target().empty() && n.target().back() == '_';
    if (n.kind() != NodeKind::CallFunction) return false;
    if (n.kwarg("out")) return true;
    return n.op() && (n.op()->inplace || n.op()->schema.text.find("!)") != std::string::npos);
}

/// CSE key of an argument: its Python form with node references replaced by their
/// representative's index, so that calls on merged duplicates compare equal.
void appendKey(std::string& key, const Argument& a, const std::unordered_map<const Node*, int>& index,
               const std::vector<int>& rep) {
    switch (a.kind) {
    case Argument::Kind::NodeRef:
        key += '%';
        key += std::to_string(rep[index.at(a.node)]);
        return;
    case Argument::Kind::List:
    case Argument::Kind::Tuple:
    case Argument::Kind::Slice:
        key += a.kind == Argument::Kind::List ? '[' : a.kind == Argument::Kind::Tuple ? '(' : '{';
        for (const auto& it : a.items) {
            appendKey(key, it, index, rep);
            key += ',';
        }
        key += ']';
        return;
    default: key += a.repr();
    }
}

/// Dynamic shapes: the binding sizes are measured at (given, then the hints, then 8) and a copy
/// of the prepared graph with every size evaluated under it. The cut then weighs tensors as
/// PyTorch does, by their size at the hints, while the partition itself keeps the symbolic
/// annotations. A size the binding cannot evaluate (an unbacked u0) stays symbolic.
void bindSizes(JointAnalysis& ja, const sym::Binding& given) {
    const Graph& g = *ja.graph;
    bool symbolic = false;
    for (const auto& n : g.nodes())
        for (const auto& m : n->meta) symbolic = symbolic || m.isSymbolic();
    if (!symbolic) return;
    ja.binding = completeBinding(g, given, 8, &ja.defaultedSymbols);
    // Symbols the inputs do not mention (u0, or a given one) still count when given.
    for (const auto& [s, v] : given) ja.binding.emplace(s, v);
    ja.sized = g.clone();
    for (const auto& n : ja.sized->nodes())
        for (auto& m : n->meta)
            if (m.isSymbolic())
                if (auto b = bindMeta(m, ja.binding); b.ok()) m = std::move(b).value();
}

/// Dead-code elimination and CSE decided on the read-only joint graph, then one filtered copy:
/// FX's eliminate_dead_code (drop what neither is impure nor feeds a live node) followed by
/// PyTorch's fx_graph_cse (a call whose target and deduplicated arguments equal an earlier call's
/// in the same mutation region is replaced by it; random ops and aten.empty never are).
std::unique_ptr<Graph> copyWithoutDeadAndDuplicates(const Graph& joint, bool cse, size_t& dce, size_t& dups) {
    const auto& nodes = joint.nodes();
    const size_t n = nodes.size();
    std::unordered_map<const Node*, int> index;
    index.reserve(n);
    for (size_t i = 0; i < n; ++i) index.emplace(nodes[i].get(), static_cast<int>(i));
    std::vector<std::vector<int>> inputs(n);
    for (size_t i = 0; i < n; ++i)
        for (const Node* in : nodes[i]->inputNodes()) inputs[i].push_back(index.at(in));

    std::vector<char> live(n, 0);
    for (size_t k = n; k-- > 0;) {
        if (!live[k] && !isImpure(*nodes[k])) continue;
        live[k] = 1;
        for (int in : inputs[k]) live[in] = 1;
    }
    std::vector<int> rep(n);
    for (size_t i = 0; i < n; ++i) rep[i] = static_cast<int>(i);
    dce = 0;
    dups = 0;
    for (size_t i = 0; i < n; ++i) dce += !live[i];
    if (cse) {
        std::unordered_map<std::string, int> seen;
        int region = 0;
        std::string key;
        for (size_t i = 0; i < n; ++i) {
            const Node& node = *nodes[i];
            if (!live[i]) continue;
            if (isMutationOp(node)) ++region;
            if (node.kind() != NodeKind::CallFunction && node.kind() != NodeKind::CallMethod) continue;
            if (isNondeterministicSeeded(node) || opPacket(node) == "aten.empty") continue;
            key.clear();
            key += std::to_string(region);
            key += '|';
            key += node.target();
            key += '(';
            for (const auto& a : node.args) {
                appendKey(key, a, index, rep);
                key += ',';
            }
            for (const auto& [k, v] : node.kwargs) {
                key += k;
                key += '=';
                appendKey(key, v, index, rep);
                key += ',';
            }
            auto [it, inserted] = seen.emplace(key, static_cast<int>(i));
            if (!inserted) {
                rep[i] = it->second;
                ++dups;
            }
        }
    }

    auto g = std::make_unique<Graph>();
    g->className = joint.className;
    g->signature = joint.signature;
    g->printStrides = joint.printStrides;
    g->printDevices = joint.printDevices;
    g->sourceFile = joint.sourceFile;
    g->constants = joint.constants;
    for (const auto& [name, sub] : joint.subgraphs()) g->subgraphs().emplace_back(name, sub->clone());
    std::unordered_map<const Node*, Node*> map;
    map.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        if (!live[i]) continue;
        if (rep[i] != static_cast<int>(i)) {
            map[nodes[i].get()] = map.at(nodes[rep[i]].get());  // uses of a duplicate use the original
            continue;
        }
        map[nodes[i].get()] = g->importNode(*nodes[i], nullptr, map);
    }
    g->rebuildUsers();
    return g;
}

RecomputePolicy policyFromName(std::string_view w) {
    if (w == "MUST_SAVE") return RecomputePolicy::MustSave;
    if (w == "PREFER_SAVE") return RecomputePolicy::PreferSave;
    if (w == "MUST_RECOMPUTE") return RecomputePolicy::MustRecompute;
    if (w == "PREFER_RECOMPUTE") return RecomputePolicy::PreferRecompute;
    return RecomputePolicy::None;
}

}  // namespace

RecomputePolicy parseRecomputeTag(const std::string& comment, int* acGraphId) {
    static constexpr std::string_view kKey = "ac_graph_id:";
    auto p = comment.find(kKey);
    if (p == std::string::npos) return RecomputePolicy::None;
    size_t i = p + kKey.size();
    while (i < comment.size() && comment[i] == ' ') ++i;
    size_t numStart = i;
    while (i < comment.size() && std::isdigit(static_cast<unsigned char>(comment[i]))) ++i;
    if (i == numStart || i - numStart > 9) return RecomputePolicy::None;
    int id = std::stoi(comment.substr(numStart, i - numStart));
    while (i < comment.size() && (comment[i] == ' ' || comment[i] == '-')) ++i;
    size_t w = i;
    while (i < comment.size() && (std::isupper(static_cast<unsigned char>(comment[i])) || comment[i] == '_')) ++i;
    RecomputePolicy pol = policyFromName(std::string_view(comment).substr(w, i - w));
    if (pol != RecomputePolicy::None && acGraphId) *acGraphId = id;
    return pol;
}

Expected<JointAnalysis> analyzeJoint(const Graph& joint, const PartitionOptions& options) {
    JointAnalysis ja;
    ja.nodesBefore = joint.size();
    if (!joint.outputNode()) return nodeError(joint, nullptr, "the graph has no output");
    bool haveTangent = false;
    for (Node* p : joint.placeholders()) haveTangent = haveTangent || contains(p->target(), "tangents");
    if (!haveTangent)
        return nodeError(joint, nullptr,
                         "the graph has no tangents_* placeholder: partitioning needs a joint forward+backward "
                         "graph (PyTorch's aot_joint_graph, `forward(self, primals, tangents)`)");
    ja.graph = copyWithoutDeadAndDuplicates(joint, options.cse, ja.removedByDce, ja.removedByCse);
    // The copy is rebuilt node by node; the trace's hints belong to it as much as to the joint.
    ja.graph->symbolHints = joint.symbolHints;
    Graph& g = *ja.graph;
    bindSizes(ja, options.sizes);

    const auto& nodes = g.nodes();
    const size_t n = nodes.size();
    ja.nodes.resize(n);
    for (size_t i = 0; i < n; ++i) {
        NodeFacts& f = ja.nodes[i];
        Node* node = nodes[i].get();
        f.node = node;
        f.measured = ja.sized ? ja.sized->nodes()[i].get() : node;
        f.cls = classifyOp(*node);
        f.sym = isSymNode(*node);
        f.size = sizeOfNode(*f.measured);
        f.nonTensor = !f.sym && (node->meta.empty() || node->metaIsTuple);
        f.isOutput = node->kind() == NodeKind::Output;
        f.impure = (node->kind() == NodeKind::CallFunction || node->kind() == NodeKind::CallMethod ||
                    node->kind() == NodeKind::CallModule) &&
                   isImpure(*node);
        if (f.isOutput) ja.outputIndex = static_cast<int>(i);
        for (Node* u : node->users) f.users.push_back(u->index);
        for (Node* in : node->inputNodes()) f.inputs.push_back(in->index);
        f.policy = parseRecomputeTag(node->sourceComment, &f.acGraphId);
        if (node->kind() == NodeKind::Placeholder) {
            const std::string& t = node->target();
            if (contains(t, "tangents")) {
                f.tangent = true;
                ja.tangents.push_back(static_cast<int>(i));
            } else if (contains(t, "bwd_seed") || contains(t, "bwd_base_offset")) {
                f.bwdSeed = true;
                ja.bwdSeeds.push_back(static_cast<int>(i));
            } else {
                f.primal = true;  // primals and forward seeds/offsets both feed the forward
            }
        }
        if (f.node->kind() == NodeKind::Placeholder)
            for (const auto& s : options.staticLifetimeInputs) f.staticLifetime = f.staticLifetime || s == node->name();
    }
    // node_info.inputs: primals first, then forward seeds and offsets.
    for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < n; ++i) {
            if (!ja.nodes[i].primal) continue;
            const std::string& t = nodes[i]->target();
            bool seed = contains(t, "fwd_seed") || contains(t, "fwd_base_offset");
            if (seed == (pass == 1)) ja.inputs.push_back(static_cast<int>(i));
        }

    // Checkpointing tags, then cleanup_recompute_tags: the last node of a checkpointed region
    // that feeds a later region is saved (MUST_SAVE) so that consecutive regions keep a boundary.
    for (size_t i = 0; i < n; ++i) ja.hasRecomputeTags = ja.hasRecomputeTags || ja.mustRecompute(static_cast<int>(i));
    if (ja.hasRecomputeTags)
        for (size_t i = 0; i < n; ++i) {
            if (!ja.mustRecompute(static_cast<int>(i))) continue;
            for (int u : ja.nodes[i].users)
                if (ja.mustRecompute(u) && ja.nodes[u].acGraphId > ja.nodes[i].acGraphId)
                    ja.nodes[i].policy = RecomputePolicy::MustSave;
        }

    // Forward and backward outputs.
    auto outs = g.outputs();
    size_t numPrimals = 0;
    for (int i : ja.inputs) {
        const std::string& t = nodes[i]->target();
        numPrimals += !(contains(t, "fwd_seed") || contains(t, "fwd_base_offset"));
    }
    size_t numFwd = 0;
    if (options.numFwdOutputs >= 0) {
        numFwd = static_cast<size_t>(options.numFwdOutputs);
        if (numFwd > outs.size())
            return nodeError(g, g.outputNode(),
                             "num_fwd_outputs " + std::to_string(numFwd) + " exceeds the " +
                                 std::to_string(outs.size()) + " outputs of the joint graph");
    } else {
        if (outs.size() < numPrimals)
            return nodeError(g, g.outputNode(),
                             "the joint graph returns " + std::to_string(outs.size()) + " values but has " +
                                 std::to_string(numPrimals) +
                                 " primals; a joint graph returns the forward outputs, then one gradient (or None) per "
                                 "primal");
        numFwd = outs.size() - numPrimals;
    }
    ja.fwdOutputs.assign(outs.begin(), outs.begin() + static_cast<std::ptrdiff_t>(numFwd));
    ja.bwdOutputs.assign(outs.begin() + static_cast<std::ptrdiff_t>(numFwd), outs.end());

    // classify_nodes: required backward = tangents and everything downstream of them, plus the
    // backward outputs.
    for (size_t i = 0; i < n; ++i) {
        NodeFacts& f = ja.nodes[i];
        if (f.tangent) f.requiredBw = true;
        if (f.requiredBw)
            for (int u : f.users) ja.nodes[u].requiredBw = true;
    }
    for (const auto& o : ja.bwdOutputs)
        if (o.isNode()) ja.nodes[o.node->index].requiredBw = true;

    // Required forward = what the forward-only extraction keeps: nodes computable from the inputs
    // that feed a forward output, impure ones, and the input placeholders themselves.
    std::vector<char> valid(n, 0), live(n, 0);
    for (size_t i = 0; i < n; ++i) {
        const NodeFacts& f = ja.nodes[i];
        switch (f.node->kind()) {
        case NodeKind::Placeholder: valid[i] = f.primal; break;
        case NodeKind::GetAttr: valid[i] = 1; break;
        case NodeKind::Output: valid[i] = 0; break;
        default: {
            bool ok = true;
            for (int in : f.inputs) ok = ok && valid[in];
            valid[i] = ok;
        }
        }
    }
    std::vector<int> stack;
    for (size_t k = 0; k < ja.fwdOutputs.size(); ++k) {
        const Argument& o = ja.fwdOutputs[k];
        if (!o.isNode()) continue;
        int i = o.node->index;
        if (!valid[i])
            return nodeError(g, o.node,
                             "forward output " + std::to_string(k) + " ('" + o.node->name() +
                                 "') depends on the tangents; with " + std::to_string(numFwd) +
                                 " forward outputs the rest of the return values must be the gradients");
        stack.push_back(i);
    }
    for (size_t i = 0; i < n; ++i)
        if (valid[i] && (ja.nodes[i].primal || ja.nodes[i].impure)) stack.push_back(static_cast<int>(i));
    while (!stack.empty()) {
        int i = stack.back();
        stack.pop_back();
        if (live[i]) continue;
        live[i] = 1;
        for (int in : ja.nodes[i].inputs) stack.push_back(in);
    }
    int order = 0;
    for (size_t i = 0; i < n; ++i)
        if (live[i]) {
            ja.nodes[i].requiredFw = true;
            ja.nodes[i].fwOrder = order++;
            ja.requiredFwSorted.push_back(static_cast<int>(i));
        }

    // dist_from_bw: 0 outside the forward, else one more than the closest user.
    constexpr int64_t kFar = 1000000000;
    for (size_t k = n; k-- > 0;) {
        NodeFacts& f = ja.nodes[k];
        if (f.isOutput) {
            f.distFromBw = kFar;
        } else if (!f.requiredFw) {
            f.distFromBw = 0;
        } else {
            f.distFromBw = kFar;
            for (int u : f.users) f.distFromBw = std::min(f.distFromBw, ja.nodes[u].distFromBw + 1);
        }
    }

    // Storage identity (get_node_storage): views and aliases share their base's storage; tuples
    // have none.
    for (size_t i = 0; i < n; ++i) {
        NodeFacts& f = ja.nodes[i];
        if (f.nonTensor || f.sym) continue;
        f.storage = static_cast<int>(i);
        const Node* node = f.node;
        if (node->kind() != NodeKind::CallFunction || node->args.empty() || !node->args[0].isNode()) continue;
        const Node* src = node->args[0].node;
        if (node->op() && node->op()->aliasesInput) {
            if (ja.nodes[src->index].storage >= 0) f.storage = ja.nodes[src->index].storage;
        } else if (f.cls.getitem && src->op() && src->op()->aliasesInput && !src->args.empty() &&
                   src->args[0].isNode()) {
            int base = ja.nodes[src->args[0].node->index].storage;
            if (base >= 0) f.storage = base;
        }
    }
    return ja;
}

}  // namespace fxray::partition
