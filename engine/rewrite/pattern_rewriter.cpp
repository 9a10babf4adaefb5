#include "rewrite/pattern_rewriter.h"
#include "rewrite/sym_meta_eq.h"

#include "ir/op_registry.h"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

namespace fxray {

namespace {

std::string metaKey(const Node& n) {
    std::string k;
    for (const auto& m : n.meta) k += m.annotation(true, true) + "@" + std::to_string(m.offset) + ";";
    return k;
}

bool sameLayout(const TensorMeta& a, const TensorMeta& b) {
    if (!sameSizes(a, b) || a.strides.size() != b.strides.size()) return false;
    if (!a.stridesKnown || !b.stridesKnown) return true;
    // Strides of size-1 dims do not matter; a symbolic dim may be larger than 1.
    for (size_t i = 0; i < a.shape.size(); ++i)
        if ((a.shape[i] > 1 || !staticSizes(a)) && strideText(a, i) != strideText(b, i)) return false;
    return true;
}

/// Whether some consumer of n depends on n's exact strides: a view (which fails on an
/// incompatible layout), as_strided, or the graph output — reached directly or through ops
/// that alias their input (transpose, permute, expand, ...).
bool layoutMatters(const Node* n) {
    std::deque<const Node*> q{n};
    std::unordered_set<const Node*> seen{n};
    while (!q.empty()) {
        const Node* x = q.front();
        q.pop_front();
        for (const Node* u : x->users) {
            if (!seen.insert(u).second) continue;
            if (u->kind() == NodeKind::Output) return true;
            const OpInfo* op = u->op();
            if (!op) return true;  // unknown consumer: assume it cares
            const std::string& q2 = op->qualname;
            if (q2 == "aten.view.default" || q2 == "aten._unsafe_view.default" || q2 == "aten.as_strided.default")
                return true;
            if (op->aliasesInput && !op->inplace) q.push_back(u);
        }
    }
    return false;
}

Node* nextNonPlaceholderAfter(Graph& g, Node* after) {
    const auto& nodes = g.nodes();
    size_t i = after ? static_cast<size_t>(after->index) + 1 : 0;
    while (i < nodes.size() && nodes[i]->kind() == NodeKind::Placeholder) ++i;
    return i < nodes.size() ? nodes[i].get() : nullptr;
}

}  // namespace

void refreshDownstreamMeta(Node* start) {
    std::deque<Node*> q;
    for (Node* u : start->users) q.push_back(u);
    std::unordered_set<Node*> seen(start->users.begin(), start->users.end());
    while (!q.empty()) {
        Node* u = q.front();
        q.pop_front();
        if (u->kind() != NodeKind::CallFunction) continue;
        auto oldMeta = u->meta;
        bool oldTuple = u->metaIsTuple, oldAnnotated = u->annotated;
        std::string before = metaKey(*u);
        if (!inferNodeMeta(*u).ok()) {
            u->meta = std::move(oldMeta);
            u->metaIsTuple = oldTuple;
            u->annotated = oldAnnotated;
            continue;
        }
        u->annotated = oldAnnotated;
        if (metaKey(*u) == before) continue;
        for (Node* w : u->users)
            if (seen.insert(w).second) q.push_back(w);
    }
}

bool stableTopologicalSort(Graph& g) {
    const auto& nodes = g.nodes();
    std::vector<Node*> pending;
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) pending.push_back(it->get());
    std::unordered_set<const Node*> ready;
    std::unordered_map<const Node*, std::vector<Node*>> waiting;
    std::vector<Node*> order;
    order.reserve(nodes.size());
    while (!pending.empty()) {
        Node* n = pending.back();
        pending.pop_back();
        const Node* lastMissing = nullptr;
        for (const Node* in : n->inputNodes())
            if (!ready.count(in)) lastMissing = in;
        if (lastMissing) {
            waiting[lastMissing].push_back(n);
            continue;
        }
        ready.insert(n);
        order.push_back(n);
        auto w = waiting.find(n);
        if (w != waiting.end()) {
            for (auto it = w->second.rbegin(); it != w->second.rend(); ++it) pending.push_back(*it);
            waiting.erase(w);
        }
    }
    // Nodes still waiting are part of a cycle: leave them where they are (verify reports it).
    bool moved = false;
    for (size_t i = 0; i < order.size(); ++i) {
        if (g.nodes()[i].get() == order[i]) continue;
        g.moveBefore(order[i], g.nodes()[i].get());
        moved = true;
    }
    g.renumber();
    return moved;
}

Status replaceWithGraph(Match& m, Rewriter& rw) {
    const Pattern& p = *m.pattern;
    if (!p.replacement) return makeError("pattern '" + p.name + "' has no replacement");
    const Graph& R = *p.replacement;
    Graph& g = rw.graph();
    rw.order();
    std::unordered_map<const Node*, Argument> map;
    for (Node* ph : R.placeholders()) {
        const Argument* b = m.binding(ph->name());
        if (!b) return makeError("replacement input '" + ph->name() + "' is not bound by the match");
        map[ph] = *b;
    }
    Node* first = m.nodes.empty() ? nullptr : m.nodes.front();
    std::vector<Node*> created;
    auto rollback = [&] {
        for (auto it = created.rbegin(); it != created.rend(); ++it) {
            std::vector<Node*> users = (*it)->users;
            if (users.empty()) rw.erase(*it);
        }
    };
    for (const auto& up : R.nodes()) {
        const Node* r = up.get();
        if (r->kind() != NodeKind::CallFunction) continue;
        Node* latest = nullptr;
        for (const Node* in : r->inputNodes()) {
            auto it = map.find(in);
            if (it != map.end() && it->second.isNode() && (!latest || it->second.node->index > latest->index))
                latest = it->second.node;
        }
        Node* pos = latest ? nextNonPlaceholderAfter(g, latest) : first;
        // Nodes this replacement already put at the same place stay in creation order.
        while (pos && std::find(created.begin(), created.end(), pos) != created.end())
            pos = nextNonPlaceholderAfter(g, pos);
        auto n = rw.importNode(*r, pos, map);
        if (!n.ok()) {
            rollback();
            return n.error();
        }
        map[r] = Argument::ofNode(*n);
        created.push_back(*n);
        rw.order();
    }
    auto routs = R.outputs();
    if (routs.size() != m.outputs.size()) {
        rollback();
        return makeError("the replacement returns " + std::to_string(routs.size()) + " values for " +
                         std::to_string(m.outputs.size()) + " pattern outputs");
    }
    std::vector<Node*> finals;
    for (size_t k = 0; k < routs.size(); ++k) {
        Argument a = routs[k];
        if (a.isNode()) {
            auto it = map.find(a.node);
            a = it == map.end() ? Argument::none() : it->second;
        }
        Node* orig = m.outputs[k];
        if (!a.isNode()) {
            rollback();
            return makeError("replacement output " + std::to_string(k) + " is not a node");
        }
        Node* nn = a.node;
        if (orig->meta.size() == 1 && nn->meta.size() == 1) {
            const TensorMeta& om = orig->meta[0];
            const TensorMeta& nm = nn->meta[0];
            if (om.dtype != nm.dtype || !sameSizes(om, nm)) {
                std::string why = "replacement output " + std::to_string(k) + " is " + nm.annotation(false, false) +
                                  " where '" + orig->name() + "' is " + om.annotation(false, false);
                rollback();
                return makeError(why);
            }
            if (!sameLayout(om, nm) && om.stridesKnown && layoutMatters(orig)) {
                std::vector<Argument> st;
                for (int64_t s : om.strides) st.push_back(Argument::ofInt(s));
                rw.order();
                auto fix = rw.createOp(nextNonPlaceholderAfter(g, nn), "prims.inductor_force_stride_order.default",
                                       {Argument::ofNode(nn), Argument::ofList(std::move(st))});
                if (!fix.ok()) {
                    rollback();
                    return fix.error();
                }
                created.push_back(*fix);
                nn = *fix;
                rw.order();
            }
        }
        finals.push_back(nn);
    }
    for (size_t k = 0; k < finals.size(); ++k) rw.replaceAllUsesWith(m.outputs[k], finals[k]);
    for (auto it = m.nodes.rbegin(); it != m.nodes.rend(); ++it)
        if ((*it)->users.empty()) rw.erase(*it);
    for (auto it = m.strippedInputs.rbegin(); it != m.strippedInputs.rend(); ++it)
        if (!rw.isErased(*it)) rw.eraseIfDead(*it);
    rw.order();
    bool misordered = false;
    for (Node* f : finals)
        for (Node* u : f->users)
            if (u->index < f->index) misordered = true;
    if (misordered) stableTopologicalSort(g);
    for (Node* f : finals) refreshDownstreamMeta(f);
    return Status::success();
}

size_t applyPatterns(const std::vector<const Pattern*>& patterns, Rewriter& rw) {
    Graph& g = rw.graph();
    rw.order();
    std::vector<Node*> nodes;
    for (const auto& n : g.nodes()) nodes.push_back(n.get());
    std::unordered_set<const Node*> alive;
    for (Node* n : nodes) alive.insert(n);
    size_t count = 0;
    auto& log = rw.context().log();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        Node* n = *it;
        if (rw.isErased(n) || !alive.count(n)) continue;
        for (const Pattern* p : patterns) {
            auto outs = p->outputs();
            if (outs.empty() || !targetMatches(*p, *outs[0], *n)) continue;
            rw.order();
            MatchAttempt att = matchPattern(*p, n);
            if (!att.match) {
                // Only candidates that got far are worth showing; `view` anchors are everywhere.
                if (p->options.reportNearMisses && att.progress >= 3 && att.progress * 2 >= att.total)
                    log.addNearMiss(p->name, att.failedAt.empty() ? n->name() : att.failedAt, att.reason);
                continue;
            }
            Match& m = *att.match;
            if (p->extraCheck) {
                if (auto why = p->extraCheck(m)) {
                    if (p->options.reportNearMisses) log.addNearMiss(p->name, n->name(), *why);
                    continue;
                }
            }
            std::vector<std::string> matched;
            for (Node* x : m.nodes) matched.push_back(x->name());
            size_t createdBefore = rw.createdNames().size();
            size_t eventsBefore = log.events.size();
            rw.setPattern(p->name);
            Status s = p->replaceFn ? p->replaceFn(m, rw) : replaceWithGraph(m, rw);
            rw.setPattern("");
            if (!s.ok()) {
                // The replacement was undone: its events describe nothing that happened.
                log.events.resize(eventsBefore);
                log.addNearMiss(p->name, n->name(), "replacement failed: " + s.error().str());
                continue;
            }
            std::vector<std::string> added(rw.createdNames().begin() + static_cast<std::ptrdiff_t>(createdBefore),
                                           rw.createdNames().end());
            // Created nodes that a later step of the same replacement erased are not new nodes.
            added.erase(std::remove_if(added.begin(), added.end(), [&](const std::string& nm) { return !g.find(nm); }),
                        added.end());
            log.matches.push_back({p->name, std::move(matched), std::move(added), log.graph});
            ++count;
            for (Node* x : m.nodes) alive.erase(x);
            break;
        }
    }
    return count;
}

PatternRewritePass::PatternRewritePass(std::string name, std::string summary, std::vector<Pattern> patterns)
        : m_name(std::move(name)), m_summary(std::move(summary)), m_patterns(std::move(patterns)) {
    for (const auto& p : m_patterns) declareStatistic(p.name, "replacements made by pattern " + p.name);
}

PassResult PatternRewritePass::runOnGraph(Graph& g, PassContext& ctx) {
    Rewriter rw(g, ctx);
    std::vector<const Pattern*> ptrs;
    for (const auto& p : m_patterns) ptrs.push_back(&p);
    size_t n = applyPatterns(ptrs, rw);
    for (const auto& m : ctx.log().matches) {
        for (size_t i = 0; i < m_patterns.size(); ++i)
            if (m_patterns[i].name == m.pattern) bump(i);
    }
    return PassResult::success(n > 0);
}

}  // namespace fxray
