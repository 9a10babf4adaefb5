// Values of lifted tensor constants that the graph file itself determines: an empty tensor (its
// annotation says everything), or the literal factory call on the source line of its provenance
// comment (`# File: ..., code: mask = torch.where(mask, torch.tensor(0.0, dtype=dtype), m)`), or
// the number of a subscript assignment there (`code: dec_ids[:, 0] = 2`) for a 0-d constant.
// The code text is scanned as data: only numbers, True/False, inf/nan spellings and nested
// brackets are understood; anything else (a variable, an expression) makes the call unusable.
#include "import/lifted_constants.h"

#include "exec/ops/kernel_util.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>

namespace fxray {

namespace {

/// One parsed literal: a number (with its Python kind) or a nested list of them.
struct Literal {
    enum class Kind { Bool, Int, Float, List } kind = Kind::Float;
    double v = 0.0;
    std::vector<Literal> items;
};

std::string trim(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return std::string(s.substr(b, e - b));
}

/// Splits `a, b=[1, 2], c` at top-level commas (brackets and quotes respected).
std::vector<std::string> splitTopLevel(std::string_view s) {
    std::vector<std::string> out;
    int depth = 0;
    char quote = 0;
    size_t start = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quote) {
            if (c == quote) quote = 0;
            continue;
        }
        if (c == '\'' || c == '"')
            quote = c;
        else if (c == '(' || c == '[' || c == '{')
            ++depth;
        else if (c == ')' || c == ']' || c == '}')
            --depth;
        else if (c == ',' && depth == 0) {
            out.push_back(trim(s.substr(start, i - start)));
            start = i + 1;
        }
    }
    std::string last = trim(s.substr(start));
    if (!last.empty()) out.push_back(last);
    return out;
}

std::optional<double> parseNumberText(const std::string& t, Literal::Kind& kind) {
    std::string s = t;
    for (char& c : s)
        if (c == '"') c = '\'';
    double sign = 1.0;
    while (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        if (s[0] == '-') sign = -sign;
        s = trim(s.substr(1));
    }
    kind = Literal::Kind::Float;
    const double inf = std::numeric_limits<double>::infinity();
    if (s == "math.inf" || s == "torch.inf" || s == "float('inf')" || s == "float('+inf')") return sign * inf;
    if (s == "float('-inf')") return -sign * inf;
    if (s == "math.nan" || s == "torch.nan" || s == "float('nan')") return std::nan("");
    if (s == "True" || s == "False") {
        kind = Literal::Kind::Bool;
        return s == "True" ? 1.0 : 0.0;
    }
    if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '.')) return std::nullopt;
    std::string digits;
    for (char c : s)
        if (c != '_') digits += c;
    const bool isFloat = digits.find_first_of(".eE") != std::string::npos;
    size_t used = 0;
    double v = 0.0;
    try {
        v = isFloat ? std::stod(digits, &used) : static_cast<double>(std::stoll(digits, &used, 10));
    } catch (...) {
        return std::nullopt;
    }
    if (used != digits.size()) return std::nullopt;
    kind = isFloat ? Literal::Kind::Float : Literal::Kind::Int;
    return sign * v;
}

std::optional<Literal> parseLiteral(const std::string& text, int depth = 0) {
    const std::string s = trim(text);
    if (s.empty() || depth > 32) return std::nullopt;
    if ((s.front() == '[' && s.back() == ']') || (s.front() == '(' && s.back() == ')')) {
        Literal l;
        l.kind = Literal::Kind::List;
        for (const auto& part : splitTopLevel(std::string_view(s).substr(1, s.size() - 2))) {
            auto item = parseLiteral(part, depth + 1);
            if (!item) return std::nullopt;
            l.items.push_back(std::move(*item));
        }
        return l;
    }
    Literal l;
    auto v = parseNumberText(s, l.kind);
    if (!v) return std::nullopt;
    l.v = *v;
    return l;
}

/// Flattens a literal into values and a shape; false for ragged lists. `kind` collects the
/// widest number kind met (Bool < Int < Float), as torch.tensor infers its dtype.
bool flatten(const Literal& l, std::vector<double>& vals, std::vector<int64_t>& shape, size_t depth,
             Literal::Kind& kind) {
    if (l.kind != Literal::Kind::List) {
        if (depth != shape.size()) return false;
        vals.push_back(l.v);
        if (static_cast<int>(l.kind) > static_cast<int>(kind)) kind = l.kind;
        return true;
    }
    if (depth == shape.size())
        shape.push_back(static_cast<int64_t>(l.items.size()));
    else if (shape[depth] != static_cast<int64_t>(l.items.size()))
        return false;
    for (const auto& it : l.items)
        if (!flatten(it, vals, shape, depth + 1, kind)) return false;
    return true;
}

DType dtypeOfKind(Literal::Kind k) {
    return k == Literal::Kind::Bool ? DType::Bool : k == Literal::Kind::Int ? DType::Int64 : DType::Float32;
}

/// A factory call found in the code text: its name and its arguments.
struct Call {
    std::string fn;  ///< "tensor", "zeros", "ones", "full", "arange"
    std::vector<std::string> positional;
    std::vector<std::pair<std::string, std::string>> keywords;
};

std::vector<Call> factoryCalls(const std::string& code) {
    std::vector<Call> calls;
    for (const char* fn : {"tensor", "zeros", "ones", "full", "arange"}) {
        const std::string needle = std::string("torch.") + fn + "(";
        for (size_t at = code.find(needle); at != std::string::npos; at = code.find(needle, at + 1)) {
            if (at > 0 &&
                (std::isalnum(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == '_' || code[at - 1] == '.'))
                continue;
            const size_t open = at + needle.size() - 1;
            int depth = 0;
            char quote = 0;
            size_t close = std::string::npos;
            for (size_t i = open; i < code.size() && close == std::string::npos; ++i) {
                const char c = code[i];
                if (quote) {
                    if (c == quote) quote = 0;
                } else if (c == '\'' || c == '"') {
                    quote = c;
                } else if (c == '(' || c == '[') {
                    ++depth;
                } else if ((c == ')' || c == ']') && --depth == 0) {
                    close = i;
                }
            }
            if (close == std::string::npos) continue;  // the line was cut short
            Call call;
            call.fn = fn;
            for (auto& arg : splitTopLevel(std::string_view(code).substr(open + 1, close - open - 1))) {
                const size_t eq = arg.find('=');
                const bool kw = eq != std::string::npos && eq > 0 && arg.compare(eq, 2, "==") != 0 &&
                                std::all_of(arg.begin(), arg.begin() + static_cast<long>(eq), [](char c) {
                                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ' ';
                                });
                if (kw)
                    call.keywords.emplace_back(trim(arg.substr(0, eq)), trim(arg.substr(eq + 1)));
                else
                    call.positional.push_back(arg);
            }
            calls.push_back(std::move(call));
        }
    }
    return calls;
}

/// The dtype a call gives: its literal `dtype=torch.X`, nullopt when the keyword names a
/// variable (then the annotation decides), `dflt` when absent. False when unreadable.
bool callDType(const Call& c, DType dflt, std::optional<DType>& out) {
    for (const auto& [k, v] : c.keywords)
        if (k == "dtype") {
            if (v.rfind("torch.", 0) == 0) {
                auto d = dtypeFromTorchName(v);
                if (!d) return false;
                out = *d;
                return true;
            }
            out = std::nullopt;
            return true;
        }
    out = dflt;
    return true;
}

/// The values a call produces for a constant annotated `m`, or nullopt when the call does not
/// determine them (not literal) or cannot be this constant (shape/dtype differ).
std::optional<std::vector<double>> callValues(const Call& c, const TensorMeta& m) {
    const int64_t numel = m.numel();
    std::vector<double> vals;
    Literal::Kind kind = Literal::Kind::Bool;
    if (c.fn == "tensor") {
        if (c.positional.size() != 1) return std::nullopt;
        auto lit = parseLiteral(c.positional[0]);
        if (!lit) return std::nullopt;
        std::vector<int64_t> shape;
        if (!flatten(*lit, vals, shape, 0, kind) || shape != m.shape) return std::nullopt;
        if (vals.empty()) kind = Literal::Kind::Float;
    } else if (c.fn == "zeros" || c.fn == "ones") {
        // The sizes may be expressions; the annotation gives the shape.
        vals.assign(static_cast<size_t>(numel), c.fn == "ones" ? 1.0 : 0.0);
        kind = Literal::Kind::Float;
    } else if (c.fn == "full") {
        if (c.positional.size() != 2) return std::nullopt;
        auto fill = parseLiteral(c.positional[1]);
        if (!fill || fill->kind == Literal::Kind::List) return std::nullopt;
        vals.assign(static_cast<size_t>(numel), fill->v);
        kind = fill->kind;
    } else {  // arange(end) / arange(start, end[, step])
        if (c.positional.empty() || c.positional.size() > 3 || m.dim() != 1) return std::nullopt;
        std::vector<double> p;
        for (const auto& s : c.positional) {
            auto l = parseLiteral(s);
            if (!l || l->kind == Literal::Kind::List) return std::nullopt;
            p.push_back(l->v);
            if (static_cast<int>(l->kind) > static_cast<int>(kind)) kind = l->kind;
        }
        if (kind == Literal::Kind::Bool) kind = Literal::Kind::Int;
        const double start = p.size() == 1 ? 0.0 : p[0], end = p.size() == 1 ? p[0] : p[1];
        const double step = p.size() == 3 ? p[2] : 1.0;
        if (step == 0.0 || std::ceil((end - start) / step) != static_cast<double>(numel)) return std::nullopt;
        for (int64_t i = 0; i < numel; ++i) vals.push_back(start + static_cast<double>(i) * step);
    }
    std::optional<DType> dt;
    if (!callDType(c, dtypeOfKind(kind), dt)) return std::nullopt;
    if (dt && *dt != m.dtype) return std::nullopt;
    if (static_cast<int64_t>(vals.size()) != numel) return std::nullopt;
    return vals;
}

/// `x[...] = 2` (Tensor.__setitem__ of a number, which AOT tracing lifts as a 0-d constant that
/// fill.Tensor writes): the number on the right of the subscript assignment, or nullopt.
std::optional<double> subscriptAssignedNumber(const std::string& code) {
    int depth = 0;
    size_t eq = std::string::npos;
    for (size_t i = 0; i < code.size(); ++i) {
        const char c = code[i];
        if (c == '(' || c == '[' || c == '{') ++depth;
        if (c == ')' || c == ']' || c == '}') --depth;
        if (c != '=' || depth != 0) continue;
        const char before = i > 0 ? code[i - 1] : ' ', after = i + 1 < code.size() ? code[i + 1] : ' ';
        if (after == '=' || before == '=' || before == '!' || before == '<' || before == '>') continue;
        eq = i;
        break;
    }
    if (eq == std::string::npos) return std::nullopt;
    const std::string lhs = trim(std::string_view(code).substr(0, eq));
    if (lhs.empty() || lhs.back() != ']') return std::nullopt;
    Literal::Kind kind;
    return parseNumberText(trim(std::string_view(code).substr(eq + 1)), kind);
}

/// The value of the lifted constant `n` determined by the graph text alone, or nullopt.
std::optional<Tensor> constantFromText(const Node& n) {
    if (n.meta.size() != 1 || n.meta[0].isSymbolic()) return std::nullopt;
    TensorMeta m = n.meta[0];
    m.offset = 0;
    if (m.strides.size() != m.shape.size()) m.strides = TensorMeta::contiguousStrides(m.shape);
    if (m.numel() == 0) return Tensor::emptyLike(m);
    const size_t code = n.sourceComment.find("code:");
    if (code == std::string::npos) return std::nullopt;
    std::optional<std::vector<double>> found;
    for (const Call& c : factoryCalls(n.sourceComment.substr(code))) {
        auto vals = callValues(c, m);
        if (!vals) continue;
        // Two candidates of the constant's shape and dtype with different values: ambiguous.
        if (found && *found != *vals) return std::nullopt;
        found = std::move(vals);
    }
    if (!found && m.shape.empty()) {
        std::string text = trim(std::string_view(n.sourceComment).substr(code + 5));
        if (auto v = subscriptAssignedNumber(text)) found = std::vector<double>{*v};
    }
    if (!found) return std::nullopt;
    return kern::makeTensor(m, *found);
}

}  // namespace

std::vector<std::string> inferLiftedConstants(Graph& g) {
    std::vector<std::string> filled;
    for (const auto& n : g.nodes()) {
        if (n->kind() != NodeKind::GetAttr || g.subgraph(n->target()) || g.constants.count(n->target())) continue;
        if (auto t = constantFromText(*n)) {
            g.constants[n->target()] = std::move(*t);
            filled.push_back(n->target());
        }
    }
    return filled;
}

}  // namespace fxray
