#include "rewrite/sym_meta_eq.h"

namespace fxray {

namespace {

/// Drops redundant outer parentheses so that "((s77//2))" and "(s77//2)" compare equal.
std::string trimmed(std::string s) {
    auto balancedOuter = [](const std::string& t) {
        if (t.size() < 2 || t.front() != '(' || t.back() != ')') return false;
        int depth = 0;
        for (size_t i = 0; i < t.size(); ++i) {
            depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
            if (depth == 0 && i + 1 < t.size()) return false;  // "(a)*(b)"
        }
        return true;
    };
    std::string out;
    for (char c : s)
        if (c != ' ') out += c;
    while (balancedOuter(out)) out = out.substr(1, out.size() - 2);
    return out;
}

}  // namespace

std::string sizeText(const TensorMeta& m, size_t i) {
    if (i < m.symShape.size() && !m.symShape[i].empty()) return trimmed(m.symShape[i]);
    return i < m.shape.size() ? std::to_string(m.shape[i]) : std::string();
}

std::string strideText(const TensorMeta& m, size_t i) {
    if (i < m.symStrides.size() && !m.symStrides[i].empty()) return trimmed(m.symStrides[i]);
    return i < m.strides.size() ? std::to_string(m.strides[i]) : std::string();
}

bool sameSizes(const TensorMeta& a, const TensorMeta& b) {
    if (a.shape.size() != b.shape.size()) return false;
    for (size_t i = 0; i < a.shape.size(); ++i) {
        std::string x = sizeText(a, i);
        // -1 without an expression: a size nobody knows, equal to nothing.
        if (x == "-1" || x != sizeText(b, i)) return false;
    }
    return true;
}

bool sameStrides(const TensorMeta& a, const TensorMeta& b) {
    if (!a.stridesKnown || !b.stridesKnown || a.strides.size() != b.strides.size()) return false;
    for (size_t i = 0; i < a.strides.size(); ++i) {
        std::string x = strideText(a, i);
        if (x == "-1" || x != strideText(b, i)) return false;
    }
    return true;
}

}  // namespace fxray
