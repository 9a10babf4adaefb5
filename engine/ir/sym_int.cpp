#include "ir/sym_int.h"

#include <cassert>
#include <charconv>
#include <mutex>
#include <unordered_map>

namespace fxray {

namespace {

std::optional<int64_t> intLiteral(std::string_view s) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

}  // namespace

Expected<SymInt> SymInt::parse(std::string_view text) {
    if (auto v = intLiteral(text)) return SymInt(*v);
    // A graph repeats a few texts ("s0", "64*s0") in every annotation: parse each once. Only
    // texts that parse are kept, so the table holds no more than the distinct sizes read.
    static std::mutex mutex;
    static std::unordered_map<std::string, std::shared_ptr<const Sym>> interned;
    std::string key(text);
    {
        std::lock_guard lock(mutex);
        if (auto it = interned.find(key); it != interned.end()) {
            SymInt s;
            s.m_sym = it->second;
            return s;
        }
    }
    auto e = sym::parse(text);
    if (!e.ok()) return e.error();
    SymInt s = ofExpr(std::move(e).value(), key);
    std::lock_guard lock(mutex);
    if (interned.size() > 100000) interned.clear();
    interned.emplace(std::move(key), s.m_sym);
    return s;
}

SymInt SymInt::ofExpr(sym::ExprPtr e, std::string text) {
    if (e->kind == sym::Expr::Kind::Number && e->value.kind == sym::Num::Kind::Int) return SymInt(e->value.i);
    SymInt s;
    auto d = std::make_shared<Sym>();
    d->canonical = sym::canonicalText(*e);
    d->expr = std::move(e);
    d->text = std::move(text);
    s.m_sym = std::move(d);
    return s;
}

int64_t SymInt::value() const {
    assert(isStatic());
    return m_value;
}

std::optional<int64_t> SymInt::hint() const {
    if (isStatic() || m_hasHint) return m_value;
    return std::nullopt;
}

SymInt SymInt::withHint(int64_t h) const {
    if (isStatic()) return *this;
    SymInt s = *this;
    s.m_value = h;
    s.m_hasHint = true;
    return s;
}

const sym::ExprPtr& SymInt::expr() const {
    static const sym::ExprPtr none;
    return m_sym ? m_sym->expr : none;
}

std::string SymInt::text() const { return m_sym ? m_sym->text : std::to_string(m_value); }

std::string SymInt::canonical() const { return m_sym ? m_sym->canonical : std::to_string(m_value); }

bool SymInt::isSymbol() const { return m_sym && m_sym->expr->kind == sym::Expr::Kind::Symbol; }

void SymInt::freeSymbols(std::set<std::string>& out) const {
    if (m_sym) sym::freeSymbols(*m_sym->expr, out);
}

Expected<int64_t> SymInt::eval(const sym::Binding& b) const {
    if (!m_sym) return m_value;
    auto v = sym::eval(*m_sym->expr, b);
    if (!v.ok()) return makeError(m_sym->text + ": " + v.error().message);
    return v->isFloat() ? static_cast<int64_t>(v->d) : v->i;
}

bool operator==(const SymInt& a, const SymInt& b) {
    if (a.isStatic() || b.isStatic()) return a.isStatic() && b.isStatic() && a.m_value == b.m_value;
    return a.m_sym == b.m_sym || a.m_sym->canonical == b.m_sym->canonical;
}

}  // namespace fxray
