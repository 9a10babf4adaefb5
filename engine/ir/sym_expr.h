#pragma once
/// Symbolic sizes: the sympy expressions PyTorch prints for dynamic shapes ("s23", "s23*s27",
/// "((s77//2))", "Max(1, s0)", "Eq(s0, 2)", "4.00000000000000"), parsed once and evaluated under
/// a binding of the symbols to numbers.
///
/// PyTorch's symbols are integers (backed "s0", unbacked "u0") or floats ("zf0"); an expression
/// evaluates with Python's semantics (// floors, % takes the divisor's sign, / is true division).
#include "support/diagnostic.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fxray::sym {

/// A Python number: bool, int or float.
struct Num {
    enum class Kind : uint8_t { Bool, Int, Float };
    Kind kind = Kind::Int;
    int64_t i = 0;   ///< Int and Bool (0/1)
    double d = 0.0;  ///< Float

    static Num ofInt(int64_t v) {
        Num n;
        n.i = v;
        return n;
    }
    static Num ofBool(bool v) {
        Num n;
        n.kind = Kind::Bool;
        n.i = v ? 1 : 0;
        return n;
    }
    static Num ofFloat(double v) {
        Num n;
        n.kind = Kind::Float;
        n.d = v;
        return n;
    }
    bool isFloat() const { return kind == Kind::Float; }
    double toDouble() const { return isFloat() ? d : static_cast<double>(i); }
    bool truthy() const { return isFloat() ? d != 0.0 : i != 0; }
    std::string str() const;
};

/// Symbol name -> value. Sizes are integers; float symbols ("zf0") hold doubles.
using Binding = std::map<std::string, Num>;

/// A parsed expression (immutable, shared).
struct Expr {
    enum class Kind : uint8_t { Number, Symbol, Unary, Binary, Call };
    Kind kind = Kind::Number;
    Num value;         ///< Number
    std::string name;  ///< Symbol, operator ("+", "//", "<=", "-u", "~") or function
    std::vector<std::shared_ptr<const Expr>> args;
};
using ExprPtr = std::shared_ptr<const Expr>;

/// Parses sympy's printed form. Fails with the position of the first character not understood.
Expected<ExprPtr> parse(std::string_view text);
/// Evaluates under `b`; fails naming the first unbound symbol or a division by zero.
Expected<Num> eval(const Expr& e, const Binding& b);
/// Parse + eval, for one-off use.
Expected<Num> evalText(std::string_view text, const Binding& b);
/// One operation on numbers with Python's rules: a binary operator ("+", "-", "*", "/", "//",
/// "%", "**", "<", "<=", ">", ">=", "==", "!=", "&", "|"), "-u" (negation), "~" (not), or a
/// function sympy or torch prints (Max, Min, Mod, FloorDiv, CeilDiv, sqrt, floor, ToFloat, Eq...).
Expected<Num> apply(std::string_view op, const std::vector<Num>& args);
/// A text that is the same for expressions of the same structure, whatever their spacing and
/// redundant parentheses ("((s77//2))", "s77 // 2"): every operation fully parenthesized.
std::string canonicalText(const Expr& e);
/// Symbols the expression mentions.
void freeSymbols(const Expr& e, std::set<std::string>& out);
std::set<std::string> freeSymbols(std::string_view text);
/// The text mentions an unbacked symbol (u0, u1, ...: a size or number the data gives).
bool mentionsUnbacked(std::string_view text);
/// The text is a plain symbol name ("s23", "u0", "zf1").
bool isSymbolName(std::string_view text);
/// "s23=4, s27=16" (sorted by name).
std::string bindingStr(const Binding& b);

/// Python's floor division and modulo on integers (b != 0).
int64_t floorDiv(int64_t a, int64_t b);
int64_t pyMod(int64_t a, int64_t b);

}  // namespace fxray::sym
