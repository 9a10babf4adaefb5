// Symbolic sizes as PyTorch prints them (sympy's Python printer), evaluated with Python's rules.
// Expected values are worked by hand from Python semantics, not taken from the code.
#include "ir/sym_expr.h"

#include <QTest>

#include <limits>

using namespace fxray;

namespace {

sym::Num ev(const char* text, const sym::Binding& b) {
    auto r = sym::evalText(text, b);
    if (!r.ok()) QTest::qFail(r.error().message.c_str(), __FILE__, __LINE__);
    return r.ok() ? *r : sym::Num{};
}

sym::Binding bind(std::initializer_list<std::pair<const char*, int64_t>> kv) {
    sym::Binding b;
    for (auto& [k, v] : kv) b[k] = sym::Num::ofInt(v);
    return b;
}

}  // namespace

class TestSymExpr : public QObject {
    Q_OBJECT
private slots:
    void formsOfTheDynamicCorpus() {
        auto b = bind({{"s23", 5}, {"s27", 32}, {"s77", 7}, {"s53", 64}});
        QCOMPARE(ev("s23", b).i, int64_t(5));
        QCOMPARE(ev("s23*s27", b).i, int64_t(160));
        QCOMPARE(ev("4*s77", b).i, int64_t(28));
        QCOMPARE(ev("(s77//2)", b).i, int64_t(3));
        QCOMPARE(ev("(((s53 - 1)//32)) + 1", b).i, int64_t(2));
        QCOMPARE(ev("((((s53 - 1)//32)) + 1)**2", b).i, int64_t(4));
        auto f = ev("4.00000000000000", b);
        QVERIFY(f.isFloat());
        QCOMPARE(f.d, 4.0);
        QCOMPARE(ev("0.797884560802865", b).d, 0.797884560802865);
    }
    void pythonSemantics() {
        auto b = bind({{"s0", -7}, {"s1", 3}});
        QCOMPARE(ev("s0//2", b).i, int64_t(-4));       // floors toward -inf
        QCOMPARE(ev("Mod(s0, s1)", b).i, int64_t(2));  // divisor's sign
        QCOMPARE(ev("s0 % -3", b).i, int64_t(-1));
        QCOMPARE(ev("-s1**2", b).i, int64_t(-9));     // ** binds tighter than unary minus
        QCOMPARE(ev("2**s1**2", b).i, int64_t(512));  // right-associative
        QCOMPARE(ev("CeilDiv(s0, 2)", b).i, int64_t(-3));
        QCOMPARE(ev("s1/2", b).d, 1.5);  // true division gives a float
        QCOMPARE(ev("ModularIndexing(17, 2, 5)", b).i, int64_t(3));
        QCOMPARE(ev("Max(1, s0)", b).i, int64_t(1));
        QCOMPARE(ev("Min(s1, 8, 2)", b).i, int64_t(2));
    }
    void conditions() {
        auto b = bind({{"s0", 2}, {"u0", 0}});
        QVERIFY(ev("Eq(s0, 2)", b).truthy());
        QVERIFY(!ev("Ne(s0, 2)", b).truthy());
        QVERIFY(ev("s0 >= 2", b).truthy());
        QVERIFY(ev("(s0 < 3) & (u0 >= 0)", b).truthy());
        QVERIFY(!ev("~(s0 <= 2)", b).truthy());
        QVERIFY(ev("Or(Eq(u0, 1), True)", b).truthy());
    }
    void freeSymbolsAndNames() {
        auto s = sym::freeSymbols("Max(1, s23*s27) + u0 - zf1");
        QCOMPARE(s, (std::set<std::string>{"s23", "s27", "u0", "zf1"}));
        QVERIFY(sym::isSymbolName("s23"));
        QVERIFY(!sym::isSymbolName("2*s23"));
        QVERIFY(!sym::isSymbolName("True"));
    }
    void errorsSayWhatIsWrong() {
        auto unbound = sym::evalText("s23*s99", bind({{"s23", 2}}));
        QVERIFY(!unbound.ok());
        QVERIFY(unbound.error().message.find("s99") != std::string::npos);
        auto bad = sym::parse("s0 + * 2");
        QVERIFY(!bad.ok());
        QVERIFY(bad.error().message.find("character") != std::string::npos);
        QVERIFY(!sym::parse("Max(s0, ").ok());
        QVERIFY(!sym::parse("").ok());
        QVERIFY(!sym::evalText("s0 // 0", bind({{"s0", 1}})).ok());
        QVERIFY(!sym::evalText("Nope(s0)", bind({{"s0", 1}})).ok());
    }
    // Python ints do not overflow; fxray's int64 sizes must say so instead of wrapping (undefined
    // behaviour in C++: the asan preset's -fsanitize=undefined aborts on it).
    void overflowIsAnError() {
        const auto b = bind({{"s0", std::numeric_limits<int64_t>::max()}, {"s1", std::numeric_limits<int64_t>::min()}});
        for (const char* text : {"s0 + 1", "s1 - 1", "s0 * 2", "-s1", "Abs(s1)", "2**63", "3**40", "s1 // -1",
                                 "CeilDiv(s1, 3)", "FloorDiv(s1, -1)"}) {
            auto r = sym::evalText(text, b);
            QVERIFY2(!r.ok(), text);
            QVERIFY2(r.error().message.find("overflow") != std::string::npos, r.error().message.c_str());
        }
        QCOMPARE(ev("2**62", b).i, int64_t(1) << 62);
        QCOMPARE(ev("(-2)**63", b).i, std::numeric_limits<int64_t>::min());
        QCOMPARE(ev("s1 % -1", b).i, int64_t(0));
        QCOMPARE(ev("s0 - 1 + 1", b).i, std::numeric_limits<int64_t>::max());
        // A huge exponent of 1 or -1 is answered at once (squaring), not by 10**18 multiplications.
        QCOMPARE(ev("1**1000000000000000000", b).i, int64_t(1));
        QCOMPARE(ev("(-1)**1000000000000000001", b).i, int64_t(-1));
    }
};

QTEST_GUILESS_MAIN(TestSymExpr)
#include "tst_sym_expr.moc"
