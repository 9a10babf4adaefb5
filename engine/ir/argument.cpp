#include "ir/argument.h"

#include "ir/node.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace fxray {

std::string pyFloatRepr(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    // Shortest round-trip digits in scientific form, then lay them out as Python does:
    // positional for exponents in [-4, 16), scientific otherwise.
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    auto epos = sci.find('e');
    std::string mant = sci.substr(0, epos);
    int exp = std::stoi(sci.substr(epos + 1));
    bool neg = !mant.empty() && mant[0] == '-';
    if (neg) mant.erase(0, 1);
    std::string digits;
    for (char c : mant)
        if (c != '.') digits += c;
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    std::string out;
    if (exp >= -4 && exp < 16) {
        if (exp >= 0) {
            if (static_cast<int>(digits.size()) <= exp + 1) {
                out = digits + std::string(exp + 1 - digits.size(), '0') + ".0";
            } else {
                out = digits.substr(0, exp + 1) + "." + digits.substr(exp + 1);
            }
        } else {
            out = "0." + std::string(-exp - 1, '0') + digits;
        }
    } else {
        out = digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        char eb[16];
        std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
        out += eb;
    }
    return neg ? "-" + out : out;
}

std::string pyStringRepr(const std::string& s) {
    // Python prefers single quotes, and uses double quotes when the text holds a single quote
    // but no double quote.
    const char q = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
    std::string out(1, q);
    for (char c : s) {
        if (c == q || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        if (c == '\t') {
            out += "\\t";
            continue;
        }
        out += c;
    }
    return out + q;
}

std::string Argument::repr() const {
    switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return b ? "True" : "False";
    case Kind::Int: return std::to_string(i);
    case Kind::Float: return pyFloatRepr(f);
    case Kind::String: return pyStringRepr(s);
    case Kind::NodeRef: return node ? node->name() : "<null>";
    case Kind::List:
    case Kind::Tuple: {
        std::string out = kind == Kind::List ? "[" : "(";
        for (size_t k = 0; k < items.size(); ++k) {
            if (k) out += ", ";
            out += items[k].repr();
        }
        if (kind == Kind::Tuple && items.size() == 1) out += ",";
        return out + (kind == Kind::List ? "]" : ")");
    }
    case Kind::DType: return std::string(dtypeTorchName(dtype));
    case Kind::Device: return device.repr();
    case Kind::Layout: return std::string(layoutTorchName(layout));
    case Kind::MemoryFormat: return std::string(memoryFormatTorchName(memoryFormat));
    case Kind::Sym: return s;
    case Kind::Slice: {
        std::string out = "slice(";
        for (size_t k = 0; k < items.size(); ++k) {
            if (k) out += ", ";
            out += items[k].repr();
        }
        return out + ")";
    }
    case Kind::Ellipsis: return "Ellipsis";
    }
    return "?";
}

bool Argument::sameAs(const Argument& o) const {
    if (kind != o.kind) return false;
    switch (kind) {
    case Kind::None:
    case Kind::Ellipsis: return true;
    case Kind::Bool: return b == o.b;
    case Kind::Int: return i == o.i;
    case Kind::Float: return (std::isnan(f) && std::isnan(o.f)) || f == o.f;
    case Kind::String:
    case Kind::Sym: return s == o.s;
    case Kind::NodeRef: return node && o.node && node->name() == o.node->name();
    case Kind::List:
    case Kind::Tuple:
    case Kind::Slice:
        if (items.size() != o.items.size()) return false;
        for (size_t k = 0; k < items.size(); ++k)
            if (!items[k].sameAs(o.items[k])) return false;
        return true;
    case Kind::DType: return dtype == o.dtype;
    case Kind::Device: return device == o.device;
    case Kind::Layout: return layout == o.layout;
    case Kind::MemoryFormat: return memoryFormat == o.memoryFormat;
    }
    return false;
}

}  // namespace fxray
