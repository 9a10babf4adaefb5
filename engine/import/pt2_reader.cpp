#include "import/pt2_reader.h"

#include "import/pt_reader.h"
#include "import/zip_archive.h"
#include "ir/op_registry.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace fxray {

using json = nlohmann::json;

std::string_view exportInputKindName(ExportInputSpec::Kind k) {
    switch (k) {
    case ExportInputSpec::Kind::UserInput: return "user_input";
    case ExportInputSpec::Kind::Parameter: return "parameter";
    case ExportInputSpec::Kind::Buffer: return "buffer";
    case ExportInputSpec::Kind::TensorConstant: return "tensor_constant";
    case ExportInputSpec::Kind::CustomObj: return "custom_obj";
    case ExportInputSpec::Kind::Token: return "token";
    case ExportInputSpec::Kind::ConstantInput: return "constant_input";
    }
    return "?";
}

namespace {

constexpr int kSchemaMajor = 8;
constexpr int kMaxGraphDepth = 32;  // nesting of as_graph subgraphs

/// Python keywords and builtins: FX's code generator renames values that would shadow them
/// (`input` prints as `input_1 = input`), so the graph names nodes the same way.
bool isIllegalPyName(std::string_view n) {
    static const std::set<std::string_view> names = {
        "False",     "None",       "True",       "and",      "as",           "assert",     "async",
        "await",     "break",      "class",      "continue", "def",          "del",        "elif",
        "else",      "except",     "finally",    "for",      "from",         "global",     "if",
        "import",    "in",         "is",         "lambda",   "nonlocal",     "not",        "or",
        "pass",      "raise",      "return",     "try",      "while",        "with",       "yield",
        "abs",       "aiter",      "all",        "anext",    "any",          "ascii",      "bin",
        "bool",      "breakpoint", "bytearray",  "bytes",    "callable",     "chr",        "classmethod",
        "compile",   "complex",    "copyright",  "credits",  "delattr",      "dict",       "dir",
        "divmod",    "enumerate",  "eval",       "exec",     "exit",         "filter",     "float",
        "format",    "frozenset",  "getattr",    "globals",  "hasattr",      "hash",       "help",
        "hex",       "id",         "input",      "int",      "isinstance",   "issubclass", "iter",
        "len",       "license",    "list",       "locals",   "map",          "max",        "memoryview",
        "min",       "next",       "object",     "oct",      "open",         "ord",        "pow",
        "print",     "property",   "quit",       "range",    "repr",         "reversed",   "round",
        "set",       "setattr",    "slice",      "sorted",   "staticmethod", "str",        "sum",
        "super",     "tuple",      "type",       "vars",     "zip",          "__import__", "__build_class__",
        "__debug__", "__doc__",    "__loader__", "__name__", "__package__",  "__spec__",   "self",
        "torch",     "device",     "inf",        "nan",      "NoneType",     "fx_pytree",  "pytree",
    };
    return names.count(n) > 0;
}

/// FX's stack-trace summary: the innermost `File "f", line N, in fn` frame and its code line.
std::string stackSummary(const std::string& trace) {
    std::vector<std::string> lines;
    std::istringstream is(trace);
    for (std::string l; std::getline(is, l);) lines.push_back(l);
    auto strip = [](std::string s) {
        size_t b = s.find_first_not_of(" \t\r");
        size_t e = s.find_last_not_of(" \t\r");
        return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    for (size_t idx = lines.size() >= 2 ? lines.size() - 1 : 0; idx-- > 0;) {
        std::string l = strip(lines[idx]);
        if (l.rfind("File \"", 0) != 0) continue;
        size_t q = l.find("\", line ", 6);
        if (q == std::string::npos) continue;
        size_t in = l.find(", in ", q + 8);
        if (in == std::string::npos) continue;
        std::string lineno = l.substr(q + 8, in - q - 8);
        if (lineno.empty() || lineno.find_first_not_of("0123456789") != std::string::npos) continue;
        return "File: " + l.substr(6, q - 6) + ":" + lineno + " in " + l.substr(in + 5) +
               ", code: " + strip(lines[idx + 1]);
    }
    return {};
}

/// Builds graphs from the serialized JSON. Throws nlohmann exceptions on wrong types; the entry
/// point turns them into Diagnostics.
class GraphBuilder {
public:
    explicit GraphBuilder(std::string what) : m_what(std::move(what)) {}

    std::optional<Diagnostic> error;

    bool build(const json& gj, Graph& g, int depth) {
        if (depth > kMaxGraphDepth) return fail("subgraphs nest deeper than " + std::to_string(kMaxGraphDepth));
        g.printStrides = false;  // the export form prints sizes and dtypes only
        g.printDevices = false;
        g.sourceFile = m_what;
        Scope sc;
        sc.g = &g;
        if (gj.contains("tensor_values"))
            for (const auto& [k, v] : gj.at("tensor_values").items()) {
                sc.metas[k] = parseMeta(v, sc.metaError);
                const TensorMeta& m = sc.metas[k];
                if (m.shape.size() > 64) return fail("value '" + k + "' has more than 64 dimensions");
                if (!sc.metaError.empty()) return fail("value '" + k + "' " + sc.metaError);
                for (size_t d = 0; d < m.shape.size(); ++d)
                    if (!m.isSymbolicDim(d) && m.shape[d] < 0) return fail("value '" + k + "' has a negative size");
            }
        if (gj.contains("sym_int_values"))
            for (const auto& [k, v] : gj.at("sym_int_values").items()) sc.syms[k] = symText(v);
        for (const auto& in : gj.at("inputs")) {
            std::string name = valueName(in);
            if (name.empty()) return fail("graph input without a name: " + in.dump());
            Node* ph = g.append(NodeKind::Placeholder, legalName(g, name), name);
            attachValue(sc, ph, name);
            sc.byName[name] = ph;
        }
        for (const auto& nj : gj.at("nodes"))
            if (!buildNode(nj, sc, depth)) return false;
        Node* out = g.append(NodeKind::Output, g.uniqueName("output"), "output");
        std::vector<Argument> outs;
        for (const auto& o : gj.at("outputs")) {
            Argument a;
            if (!convert(o, sc, false, depth, "", a)) return false;
            outs.push_back(std::move(a));
        }
        if (gj.value("is_single_tensor_return", false) && outs.size() == 1)
            out->args.push_back(outs[0]);
        else
            out->args.push_back(Argument::ofList(std::move(outs), true));
        return true;
    }

private:
    struct Scope {
        Graph* g = nullptr;
        std::unordered_map<std::string, TensorMeta> metas;
        std::unordered_map<std::string, std::string> syms;
        std::unordered_map<std::string, Node*> byName;
        std::string metaError;  ///< the last parseMeta's complaint
    };

    bool fail(std::string msg, const std::string& node = {}) {
        Diagnostic d = makeError(std::move(msg));
        d.file = m_what;
        d.node = node;
        error = std::move(d);
        return false;
    }

    static std::string legalName(const Graph& g, const std::string& name) {
        if (!isIllegalPyName(name) && !g.find(name)) return name;
        for (int k = 1;; ++k) {
            std::string c = name + "_" + std::to_string(k);
            if (!isIllegalPyName(c) && !g.find(c)) return c;
        }
    }

    /// Name of a graph input/output value (`as_tensor`, `as_sym_int`, `as_custom_obj`, ...).
    static std::string valueName(const json& a) {
        if (!a.is_object() || a.size() != 1) return {};
        const std::string& k = a.begin().key();
        const json& v = a.begin().value();
        if (k == "as_tensor" || k == "as_custom_obj" || k == "as_token") return v.value("name", "");
        if ((k == "as_sym_int" || k == "as_sym_bool" || k == "as_sym_float") && v.contains("as_name"))
            return v.at("as_name").get<std::string>();
        return {};
    }

    static bool symInt(const json& s, int64_t& value, std::string& text) {
        if (s.contains("as_int")) {
            value = s.at("as_int").get<int64_t>();
            text.clear();
            return true;
        }
        if (s.contains("as_expr")) {
            value = -1;
            text = s.at("as_expr").at("expr_str").get<std::string>();
            return true;
        }
        return false;
    }
    /// The integer hint of an `as_expr` size (`{"hint": {"as_int": 8}}`), or null.
    static const json* exprHint(const json& s) {
        if (!s.contains("as_expr")) return nullptr;
        const json& e = s.at("as_expr");
        if (!e.is_object() || !e.contains("hint") || !e.at("hint").is_object()) return nullptr;
        const json& h = e.at("hint");
        if (!h.contains("as_int") || !h.at("as_int").is_number_integer()) return nullptr;
        return &h.at("as_int");
    }
    static std::string symText(const json& s) {
        int64_t v = 0;
        std::string t;
        if (!symInt(s, v, t)) return "?";
        return t.empty() ? std::to_string(v) : t;
    }

    /// A tensor's metadata; `error` says which symbolic size does not parse ("" when all do).
    static TensorMeta parseMeta(const json& tm, std::string& error) {
        TensorMeta m;
        m.dtype = dtypeFromExportEnum(tm.at("dtype").get<int>()).value_or(DType::Float32);
        bool symbolic = false;
        std::vector<std::pair<size_t, SymInt>> symSizes;
        for (const auto& s : tm.at("sizes")) {
            int64_t v = 0;
            std::string t;
            symInt(s, v, t);
            m.shape.push_back(v);
            if (t.empty()) continue;
            // Parsed here, once; the export's hint (its example's size) kept with it.
            auto e = SymInt::parse(t);
            if (!e.ok()) {
                if (error.empty()) error = "size " + std::to_string(m.shape.size() - 1) + ": " + e.error().message;
                continue;
            }
            SymInt sz = *e;
            if (const json* h = exprHint(s)) sz = sz.withHint(h->get<int64_t>());
            symSizes.emplace_back(m.shape.size() - 1, sz);
        }
        for (const auto& [d, sz] : symSizes) {
            m.setSize(d, sz);
            symbolic = symbolic || sz.isSymbolic();
        }
        bool stridesSym = false;
        if (tm.contains("strides"))
            for (const auto& s : tm.at("strides")) {
                int64_t v = 0;
                std::string t;
                symInt(s, v, t);
                stridesSym = stridesSym || !t.empty();
                m.strides.push_back(v);
            }
        if (stridesSym || m.strides.size() != m.shape.size()) {
            m.strides = symbolic ? std::vector<int64_t>{} : TensorMeta::contiguousStrides(m.shape);
            m.stridesKnown = false;
        }
        if (tm.contains("storage_offset")) {
            int64_t v = 0;
            std::string t;
            const auto& so = tm.at("storage_offset");
            if (so.is_number_integer())
                m.offset = so.get<int64_t>();
            else if (symInt(so, v, t) && t.empty())
                m.offset = v;
        }
        if (tm.contains("device")) {
            const auto& d = tm.at("device");
            m.device.type = d.value("type", "cpu");
            m.device.index = d.contains("index") && d.at("index").is_number_integer() ? d.at("index").get<int>() : -1;
        }
        return m;
    }

    void attachValue(Scope& sc, Node* n, const std::string& valueName) {
        if (auto it = sc.metas.find(valueName); it != sc.metas.end()) {
            n->meta = {it->second};
            n->annotated = true;
        } else if (auto s = sc.syms.find(valueName); s != sc.syms.end()) {
            n->annotationText = "Sym(" + s->second + ")";
        }
    }

    Node* ref(Scope& sc, const std::string& name) {
        auto it = sc.byName.find(name);
        return it == sc.byName.end() ? nullptr : it->second;
    }

    static double jsonFloat(const json& v) {
        if (v.is_string()) {  // non-finite floats are written as strings
            const auto s = v.get<std::string>();
            if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
            if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
            return std::numeric_limits<double>::quiet_NaN();
        }
        return v.get<double>();
    }

    /// One argument union (`{"as_int": 3}`) to an Argument. `hop`: sequences are tuples, as a
    /// higher-order op's operands are. `comment` is given to get_attr nodes of subgraphs.
    bool convert(const json& aj, Scope& sc, bool hop, int depth, const std::string& comment, Argument& out) {
        if (!aj.is_object() || aj.size() != 1)
            return fail("argument is not a one-key union: " + aj.dump().substr(0, 200));
        const std::string& k = aj.begin().key();
        const json& v = aj.begin().value();
        auto nodeRef = [&](const std::string& name, Argument& a) {
            Node* n = ref(sc, name);
            if (!n) return fail("reference to unknown value '" + name + "'");
            a = Argument::ofNode(n);
            return true;
        };
        if (k == "as_none") {
            out = Argument::none();
            return true;
        }
        if (k == "as_tensor") return nodeRef(v.at("name").get<std::string>(), out);
        if (k == "as_int") {
            out = Argument::ofInt(v.get<int64_t>());
            return true;
        }
        if (k == "as_float") {
            out = Argument::ofFloat(jsonFloat(v));
            return true;
        }
        if (k == "as_bool") {
            out = Argument::ofBool(v.get<bool>());
            return true;
        }
        if (k == "as_string") {
            out = Argument::ofString(v.get<std::string>());
            return true;
        }
        if (k == "as_scalar_type") {
            auto dt = dtypeFromExportEnum(v.get<int>());
            if (!dt) return fail("unknown scalar type " + v.dump());
            out = Argument::ofDType(*dt);
            return true;
        }
        if (k == "as_layout") {
            int l = v.get<int>();
            if (l != 7 && l != 1) return fail("unsupported layout " + std::to_string(l));
            out = Argument::ofLayout(l == 7 ? Layout::Strided : Layout::SparseCoo);
            return true;
        }
        if (k == "as_memory_format") {
            static const MemoryFormat fmts[] = {MemoryFormat::Contiguous, MemoryFormat::Contiguous,
                                                MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d,
                                                MemoryFormat::Preserve};
            int f = v.get<int>();
            if (f < 0 || f > 4) return fail("unknown memory format " + std::to_string(f));
            out = Argument::ofMemoryFormat(fmts[f]);
            return true;
        }
        if (k == "as_device") {
            Device d;
            d.type = v.at("type").get<std::string>();
            d.index = v.contains("index") && v.at("index").is_number_integer() ? v.at("index").get<int>() : -1;
            out = Argument::ofDevice(d);
            return true;
        }
        if (k == "as_sym_int" || k == "as_sym_bool" || k == "as_sym_float") {
            if (v.contains("as_name")) return nodeRef(v.at("as_name").get<std::string>(), out);
            if (v.contains("as_int")) {
                out = Argument::ofInt(v.at("as_int").get<int64_t>());
                return true;
            }
            if (v.contains("as_bool")) {
                out = Argument::ofBool(v.at("as_bool").get<bool>());
                return true;
            }
            if (v.contains("as_float")) {
                out = Argument::ofFloat(jsonFloat(v.at("as_float")));
                return true;
            }
            return fail("unsupported symbolic argument " + v.dump().substr(0, 200));
        }
        if (k == "as_custom_obj") {
            if (Node* n = ref(sc, v.at("name").get<std::string>())) {
                out = Argument::ofNode(n);
                return true;
            }
            out = Argument::ofString(v.at("name").get<std::string>());
            return true;
        }
        if (k == "as_operator") {
            out = Argument::ofString(v.get<std::string>());
            return true;
        }
        if (k == "as_graph") {
            std::string name = v.at("name").get<std::string>();
            Graph& g = *sc.g;
            if (g.subgraph(name)) return fail("subgraph '" + name + "' defined twice");
            Graph* sub = g.addSubgraph(name);
            sub->className = name;
            if (!build(v.at("graph"), *sub, depth + 1)) return false;
            Node* ga = g.append(NodeKind::GetAttr, legalName(g, name), name);
            ga->sourceComment = comment;
            out = Argument::ofNode(ga);
            return true;
        }
        // Lists of one kind.
        if (!v.is_array()) return fail("unsupported argument kind '" + k + "'");
        std::vector<Argument> items;
        for (const auto& x : v) {
            Argument a;
            if (k == "as_tensors") {
                if (!nodeRef(x.at("name").get<std::string>(), a)) return false;
            } else if (k == "as_ints")
                a = Argument::ofInt(x.get<int64_t>());
            else if (k == "as_floats")
                a = Argument::ofFloat(jsonFloat(x));
            else if (k == "as_bools")
                a = Argument::ofBool(x.get<bool>());
            else if (k == "as_strings")
                a = Argument::ofString(x.get<std::string>());
            else if (k == "as_sym_ints" || k == "as_sym_bools" || k == "as_sym_floats" || k == "as_optional_tensors") {
                // each element is itself a one-key union
                if (x.contains("as_none"))
                    a = Argument::none();
                else if (x.contains("as_tensor")) {
                    if (!nodeRef(x.at("as_tensor").at("name").get<std::string>(), a)) return false;
                } else if (x.contains("as_name")) {
                    if (!nodeRef(x.at("as_name").get<std::string>(), a)) return false;
                } else if (x.contains("as_int"))
                    a = Argument::ofInt(x.at("as_int").get<int64_t>());
                else if (x.contains("as_bool"))
                    a = Argument::ofBool(x.at("as_bool").get<bool>());
                else if (x.contains("as_float"))
                    a = Argument::ofFloat(jsonFloat(x.at("as_float")));
                else
                    return fail("unsupported element in '" + k + "': " + x.dump().substr(0, 200));
            } else
                return fail("unsupported argument kind '" + k + "'");
            items.push_back(std::move(a));
        }
        out = Argument::ofList(std::move(items), hop);
        return true;
    }

    Node* getitem(Scope& sc, Node* from, int64_t idx, const std::string& valueName, const std::string& comment) {
        Graph& g = *sc.g;
        Node* gi = g.append(NodeKind::CallFunction, legalName(g, valueName), "operator.getitem");
        gi->args = {Argument::ofNode(from), Argument::ofInt(idx)};
        gi->sourceComment = comment;
        attachValue(sc, gi, valueName);
        sc.byName[valueName] = gi;
        return gi;
    }

    bool buildNode(const json& nj, Scope& sc, int depth) {
        Graph& g = *sc.g;
        const std::string target = nj.at("target").get<std::string>();
        const bool hop = target.rfind("torch.ops.higher_order.", 0) == 0;
        std::string comment;
        if (nj.contains("metadata") && nj.at("metadata").contains("stack_trace"))
            comment = stackSummary(nj.at("metadata").at("stack_trace").get<std::string>());
        const OpInfo* op = nullptr;
        if (target.rfind("torch.ops.", 0) == 0) op = OpRegistry::instance().find(target.substr(10));

        std::vector<Argument> args;
        std::vector<std::pair<std::string, Argument>> kwargs;
        for (const auto& in : nj.at("inputs")) {
            std::string argName = in.value("name", "");
            Argument a;
            if (!convert(in.at("arg"), sc, hop, depth, comment, a)) {
                if (error && error->node.empty()) error->node = nj.value("name", target);
                return false;
            }
            // ArgumentKind: 1 positional, 2 keyword. Without it, keyword-only schema arguments
            // (and, for ops without a schema, named ones of higher-order ops) are keywords.
            int kind = in.value("kind", 0);
            bool keyword = kind == 2;
            if (kind == 0 && !argName.empty()) {
                if (op) {
                    int idx = op->schema.indexOf(argName);
                    keyword = idx >= 0 && op->schema.args[static_cast<size_t>(idx)].kwOnly;
                } else {
                    keyword = hop;
                }
            }
            if (keyword)
                kwargs.emplace_back(argName, std::move(a));
            else
                args.push_back(std::move(a));
        }

        const json& outs = nj.at("outputs");
        // A higher-order op returns a list (unpacked by getitem) unless the file says it returns
        // one tensor.
        const bool hopSingle = hop && nj.contains("is_hop_single_tensor_return") &&
                               nj.at("is_hop_single_tensor_return").is_boolean() &&
                               nj.at("is_hop_single_tensor_return").get<bool>();
        const bool single = outs.size() == 1 && (!hop || hopSingle) &&
                            (outs[0].contains("as_tensor") || outs[0].contains("as_sym_int") ||
                             outs[0].contains("as_sym_bool") || outs[0].contains("as_sym_float"));
        std::string name;
        if (single) name = valueName(outs[0]);
        if (name.empty()) name = nj.value("name", "");
        if (name.empty()) {
            // Archives without node names: FX names a node after its op and overload.
            std::string t = target.rfind("torch.ops.", 0) == 0 ? target.substr(target.find('.', 10) + 1) : target;
            for (auto& c : t)
                if (c == '.') c = '_';
            name = t;
        }
        Node* n = g.append(NodeKind::CallFunction, legalName(g, name), target);
        n->args = std::move(args);
        n->kwargs = std::move(kwargs);
        n->sourceComment = comment;
        if (single) {
            attachValue(sc, n, name);
            sc.byName[name] = n;
            return true;
        }
        if (outs.empty()) return true;
        // Several results: FX unpacks each with operator.getitem.
        n->metaIsTuple = true;
        const json* list = &outs;
        if (outs.size() == 1 && outs[0].contains("as_tensors")) list = &outs[0].at("as_tensors");
        int64_t idx = 0;
        for (const auto& o : *list) {
            std::string vn = o.contains("name") && o.size() == 1 ? o.at("name").get<std::string>() : valueName(o);
            if (!vn.empty()) {
                Node* gi = getitem(sc, n, idx, vn, comment);
                n->meta.push_back(gi->meta.empty() ? TensorMeta{} : gi->meta[0]);
            } else if (o.contains("as_tensors")) {
                Node* inner = g.append(NodeKind::CallFunction, legalName(g, "getitem"), "operator.getitem");
                inner->args = {Argument::ofNode(n), Argument::ofInt(idx)};
                inner->sourceComment = comment;
                inner->metaIsTuple = true;
                int64_t j = 0;
                for (const auto& e : o.at("as_tensors")) {
                    Node* gi = getitem(sc, inner, j++, e.at("name").get<std::string>(), comment);
                    inner->meta.push_back(gi->meta.empty() ? TensorMeta{} : gi->meta[0]);
                }
                n->meta.push_back(TensorMeta{});
            } else {
                n->meta.push_back(TensorMeta{});  // as_none and constants: a slot FX never unpacks
            }
            ++idx;
        }
        return true;
    }

    std::string m_what;
};

Diagnostic jsonError(const std::string& what, const std::exception& e) {
    Diagnostic d = makeError(std::string("malformed exported program: ") + e.what());
    d.file = what;
    return d;
}

void readSignature(const json& sj, ExportSignature& sig, const Graph& g) {
    auto phName = [&](const std::string& raw) {
        for (Node* p : g.placeholders())
            if (p->target() == raw) return p->name();
        return raw;
    };
    using Kd = ExportInputSpec::Kind;
    for (const auto& s : sj.value("input_specs", json::array())) {
        if (!s.is_object() || s.size() != 1) continue;
        const std::string& k = s.begin().key();
        const json& v = s.begin().value();
        ExportInputSpec in;
        std::string raw;
        if (k == "user_input") {
            in.kind = Kd::UserInput;
            const auto& a = v.at("arg");
            if (a.contains("as_tensor"))
                raw = a.at("as_tensor").value("name", "");
            else if (a.contains("as_sym_int") && a.at("as_sym_int").contains("as_name"))
                raw = a.at("as_sym_int").at("as_name").get<std::string>();
        } else if (k == "parameter") {
            in.kind = Kd::Parameter;
            raw = v.at("arg").value("name", "");
            in.target = v.value("parameter_name", "");
        } else if (k == "buffer") {
            in.kind = Kd::Buffer;
            raw = v.at("arg").value("name", "");
            in.target = v.value("buffer_name", "");
            in.persistent = v.value("persistent", true);
        } else if (k == "tensor_constant") {
            in.kind = Kd::TensorConstant;
            raw = v.at("arg").value("name", "");
            in.target = v.value("tensor_constant_name", "");
        } else if (k == "custom_obj") {
            in.kind = Kd::CustomObj;
            raw = v.at("arg").value("name", "");
            in.target = v.value("custom_obj_name", "");
        } else if (k == "token") {
            in.kind = Kd::Token;
            raw = v.at("arg").value("name", "");
        } else if (k == "constant_input") {
            in.kind = Kd::ConstantInput;
            raw = v.value("name", "");
        } else {
            continue;  // a kind newer than this reader: keep going
        }
        in.placeholder = phName(raw);
        sig.inputs.push_back(std::move(in));
    }
    for (const auto& s : sj.value("output_specs", json::array())) {
        if (!s.is_object() || s.size() != 1) continue;
        const std::string& k = s.begin().key();
        const json& v = s.begin().value();
        ExportOutputSpec o;
        o.kind = k;
        if (v.contains("arg")) {
            const auto& a = v.at("arg");
            if (a.contains("as_tensor"))
                o.name = a.at("as_tensor").value("name", "");
            else if (a.contains("name"))
                o.name = a.value("name", "");
        }
        for (const char* t : {"buffer_name", "parameter_name", "user_input_name"})
            if (v.contains(t)) o.target = v.at(t).get<std::string>();
        sig.outputs.push_back(std::move(o));
    }
}

}  // namespace

Expected<std::unique_ptr<Graph>> readExportedProgramJson(std::string_view text, const std::string& what,
                                                         Pt2Model* info) {
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        Diagnostic d = makeError("invalid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
        d.file = what;
        return d;
    } catch (const json::exception& e) {  // e.g. a number that overflows a double
        Diagnostic d = makeError(std::string("invalid JSON: ") + e.what());
        d.file = what;
        return d;
    }
    try {
        if (!j.is_object() || !j.contains("graph_module")) {
            Diagnostic d = makeError("not a serialized ExportedProgram (no 'graph_module')");
            d.file = what;
            return d;
        }
        if (!j.contains("schema_version")) {
            Diagnostic d = makeError("exported program has no schema_version");
            d.file = what;
            return d;
        }
        int major = j.at("schema_version").at("major").get<int>();
        int minor = j.at("schema_version").value("minor", 0);
        if (major != kSchemaMajor) {
            Diagnostic d =
                makeError("unsupported torch.export schema version " + std::to_string(major) + "." +
                          std::to_string(minor) + " (fxray reads major version " + std::to_string(kSchemaMajor) + ")");
            d.file = what;
            return d;
        }
        auto g = std::make_unique<Graph>();
        GraphBuilder b(what);
        if (!b.build(j.at("graph_module").at("graph"), *g, 0)) return *b.error;
        if (info) {
            info->schemaMajor = major;
            info->schemaMinor = minor;
            info->torchVersion = j.value("torch_version", "");
            info->signature = {};
            if (j.at("graph_module").contains("signature"))
                readSignature(j.at("graph_module").at("signature"), info->signature, *g);
        }
        return g;
    } catch (const json::exception& e) {
        return jsonError(what, e);
    }
}

Expected<std::vector<Value>> completeInputs(const Graph& g, const std::vector<Value>& userInputs) {
    std::vector<Value> out;
    size_t next = 0;
    for (Node* p : g.placeholders()) {
        if (auto it = g.constants.find(p->name()); it != g.constants.end()) {
            out.push_back(Value::ofTensor(it->second));
            continue;
        }
        if (next >= userInputs.size())
            return makeError("graph needs more inputs than the " + std::to_string(userInputs.size()) +
                             " given (no value for placeholder '" + p->name() + "')");
        out.push_back(userInputs[next++]);
    }
    if (next != userInputs.size())
        return makeError(std::to_string(userInputs.size()) + " inputs given, the graph takes " + std::to_string(next));
    return out;
}

namespace {

/// An extracted archive's root folder: it holds the program JSON.
bool hasProgram(const std::filesystem::path& d) {
    std::error_code ec;
    return std::filesystem::is_directory(d / "models", ec) ||
           std::filesystem::exists(d / "serialized_exported_program.json", ec);
}

/// Members of an archive, from the zip itself or from a folder it was extracted to. Paths are
/// relative to the archive's root folder, with '/' separators.
class Pt2Source {
public:
    static Expected<Pt2Source> open(const std::filesystem::path& path) {
        Pt2Source s;
        s.m_path = path;
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) {
            // The folder itself, or one that holds the archive's root folder.
            std::filesystem::path root = path;
            if (!hasProgram(root)) {
                for (const auto& e : std::filesystem::directory_iterator(path, ec))
                    if (e.is_directory() && hasProgram(e.path())) {
                        root = e.path();
                        break;
                    }
            }
            if (!hasProgram(root))
                return s.error("folder holds no exported program (models/*.json or serialized_exported_program.json)");
            s.m_dir = root;
            size_t count = 0;
            for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
                 it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
                if (ec) break;
                if (++count > 100000) return s.error("folder has too many files to be an export archive");
                if (it->is_regular_file())
                    s.m_members.push_back(std::filesystem::relative(it->path(), root).generic_string());
            }
            return s;
        }
        auto zip = ZipArchive::open(path);
        if (!zip.ok()) return zip.error();
        s.m_zip = std::make_unique<ZipArchive>(std::move(zip).value());
        std::string root = s.m_zip->rootFolder();
        s.m_prefix = root.empty() ? std::string() : root + "/";
        for (const auto& m : s.m_zip->members())
            if (!m.empty() && m.back() != '/' && m.compare(0, s.m_prefix.size(), s.m_prefix) == 0)
                s.m_members.push_back(m.substr(s.m_prefix.size()));
        return s;
    }

    const std::vector<std::string>& members() const { return m_members; }
    bool has(const std::string& rel) const {
        return std::find(m_members.begin(), m_members.end(), rel) != m_members.end();
    }
    std::string describe(const std::string& rel) const { return m_path.string() + ":" + m_prefix + rel; }
    Diagnostic error(std::string msg) const {
        Diagnostic d = makeError(std::move(msg));
        d.file = m_path.string();
        return d;
    }

    Expected<std::string> read(const std::string& rel, uint64_t cap = ZipArchive::kDefaultMaxMemberBytes) const {
        if (m_zip) return m_zip->read(m_prefix + rel, cap);
        std::filesystem::path p = m_dir / rel;
        std::error_code ec;
        uint64_t size = std::filesystem::file_size(p, ec);
        Diagnostic d = makeError("");
        d.file = p.string();
        if (ec) {
            d.message = "cannot read: " + ec.message();
            return d;
        }
        if (size > cap) {
            d.message = "file of " + std::to_string(size) + " bytes exceeds the limit of " + std::to_string(cap);
            return d;
        }
        std::ifstream f(p, std::ios::binary);
        std::string out(static_cast<size_t>(size), '\0');
        if (!f.read(out.data(), static_cast<std::streamsize>(size))) {
            d.message = "cannot read file";
            return d;
        }
        return out;
    }

    /// A `torch.save` file stored as a member.
    Expected<PtContents> readPt(const std::string& rel) const {
        auto bytes = read(rel);
        if (!bytes.ok()) return bytes.error();
        auto zip = ZipArchive::openBuffer(std::move(bytes).value(), describe(rel));
        if (!zip.ok()) return zip.error();
        return readPtContents(*zip);
    }

private:
    std::filesystem::path m_path;
    std::filesystem::path m_dir;
    std::unique_ptr<ZipArchive> m_zip;
    std::string m_prefix;
    std::vector<std::string> m_members;
};

/// Reads the tensors named in a `<model>_weights_config.json` / `_constants_config.json`:
/// fqn -> {path_name, use_pickle, tensor_meta}. Members that are absent are skipped (large
/// models are saved without them); present but inconsistent ones are errors.
Status readTensorConfig(const Pt2Source& src, const std::string& dir, const std::string& configName,
                        std::map<std::string, Tensor>& out) {
    const std::string cfgPath = dir + configName;
    if (!src.has(cfgPath)) return Status::success();
    auto text = src.read(cfgPath, 256u << 20);
    if (!text.ok()) return text.error();
    const std::string what = src.describe(cfgPath);
    auto bad = [&](const std::string& fqn, const std::string& msg) {
        Diagnostic d = makeError("'" + fqn + "': " + msg);
        d.file = what;
        return Status(d);
    };
    try {
        json j = json::parse(*text);
        std::map<std::string, std::shared_ptr<Storage>> loaded;
        for (const auto& [fqn, e] : j.at("config").items()) {
            const std::string member = dir + e.at("path_name").get<std::string>();
            if (!src.has(member)) continue;
            if (e.value("use_pickle", false)) {
                auto pt = src.readPt(member);
                if (!pt.ok()) return pt.error();
                if (const Tensor* t = pt->tensorOf(pt->root())) out[fqn] = *t;
                continue;
            }
            const json& tmj = e.at("tensor_meta");
            TensorMeta m;
            m.dtype = dtypeFromExportEnum(tmj.at("dtype").get<int>()).value_or(DType::Float32);
            const json& sizes = tmj.at("sizes");
            const json& strides = tmj.at("strides");
            if (sizes.size() != strides.size() || sizes.size() > 64)
                return bad(fqn, "sizes and strides differ in length");
            int64_t extent = 0, numel = 1;
            for (size_t k = 0; k < sizes.size(); ++k) {
                if (!sizes[k].contains("as_int") || !strides[k].contains("as_int"))
                    return bad(fqn, "symbolic weight shape");
                int64_t sz = sizes[k].at("as_int").get<int64_t>(), st = strides[k].at("as_int").get<int64_t>();
                if (sz < 0 || st < 0 || st > (int64_t(1) << 40) || (sz > 0 && numel > (int64_t(1) << 40) / sz))
                    return bad(fqn, "impossible size or stride");
                m.shape.push_back(sz);
                m.strides.push_back(st);
                numel *= sz;
                if (sz > 0) extent += (sz - 1) * st;
            }
            const json& so = tmj.value("storage_offset", json::object());
            m.offset = so.is_object() ? so.value("as_int", int64_t(0)) : so.get<int64_t>();
            if (m.offset < 0 || m.offset > (int64_t(1) << 40)) return bad(fqn, "impossible storage offset");
            if (tmj.contains("device")) {
                m.device.type = tmj.at("device").value("type", "cpu");
                const json& idx = tmj.at("device").value("index", json());
                m.device.index = idx.is_number_integer() ? idx.get<int>() : -1;
            }
            const uint64_t item = static_cast<uint64_t>(dtypeItemSize(m.dtype));
            const uint64_t need = numel == 0 ? 0 : static_cast<uint64_t>(m.offset + extent + 1) * item;
            auto& st = loaded[member];
            if (!st) {
                auto bytes = src.read(member);
                if (!bytes.ok()) return bytes.error();
                st = std::make_shared<Storage>(bytes->size());
                if (!bytes->empty()) std::memcpy(st->data(), bytes->data(), bytes->size());
            }
            if (st->nbytes() < need)
                return bad(fqn, "needs " + std::to_string(need) + " bytes, '" + member + "' holds " +
                                    std::to_string(st->nbytes()));
            Tensor t;
            t.meta = std::move(m);
            t.storage = st;
            out[fqn] = std::move(t);
        }
    } catch (const json::exception& e) {
        return jsonError(what, e);
    }
    return Status::success();
}

/// Pytree leaves of a value, in order (what torch.export flattens positional inputs into).
void tensorLeaves(const PtContents& pt, const PickleValue* v, std::vector<Tensor>& out, int depth) {
    if (!v || depth > 64) return;
    if (const Tensor* t = pt.tensorOf(v)) {
        out.push_back(*t);
        return;
    }
    for (const PickleValue* x : v->items) tensorLeaves(pt, x, out, depth + 1);
    for (const auto& e : v->entries) tensorLeaves(pt, e.second, out, depth + 1);
}

}  // namespace

bool isPt2Folder(const std::filesystem::path& dir) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) return false;
    if (hasProgram(dir)) return true;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.is_directory() && hasProgram(e.path()) && std::filesystem::exists(e.path() / "data", ec)) return true;
    return false;
}

Expected<Pt2Archive> readPt2Archive(const std::filesystem::path& path) {
    auto srcE = Pt2Source::open(path);
    if (!srcE.ok()) return srcE.error();
    const Pt2Source& src = *srcE;
    Pt2Archive ar;
    ar.file.path = path;
    ar.file.format = "pt2";

    if (src.has("archive_format")) {
        auto fmt = src.read("archive_format", 64);
        if (!fmt.ok()) return fmt.error();
        if (*fmt != "pt2") return src.error("archive_format is '" + *fmt + "', not 'pt2'");
    }

    // (model name, program member, state dict source)
    struct Entry {
        std::string name, json;
        bool legacy;
    };
    std::vector<Entry> entries;
    for (const auto& m : src.members())
        if (m.rfind("models/", 0) == 0 && m.size() > 12 && m.compare(m.size() - 5, 5, ".json") == 0 &&
            m.find('/', 7) == std::string::npos)
            entries.push_back({m.substr(7, m.size() - 12), m, false});
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
    if (entries.empty() && src.has("serialized_exported_program.json"))
        entries.push_back({"model", "serialized_exported_program.json", true});
    if (entries.empty())
        return src.error("archive holds no exported program (models/*.json or serialized_exported_program.json)");

    for (const auto& e : entries) {
        auto text = src.read(e.json, 1u << 30);
        if (!text.ok()) return text.error();
        Pt2Model model;
        model.name = e.name;
        auto g = readExportedProgramJson(*text, src.describe(e.json), &model);
        if (!g.ok()) return g.error();
        LoadedGraph lg;
        lg.id = e.name;
        lg.stage = "export_graph";
        lg.graph = std::move(g).value();

        // Weights and constants by fqn.
        std::map<std::string, Tensor> byFqn;
        if (e.legacy) {
            for (const char* f : {"serialized_state_dict.pt", "serialized_constants.pt"}) {
                if (!src.has(f)) continue;
                auto pt = src.readPt(f);
                if (!pt.ok()) return pt.error();
                for (auto& nt : flattenTensors(*pt, pt->root())) byFqn[nt.name] = nt.tensor;
            }
        } else {
            for (const char* kind : {"weights", "constants"}) {
                const std::string dir = std::string("data/") + kind + "/";
                if (auto s = readTensorConfig(src, dir, e.name + "_" + kind + "_config.json", byFqn); !s.ok())
                    return s.error();
            }
        }
        int want = 0, have = 0;
        for (auto& in : model.signature.inputs) {
            using Kd = ExportInputSpec::Kind;
            if (in.kind != Kd::Parameter && in.kind != Kd::Buffer && in.kind != Kd::TensorConstant) continue;
            ++want;
            auto it = byFqn.find(in.target);
            if (it == byFqn.end()) continue;
            lg.graph->constants[in.placeholder] = it->second;
            in.hasValue = true;
            ++have;
        }
        if (want > 0 && have == 0)
            lg.notes.push_back("the archive holds no weight data: " + std::to_string(want) +
                               " parameters/buffers/constants are placeholders without values");
        else if (have < want)
            lg.notes.push_back(std::to_string(want - have) + " of " + std::to_string(want) +
                               " parameters/buffers/constants have no data in the archive");
        else if (want > 0)
            lg.notes.push_back(std::to_string(have) + " parameters/buffers/constants attached from the archive");

        const std::string sample = e.legacy ? "serialized_example_inputs.pt" : "data/sample_inputs/" + e.name + ".pt";
        if (src.has(sample)) {
            auto pt = src.readPt(sample);
            if (!pt.ok()) return pt.error();
            // (args, kwargs): the positional leaves feed the user inputs.
            const PickleValue* root = pt->root();
            const bool argsKwargs = root && root->kind == PickleValue::Kind::Tuple && root->items.size() == 2;
            const PickleValue* args = argsKwargs ? root->items[0] : root;
            tensorLeaves(*pt, args, model.sampleArgs, 0);
            model.haveSampleArgs = true;
        }
        for (Node* p : lg.graph->placeholders()) {
            InputSpec is;
            is.name = p->name();
            if (!p->meta.empty()) is.meta = p->meta[0];
            lg.inputSpecs.push_back(std::move(is));
        }
        lg.notes.push_back("torch.export schema " + std::to_string(model.schemaMajor) + "." +
                           std::to_string(model.schemaMinor) +
                           (model.torchVersion.empty() ? std::string() : ", saved by torch " + model.torchVersion));
        finishGraph(lg);
        ar.file.graphs.push_back(std::move(lg));
        ar.models.push_back(std::move(model));
    }
    return ar;
}

Expected<LoadedFile> readPt2(const std::filesystem::path& path) {
    auto a = readPt2Archive(path);
    if (!a.ok()) return a.error();
    return std::move(a->file);
}

}  // namespace fxray
