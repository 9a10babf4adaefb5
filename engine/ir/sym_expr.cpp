#include "ir/sym_expr.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace fxray::sym {

std::string Num::str() const {
    if (kind == Kind::Bool) return i ? "True" : "False";
    if (kind == Kind::Int) return std::to_string(i);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    return buf;
}

int64_t floorDiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

int64_t pyMod(int64_t a, int64_t b) {
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

bool isSymbolName(std::string_view t) {
    if (t.empty() || !(std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_')) return false;
    for (char c : t)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return t != "True" && t != "False";
}

std::string bindingStr(const Binding& b) {
    std::string s;
    for (const auto& [k, v] : b) s += (s.empty() ? "" : ", ") + k + "=" + v.str();
    return s;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Parser: recursive descent over sympy's Python-printer output.

class Parser {
public:
    explicit Parser(std::string_view t) : m_t(t) {}

    Expected<ExprPtr> parseAll() {
        auto e = orExpr();
        if (!e) return fail();
        skipWs();
        if (m_p != m_t.size()) return fail();
        return e;
    }

private:
    std::string_view m_t;
    size_t m_p = 0;

    Diagnostic fail() const {
        return makeError("cannot read symbolic expression '" + std::string(m_t) + "' at character " +
                         std::to_string(m_p + 1));
    }
    void skipWs() {
        while (m_p < m_t.size() && std::isspace(static_cast<unsigned char>(m_t[m_p]))) ++m_p;
    }
    /// Consumes `op` when it comes next (and is not the start of a longer operator in `longer`).
    bool eat(std::string_view op, std::string_view longer = {}) {
        skipWs();
        if (m_t.substr(m_p, op.size()) != op) return false;
        if (!longer.empty() && m_t.substr(m_p, longer.size()) == longer) return false;
        m_p += op.size();
        return true;
    }
    static ExprPtr make(Expr::Kind k, std::string name, std::vector<ExprPtr> args) {
        auto e = std::make_shared<Expr>();
        e->kind = k;
        e->name = std::move(name);
        e->args = std::move(args);
        return e;
    }
    static ExprPtr bin(std::string op, ExprPtr a, ExprPtr b) {
        return make(Expr::Kind::Binary, std::move(op), {std::move(a), std::move(b)});
    }

    ExprPtr orExpr() {
        auto l = andExpr();
        while (l) {
            if (!(eat("|") || eatWord("or"))) break;
            auto r = andExpr();
            if (!r) return nullptr;
            l = bin("|", l, r);
        }
        return l;
    }
    ExprPtr andExpr() {
        auto l = notExpr();
        while (l) {
            if (!(eat("&") || eatWord("and"))) break;
            auto r = notExpr();
            if (!r) return nullptr;
            l = bin("&", l, r);
        }
        return l;
    }
    ExprPtr notExpr() {
        if (eat("~") || eatWord("not")) {
            auto x = notExpr();
            return x ? make(Expr::Kind::Unary, "~", {x}) : nullptr;
        }
        return cmpExpr();
    }
    ExprPtr cmpExpr() {
        auto l = addExpr();
        while (l) {
            std::string op;
            if (eat("<="))
                op = "<=";
            else if (eat(">="))
                op = ">=";
            else if (eat("=="))
                op = "==";
            else if (eat("!="))
                op = "!=";
            else if (eat("<", "<<"))
                op = "<";
            else if (eat(">", ">>"))
                op = ">";
            else
                break;
            auto r = addExpr();
            if (!r) return nullptr;
            l = bin(op, l, r);
        }
        return l;
    }
    ExprPtr addExpr() {
        auto l = mulExpr();
        while (l) {
            std::string op;
            if (eat("+"))
                op = "+";
            else if (eat("-"))
                op = "-";
            else
                break;
            auto r = mulExpr();
            if (!r) return nullptr;
            l = bin(op, l, r);
        }
        return l;
    }
    ExprPtr mulExpr() {
        auto l = unaryExpr();
        while (l) {
            std::string op;
            if (eat("//"))
                op = "//";
            else if (eat("*", "**"))
                op = "*";
            else if (eat("/"))
                op = "/";
            else if (eat("%"))
                op = "%";
            else
                break;
            auto r = unaryExpr();
            if (!r) return nullptr;
            l = bin(op, l, r);
        }
        return l;
    }
    ExprPtr unaryExpr() {
        if (eat("-")) {
            auto x = unaryExpr();
            return x ? make(Expr::Kind::Unary, "-u", {x}) : nullptr;
        }
        if (eat("+")) return unaryExpr();
        return powExpr();
    }
    ExprPtr powExpr() {
        auto base = atom();
        if (base && eat("**")) {
            auto ex = unaryExpr();  // right-associative, binds tighter than unary minus on the left
            return ex ? bin("**", base, ex) : nullptr;
        }
        return base;
    }
    bool eatWord(std::string_view w) {
        skipWs();
        if (m_t.substr(m_p, w.size()) != w) return false;
        size_t e = m_p + w.size();
        if (e < m_t.size() && (std::isalnum(static_cast<unsigned char>(m_t[e])) || m_t[e] == '_')) return false;
        m_p = e;
        return true;
    }
    ExprPtr atom() {
        skipWs();
        if (m_p >= m_t.size()) return nullptr;
        char c = m_t[m_p];
        if (c == '(') {
            ++m_p;
            auto e = orExpr();
            if (!e || !eat(")")) return nullptr;
            return e;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t b = m_p;
            while (m_p < m_t.size() &&
                   (std::isalnum(static_cast<unsigned char>(m_t[m_p])) || m_t[m_p] == '_' || m_t[m_p] == '.'))
                ++m_p;
            std::string name(m_t.substr(b, m_p - b));
            if (eat("(")) {
                std::vector<ExprPtr> args;
                if (!eat(")")) {
                    do {
                        auto a = orExpr();
                        if (!a) return nullptr;
                        args.push_back(a);
                    } while (eat(","));
                    if (!eat(")")) return nullptr;
                }
                return make(Expr::Kind::Call, std::move(name), std::move(args));
            }
            auto e = std::make_shared<Expr>();
            if (name == "True" || name == "False") {
                e->value = Num::ofBool(name == "True");
                return e;
            }
            if (name == "oo" || name == "int_oo") {
                e->value = Num::ofFloat(std::numeric_limits<double>::infinity());
                return e;
            }
            e->kind = Expr::Kind::Symbol;
            e->name = std::move(name);
            return e;
        }
        return nullptr;
    }
    ExprPtr number() {
        size_t b = m_p;
        bool isFloat = false;
        while (m_p < m_t.size()) {
            char c = m_t[m_p];
            if (std::isdigit(static_cast<unsigned char>(c))) {
                ++m_p;
                continue;
            }
            if (c == '.') {
                isFloat = true;
                ++m_p;
                continue;
            }
            if ((c == 'e' || c == 'E') && m_p + 1 < m_t.size()) {
                isFloat = true;
                ++m_p;
                if (m_t[m_p] == '+' || m_t[m_p] == '-') ++m_p;
                continue;
            }
            break;
        }
        std::string_view s = m_t.substr(b, m_p - b);
        auto e = std::make_shared<Expr>();
        if (isFloat) {
            double v = 0;
            auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
            if (ec != std::errc() || p != s.data() + s.size()) return nullptr;
            e->value = Num::ofFloat(v);
        } else {
            int64_t v = 0;
            auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
            if (ec != std::errc() || p != s.data() + s.size()) return nullptr;
            e->value = Num::ofInt(v);
        }
        return e;
    }
};

// ---------------------------------------------------------------------------------------------
// Evaluation

/// What went wrong in integer arithmetic. Python ints do not overflow, but sizes never come near
/// int64's range, so an overflow means a corrupt or hostile file: an error, never wrapped values
/// (or undefined behaviour).
enum class Fault { None, DivZero, Overflow };

std::string faultText(Fault f) {
    return f == Fault::DivZero ? "division by zero" : "integer overflow in size arithmetic";
}

/// x ** y for y >= 0 by squaring (a loop of y multiplications would let `1 ** 10**18` hang).
bool powOverflows(int64_t x, int64_t y, int64_t& out) {
    int64_t r = 1, b = x;
    while (y > 0) {
        if ((y & 1) && __builtin_mul_overflow(r, b, &r)) return true;
        y >>= 1;
        if (y > 0 && __builtin_mul_overflow(b, b, &b)) return true;
    }
    out = r;
    return false;
}

Num arith(const std::string& op, const Num& a, const Num& b, Fault& fault) {
    const bool fl = a.isFloat() || b.isFloat();
    if (op == "/") {
        if (b.toDouble() == 0.0) {
            fault = Fault::DivZero;
            return {};
        }
        return Num::ofFloat(a.toDouble() / b.toDouble());
    }
    if (fl) {
        double x = a.toDouble(), y = b.toDouble();
        if (op == "+") return Num::ofFloat(x + y);
        if (op == "-") return Num::ofFloat(x - y);
        if (op == "*") return Num::ofFloat(x * y);
        if (op == "**") return Num::ofFloat(std::pow(x, y));
        if (y == 0.0) {
            fault = Fault::DivZero;
            return {};
        }
        if (op == "//") return Num::ofFloat(std::floor(x / y));
        if (op == "%") return Num::ofFloat(x - std::floor(x / y) * y);
        return {};
    }
    const int64_t x = a.i, y = b.i;
    int64_t r = 0;
    auto checked = [&](bool overflowed) {
        if (!overflowed) return Num::ofInt(r);
        fault = Fault::Overflow;
        return Num{};
    };
    if (op == "+") return checked(__builtin_add_overflow(x, y, &r));
    if (op == "-") return checked(__builtin_sub_overflow(x, y, &r));
    if (op == "*") return checked(__builtin_mul_overflow(x, y, &r));
    if (op == "**") {
        if (y < 0) return Num::ofFloat(std::pow(double(x), double(y)));
        return checked(powOverflows(x, y, r));
    }
    if (y == 0) {
        fault = Fault::DivZero;
        return {};
    }
    if (x == std::numeric_limits<int64_t>::min() && y == -1) {  // the one quotient int64 cannot hold
        if (op == "%") return Num::ofInt(0);
        fault = Fault::Overflow;
        return {};
    }
    if (op == "//") return Num::ofInt(floorDiv(x, y));
    if (op == "%") return Num::ofInt(pyMod(x, y));
    return {};
}

/// -x, an error for the one int64 without a negation.
Num negate(const Num& v, Fault& fault) {
    if (v.isFloat()) return Num::ofFloat(-v.d);
    if (v.i == std::numeric_limits<int64_t>::min()) {
        fault = Fault::Overflow;
        return {};
    }
    return Num::ofInt(-v.i);
}

Num compare(const std::string& op, const Num& a, const Num& b) {
    const bool fl = a.isFloat() || b.isFloat();
    auto cmp = [&](auto x, auto y) {
        if (op == "<") return x < y;
        if (op == "<=") return x <= y;
        if (op == ">") return x > y;
        if (op == ">=") return x >= y;
        if (op == "==") return x == y;
        return x != y;
    };
    return Num::ofBool(fl ? cmp(a.toDouble(), b.toDouble()) : cmp(a.i, b.i));
}

const char* comparisonOf(const std::string& fn) {
    if (fn == "Eq") return "==";
    if (fn == "Ne") return "!=";
    if (fn == "Lt" || fn == "StrictLessThan") return "<";
    if (fn == "Le" || fn == "LessThan") return "<=";
    if (fn == "Gt" || fn == "StrictGreaterThan") return ">";
    if (fn == "Ge" || fn == "GreaterThan") return ">=";
    return nullptr;
}

Expected<Num> call(const std::string& fn, const std::vector<Num>& v) {
    auto need = [&](size_t n) { return v.size() == n; };
    auto bad = [&]() {
        return makeError("symbolic function '" + fn + "' with " + std::to_string(v.size()) +
                         " arguments is not supported");
    };
    Fault dz = Fault::None;
    auto ret = [&](Num r) -> Expected<Num> {
        if (dz != Fault::None) return makeError(faultText(dz) + " in '" + fn + "'");
        return r;
    };
    if (const char* op = comparisonOf(fn)) {
        if (!need(2)) return bad();
        return compare(op, v[0], v[1]);
    }
    if (fn == "Max" || fn == "Min" || fn == "max" || fn == "min" || fn == "sym_max" || fn == "sym_min") {
        if (v.empty()) return bad();
        const bool mx = fn == "Max" || fn == "max" || fn == "sym_max";
        Num r = v[0];
        for (size_t k = 1; k < v.size(); ++k) {
            bool gt = v[k].toDouble() > r.toDouble();
            if (mx ? gt : v[k].toDouble() < r.toDouble()) r = v[k];
        }
        return r;
    }
    if (fn == "Mod" || fn == "PythonMod") {
        if (!need(2)) return bad();
        return ret(arith("%", v[0], v[1], dz));
    }
    if (fn == "FloorDiv") {
        if (!need(2)) return bad();
        return ret(arith("//", v[0], v[1], dz));
    }
    if (fn == "CleanDiv" || fn == "IntTrueDiv" || fn == "FloatTrueDiv") {
        if (!need(2)) return bad();
        if (fn == "CleanDiv") return ret(arith("//", v[0], v[1], dz));
        return ret(arith("/", v[0], v[1], dz));
    }
    if (fn == "CeilDiv") {
        if (!need(2)) return bad();
        Num neg = negate(v[0], dz);
        Num q = dz == Fault::None ? arith("//", neg, v[1], dz) : Num{};
        return ret(dz == Fault::None ? negate(q, dz) : Num{});
    }
    if (fn == "ModularIndexing") {
        if (!need(3)) return bad();
        Num q = arith("//", v[0], v[1], dz);
        return ret(dz == Fault::None ? arith("%", q, v[2], dz) : Num{});
    }
    if (fn == "PowByNatural" || fn == "FloatPow" || fn == "Pow") {
        if (!need(2)) return bad();
        return ret(arith("**", v[0], v[1], dz));
    }
    if (fn == "Abs" || fn == "abs") {
        if (!need(1)) return bad();
        return ret(v[0].isFloat() || v[0].i >= 0 ? (v[0].isFloat() ? Num::ofFloat(std::fabs(v[0].d)) : v[0])
                                                 : negate(v[0], dz));
    }
    if (fn == "floor" || fn == "math.floor" || fn == "FloorToInt" || fn == "ceiling" || fn == "math.ceil" ||
        fn == "CeilToInt" || fn == "TruncToInt" || fn == "math.trunc" || fn == "int" || fn == "sym_int" ||
        fn == "RoundToInt" || fn == "round") {
        if (!need(1)) return bad();
        double x = v[0].toDouble();
        double r = (fn == "floor" || fn == "math.floor" || fn == "FloorToInt")   ? std::floor(x)
                   : (fn == "ceiling" || fn == "math.ceil" || fn == "CeilToInt") ? std::ceil(x)
                   : (fn == "RoundToInt" || fn == "round") ? std::nearbyint(x)  // banker's rounding, as Python
                                                           : std::trunc(x);
        return Num::ofInt(static_cast<int64_t>(r));
    }
    if (fn == "ToFloat" || fn == "float" || fn == "sym_float" || fn == "TruncToFloat") {
        if (!need(1)) return bad();
        return Num::ofFloat(fn == "TruncToFloat" ? std::trunc(v[0].toDouble()) : v[0].toDouble());
    }
    if (fn == "sqrt" || fn == "math.sqrt" || fn == "OpaqueUnaryFn_sqrt") {
        if (!need(1)) return bad();
        return Num::ofFloat(std::sqrt(v[0].toDouble()));
    }
    if (fn == "Identity") {
        if (!need(1)) return bad();
        return v[0];
    }
    if (fn == "And" || fn == "Or") {
        bool r = fn == "And";
        for (const auto& x : v) r = fn == "And" ? (r && x.truthy()) : (r || x.truthy());
        return Num::ofBool(r);
    }
    if (fn == "Not") {
        if (!need(1)) return bad();
        return Num::ofBool(!v[0].truthy());
    }
    if (fn == "Where" || fn == "sym_ite") {
        if (!need(3)) return bad();
        return v[0].truthy() ? v[1] : v[2];
    }
    return makeError("unknown symbolic function '" + fn + "'");
}

}  // namespace

Expected<Num> apply(std::string_view opv, const std::vector<Num>& v) {
    const std::string op(opv);
    if (op == "-u" || op == "~") {
        if (v.size() != 1) return makeError("'" + op + "' takes one operand");
        if (op == "~") return Num::ofBool(!v[0].truthy());
        Fault f = Fault::None;
        Num r = negate(v[0], f);
        if (f != Fault::None) return makeError(faultText(f));
        return r;
    }
    static const std::set<std::string> kBinary{"+",  "-", "*",  "/",  "//", "%", "**", "<",
                                               "<=", ">", ">=", "==", "!=", "&", "|"};
    if (!kBinary.count(op)) return call(op, v);
    if (v.size() != 2) return makeError("'" + op + "' takes two operands");
    const Num& x = v[0];
    const Num& y = v[1];
    if (op == "&") return Num::ofBool(x.truthy() && y.truthy());
    if (op == "|") return Num::ofBool(x.truthy() || y.truthy());
    if (op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=") return compare(op, x, y);
    Fault dz = Fault::None;
    Num r = arith(op, x, y, dz);
    if (dz != Fault::None) return makeError(faultText(dz));
    return r;
}

Expected<ExprPtr> parse(std::string_view text) {
    Parser p(text);
    return p.parseAll();
}

Expected<Num> eval(const Expr& e, const Binding& b) {
    switch (e.kind) {
    case Expr::Kind::Number: return e.value;
    case Expr::Kind::Symbol: {
        auto it = b.find(e.name);
        if (it == b.end()) return makeError("symbol " + e.name + " has no value");
        return it->second;
    }
    case Expr::Kind::Unary:
    case Expr::Kind::Binary:
    case Expr::Kind::Call: {
        std::vector<Num> v;
        for (const auto& a : e.args) {
            auto x = eval(*a, b);
            if (!x.ok()) return x;
            v.push_back(*x);
        }
        return sym::apply(e.name, v);
    }
    }
    return makeError("bad expression");
}

Expected<Num> evalText(std::string_view text, const Binding& b) {
    auto e = parse(text);
    if (!e.ok()) return e.error();
    return eval(**e, b);
}

std::string canonicalText(const Expr& e) {
    switch (e.kind) {
    case Expr::Kind::Number: return e.value.isFloat() ? e.value.str() + "f" : e.value.str();
    case Expr::Kind::Symbol: return e.name;
    case Expr::Kind::Unary: return "(" + e.name + " " + canonicalText(*e.args[0]) + ")";
    case Expr::Kind::Binary: return "(" + canonicalText(*e.args[0]) + e.name + canonicalText(*e.args[1]) + ")";
    case Expr::Kind::Call: {
        std::string s = e.name + "(";
        for (size_t i = 0; i < e.args.size(); ++i) s += (i ? "," : "") + canonicalText(*e.args[i]);
        return s + ")";
    }
    }
    return {};
}

bool mentionsUnbacked(std::string_view text) {
    for (const auto& s : freeSymbols(text))
        if (s.size() > 1 && s[0] == 'u' && std::isdigit(static_cast<unsigned char>(s[1]))) return true;
    return false;
}

void freeSymbols(const Expr& e, std::set<std::string>& out) {
    if (e.kind == Expr::Kind::Symbol) out.insert(e.name);
    for (const auto& a : e.args) freeSymbols(*a, out);
}

std::set<std::string> freeSymbols(std::string_view text) {
    std::set<std::string> out;
    if (auto e = parse(text); e.ok()) freeSymbols(**e, out);
    return out;
}

}  // namespace fxray::sym
