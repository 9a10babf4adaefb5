#include "import/repro_reader.h"

#include "import/debug_dir_reader.h"
#include "import/fx_text_reader.h"
#include "import/python_lexer.h"

#include <charconv>
#include <cstdlib>
#include <map>

namespace fxray {

namespace fs = std::filesystem;

namespace {

/// Largest dimension or stride accepted from a repro (sizes are data, never trusted).
constexpr int64_t kMaxExtent = int64_t(1) << 48;
/// Nesting depth accepted in a load_args expression (hostile input must not blow the stack).
constexpr int kMaxDepth = 32;

/// A Python literal or call as written in load_args / __init__ lines.
struct PyKwarg;

struct PyVal {
    enum class Kind { None, Bool, Int, Float, Str, Name, Tuple, List, Call };
    Kind kind = Kind::None;
    bool b = false;
    int64_t i = 0;
    double f = 0.0;
    std::string s;               ///< Str contents; Name dotted path; Call callee (".m" for methods)
    std::vector<PyVal> items;    ///< Tuple/List elements; Call positional args (methods: receiver first)
    /// Call keywords (their own struct: a pair holding the incomplete PyVal does not compile
    /// with clang, which the fuzz build uses).
    std::vector<PyKwarg> kwargs;
    int column = 0;

    const PyVal* kw(std::string_view k) const;
};

struct PyKwarg {
    std::string first;
    PyVal second;
};

const PyVal* PyVal::kw(std::string_view k) const {
    for (const auto& [name, v] : kwargs)
        if (name == k) return &v;
    return nullptr;
}

/// Recursive-descent parser over one line's tokens for the literal subset repros use.
class ValParser {
public:
    explicit ValParser(const std::vector<PyToken>& toks) : m_t(toks) {}

    bool parse(PyVal& out) { return expr(out, 0); }
    bool atEnd() const { return m_t[m_p].kind == PyToken::Kind::End; }
    bool accept(std::string_view op) {
        if (m_t[m_p].kind == PyToken::Kind::Op && m_t[m_p].text == op) { ++m_p; return true; }
        return false;
    }
    const PyToken& peek() const { return m_t[m_p]; }
    std::string error;
    int errorColumn = 0;

private:
    bool fail(const std::string& msg) {
        error = msg;
        errorColumn = m_t[m_p].column;
        return false;
    }

    bool expr(PyVal& out, int depth) {
        if (depth > kMaxDepth) return fail("expression nested too deeply");
        if (!primary(out, depth)) return false;
        // Postfix: attribute access and calls, e.g. `torch.randn(...).cuda()`.
        while (true) {
            if (accept(".")) {
                if (peek().kind != PyToken::Kind::Name) return fail("expected a name after '.'");
                std::string attr = peek().text;
                ++m_p;
                if (out.kind == PyVal::Kind::Name) {
                    out.s += "." + attr;
                    continue;
                }
                if (!accept("(")) return fail("expected '(' after method '" + attr + "'");
                PyVal call;
                call.kind = PyVal::Kind::Call;
                call.s = "." + attr;
                call.column = out.column;
                call.items.push_back(std::move(out));
                if (!callArgs(call, depth)) return false;
                out = std::move(call);
            } else if (out.kind == PyVal::Kind::Name && accept("(")) {
                PyVal call;
                call.kind = PyVal::Kind::Call;
                call.s = out.s;
                call.column = out.column;
                if (!callArgs(call, depth)) return false;
                out = std::move(call);
            } else {
                return true;
            }
        }
    }

    bool callArgs(PyVal& call, int depth) {
        while (!accept(")")) {
            if (atEnd()) return fail("unclosed '('");
            if (peek().kind == PyToken::Kind::Name && m_t[m_p + 1].kind == PyToken::Kind::Op &&
                m_t[m_p + 1].text == "=") {
                std::string key = peek().text;
                m_p += 2;
                PyVal v;
                if (!expr(v, depth + 1)) return false;
                call.kwargs.push_back(PyKwarg{std::move(key), std::move(v)});
            } else {
                PyVal v;
                if (!expr(v, depth + 1)) return false;
                call.items.push_back(std::move(v));
            }
            if (!accept(",")) {
                if (accept(")")) break;
                return fail(atEnd() ? "unclosed '('" : "expected ',' or ')'");
            }
        }
        return true;
    }

    bool sequence(PyVal& out, const char* close, int depth) {
        bool sawComma = false;
        while (!accept(close)) {
            if (atEnd()) return fail(std::string("expected '") + close + "'");
            PyVal v;
            if (!expr(v, depth + 1)) return false;
            out.items.push_back(std::move(v));
            if (accept(",")) { sawComma = true; continue; }
            if (accept(close)) break;
            return fail(std::string("expected ',' or '") + close + "'");
        }
        // `(x)` is a parenthesised expression, `(x,)` a tuple.
        if (out.kind == PyVal::Kind::Tuple && out.items.size() == 1 && !sawComma) {
            PyVal inner = std::move(out.items[0]);
            out = std::move(inner);
        }
        return true;
    }

    bool primary(PyVal& out, int depth) {
        const PyToken& t = peek();
        out.column = t.column;
        switch (t.kind) {
        case PyToken::Kind::Int: {
            out.kind = PyVal::Kind::Int;
            auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), out.i);
            if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size())
                return fail("integer '" + t.text + "' out of range");
            ++m_p;
            return true;
        }
        case PyToken::Kind::Float:
            out.kind = PyVal::Kind::Float;
            out.f = std::strtod(t.text.c_str(), nullptr);
            ++m_p;
            return true;
        case PyToken::Kind::String:
            out.kind = PyVal::Kind::Str;
            while (peek().kind == PyToken::Kind::String) out.s += m_t[m_p++].text;  // implicit concatenation
            return true;
        case PyToken::Kind::Name:
            if (t.text == "None") { out.kind = PyVal::Kind::None; }
            else if (t.text == "True" || t.text == "False") { out.kind = PyVal::Kind::Bool; out.b = t.text == "True"; }
            else { out.kind = PyVal::Kind::Name; out.s = t.text; }
            ++m_p;
            return true;
        case PyToken::Kind::Op:
            if (t.text == "-") {
                int column = t.column;
                ++m_p;
                if (!primary(out, depth + 1)) return false;
                out.column = column;
                if (out.kind == PyVal::Kind::Int) { out.i = -out.i; return true; }
                if (out.kind == PyVal::Kind::Float) { out.f = -out.f; return true; }
                return fail("'-' before a non-number");
            }
            if (t.text == "(") { ++m_p; out.kind = PyVal::Kind::Tuple; return sequence(out, ")", depth); }
            if (t.text == "[") { ++m_p; out.kind = PyVal::Kind::List; return sequence(out, "]", depth); }
            return fail("unexpected '" + t.text + "'");
        case PyToken::Kind::End:
            return fail("unexpected end of line");
        }
        return fail("unexpected token");
    }

    const std::vector<PyToken>& m_t;
    size_t m_p = 0;
};

/// Splits a line into code and the text of its trailing `#` comment (quotes respected).
std::pair<std::string_view, std::string_view> splitComment(std::string_view line) {
    char quote = 0;
    for (size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        if (quote) {
            if (c == '\\') ++i;
            else if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '#') {
            std::string_view comment = line.substr(i + 1);
            while (!comment.empty() && comment.front() == ' ') comment.remove_prefix(1);
            return {line.substr(0, i), comment};
        }
    }
    return {line, {}};
}

std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view l = text.substr(start, nl - start);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        out.push_back(l);
        if (nl == text.size()) break;
        start = nl + 1;
    }
    return out;
}

size_t indentOf(std::string_view l) {
    size_t i = 0;
    while (i < l.size() && l[i] == ' ') ++i;
    return i;
}

/// One statement line being read, with what diagnostics need.
struct LineCtx {
    const std::string& file;
    int line;  ///< 1-based, offset applied
};

Diagnostic lineError(const LineCtx& c, int column, const std::string& msg) {
    Diagnostic d = makeError(msg);
    d.file = c.file;
    d.line = c.line;
    d.column = column;
    return d;
}

std::string where(const LineCtx& c) { return c.file + ":" + std::to_string(c.line) + ": "; }

std::optional<Device> deviceOf(const PyVal& v) {
    if (v.kind == PyVal::Kind::Str) return parseDevice(v.s);
    if (v.kind == PyVal::Kind::Call && (v.s == "device" || v.s == "torch.device")) {
        std::string type;
        int index = -1;
        if (!v.items.empty() && v.items[0].kind == PyVal::Kind::Str) {
            auto d = parseDevice(v.items[0].s);
            if (!d) return std::nullopt;
            type = d->type;
            index = d->index;
        }
        if (v.items.size() > 1 && v.items[1].kind == PyVal::Kind::Int) index = int(v.items[1].i);
        if (const PyVal* t = v.kw("type"); t && t->kind == PyVal::Kind::Str) type = t->s;
        if (const PyVal* ix = v.kw("index"); ix && ix->kind == PyVal::Kind::Int) index = int(ix->i);
        if (type.empty()) return std::nullopt;
        Device d;
        d.type = type;
        d.index = index;
        return d;
    }
    return std::nullopt;
}

std::optional<DType> dtypeOf(const PyVal& v) {
    if (v.kind != PyVal::Kind::Name) return std::nullopt;
    return dtypeFromTorchName(v.s);
}

/// Reads a tuple/list of non-negative ints (sizes or strides).
bool intList(const PyVal& v, std::vector<int64_t>& out) {
    if (v.kind != PyVal::Kind::Tuple && v.kind != PyVal::Kind::List) return false;
    for (const auto& x : v.items) {
        if (x.kind != PyVal::Kind::Int || x.i < 0 || x.i > kMaxExtent) return false;
        out.push_back(x.i);
    }
    return true;
}

struct StorageInfo {
    std::string hash;
    int64_t nbytes = 0;
    Device device;
    DType hint = DType::Float32;
};

/// Bytes from the storage start to one past the last element, or -1 when absurdly large.
/// Computed in double: exact for every value below 2^53, and the inputs are capped at 2^48.
int64_t extentBytes(const TensorMeta& m) {
    double last = double(m.offset);
    for (size_t d = 0; d < m.shape.size(); ++d) {
        if (m.shape[d] == 0) return 0;
        last += double(m.shape[d] - 1) * double(m.strides[d]);
    }
    double bytes = (last + 1) * dtypeItemSize(m.dtype);
    if (bytes > 4.0e18) return -1;
    return int64_t(bytes);
}

Status parseStorage(const PyVal& call, const std::string& var, const LineCtx& c,
                    std::map<std::string, StorageInfo>& storages) {
    StorageInfo s;
    if (call.items.size() < 2) return lineError(c, call.column, "reader.storage needs a hash and a byte count");
    const PyVal& h = call.items[0];
    if (h.kind == PyVal::Kind::Str) s.hash = h.s;
    else if (h.kind != PyVal::Kind::None) return lineError(c, h.column, "storage hash must be a string or None");
    const PyVal& n = call.items[1];
    if (n.kind != PyVal::Kind::Int || n.i < 0 || n.i > kMaxExtent)
        return lineError(c, n.column, "storage byte count must be a non-negative integer");
    s.nbytes = n.i;
    if (const PyVal* d = call.kw("device")) {
        auto dev = deviceOf(*d);
        if (!dev) return lineError(c, d->column, "unrecognised device");
        s.device = *dev;
    }
    if (const PyVal* dt = call.kw("dtype_hint")) {
        auto t = dtypeOf(*dt);
        if (!t) return lineError(c, dt->column, "unknown dtype '" + dt->s + "'");
        s.hint = *t;
    }
    storages[var] = std::move(s);
    return Status::success();
}

Expected<InputSpec> parseTensor(const PyVal& call, std::string_view comment, const LineCtx& c,
                                const std::map<std::string, StorageInfo>& storages,
                                std::vector<std::string>& warnings) {
    if (call.items.size() < 2) return lineError(c, call.column, "reader.tensor needs a storage and a shape");
    const PyVal& buf = call.items[0];
    if (buf.kind != PyVal::Kind::Name) return lineError(c, buf.column, "reader.tensor's first argument must be a storage variable");
    auto it = storages.find(buf.s);
    if (it == storages.end()) return lineError(c, buf.column, "unknown storage '" + buf.s + "'");
    const StorageInfo& st = it->second;
    InputSpec spec;
    TensorMeta& m = spec.meta;
    m.device = st.device;
    m.dtype = DType::Float32;  // the reader's default, not the storage's hint
    if (!intList(call.items[1], m.shape))
        return lineError(c, call.items[1].column, "tensor shape must be a tuple of non-negative integers");
    if (call.items.size() > 2) {
        if (!intList(call.items[2], m.strides) || m.strides.size() != m.shape.size())
            return lineError(c, call.items[2].column, "tensor stride must be a tuple of non-negative integers, one per dimension");
    } else {
        m.strides = TensorMeta::contiguousStrides(m.shape);
    }
    if (const PyVal* dt = call.kw("dtype")) {
        auto t = dtypeOf(*dt);
        if (!t) return lineError(c, dt->column, "unknown dtype '" + dt->s + "'");
        m.dtype = *t;
    }
    if (const PyVal* off = call.kw("storage_offset")) {
        if (off->kind != PyVal::Kind::Int || off->i < 0 || off->i > kMaxExtent)
            return lineError(c, off->column, "storage_offset must be a non-negative integer");
        m.offset = off->i;
    }
    if (const PyVal* rg = call.kw("requires_grad"); rg && rg->kind == PyVal::Kind::Bool) spec.requiresGrad = rg->b;
    int64_t numel = 1;
    for (int64_t s : m.shape) {
        if (s != 0 && numel > kMaxExtent / s) return lineError(c, call.items[1].column, "tensor has too many elements");
        numel *= s;
    }
    int64_t extent = extentBytes(m);
    if (extent < 0 || extent > st.nbytes)
        warnings.push_back(where(c) + "tensor extends past its storage '" + buf.s + "' (" +
                           std::to_string(st.nbytes) + " bytes)");
    spec.storageHash = st.hash;
    spec.storageBytes = st.nbytes;
    // The writer puts the placeholder's name in the trailing comment: `)  # arg0_1`.
    size_t end = 0;
    while (end < comment.size() && comment[end] != ' ' && comment[end] != ',') ++end;
    spec.name = std::string(comment.substr(0, end));
    return spec;
}

} // namespace

bool looksLikeRepro(std::string_view text) {
    size_t p = text.find("def load_args(");
    return p != std::string_view::npos && (p == 0 || text[p - 1] == '\n');
}

Expected<std::vector<InputSpec>> parseLoadArgs(std::string_view text, const std::string& fileName,
                                               std::vector<std::string>& warnings, int lineOffset) {
    std::vector<InputSpec> specs;
    auto lines = splitLines(text);
    size_t i = 0;
    while (i < lines.size() && lines[i].rfind("def load_args(", 0) != 0) ++i;
    if (i == lines.size()) return specs;
    std::map<std::string, StorageInfo> storages;
    bool inDump = false;  // inside a `"""` block the writer uses for inputs it could not save
    for (++i; i < lines.size(); ++i) {
        std::string_view raw = lines[i];
        LineCtx c{fileName, int(i) + 1 + lineOffset};
        size_t ind = indentOf(raw);
        std::string_view body = raw.substr(ind);
        if (body.empty()) continue;
        if (ind == 0) {
            // `load_args._version = 0` follows the body: a newer format may read differently.
            if (body.rfind("load_args._version", 0) == 0) {
                auto [code, comment] = splitComment(body);
                size_t eq = code.find('=');
                std::string_view v = eq == std::string_view::npos ? std::string_view{} : code.substr(eq + 1);
                while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
                while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
                if (v != "0")
                    warnings.push_back(where(c) + "load_args version " + std::string(v) +
                                       " is newer than the one fxray reads (0); inputs may be wrong");
            }
            break;
        }
        if (body.rfind("\"\"\"", 0) == 0) { inDump = !inDump; continue; }
        if (inDump) continue;
        auto [code, comment] = splitComment(body);
        while (!code.empty() && code.back() == ' ') code.remove_suffix(1);
        if (code.empty()) {
            // `# x was unsupported type for dumping: <class ...>`
            size_t p = comment.find(" was unsupported type for dumping");
            if (p != std::string_view::npos)
                warnings.push_back(where(c) + "input '" + std::string(comment.substr(0, p)) +
                                   "' was not saved by PyTorch (unsupported type); the repro cannot supply it");
            continue;
        }
        std::vector<PyToken> toks;
        int errCol = 0;
        std::string err;
        if (!lexPythonLine(code, int(ind) + 1, toks, errCol, err)) return lineError(c, errCol, err);
        // `bufN = reader.storage(...)` or a bare `reader.tensor(...)` / `reader.symint(...)`.
        std::string target;
        if (toks.size() > 2 && toks[0].kind == PyToken::Kind::Name && toks[1].kind == PyToken::Kind::Op &&
            toks[1].text == "=") {
            target = toks[0].text;
            toks.erase(toks.begin(), toks.begin() + 2);
        }
        PyVal call;
        ValParser p(toks);
        if (!p.parse(call)) return lineError(c, p.errorColumn, p.error);
        if (!p.atEnd()) return lineError(c, p.peek().column, "unexpected text after the call");
        if (call.kind != PyVal::Kind::Call)
            return lineError(c, call.column, "expected a reader.storage/tensor/symint call in load_args");
        if (call.s == "reader.storage") {
            if (target.empty()) return lineError(c, call.column, "reader.storage result must be assigned to a variable");
            auto st = parseStorage(call, target, c, storages);
            if (!st.ok()) return st.error();
        } else if (call.s == "reader.tensor") {
            auto spec = parseTensor(call, comment, c, storages, warnings);
            if (!spec.ok()) return spec.error();
            specs.push_back(std::move(spec).value());
        } else if (call.s == "reader.symint") {
            InputSpec spec;
            spec.isSymInt = true;
            if (call.items.size() != 1 || call.items[0].kind != PyVal::Kind::Int)
                return lineError(c, call.column, "reader.symint takes one integer");
            spec.symValue = call.items[0].i;
            size_t end = 0;
            while (end < comment.size() && comment[end] != ' ' && comment[end] != ',') ++end;
            spec.name = std::string(comment.substr(0, end));
            specs.push_back(std::move(spec));
        } else if (call.s == "reader.const") {
            std::string name = !call.items.empty() && call.items[0].kind == PyVal::Kind::Str ? call.items[0].s : "?";
            warnings.push_back(where(c) + "input '" + name +
                               "' was filtered out as a constant during compilation; it has no input spec");
        } else {
            // A reader method from a newer PyTorch: keep going, the count check will tell.
            warnings.push_back(where(c) + "unknown load_args call '" + call.s + "' ignored");
        }
    }
    return specs;
}

namespace {

/// Metadata of a tensor built by a factory call such as `torch.randn([16], dtype=torch.float32).cuda()`
/// or `torch.nn.Parameter(torch.randn([16], dtype=..., device="cuda"))`.
std::optional<TensorMeta> factoryMeta(const PyVal& v) {
    if (v.kind != PyVal::Kind::Call) return std::nullopt;
    if (v.s == "torch.nn.Parameter" || v.s == "torch.nn.parameter.Parameter" || v.s == "Parameter")
        return v.items.empty() ? std::nullopt : factoryMeta(v.items[0]);
    if (!v.s.empty() && v.s[0] == '.') {  // method on a tensor: .cuda(), .to(...), .contiguous()
        if (v.items.empty()) return std::nullopt;
        auto m = factoryMeta(v.items[0]);
        if (!m) return m;
        if (v.s == ".cuda") { m->device = Device{"cuda", 0}; }
        else if (v.s == ".cpu") { m->device = Device{}; }
        else if (v.s == ".to") {
            for (size_t k = 1; k < v.items.size(); ++k) {
                if (auto d = deviceOf(v.items[k])) m->device = *d;
                if (auto t = dtypeOf(v.items[k])) m->dtype = *t;
            }
            if (const PyVal* d = v.kw("device")) if (auto dev = deviceOf(*d)) m->device = *dev;
            if (const PyVal* t = v.kw("dtype")) if (auto dt = dtypeOf(*t)) m->dtype = *dt;
        }
        return m;
    }
    static const char* factories[] = {"torch.randn", "torch.rand", "torch.empty", "torch.zeros", "torch.ones",
                                      "torch.full"};
    bool known = false;
    for (const char* f : factories) known = known || v.s == f;
    if (!known || v.items.empty()) return std::nullopt;
    TensorMeta m;
    if (!intList(v.items[0], m.shape)) {
        // torch.randn(2, 3): sizes as separate arguments (not for torch.full)
        if (v.s == "torch.full") return std::nullopt;
        for (const auto& x : v.items)
            if (x.kind == PyVal::Kind::Int && x.i >= 0 && x.i <= kMaxExtent) m.shape.push_back(x.i);
            else return std::nullopt;
    }
    m.strides = TensorMeta::contiguousStrides(m.shape);
    if (const PyVal* t = v.kw("dtype")) {
        auto dt = dtypeOf(*t);
        if (!dt) return std::nullopt;
        m.dtype = *dt;
    }
    if (const PyVal* d = v.kw("device")) {
        auto dev = deviceOf(*d);
        if (!dev) return std::nullopt;
        m.device = *dev;
    }
    return m;
}

/// Buffers and parameters declared by `self.register_buffer('x', ...)` / `self.x = ...` lines of
/// the repro's `__init__`. Lines that are not such declarations are skipped.
std::map<std::string, TensorMeta> declaredAttributes(const std::vector<std::string_view>& lines) {
    std::map<std::string, TensorMeta> out;
    for (std::string_view raw : lines) {
        if (raw.rfind("def load_args(", 0) == 0) break;
        size_t ind = indentOf(raw);
        std::string_view body = raw.substr(ind);
        if (body.rfind("self.", 0) != 0) continue;
        auto [code, comment] = splitComment(body);
        (void)comment;
        std::vector<PyToken> toks;
        int errCol = 0;
        std::string err;
        if (!lexPythonLine(code, 1, toks, errCol, err)) continue;
        if (toks.size() > 4 && toks[2].kind == PyToken::Kind::Name && toks[3].text == "=" &&
            toks[3].kind == PyToken::Kind::Op) {
            std::vector<PyToken> rhs(toks.begin() + 4, toks.end());
            ValParser p(rhs);
            PyVal v;
            if (!p.parse(v) || !p.atEnd()) continue;
            if (auto m = factoryMeta(v)) out[toks[2].text] = *m;
            continue;
        }
        ValParser p(toks);
        PyVal v;
        if (!p.parse(v) || !p.atEnd()) continue;
        if (v.kind == PyVal::Kind::Call && v.s == "self.register_buffer" && v.items.size() >= 2 &&
            v.items[0].kind == PyVal::Kind::Str)
            if (auto m = factoryMeta(v.items[1])) out[v.items[0].s] = *m;
    }
    return out;
}

} // namespace

Expected<LoadedGraph> readReproText(std::string_view text, const std::string& fileName,
                                    std::vector<std::string>& warnings, int lineOffset) {
    auto g = readFxText(text, fileName);
    if (!g.ok()) {
        Diagnostic d = g.error();
        if (d.line > 0) d.line += lineOffset;
        return d;
    }
    LoadedGraph lg;
    lg.id = "0";
    lg.stage = "repro";
    lg.graph = std::move(g).value();
    if (lineOffset != 0) {
        for (const auto& n : lg.graph->nodes())
            if (n->sourceLine > 0) n->sourceLine += lineOffset;
    }
    auto specs = parseLoadArgs(text, fileName, warnings, lineOffset);
    if (!specs.ok()) return specs.error();

    auto lines = splitLines(text);
    auto attrs = declaredAttributes(lines);
    int described = 0;
    for (const auto& n : lg.graph->nodes()) {
        if (n->kind() != NodeKind::GetAttr || !n->meta.empty()) continue;
        auto it = attrs.find(n->target());
        if (it == attrs.end()) continue;
        n->meta = {it->second};
        ++described;
    }
    if (described > 0)
        lg.notes.push_back(std::to_string(described) +
                           " attributes take shape and dtype from __init__; their values are random in "
                           "PyTorch's repro and are not loaded");

    if (!looksLikeRepro(text)) {
        warnings.push_back(fileName + ": no load_args(reader) function; the inputs are unknown");
        return lg;
    }
    // Match specs to forward's parameters: by the name in the writer's comment, else by position.
    auto phs = lg.graph->placeholders();
    const std::vector<InputSpec>& sp = *specs;
    std::vector<const InputSpec*> byPh(phs.size(), nullptr);
    bool allNamed = true;
    for (const auto& s : sp) allNamed = allNamed && !s.name.empty();
    if (allNamed) {
        std::map<std::string, const InputSpec*> byName;
        for (const auto& s : sp) byName.emplace(s.name, &s);
        for (size_t k = 0; k < phs.size(); ++k) {
            auto it = byName.find(phs[k]->name());
            if (it != byName.end()) byPh[k] = it->second;
        }
    } else if (sp.size() == phs.size()) {
        for (size_t k = 0; k < phs.size(); ++k) byPh[k] = &sp[k];
    }
    std::string unmatched;
    for (size_t k = 0; k < phs.size(); ++k) {
        if (!byPh[k]) {
            unmatched += (unmatched.empty() ? "" : ", ") + phs[k]->name();
            continue;
        }
        if (!byPh[k]->isSymInt) {
            phs[k]->meta = {byPh[k]->meta};
            phs[k]->metaIsTuple = false;
        }
    }
    if (!unmatched.empty() || sp.size() != phs.size())
        warnings.push_back(fileName + ": load_args describes " + std::to_string(sp.size()) + " inputs for " +
                           std::to_string(phs.size()) + " parameters of forward" +
                           (unmatched.empty() ? std::string() : "; without a spec: " + unmatched));
    if (!unmatched.empty()) {
        lg.inputSpecs = sp;  // as written, so the user can see what is there
        return lg;
    }
    for (size_t k = 0; k < phs.size(); ++k) {
        lg.inputSpecs.push_back(*byPh[k]);
        lg.inputSpecs.back().name = phs[k]->name();
    }
    return lg;
}

Expected<LoadedFile> readRepro(const std::filesystem::path& path) {
    auto text = readTextFile(path);
    if (!text.ok()) return text.error();
    LoadedFile f;
    f.path = path;
    f.format = "repro";
    auto lg = readReproText(*text, path.string(), f.warnings);
    if (!lg.ok()) return lg.error();
    // Inductor's runnable sits in a debug folder whose name says which AOT graph it is.
    if (path.filename() == "fx_graph_runnable.py")
        lg->stage = stageFromDebugFolder(fs::absolute(path).parent_path().filename().string());
    finishGraph(*lg);
    f.graphs.push_back(std::move(lg).value());
    return f;
}

} // namespace fxray
