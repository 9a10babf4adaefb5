#include "ir/graph.h"

#include <algorithm>
#include <unordered_set>

namespace fxray {

Node* Graph::append(NodeKind kind, std::string name, std::string target) {
    return insertBefore(nullptr, kind, std::move(name), std::move(target));
}

Node* Graph::insertBefore(Node* pos, NodeKind kind, std::string name, std::string target) {
    assert(!m_byName.count(name) && "node names must be unique");
    auto node = std::make_unique<Node>(this, kind, name, std::move(target));
    Node* raw = node.get();
    m_byName.emplace(std::move(name), raw);
    if (!pos) {
        m_nodes.push_back(std::move(node));
    } else {
        auto it = std::find_if(m_nodes.begin(), m_nodes.end(), [&](const auto& p) { return p.get() == pos; });
        m_nodes.insert(it, std::move(node));
    }
    return raw;
}

void Graph::erase(Node* n) {
    m_byName.erase(n->name());
    auto it = std::find_if(m_nodes.begin(), m_nodes.end(), [&](const auto& p) { return p.get() == n; });
    if (it != m_nodes.end()) m_nodes.erase(it);
}

void Graph::rename(Node* n, std::string newName) {
    assert(!m_byName.count(newName));
    m_byName.erase(n->name());
    n->setNameInternal(newName);
    m_byName.emplace(std::move(newName), n);
}

Node* Graph::find(std::string_view name) const {
    auto it = m_byName.find(std::string(name));
    return it == m_byName.end() ? nullptr : it->second;
}

std::string Graph::uniqueName(std::string_view base) const {
    std::string b(base);
    if (!find(b)) return b;
    for (int i = 1;; ++i) {
        std::string cand = b + "_" + std::to_string(i);
        if (!find(cand)) return cand;
    }
}

std::vector<Node*> Graph::placeholders() const {
    std::vector<Node*> out;
    for (const auto& n : m_nodes)
        if (n->kind() == NodeKind::Placeholder) out.push_back(n.get());
    return out;
}

Node* Graph::outputNode() const {
    for (auto it = m_nodes.rbegin(); it != m_nodes.rend(); ++it)
        if ((*it)->kind() == NodeKind::Output) return it->get();
    return nullptr;
}

std::vector<Argument> Graph::outputs() const {
    Node* out = outputNode();
    if (!out || out->args.empty()) return {};
    const Argument& a = out->args[0];
    if (a.isSequence()) return a.items;
    return {a};
}

Graph* Graph::subgraph(std::string_view name) const {
    for (const auto& [k, g] : m_subgraphs)
        if (k == name) return g.get();
    return nullptr;
}

Graph* Graph::addSubgraph(std::string name) {
    m_subgraphs.emplace_back(std::move(name), std::make_unique<Graph>());
    return m_subgraphs.back().second.get();
}

namespace {
size_t remapArg(Argument& a, Node* from, Node* to) {
    size_t n = 0;
    if (a.kind == Argument::Kind::NodeRef && a.node == from) {
        a.node = to;
        ++n;
    }
    for (auto& it : a.items) n += remapArg(it, from, to);
    return n;
}
void remapAll(Argument& a, const std::unordered_map<const Node*, Node*>& map) {
    if (a.kind == Argument::Kind::NodeRef) {
        auto it = map.find(a.node);
        if (it != map.end()) a.node = it->second;
    }
    for (auto& it : a.items) remapAll(it, map);
}
}  // namespace

size_t Graph::replaceAllUsesWith(Node* from, Node* to) {
    size_t n = 0;
    for (auto& up : m_nodes) {
        if (up.get() == to) continue;  // do not make `to` use itself
        for (auto& a : up->args) n += remapArg(a, from, to);
        for (auto& kv : up->kwargs) n += remapArg(kv.second, from, to);
    }
    rebuildUsers();
    return n;
}

void Graph::moveBefore(Node* n, Node* pos) {
    if (!pos) pos = outputNode();
    auto it = std::find_if(m_nodes.begin(), m_nodes.end(), [&](const auto& p) { return p.get() == n; });
    if (it == m_nodes.end() || n == pos) return;
    std::unique_ptr<Node> owned = std::move(*it);
    m_nodes.erase(it);
    auto at = pos ? std::find_if(m_nodes.begin(), m_nodes.end(), [&](const auto& p) { return p.get() == pos; })
                  : m_nodes.end();
    m_nodes.insert(at, std::move(owned));
    renumber();
}

Node* Graph::importNode(const Node& src, Node* pos, const std::unordered_map<const Node*, Node*>& map) {
    Node* n = insertBefore(pos, src.kind(), uniqueName(src.name()), src.target());
    n->setOp(src.op());
    n->args = src.args;
    n->kwargs = src.kwargs;
    for (auto& a : n->args) remapAll(a, map);
    for (auto& kv : n->kwargs) remapAll(kv.second, map);
    n->meta = src.meta;
    n->metaIsTuple = src.metaIsTuple;
    n->annotated = src.annotated;
    n->annotationText = src.annotationText;
    n->sourceComment = src.sourceComment;
    n->placeholderDefault = src.placeholderDefault;
    n->sourceLine = src.sourceLine;
    return n;
}

std::unique_ptr<Graph> Graph::clone() const {
    auto g = std::make_unique<Graph>();
    g->className = className;
    g->signature = signature;
    g->printStrides = printStrides;
    g->printDevices = printDevices;
    g->sourceFile = sourceFile;
    g->symbolHints = symbolHints;
    g->constants = constants;
    for (const auto& [name, sub] : m_subgraphs) g->m_subgraphs.emplace_back(name, sub->clone());
    std::unordered_map<const Node*, Node*> map;
    for (const auto& n : m_nodes) map[n.get()] = g->importNode(*n, nullptr, map);
    g->rebuildUsers();
    return g;
}

void Graph::renumber() {
    for (size_t i = 0; i < m_nodes.size(); ++i) m_nodes[i]->index = static_cast<int>(i);
}

void Graph::rebuildUsers() {
    renumber();
    for (auto& n : m_nodes) n->users.clear();
    for (auto& n : m_nodes)
        for (Node* in : n->inputNodes()) in->users.push_back(n.get());
}

size_t Graph::computeNodeCount() const {
    size_t c = 0;
    for (const auto& n : m_nodes)
        if (n->kind() != NodeKind::Placeholder && n->kind() != NodeKind::Output) ++c;
    for (const auto& [k, g] : m_subgraphs) c += g->computeNodeCount();
    return c;
}

Status Graph::verify() const {
    std::unordered_set<const Node*> seen;
    std::unordered_set<std::string> names;
    bool pastPlaceholders = false;
    auto fail = [&](const Node* n, std::string msg) {
        Diagnostic d = makeError(std::move(msg));
        d.file = sourceFile;
        d.line = n ? n->sourceLine : 0;
        if (n) d.node = n->name();
        return Status(d);
    };
    for (size_t i = 0; i < m_nodes.size(); ++i) {
        const Node* n = m_nodes[i].get();
        if (n->owner() != this) return fail(n, "node belongs to another graph");
        if (!names.insert(n->name()).second) return fail(n, "duplicate node name");
        if (n->kind() == NodeKind::Placeholder) {
            if (pastPlaceholders) return fail(n, "placeholder after a non-placeholder node");
        } else {
            pastPlaceholders = true;
        }
        if (n->kind() == NodeKind::Output && i + 1 != m_nodes.size()) return fail(n, "output is not the last node");
        for (const Node* in : n->inputNodes()) {
            if (!in) return fail(n, "null argument");
            if (in->owner() != this) return fail(n, "uses '" + in->name() + "' of another graph");
            if (!seen.count(in)) return fail(n, "uses '" + in->name() + "' before it is defined");
        }
        // A get_attr may name a constant whose value the file does not carry (lifted tensor
        // constants print without values); execution reports those, not the verifier.
        if (n->kind() == NodeKind::GetAttr && n->target().empty()) return fail(n, "get_attr without a target");
        seen.insert(n);
    }
    if (!outputNode()) return fail(nullptr, "graph has no output node");
    for (const auto& [name, g] : m_subgraphs) {
        Status s = g->verify();
        if (!s.ok()) return s;
    }
    return Status::success();
}

namespace {
struct Hasher {
    uint64_t h = 1469598103934665603ull;
    void bytes(const void* p, size_t n) {
        auto* c = static_cast<const unsigned char*>(p);
        for (size_t i = 0; i < n; ++i) {
            h ^= c[i];
            h *= 1099511628211ull;
        }
    }
    void str(std::string_view s) {
        bytes(s.data(), s.size());
        bytes("\0", 1);
    }
};
}  // namespace

uint64_t Graph::fingerprint() const {
    Hasher hs;
    for (const auto& n : m_nodes) {
        hs.str(nodeKindName(n->kind()));
        hs.str(n->name());
        hs.str(n->target());
        for (const auto& a : n->args) hs.str(a.repr());
        for (const auto& [k, v] : n->kwargs) {
            hs.str(k);
            hs.str(v.repr());
        }
        for (const auto& m : n->meta) hs.str(m.annotation());
    }
    for (const auto& [k, g] : m_subgraphs) {
        hs.str(k);
        uint64_t sub = g->fingerprint();
        hs.bytes(&sub, sizeof sub);
    }
    return hs.h;
}

}  // namespace fxray
