#pragma once
/// One size or stride of a tensor: a concrete integer, or an expression over named symbols
/// ("s23", "2*s27", "((s77//2))") that PyTorch printed for a dynamic shape.
///
/// A symbolic SymInt is parsed once, when the graph is read (import rejects text that does not
/// parse, naming the file and node), and then evaluated under a binding of its symbols
/// (exec/shape_binding.h) as often as needed. It keeps the text as written, for printing the
/// graph back unchanged, and a canonical text, for comparing: "((s77//2))" equals "s77 // 2".
/// Parsed expressions are shared: every "s0" of a graph holds the same one.
#include "ir/sym_expr.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace fxray {

class SymInt {
public:
    /// The static size 0.
    SymInt() = default;
    /// A static size. Implicit, so that a number is a SymInt wherever one is expected.
    SymInt(int64_t v) : m_value(v) {}  // NOLINT(google-explicit-constructor)

    /// An integer literal becomes a static SymInt, anything else an expression. Fails, quoting
    /// the text and the position, when the text is not an expression.
    static Expected<SymInt> parse(std::string_view text);
    /// An expression already parsed from `text`.
    static SymInt ofExpr(sym::ExprPtr e, std::string text);

    bool isStatic() const { return !m_sym; }
    bool isSymbolic() const { return m_sym != nullptr; }
    /// The number; only for a static SymInt.
    int64_t value() const;
    /// The value when static, else the hint when one is known.
    std::optional<int64_t> hint() const;
    /// This expression, remembering its value under the graph's recorded hints. Static: unchanged.
    SymInt withHint(int64_t h) const;
    /// The parsed expression; null when static.
    const sym::ExprPtr& expr() const;
    /// The text as written ("((s77//2))"), or the number.
    std::string text() const;
    /// The text with the structure alone (spacing and redundant parentheses dropped), or the
    /// number: equal canonical texts are equal sizes under every binding.
    std::string canonical() const;
    /// A plain symbol ("s23"), which binds directly from an input's size.
    bool isSymbol() const;
    /// Symbols the expression mentions (none when static).
    void freeSymbols(std::set<std::string>& out) const;

    /// The value under `b` (Python semantics; a float result is truncated, as a size is an int).
    /// Fails naming the text and the first unbound symbol.
    Expected<int64_t> eval(const sym::Binding& b) const;

    /// Same number, or expressions of the same canonical text. Hints are not compared.
    friend bool operator==(const SymInt& a, const SymInt& b);
    friend bool operator!=(const SymInt& a, const SymInt& b) { return !(a == b); }

private:
    struct Sym {
        sym::ExprPtr expr;
        std::string text;
        std::string canonical;
    };
    std::shared_ptr<const Sym> m_sym;  ///< null when static
    int64_t m_value = 0;               ///< the value when static, the hint when m_hasHint
    bool m_hasHint = false;
};

}  // namespace fxray
