#include "minify/sym_inputs.h"

#include "exec/ops/kernel_util.h"
#include "exec/shape_binding.h"

#include <algorithm>
#include <numeric>

namespace fxray::minify {

namespace {

/// A product of sizes as sympy prints it: the number first, then the factors ("128*s27").
struct Product {
    int64_t coef = 1;
    std::vector<std::string> factors;

    void times(const SymInt& size, int64_t value) {
        if (size.isStatic()) {
            coef *= value;
            return;
        }
        // Compound sizes ("s0 + 1", "((s77//2))") multiply as one factor.
        factors.push_back(size.isSymbol() ? size.text() : "(" + size.text() + ")");
    }
    std::string text() const {
        if (factors.empty()) return std::to_string(coef);
        std::string s = coef == 1 ? std::string() : std::to_string(coef) + "*";
        for (size_t i = 0; i < factors.size(); ++i) s += (i ? "*" : "") + factors[i];
        return s;
    }
};

/// Dimension order from outermost to innermost when the strides describe a dense layout (a
/// permutation of contiguous); empty otherwise. Size-1 dimensions carry arbitrary strides: a
/// row-major layout keeps them in place, any other puts them innermost (where they change no
/// stride).
std::vector<size_t> denseOrder(const TensorMeta& m) {
    if (m.strides.size() != m.shape.size()) return {};
    std::vector<size_t> big, ones;
    for (size_t d = 0; d < m.shape.size(); ++d) (m.shape[d] == 1 ? ones : big).push_back(d);
    std::stable_sort(big.begin(), big.end(), [&](size_t a, size_t b) { return m.strides[a] > m.strides[b]; });
    int64_t expect = 1;
    for (auto it = big.rbegin(); it != big.rend(); ++it) {
        if (m.strides[*it] != expect) return {};
        expect *= m.shape[*it];
    }
    if (std::is_sorted(big.begin(), big.end())) {
        std::vector<size_t> all(m.shape.size());
        std::iota(all.begin(), all.end(), size_t(0));
        return all;
    }
    big.insert(big.end(), ones.begin(), ones.end());
    return big;
}

}  // namespace

TensorMeta symbolicCutMeta(const TensorMeta& annotated, const TensorMeta& valueLayout, const sym::Binding& symbols) {
    TensorMeta m = valueLayout;
    m.offset = 0;
    m.clearSymbolic();
    m.stridesKnown = true;
    const size_t rank = m.shape.size();
    std::vector<size_t> order = denseOrder(m);
    if (order.empty()) {
        // Expanded or gappy layouts do not survive a C-order .npy file: contiguous instead.
        m.strides = TensorMeta::contiguousStrides(m.shape);
        order = denseOrder(m);
    }
    if (annotated.shape.size() != rank || !annotated.hasSymbolicSizes()) return m;
    // Keep a symbolic size only where it says what the value has under the recorded binding.
    std::vector<SymInt> sizes(rank);
    bool any = false;
    for (size_t d = 0; d < rank; ++d) {
        if (!annotated.isSymbolicDim(d)) continue;
        auto v = annotated.symShape[d].eval(symbols);
        if (!v.ok() || *v != m.shape[d]) continue;
        sizes[d] = annotated.symShape[d];
        any = true;
    }
    if (!any) return m;
    // Strides from the innermost dimension out: each is the product of the sizes inside it.
    std::vector<SymInt> strides(rank);
    Product p;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const size_t d = *it;
        if (p.factors.empty()) {
            strides[d] = p.coef;
        } else {
            auto st = SymInt::parse(p.text());
            if (!st.ok()) return m;  // products of parsed sizes parse; nothing symbolic otherwise
            strides[d] = *st;
        }
        p.times(sizes[d], m.shape[d]);
    }
    for (size_t d = 0; d < rank; ++d) {
        if (sizes[d].isSymbolic()) m.setSize(d, sizes[d]);
        m.setStride(d, strides[d]);
    }
    return m;
}

bool isSymValue(const Value& v) {
    return v.kind == Value::Kind::Int || v.kind == Value::Kind::Double || v.kind == Value::Kind::Bool;
}

std::vector<std::string> directlyBoundSymbols(const Node& ph) {
    std::vector<std::string> out;
    if (isSymPlaceholder(ph)) {
        std::string e = symPlaceholderExpr(ph);
        if (sym::isSymbolName(e)) out.push_back(e);
        return out;
    }
    if (ph.meta.empty()) return out;
    for (const auto& t : ph.meta[0].symShape)
        if (t.isSymbol()) out.push_back(t.text());
    return out;
}

std::vector<std::string> unboundInputSymbols(const Graph& g) {
    std::vector<std::string> bound;
    for (Node* ph : g.placeholders())
        for (auto& s : directlyBoundSymbols(*ph)) bound.push_back(std::move(s));
    std::vector<std::string> out;
    for (const auto& s : inputSymbols(g))
        if (std::find(bound.begin(), bound.end(), s) == bound.end()) out.push_back(s);
    return out;
}

Expected<sym::Binding> checkCandidateBinding(const Graph& g, const std::vector<Value>& inputs,
                                             const sym::Binding& expected) {
    auto b = bindInputs(g, inputs, /*withStrides=*/false);
    if (!b.ok()) return b.error();
    for (const auto& [name, value] : *b) {
        auto it = expected.find(name);
        if (it == expected.end()) continue;  // a symbol only this candidate has (none today)
        if (it->second.toDouble() != value.toDouble())
            return makeError("the inputs bind " + name + " = " + value.str() + " but the recorded run had " + name +
                             " = " + it->second.str());
    }
    // Every placeholder's layout must evaluate too (it lays the inputs out when they are read).
    for (Node* ph : g.placeholders()) {
        if (ph->meta.empty() || !ph->meta[0].isSymbolic()) continue;
        if (auto m = bindMeta(ph->meta[0], *b); !m.ok())
            return makeError("placeholder '" + ph->name() + "': " + m.error().message);
    }
    return b;
}

Tensor symValueTensor(const Value& v) {
    DType dt = v.kind == Value::Kind::Double ? DType::Float64
               : v.kind == Value::Kind::Bool ? DType::Bool
                                             : DType::Int64;
    double x = v.kind == Value::Kind::Double ? v.d : v.kind == Value::Kind::Bool ? (v.b ? 1.0 : 0.0) : double(v.i);
    return kern::makeTensor(TensorMeta::contiguous({}, dt), {x});
}

}  // namespace fxray::minify
