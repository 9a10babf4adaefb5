// The structural matcher behind matchPattern: a backtracking walk from the pattern's outputs
// towards its inputs, binding placeholders, with an undo trail so that a failed alternative
// (looking through a value-preserving node, another candidate for a second output) leaves no
// trace. PyTorch's matcher walks the same way (PatternExpr._match from the output node).
#include "rewrite/pattern.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <unordered_set>

namespace fxray {

namespace {

bool isViewLike(const std::string& op) {
    return op == "aten.view.default" || op == "aten._unsafe_view.default" || op == "aten.reshape.default";
}

bool literalEqual(const Argument& a, const Argument& b) {
    if (a.isNumber() && b.isNumber()) {
        auto num = [](const Argument& x) {
            return x.kind == Argument::Kind::Float ? x.f : x.kind == Argument::Kind::Int ? double(x.i) : double(x.b);
        };
        if ((a.kind == Argument::Kind::Bool) != (b.kind == Argument::Kind::Bool)) return false;
        return num(a) == num(b);
    }
    if (a.isSequence() && b.isSequence()) {
        if (a.items.size() != b.items.size()) return false;
        for (size_t i = 0; i < a.items.size(); ++i)
            if (!literalEqual(a.items[i], b.items[i])) return false;
        return true;
    }
    return a.sameAs(b);
}

std::string describeArg(const Argument& a) {
    std::string r = a.repr();
    return r.size() > 40 ? r.substr(0, 37) + "..." : r;
}

class Matcher {
public:
    explicit Matcher(const Pattern& p) : m_p(p), m_total(p.callNodeCount()) {}

    MatchAttempt run(Node* anchor) {
        MatchAttempt out;
        out.total = m_total;
        auto outs = m_p.outputs();
        bool ok = !outs.empty() && matchNode(outs[0], anchor) && matchOutputs(outs, 1);
        if (ok) {
            auto why = finish(outs);
            if (why) {
                ok = false;
                fail(*why, m_whyNode);
                m_progress = m_total;  // structurally complete: always worth reporting
            }
        }
        out.progress = m_progress;
        out.reason = m_reason;
        out.failedAt = m_failedAt;
        if (ok) out.match = std::move(m_match);
        return out;
    }

private:
    enum class Undo : uint8_t { Map, Bind, Skip, Strip };
    struct TrailEntry {
        Undo kind;
        const Node* s;
        Node* g;
        std::string name;
    };

    void fail(std::string why, const Node* at) {
        size_t depth = m_match.map.size();
        if (depth >= m_progress || m_reason.empty()) {
            m_progress = std::max(m_progress, depth);
            m_reason = std::move(why);
            m_failedAt = at ? at->name() : "";
        }
    }

    size_t mark() const { return m_trail.size(); }
    void undo(size_t to) {
        while (m_trail.size() > to) {
            TrailEntry e = std::move(m_trail.back());
            m_trail.pop_back();
            switch (e.kind) {
            case Undo::Map:
                m_match.map.erase(e.s);
                m_used.erase(e.g);
                break;
            case Undo::Bind: m_match.bindings.erase(e.name); break;
            case Undo::Skip:
                m_skipped.pop_back();
                m_used.erase(e.g);
                break;
            case Undo::Strip: m_match.strippedInputs.pop_back(); break;
            }
        }
    }

    bool sameTarget(const Node& s, const Node& g) const {
        if (s.kind() != g.kind()) return false;
        if (s.target() == g.target()) return true;
        if (m_p.options.viewsEquivalent && s.isOpCall() && g.isOpCall() && isViewLike(s.opName()) &&
            isViewLike(g.opName()))
            return true;
        return false;
    }

    bool matchNode(const Node* s, Node* g) {
        auto it = m_match.map.find(s);
        const bool mapped = it != m_match.map.end();
        if (mapped && it->second == g) return true;
        size_t m = mark();
        if (!mapped) {
            if (!m_used.count(g) && tryDirect(s, g)) return true;
            undo(m);
        }
        // A second use of an already matched value may reach it through value-preserving
        // nodes (the backward's detach(detach(softmax))), so look through before giving up.
        if (m_p.options.lookThroughIdentity && !m_used.count(g)) {
            if (Node* in = identityInput(*g)) {
                m_skipped.push_back(g);
                m_used.insert(g);
                m_trail.push_back({Undo::Skip, nullptr, g, {}});
                if (matchNode(s, in)) return true;
                undo(m);
            }
        }
        if (mapped)
            fail("'" + s->name() + "' is already matched to '" + it->second->name() + "', not '" + g->name() + "'", g);
        return false;
    }

    bool tryDirect(const Node* s, Node* g) {
        if (!sameTarget(*s, *g)) {
            fail("expected " + s->opName() + " for '" + s->name() + "', found " + g->opName() + " '" + g->name() + "'",
                 g);
            return false;
        }
        m_match.map.emplace(s, g);
        m_used.insert(g);
        m_trail.push_back({Undo::Map, s, g, {}});
        std::vector<Argument> sa = normalizedArgs(*s);
        std::vector<Argument> ga = normalizedArgs(*g);
        if (sa.size() != ga.size()) {
            fail("'" + g->name() + "' has " + std::to_string(ga.size()) + " arguments, the pattern " +
                     std::to_string(sa.size()),
                 g);
            return false;
        }
        for (size_t i = 0; i < sa.size(); ++i)
            if (!matchArg(sa[i], ga[i], g)) return false;
        return true;
    }

    bool matchArg(const Argument& sa, const Argument& ga, Node* g) {
        if (sa.isNode()) {
            const Node* sn = sa.node;
            if (sn->kind() == NodeKind::Placeholder) return bind(sn->name(), ga, g);
            if (!ga.isNode()) {
                fail("'" + g->name() + "' has " + describeArg(ga) + " where the pattern has '" + sn->name() + "'", g);
                return false;
            }
            return matchNode(sn, ga.node);
        }
        if (sa.isSequence()) {
            if (!ga.isSequence() || ga.items.size() != sa.items.size()) {
                fail("'" + g->name() + "': list " + describeArg(ga) + " does not fit " + describeArg(sa), g);
                return false;
            }
            for (size_t i = 0; i < sa.items.size(); ++i)
                if (!matchArg(sa.items[i], ga.items[i], g)) return false;
            return true;
        }
        if (!literalEqual(sa, ga)) {
            fail("'" + g->name() + "' has " + describeArg(ga) + " where the pattern has " + describeArg(sa), g);
            return false;
        }
        return true;
    }

    bool bind(const std::string& name, const Argument& ga, Node* at) {
        if (!name.empty() && name[0] == '_') return true;  // wildcard
        Argument v = ga;
        if (v.isNode() && m_p.options.lookThroughIdentity) {
            while (Node* in = identityInput(*v.node)) {
                m_match.strippedInputs.push_back(v.node);
                m_trail.push_back({Undo::Strip, nullptr, v.node, {}});
                v = Argument::ofNode(in);
            }
        }
        auto it = m_match.bindings.find(name);
        if (it != m_match.bindings.end()) {
            const Argument& b = it->second;
            bool same = b.isNode() || v.isNode() ? (b.isNode() && v.isNode() && b.node == v.node) : literalEqual(b, v);
            if (!same)
                fail("input '" + name + "' is " + describeArg(b) + " in one place and " + describeArg(v) +
                         " in another",
                     at);
            return same;
        }
        m_match.bindings.emplace(name, v);
        m_trail.push_back({Undo::Bind, nullptr, nullptr, name});
        return true;
    }

    /// Graph nodes reachable upwards (through users) from the images of the search nodes
    /// nearest to s: where the image of search output s must be.
    std::vector<Node*> candidatesFor(const Node* s) {
        // Nearest matched search node (or bound placeholder) below s, and its distance.
        std::deque<std::pair<const Node*, int>> q{{s, 0}};
        std::unordered_set<const Node*> seen{s};
        const Node* base = nullptr;
        int depth = 0;
        while (!q.empty() && !base) {
            auto [n, d] = q.front();
            q.pop_front();
            for (const Node* in : n->inputNodes()) {
                if (!seen.insert(in).second) continue;
                bool mapped = m_match.map.count(in) ||
                              (in->kind() == NodeKind::Placeholder && m_match.bindings.count(in->name()) &&
                               m_match.bindings[in->name()].isNode());
                if (mapped) {
                    base = in;
                    depth = d + 1;
                    break;
                }
                q.push_back({in, d + 1});
            }
        }
        std::vector<Node*> out;
        if (!base) return out;
        Node* g = base->kind() == NodeKind::Placeholder ? m_match.bindings[base->name()].node : m_match.map[base];
        // Looked-through nodes make graph paths longer than search paths.
        const int slack = m_p.options.lookThroughIdentity ? 4 : 0;
        std::deque<std::pair<Node*, int>> gq{{g, 0}};
        std::unordered_set<Node*> gseen{g};
        while (!gq.empty()) {
            auto [n, d] = gq.front();
            gq.pop_front();
            if (d > 0 && !m_used.count(n) && sameTarget(*s, *n)) out.push_back(n);
            if (d >= depth + slack) continue;
            for (Node* u : n->users)
                if (gseen.insert(u).second) gq.push_back({u, d + 1});
        }
        std::sort(out.begin(), out.end(), [](Node* a, Node* b) { return a->index < b->index; });
        return out;
    }

    bool matchOutputs(const std::vector<const Node*>& outs, size_t k) {
        if (k == outs.size()) return true;
        const Node* s = outs[k];
        if (m_match.map.count(s)) return matchOutputs(outs, k + 1);
        auto cands = candidatesFor(s);
        if (cands.empty()) {
            fail("no candidate for pattern output '" + s->name() + "'", nullptr);
            return false;
        }
        for (Node* c : cands) {
            size_t m = mark();
            if (matchNode(s, c) && matchOutputs(outs, k + 1)) return true;
            undo(m);
        }
        return false;
    }

    /// Completes a structural match: node list, no escaping intermediates, no cycles.
    std::optional<std::string> finish(const std::vector<const Node*>& outs) {
        m_match.pattern = &m_p;
        std::unordered_set<Node*> covered;
        for (const auto& [s, g] : m_match.map) covered.insert(g);
        for (Node* g : m_skipped) covered.insert(g);
        std::unordered_set<Node*> outputImages;
        for (const Node* s : outs) {
            Node* g = m_match.map[s];
            m_match.outputs.push_back(g);
            outputImages.insert(g);
        }
        for (const auto& n : m_p.search->nodes())
            if (n->kind() == NodeKind::CallFunction && !m_match.map.count(n.get()))
                return "pattern node '" + n->name() + "' is not reachable from the pattern's outputs";
        for (Node* g : covered) {
            if (outputImages.count(g)) continue;
            for (Node* u : g->users) {
                if (!covered.count(u)) {
                    m_whyNode = g;
                    return "'" + g->name() + "' has users outside the pattern ('" + u->name() + "')";
                }
            }
        }
        for (const auto& [name, a] : m_match.bindings) {
            if (a.isNode() && covered.count(a.node)) {
                m_whyNode = a.node;
                return "input '" + name + "' is computed inside the match ('" + a.node->name() + "')";
            }
        }
        m_match.nodes.assign(covered.begin(), covered.end());
        std::sort(m_match.nodes.begin(), m_match.nodes.end(), [](Node* a, Node* b) { return a->index < b->index; });
        return std::nullopt;
    }

    const Pattern& m_p;
    size_t m_total;
    Match m_match;
    std::unordered_set<Node*> m_used;
    std::vector<Node*> m_skipped;
    std::vector<TrailEntry> m_trail;
    size_t m_progress = 0;
    std::string m_reason;
    std::string m_failedAt;
    const Node* m_whyNode = nullptr;
};

}  // namespace

bool targetMatches(const Pattern& p, const Node& s, const Node& n) {
    if (s.kind() != n.kind()) return false;
    if (s.target() == n.target()) return true;
    return p.options.viewsEquivalent && s.isOpCall() && n.isOpCall() && isViewLike(s.opName()) &&
           isViewLike(n.opName());
}

MatchAttempt matchPattern(const Pattern& p, Node* anchor) {
    Matcher m(p);
    return m.run(anchor);
}

}  // namespace fxray
