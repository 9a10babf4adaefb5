#include "import/repro_reader.h"

#include "import/debug_dir_reader.h"
#include "import/fx_text_reader.h"
#include "import/python_expr.h"

#include <charconv>
#include <cstdlib>
#include <map>

namespace fxray {

namespace fs = std::filesystem;

namespace {

/// Largest dimension or stride accepted from a repro (sizes are data, never trusted).
constexpr int64_t kMaxExtent = int64_t(1) << 48;
/// A call as load_args and __init__ lines write it: `reader.tensor(buf0, (4,), dtype=...)` is
/// named "reader.tensor"; a method called on another expression (`torch.randn([16]).cuda()`) is
/// named ".cuda", with that expression as its receiver.
struct Call {
    std::string name;
    const PyExpr* receiver = nullptr;
    std::vector<const PyExpr*> args;
    const PyExpr* expr = nullptr;

    const PyExpr* kw(std::string_view key) const { return expr->kwarg(key); }
    int column() const { return expr->column; }
};

std::optional<Call> asCall(const PyExpr& e) {
    if (e.kind != PyExpr::Kind::Call) return std::nullopt;
    const PyExpr& callee = e.items[0];
    Call c;
    c.expr = &e;
    c.name = callee.dotted();
    if (c.name.empty()) {
        if (callee.kind != PyExpr::Kind::Attr) return std::nullopt;
        c.name = "." + callee.text;
        c.receiver = &callee.items[0];
    }
    for (size_t k = 1; k < e.items.size(); ++k) c.args.push_back(&e.items[k]);
    return c;
}

/// The first int literal in e that int64 cannot hold (sizes are data: refused, never wrapped).
const PyExpr* hugeInt(const PyExpr& e) {
    if (e.kind == PyExpr::Kind::Int && !pyInt(e)) return &e;
    for (const auto& x : e.items)
        if (const PyExpr* h = hugeInt(x)) return h;
    for (const auto& [key, x] : e.kwargs)
        if (const PyExpr* h = hugeInt(x)) return h;
    return nullptr;
}

/// A non-negative int literal no larger than kMaxExtent.
std::optional<int64_t> extent(const PyExpr& e) {
    auto v = pyInt(e);
    if (!v || *v < 0 || *v > kMaxExtent) return std::nullopt;
    return v;
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

std::optional<Device> deviceOf(const PyExpr& e) {
    if (e.kind == PyExpr::Kind::String) return parseDevice(e.text);
    auto v = asCall(e);
    if (v && (v->name == "device" || v->name == "torch.device")) {
        std::string type;
        int index = -1;
        if (!v->args.empty() && v->args[0]->kind == PyExpr::Kind::String) {
            auto d = parseDevice(v->args[0]->text);
            if (!d) return std::nullopt;
            type = d->type;
            index = d->index;
        }
        auto smallIndex = [](const PyExpr* x) -> std::optional<int> {
            auto i = x ? pyInt(*x) : std::nullopt;
            if (!i || *i < -1 || *i > 1 << 20) return std::nullopt;
            return int(*i);
        };
        if (v->args.size() > 1)
            if (auto i = smallIndex(v->args[1])) index = *i;
        if (const PyExpr* t = v->kw("type"); t && t->kind == PyExpr::Kind::String) type = t->text;
        if (auto i = smallIndex(v->kw("index"))) index = *i;
        if (type.empty()) return std::nullopt;
        Device d;
        d.type = type;
        d.index = index;
        return d;
    }
    return std::nullopt;
}

std::optional<DType> dtypeOf(const PyExpr& e) {
    std::string name = e.dotted();
    if (name.empty()) return std::nullopt;
    return dtypeFromTorchName(name);
}

/// Reads a tuple/list of non-negative ints (sizes or strides).
bool intList(const PyExpr& e, std::vector<int64_t>& out) {
    if (e.kind != PyExpr::Kind::Tuple && e.kind != PyExpr::Kind::List) return false;
    for (const auto& x : e.items) {
        auto v = extent(x);
        if (!v) return false;
        out.push_back(*v);
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

Status parseStorage(const Call& call, const std::string& var, const LineCtx& c,
                    std::map<std::string, StorageInfo>& storages) {
    StorageInfo s;
    if (call.args.size() < 2) return lineError(c, call.column(), "reader.storage needs a hash and a byte count");
    const PyExpr& h = *call.args[0];
    if (h.kind == PyExpr::Kind::String)
        s.hash = h.text;
    else if (!h.isName("None"))
        return lineError(c, h.column, "storage hash must be a string or None");
    const PyExpr& n = *call.args[1];
    auto nbytes = extent(n);
    if (!nbytes) return lineError(c, n.column, "storage byte count must be a non-negative integer");
    s.nbytes = *nbytes;
    if (const PyExpr* d = call.kw("device")) {
        auto dev = deviceOf(*d);
        if (!dev) return lineError(c, d->column, "unrecognised device");
        s.device = *dev;
    }
    if (const PyExpr* dt = call.kw("dtype_hint")) {
        auto t = dtypeOf(*dt);
        if (!t) return lineError(c, dt->column, "unknown dtype '" + dt->dotted() + "'");
        s.hint = *t;
    }
    storages[var] = std::move(s);
    return Status::success();
}

Expected<InputSpec> parseTensor(const Call& call, std::string_view comment, const LineCtx& c,
                                const std::map<std::string, StorageInfo>& storages,
                                std::vector<std::string>& warnings) {
    if (call.args.size() < 2) return lineError(c, call.column(), "reader.tensor needs a storage and a shape");
    const PyExpr& buf = *call.args[0];
    if (buf.kind != PyExpr::Kind::Name || buf.isName("None") || pyBool(buf))
        return lineError(c, buf.column, "reader.tensor's first argument must be a storage variable");
    auto it = storages.find(buf.text);
    if (it == storages.end()) return lineError(c, buf.column, "unknown storage '" + buf.text + "'");
    const StorageInfo& st = it->second;
    InputSpec spec;
    TensorMeta& m = spec.meta;
    m.device = st.device;
    m.dtype = DType::Float32;  // the reader's default, not the storage's hint
    if (!intList((*call.args[1]), m.shape))
        return lineError(c, (*call.args[1]).column, "tensor shape must be a tuple of non-negative integers");
    if (call.args.size() > 2) {
        if (!intList((*call.args[2]), m.strides) || m.strides.size() != m.shape.size())
            return lineError(c, (*call.args[2]).column,
                             "tensor stride must be a tuple of non-negative integers, one per dimension");
    } else {
        m.strides = TensorMeta::contiguousStrides(m.shape);
    }
    if (const PyExpr* dt = call.kw("dtype")) {
        auto t = dtypeOf(*dt);
        if (!t) return lineError(c, dt->column, "unknown dtype '" + dt->dotted() + "'");
        m.dtype = *t;
    }
    if (const PyExpr* off = call.kw("storage_offset")) {
        auto v = extent(*off);
        if (!v) return lineError(c, off->column, "storage_offset must be a non-negative integer");
        m.offset = *v;
    }
    if (const PyExpr* rg = call.kw("requires_grad"))
        if (auto b = pyBool(*rg)) spec.requiresGrad = *b;
    int64_t numel = 1;
    for (int64_t s : m.shape) {
        if (s != 0 && numel > kMaxExtent / s)
            return lineError(c, (*call.args[1]).column, "tensor has too many elements");
        numel *= s;
    }
    int64_t bytes = extentBytes(m);
    if (bytes < 0 || bytes > st.nbytes)
        warnings.push_back(where(c) + "tensor extends past its storage '" + buf.text + "' (" +
                           std::to_string(st.nbytes) + " bytes)");
    spec.storageHash = st.hash;
    spec.storageBytes = st.nbytes;
    // The writer puts the placeholder's name in the trailing comment: `)  # arg0_1`.
    size_t end = 0;
    while (end < comment.size() && comment[end] != ' ' && comment[end] != ',') ++end;
    spec.name = std::string(comment.substr(0, end));
    return spec;
}

}  // namespace

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
                auto [code, comment] = splitPythonComment(body);
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
        if (body.rfind("\"\"\"", 0) == 0) {
            inDump = !inDump;
            continue;
        }
        if (inDump) continue;
        auto [code, comment] = splitPythonComment(body);
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
        PySyntaxError err;
        if (!lexPythonLine(code, c.line, int(ind) + 1, toks, err)) return lineError(c, err.column, err.message);
        // `bufN = reader.storage(...)` or a bare `reader.tensor(...)` / `reader.symint(...)`.
        std::string target;
        size_t first = 0;
        if (toks.size() > 2 && toks[0].kind == PyToken::Kind::Name && toks[1].kind == PyToken::Kind::Op &&
            toks[1].text == "=") {
            target = toks[0].text;
            first = 2;
        }
        PyExpr e;
        PyExprParser p(toks, first, toks.size() - 1);
        if (!p.parseOne(e)) return lineError(c, p.error().column, p.error().message);
        if (!p.atEnd()) return lineError(c, p.peek().column, "unexpected text after the call");
        if (const PyExpr* huge = hugeInt(e))
            return lineError(c, huge->column, "integer '" + huge->text + "' out of range");
        auto call = asCall(e);
        if (!call) return lineError(c, e.column, "expected a reader.storage/tensor/symint call in load_args");
        if (call->name == "reader.storage") {
            if (target.empty())
                return lineError(c, call->column(), "reader.storage result must be assigned to a variable");
            auto st = parseStorage(*call, target, c, storages);
            if (!st.ok()) return st.error();
        } else if (call->name == "reader.tensor") {
            auto spec = parseTensor(*call, comment, c, storages, warnings);
            if (!spec.ok()) return spec.error();
            specs.push_back(std::move(spec).value());
        } else if (call->name == "reader.symint") {
            InputSpec spec;
            spec.isSymInt = true;
            auto value = call->args.size() == 1 ? pyInt(*call->args[0]) : std::nullopt;
            if (!value) return lineError(c, call->column(), "reader.symint takes one integer");
            spec.symValue = *value;
            size_t end = 0;
            while (end < comment.size() && comment[end] != ' ' && comment[end] != ',') ++end;
            spec.name = std::string(comment.substr(0, end));
            specs.push_back(std::move(spec));
        } else if (call->name == "reader.const") {
            std::string name =
                !call->args.empty() && call->args[0]->kind == PyExpr::Kind::String ? call->args[0]->text : "?";
            warnings.push_back(where(c) + "input '" + name +
                               "' was filtered out as a constant during compilation; it has no input spec");
        } else {
            // A reader method from a newer PyTorch: keep going, the count check will tell.
            warnings.push_back(where(c) + "unknown load_args call '" + call->name + "' ignored");
        }
    }
    return specs;
}

namespace {

/// Metadata of a tensor built by a factory call such as `torch.randn([16], dtype=torch.float32).cuda()`
/// or `torch.nn.Parameter(torch.randn([16], dtype=..., device="cuda"))`.
std::optional<TensorMeta> factoryMeta(const PyExpr& e) {
    auto v = asCall(e);
    if (!v) return std::nullopt;
    const std::string& name = v->name;
    if (name == "torch.nn.Parameter" || name == "torch.nn.parameter.Parameter" || name == "Parameter")
        return v->args.empty() ? std::nullopt : factoryMeta(*v->args[0]);
    if (v->receiver) {  // method on a tensor: .cuda(), .to(...), .contiguous()
        auto m = factoryMeta(*v->receiver);
        if (!m) return m;
        if (name == ".cuda") {
            m->device = Device{"cuda", 0};
        } else if (name == ".cpu") {
            m->device = Device{};
        } else if (name == ".to") {
            for (const PyExpr* a : v->args) {
                if (auto d = deviceOf(*a)) m->device = *d;
                if (auto t = dtypeOf(*a)) m->dtype = *t;
            }
            if (const PyExpr* d = v->kw("device"))
                if (auto dev = deviceOf(*d)) m->device = *dev;
            if (const PyExpr* t = v->kw("dtype"))
                if (auto dt = dtypeOf(*t)) m->dtype = *dt;
        }
        return m;
    }
    static const char* factories[] = {"torch.randn", "torch.rand", "torch.empty",
                                      "torch.zeros", "torch.ones", "torch.full"};
    bool known = false;
    for (const char* f : factories) known = known || name == f;
    if (!known || v->args.empty()) return std::nullopt;
    TensorMeta m;
    if (!intList(*v->args[0], m.shape)) {
        // torch.randn(2, 3): sizes as separate arguments (not for torch.full)
        if (name == "torch.full") return std::nullopt;
        for (const PyExpr* x : v->args)
            if (auto size = extent(*x))
                m.shape.push_back(*size);
            else
                return std::nullopt;
    }
    m.strides = TensorMeta::contiguousStrides(m.shape);
    if (const PyExpr* t = v->kw("dtype")) {
        auto dt = dtypeOf(*t);
        if (!dt) return std::nullopt;
        m.dtype = *dt;
    }
    if (const PyExpr* d = v->kw("device")) {
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
        auto [code, comment] = splitPythonComment(body);
        (void)comment;
        std::vector<PyToken> toks;
        PySyntaxError err;
        if (!lexPythonLine(code, 0, 1, toks, err)) continue;
        PyExpr v;
        if (toks.size() > 4 && toks[2].kind == PyToken::Kind::Name && toks[3].text == "=" &&
            toks[3].kind == PyToken::Kind::Op) {
            PyExprParser p(toks, 4, toks.size() - 1);
            if (!p.parseAll(v)) continue;
            if (auto m = factoryMeta(v)) out[toks[2].text] = *m;
            continue;
        }
        PyExprParser p(toks);
        if (!p.parseAll(v)) continue;
        auto call = asCall(v);
        if (call && call->name == "self.register_buffer" && call->args.size() >= 2 &&
            call->args[0]->kind == PyExpr::Kind::String)
            if (auto m = factoryMeta(*call->args[1])) out[call->args[0]->text] = *m;
    }
    return out;
}

}  // namespace

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

}  // namespace fxray
