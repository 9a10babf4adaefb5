#pragma once
/// A lexer for the Python subset that FX's code generator emits (one logical line at a time).
#include <string>
#include <string_view>
#include <vector>

namespace fxray {

/// One token with its 1-based column in the line.
struct PyToken {
    enum class Kind { Name, Int, Float, String, Op, End };
    Kind kind = Kind::End;
    std::string text;  ///< identifier, operator, number text, or decoded string contents
    int column = 0;
};

/// Tokenises one line of Python (no comments). On a lexical error returns false and sets
/// `errorColumn`/`error`.
bool lexPythonLine(std::string_view line, int firstColumn, std::vector<PyToken>& out,
                   int& errorColumn, std::string& error);

} // namespace fxray
