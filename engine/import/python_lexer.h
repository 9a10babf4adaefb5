#pragma once
/// A lexer for the Python subset that fxray reads as data (FX's generated code, repro scripts,
/// to_folder modules), one physical line at a time. python_expr.h parses its tokens.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxray {

/// One token with its 1-based line and column.
struct PyToken {
    enum class Kind { Name, Int, Float, String, Op, End };
    Kind kind = Kind::End;
    std::string text;  ///< identifier, operator, number text, or decoded string contents
    int line = 0;
    int column = 0;
};

/// Where and why Python text was refused (lexer and parser alike); line and column are 1-based.
struct PySyntaxError {
    int line = 0;
    int column = 0;
    std::string message;
};

/// Tokenises one line of Python (a `#` comment ends it); tokens get line `lineNumber` and
/// columns counted from `firstColumn`. The last token is End. On a lexical error returns false
/// and fills `error`.
bool lexPythonLine(std::string_view line, int lineNumber, int firstColumn, std::vector<PyToken>& out,
                   PySyntaxError& error);

/// Splits a line into its code and the text of its trailing `#` comment (quotes respected;
/// the comment without its '#' and leading spaces, empty when there is none).
std::pair<std::string_view, std::string_view> splitPythonComment(std::string_view line);

}  // namespace fxray
