#pragma once
/// Byte counts of symbolic tensors as polynomials over the size symbols: what the partitioner
/// reports as saved bytes of a dynamic-shape graph ("1280*s33 + 32768"), printed the way sympy
/// prints a sum (higher degree first, constant last, like terms collected).
///
/// Sizes are products and sums of symbols in practice ("s33", "s0*s1", "2*s27 + 8"); any other
/// subexpression ("((s77//2))", "Max(1, s0)") is kept whole as an atom, a symbol of its own.
#include "ir/sym_expr.h"
#include "ir/tensor_meta.h"
#include "support/diagnostic.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fxray::partition {

/// An integer polynomial in atoms (symbols or opaque subexpressions).
class SymPoly {
public:
    SymPoly() = default;
    static SymPoly constant(int64_t c);
    /// One atom: a symbol ("s33") or an opaque expression, evaluated through `expr`.
    static SymPoly atom(const std::string& text, sym::ExprPtr expr);

    SymPoly operator+(const SymPoly& o) const;
    SymPoly operator-(const SymPoly& o) const;
    SymPoly operator*(const SymPoly& o) const;
    SymPoly& operator+=(const SymPoly& o) { return *this = *this + o; }

    bool isConstant() const;
    /// The constant term (the whole value when isConstant()).
    int64_t constantTerm() const;
    /// Sympy's form: "1280*s33 + 32768", "s0*s1 - 4", "0".
    std::string str() const;
    /// The value under b; fails naming an unbound symbol.
    Expected<int64_t> eval(const sym::Binding& b) const;

private:
    /// Sorted atom texts (with repeats: s0*s0) -> coefficient; no zero coefficients.
    std::map<std::vector<std::string>, int64_t> m_terms;
    std::map<std::string, sym::ExprPtr> m_atoms;
};

/// The polynomial of a parsed expression: numbers, symbols, +, -, * and integer powers expand;
/// anything else becomes an atom.
SymPoly polyOf(const sym::ExprPtr& e);
/// Bytes of a tensor as a polynomial: itemsize times the product of its sizes (their expressions,
/// parsed when the graph was read). Does not fail today; Expected for sizes it cannot express.
Expected<SymPoly> bytesPoly(const TensorMeta& m);

}  // namespace fxray::partition
