// The one Python expression parser (import/python_expr.h): the forms PyTorch writes into graph
// files, repros and to_folder modules, positions in its errors, and its one nesting limit as
// each reader meets it.
#include "test_util.h"

#include "import/fx_text_reader.h"
#include "import/python_expr.h"
#include "import/repro_reader.h"

#include <filesystem>
#include <regex>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

struct Parsed {
    bool ok = false;
    PyExpr expr;
    PySyntaxError error;
};

/// Lexes one line (line number `line`, columns from 1) and parses all of it.
Parsed parse(const std::string& text, int line = 1) {
    Parsed p;
    std::vector<PyToken> toks;
    if (!lexPythonLine(text, line, 1, toks, p.error)) return p;
    PyExprParser parser(toks);
    p.ok = parser.parseAll(p.expr);
    p.error = parser.error();
    return p;
}

/// 1-based column of the first `what` in `text` (the expected positions are read off the input).
int columnOf(const std::string& text, const std::string& what, size_t from = 0) {
    return static_cast<int>(text.find(what, from)) + 1;
}

std::string repeat(const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
}

/// The Python files the three readers are given in the corpus and the OpInfo sweep.
std::vector<fs::path> pythonSources() {
    std::vector<fs::path> out;
    for (const fs::path& root : {fxtest::corpus(), fxtest::corpus().parent_path() / "opinfo"}) {
        if (!fs::is_directory(root)) continue;
        for (const auto& e : fs::recursive_directory_iterator(root)) {
            const fs::path& p = e.path();
            if (p.extension() != ".py" || p.filename() == "output_code.py" ||
                p.filename().string().rfind("gen_", 0) == 0 || p.filename() == "__init__.py")
                continue;
            out.push_back(p);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// A logical line of code (brackets joined across lines): its tokens (End last), the code
/// without comments, and the token ranges of its values: each ';'-separated statement's text
/// after its last top-level '=' (or after `return`).
struct Statement {
    int line = 0;
    std::string code;
    std::vector<PyToken> tokens;
    std::vector<std::pair<size_t, size_t>> values;
};

bool isOpen(const PyToken& t) {
    return t.kind == PyToken::Kind::Op && (t.text == "(" || t.text == "[" || t.text == "{");
}
bool isClose(const PyToken& t) {
    return t.kind == PyToken::Kind::Op && (t.text == ")" || t.text == "]" || t.text == "}");
}

/// Statements of a file, leaving out docstrings and the statements that are no expressions
/// (def, class, import, with, if, for, ...).
std::vector<Statement> statementsOf(const std::string& text) {
    static const char* keywords[] = {"def", "class", "import", "from", "with",   "if",    "elif", "else",
                                     "for", "while", "assert", "try",  "except", "raise", "pass", "global"};
    std::vector<Statement> out;
    Statement cur;
    int depth = 0, number = 0;
    bool inDocstring = false;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t nl = text.find('\n', pos);
        std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
        ++number;
        int quotes = 0;
        for (size_t q = line.find("\"\"\""); q != std::string::npos; q = line.find("\"\"\"", q + 3)) ++quotes;
        if (quotes > 0) {
            inDocstring = inDocstring != (quotes % 2 == 1);
            continue;
        }
        if (inDocstring) continue;
        std::vector<PyToken> part;
        PySyntaxError err;
        if (!lexPythonLine(line, number, 1, part, err)) {
            QTest::qFail(("lexing line " + std::to_string(number) + ": " + err.message).c_str(), __FILE__, __LINE__);
            return out;
        }
        part.pop_back();
        if (depth == 0) cur = Statement{number, {}, {}, {}};
        for (auto& t : part) {
            depth += isOpen(t) ? 1 : isClose(t) ? -1 : 0;
            cur.tokens.push_back(std::move(t));
        }
        // The code without its comment (the lexer stopped at an unquoted '#').
        size_t cut = line.size();
        char quote = 0;
        for (size_t j = 0; j < line.size(); ++j) {
            if (quote) {
                if (line[j] == quote) quote = 0;
                continue;
            }
            if (line[j] == '\'' || line[j] == '"')
                quote = line[j];
            else if (line[j] == '#') {
                cut = j;
                break;
            }
        }
        cur.code += line.substr(0, cut) + "\n";
        if (depth > 0) continue;
        depth = 0;
        if (cur.tokens.empty()) continue;
        const PyToken& first = cur.tokens[0];
        bool keyword = false;
        for (const char* k : keywords) keyword = keyword || (first.kind == PyToken::Kind::Name && first.text == k);
        if (keyword) continue;
        PyToken end;
        end.line = number;
        cur.tokens.push_back(end);
        size_t start = 0;
        int d = 0;
        for (size_t k = 0; k < cur.tokens.size(); ++k) {
            const PyToken& t = cur.tokens[k];
            d += isOpen(t) ? 1 : isClose(t) ? -1 : 0;
            if (!(t.kind == PyToken::Kind::End || (d == 0 && t.kind == PyToken::Kind::Op && t.text == ";"))) continue;
            size_t valueStart = start;
            if (start < k && cur.tokens[start].kind == PyToken::Kind::Name && cur.tokens[start].text == "return")
                valueStart = start + 1;
            int dd = 0;
            for (size_t j = start; j < k; ++j) {
                const PyToken& u = cur.tokens[j];
                dd += isOpen(u) ? 1 : isClose(u) ? -1 : 0;
                if (dd == 0 && u.kind == PyToken::Kind::Op &&
                    (u.text == "=" || u.text == "+=" || u.text == "-=" || u.text == "*=" || u.text == "/="))
                    valueStart = j + 1;
            }
            // `self.true_graph_0 = <lambda>()` in repros is PyTorch's repr of a class named
            // <lambda>, not Python: no reader takes a value from it.
            bool lambdaRepr = valueStart < k && cur.tokens[valueStart].text == "<";
            // `primals_1: "f32[4]"` declares a joint graph's input: a type, no value.
            bool declaration = valueStart == start && start + 1 < k && cur.tokens[start + 1].text == ":";
            if (valueStart < k && !lambdaRepr && !declaration) cur.values.emplace_back(valueStart, k);
            start = k + 1;
        }
        out.push_back(std::move(cur));
        cur = Statement{};
    }
    return out;
}

/// Calls of `torch.ops.` targets in a tree.
int countOpCalls(const PyExpr& e) {
    int n = e.kind == PyExpr::Kind::Call && e.items[0].dotted().rfind("torch.ops.", 0) == 0 ? 1 : 0;
    for (const auto& x : e.items) n += countOpCalls(x);
    for (const auto& [k, x] : e.kwargs) n += countOpCalls(x);
    return n;
}

}  // namespace

class TestPythonExpr : public QObject {
    Q_OBJECT
private slots:
    /// The forms the readers meet, written out with the tree Python's grammar gives them.
    void formsOfTheReaders() {
        auto call = parse("torch.ops.aten.addmm.default(primals_2, view, permute)");
        QVERIFY(call.ok);
        QVERIFY(call.expr.kind == PyExpr::Kind::Call);
        QCOMPARE(call.expr.items[0].dotted(), std::string("torch.ops.aten.addmm.default"));
        QCOMPARE(call.expr.items[0].root(), std::string("torch"));
        QCOMPARE(call.expr.items.size(), size_t(4));
        QCOMPARE(call.expr.items[3].text, std::string("permute"));

        std::string storage = "reader.storage(None, 2048, device=device(type='cuda', index=0), dtype_hint=torch.int64)";
        auto st = parse(storage);
        QVERIFY(st.ok);
        QVERIFY(st.expr.items[1].isName("None"));
        QVERIFY(pyInt(st.expr.items[2]) == 2048);
        const PyExpr* dev = st.expr.kwarg("device");
        QVERIFY(dev && dev->kind == PyExpr::Kind::Call && dev->items[0].isName("device"));
        QCOMPARE(dev->kwarg("type")->text, std::string("cuda"));
        QCOMPARE(dev->column, columnOf(storage, "device("));
        QCOMPARE(st.expr.kwarg("dtype_hint")->dotted(), std::string("torch.int64"));
        QVERIFY(!st.expr.kwarg("dtype"));

        auto view = parse("torch.ops.aten.view.default(x, [-1, 768])");
        QVERIFY(view.ok);
        const PyExpr& shape = view.expr.items[2];
        QVERIFY(shape.kind == PyExpr::Kind::List);
        QVERIFY(pyInt(shape.items[0]) == -1);
        QVERIFY(pyNumber(shape.items[1]) == 768.0);

        // to_folder's setattr line: r'' strings are one token, backslashes kept.
        auto set = parse(R"(setattr(self, 'wrap_body_0', torch.load(r'C:\tmp\wrap_body_0.pt', weights_only=False)))");
        QVERIFY(set.ok);
        QCOMPARE(set.expr.items[3].items[1].text, std::string(R"(C:\tmp\wrap_body_0.pt)"));
        QVERIFY(pyBool(*set.expr.items[3].kwarg("weights_only")) == false);

        // Method chains on calls, tuples, the one-element tuple and a parenthesised value.
        auto chain = parse("torch.randn([16], dtype=torch.float32).cuda()");
        QVERIFY(chain.ok);
        QVERIFY(chain.expr.items[0].kind == PyExpr::Kind::Attr);
        QCOMPARE(chain.expr.items[0].text, std::string("cuda"));
        QVERIFY(chain.expr.items[0].dotted().empty());
        QVERIFY(parse("(4,)").expr.kind == PyExpr::Kind::Tuple);
        QVERIFY(parse("(4)").expr.kind == PyExpr::Kind::Int);
        QCOMPARE(parse("()").expr.items.size(), size_t(0));

        // Subscripts and slices as FX prints them: x[:, 0:2] is x[(slice(None, None, None), slice(0, 2, None))].
        auto sub = parse("x[:, 0:2]");
        QVERIFY(sub.ok);
        QVERIFY(sub.expr.kind == PyExpr::Kind::Subscript);
        const PyExpr& idx = sub.expr.items[1];
        QVERIFY(idx.kind == PyExpr::Kind::Tuple);
        QCOMPARE(idx.items[0].items[0].text, std::string("slice"));
        QVERIFY(idx.items[0].items[1].isName("None") && idx.items[0].items[3].isName("None"));
        QVERIFY(pyInt(idx.items[1].items[2]) == 2);

        // Python's precedence: -a ** b is -(a ** b); a ** -b is a ** (-b); * before +.
        auto neg = parse("-a ** b");
        QVERIFY(neg.ok && neg.expr.kind == PyExpr::Kind::UnaryOp && neg.expr.items[0].text == "**");
        auto pow = parse("a ** -b");
        QVERIFY(pow.ok && pow.expr.text == "**" && pow.expr.items[1].kind == PyExpr::Kind::UnaryOp);
        auto arith = parse("1 + 2 * 3 - 4");
        QVERIFY(arith.ok);
        QCOMPARE(arith.expr.text, std::string("-"));
        QCOMPARE(arith.expr.items[0].items[1].text, std::string("*"));

        auto dict = parse("{'a': 1, 'b': [2, 3]}");
        QVERIFY(dict.ok);
        QVERIFY(dict.expr.kind == PyExpr::Kind::Dict);
        QCOMPARE(dict.expr.items.size(), size_t(4));
        QCOMPARE(dict.expr.items[2].text, std::string("b"));
        QCOMPARE(parse("'ab' \"cd\"").expr.text, std::string("abcd"));
        QVERIFY(parse("x[...]").expr.items[1].kind == PyExpr::Kind::Ellipsis);
        QVERIFY(!pyInt(parse("99999999999999999999").expr));
    }

    /// Every statement of every graph, repro and to_folder file PyTorch wrote parses; its
    /// `torch.ops.` calls are as many as a regular expression finds in the code, and the
    /// deepest nesting stays at most half the limit.
    void everyStatementOfRealFilesParses() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        const std::regex opCall(R"(torch\.ops\.[A-Za-z0-9_.]+\()");
        int files = 0, statements = 0, deepest = 0;
        std::string deepestAt;
        for (const fs::path& path : pythonSources()) {
            auto text = readTextFile(path);
            QVERIFY(text.ok());
            ++files;
            int expectedCalls = 0, foundCalls = 0;
            for (const Statement& st : statementsOf(*text)) {
                expectedCalls += int(std::distance(std::sregex_iterator(st.code.begin(), st.code.end(), opCall),
                                                   std::sregex_iterator()));
                for (auto [begin, end] : st.values) {
                    PyExpr e;
                    PyExprParser parser(st.tokens, begin, end);
                    bool ok = parser.parseAll(e);
                    std::string where = path.string() + ":" + std::to_string(st.line) + ": " + parser.error().message;
                    QVERIFY2(ok, where.c_str());
                    ++statements;
                    foundCalls += countOpCalls(e);
                    if (e.depth > deepest) {
                        deepest = e.depth;
                        deepestAt = path.string() + ":" + std::to_string(st.line);
                    }
                }
            }
            QVERIFY2(foundCalls == expectedCalls,
                     qPrintable(QString::fromStdString(path.string()) +
                                QString(": %1 op calls parsed, %2 in the code").arg(foundCalls).arg(expectedCalls)));
        }
        qInfo("%d files, %d statements; deepest expression %d levels (%s), limit %d", files, statements, deepest,
              deepestAt.c_str(), kMaxPyNesting);
        QVERIFY(files > 1000);
        QVERIFY(statements > 50000);
        QVERIFY(deepest >= 3);
        QVERIFY2(deepest * 2 <= kMaxPyNesting, deepestAt.c_str());
    }

    /// Errors carry the line given to the lexer and the column of the offending token.
    void errorsCarryPositions_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("at");  ///< the error's column is where this text starts ("" = end of line)
        QTest::addColumn<QString>("message");
        QTest::newRow("unclosed call") << "f(1, 2"
                                       << ""
                                       << "unclosed '('";
        QTest::newRow("keyword then positional") << "f(a=1, 2)"
                                                 << "2)"
                                                 << "positional argument after keyword argument";
        QTest::newRow("attribute") << "torch.ops.(x)"
                                   << "(x)"
                                   << "expected attribute name after '.'";
        QTest::newRow("trailing") << "f(x) y"
                                  << "y"
                                  << "unexpected 'y'";
        QTest::newRow("missing comma") << "[1 2]"
                                       << "2]"
                                       << "expected ',' or ']'";
        QTest::newRow("dict") << "{'a' 1}"
                              << "1}"
                              << "expected ':' in a dict";
        QTest::newRow("empty") << ""
                               << ""
                               << "expected an expression";
        QTest::newRow("operator") << "a + )"
                                  << ")"
                                  << "unexpected ')'";
        QTest::newRow("character") << "f(x $ y)"
                                   << "$"
                                   << "unexpected character '$'";
        QTest::newRow("string") << "f('abc)"
                                << "'abc"
                                << "unterminated string";
        QTest::newRow("raw string") << "torch.load(r'abc)"
                                    << "r'abc"
                                    << "unterminated string";
        QTest::newRow("number") << "f(12ab)"
                                << "ab"
                                << "malformed number";
    }
    void errorsCarryPositions() {
        QFETCH(QString, text);
        QFETCH(QString, at);
        QFETCH(QString, message);
        const std::string t = text.toStdString();
        auto p = parse(t, 17);
        QVERIFY(!p.ok);
        QCOMPARE(p.error.message, message.toStdString());
        QCOMPARE(p.error.line, 17);
        QCOMPARE(p.error.column, at.isEmpty() ? int(t.size()) + 1 : columnOf(t, at.toStdString()));
    }

    /// kMaxPyNesting levels parse; one more is refused with a located error, however the levels
    /// are made (brackets, parentheses, unary and binary operators, attribute and call chains).
    void nestingLimitIsOneAndClean_data() {
        QTest::addColumn<QString>("open");
        QTest::addColumn<QString>("leaf");
        QTest::addColumn<QString>("close");
        QTest::addColumn<int>("extra");  ///< levels the leaf and its wrapping add to each repetition
        QTest::newRow("lists") << "["
                               << "1"
                               << "]" << 1;
        QTest::newRow("parentheses") << "("
                                     << "1"
                                     << ")" << 1;
        QTest::newRow("tuples") << "("
                                << "1"
                                << ",)" << 1;
        QTest::newRow("calls") << "f("
                               << "1"
                               << ")" << 1;
        QTest::newRow("dicts") << "{1: "
                               << "1"
                               << "}" << 1;
        QTest::newRow("subscripts") << "x["
                                    << "1"
                                    << "]" << 1;
        QTest::newRow("minus") << "-"
                               << "1"
                               << "" << 1;
        QTest::newRow("power") << "a ** "
                               << "1"
                               << "" << 1;
    }
    void nestingLimitIsOneAndClean() {
        QFETCH(QString, open);
        QFETCH(QString, leaf);
        QFETCH(QString, close);
        QFETCH(int, extra);
        auto nested = [&](int n) {
            return repeat(open.toStdString(), n) + leaf.toStdString() + repeat(close.toStdString(), n);
        };
        // n repetitions make n + 1 levels with the leaf.
        auto fits = parse(nested(kMaxPyNesting - extra));
        QVERIFY2(fits.ok, fits.error.message.c_str());
        auto deeper = parse(nested(kMaxPyNesting - extra + 1), 3);
        QVERIFY(!deeper.ok);
        QVERIFY2(deeper.error.message.find("nested too deeply") != std::string::npos, deeper.error.message.c_str());
        QCOMPARE(deeper.error.line, 3);
        QVERIFY(deeper.error.column >= 1);
        // Far deeper input (what would exhaust the stack) is refused the same way.
        auto hostile = parse(nested(100000));
        QVERIFY(!hostile.ok);
        QVERIFY(hostile.error.message.find("nested too deeply") != std::string::npos);
    }

    /// Chains built in loops deepen the tree without recursing: the limit bounds them too, so
    /// that readers walking the tree cannot be driven out of stack. Width is not depth.
    void chainsAreBoundedWidthIsNot() {
        for (const std::string& link :
             {std::string(".b"), std::string("()"), std::string("[0]"), std::string(" + a")}) {
            auto ok = parse("a" + repeat(link, kMaxPyNesting - 1));
            QVERIFY2(ok.ok, (link + ": " + ok.error.message).c_str());
            QCOMPARE(ok.expr.depth, kMaxPyNesting);
            auto deep = parse("a" + repeat(link, 200000));
            QVERIFY(!deep.ok);
            QVERIFY2(deep.error.message.find("nested too deeply") != std::string::npos, deep.error.message.c_str());
        }
        std::string wide = "[" + repeat("1, ", 100000) + "1]";
        auto w = parse(wide);
        QVERIFY(w.ok);
        QCOMPARE(w.expr.items.size(), size_t(100001));
        QCOMPARE(w.expr.depth, 2);
    }

    /// Each reader refuses over-deep input with its file and line, and never crashes.
    void readersShareTheLimit() {
        const std::string deepList = repeat("[", 5000) + "1" + repeat("]", 5000);
        std::string fx = "class M(torch.nn.Module):\n"
                         "    def forward(self, x):\n"
                         "        y = torch.ops.aten.view.default(x,\n"
                         "            " +
                         deepList +
                         ");  x = None\n"
                         "        return (y,)\n";
        auto g = readFxText(fx, "deep.py");
        QVERIFY(!g.ok());
        QCOMPARE(g.error().file, std::string("deep.py"));
        QVERIFY2(g.error().message.find("nested too deeply") != std::string::npos, g.error().str().c_str());
        QCOMPARE(g.error().line, 4);  // the continuation line holding the list, not the statement's first
        // The value is level 1, the call argument 2 (its first bracket at column 13), and the
        // element that would be level kMaxPyNesting + 1 starts kMaxPyNesting - 1 brackets in.
        QCOMPARE(g.error().column, 13 + kMaxPyNesting - 1);

        // A depth that fits is read as a nested list argument.
        std::string fits = fx;
        fits.replace(fits.find(deepList), deepList.size(), "[[1, 2], [3]]");
        auto ok = readFxText(fits, "fits.py");
        QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().str().c_str());

        // A reader's own refusal of a parsed argument names the argument's line too.
        std::string subscripted = fx;
        subscripted.replace(subscripted.find(deepList), deepList.size(), "[2, 3][4]");
        auto sub = readFxText(subscripted, "sub.py");
        QVERIFY(!sub.ok());
        QVERIFY2(sub.error().message.find("nested expression in an argument") != std::string::npos,
                 sub.error().str().c_str());
        QCOMPARE(sub.error().line, 4);
        QCOMPARE(sub.error().column, 13);

        std::string repro = "class Repro(torch.nn.Module):\n"
                            "    def forward(self, x):\n"
                            "        return (x,)\n"
                            "\n"
                            "def load_args(reader):\n"
                            "    reader.symint(" +
                            repeat("(", 100) + "4" + repeat(")", 100) +
                            ")  # x\n"
                            "load_args._version = 0\n";
        std::vector<std::string> warnings;
        auto r = readReproText(repro, "deep_repro.py", warnings);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().file, std::string("deep_repro.py"));
        QCOMPARE(r.error().line, 6);
        QVERIFY2(r.error().message.find("nested too deeply") != std::string::npos, r.error().str().c_str());
    }
};

QTEST_GUILESS_MAIN(TestPythonExpr)
#include "tst_python_expr.moc"
