#include "autodiff/fx_namer.h"

#include <array>
#include <cctype>

namespace fxray {

namespace {

/// Python keywords and builtins: FX never names a node after one (it would shadow it in the
/// generated code), which is why the first sum node is `sum_1`.
bool isReserved(std::string_view s) {
    static const std::unordered_set<std::string_view> names = {
        // keywords
        "False",
        "None",
        "True",
        "and",
        "as",
        "assert",
        "async",
        "await",
        "break",
        "class",
        "continue",
        "def",
        "del",
        "elif",
        "else",
        "except",
        "finally",
        "for",
        "from",
        "global",
        "if",
        "import",
        "in",
        "is",
        "lambda",
        "nonlocal",
        "not",
        "or",
        "pass",
        "raise",
        "return",
        "try",
        "while",
        "with",
        "yield",
        // builtins
        "abs",
        "aiter",
        "all",
        "anext",
        "any",
        "ascii",
        "bin",
        "bool",
        "breakpoint",
        "bytearray",
        "bytes",
        "callable",
        "chr",
        "classmethod",
        "compile",
        "complex",
        "copyright",
        "credits",
        "delattr",
        "dict",
        "dir",
        "divmod",
        "enumerate",
        "eval",
        "exec",
        "exit",
        "filter",
        "float",
        "format",
        "frozenset",
        "getattr",
        "globals",
        "hasattr",
        "hash",
        "help",
        "hex",
        "id",
        "input",
        "int",
        "isinstance",
        "issubclass",
        "iter",
        "len",
        "license",
        "list",
        "locals",
        "map",
        "max",
        "memoryview",
        "min",
        "next",
        "object",
        "oct",
        "open",
        "ord",
        "pow",
        "print",
        "property",
        "quit",
        "range",
        "repr",
        "reversed",
        "round",
        "set",
        "setattr",
        "slice",
        "sorted",
        "staticmethod",
        "str",
        "sum",
        "super",
        "tuple",
        "type",
        "vars",
        "zip",
        // names FX's generated code itself uses
        "torch",
        "self",
        "inf",
        "nan",
        "device",
        "fx_pytree",
        "pytree",
    };
    return names.count(s) > 0;
}

}  // namespace

std::string_view opPacketName(std::string_view qualname) {
    // "aten.sum.dim_IntList" -> "sum"; "aten.mm" -> "mm".
    size_t first = qualname.find('.');
    if (first == std::string_view::npos) return qualname;
    std::string_view rest = qualname.substr(first + 1);
    size_t second = rest.find('.');
    return second == std::string_view::npos ? rest : rest.substr(0, second);
}

std::string FxNamer::create(std::string_view candidate) {
    std::string c;
    for (char ch : candidate) c += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
    if (c.empty()) c = "_unnamed";
    if (std::isdigit(static_cast<unsigned char>(c[0]))) c = "_" + c;

    // A trailing `_N` is a counter on `base` (FX's _name_suffix_regex).
    std::string base = c;
    int64_t num = 0;
    bool hasNum = false;
    size_t us = c.rfind('_');
    if (us != std::string::npos && us + 1 < c.size() && us > 0) {
        bool digits = true;
        for (size_t i = us + 1; i < c.size(); ++i) digits = digits && std::isdigit(static_cast<unsigned char>(c[i]));
        if (digits && c.size() - us - 1 < 18) {
            base = c.substr(0, us);
            num = std::stoll(c.substr(us + 1));
            hasNum = true;
        }
    }
    std::string cand = hasNum ? base + "_" + std::to_string(num) : base;
    if (!hasNum || num == 0) num = m_baseCount[base];
    while (m_used.count(cand) || isReserved(cand)) {
        ++num;
        cand = base + "_" + std::to_string(num);
    }
    m_used.insert(cand);
    m_baseCount[base] = num;
    return cand;
}

}  // namespace fxray
