#include "rewrite/sym_meta_eq.h"

namespace fxray {

std::string sizeText(const TensorMeta& m, size_t i) {
    return i < m.shape.size() ? m.sizeAt(i).canonical() : std::string();
}

std::string strideText(const TensorMeta& m, size_t i) {
    return i < m.strides.size() ? m.strideAt(i).canonical() : std::string();
}

bool sameSizes(const TensorMeta& a, const TensorMeta& b) {
    if (a.shape.size() != b.shape.size()) return false;
    for (size_t i = 0; i < a.shape.size(); ++i) {
        // A size inferred from a symbolic one without its expression is equal to nothing.
        if (a.isUnknownDim(i) || a.sizeAt(i) != b.sizeAt(i)) return false;
    }
    return true;
}

bool sameStrides(const TensorMeta& a, const TensorMeta& b) {
    if (!a.stridesKnown || !b.stridesKnown || a.strides.size() != b.strides.size()) return false;
    for (size_t i = 0; i < a.strides.size(); ++i) {
        const SymInt x = a.strideAt(i);
        if ((x.isStatic() && x.value() < 0) || x != b.strideAt(i)) return false;
    }
    return true;
}

}  // namespace fxray
