#include "import/python_lexer.h"

#include <cctype>

namespace fxray {

namespace {
bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
}  // namespace

bool lexPythonLine(std::string_view line, int lineNumber, int firstColumn, std::vector<PyToken>& out,
                   PySyntaxError& error) {
    auto fail = [&](size_t at, std::string message) {
        error = {lineNumber, firstColumn + static_cast<int>(at), std::move(message)};
        return false;
    };
    size_t i = 0;
    const size_t n = line.size();
    while (i < n) {
        char c = line[i];
        int col = firstColumn + static_cast<int>(i);
        if (c == ' ' || c == '\t' || c == '\r') {
            ++i;
            continue;
        }
        if (c == '#') break;  // comment to end of line
        PyToken t;
        t.line = lineNumber;
        t.column = col;
        // r'...' (to_folder writes torch.load(r'/path')): a raw string, backslashes kept.
        const bool raw = (c == 'r' || c == 'R') && i + 1 < n && (line[i + 1] == '\'' || line[i + 1] == '"');
        if (raw) {
            char q = line[i + 1];
            size_t close = i + 2;
            while (close < n && line[close] != q) close += line[close] == '\\' ? 2 : 1;
            if (close >= n) return fail(i, "unterminated string");
            t.kind = PyToken::Kind::String;
            t.text = std::string(line.substr(i + 2, close - i - 2));
            i = close + 1;
        } else if (isIdentStart(c)) {
            size_t j = i;
            while (j < n && isIdentChar(line[j])) ++j;
            t.kind = PyToken::Kind::Name;
            t.text = std::string(line.substr(i, j - i));
            i = j;
        } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                   (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(line[i + 1])))) {
            size_t j = i;
            bool isFloat = false;
            while (j < n && (std::isdigit(static_cast<unsigned char>(line[j])) || line[j] == '_')) ++j;
            if (j < n && line[j] == '.') {
                isFloat = true;
                ++j;
                while (j < n && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
            }
            if (j < n && (line[j] == 'e' || line[j] == 'E')) {
                size_t k = j + 1;
                if (k < n && (line[k] == '+' || line[k] == '-')) ++k;
                if (k < n && std::isdigit(static_cast<unsigned char>(line[k]))) {
                    isFloat = true;
                    j = k;
                    while (j < n && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
                }
            }
            if (j < n && isIdentChar(line[j])) return fail(j, "malformed number");
            t.kind = isFloat ? PyToken::Kind::Float : PyToken::Kind::Int;
            for (size_t k = i; k < j; ++k)
                if (line[k] != '_') t.text += line[k];
            i = j;
        } else if (c == '\'' || c == '"') {
            char q = c;
            size_t j = i + 1;
            std::string s;
            bool closed = false;
            while (j < n) {
                char d = line[j];
                if (d == '\\' && j + 1 < n) {
                    char e = line[j + 1];
                    switch (e) {
                    case 'n': s += '\n'; break;
                    case 't': s += '\t'; break;
                    case '\\': s += '\\'; break;
                    case '\'': s += '\''; break;
                    case '"': s += '"'; break;
                    default:
                        s += '\\';
                        s += e;
                        break;
                    }
                    j += 2;
                    continue;
                }
                if (d == q) {
                    closed = true;
                    ++j;
                    break;
                }
                s += d;
                ++j;
            }
            if (!closed) return fail(i, "unterminated string");
            t.kind = PyToken::Kind::String;
            t.text = std::move(s);
            i = j;
        } else {
            static const char* ops3[] = {"**=", "//=", "...", ">>=", "<<="};
            static const char* ops2[] = {"**", "//", "<=", ">=", "==", "!=", "->", "<<", ">>", "+=", "-=", "*=", "/="};
            t.kind = PyToken::Kind::Op;
            bool matched = false;
            for (const char* o : ops3)
                if (line.substr(i, 3) == o) {
                    t.text = o;
                    i += 3;
                    matched = true;
                    break;
                }
            if (!matched)
                for (const char* o : ops2)
                    if (line.substr(i, 2) == o) {
                        t.text = o;
                        i += 2;
                        matched = true;
                        break;
                    }
            if (!matched) {
                static const std::string_view singles = "()[]{},:;.=+-*/%@<>~&|^";
                if (singles.find(c) == std::string_view::npos)
                    return fail(i, std::string("unexpected character '") + c + "'");
                t.text = std::string(1, c);
                ++i;
            }
        }
        out.push_back(std::move(t));
    }
    PyToken end;
    end.kind = PyToken::Kind::End;
    end.line = lineNumber;
    end.column = firstColumn + static_cast<int>(n);
    out.push_back(end);
    return true;
}

std::pair<std::string_view, std::string_view> splitPythonComment(std::string_view line) {
    char quote = 0;
    for (size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        if (quote) {
            if (c == '\\')
                ++i;
            else if (c == quote)
                quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '#') {
            std::string_view comment = line.substr(i + 1);
            while (!comment.empty() && comment.front() == ' ') comment.remove_prefix(1);
            return {line.substr(0, i), comment};
        }
    }
    return {line, {}};
}

}  // namespace fxray
