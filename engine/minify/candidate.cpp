#include "minify/candidate.h"

#include "exec/interpreter.h"
#include "exec/run_check.h"
#include "exec/shape_binding.h"
#include "minify/sym_inputs.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <unordered_map>

namespace fxray::minify {

namespace {

bool isGetitem(const Node& n) { return n.kind() == NodeKind::CallFunction && n.target() == "operator.getitem"; }

/// A SymInt/SymFloat/SymBool-valued node ("Sym(s23*s27)" annotation).
bool isSymNode(const Node& n) { return n.annotationText.size() > 5 && n.annotationText.compare(0, 4, "Sym(") == 0; }

/// Learns symbols that only appear inside the graph (unbacked u0, symbols of intermediate
/// sizes) from a value the clean run computed.
void learnSymbols(const Node& n, const Value& v, sym::Binding& b) {
    if (isSymNode(n) && isSymValue(v)) {
        std::string e = n.annotationText.substr(4, n.annotationText.size() - 5);
        if (sym::isSymbolName(e) && !b.count(e))
            b[e] = v.kind == Value::Kind::Double ? sym::Num::ofFloat(v.d)
                   : v.kind == Value::Kind::Bool ? sym::Num::ofBool(v.b)
                                                 : sym::Num::ofInt(v.i);
        return;
    }
    if (!v.isTensor() || n.metaIsTuple || n.meta.size() != 1) return;
    const auto& ss = n.meta[0].symShape;
    for (size_t d = 0; d < ss.size() && d < v.t.shape().size(); ++d)
        if (ss[d].isSymbol() && !b.count(ss[d].text())) b[ss[d].text()] = sym::Num::ofInt(v.t.shape()[d]);
}

/// Symbols a placeholder-to-be mentions (`mentioned`) and binds directly (`bound`).
void symbolsOf(const std::string& symExpr, const TensorMeta* m, std::set<std::string>& mentioned,
               std::set<std::string>& bound) {
    if (!symExpr.empty()) {
        auto f = sym::freeSymbols(symExpr);
        mentioned.insert(f.begin(), f.end());
        if (sym::isSymbolName(symExpr)) bound.insert(symExpr);
    }
    if (!m) return;
    for (const auto& t : m->symShape) {
        t.freeSymbols(mentioned);
        if (t.isSymbol()) bound.insert(t.text());
    }
    for (const auto& t : m->symStrides) t.freeSymbols(mentioned);
}

Value symValue(const sym::Num& n) {
    if (n.isFloat()) return Value::ofDouble(n.d);
    if (n.kind == sym::Num::Kind::Bool) return Value::ofBool(n.i != 0);
    return Value::ofInt(n.i);
}

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

}  // namespace

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
    if (graphIsSymbolic(G)) {
        // Dynamic shapes: SymInt inputs are Python numbers, and the run's sizes are what every
        // candidate's inputs must bind to.
        scalarizeSymInputs(G, inputs);
        auto b = bindInputs(G, inputs, /*withStrides=*/false);
        if (!b.ok()) return b.error();
        ws->m_symbolic = true;
        ws->m_binding = *b;
        ws->m_symbols = *b;
    }
    ExecContext ctx(seed);
    Interpreter interp(Interpreter::Mode::Execute, &ctx);
    Workspace* self = ws.get();
    interp.onNode = [self](const Node& node, const Value& v) {
        if (node.index >= 0) self->m_values[static_cast<size_t>(node.index)] = v;
        if (self->m_symbolic) learnSymbols(node, v, self->m_symbols);
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
    if (!isCompute(i)) return false;
    if (v.isTensor()) return v.t.hasData();
    return isSymNode(*m_graph->nodes()[static_cast<size_t>(i)]) && isSymValue(v);
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
            if (ws.isCuttable(static_cast<int>(i)))
                keep[i] = 0;
            else
                keep[static_cast<size_t>(src)] = 1;
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
            if (keep[static_cast<size_t>(m)] && !alwaysCut(m))
                stack.push_back(m);
            else if (ws.isCuttable(m))
                asInput[static_cast<size_t>(m)] = 1;
            else
                stack.push_back(m);  // no value to stand in for it (a tuple, a scalar): keep it
        }
    }

    // The inputs that stand for cut nodes: a tensor keeps its symbolic sizes in a symbolic
    // graph, a SymInt node becomes a Sym placeholder holding its number.
    struct CutInput {
        size_t node;
        TensorMeta meta;      ///< tensors
        std::string symText;  ///< "Sym(...)" nodes
    };
    std::vector<CutInput> cuts;
    for (size_t i = 0; i < n; ++i) {
        if (!asInput[i] || !ws.isCompute(static_cast<int>(i))) continue;
        const Node& src = *G.nodes()[i];
        const Value& v = ws.value(static_cast<int>(i));
        CutInput cut{i, {}, {}};
        if (!v.isTensor()) {
            cut.symText = src.annotationText;
            cuts.push_back(std::move(cut));
            continue;
        }
        const bool one = src.meta.size() == 1 && !src.metaIsTuple;
        TensorMeta m;
        if (ws.symbolic() && one && src.meta[0].isSymbolic()) {
            m = symbolicCutMeta(src.meta[0], v.t.meta, ws.symbols());
        } else {
            m = v.t.meta;
            m.offset = 0;
            if (!denseLayout(m)) m.strides = TensorMeta::contiguousStrides(m.shape);
            m.stridesKnown = true;
        }
        if (one) {
            m.device = src.meta[0].device;
            m.deviceKnown = src.meta[0].deviceKnown;
        }
        cut.meta = std::move(m);
        cuts.push_back(std::move(cut));
    }

    // Every symbol the inputs mention must be bound by one of them: the original Sym
    // placeholder of a symbol nothing else binds is kept, or a new `Sym(sN)` input is added.
    std::vector<std::string> addedSyms;
    if (ws.symbolic()) {
        std::set<std::string> mentioned, bound;
        for (size_t i = 0; i < n; ++i) {
            const Node& src = *G.nodes()[i];
            if (!asInput[i] || src.kind() != NodeKind::Placeholder) continue;
            symbolsOf(symPlaceholderExpr(src), src.meta.empty() ? nullptr : &src.meta[0], mentioned, bound);
        }
        for (const auto& cut : cuts)
            symbolsOf(cut.symText.empty() ? std::string() : cut.symText.substr(4, cut.symText.size() - 5),
                      cut.symText.empty() ? &cut.meta : nullptr, mentioned, bound);
        for (const auto& sname : mentioned) {
            if (bound.count(sname)) continue;
            bool found = false;
            for (size_t i = 0; i < n && !found; ++i) {
                const Node& src = *G.nodes()[i];
                if (src.kind() == NodeKind::Placeholder && symPlaceholderExpr(src) == sname)
                    asInput[i] = 1, found = true;
            }
            if (found) continue;
            if (!ws.symbols().count(sname))
                return makeError("the candidate's inputs mention " + sname + ", whose value the run did not show");
            addedSyms.push_back(sname);
        }
    }

    Materialized out;
    auto g = std::make_shared<Graph>();
    g->className = "GraphModule";
    g->printStrides = G.printStrides;
    g->printDevices = G.printDevices;
    g->sourceFile = G.sourceFile;
    g->symbolHints = G.symbolHints;
    std::unordered_map<const Node*, Node*> map;
    size_t origInput = 0;
    for (size_t i = 0; i < n; ++i) {
        const Node& src = *G.nodes()[i];
        if (src.kind() != NodeKind::Placeholder) continue;
        if (asInput[i]) {
            Node* p = g->append(NodeKind::Placeholder, src.name(), src.target());
            p->meta = src.meta;
            p->annotated = src.annotated;
            p->annotationText = src.annotationText;
            map[&src] = p;
            out.inputs.push_back(origInput < ws.inputs().size() ? ws.inputs()[origInput] : Value::none());
        }
        ++origInput;
    }
    for (auto& cut : cuts) {
        const Node& src = *G.nodes()[cut.node];
        const Value& v = ws.value(static_cast<int>(cut.node));
        Node* p = g->append(NodeKind::Placeholder, src.name(), src.name());
        if (cut.symText.empty()) {
            p->meta = {std::move(cut.meta)};
            p->annotated = true;
        } else {
            p->annotationText = cut.symText;
        }
        p->sourceComment = src.sourceComment;
        map[&src] = p;
        out.inputs.push_back(v);
    }
    for (const auto& sname : addedSyms) {
        // Named for the symbol, as Dynamo names a size input it adds ("s23").
        std::string name = g->uniqueName(G.find(sname) ? "sym_" + sname : sname);
        Node* p = g->append(NodeKind::Placeholder, name, name);
        p->annotationText = "Sym(" + sname + ")";
        out.inputs.push_back(symValue(ws.symbols().at(sname)));
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
    if (ws.symbolic()) {
        // A candidate runs only when its inputs bind every symbol to the run's value.
        auto b = checkCandidateBinding(*g, out.inputs, ws.symbols());
        if (!b.ok()) return makeError("the candidate's inputs do not bind consistently: " + b.error().message);
        out.sizes = std::move(b).value();
    }
    out.outs = outs;
    out.nodes = g->size();
    out.fingerprint = g->fingerprint();
    out.graph = std::move(g);
    return out;
}

}  // namespace fxray::minify
