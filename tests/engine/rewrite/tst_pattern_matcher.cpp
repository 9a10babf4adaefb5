// The pattern matcher and the rewriter: FX-text search/replacement graphs, argument
// normalisation through the schema, consistent bindings, multi-output patterns, match records,
// near-misses with their reasons, provenance events, metadata of new nodes, and a failed
// replacement leaving the graph as it was.
#include "test_util.h"

#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"
#include "ir/printer.h"
#include "rewrite/pattern_rewriter.h"

using namespace fxray;

namespace {

std::unique_ptr<Graph> parse(const std::string& text) {
    auto g = readFxText(text, "test.py");
    if (!g.ok()) {
        qWarning("%s", g.error().str().c_str());
        return nullptr;
    }
    resolveOps(**g);
    inferMeta(**g);
    (*g)->rebuildUsers();
    return std::move(g).value();
}

Pattern pattern(const char* name, const char* search, const char* replacement) {
    auto p = patternFromFxText(name, search, replacement);
    if (!p.ok()) qFatal("%s", p.error().str().c_str());
    return std::move(p).value();
}

/// Runs the patterns once over g; returns the log.
RewriteLog apply(Graph& g, const std::vector<const Pattern*>& ps, size_t* count = nullptr) {
    RewriteLog log;
    log.pass = "test_pass";
    PassContext ctx(log);
    Rewriter rw(g, ctx);
    size_t n = applyPatterns(ps, rw);
    if (count) *count = n;
    return log;
}

const char* kMulTwo = R"(
class MulTwo(torch.nn.Module):
    def forward(self, x):
        mul = torch.ops.aten.mul.Tensor(x, 2)
        return (mul,)
)";
const char* kAddSelf = R"(
class AddSelf(torch.nn.Module):
    def forward(self, x):
        add = torch.ops.aten.add.Tensor(x, x)
        return (add,)
)";

}  // namespace

class TestPatternMatcher : public QObject {
    Q_OBJECT
private slots:
    void replacementAndProvenance() {
        auto g = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[2, 3][3, 1]cpu"):
        relu: "f32[2, 3][3, 1]cpu" = torch.ops.aten.relu.default(a);  a = None
        mul: "f32[2, 3][3, 1]cpu" = torch.ops.aten.mul.Tensor(relu, 2);  relu = None
        neg: "f32[2, 3][3, 1]cpu" = torch.ops.aten.neg.default(mul);  mul = None
        return (neg,)
)");
        QVERIFY(g);
        Pattern p = pattern("mul_two", kMulTwo, kAddSelf);
        size_t n = 0;
        RewriteLog log = apply(*g, {&p}, &n);
        QCOMPARE(n, size_t(1));
        QCOMPARE(log.matches.size(), size_t(1));
        QCOMPARE(log.matches[0].pattern, std::string("mul_two"));
        QCOMPARE(log.matches[0].nodes, std::vector<std::string>{"mul"});
        QCOMPARE(log.matches[0].newNodes, std::vector<std::string>{"add_tensor"});
        // created add_tensor, replaced mul by it, erased mul: in that order, tagged with the pattern.
        QCOMPARE(log.events.size(), size_t(3));
        QCOMPARE(log.events[0].kind, ProvenanceEvent::Kind::Created);
        QCOMPARE(log.events[0].node, std::string("add_tensor"));
        QCOMPARE(log.events[0].target, std::string("aten.add.Tensor"));
        QCOMPARE(log.events[1].kind, ProvenanceEvent::Kind::Replaced);
        QCOMPARE(log.events[1].node, std::string("mul"));
        QCOMPARE(log.events[1].replacement, std::string("add_tensor"));
        QCOMPARE(log.events[2].kind, ProvenanceEvent::Kind::Erased);
        QCOMPARE(log.events[2].node, std::string("mul"));
        for (const auto& e : log.events) {
            QCOMPARE(e.pattern, std::string("mul_two"));
            QCOMPARE(e.pass, std::string("test_pass"));
        }
        Node* add = g->find("add_tensor");
        QVERIFY(add && !g->find("mul"));
        QCOMPARE(add->meta.size(), size_t(1));
        QCOMPARE(add->meta[0].annotation(true, true), std::string("f32[2, 3][3, 1]cpu"));
        QCOMPARE(add->args[0].node->name(), std::string("relu"));
        QCOMPARE(add->args[1].node->name(), std::string("relu"));
        QCOMPARE(g->find("neg")->args[0].node, add);
        QVERIFY(g->verify().ok());
        // Users were kept up to date without a rebuild.
        QCOMPARE(g->find("relu")->users, std::vector<Node*>{add});
    }

    void literalsMustMatch() {
        auto g = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[2][1]cpu"):
        mul: "f32[2][1]cpu" = torch.ops.aten.mul.Tensor(a, 3);  a = None
        return (mul,)
)");
        Pattern p = pattern("mul_two", kMulTwo, kAddSelf);
        size_t n = 1;
        apply(*g, {&p}, &n);
        QCOMPARE(n, size_t(0));
        // 2.0 is the number 2: Python compares 2 == 2.0.
        auto g2 = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[2][1]cpu"):
        mul: "f32[2][1]cpu" = torch.ops.aten.mul.Tensor(a, 2.0);  a = None
        return (mul,)
)");
        apply(*g2, {&p}, &n);
        QCOMPARE(n, size_t(1));
    }

    void normalisesArgumentsThroughTheSchema() {
        // The pattern spells keepdim by keyword and leaves dtype to its default; the graph is
        // positional with the default written out.
        Pattern p = pattern("sum_keep", R"(
class P(torch.nn.Module):
    def forward(self, x, dims):
        sum_1 = torch.ops.aten.sum.dim_IntList(x, dims, keepdim = True)
        return (sum_1,)
)",
                            R"(
class R(torch.nn.Module):
    def forward(self, x, dims):
        mean = torch.ops.aten.mean.dim(x, dims, True)
        return (mean,)
)");
        auto g = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[2, 3][3, 1]cpu"):
        sum_1: "f32[2, 1][1, 1]cpu" = torch.ops.aten.sum.dim_IntList(a, [1], True, dtype = None);  a = None
        return (sum_1,)
)");
        size_t n = 0;
        RewriteLog log = apply(*g, {&p}, &n);
        QCOMPARE(n, size_t(1));
        Node* mean = g->find("mean_dim");
        QVERIFY(mean);
        // The binding of `dims` is the literal [1].
        QCOMPARE(mean->args[1].repr(), std::string("[1]"));
        QCOMPARE(mean->meta[0].shape, (std::vector<int64_t>{2, 1}));
        // keepdim=False in the graph does not match.
        auto g2 = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[2, 3][3, 1]cpu"):
        sum_1: "f32[2][1]cpu" = torch.ops.aten.sum.dim_IntList(a, [1]);  a = None
        return (sum_1,)
)");
        apply(*g2, {&p}, &n);
        QCOMPARE(n, size_t(0));
    }

    void bindingsAreConsistent() {
        Pattern p = pattern("add_self", kAddSelf, kMulTwo);
        auto g = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[2][1]cpu", b: "f32[2][1]cpu"):
        add: "f32[2][1]cpu" = torch.ops.aten.add.Tensor(a, b);  a = b = None
        return (add,)
)");
        size_t n = 1;
        RewriteLog log = apply(*g, {&p}, &n);
        QCOMPARE(n, size_t(0));
        auto g2 = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[2][1]cpu"):
        add: "f32[2][1]cpu" = torch.ops.aten.add.Tensor(a, a);  a = None
        return (add,)
)");
        apply(*g2, {&p}, &n);
        QCOMPARE(n, size_t(1));
        QVERIFY(g2->find("mul_tensor"));
    }

    void nearMissWhenAnIntermediateEscapes() {
        Pattern p = pattern("neg_relu_exp", R"(
class P(torch.nn.Module):
    def forward(self, x):
        exp = torch.ops.aten.exp.default(x)
        relu = torch.ops.aten.relu.default(exp)
        neg = torch.ops.aten.neg.default(relu)
        return (neg,)
)",
                            R"(
class R(torch.nn.Module):
    def forward(self, x):
        exp = torch.ops.aten.exp.default(x)
        neg = torch.ops.aten.neg.default(exp)
        return (neg,)
)");
        auto g = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[2][1]cpu"):
        exp: "f32[2][1]cpu" = torch.ops.aten.exp.default(a);  a = None
        relu: "f32[2][1]cpu" = torch.ops.aten.relu.default(exp);  exp = None
        neg: "f32[2][1]cpu" = torch.ops.aten.neg.default(relu)
        tanh: "f32[2][1]cpu" = torch.ops.aten.tanh.default(relu);  relu = None
        return (neg, tanh)
)");
        std::string before = printGraph(*g);
        size_t n = 1;
        RewriteLog log = apply(*g, {&p}, &n);
        QCOMPARE(n, size_t(0));
        QCOMPARE(printGraph(*g), before);
        QCOMPARE(log.nearMisses.size(), size_t(1));
        QCOMPARE(log.nearMisses[0].pattern, std::string("neg_relu_exp"));
        QCOMPARE(log.nearMisses[0].node, std::string("relu"));
        QCOMPARE(log.nearMisses[0].reason, std::string("'relu' has users outside the pattern ('tanh')"));
    }

    void extraCheckRejectsWithItsReason() {
        Pattern p = pattern("mul_two", kMulTwo, kAddSelf);
        p.extraCheck = [](Match& m) -> std::optional<std::string> {
            const Node* x = m.boundNode("x");
            if (x && x->meta[0].dtype == DType::Float16) return "fp16 inputs are left alone";
            return std::nullopt;
        };
        auto g = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f16[2][1]cpu"):
        mul: "f16[2][1]cpu" = torch.ops.aten.mul.Tensor(a, 2);  a = None
        return (mul,)
)");
        size_t n = 1;
        RewriteLog log = apply(*g, {&p}, &n);
        QCOMPARE(n, size_t(0));
        QCOMPARE(log.nearMisses.size(), size_t(1));
        QCOMPARE(log.nearMisses[0].node, std::string("mul"));
        QCOMPARE(log.nearMisses[0].reason, std::string("fp16 inputs are left alone"));
    }

    void multiOutputPattern() {
        // Outputs (neg, sigmoid) of one exp; the graph computes sigmoid first.
        Pattern p = pattern("exp_pair", R"(
class P(torch.nn.Module):
    def forward(self, x):
        exp = torch.ops.aten.exp.default(x)
        neg = torch.ops.aten.neg.default(exp)
        sigmoid = torch.ops.aten.sigmoid.default(exp)
        return (neg, sigmoid)
)",
                            R"(
class R(torch.nn.Module):
    def forward(self, x):
        exp = torch.ops.aten.exp.default(x)
        mul = torch.ops.aten.mul.Tensor(exp, -1)
        sigmoid = torch.ops.aten.sigmoid.default(exp)
        return (mul, sigmoid)
)");
        QCOMPARE(p.outputs().size(), size_t(2));
        auto g = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[3][1]cpu"):
        exp: "f32[3][1]cpu" = torch.ops.aten.exp.default(a)
        relu: "f32[3][1]cpu" = torch.ops.aten.relu.default(a);  a = None
        sigmoid: "f32[3][1]cpu" = torch.ops.aten.sigmoid.default(exp)
        neg: "f32[3][1]cpu" = torch.ops.aten.neg.default(exp);  exp = None
        return (sigmoid, neg, relu)
)");
        size_t n = 0;
        RewriteLog log = apply(*g, {&p}, &n);
        QCOMPARE(n, size_t(1));
        QCOMPARE(log.matches[0].nodes, (std::vector<std::string>{"exp", "sigmoid", "neg"}));
        QCOMPARE(log.matches[0].newNodes, (std::vector<std::string>{"exp_default", "mul_tensor", "sigmoid_default"}));
        auto outs = g->outputs();
        QCOMPARE(outs[0].node->name(), std::string("sigmoid_default"));
        QCOMPARE(outs[1].node->name(), std::string("mul_tensor"));
        QCOMPARE(outs[2].node->name(), std::string("relu"));
        QVERIFY(!g->find("exp") && !g->find("neg") && !g->find("sigmoid"));
        QVERIFY(g->verify().ok());
        // Numerics: neg(exp(a)) == exp(a) * -1.
        fxray::ExecContext ctx(0);
        Interpreter it(Interpreter::Mode::Execute, &ctx);
        auto r = it.run(*g, {fxtest::tv({3}, {0.0, 1.0, -1.0})});
        QVERIFY(r.ok());
        FX_COMPARE_VEC(fxtest::values((*r)[1]), (std::vector<double>{-1.0, -std::exp(1.0), -std::exp(-1.0)}), 1e-6);
    }

    void failedReplacementChangesNothing() {
        // relu -> sum: the replacement's shape differs, so the rewrite is refused.
        Pattern p = pattern("bad", R"(
class P(torch.nn.Module):
    def forward(self, x):
        relu = torch.ops.aten.relu.default(x)
        return (relu,)
)",
                            R"(
class R(torch.nn.Module):
    def forward(self, x):
        sum_1 = torch.ops.aten.sum.default(x)
        return (sum_1,)
)");
        auto g = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[2, 3][3, 1]cpu"):
        relu: "f32[2, 3][3, 1]cpu" = torch.ops.aten.relu.default(a);  a = None
        return (relu,)
)");
        std::string before = printGraph(*g);
        size_t n = 1;
        RewriteLog log = apply(*g, {&p}, &n);
        QCOMPARE(n, size_t(0));
        QCOMPARE(printGraph(*g), before);
        QCOMPARE(log.nearMisses.size(), size_t(1));
        QVERIFY2(log.nearMisses[0].reason.find("is f32[] where 'relu' is f32[2, 3]") != std::string::npos,
                 log.nearMisses[0].reason.c_str());
    }

    void badPatternsAreDiagnosed() {
        auto p = patternFromFxText("bad", kMulTwo, R"(
class R(torch.nn.Module):
    def forward(self, y):
        neg = torch.ops.aten.neg.default(y)
        return (neg,)
)");
        QVERIFY(!p.ok());
        QCOMPARE(p.error().message,
                 std::string("pattern 'bad': replacement input 'y' is not an input of the search graph"));
        auto q = patternFromFxText("unknown", R"(
class P(torch.nn.Module):
    def forward(self, x):
        foo = torch.ops.aten.no_such_op.default(x)
        return (foo,)
)",
                                   "");
        QVERIFY(!q.ok());
        QCOMPARE(q.error().message, std::string("pattern 'unknown': unknown op 'aten.no_such_op.default'"));
    }

    void patternBuiltInCxx() {
        // neg(neg(x)) -> x, with both graphs built node by node.
        auto search = std::make_unique<Graph>();
        Node* x = search->append(NodeKind::Placeholder, "x", "x");
        Node* n1 = search->append(NodeKind::CallFunction, "neg", "torch.ops.aten.neg.default");
        n1->args = {Argument::ofNode(x)};
        Node* n2 = search->append(NodeKind::CallFunction, "neg_1", "torch.ops.aten.neg.default");
        n2->args = {Argument::ofNode(n1)};
        Node* out = search->append(NodeKind::Output, "output", "output");
        out->args = {Argument::ofList({Argument::ofNode(n2)}, true)};
        auto repl = std::make_unique<Graph>();
        Node* rx = repl->append(NodeKind::Placeholder, "x", "x");
        Node* rout = repl->append(NodeKind::Output, "output", "output");
        rout->args = {Argument::ofList({Argument::ofNode(rx)}, true)};
        auto p = patternFromGraphs("double_neg", std::move(search), std::move(repl));
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().str().c_str());
        QCOMPARE(p->callNodeCount(), size_t(2));
        auto g = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[2][1]cpu"):
        neg: "f32[2][1]cpu" = torch.ops.aten.neg.default(a);  a = None
        neg_1: "f32[2][1]cpu" = torch.ops.aten.neg.default(neg);  neg = None
        relu: "f32[2][1]cpu" = torch.ops.aten.relu.default(neg_1);  neg_1 = None
        return (relu,)
)");
        size_t n = 0;
        apply(*g, {&*p}, &n);
        QCOMPARE(n, size_t(1));
        QCOMPARE(g->find("relu")->args[0].node->name(), std::string("a"));
        QCOMPARE(g->size(), size_t(3));
    }

    void looksThroughValuePreservingNodes() {
        PatternOptions o;
        o.lookThroughIdentity = true;
        auto p = patternFromFxText("neg_exp", R"(
class P(torch.nn.Module):
    def forward(self, x):
        exp = torch.ops.aten.exp.default(x)
        neg = torch.ops.aten.neg.default(exp)
        return (neg,)
)",
                                   R"(
class R(torch.nn.Module):
    def forward(self, x):
        exp = torch.ops.aten.exp.default(x)
        mul = torch.ops.aten.mul.Tensor(exp, -1)
        return (mul,)
)",
                                   o);
        QVERIFY(p.ok());
        // neg(clone(exp(detach(a)))): the clone is looked through inside the match, the detach
        // is stripped from the input.
        auto g = parse(R"(
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[3][1]cpu"):
        detach: "f32[3][1]cpu" = torch.ops.aten.detach.default(a);  a = None
        exp: "f32[3][1]cpu" = torch.ops.aten.exp.default(detach);  detach = None
        clone: "f32[3][1]cpu" = torch.ops.aten.clone.default(exp);  exp = None
        neg: "f32[3][1]cpu" = torch.ops.aten.neg.default(clone);  clone = None
        return (neg,)
)");
        size_t n = 0;
        RewriteLog log = apply(*g, {&*p}, &n);
        QCOMPARE(n, size_t(1));
        QCOMPARE(log.matches[0].nodes, (std::vector<std::string>{"exp", "clone", "neg"}));
        QCOMPARE(g->find("exp_default")->args[0].node->name(), std::string("a"));
        QVERIFY(!g->find("detach"));  // dead once its only user was replaced
        QCOMPARE(g->size(), size_t(4));
    }
};

QTEST_GUILESS_MAIN(TestPatternMatcher)
#include "tst_pattern_matcher.moc"
