#pragma once
/// The one parser for the Python expressions fxray reads as data: FX's generated code
/// (fx_text_reader), the `load_args` and `__init__` lines of after-AOT repros (repro_reader) and
/// the submodule reprs of to_folder's module.py (to_folder_reader). It builds a small tree;
/// nothing is evaluated, looked up or executed. Tokens come from python_lexer.h.
#include "import/python_lexer.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxray {

/// How deep an expression may nest: brackets, calls, subscripts, operators and attribute
/// chains each add a level. Deeper input is refused with an error instead of exhausting the
/// stack. PyTorch's own files stay far below it (tst_python_expr measures the corpus).
inline constexpr int kMaxPyNesting = 32;

struct PyKwarg;

/// A parsed expression.
struct PyExpr {
    enum class Kind { Name, Int, Float, String, Attr, Call, Subscript, BinOp, UnaryOp, List, Tuple, Dict, Ellipsis };
    Kind kind = Kind::Name;
    /// Name: identifier (None, True and False too); Int/Float: digits as written, without '_';
    /// String: decoded contents (adjacent literals joined); Attr: attribute name;
    /// BinOp/UnaryOp: operator.
    std::string text;
    /// Attr: [object]; Call: [callee, positional args...]; Subscript: [object, index] (`a:b:c`
    /// is a call of `slice` with three arguments, absent parts None); BinOp: [lhs, rhs];
    /// UnaryOp: [operand]; List/Tuple: elements; Dict: key, value, key, value, ...
    std::vector<PyExpr> items;
    /// Call keywords in order. (Not pair<string, PyExpr>: a pair needs a complete PyExpr.)
    std::vector<PyKwarg> kwargs;
    int line = 0;    ///< of the expression's first token
    int column = 0;  ///< of the expression's first token
    int depth = 1;   ///< levels of nesting: 1 for a leaf, else one more than its deepest child

    /// "torch.ops.aten.mm.default" for a name or attribute chain on a name, empty otherwise.
    std::string dotted() const;
    /// The name at the root of an attribute chain, empty when there is none.
    std::string root() const;
    bool isName(std::string_view name) const { return kind == Kind::Name && text == name; }
    /// The value of keyword `key` of a call, null when absent.
    const PyExpr* kwarg(std::string_view key) const;
};

/// One keyword argument of a call; named like std::pair's members.
struct PyKwarg {
    std::string first;
    PyExpr second;
};

/// An int literal, optionally negated, that fits int64.
std::optional<int64_t> pyInt(const PyExpr& e);
/// An int or float literal, optionally negated or with unary plus.
std::optional<double> pyNumber(const PyExpr& e);
/// True or False.
std::optional<bool> pyBool(const PyExpr& e);

/// Recursive descent over tokens [begin, end) of one logical line. The token at `end` (End,
/// or a ';' that ends a statement) gives the position of "end of line" errors.
class PyExprParser {
public:
    PyExprParser(const std::vector<PyToken>& tokens, size_t begin, size_t end);
    /// All tokens of the line but the trailing End.
    explicit PyExprParser(const std::vector<PyToken>& tokens);

    /// One expression that must use every token of the range.
    bool parseAll(PyExpr& out);
    /// One expression; tokens after it are left for the caller (see atEnd, peek).
    bool parseOne(PyExpr& out);
    bool atEnd() const { return m_pos >= m_end; }
    /// The next token (the one at `end` once the range is used up).
    const PyToken& peek() const { return m_t[m_pos < m_end ? m_pos : m_end]; }
    /// Why the last parse failed.
    const PySyntaxError& error() const { return m_err; }

private:
    bool atOp(std::string_view op) const;
    bool fail(int line, int column, std::string message);
    bool fail(const PyToken& at, std::string message) { return fail(at.line, at.column, std::move(message)); }
    bool nest(PyExpr& node);
    bool enter(const PyToken& at);
    bool expr(PyExpr& out);
    bool binary(PyExpr& out, int minPrecedence);
    bool combine(const PyToken& op, PyExpr& out, PyExpr rhs);
    bool unary(PyExpr& out);
    bool power(PyExpr& out);
    bool postfix(PyExpr& out);
    bool callArgs(PyExpr& call);
    bool subscript(PyExpr& out);
    bool sliceItem(PyExpr& out);
    bool atom(PyExpr& out);
    bool sequence(PyExpr& out, const PyToken& open);
    bool dict(PyExpr& out, const PyToken& open);

    const std::vector<PyToken>& m_t;
    size_t m_pos;
    size_t m_end;
    int m_depth = 0;  ///< expressions being parsed inside each other
    PySyntaxError m_err;
};

}  // namespace fxray
