#include "partition/sym_bytes.h"

#include <algorithm>

namespace fxray::partition {

namespace {

/// Prints an expression that is kept whole (an atom): enough parentheses to read back.
std::string exprText(const sym::Expr& e) {
    switch (e.kind) {
    case sym::Expr::Kind::Number: return e.value.str();
    case sym::Expr::Kind::Symbol: return e.name;
    case sym::Expr::Kind::Unary: return (e.name == "-u" ? "-" : e.name) + std::string("(") + exprText(*e.args[0]) + ")";
    case sym::Expr::Kind::Binary: return "(" + exprText(*e.args[0]) + e.name + exprText(*e.args[1]) + ")";
    case sym::Expr::Kind::Call: {
        std::string s = e.name + "(";
        for (size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + exprText(*e.args[i]);
        return s + ")";
    }
    }
    return "?";
}

}  // namespace

SymPoly SymPoly::constant(int64_t c) {
    SymPoly p;
    if (c != 0) p.m_terms[{}] = c;
    return p;
}

SymPoly SymPoly::atom(const std::string& text, sym::ExprPtr expr) {
    SymPoly p;
    p.m_terms[{text}] = 1;
    p.m_atoms[text] = std::move(expr);
    return p;
}

SymPoly SymPoly::operator+(const SymPoly& o) const {
    SymPoly r = *this;
    for (const auto& [mono, c] : o.m_terms) {
        int64_t v = (r.m_terms[mono] += c);
        if (v == 0) r.m_terms.erase(mono);
    }
    r.m_atoms.insert(o.m_atoms.begin(), o.m_atoms.end());
    return r;
}

SymPoly SymPoly::operator-(const SymPoly& o) const { return *this + o * constant(-1); }

SymPoly SymPoly::operator*(const SymPoly& o) const {
    SymPoly r;
    for (const auto& [ma, ca] : m_terms)
        for (const auto& [mb, cb] : o.m_terms) {
            std::vector<std::string> mono = ma;
            mono.insert(mono.end(), mb.begin(), mb.end());
            std::sort(mono.begin(), mono.end());
            int64_t v = (r.m_terms[mono] += ca * cb);
            if (v == 0) r.m_terms.erase(mono);
        }
    r.m_atoms = m_atoms;
    r.m_atoms.insert(o.m_atoms.begin(), o.m_atoms.end());
    return r;
}

bool SymPoly::isConstant() const { return m_terms.empty() || (m_terms.size() == 1 && m_terms.begin()->first.empty()); }

int64_t SymPoly::constantTerm() const {
    auto it = m_terms.find({});
    return it == m_terms.end() ? 0 : it->second;
}

std::string SymPoly::str() const {
    if (m_terms.empty()) return "0";
    // Sympy's order for these sums: higher degree first, then by the atoms' names; the constant last.
    std::vector<std::pair<std::vector<std::string>, int64_t>> terms(m_terms.begin(), m_terms.end());
    std::stable_sort(terms.begin(), terms.end(), [](const auto& a, const auto& b) {
        if (a.first.size() != b.first.size()) return a.first.size() > b.first.size();
        return a.first < b.first;
    });
    std::string s;
    for (size_t i = 0; i < terms.size(); ++i) {
        const auto& [mono, c] = terms[i];
        int64_t mag = c < 0 ? -c : c;
        if (i == 0)
            s += c < 0 ? "-" : "";
        else
            s += c < 0 ? " - " : " + ";
        std::string factors;
        // Repeated atoms print as powers (s0**2), as sympy does.
        for (size_t k = 0; k < mono.size();) {
            size_t e = k;
            while (e < mono.size() && mono[e] == mono[k]) ++e;
            factors += (factors.empty() ? "" : "*") + mono[k];
            if (e - k > 1) factors += "**" + std::to_string(e - k);
            k = e;
        }
        if (factors.empty())
            s += std::to_string(mag);
        else if (mag == 1)
            s += factors;
        else
            s += std::to_string(mag) + "*" + factors;
    }
    return s;
}

Expected<int64_t> SymPoly::eval(const sym::Binding& b) const {
    int64_t total = 0;
    for (const auto& [mono, c] : m_terms) {
        int64_t v = c;
        for (const auto& a : mono) {
            auto it = m_atoms.find(a);
            if (it == m_atoms.end() || !it->second) return makeError("no expression for '" + a + "'");
            auto n = sym::eval(*it->second, b);
            if (!n.ok()) return n.error();
            v *= n->isFloat() ? static_cast<int64_t>(n->d) : n->i;
        }
        total += v;
    }
    return total;
}

SymPoly polyOf(const sym::ExprPtr& e) {
    using K = sym::Expr::Kind;
    if (e->kind == K::Number && !e->value.isFloat()) return SymPoly::constant(e->value.i);
    if (e->kind == K::Symbol) return SymPoly::atom(e->name, e);
    if (e->kind == K::Unary && e->name == "-u") return polyOf(e->args[0]) * SymPoly::constant(-1);
    if (e->kind == K::Binary) {
        const std::string& op = e->name;
        if (op == "+") return polyOf(e->args[0]) + polyOf(e->args[1]);
        if (op == "-") return polyOf(e->args[0]) - polyOf(e->args[1]);
        if (op == "*") return polyOf(e->args[0]) * polyOf(e->args[1]);
        if (op == "**" && e->args[1]->kind == K::Number && !e->args[1]->value.isFloat() && e->args[1]->value.i >= 0 &&
            e->args[1]->value.i <= 8) {
            SymPoly base = polyOf(e->args[0]), r = SymPoly::constant(1);
            for (int64_t k = 0; k < e->args[1]->value.i; ++k) r = r * base;
            return r;
        }
    }
    std::string text = exprText(*e);
    return SymPoly::atom(text, e);
}

Expected<SymPoly> bytesPoly(const TensorMeta& m) {
    SymPoly p = SymPoly::constant(dtypeItemSize(m.dtype));
    for (size_t d = 0; d < m.shape.size(); ++d) {
        if (!m.isSymbolicDim(d)) {
            p = p * SymPoly::constant(m.shape[d]);
            continue;
        }
        p = p * polyOf(m.symShape[d].expr());
    }
    return p;
}

}  // namespace fxray::partition
