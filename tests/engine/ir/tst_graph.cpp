// Graph structure: verifier, fingerprint, argument printing.
#include "test_util.h"

#include "import/fx_text_reader.h"
#include "ir/graph.h"
#include "ir/printer.h"

#include <cmath>
#include <limits>

using namespace fxray;

namespace {
std::unique_ptr<Graph> tiny() {
    auto g = std::make_unique<Graph>();
    Node* x = g->append(NodeKind::Placeholder, "x", "x");
    x->meta = {TensorMeta::contiguous({4}, DType::Float32)};
    x->annotated = true;
    Node* r = g->append(NodeKind::CallFunction, "relu", "torch.ops.aten.relu.default");
    r->args = {Argument::ofNode(x)};
    Node* out = g->append(NodeKind::Output, "output", "output");
    out->args = {Argument::ofList({Argument::ofNode(r)}, true)};
    return g;
}
}  // namespace

class TestGraph : public QObject {
    Q_OBJECT
private slots:
    void verifierAcceptsWellFormed() { QVERIFY(tiny()->verify().ok()); }

    void verifierRejectsUseBeforeDefinition() {
        auto g = tiny();
        Node* relu = g->find("relu");
        Node* late = g->insertBefore(g->outputNode(), NodeKind::CallFunction, "late", "torch.ops.aten.neg.default");
        late->args = {Argument::ofNode(relu)};
        relu->args = {Argument::ofNode(late)};
        auto s = g->verify();
        QVERIFY(!s.ok());
        QCOMPARE(s.error().node, std::string("relu"));
        QVERIFY(s.error().message.find("before it is defined") != std::string::npos);
    }

    void verifierRejectsPlaceholderAfterCompute() {
        auto g = tiny();
        g->insertBefore(g->outputNode(), NodeKind::Placeholder, "y", "y");
        QVERIFY(!g->verify().ok());
    }

    void verifierRejectsForeignNode() {
        auto g = tiny();
        auto other = tiny();
        g->find("relu")->args = {Argument::ofNode(other->find("x"))};
        auto s = g->verify();
        QVERIFY(!s.ok());
        QVERIFY(s.error().message.find("another graph") != std::string::npos);
    }

    void fingerprintIsStableAndSensitive() {
        auto a = tiny(), b = tiny();
        QCOMPARE(a->fingerprint(), b->fingerprint());
        b->find("relu")->setTarget("torch.ops.aten.sigmoid.default");
        QVERIFY(a->fingerprint() != b->fingerprint());
        auto c = tiny();
        c->find("x")->meta[0].shape = {5};
        QVERIFY(a->fingerprint() != c->fingerprint());
    }

    void pythonReprOfFloats_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("repr");
        // Python's repr() of these floats.
        QTest::newRow("int-valued") << 2.0 << "2.0";
        QTest::newRow("small") << 1e-05 << "1e-05";
        QTest::newRow("1e-4") << 0.0001 << "0.0001";
        QTest::newRow("min float32") << -3.4028234663852886e+38 << "-3.4028234663852886e+38";
        QTest::newRow("sqrt scale") << 0.1767766952966369 << "0.1767766952966369";
        QTest::newRow("1e16") << 1e16 << "1e+16";
        QTest::newRow("big int-valued") << 123456789012345.0 << "123456789012345.0";
        QTest::newRow("inf") << std::numeric_limits<double>::infinity() << "inf";
        QTest::newRow("-inf") << -std::numeric_limits<double>::infinity() << "-inf";
        QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << "nan";
        QTest::newRow("third") << 1.0 / 3.0 << "0.3333333333333333";
    }
    void pythonReprOfFloats() {
        QFETCH(double, value);
        QFETCH(QString, repr);
        QCOMPARE(QString::fromStdString(pyFloatRepr(value)), repr);
    }

    void argumentReprs() {
        QCOMPARE(Argument::ofList({Argument::ofInt(1)}, true).repr(), std::string("(1,)"));
        QCOMPARE(Argument::ofDevice(Device{"cuda", 0}).repr(), std::string("device(type='cuda', index=0)"));
        QCOMPARE(Argument::ofDType(DType::BFloat16).repr(), std::string("torch.bfloat16"));
        QCOMPARE(Argument::ofMemoryFormat(MemoryFormat::ChannelsLast).repr(), std::string("torch.channels_last"));
        QCOMPARE(Argument::ofString("it's").repr(), std::string("\"it's\""));
        QCOMPARE(Argument::ofString("a'b\"c").repr(), std::string("'a\\'b\"c'"));
    }

    void replaceAllUsesRewiresArgsAndOutput() {
        auto g = tiny();
        Node* x = g->find("x");
        Node* relu = g->find("relu");
        Node* neg = g->insertBefore(relu, NodeKind::CallFunction, "neg", "torch.ops.aten.neg.default");
        neg->args = {Argument::ofNode(x)};
        QCOMPARE(g->replaceAllUsesWith(x, neg), size_t(1));  // relu's arg; neg itself is skipped
        QCOMPARE(relu->args[0].node, neg);
        QCOMPARE(neg->args[0].node, x);
        QCOMPARE(g->replaceAllUsesWith(relu, neg), size_t(1));  // the output
        QCOMPARE(g->outputs()[0].node, neg);
        QVERIFY(relu->users.empty());
        g->erase(relu);
        QVERIFY(g->verify().ok());
    }

    void cloneIsDeepAndEqual() {
        auto g = tiny();
        auto c = g->clone();
        QCOMPARE(c->fingerprint(), g->fingerprint());
        QVERIFY(c->find("relu") != g->find("relu"));
        QCOMPARE(c->find("relu")->args[0].node, c->find("x"));
        c->find("relu")->setTarget("torch.ops.aten.neg.default");
        QVERIFY(c->fingerprint() != g->fingerprint());
        QVERIFY(c->verify().ok());
    }

    void moveBeforeKeepsOrderValid() {
        auto g = tiny();
        Node* y = g->insertBefore(g->outputNode(), NodeKind::CallFunction, "y", "torch.ops.aten.neg.default");
        y->args = {Argument::ofNode(g->find("x"))};
        g->moveBefore(y, g->find("relu"));
        QCOMPARE(g->nodes()[1]->name(), std::string("y"));
        QVERIFY(g->verify().ok());
    }

    void printedTinyGraphParsesBack() {
        auto g = tiny();
        std::string text = printGraph(*g);
        auto back = readFxText(text, "tiny.py");
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().str().c_str());
        QCOMPARE((*back)->fingerprint(), g->fingerprint());
    }
};

QTEST_GUILESS_MAIN(TestGraph)
#include "tst_graph.moc"
