#include "import/trace_symbols.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstdlib>

namespace fxray {

namespace {

/// A hint as PyTorch writes it: str(int), str(float), or a JSON number.
std::optional<sym::Num> hintValue(const nlohmann::json& v) {
    if (v.is_number_integer()) return sym::Num::ofInt(v.get<int64_t>());
    if (v.is_number_float()) return sym::Num::ofFloat(v.get<double>());
    if (v.is_boolean()) return sym::Num::ofBool(v.get<bool>());
    if (!v.is_string()) return std::nullopt;
    const std::string s = v.get<std::string>();
    if (s == "True" || s == "False") return sym::Num::ofBool(s == "True");
    int64_t i = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
    if (ec == std::errc() && p == s.data() + s.size()) return sym::Num::ofInt(i);
    // sympy prints floats as "1.50000000000000"
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && end == s.c_str() + s.size()) return sym::Num::ofFloat(d);
    return std::nullopt;
}

}  // namespace

std::optional<std::pair<std::string, sym::Num>> traceSymbolHint(std::string_view kind, const nlohmann::json& v) {
    if (!v.is_object()) return std::nullopt;
    auto sit = v.find("symbol");
    if (sit == v.end() || !sit->is_string()) return std::nullopt;
    std::string name = sit->get<std::string>();
    if (!sym::isSymbolName(name)) return std::nullopt;
    const char* key = kind == "symbolic_shape_specialization" ? "value" : "val";
    auto vit = v.find(key);
    if (vit == v.end()) return std::nullopt;
    auto h = hintValue(*vit);
    if (!h) return std::nullopt;
    return std::make_pair(std::move(name), *h);
}

namespace {

void hintSizes(std::vector<SymInt>& sizes, const sym::Binding& hints) {
    for (auto& s : sizes)
        if (s.isSymbolic())
            if (auto v = s.eval(hints); v.ok()) s = s.withHint(*v);
}

}  // namespace

void addSymbolHints(Graph& g, const sym::Binding& hints) {
    for (const auto& [s, n] : hints) g.symbolHints.emplace(s, n);
    for (const auto& n : g.nodes())
        for (auto& m : n->meta) {
            hintSizes(m.symShape, g.symbolHints);
            hintSizes(m.symStrides, g.symbolHints);
        }
    for (auto& [name, sub] : g.subgraphs()) addSymbolHints(*sub, hints);
}

}  // namespace fxray
