// SymInt: one size or stride, a number or an expression parsed once; TensorMeta's symbolic
// dimensions held as SymInts. Expected values are worked by hand from Python semantics and the
// annotations of ../shared/corpus_dynamic, not taken from the code.
#include "exec/shape_binding.h"
#include "import/fx_text_reader.h"
#include "ir/sym_int.h"
#include "ir/tensor_meta.h"

#include <QTest>

using namespace fxray;

namespace {

sym::Binding bind(std::initializer_list<std::pair<const char*, int64_t>> kv) {
    sym::Binding b;
    for (auto& [k, v] : kv) b[k] = sym::Num::ofInt(v);
    return b;
}

SymInt parsed(const char* text) {
    auto s = SymInt::parse(text);
    if (!s.ok()) QTest::qFail(s.error().message.c_str(), __FILE__, __LINE__);
    return s.ok() ? *s : SymInt();
}

}  // namespace

class TestSymInt : public QObject {
    Q_OBJECT
private slots:
    void staticSizes() {
        SymInt a(64);
        QVERIFY(a.isStatic() && !a.isSymbolic());
        QCOMPARE(a.value(), int64_t(64));
        QVERIFY(a.hint() == std::optional<int64_t>(64));
        QVERIFY(!a.expr());
        QCOMPARE(QString::fromStdString(a.text()), QString("64"));
        auto e = a.eval({});
        QVERIFY(e.ok() && *e == 64);
        // An integer literal is a static size, not an expression.
        SymInt b = parsed("64");
        QVERIFY(b.isStatic());
        QVERIFY(a == b);
        QVERIFY(a != SymInt(63));
        QVERIFY(parsed("-3").isStatic());
    }

    void expressionsParseOnceAndEvaluateUnderBindings() {
        SymInt s = parsed("(((s53 - 1)//32)) + 1");
        QVERIFY(s.isSymbolic() && !s.isSymbol());
        QVERIFY(s.expr());
        QCOMPARE(QString::fromStdString(s.text()), QString("(((s53 - 1)//32)) + 1"));  // as written
        QVERIFY(!s.hint());
        // (64 - 1)//32 + 1 = 2; (65 - 1)//32 + 1 = 3; (1 - 1)//32 + 1 = 1
        auto a = s.eval(bind({{"s53", 64}}));
        auto b = s.eval(bind({{"s53", 65}}));
        auto c = s.eval(bind({{"s53", 1}}));
        QVERIFY(a.ok() && b.ok() && c.ok());
        QCOMPARE(*a, int64_t(2));
        QCOMPARE(*b, int64_t(3));
        QCOMPARE(*c, int64_t(1));
        // Python floors: (-7)//2 = -4.
        auto f = parsed("(s0//2)").eval(bind({{"s0", -7}}));
        QVERIFY(f.ok() && *f == -4);
        // The same text gives the same parsed expression, not a second parse.
        QVERIFY(parsed("(((s53 - 1)//32)) + 1").expr().get() == s.expr().get());
        std::set<std::string> free;
        parsed("4*s27**2 + s77").freeSymbols(free);
        QVERIFY(free == (std::set<std::string>{"s27", "s77"}));
        QVERIFY(parsed("s23").isSymbol());
    }

    void equivalentTextsAreEqual() {
        // Spacing and redundant parentheses do not change the expression.
        QVERIFY(parsed("((s77//2))") == parsed("s77 // 2"));
        QVERIFY(parsed("(s77//2)") == parsed("((s77//2))"));
        QVERIFY(parsed("2*s1 + 8") == parsed("(2*s1)+8"));
        // Different structure or symbols are different (conservatively, even 2*s0 vs s0*2).
        QVERIFY(parsed("s0") != parsed("s1"));
        QVERIFY(parsed("s0 - 1") != parsed("s0 + 1"));
        QVERIFY(parsed("(s0 + 1)*2") != parsed("s0 + 1*2"));
        QVERIFY(parsed("s0") != SymInt(8));
        // Hints are not part of the size.
        QVERIFY(parsed("s0").withHint(8) == parsed("s0"));
        QVERIFY(parsed("s0").withHint(8).hint() == std::optional<int64_t>(8));
    }

    void errorsNameTheText() {
        auto bad = SymInt::parse("s0 +* 2");
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().message.find("'s0 +* 2'") != std::string::npos, bad.error().message.c_str());
        auto unbound = parsed("s23*s27").eval(bind({{"s23", 4}}));
        QVERIFY(!unbound.ok());
        QVERIFY2(unbound.error().message.find("s23*s27") != std::string::npos, unbound.error().message.c_str());
        QVERIFY2(unbound.error().message.find("s27") != std::string::npos, unbound.error().message.c_str());
        auto div = parsed("s0//s1").eval(bind({{"s0", 4}, {"s1", 0}}));
        QVERIFY(!div.ok());
    }

    void metaHoldsSymIntsAndBinds() {
        // corpus_dynamic/attention's input: "f32[s77, 4, s27, s27][4*s27**2, s27**2, s27, 1]".
        std::string why;
        auto m = parseAnnotation("f32[s77, 4, s27, s27][4*s27**2, s27**2, s27, 1]cpu", &why);
        QVERIFY2(m.has_value(), why.c_str());
        QVERIFY(m->isSymbolic() && m->hasSymbolicSizes() && m->hasUnboundSizes());
        QVERIFY(m->isSymbolicDim(0) && !m->isSymbolicDim(1) && m->isSymbolicDim(2));
        QVERIFY(m->isSymbolicStride(0) && !m->isSymbolicStride(3));
        QVERIFY(m->sizeAt(1) == SymInt(4));
        QCOMPARE(QString::fromStdString(m->sizeAt(0).text()), QString("s77"));
        // The rule: a symbolic dimension holds kUnboundSize, never a guessed number.
        QCOMPARE(m->shape[0], TensorMeta::kUnboundSize);
        QVERIFY(!m->isUnknownDim(0) && !m->isUnknownDim(1));
        QCOMPARE(QString::fromStdString(m->annotation()),
                 QString("f32[s77, 4, s27, s27][4*s27**2, s27**2, s27, 1]cpu"));
        auto b = bindMeta(*m, bind({{"s77", 5}, {"s27", 32}}));
        QVERIFY(b.ok());
        QVERIFY(!b->isSymbolic());
        QCOMPARE(b->shape, (std::vector<int64_t>{5, 4, 32, 32}));
        QCOMPARE(b->strides, (std::vector<int64_t>{4096, 1024, 32, 1}));
        auto missing = bindMeta(*m, bind({{"s77", 5}}));
        QVERIFY(!missing.ok());
        QVERIFY2(missing.error().message.find("size 2 (s27)") != std::string::npos, missing.error().message.c_str());
        // setSize keeps the vectors empty once nothing is symbolic.
        TensorMeta t = *b;
        t.setSize(0, parsed("s0"));
        QVERIFY(t.isSymbolicDim(0) && t.hasSymbolicSizes());
        t.setSize(0, SymInt(5));
        QVERIFY(!t.hasSymbolicSizes());
        QCOMPARE(t.shape[0], int64_t(5));
    }

    void malformedAnnotationsAreRejectedAtImport() {
        std::string why;
        QVERIFY(!parseAnnotation("f32[s0 +, 4]", &why));
        QVERIFY2(why.find("size 0") != std::string::npos && why.find("s0 +") != std::string::npos, why.c_str());
        why.clear();
        QVERIFY(!parseAnnotation("f32[s0, 4][4, 1 +]", &why));
        QVERIFY2(why.find("stride 1") != std::string::npos, why.c_str());
        // The reader fails naming the file, the line and the node.
        const char* src = "class GraphModule(torch.nn.Module):\n"
                          "    def forward(self, x: \"f32[s0, s1 +* 2]\"):\n"
                          "        return (x,)\n";
        auto g = readFxText(src, "bad_dyn.py");
        QVERIFY(!g.ok());
        const Diagnostic& d = g.error();
        QCOMPARE(QString::fromStdString(d.file), QString("bad_dyn.py"));
        QCOMPARE(d.line, 2);
        QVERIFY2(d.message.find("size 1: cannot read symbolic expression 's1 +* 2'") != std::string::npos,
                 d.str().c_str());
        const char* symSrc = "class GraphModule(torch.nn.Module):\n"
                             "    def forward(self, s0: \"Sym(s0 **)\", x: \"f32[s0]\"):\n"
                             "        return (x,)\n";
        auto g2 = readFxText(symSrc, "bad_sym.py");
        QVERIFY(!g2.ok());
        QVERIFY2(g2.error().message.find("s0 **") != std::string::npos, g2.error().str().c_str());
    }
};

QTEST_APPLESS_MAIN(TestSymInt)
#include "tst_sym_int.moc"
