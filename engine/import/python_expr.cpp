#include "import/python_expr.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace fxray {

std::string PyExpr::dotted() const {
    if (kind == Kind::Name) return text;
    if (kind == Kind::Attr) {
        std::string base = items[0].dotted();
        return base.empty() ? "" : base + "." + text;
    }
    return "";
}

std::string PyExpr::root() const {
    if (kind == Kind::Name) return text;
    if (kind == Kind::Attr) return items[0].root();
    return "";
}

const PyExpr* PyExpr::kwarg(std::string_view key) const {
    for (const auto& [name, value] : kwargs)
        if (name == key) return &value;
    return nullptr;
}

std::optional<int64_t> pyInt(const PyExpr& e) {
    if (e.kind == PyExpr::Kind::UnaryOp && e.text == "-" && e.items[0].kind == PyExpr::Kind::Int) {
        auto v = pyInt(e.items[0]);
        if (!v) return std::nullopt;
        return -*v;
    }
    if (e.kind != PyExpr::Kind::Int) return std::nullopt;
    int64_t v = 0;
    auto [end, ec] = std::from_chars(e.text.data(), e.text.data() + e.text.size(), v);
    if (ec != std::errc() || end != e.text.data() + e.text.size()) return std::nullopt;
    return v;
}

std::optional<double> pyNumber(const PyExpr& e) {
    if (e.kind == PyExpr::Kind::UnaryOp && (e.text == "-" || e.text == "+")) {
        const PyExpr& x = e.items[0];
        if (x.kind != PyExpr::Kind::Int && x.kind != PyExpr::Kind::Float) return std::nullopt;
        auto v = pyNumber(x);
        if (!v) return std::nullopt;
        return e.text == "-" ? -*v : *v;
    }
    if (e.kind != PyExpr::Kind::Int && e.kind != PyExpr::Kind::Float) return std::nullopt;
    // strtod, not std::stod: the text is the user's file, and stod throws on overflow.
    return std::strtod(e.text.c_str(), nullptr);
}

std::optional<bool> pyBool(const PyExpr& e) {
    if (e.isName("True")) return true;
    if (e.isName("False")) return false;
    return std::nullopt;
}

PyExprParser::PyExprParser(const std::vector<PyToken>& tokens, size_t begin, size_t end)
        : m_t(tokens), m_pos(begin), m_end(end) {}

PyExprParser::PyExprParser(const std::vector<PyToken>& tokens)
        : PyExprParser(tokens, 0, tokens.empty() ? 0 : tokens.size() - 1) {}

bool PyExprParser::parseAll(PyExpr& out) {
    if (!parseOne(out)) return false;
    if (!atEnd()) return fail(peek(), "unexpected '" + peek().text + "'");
    return true;
}

bool PyExprParser::parseOne(PyExpr& out) { return expr(out); }

bool PyExprParser::atOp(std::string_view op) const {
    return m_pos < m_end && m_t[m_pos].kind == PyToken::Kind::Op && m_t[m_pos].text == op;
}

bool PyExprParser::fail(int line, int column, std::string message) {
    if (m_err.message.empty()) m_err = {line, column, std::move(message)};
    return false;
}

/// Gives a finished composite node its depth; refuses it beyond the limit. Attribute chains,
/// calls of calls and operator chains are built in loops, so only this bounds their depth
/// (and with it the recursion of every reader that walks the tree).
bool PyExprParser::nest(PyExpr& node) {
    int deepest = 0;
    for (const auto& item : node.items) deepest = std::max(deepest, item.depth);
    for (const auto& kw : node.kwargs) deepest = std::max(deepest, kw.second.depth);
    node.depth = deepest + 1;
    if (node.depth > kMaxPyNesting)
        return fail(node.line, node.column,
                    "expression nested too deeply (more than " + std::to_string(kMaxPyNesting) + " levels)");
    return true;
}

/// Bounds the parser's own recursion: `((((x))))` nests without deepening the tree.
bool PyExprParser::enter(const PyToken& at) {
    if (m_depth >= kMaxPyNesting)
        return fail(at, "expression nested too deeply (more than " + std::to_string(kMaxPyNesting) + " levels)");
    ++m_depth;
    return true;
}

bool PyExprParser::expr(PyExpr& out) {
    if (!enter(peek())) return false;
    bool ok = binary(out, 1);
    --m_depth;
    return ok;
}

namespace {

/// Binding strength of a binary operator (Python's order), 0 for other tokens.
int precedence(const PyToken& t) {
    if (t.kind != PyToken::Kind::Op) return 0;
    static const std::pair<std::string_view, int> table[] = {
        {"<", 1},  {"<=", 1}, {">", 1}, {">=", 1}, {"==", 1}, {"!=", 1}, {"|", 2},  {"^", 3}, {"&", 4},
        {"<<", 5}, {">>", 5}, {"+", 6}, {"-", 6},  {"*", 7},  {"/", 7},  {"//", 7}, {"%", 7}, {"@", 7},
    };
    for (const auto& [op, p] : table)
        if (t.text == op) return p;
    return 0;
}

}  // namespace

/// Precedence climbing: left-associative operators of at least `minPrecedence`.
bool PyExprParser::binary(PyExpr& out, int minPrecedence) {
    if (!unary(out)) return false;
    for (;;) {
        if (atEnd()) return true;
        const PyToken& op = m_t[m_pos];
        int p = precedence(op);
        if (p == 0 || p < minPrecedence) return true;
        ++m_pos;
        PyExpr rhs;
        if (!binary(rhs, p + 1) || !combine(op, out, std::move(rhs))) return false;
    }
}

bool PyExprParser::unary(PyExpr& out) {
    if (!(atOp("-") || atOp("+") || atOp("~"))) return power(out);
    const PyToken& op = m_t[m_pos];
    if (!enter(op)) return false;
    ++m_pos;
    PyExpr operand;
    bool ok = unary(operand);
    --m_depth;
    if (!ok) return false;
    PyExpr u;
    u.kind = PyExpr::Kind::UnaryOp;
    u.text = op.text;
    u.line = op.line;
    u.column = op.column;
    u.items.push_back(std::move(operand));
    if (!nest(u)) return false;
    out = std::move(u);
    return true;
}

/// `a ** b` binds tighter than a unary operator on its left and looser than one on its right.
bool PyExprParser::power(PyExpr& out) {
    if (!postfix(out)) return false;
    if (!atOp("**")) return true;
    const PyToken& op = m_t[m_pos];
    if (!enter(op)) return false;
    ++m_pos;
    PyExpr rhs;
    bool ok = unary(rhs);
    --m_depth;
    return ok && combine(op, out, std::move(rhs));
}

/// Replaces `out` by `out op rhs`, placed at the operator.
bool PyExprParser::combine(const PyToken& op, PyExpr& out, PyExpr rhs) {
    PyExpr bin;
    bin.kind = PyExpr::Kind::BinOp;
    bin.text = op.text;
    bin.line = op.line;
    bin.column = op.column;
    bin.items = {std::move(out), std::move(rhs)};
    if (!nest(bin)) return false;
    out = std::move(bin);
    return true;
}

bool PyExprParser::postfix(PyExpr& out) {
    if (!atom(out)) return false;
    for (;;) {
        PyExpr node;
        node.line = out.line;
        node.column = out.column;
        if (atOp("(")) {
            node.kind = PyExpr::Kind::Call;
            node.items.push_back(std::move(out));
            if (!callArgs(node)) return false;
        } else if (atOp("[")) {
            ++m_pos;
            PyExpr index;
            if (!subscript(index)) return false;
            if (!atOp("]")) return fail(peek(), "expected ']'");
            ++m_pos;
            node.kind = PyExpr::Kind::Subscript;
            node.items = {std::move(out), std::move(index)};
        } else if (atOp(".")) {
            ++m_pos;
            if (atEnd() || peek().kind != PyToken::Kind::Name) return fail(peek(), "expected attribute name after '.'");
            node.kind = PyExpr::Kind::Attr;
            node.text = peek().text;
            node.items.push_back(std::move(out));
            ++m_pos;
        } else {
            return true;
        }
        if (!nest(node)) return false;
        out = std::move(node);
    }
}

/// `(args)` after a callee: positional arguments, then `name=value` keywords.
bool PyExprParser::callArgs(PyExpr& call) {
    ++m_pos;  // '('
    while (!atOp(")")) {
        if (atEnd()) return fail(peek(), "unclosed '('");
        if (peek().kind == PyToken::Kind::Name && m_pos + 1 < m_end && m_t[m_pos + 1].kind == PyToken::Kind::Op &&
            m_t[m_pos + 1].text == "=") {
            std::string key = peek().text;
            m_pos += 2;
            PyExpr value;
            if (!expr(value)) return false;
            call.kwargs.push_back(PyKwarg{std::move(key), std::move(value)});
        } else {
            if (!call.kwargs.empty()) return fail(peek(), "positional argument after keyword argument");
            PyExpr value;
            if (!expr(value)) return false;
            call.items.push_back(std::move(value));
        }
        if (atOp(",")) {
            ++m_pos;
            continue;
        }
        if (!atOp(")")) return fail(peek(), atEnd() ? "unclosed '('" : "expected ',' or ')' in call");
    }
    ++m_pos;
    return true;
}

/// Subscript contents: one index or a tuple of them.
bool PyExprParser::subscript(PyExpr& out) {
    std::vector<PyExpr> elems;
    bool tuple = false;
    const PyToken& first = peek();
    for (;;) {
        PyExpr e;
        if (!sliceItem(e)) return false;
        elems.push_back(std::move(e));
        if (!atOp(",")) break;
        tuple = true;
        ++m_pos;
        if (atOp("]")) break;
    }
    if (!tuple) {
        out = std::move(elems[0]);
        return true;
    }
    out.kind = PyExpr::Kind::Tuple;
    out.line = first.line;
    out.column = first.column;
    out.items = std::move(elems);
    return nest(out);
}

/// `a`, or a slice `a:b:c` (parts optional) as the call slice(a, b, c).
bool PyExprParser::sliceItem(PyExpr& out) {
    const PyToken& start = peek();
    auto none = [&] {
        PyExpr n;
        n.text = "None";
        n.line = peek().line;
        n.column = peek().column;
        return n;
    };
    PyExpr first;
    if (atOp(":"))
        first = none();
    else if (!expr(first))
        return false;
    if (!atOp(":")) {
        out = std::move(first);
        return true;
    }
    std::vector<PyExpr> parts;
    parts.push_back(std::move(first));
    while (atOp(":") && parts.size() < 3) {
        ++m_pos;
        if (atOp(":") || atOp("]") || atOp(",")) {
            parts.push_back(none());
            continue;
        }
        PyExpr p;
        if (!expr(p)) return false;
        parts.push_back(std::move(p));
    }
    while (parts.size() < 3) parts.push_back(none());
    out = PyExpr();
    out.kind = PyExpr::Kind::Call;
    out.line = start.line;
    out.column = start.column;
    PyExpr callee;
    callee.text = "slice";
    callee.line = start.line;
    callee.column = start.column;
    out.items.push_back(std::move(callee));
    for (auto& p : parts) out.items.push_back(std::move(p));
    return nest(out);
}

bool PyExprParser::atom(PyExpr& out) {
    if (atEnd()) return fail(peek(), "expected an expression");
    const PyToken& t = m_t[m_pos];
    out = PyExpr();
    out.line = t.line;
    out.column = t.column;
    switch (t.kind) {
    case PyToken::Kind::Name:
        out.kind = PyExpr::Kind::Name;
        out.text = t.text;
        ++m_pos;
        return true;
    case PyToken::Kind::Int:
        out.kind = PyExpr::Kind::Int;
        out.text = t.text;
        ++m_pos;
        return true;
    case PyToken::Kind::Float:
        out.kind = PyExpr::Kind::Float;
        out.text = t.text;
        ++m_pos;
        return true;
    case PyToken::Kind::String:
        out.kind = PyExpr::Kind::String;
        // Adjacent literals are one string, as in Python.
        while (!atEnd() && peek().kind == PyToken::Kind::String) out.text += m_t[m_pos++].text;
        return true;
    case PyToken::Kind::Op:
        if (t.text == "...") {
            out.kind = PyExpr::Kind::Ellipsis;
            ++m_pos;
            return true;
        }
        if (t.text == "(" || t.text == "[") return sequence(out, t);
        if (t.text == "{") return dict(out, t);
        return fail(t, "unexpected '" + t.text + "'");
    case PyToken::Kind::End: break;
    }
    return fail(t, "unexpected end of line");
}

/// `(a, b)`, `[a, b]`, `()`; `(a)` is a parenthesised expression, `(a,)` a tuple.
bool PyExprParser::sequence(PyExpr& out, const PyToken& open) {
    const bool list = open.text == "[";
    const char* close = list ? "]" : ")";
    ++m_pos;
    bool sawComma = false;
    while (!atOp(close)) {
        if (atEnd()) return fail(open, "unclosed '" + open.text + "'");
        PyExpr e;
        if (!expr(e)) return false;
        out.items.push_back(std::move(e));
        if (atOp(",")) {
            sawComma = true;
            ++m_pos;
            continue;
        }
        if (!atOp(close)) return fail(peek(), std::string("expected ',' or '") + close + "'");
    }
    ++m_pos;
    if (!list && out.items.size() == 1 && !sawComma) {
        PyExpr inner = std::move(out.items[0]);
        out = std::move(inner);
        return true;
    }
    out.kind = list ? PyExpr::Kind::List : PyExpr::Kind::Tuple;
    return nest(out);
}

/// `{key: value, ...}`.
bool PyExprParser::dict(PyExpr& out, const PyToken& open) {
    ++m_pos;
    out.kind = PyExpr::Kind::Dict;
    while (!atOp("}")) {
        if (atEnd()) return fail(open, "unclosed '{'");
        PyExpr key, value;
        if (!expr(key)) return false;
        if (!atOp(":")) return fail(peek(), "expected ':' in a dict");
        ++m_pos;
        if (!expr(value)) return false;
        out.items.push_back(std::move(key));
        out.items.push_back(std::move(value));
        if (atOp(",")) {
            ++m_pos;
            continue;
        }
        if (!atOp("}")) return fail(peek(), "expected ',' or '}'");
    }
    ++m_pos;
    return nest(out);
}

}  // namespace fxray
