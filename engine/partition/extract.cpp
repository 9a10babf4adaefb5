#include "partition/extract.h"

#include "partition/op_classes.h"

#include <algorithm>
#include <unordered_map>

namespace fxray::partition {

namespace {

enum State : uint8_t { kUnset, kInput, kValid, kInvalid };

/// Which nodes the subgraph computes: state per node and the live body in graph order.
struct Plan {
    std::vector<uint8_t> state;
    std::vector<char> live;
    std::vector<int> body;
};

/// A placeholder that makes `n` uncomputable (for the message).
const Node* blockingPlaceholder(const Graph& g, const GraphIndex& idx, int n, const std::vector<uint8_t>& state) {
    while (n >= 0 && g.nodes()[n]->kind() != NodeKind::Placeholder) {
        int next = -1;
        for (int in : idx.inputs[n])
            if (state[in] == kInvalid) {
                next = in;
                break;
            }
        n = next;
    }
    return n >= 0 ? g.nodes()[n].get() : nullptr;
}

/// PyTorch's _extract_graph_with_inputs_outputs up to the dead-code elimination: inputs become
/// placeholders, other placeholders poison their users, and what no output (or impure node)
/// needs is dropped.
Expected<Plan> plan(const Graph& g, const GraphIndex& idx, const std::vector<const Node*>& inputs,
                    const std::vector<Argument>& outputs, const std::string& what) {
    const auto& nodes = g.nodes();
    const size_t n = nodes.size();
    Plan p;
    p.state.assign(n, kUnset);
    for (const Node* in : inputs) p.state[in->index] = kInput;
    for (size_t k = 0; k < n; ++k) {
        if (p.state[k] == kInput) continue;
        NodeKind kind = nodes[k]->kind();
        if (kind == NodeKind::Placeholder || kind == NodeKind::Output) {
            p.state[k] = kInvalid;
        } else if (kind == NodeKind::GetAttr) {
            p.state[k] = kValid;
        } else {
            bool ok = true;
            for (int in : idx.inputs[k]) ok = ok && p.state[in] != kInvalid;
            p.state[k] = ok ? kValid : kInvalid;
        }
    }
    std::vector<int> stack;
    for (const Argument& o : outputs) {
        if (!o.isNode()) continue;
        int k = o.node->index;
        if (p.state[k] == kInvalid) {
            const Node* ph = blockingPlaceholder(g, idx, k, p.state);
            Diagnostic d =
                makeError("the " + what + " graph must return '" + o.node->name() + "' but it needs '" +
                          (ph ? ph->name() : std::string("?")) + "', which is not an input of the " + what + " graph");
            d.node = o.node->name();
            d.line = o.node->sourceLine;
            d.file = g.sourceFile;
            return d;
        }
        stack.push_back(k);
    }
    for (size_t k = 0; k < n; ++k)
        if (p.state[k] == kValid && idx.impure[k]) stack.push_back(static_cast<int>(k));
    p.live.assign(n, 0);
    while (!stack.empty()) {
        int k = stack.back();
        stack.pop_back();
        if (p.live[k]) continue;
        p.live[k] = 1;
        if (p.state[k] == kInput) continue;
        for (int in : idx.inputs[k]) stack.push_back(in);
    }
    for (size_t k = 0; k < n; ++k)
        if (p.live[k] && p.state[k] == kValid) p.body.push_back(static_cast<int>(k));
    return p;
}

/// reordering_to_mimic_autograd_engine on a body (node indices of g in execution order).
std::vector<int> mimicAutograd(const Graph& g, const GraphIndex& idx, const Plan& p,
                               const std::vector<Argument>& outputs) {
    const auto& nodes = g.nodes();
    const auto& body = p.body;
    // Position of each body node; the output node goes last.
    std::vector<int> pos(nodes.size(), -1);
    for (size_t k = 0; k < body.size(); ++k) pos[body[k]] = static_cast<int>(k);
    int first = -1;
    for (const auto& up : nodes) {
        const Node& ph = *up;
        if (p.state[ph.index] != kInput || ph.target().find("tangents") == std::string::npos) continue;
        for (const Node* u : ph.users) {
            // A tangent returned as a gradient is used by the output node, which comes last.
            int at = u->kind() == NodeKind::Output ? static_cast<int>(body.size()) : pos[u->index];
            if (at >= 0 && (first < 0 || at < first)) first = at;
        }
    }
    if (first < 0) return body;  // the gradients do not depend on the tangents

    // Inserting a node first inserts its inputs that are not computed yet, in original order.
    std::vector<int> order;
    order.reserve(body.size());
    std::vector<char> done(nodes.size(), 0);
    std::vector<int> stack, pending;
    auto insert = [&](std::vector<int> starts) {
        pending.clear();
        stack = std::move(starts);
        while (!stack.empty()) {
            int k = stack.back();
            stack.pop_back();
            if (done[k] || p.state[k] == kInput) continue;
            done[k] = 1;
            pending.push_back(k);
            for (int in : idx.inputs[k]) stack.push_back(in);
        }
        std::sort(pending.begin(), pending.end(), [&](int a, int b) { return pos[a] < pos[b]; });
        order.insert(order.end(), pending.begin(), pending.end());
    };
    // copy_ nodes before the first backward node need not use the tangents; keep them.
    for (int k = 0; k < first && k < static_cast<int>(body.size()); ++k)
        if (nodes[body[k]]->target() == "torch.ops.aten.copy_.default") insert({body[k]});
    for (size_t k = static_cast<size_t>(first); k < body.size(); ++k) insert({body[k]});
    std::vector<int> rets;
    for (const auto& o : outputs)
        if (o.isNode()) rets.push_back(o.node->index);
    insert(std::move(rets));  // the output node
    return order;
}

/// raise_getitems: each getitem moves right after the tuple it reads, keeping their order.
std::vector<int> raiseGetitems(const Graph& g, const GraphIndex& idx, const std::vector<int>& body) {
    const auto& nodes = g.nodes();
    std::vector<int> rest;
    std::unordered_map<int, std::vector<int>> after;  // parent -> its getitems in order
    for (int k : body) {
        const Node& n = *nodes[k];
        if (n.kind() == NodeKind::CallFunction && n.target() == "operator.getitem" && idx.inputs[k].size() == 1)
            after[idx.inputs[k][0]].push_back(k);
        else
            rest.push_back(k);
    }
    if (after.empty()) return body;
    std::vector<int> out;
    out.reserve(body.size());
    auto emit = [&](int k, auto& self) -> void {
        out.push_back(k);
        auto it = after.find(k);
        if (it == after.end()) return;
        for (int gi : it->second) self(gi, self);
    };
    // Getitems of placeholders go right after the placeholders, i.e. first.
    for (const auto& up : nodes)
        if (up->kind() == NodeKind::Placeholder) {
            auto it = after.find(up->index);
            if (it != after.end())
                for (int gi : it->second) emit(gi, emit);
        }
    for (int k : rest) emit(k, emit);
    return out;
}

void copyValueMeta(Node& dst, const Node& src) {
    dst.meta = src.meta;
    dst.metaIsTuple = src.metaIsTuple;
    dst.annotated = src.annotated;
    dst.annotationText = src.annotationText;
}

}  // namespace

GraphIndex::GraphIndex(const Graph& g) {
    const auto& nodes = g.nodes();
    inputs.resize(nodes.size());
    impure.resize(nodes.size());
    for (size_t k = 0; k < nodes.size(); ++k) {
        const Node& n = *nodes[k];
        for (const Node* in : n.inputNodes()) inputs[k].push_back(in->index);
        NodeKind kind = n.kind();
        bool call = kind == NodeKind::CallFunction || kind == NodeKind::CallMethod || kind == NodeKind::CallModule;
        impure[k] = call && isImpure(n);
    }
}

Expected<std::unique_ptr<Graph>> extractSubgraph(const Graph& g, const GraphIndex& index,
                                                 const std::vector<const Node*>& inputs,
                                                 const std::vector<Argument>& outputs, const ExtractOptions& options,
                                                 const std::string& what) {
    auto pl = plan(g, index, inputs, outputs, what);
    if (!pl.ok()) return pl.error();
    std::vector<int> body = pl->body;
    if (options.mimicAutograd) body = mimicAutograd(g, index, *pl, outputs);
    if (options.raiseGetitems) body = raiseGetitems(g, index, body);

    const auto& nodes = g.nodes();
    auto out = std::make_unique<Graph>();
    out->className = "GraphModule";
    out->printStrides = g.printStrides;
    out->printDevices = g.printDevices;
    out->sourceFile = g.sourceFile;
    std::unordered_map<const Node*, Node*> map;
    map.reserve(inputs.size() + body.size());
    for (const Node* in : inputs) {
        Node* p = out->append(NodeKind::Placeholder, in->name(), in->name());
        copyValueMeta(*p, *in);
        map[in] = p;
    }
    for (int k : body) {
        const Node& src = *nodes[k];
        Node* copy = out->importNode(src, nullptr, map);
        map[&src] = copy;
        if (src.kind() == NodeKind::GetAttr) {
            if (auto it = g.constants.find(src.target()); it != g.constants.end())
                out->constants[it->first] = it->second;
            if (Graph* sub = g.subgraph(src.target())) out->subgraphs().emplace_back(src.target(), sub->clone());
        }
    }
    std::vector<Argument> rets;
    rets.reserve(outputs.size());
    for (const auto& o : outputs) rets.push_back(o.isNode() ? Argument::ofNode(map.at(o.node)) : o);
    Node* ret = out->append(NodeKind::Output, out->uniqueName("output"), "output");
    ret->args.push_back(Argument::ofList(std::move(rets), /*tuple=*/true));
    out->rebuildUsers();
    return out;
}

Expected<std::vector<char>> usedInputs(const Graph& g, const GraphIndex& index, const std::vector<const Node*>& inputs,
                                       const std::vector<Argument>& outputs, const std::string& what) {
    auto pl = plan(g, index, inputs, outputs, what);
    if (!pl.ok()) return pl.error();
    std::vector<char> usedNode(g.nodes().size(), 0);
    for (int k : pl->body)
        for (int in : index.inputs[k]) usedNode[in] = 1;
    for (const auto& o : outputs)
        if (o.isNode()) usedNode[o.node->index] = 1;
    std::vector<char> used;
    for (const Node* in : inputs) used.push_back(usedNode[in->index]);
    return used;
}

}  // namespace fxray::partition
