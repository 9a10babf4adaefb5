#include "minify/candidate.h"

#include "exec/interpreter.h"
#include "exec/run_check.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace fxray::minify {

namespace {

bool isGetitem(const Node& n) { return n.kind() == NodeKind::CallFunction && n.target() == "operator.getitem"; }

/// Strides that describe a dense, non-overlapping layout (a permutation of contiguous): safe to
/// reproduce from a C-order .npy file. Expanded (stride 0) or gappy layouts are not.
bool denseLayout(const TensorMeta& m) {
    if (m.strides.size() != m.shape.size()) return false;
    std::vector<size_t> dims;
    for (size_t d = 0; d < m.shape.size(); ++d)
        if (m.shape[d] != 1) dims.push_back(d);
    std::sort(dims.begin(), dims.end(), [&](size_t a, size_t b) { return m.strides[a] > m.strides[b]; });
    int64_t expect = 1;
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
        if (m.strides[*it] != expect) return false;
        expect *= m.shape[*it];
    }
    return true;
}

} // namespace

Expected<std::shared_ptr<const Workspace>> Workspace::build(const Graph& g, std::vector<Value> inputs, uint64_t seed) {
    auto ws = std::shared_ptr<Workspace>(new Workspace());
    ws->m_graph = g.clone();
    Graph& G = *ws->m_graph;
    G.rebuildUsers();
    const size_t n = G.size();
    if (inputs.size() != G.placeholders().size())
        return makeError("the graph takes " + std::to_string(G.placeholders().size()) + " inputs but " +
                         std::to_string(inputs.size()) + " were given");
    ws->m_values.assign(n, Value::none());
    ws->m_inputsOf.assign(n, {});
    ws->m_usersOf.assign(n, {});
    for (const auto& up : G.nodes()) {
        for (Node* in : up->inputNodes()) {
            ws->m_inputsOf[static_cast<size_t>(up->index)].push_back(in->index);
            ws->m_usersOf[static_cast<size_t>(in->index)].push_back(up->index);
        }
    }
    ExecContext ctx(seed);
    Interpreter interp(Interpreter::Mode::Execute, &ctx);
    Workspace* self = ws.get();
    interp.onNode = [self](const Node& node, const Value& v) {
        if (node.index >= 0) self->m_values[static_cast<size_t>(node.index)] = v;
    };
    std::vector<Value> copies;
    for (const auto& v : inputs) copies.push_back(deepCopy(v));
    auto r = interp.run(G, std::move(copies));
    if (!r.ok()) ws->m_runNote = "the clean reference run stopped: " + r.error().str();
    ws->m_inputs = std::move(inputs);
    return std::shared_ptr<const Workspace>(ws);
}

bool Workspace::isCompute(int i) const {
    auto k = m_graph->nodes()[static_cast<size_t>(i)]->kind();
    return k != NodeKind::Placeholder && k != NodeKind::Output;
}

bool Workspace::isCuttable(int i) const {
    const Value& v = value(i);
    return isCompute(i) && v.isTensor() && v.t.hasData();
}

Candidate fullCandidate(const Workspace& ws) {
    Candidate c;
    c.keep.assign(ws.size(), 0);
    for (int i = 0; i < static_cast<int>(ws.size()); ++i) c.keep[static_cast<size_t>(i)] = ws.isCompute(i);
    for (const auto& a : ws.graph().outputs()) {
        a.forEachNode([&](const Node* n) {
            if (ws.isCompute(n->index) && std::find(c.outs.begin(), c.outs.end(), n->index) == c.outs.end())
                c.outs.push_back(n->index);
        });
    }
    return c;
}

Candidate keepOnly(const Workspace& ws, const std::vector<int>& nodes, const std::vector<int>& extraOuts) {
    Candidate c;
    c.keep.assign(ws.size(), 0);
    for (int i : nodes) c.keep[static_cast<size_t>(i)] = 1;
    for (int i : nodes) {
        bool sink = true;
        for (int u : ws.usersOf(i)) sink = sink && !(c.keep[static_cast<size_t>(u)]);
        bool extra = std::find(extraOuts.begin(), extraOuts.end(), i) != extraOuts.end();
        if (sink || extra) c.outs.push_back(i);
    }
    std::sort(c.outs.begin(), c.outs.end());
    return c;
}

Candidate Materialized::normalized(const Workspace& ws) const {
    Candidate c;
    c.keep.assign(ws.size(), 0);
    for (int i : kept) c.keep[static_cast<size_t>(i)] = 1;
    c.outs = outs;
    return c;
}

Expected<Materialized> materialize(const Workspace& ws, const Candidate& c) {
    const Graph& G = ws.graph();
    const size_t n = G.size();
    std::vector<char> keep = c.keep;
    keep.resize(n, 0);
    for (size_t i = 0; i < n; ++i) keep[i] = keep[i] && ws.isCompute(static_cast<int>(i));
    // A getitem whose tuple is not kept reads a cut tuple: cut the getitem instead.
    for (size_t i = 0; i < n; ++i) {
        const Node& node = *G.nodes()[i];
        if (!keep[i] || !isGetitem(node) || ws.inputsOf(static_cast<int>(i)).empty()) continue;
        int src = ws.inputsOf(static_cast<int>(i))[0];
        if (ws.isCompute(src) && !keep[static_cast<size_t>(src)]) {
            if (ws.isCuttable(static_cast<int>(i))) keep[i] = 0;
            else keep[static_cast<size_t>(src)] = 1;
        }
    }
    auto alwaysCut = [&](int i) {
        return G.nodes()[static_cast<size_t>(i)]->kind() == NodeKind::GetAttr && ws.isCuttable(i);
    };
    std::vector<int> outs;
    for (int o : c.outs)
        if (o >= 0 && static_cast<size_t>(o) < n && keep[static_cast<size_t>(o)] && !alwaysCut(o) &&
            std::find(outs.begin(), outs.end(), o) == outs.end())
            outs.push_back(o);
    if (outs.empty()) return makeError("the candidate returns nothing");

    std::vector<char> live(n, 0), asInput(n, 0);
    std::vector<int> stack(outs.begin(), outs.end());
    while (!stack.empty()) {
        int i = stack.back();
        stack.pop_back();
        if (live[static_cast<size_t>(i)]) continue;
        live[static_cast<size_t>(i)] = 1;
        for (int m : ws.inputsOf(i)) {
            if (!ws.isCompute(m)) {
                asInput[static_cast<size_t>(m)] = 1;
                continue;
            }
            if (keep[static_cast<size_t>(m)] && !alwaysCut(m)) stack.push_back(m);
            else if (ws.isCuttable(m)) asInput[static_cast<size_t>(m)] = 1;
            else stack.push_back(m);  // no value to stand in for it (a tuple, a scalar): keep it
        }
    }

    Materialized out;
    auto g = std::make_shared<Graph>();
    g->className = "GraphModule";
    g->printStrides = G.printStrides;
    g->printDevices = G.printDevices;
    g->sourceFile = G.sourceFile;
    std::unordered_map<const Node*, Node*> map;
    size_t origInput = 0;
    for (size_t i = 0; i < n; ++i) {
        const Node& src = *G.nodes()[i];
        if (src.kind() != NodeKind::Placeholder) continue;
        if (asInput[i]) {
            Node* p = g->append(NodeKind::Placeholder, src.name(), src.target());
            p->meta = src.meta;
            p->annotated = src.annotated;
            map[&src] = p;
            out.inputs.push_back(origInput < ws.inputs().size() ? ws.inputs()[origInput] : Value::none());
        }
        ++origInput;
    }
    for (size_t i = 0; i < n; ++i) {
        if (!asInput[i] || !ws.isCompute(static_cast<int>(i))) continue;
        const Node& src = *G.nodes()[i];
        const Value& v = ws.value(static_cast<int>(i));
        Node* p = g->append(NodeKind::Placeholder, src.name(), src.name());
        TensorMeta m = v.t.meta;
        m.offset = 0;
        if (!denseLayout(m)) m.strides = TensorMeta::contiguousStrides(m.shape);
        m.stridesKnown = true;
        if (src.meta.size() == 1 && !src.metaIsTuple) {
            m.device = src.meta[0].device;
            m.deviceKnown = src.meta[0].deviceKnown;
        }
        p->meta = {m};
        p->annotated = true;
        p->sourceComment = src.sourceComment;
        map[&src] = p;
        out.inputs.push_back(v);
    }
    bool needsSubgraphs = false;
    for (size_t i = 0; i < n; ++i) {
        if (!live[i]) continue;
        const Node& src = *G.nodes()[i];
        map[&src] = g->importNode(src, nullptr, map);
        out.kept.push_back(static_cast<int>(i));
        needsSubgraphs = needsSubgraphs || src.kind() == NodeKind::GetAttr;
    }
    if (needsSubgraphs) {
        for (const auto& [name, sub] : G.subgraphs()) g->subgraphs().emplace_back(name, sub->clone());
        g->constants = G.constants;
    }
    std::sort(outs.begin(), outs.end());
    Node* o = g->append(NodeKind::Output, "output", "output");
    std::vector<Argument> items;
    for (int i : outs) items.push_back(Argument::ofNode(map.at(G.nodes()[static_cast<size_t>(i)].get())));
    o->args = {Argument::ofList(std::move(items), true)};
    g->rebuildUsers();
    out.outs = outs;
    out.nodes = g->size();
    out.fingerprint = g->fingerprint();
    out.graph = std::move(g);
    return out;
}

} // namespace fxray::minify
