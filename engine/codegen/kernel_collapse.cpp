#include "codegen/kernel_collapse.h"

#include <map>

namespace fxray::cg {

namespace {

bool exprAllows(const ExprP& e, int d, int64_t inner, std::map<const Expr*, bool>& seen);

/// Every linear combination in `i` (nested ones too) has coef(x_d) == inner * coef(x_{d+1}).
bool indexAllows(const Index& i, int d, int64_t inner, std::map<const Expr*, bool>& seen) {
    if (!i) return true;
    int64_t cd = 0, cn = 0;
    for (const auto& [coef, at] : i->terms) {
        switch (at.kind) {
        case IndexAtom::Kind::Var:
            if (at.var == d) cd += coef;
            if (at.var == d + 1) cn += coef;
            break;
        case IndexAtom::Kind::FloorDiv:
        case IndexAtom::Kind::Mod:
            if (!indexAllows(at.arg, d, inner, seen)) return false;
            break;
        case IndexAtom::Kind::Value:
            if (!exprAllows(at.value, d, inner, seen)) return false;
            break;
        }
    }
    return cd == cn * inner;
}

bool exprAllows(const ExprP& e, int d, int64_t inner, std::map<const Expr*, bool>& seen) {
    if (!e) return true;
    auto it = seen.find(e.get());
    if (it != seen.end()) return it->second;
    bool ok = indexAllows(e->index, d, inner, seen);
    for (const auto& a : e->args) ok = ok && exprAllows(a, d, inner, seen);
    seen[e.get()] = ok;
    return ok;
}

/// Rewrites indices for dims d and d + 1 merged into dim d (extent `merged`); later dims move
/// down by one. Shared subexpressions stay shared (the emitters reuse values by node).
class Rewriter {
public:
    /// `inner`: the size of dim d + 1. When it is 1, x_{d+1} is always 0 and x_d becomes the
    /// merged variable with its own coefficient.
    Rewriter(int d, int64_t inner, int64_t merged) : m_d(d), m_inner(inner), m_merged(merged) {}

    Index index(const Index& i) {
        if (!i) return i;
        Index out = iconst(i->c);
        for (const auto& [coef, at] : i->terms) {
            Index t;
            switch (at.kind) {
            case IndexAtom::Kind::Var:
                if (at.var == m_d && m_inner > 1) continue;  // folded into x_{d+1}'s term (indexAllows)
                t = at.var == m_d || at.var == m_d + 1 ? ivar(m_d, m_merged)
                                                       : ivar(at.var > m_d ? at.var - 1 : at.var, at.extent);
                break;
            case IndexAtom::Kind::FloorDiv: t = idiv(index(at.arg), at.divisor); break;
            case IndexAtom::Kind::Mod: t = imod(index(at.arg), at.divisor); break;
            case IndexAtom::Kind::Value: t = ivalue(expr(at.value)); break;
            }
            out = iadd(out, imul(t, coef));
        }
        return out;
    }

    ExprP expr(const ExprP& e) {
        if (!e) return e;
        auto it = m_done.find(e.get());
        if (it != m_done.end()) return it->second;
        auto n = std::make_shared<Expr>(*e);
        n->index = index(e->index);
        for (auto& a : n->args) a = expr(a);
        ExprP r = n;
        m_done.emplace(e.get(), r);
        return r;
    }

private:
    int m_d;
    int64_t m_inner;
    int64_t m_merged;
    std::map<const Expr*, ExprP> m_done;
};

bool pairAllowed(const Kernel& k, int d) {
    const int64_t inner = k.sizes[static_cast<size_t>(d) + 1];
    // A dim of size 1 has the constant 0 as its variable: any coefficient merges.
    if (inner == 1 || k.sizes[static_cast<size_t>(d)] == 1) return true;
    std::map<const Expr*, bool> seen;
    for (const auto& ph : k.phases)
        for (const auto& st : ph.stmts) {
            if (st.kind == Stmt::Kind::Store && !indexAllows(st.index, d, inner, seen)) return false;
            if (!exprAllows(st.value, d, inner, seen)) return false;
        }
    return true;
}

Kernel merge(const Kernel& k, int d) {
    const size_t du = static_cast<size_t>(d);
    Kernel out = k;
    const int64_t merged = k.sizes[du] * k.sizes[du + 1];
    out.sizes.erase(out.sizes.begin() + d + 1);
    out.sizes[du] = merged;
    out.reduced.erase(out.reduced.begin() + d + 1);
    Rewriter rw(d, k.sizes[du + 1], merged);
    for (auto& ph : out.phases)
        for (auto& st : ph.stmts) {
            if (st.kind == Stmt::Kind::Store) st.index = rw.index(st.index);
            st.value = rw.expr(st.value);
        }
    return out;
}

}  // namespace

Kernel collapseDims(const Kernel& k) {
    Kernel cur = k;
    if (cur.reduced.size() != cur.sizes.size()) return cur;
    // Innermost pairs first: a merged pair may merge again with the dim before it.
    for (int d = static_cast<int>(cur.sizes.size()) - 2; d >= 0; --d) {
        const size_t du = static_cast<size_t>(d);
        if (d + 1 >= static_cast<int>(cur.sizes.size()) || cur.reduced[du] != cur.reduced[du + 1]) continue;
        if (pairAllowed(cur, d)) cur = merge(cur, d);
    }
    return cur;
}

}  // namespace fxray::cg
