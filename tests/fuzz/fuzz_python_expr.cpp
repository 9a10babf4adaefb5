// libFuzzer target: the Python expression lexer and parser every reader uses. Each input line
// is lexed and parsed whole, then as a prefix; a tree that breaks the parser's promises (depth
// beyond kMaxPyNesting, a node placed outside its line) stops the run.
#include "import/python_expr.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

/// Checks a tree against the parser's promises and walks every accessor the readers use.
void check(const fxray::PyExpr& e, int line, int columns) {
    if (e.depth < 1 || e.depth > fxray::kMaxPyNesting) std::abort();
    if (e.line != line || e.column < 1 || e.column > columns + 1) std::abort();
    int deepest = 0;
    for (const auto& x : e.items) {
        check(x, line, columns);
        deepest = x.depth > deepest ? x.depth : deepest;
    }
    for (const auto& [key, x] : e.kwargs) {
        check(x, line, columns);
        deepest = x.depth > deepest ? x.depth : deepest;
    }
    if (e.depth != deepest + 1) std::abort();
    (void)e.dotted();
    (void)e.root();
    (void)fxray::pyInt(e);
    (void)fxray::pyNumber(e);
    (void)fxray::pyBool(e);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    int number = 0;
    while (!text.empty()) {
        size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        ++number;
        std::vector<fxray::PyToken> toks;
        fxray::PySyntaxError err;
        if (!fxray::lexPythonLine(line, number, 1, toks, err)) {
            if (err.line != number || err.message.empty()) std::abort();
            continue;
        }
        const int columns = static_cast<int>(line.size());
        fxray::PyExpr all;
        fxray::PyExprParser whole(toks);
        if (whole.parseAll(all))
            check(all, number, columns);
        else if (whole.error().line != number || whole.error().message.empty())
            std::abort();
        // Statement-like prefixes: what follows a leading `name =`, and the first expression.
        size_t begin = toks.size() > 2 && toks[1].text == "=" ? 2 : 0;
        fxray::PyExpr one;
        fxray::PyExprParser prefix(toks, begin, toks.size() - 1);
        if (prefix.parseOne(one)) check(one, number, columns);
    }
    return 0;
}
