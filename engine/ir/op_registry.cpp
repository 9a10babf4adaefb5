#include "ir/op_registry.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace fxray {

std::string_view opCategoryName(OpCategory c) {
    switch (c) {
    case OpCategory::Pointwise: return "pointwise";
    case OpCategory::Reduction: return "reduction";
    case OpCategory::View: return "view";
    case OpCategory::Extern: return "extern";
    case OpCategory::Random: return "random";
    case OpCategory::HigherOrder: return "higher-order";
    case OpCategory::Creation: return "creation";
    case OpCategory::Other: return "other";
    }
    return "other";
}

int Schema::indexOf(std::string_view argName) const {
    for (size_t i = 0; i < args.size(); ++i)
        if (args[i].name == argName) return static_cast<int>(i);
    return -1;
}

namespace {

std::string trim(std::string_view s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return std::string(s.substr(a, b - a));
}

/// Splits on commas at bracket depth 0.
std::vector<std::string> splitTop(std::string_view s) {
    std::vector<std::string> out;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '(' || c == '[')
            ++depth;
        else if (c == ')' || c == ']')
            --depth;
        else if (c == ',' && depth == 0) {
            out.push_back(trim(s.substr(start, i - start)));
            start = i + 1;
        }
    }
    auto last = trim(s.substr(start));
    if (!last.empty()) out.push_back(last);
    return out;
}

/// Parses a schema default literal.
std::optional<Argument> parseDefault(const std::string& text) {
    if (text == "None") return Argument::none();
    if (text == "True") return Argument::ofBool(true);
    if (text == "False") return Argument::ofBool(false);
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
        std::vector<Argument> items;
        for (const auto& part : splitTop(std::string_view(text).substr(1, text.size() - 2))) {
            auto a = parseDefault(part);
            if (!a) return std::nullopt;
            items.push_back(*a);
        }
        return Argument::ofList(std::move(items));
    }
    if (text.size() >= 2 && (text.front() == '"' || text.front() == '\''))
        return Argument::ofString(text.substr(1, text.size() - 2));
    bool isNum = !text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-');
    if (isNum) {
        if (text.find_first_of(".eE") != std::string::npos)
            return Argument::ofFloat(std::strtod(text.c_str(), nullptr));
        return Argument::ofInt(std::strtoll(text.c_str(), nullptr, 10));
    }
    if (text == "contiguous_format") return Argument::ofMemoryFormat(MemoryFormat::Contiguous);
    // Scalar type defaults are written bare in schemas: `ScalarType dtype=long`.
    if (auto dt = dtypeFromTorchName(text)) return Argument::ofDType(*dt);
    if (text == "Mean") return Argument::ofInt(1);  // at::Reduction::Mean
    // Identifiers such as "long" are kept as strings.
    return Argument::ofString(text);
}

}  // namespace

Expected<Schema> parseSchema(std::string_view text) {
    Schema sc;
    sc.text = std::string(text);
    auto lp = text.find('(');
    auto arrow = text.rfind("->");
    if (lp == std::string_view::npos || arrow == std::string_view::npos)
        return makeError("malformed schema: " + std::string(text));
    auto rp = text.rfind(')', arrow);
    std::string head = trim(text.substr(0, lp));
    auto dot = head.find('.');
    sc.name = head.substr(0, dot);
    if (dot != std::string::npos) sc.overload = head.substr(dot + 1);
    sc.returns = trim(text.substr(arrow + 2));
    bool kwOnly = false;
    for (const auto& part : splitTop(text.substr(lp + 1, rp - lp - 1))) {
        if (part == "*") {
            kwOnly = true;
            continue;
        }
        SchemaArg a;
        a.kwOnly = kwOnly;
        std::string decl = part;
        auto eq = decl.find('=');
        if (eq != std::string::npos) {
            auto def = parseDefault(trim(decl.substr(eq + 1)));
            if (!def) return makeError("bad default in schema: " + part);
            a.hasDefault = true;
            a.defaultValue = *def;
            decl = trim(decl.substr(0, eq));
        }
        auto sp = decl.rfind(' ');
        if (sp == std::string::npos) return makeError("bad argument in schema: " + part);
        a.name = trim(decl.substr(sp + 1));
        // Drop alias annotations: "Tensor(a!)" -> "Tensor", "Tensor(a)[]" -> "Tensor[]".
        std::string type;
        int depth = 0;
        for (char c : decl.substr(0, sp)) {
            if (c == '(') {
                ++depth;
                continue;
            }
            if (c == ')') {
                --depth;
                continue;
            }
            if (depth == 0 && !std::isspace(static_cast<unsigned char>(c))) type += c;
        }
        a.type = type;
        sc.args.push_back(std::move(a));
    }
    return sc;
}

OpInfo& OpRegistry::add(std::string qualname, std::string_view schema, OpCategory category, MetaFn meta,
                        KernelFn kernel) {
    auto parsed = parseSchema(schema);
    if (!parsed.ok()) {
        std::fprintf(stderr, "fxray: internal error registering %s: %s\n", qualname.c_str(),
                     parsed.error().message.c_str());
        std::abort();
    }
    auto info = std::make_unique<OpInfo>();
    info->qualname = qualname;
    info->schema = std::move(parsed).value();
    info->category = category;
    info->meta = meta;
    info->kernel = kernel;
    OpInfo* raw = info.get();
    m_byName[qualname] = raw;
    m_ops.push_back(std::move(info));
    return *raw;
}

const OpInfo* OpRegistry::find(std::string_view qualname) const {
    auto it = m_byName.find(std::string(qualname));
    return it == m_byName.end() ? nullptr : it->second;
}

namespace {

/// The installed registry; it lives as long as the process (never freed: static destructors of
/// other objects may still read it).
std::atomic<const OpRegistry*> g_installed{nullptr};

}  // namespace

Expected<OpInfo*> OpRegistry::entryFor(std::string_view table, std::string_view qualname) {
    auto it = m_byName.find(std::string(qualname));
    if (it == m_byName.end())
        return makeError(std::string(table) + " name '" + std::string(qualname) +
                         "', which the op registry lacks (no reference op of that name is registered)");
    return it->second;
}

const OpRegistry& OpRegistry::instance() {
    const OpRegistry* r = g_installed.load(std::memory_order_acquire);
    if (!r) {
        std::fprintf(stderr, "fxray: internal error: the op registry is used before it was assembled; "
                             "call fxray::initOpRegistry() (registry/assemble.h) at program start-up\n");
        std::abort();
    }
    return *r;
}

bool OpRegistry::installed() { return g_installed.load(std::memory_order_acquire) != nullptr; }

bool OpRegistry::install(std::unique_ptr<OpRegistry> r) {
    const OpRegistry* expected = nullptr;
    if (!g_installed.compare_exchange_strong(expected, r.get(), std::memory_order_acq_rel)) return false;
    r.release();
    return true;
}

// ---------------------------------------------------------------------------------------------
// Binding

namespace {

Value argumentToValue(const Argument& a) {
    Value v;
    switch (a.kind) {
    case Argument::Kind::None: break;
    case Argument::Kind::Bool: v = Value::ofBool(a.b); break;
    case Argument::Kind::Int: v = Value::ofInt(a.i); break;
    case Argument::Kind::Float: v = Value::ofDouble(a.f); break;
    case Argument::Kind::String:
        v.kind = Value::Kind::String;
        v.s = a.s;
        break;
    case Argument::Kind::List:
    case Argument::Kind::Tuple: {
        std::vector<Value> items;
        for (const auto& it : a.items) items.push_back(argumentToValue(it));
        v = Value::ofList(std::move(items), a.kind == Argument::Kind::Tuple);
        break;
    }
    case Argument::Kind::DType: v = Value::ofDType(a.dtype); break;
    case Argument::Kind::MemoryFormat:
        v.kind = Value::Kind::MemoryFormat;
        v.memoryFormat = a.memoryFormat;
        break;
    default: break;
    }
    return v;
}

bool isIntLike(const Value& v) { return v.kind == Value::Kind::Int; }

/// Checks (and where PyTorch does, converts) a value against a schema type.
std::optional<std::string> coerce(const SchemaArg& formal, Value& v) {
    std::string type = formal.type;
    bool opt = !type.empty() && type.back() == '?';
    if (opt) type.pop_back();
    if (v.isNone()) {
        if (opt || type == "Any") return std::nullopt;
        return "None given for non-optional " + formal.type;
    }
    auto fail = [&] { return std::optional<std::string>(formal.type + " expected, got " + v.describe()); };
    if (type == "Any" || type == "GraphModule" || type == "str" || type == "Generator") return std::nullopt;
    if (type == "Tensor") return v.isTensor() || v.isNumber() ? std::nullopt : fail();
    if (type == "Scalar") return v.isNumber() ? std::nullopt : fail();
    if (type == "int" || type == "SymInt") return isIntLike(v) ? std::nullopt : fail();
    if (type == "float") return v.isNumber() && v.kind != Value::Kind::Bool ? std::nullopt : fail();
    if (type == "bool") return v.kind == Value::Kind::Bool ? std::nullopt : fail();
    if (type == "ScalarType") return v.kind == Value::Kind::DType ? std::nullopt : fail();
    if (type == "Layout") return v.kind == Value::Kind::Layout ? std::nullopt : fail();
    if (type == "Device") return v.kind == Value::Kind::Device ? std::nullopt : fail();
    if (type == "MemoryFormat") return v.kind == Value::Kind::MemoryFormat ? std::nullopt : fail();
    auto lb = type.find('[');
    if (lb != std::string::npos) {
        std::string elem = type.substr(0, lb);
        int n = std::atoi(type.c_str() + lb + 1);
        if (!v.isList()) {
            // PyTorch expands a lone int to int[N].
            if ((elem == "int" || elem == "SymInt") && isIntLike(v)) {
                int64_t x = v.i;
                std::vector<Value> items(n > 0 ? n : 1, Value::ofInt(x));
                v = Value::ofList(std::move(items));
                return std::nullopt;
            }
            return fail();
        }
        for (auto& item : v.list) {
            if (elem == "Tensor?" && item.isNone()) continue;
            if ((elem == "Tensor" || elem == "Tensor?") && !item.isTensor()) return fail();
            if ((elem == "int" || elem == "SymInt") && !isIntLike(item)) return fail();
            if (elem == "float" && !item.isNumber()) return fail();
            if (elem == "bool" && item.kind != Value::Kind::Bool) return fail();
        }
        return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace

Expected<OpArgs> bindArgs(const OpInfo& op, std::vector<Value> positional,
                          std::vector<std::pair<std::string, Value>> keywords) {
    const auto& formals = op.schema.args;
    std::vector<Value> bound(formals.size());
    std::vector<bool> given(formals.size(), false);
    size_t maxPositional = 0;
    while (maxPositional < formals.size() && !formals[maxPositional].kwOnly) ++maxPositional;
    if (positional.size() > maxPositional) {
        // PyTorch accepts keyword-only arguments positionally in FX only for a few ops; be
        // lenient and bind in order as long as arguments remain.
        if (positional.size() > formals.size())
            return makeError(op.qualname + " takes " + std::to_string(formals.size()) + " arguments but " +
                             std::to_string(positional.size()) + " were given");
    }
    for (size_t i = 0; i < positional.size(); ++i) {
        bound[i] = std::move(positional[i]);
        given[i] = true;
    }
    for (auto& [k, v] : keywords) {
        int idx = op.schema.indexOf(k);
        if (idx < 0) return makeError(op.qualname + " got an unexpected keyword argument '" + k + "'");
        if (given[idx]) return makeError(op.qualname + " got multiple values for argument '" + k + "'");
        bound[idx] = std::move(v);
        given[idx] = true;
    }
    for (size_t i = 0; i < formals.size(); ++i) {
        if (!given[i]) {
            if (!formals[i].hasDefault) {
                if (formals[i].optional()) continue;  // None
                return makeError(op.qualname + " missing argument '" + formals[i].name + "'");
            }
            bound[i] = argumentToValue(formals[i].defaultValue);
        }
        if (auto err = coerce(formals[i], bound[i]))
            return makeError(op.qualname + " argument '" + formals[i].name + "': " + *err);
    }
    return OpArgs(op, std::move(bound));
}

// ---------------------------------------------------------------------------------------------
// Accessors

const Tensor& OpArgs::tensor(size_t i) const {
    assert(m_values[i].isTensor());
    return m_values[i].t;
}

std::vector<Tensor> OpArgs::tensorList(size_t i) const {
    std::vector<Tensor> out;
    for (const auto& v : m_values[i].list) out.push_back(v.t);
    return out;
}

int64_t OpArgs::toInt(size_t i) const {
    const Value& v = m_values[i];
    return v.kind == Value::Kind::Int ? v.i : static_cast<int64_t>(v.toDouble());
}

double OpArgs::toDouble(size_t i) const { return m_values[i].toDouble(); }

bool OpArgs::toBool(size_t i) const {
    const Value& v = m_values[i];
    return v.kind == Value::Kind::Bool ? v.b : v.toDouble() != 0.0;
}

std::vector<int64_t> OpArgs::toIntList(size_t i) const {
    std::vector<int64_t> out;
    const Value& v = m_values[i];
    if (v.kind == Value::Kind::Int) return {v.i};
    for (const auto& x : v.list) out.push_back(x.i);
    return out;
}

std::optional<DType> OpArgs::toOptDType(size_t i) const {
    if (m_values[i].kind == Value::Kind::DType) return m_values[i].dtype;
    return std::nullopt;
}

}  // namespace fxray
