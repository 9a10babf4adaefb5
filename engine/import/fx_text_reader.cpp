#include "import/fx_text_reader.h"

#include "import/python_expr.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

namespace fxray {

// ---------------------------------------------------------------------------------------------
// Annotations

namespace {

std::string trimmed(std::string_view s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return std::string(s.substr(a, b - a));
}

/// Parses "[a, b, c]" at pos; returns the comma-separated items (top-level), advances pos.
std::optional<std::vector<std::string>> bracketList(std::string_view s, size_t& pos) {
    if (pos >= s.size() || s[pos] != '[') return std::nullopt;
    int depth = 0;
    size_t start = pos + 1;
    std::vector<std::string> items;
    for (size_t i = pos; i < s.size(); ++i) {
        char c = s[i];
        if (c == '[' || c == '(') {
            ++depth;
        } else if (c == ']' || c == ')') {
            if (--depth == 0) {
                auto last = trimmed(s.substr(start, i - start));
                if (!last.empty()) items.push_back(last);
                pos = i + 1;
                return items;
            }
        } else if (c == ',' && depth == 1) {
            items.push_back(trimmed(s.substr(start, i - start)));
            start = i + 1;
        }
    }
    return std::nullopt;
}

std::optional<int64_t> toInt(std::string_view s) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

}  // namespace

std::optional<TensorMeta> parseAnnotation(std::string_view text, std::string* error) {
    size_t lb = text.find('[');
    if (lb == std::string_view::npos) return std::nullopt;
    auto dt = dtypeFromAbbrev(text.substr(0, lb));
    if (!dt) return std::nullopt;
    TensorMeta m;
    m.dtype = *dt;
    size_t pos = lb;
    auto dims = bracketList(text, pos);
    if (!dims) return std::nullopt;
    // Symbolic sizes are parsed here, once: a text that is no expression fails the import.
    auto symInt = [&](const std::string& t, const char* what, size_t d) -> std::optional<SymInt> {
        if (auto v = toInt(t)) return SymInt(*v);
        auto s = SymInt::parse(t);
        if (!s.ok()) {
            if (error) *error = std::string(what) + " " + std::to_string(d) + ": " + s.error().message;
            return std::nullopt;
        }
        return std::move(s).value();
    };
    m.shape.assign(dims->size(), 0);
    for (size_t d = 0; d < dims->size(); ++d) {
        auto s = symInt((*dims)[d], "size", d);
        if (!s) return std::nullopt;
        m.setSize(d, *s);
    }
    m.stridesKnown = false;
    if (pos < text.size() && text[pos] == '[') {
        auto st = bracketList(text, pos);
        if (!st) return std::nullopt;
        if (st->size() != m.shape.size()) return std::nullopt;
        m.strides.assign(st->size(), 0);
        for (size_t d = 0; d < st->size(); ++d) {
            auto s = symInt((*st)[d], "stride", d);
            if (!s) return std::nullopt;
            m.setStride(d, *s);
        }
        m.stridesKnown = true;
    } else {
        m.strides = TensorMeta::contiguousStrides(m.shape);
    }
    auto dev = trimmed(text.substr(pos));
    if (dev.empty()) {
        m.deviceKnown = false;
    } else {
        auto d = parseDevice(dev);
        if (!d) return std::nullopt;
        m.device = *d;
    }
    return m;
}

Expected<std::string> readTextFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        Diagnostic d = makeError("cannot open file");
        d.file = path.string();
        return d;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Expected<std::string> readFileUpTo(const std::filesystem::path& path, uintmax_t maxBytes, const std::string& what) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    Diagnostic d = makeError("");
    d.file = path.string();
    if (ec) {
        d.message = "cannot read file: " + ec.message();
        return d;
    }
    if (size > maxBytes) {
        d.message = what + " too large (" + std::to_string(size >> 20) + " MiB; fxray reads up to " +
                    std::to_string(maxBytes >> 20) + " MiB)";
        return d;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        d.message = "cannot open file";
        return d;
    }
    std::string s(size_t(size), '\0');
    in.read(s.data(), std::streamsize(size));
    s.resize(size_t(in.gcount()));
    return s;
}

// ---------------------------------------------------------------------------------------------
// Module structure

namespace {

struct SrcLine {
    int number;        ///< 1-based
    int indent;        ///< leading spaces (tab = 8 columns is not used by FX)
    std::string text;  ///< without indentation
    bool blank;
};

std::vector<SrcLine> splitLines(std::string_view text) {
    std::vector<SrcLine> out;
    size_t pos = 0;
    int number = 0;
    while (pos <= text.size()) {
        size_t nl = text.find('\n', pos);
        std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        ++number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        SrcLine l;
        l.number = number;
        size_t ind = 0;
        while (ind < line.size() && (line[ind] == ' ' || line[ind] == '\t')) ++ind;
        l.indent = static_cast<int>(ind);
        l.text = std::string(line.substr(ind));
        l.blank = l.text.empty();
        out.push_back(std::move(l));
        if (nl == std::string_view::npos) break;
        pos = nl + 1;
    }
    return out;
}

const char* binopTarget(const std::string& op) {
    static const std::pair<const char*, const char*> table[] = {
        {"+", "operator.add"},       {"-", "operator.sub"},     {"*", "operator.mul"},     {"/", "operator.truediv"},
        {"//", "operator.floordiv"}, {"%", "operator.mod"},     {"@", "operator.matmul"},  {"**", "operator.pow"},
        {"<", "operator.lt"},        {"<=", "operator.le"},     {">", "operator.gt"},      {">=", "operator.ge"},
        {"==", "operator.eq"},       {"!=", "operator.ne"},     {"&", "operator.and_"},    {"|", "operator.or_"},
        {"^", "operator.xor"},       {"<<", "operator.lshift"}, {">>", "operator.rshift"},
    };
    for (auto& [k, v] : table)
        if (op == k) return v;
    return nullptr;
}

class ModuleReader {
public:
    ModuleReader(std::string_view text, std::string fileName)
            : m_lines(splitLines(text)), m_file(std::move(fileName)) {}

    Expected<std::unique_ptr<Graph>> read() {
        for (size_t i = 0; i < m_lines.size(); ++i) {
            const SrcLine& l = m_lines[i];
            if (!l.blank && l.text.rfind("class ", 0) == 0) {
                auto g = std::make_unique<Graph>();
                g->sourceFile = m_file;
                size_t next = 0;
                if (!readClass(i, *g, next)) return m_error;
                return g;
            }
        }
        return error(m_lines.empty() ? 0 : 1, 0, "no 'class ...(torch.nn.Module):' with a forward() found");
    }

private:
    Diagnostic error(int line, int col, std::string msg, std::string node = {}) {
        Diagnostic d = makeError(std::move(msg));
        d.file = m_file;
        d.line = line;
        d.column = col;
        d.node = std::move(node);
        return d;
    }
    bool fail(int line, int col, std::string msg, std::string node = {}) {
        m_error = error(line, col, std::move(msg), std::move(node));
        return false;
    }
    /// A statement that is not Python fxray reads: named by the line of the offending token
    /// (a continuation line of a bracketed statement is its own line).
    bool syntaxError(const PySyntaxError& e) { return fail(e.line, e.column, e.message); }

    /// Reads the class starting at line index `ci` into g; `end` receives the first line after it.
    bool readClass(size_t ci, Graph& g, size_t& end) {
        const SrcLine& header = m_lines[ci];
        // class NAME(BASES):
        auto lp = header.text.find('(');
        auto colon = header.text.rfind(':');
        if (colon == std::string::npos) return fail(header.number, header.indent + 1, "malformed class header");
        g.className = trimmed(header.text.substr(6, (lp == std::string::npos ? colon : lp) - 6));
        const int classIndent = header.indent;
        bool haveForward = false;
        size_t i = ci + 1;
        while (i < m_lines.size()) {
            const SrcLine& l = m_lines[i];
            if (l.blank || l.text[0] == '#') {
                ++i;
                continue;
            }
            if (l.indent <= classIndent) break;
            if (l.text.rfind("def forward(", 0) == 0) {
                size_t next = 0;
                if (!readForward(i, g, next)) return false;
                haveForward = true;
                i = next;
            } else if (l.text.rfind("class ", 0) == 0) {
                auto lp2 = l.text.find('(');
                std::string name = trimmed(l.text.substr(6, (lp2 == std::string::npos ? l.text.size() : lp2) - 6));
                if (g.subgraph(name)) return fail(l.number, l.indent + 1, "submodule '" + name + "' defined twice");
                Graph* sub = g.addSubgraph(name);
                sub->sourceFile = m_file;
                size_t next = 0;
                if (!readClass(i, *sub, next)) return false;
                i = next;
            } else if (l.text.rfind("def ", 0) == 0) {
                // Other methods (__init__, helpers) are not part of the graph: skip their bodies.
                int ind = l.indent;
                ++i;
                while (i < m_lines.size() && (m_lines[i].blank || m_lines[i].indent > ind)) ++i;
            } else {
                ++i;  // class-level statements (attributes) carry no graph
            }
        }
        end = i;
        if (!haveForward) return fail(header.number, header.indent + 1, "class '" + g.className + "' has no forward()");
        return true;
    }

    /// Tokenises a logical line starting at index li, joining continuation lines while brackets
    /// are open. Returns the index of the next line.
    bool logicalLine(size_t li, std::vector<PyToken>& toks, size_t& next) {
        toks.clear();
        size_t i = li;
        int depth = 0;
        for (;;) {
            const SrcLine& l = m_lines[i];
            std::vector<PyToken> part;
            PySyntaxError err;
            if (!lexPythonLine(l.text, l.number, l.indent + 1, part, err))
                return fail(err.line, err.column, err.message);
            part.pop_back();  // End
            for (auto& t : part) {
                if (t.kind == PyToken::Kind::Op && (t.text == "(" || t.text == "[" || t.text == "{")) ++depth;
                if (t.kind == PyToken::Kind::Op && (t.text == ")" || t.text == "]" || t.text == "}")) --depth;
                toks.push_back(std::move(t));
            }
            ++i;
            if (depth <= 0 || i >= m_lines.size()) break;
        }
        if (depth > 0) return fail(m_lines[li].number, m_lines[li].indent + 1, "unclosed bracket");
        PyToken end;
        end.kind = PyToken::Kind::End;
        end.line = m_lines[i - 1].number;
        end.column = static_cast<int>(m_lines[i - 1].text.size() + m_lines[i - 1].indent + 1);
        toks.push_back(end);
        next = i;
        return true;
    }

    bool readForward(size_t di, Graph& g, size_t& end) {
        const SrcLine& def = m_lines[di];
        std::vector<PyToken> toks;
        size_t next = 0;
        if (!logicalLine(di, toks, next)) return false;
        // def forward ( params ) [-> ann] :
        size_t p = 2;
        if (toks.size() < 4 || toks[p].text != "(") return fail(def.number, def.indent + 1, "malformed def forward");
        ++p;
        std::vector<std::pair<std::string, std::string>> params;  // name, annotation
        bool first = true;
        while (p < toks.size() && toks[p].text != ")") {
            if (toks[p].kind == PyToken::Kind::Op && (toks[p].text == "*" || toks[p].text == "**")) ++p;
            if (toks[p].kind != PyToken::Kind::Name)
                return fail(def.number, toks[p].column, "expected a parameter name");
            std::string name = toks[p].text;
            std::string ann;
            ++p;
            if (toks[p].text == ":") {
                ++p;
                if (toks[p].kind == PyToken::Kind::String) {
                    ann = toks[p].text;
                    ++p;
                } else {
                    // A type expression (`x : torch.Tensor` in to_folder code) says nothing about
                    // shapes: skip it.
                    int depth = 0;
                    while (p + 1 < toks.size() &&
                           !(depth == 0 && (toks[p].text == "," || toks[p].text == ")" || toks[p].text == "="))) {
                        if (toks[p].text == "(" || toks[p].text == "[") ++depth;
                        if (toks[p].text == ")" || toks[p].text == "]") --depth;
                        ++p;
                    }
                }
            }
            if (toks[p].text == "=") {  // default value: skip to next top-level comma
                int depth = 0;
                ++p;
                while (p < toks.size() && !(depth == 0 && (toks[p].text == "," || toks[p].text == ")"))) {
                    if (toks[p].text == "(" || toks[p].text == "[") ++depth;
                    if (toks[p].text == ")" || toks[p].text == "]") --depth;
                    ++p;
                }
            }
            if (!(first && name == "self")) params.emplace_back(name, ann);
            first = false;
            if (toks[p].text == ",")
                ++p;
            else if (toks[p].text != ")")
                return fail(def.number, toks[p].column, "expected ',' or ')'");
        }
        // Joint graphs: forward(self, primals, tangents) with placeholders declared in the body.
        bool anyAnnotated = false;
        for (auto& pa : params) anyAnnotated = anyAnnotated || !pa.second.empty();
        const int bodyIndentMin = def.indent + 1;
        // Decide the form by looking for a tree_flatten_spec line in the body.
        bool pytreeForm = false;
        for (size_t i = next; i < m_lines.size(); ++i) {
            const SrcLine& l = m_lines[i];
            if (l.blank) continue;
            if (l.indent < bodyIndentMin) break;
            if (l.text.find("fx_pytree.tree_flatten_spec(") != std::string::npos) {
                pytreeForm = true;
                break;
            }
        }
        if (pytreeForm) {
            g.signature.pytreeInputs = true;
            for (auto& pa : params) g.signature.pytreeGroups.push_back(pa.first);
        } else {
            g.signature.annotatedParams = anyAnnotated || params.empty();
            for (auto& [name, ann] : params) {
                if (g.find(name)) return fail(def.number, def.indent + 1, "duplicate parameter '" + name + "'");
                Node* ph = g.append(NodeKind::Placeholder, name, name);
                ph->sourceLine = def.number;
                if (!setAnnotation(*ph, ann)) return fail(def.number, def.indent + 1, badAnnotation(ann), name);
            }
        }
        // Body.
        std::string comment;
        bool haveStrides = false, haveDevices = false, sawAnnotation = false;
        size_t i = next;
        while (i < m_lines.size()) {
            const SrcLine& l = m_lines[i];
            if (l.blank) {
                ++i;
                continue;
            }
            if (l.indent < bodyIndentMin) break;
            if (l.text[0] == '#') {
                std::string c = trimmed(std::string_view(l.text).substr(1));
                // Consecutive comment lines form one block.
                bool prevIsComment = i > 0 && !m_lines[i - 1].blank && m_lines[i - 1].text[0] == '#' &&
                                     m_lines[i - 1].indent == l.indent;
                comment = prevIsComment ? comment + "\n" + c : c;
                ++i;
                continue;
            }
            if (!logicalLine(i, toks, next)) return false;
            if (!statementLine(g, toks, l, comment, pytreeForm)) return false;
            i = next;
        }
        end = i;
        if (!g.outputNode()) return fail(def.number, def.indent + 1, "forward() has no return statement");
        for (const auto& n : g.nodes()) {
            if (!n->annotated || n->meta.empty()) continue;
            sawAnnotation = true;
            haveStrides = haveStrides || n->meta[0].stridesKnown;
            haveDevices = haveDevices || n->meta[0].deviceKnown;
        }
        g.printStrides = !sawAnnotation || haveStrides;
        g.printDevices = !sawAnnotation || haveDevices;
        return true;
    }

    /// "bad annotation "f32[s0 +, 4]": size 0: cannot read symbolic expression ...".
    std::string badAnnotation(const std::string& ann) const {
        return "bad annotation \"" + ann + "\"" + (m_annError.empty() ? "" : ": " + m_annError);
    }

    bool setAnnotation(Node& n, const std::string& ann) {
        if (ann.empty()) return true;
        m_annError.clear();
        if (auto m = parseAnnotation(ann, &m_annError)) {
            n.meta = {*m};
            n.annotated = true;
            return true;
        }
        // Text that starts like a tensor type ("f32[") but does not parse is an error; other
        // annotations (SymInt placeholders, "Sym(s0)") are kept verbatim.
        auto lb = ann.find('[');
        if (lb != std::string::npos && dtypeFromAbbrev(std::string_view(ann).substr(0, lb))) return false;
        // A SymInt's expression ("Sym(s23*s27)") must parse too: it is evaluated at run time.
        if (ann.size() > 5 && ann.compare(0, 4, "Sym(") == 0 && ann.back() == ')') {
            if (auto e = sym::parse(std::string_view(ann).substr(4, ann.size() - 5)); !e.ok()) {
                m_annError = e.error().message;
                return false;
            }
        }
        n.annotationText = ann;
        return true;
    }

    /// One line of the body: statements separated by top-level ';'.
    bool statementLine(Graph& g, const std::vector<PyToken>& toks, const SrcLine& l, const std::string& comment,
                       bool pytreeForm) {
        size_t start = 0;
        int depth = 0;
        bool firstStmt = true;
        for (size_t k = 0; k < toks.size(); ++k) {
            const PyToken& t = toks[k];
            if (t.kind == PyToken::Kind::Op && (t.text == "(" || t.text == "[")) ++depth;
            if (t.kind == PyToken::Kind::Op && (t.text == ")" || t.text == "]")) --depth;
            bool endHere = t.kind == PyToken::Kind::End || (t.kind == PyToken::Kind::Op && t.text == ";" && depth == 0);
            if (!endHere) continue;
            if (k > start) {
                if (!statement(g, toks, start, k, l, comment, pytreeForm, firstStmt)) return false;
                firstStmt = false;
            }
            start = k + 1;
        }
        return true;
    }

    bool isFreeStatement(const std::vector<PyToken>& toks, size_t b, size_t e) {
        // x = y = None
        if (e - b < 3 || toks[e - 1].kind != PyToken::Kind::Name || toks[e - 1].text != "None") return false;
        for (size_t k = b; k + 1 < e; k += 2) {
            if (toks[k].kind != PyToken::Kind::Name) return false;
            if (toks[k + 1].text != "=") return false;
        }
        return true;
    }

    bool statement(Graph& g, const std::vector<PyToken>& toks, size_t b, size_t e, const SrcLine& l,
                   const std::string& comment, bool pytreeForm, bool firstStmt) {
        const int line = l.number;
        if (!firstStmt && isFreeStatement(toks, b, e)) return true;
        // In-place operator: `a += b;  name: "ann" = a` is FX's form of operator.iadd.
        if (e - b >= 3 && toks[b].kind == PyToken::Kind::Name && toks[b + 1].kind == PyToken::Kind::Op &&
            augmentedTarget(toks[b + 1].text)) {
            PyExpr rhs;
            PyExprParser ep(toks, b + 2, e);
            if (!ep.parseAll(rhs)) return syntaxError(ep.error());
            m_pendingInplace = {toks[b].text, augmentedTarget(toks[b + 1].text), std::move(rhs), toks[b].column, false,
                                {}};
            m_havePending = true;
            return true;
        }
        // Subscript assignment: `x[index] = v;  setitem = x` is FX's form of operator.setitem
        // (Tensor.__setitem__ in Dynamo graphs: BART's shift_tokens_right, sinusoid tables).
        if (e - b >= 5 && toks[b].kind == PyToken::Kind::Name && toks[b + 1].text == "[") {
            size_t close = e;
            int depth = 0;
            for (size_t k = b + 1; k < e; ++k) {
                if (toks[k].kind != PyToken::Kind::Op) continue;
                if (toks[k].text == "(" || toks[k].text == "[") ++depth;
                if ((toks[k].text == ")" || toks[k].text == "]") && --depth == 0) {
                    close = k;
                    break;
                }
            }
            if (close + 2 < e && toks[close + 1].text == "=") {
                PyExpr index, rhs;
                PyExprParser ip(toks, b + 2, close);
                if (!ip.parseAll(index)) return syntaxError(ip.error());
                PyExprParser rp(toks, close + 2, e);
                if (!rp.parseAll(rhs)) return syntaxError(rp.error());
                m_pendingInplace = {toks[b].text, "operator.setitem", std::move(rhs), toks[b].column, true,
                                    std::move(index)};
                m_havePending = true;
                return true;
            }
        }
        // return EXPR
        if (toks[b].kind == PyToken::Kind::Name && toks[b].text == "return") {
            PyExpr ex;
            PyExprParser ep(toks, b + 1, e);
            if (b + 1 == e) {
                ex.kind = PyExpr::Kind::Tuple;
            } else if (!ep.parseAll(ex)) {
                return syntaxError(ep.error());
            }
            return makeOutput(g, ex, line);
        }
        // Annotated declaration without value: NAME ':' STRING (joint placeholders).
        if (e - b == 3 && toks[b].kind == PyToken::Kind::Name && toks[b + 1].text == ":" &&
            toks[b + 2].kind == PyToken::Kind::String) {
            const std::string& name = toks[b].text;
            if (!pytreeForm)
                return fail(line, toks[b].column, "annotation without a value outside a joint graph signature");
            if (g.find(name)) return fail(line, toks[b].column, "'" + name + "' declared twice", name);
            Node* ph = g.append(NodeKind::Placeholder, name, name);
            ph->sourceLine = line;
            if (!setAnnotation(*ph, toks[b + 2].text))
                return fail(line, toks[b + 2].column, badAnnotation(toks[b + 2].text), name);
            return true;
        }
        // Find the top-level '='.
        size_t eq = e;
        int depth = 0;
        for (size_t k = b; k < e; ++k) {
            const auto& t = toks[k];
            if (t.kind != PyToken::Kind::Op) continue;
            if (t.text == "(" || t.text == "[")
                ++depth;
            else if (t.text == ")" || t.text == "]")
                --depth;
            else if (t.text == "=" && depth == 0) {
                eq = k;
                break;
            }
        }
        if (eq == e) return fail(line, toks[b].column, "expected an assignment or return statement");
        // Targets: NAME [':' STRING]  |  NAME, NAME, ... [,]
        std::vector<std::string> targets;
        std::string ann;
        int annCol = 0;
        size_t k = b;
        if (eq - b >= 3 && toks[b + 1].text == ":") {
            if (toks[b].kind != PyToken::Kind::Name || toks[b + 2].kind != PyToken::Kind::String || eq != b + 3)
                return fail(line, toks[b].column, "malformed annotated assignment");
            targets.push_back(toks[b].text);
            ann = toks[b + 2].text;
            annCol = toks[b + 2].column;
        } else {
            while (k < eq) {
                if (toks[k].kind != PyToken::Kind::Name) return fail(line, toks[k].column, "expected a name to assign");
                targets.push_back(toks[k].text);
                ++k;
                if (k < eq) {
                    if (toks[k].text != ",") return fail(line, toks[k].column, "expected ',' or '='");
                    ++k;
                }
            }
        }
        if (targets.empty()) return fail(line, toks[b].column, "expected a name before '='");
        // x = y = None chains in first position (a node with no users freeing itself) do not occur;
        // `a = b = None` there is a malformed graph line.
        PyExpr rhs;
        PyExprParser ep(toks, eq + 1, e);
        if (!ep.parseAll(rhs)) return syntaxError(ep.error());

        if (targets.size() > 1 ||
            (rhs.kind == PyExpr::Kind::Call && rhs.items[0].dotted() == "fx_pytree.tree_flatten_spec")) {
            return flattenSpec(g, targets, rhs, line, toks[b].column);
        }
        const std::string& name = targets[0];
        if (m_havePending) {
            m_havePending = false;
            if (rhs.kind != PyExpr::Kind::Name || rhs.text != m_pendingInplace.lhs)
                return fail(line, rhs.column, "expected '" + m_pendingInplace.lhs + "' after the in-place operator",
                            name);
            if (g.find(name)) return fail(line, toks[b].column, "'" + name + "' is assigned twice", name);
            Argument lhs, other, index;
            PyExpr lhsExpr;
            lhsExpr.kind = PyExpr::Kind::Name;
            lhsExpr.text = m_pendingInplace.lhs;
            lhsExpr.column = m_pendingInplace.column;
            if (!toArgument(g, lhsExpr, lhs, line, name) || !toArgument(g, m_pendingInplace.rhs, other, line, name))
                return false;
            if (m_pendingInplace.hasIndex && !toArgument(g, m_pendingInplace.index, index, line, name)) return false;
            Node* n = g.append(NodeKind::CallFunction, name, m_pendingInplace.target);
            if (m_pendingInplace.hasIndex)
                n->args = {std::move(lhs), std::move(index), std::move(other)};
            else
                n->args = {std::move(lhs), std::move(other)};
            n->sourceLine = line;
            n->sourceComment = comment;
            if (!setAnnotation(*n, ann)) return fail(line, annCol, badAnnotation(ann), name);
            return true;
        }
        // Placeholder alias: l_x_ = L_x_
        if (rhs.kind == PyExpr::Kind::Name) {
            Node* src = g.find(rhs.text);
            if (src && src->kind() == NodeKind::Placeholder && src->name() == src->target() && !g.find(name)) {
                g.rename(src, name);
                return true;
            }
            return fail(line, rhs.column, "plain assignment of '" + rhs.text + "' is not an FX node", name);
        }
        if (g.find(name)) return fail(line, toks[b].column, "'" + name + "' is assigned twice", name);
        Node* n = makeNode(g, name, rhs, line);
        if (!n) return false;
        n->sourceLine = line;
        n->sourceComment = comment;
        if (!setAnnotation(*n, ann)) return fail(line, annCol, badAnnotation(ann), name);
        (void)l;
        return true;
    }

    bool flattenSpec(Graph& g, const std::vector<std::string>& targets, const PyExpr& rhs, int line, int col) {
        if (!(rhs.kind == PyExpr::Kind::Call && rhs.items[0].dotted() == "fx_pytree.tree_flatten_spec"))
            return fail(line, col, "tuple assignment is only supported for fx_pytree.tree_flatten_spec");
        // Placeholders were declared by the annotation line; create missing ones, check order.
        auto phs = g.placeholders();
        if (phs.empty()) {
            for (const auto& t : targets) {
                if (g.find(t)) return fail(line, col, "duplicate placeholder '" + t + "'");
                Node* ph = g.append(NodeKind::Placeholder, t, t);
                ph->sourceLine = line;
            }
            g.signature.annotatedParams = false;
            return true;
        }
        if (phs.size() != targets.size())
            return fail(line, col,
                        "tree_flatten_spec unpacks " + std::to_string(targets.size()) + " values but " +
                            std::to_string(phs.size()) + " were declared");
        for (size_t i = 0; i < targets.size(); ++i)
            if (phs[i]->name() != targets[i])
                return fail(line, col, "tree_flatten_spec order differs from the declarations at '" + targets[i] + "'");
        return true;
    }

    bool makeOutput(Graph& g, const PyExpr& ex, int line) {
        if (g.outputNode()) return fail(line, ex.column, "second return statement");
        Node* out = g.append(NodeKind::Output, g.uniqueName("output"), "output");
        out->sourceLine = line;
        const PyExpr* values = &ex;
        if (ex.kind == PyExpr::Kind::Call && ex.items[0].dotted() == "pytree.tree_unflatten") {
            if (ex.items.size() < 2) return fail(line, ex.column, "tree_unflatten without values");
            values = &ex.items[1];
            g.signature.pytreeReturn = true;
        }
        Argument a;
        if (!toArgument(g, *values, a, line)) return false;
        out->args.push_back(std::move(a));
        return true;
    }

    /// Attribute path below `self` for `self.a.b` and `getattr(self, "0").weight` (FX's form
    /// for names that are not identifiers); nullopt when the expression is not such a path.
    static std::optional<std::string> selfAttrPath(const PyExpr& e) {
        if (e.kind == PyExpr::Kind::Name) return e.text == "self" ? std::optional<std::string>("") : std::nullopt;
        if (e.kind == PyExpr::Kind::Attr) {
            auto base = selfAttrPath(e.items[0]);
            if (!base) return std::nullopt;
            return base->empty() ? e.text : *base + "." + e.text;
        }
        if (e.kind == PyExpr::Kind::Call && e.items.size() == 3 && e.kwargs.empty() &&
            e.items[0].kind == PyExpr::Kind::Name && e.items[0].text == "getattr" &&
            e.items[2].kind == PyExpr::Kind::String) {
            auto base = selfAttrPath(e.items[1]);
            if (!base) return std::nullopt;
            return base->empty() ? e.items[2].text : *base + "." + e.items[2].text;
        }
        return std::nullopt;
    }

    /// Builds the node for `name = rhs`.
    Node* makeNode(Graph& g, const std::string& name, const PyExpr& rhs, int line) {
        auto failN = [&](int col, std::string msg) {
            fail(rhs.line > 0 ? rhs.line : line, col, std::move(msg), name);
            return nullptr;
        };
        if (auto attr = selfAttrPath(rhs); attr && !attr->empty() && rhs.kind != PyExpr::Kind::Name)
            return g.append(NodeKind::GetAttr, name, *attr);
        switch (rhs.kind) {
        case PyExpr::Kind::Attr: {
            std::string path = rhs.dotted();
            if (rhs.root() == "self") {
                return g.append(NodeKind::GetAttr, name, path.substr(5));
            }
            Node* obj = g.find(rhs.root());
            if (obj && rhs.items[0].kind == PyExpr::Kind::Name) {
                Node* n = g.append(NodeKind::CallFunction, name, "builtins.getattr");
                n->args = {Argument::ofNode(obj), Argument::ofString(rhs.text)};
                return n;
            }
            return failN(rhs.column, "unsupported attribute expression '" + path + "'");
        }
        case PyExpr::Kind::Call: {
            const PyExpr& callee = rhs.items[0];
            std::string path = callee.dotted();
            if (path.empty()) return failN(callee.column, "unsupported call expression");
            NodeKind kind = NodeKind::CallFunction;
            std::string target = path;
            std::vector<Argument> args;
            if (callee.kind == PyExpr::Kind::Attr && callee.items[0].kind == PyExpr::Kind::Name &&
                g.find(callee.items[0].text)) {
                kind = NodeKind::CallMethod;
                target = callee.text;
                args.push_back(Argument::ofNode(g.find(callee.items[0].text)));
            } else if (callee.root() == "self") {
                if (path == "self") return failN(callee.column, "calling 'self' is not an FX node");
                kind = NodeKind::CallModule;
                target = path.substr(5);
            } else if (callee.kind == PyExpr::Kind::Name && g.find(callee.text)) {
                return failN(callee.column, "calling a value ('" + callee.text + "') is not an FX node");
            }
            for (size_t k = 1; k < rhs.items.size(); ++k) {
                Argument a;
                if (!toArgument(g, rhs.items[k], a, line, name)) return nullptr;
                args.push_back(std::move(a));
            }
            std::vector<std::pair<std::string, Argument>> kwargs;
            for (const auto& [key, v] : rhs.kwargs) {
                Argument a;
                if (!toArgument(g, v, a, line, name)) return nullptr;
                kwargs.emplace_back(key, std::move(a));
            }
            Node* n = g.append(kind, name, target);
            n->args = std::move(args);
            n->kwargs = std::move(kwargs);
            return n;
        }
        case PyExpr::Kind::Subscript: {
            Argument obj, idx;
            if (!toArgument(g, rhs.items[0], obj, line, name) || !toArgument(g, rhs.items[1], idx, line, name))
                return nullptr;
            Node* n = g.append(NodeKind::CallFunction, name, "operator.getitem");
            n->args = {std::move(obj), std::move(idx)};
            return n;
        }
        case PyExpr::Kind::BinOp: {
            const char* target = binopTarget(rhs.text);
            if (!target) return failN(rhs.column, "unsupported operator '" + rhs.text + "'");
            Argument lhs, r;
            if (!toArgument(g, rhs.items[0], lhs, line, name) || !toArgument(g, rhs.items[1], r, line, name))
                return nullptr;
            Node* n = g.append(NodeKind::CallFunction, name, target);
            n->args = {std::move(lhs), std::move(r)};
            return n;
        }
        case PyExpr::Kind::UnaryOp: {
            Argument x;
            if (!toArgument(g, rhs.items[0], x, line, name)) return nullptr;
            if (!x.isNode()) return failN(rhs.column, "a constant is not an FX node");
            const char* target = rhs.text == "-"   ? "operator.neg"
                                 : rhs.text == "~" ? "operator.invert"
                                                   : "operator.pos";
            Node* n = g.append(NodeKind::CallFunction, name, target);
            n->args = {std::move(x)};
            return n;
        }
        default: return failN(rhs.column, "expected a call, attribute, subscript or operator expression");
        }
    }

    bool toArgument(Graph& g, const PyExpr& ex, Argument& out, int line, const std::string& node = {}) {
        // The expression's own line: an argument on a continuation line is named there.
        auto failA = [&](int col, std::string msg) {
            return fail(ex.line > 0 ? ex.line : line, col, std::move(msg), node);
        };
        switch (ex.kind) {
        case PyExpr::Kind::Int: {
            int64_t v = 0;
            auto [p, ec] = std::from_chars(ex.text.data(), ex.text.data() + ex.text.size(), v);
            if (ec != std::errc()) {
                // Beyond int64: keep as float (FX prints big ints as is; rare in graphs).
                out = Argument::ofFloat(std::strtod(ex.text.c_str(), nullptr));
                return true;
            }
            (void)p;
            out = Argument::ofInt(v);
            return true;
        }
        case PyExpr::Kind::Float: out = Argument::ofFloat(std::strtod(ex.text.c_str(), nullptr)); return true;
        case PyExpr::Kind::String: out = Argument::ofString(ex.text); return true;
        case PyExpr::Kind::Ellipsis: out.kind = Argument::Kind::Ellipsis; return true;
        case PyExpr::Kind::Name: {
            const std::string& n = ex.text;
            if (n == "None") {
                out = Argument::none();
                return true;
            }
            if (n == "True" || n == "False") {
                out = Argument::ofBool(n == "True");
                return true;
            }
            if (n == "inf") {
                out = Argument::ofFloat(std::numeric_limits<double>::infinity());
                return true;
            }
            if (n == "nan") {
                out = Argument::ofFloat(std::numeric_limits<double>::quiet_NaN());
                return true;
            }
            if (n == "Ellipsis") {
                out.kind = Argument::Kind::Ellipsis;
                return true;
            }
            if (Node* ref = g.find(n)) {
                out = Argument::ofNode(ref);
                return true;
            }
            return failA(ex.column, "unknown name '" + n + "'");
        }
        case PyExpr::Kind::UnaryOp: {
            Argument x;
            if (!toArgument(g, ex.items[0], x, line, node)) return false;
            if (ex.text == "-" && x.kind == Argument::Kind::Int) {
                out = Argument::ofInt(-x.i);
                return true;
            }
            if (ex.text == "-" && x.kind == Argument::Kind::Float) {
                out = Argument::ofFloat(-x.f);
                return true;
            }
            if (ex.text == "+" && x.isNumber()) {
                out = x;
                return true;
            }
            return failA(ex.column, "nested expression in an argument");
        }
        case PyExpr::Kind::List:
        case PyExpr::Kind::Tuple: {
            std::vector<Argument> items;
            for (const auto& it : ex.items) {
                Argument a;
                if (!toArgument(g, it, a, line, node)) return false;
                items.push_back(std::move(a));
            }
            out = Argument::ofList(std::move(items), ex.kind == PyExpr::Kind::Tuple);
            return true;
        }
        case PyExpr::Kind::Attr: {
            std::string path = ex.dotted();
            if (auto dt = dtypeFromTorchName(path); dt && path.rfind("torch.", 0) == 0) {
                out = Argument::ofDType(*dt);
                return true;
            }
            if (auto lay = layoutFromTorchName(path)) {
                out = Argument::ofLayout(*lay);
                return true;
            }
            if (auto mf = memoryFormatFromTorchName(path)) {
                out = Argument::ofMemoryFormat(*mf);
                return true;
            }
            return failA(ex.column, "unsupported attribute '" + path + "' in an argument");
        }
        case PyExpr::Kind::Call: {
            std::string callee = ex.items[0].dotted();
            if (callee == "device" || callee == "torch.device") {
                Device d;
                std::vector<const PyExpr*> pos;
                for (size_t k = 1; k < ex.items.size(); ++k) pos.push_back(&ex.items[k]);
                const PyExpr* type = pos.size() > 0 ? pos[0] : nullptr;
                const PyExpr* index = pos.size() > 1 ? pos[1] : nullptr;
                for (const auto& [key, v] : ex.kwargs) {
                    if (key == "type")
                        type = &v;
                    else if (key == "index")
                        index = &v;
                }
                if (!type || type->kind != PyExpr::Kind::String)
                    return failA(ex.column, "device() needs a type string");
                auto parsed = parseDevice(type->text);
                if (!parsed) return failA(type->column, "bad device '" + type->text + "'");
                d = *parsed;
                if (index && index->kind == PyExpr::Kind::Int) d.index = std::atoi(index->text.c_str());
                out = Argument::ofDevice(d);
                return true;
            }
            if (callee == "slice") {
                std::vector<Argument> parts;
                for (size_t k = 1; k < ex.items.size(); ++k) {
                    Argument a;
                    if (!toArgument(g, ex.items[k], a, line, node)) return false;
                    parts.push_back(std::move(a));
                }
                while (parts.size() < 3) parts.push_back(Argument::none());
                if (ex.items.size() == 2) {  // slice(stop)
                    std::swap(parts[0], parts[1]);
                }
                out.kind = Argument::Kind::Slice;
                out.items = std::move(parts);
                return true;
            }
            if (callee == "torch.Size" && ex.items.size() == 2) return toArgument(g, ex.items[1], out, line, node);
            return failA(ex.column, "call to '" + callee + "' inside an argument");
        }
        case PyExpr::Kind::BinOp:
        case PyExpr::Kind::Subscript:
        case PyExpr::Kind::Dict: return failA(ex.column, "nested expression in an argument");
        }
        return failA(ex.column, "unsupported argument");
    }

    static const char* augmentedTarget(const std::string& op) {
        if (op == "+=") return "operator.iadd";
        if (op == "-=") return "operator.isub";
        if (op == "*=") return "operator.imul";
        if (op == "/=") return "operator.itruediv";
        return nullptr;
    }
    struct PendingInplace {
        std::string lhs;
        const char* target = nullptr;
        PyExpr rhs;
        int column = 0;
        bool hasIndex = false;  ///< operator.setitem: lhs[index] = rhs
        PyExpr index;
    };
    PendingInplace m_pendingInplace;
    bool m_havePending = false;

    std::vector<SrcLine> m_lines;
    std::string m_file;
    std::string m_annError;  ///< why the last annotation did not parse, when known
    Diagnostic m_error;
};

}  // namespace

Expected<std::unique_ptr<Graph>> readFxText(std::string_view text, const std::string& fileName) {
    ModuleReader r(text, fileName);
    return r.read();
}

Expected<std::unique_ptr<Graph>> readFxFile(const std::filesystem::path& path) {
    auto text = readTextFile(path);
    if (!text.ok()) return text.error();
    return readFxText(*text, path.string());
}

}  // namespace fxray
