// The pass manager and its instrumentation: snapshots only after passes that changed the graph,
// failures reported (graph before, pass, message) and undone instead of fatal, a graph left
// broken by a pass caught by verification, skipping and bisection by veto, print-after-all,
// statistics, and recursion into subgraphs before the graph that holds them.
#include "test_util.h"

#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"
#include "import/loader.h"
#include "ir/printer.h"
#include "pass/instrumentation.h"
#include "pass/pass_manager.h"
#include "pass/trace_json.h"
#include "rewrite/rewriter.h"

using namespace fxray;

namespace {

const char* kGraph = "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, x: \"f32[2, 3][3, 1]cpu\"):\n"
                     "        relu: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.relu.default(x);  x = None\n"
                     "        neg: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.neg.default(relu);  relu = None\n"
                     "        return (neg,)\n";

std::unique_ptr<Graph> parse(const char* text) {
    auto g = readFxText(text, "test.py");
    if (!g.ok()) return nullptr;
    resolveOps(**g);
    inferMeta(**g);
    (*g)->rebuildUsers();
    return std::move(g).value();
}

/// Does nothing.
class NopPass : public Pass {
public:
    std::string_view name() const override { return "nop"; }
    std::string_view summary() const override { return "changes nothing"; }
    PassResult runOnGraph(Graph&, PassContext&) override { return PassResult::success(false); }
};

/// Inserts abs(x) before the first relu and feeds the relu from it.
class AbsPass : public Pass {
public:
    AbsPass() { m_added = declareStatistic("added", "abs nodes added"); }
    std::string_view name() const override { return "add_abs"; }
    std::string_view summary() const override { return "adds an abs"; }
    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        Node* relu = g.find("relu");
        if (!relu) return PassResult::success(false);
        Rewriter rw(g, ctx);
        auto abs = rw.createOp(relu, "aten.abs.default", {relu->args[0]});
        if (!abs.ok()) return PassResult::failure(abs.error().str());
        rw.replaceUsesIn(relu, relu->args[0].node, *abs);
        bump(m_added);
        return PassResult::success(true);
    }

private:
    size_t m_added = 0;
};

/// Mutates the graph, then reports failure.
class FailingPass : public Pass {
public:
    std::string_view name() const override { return "fails"; }
    std::string_view summary() const override { return "breaks and says so"; }
    PassResult runOnGraph(Graph& g, PassContext&) override {
        g.rename(g.find("neg"), "renamed");
        return PassResult::failure("could not finish");
    }
};

/// Leaves a node that uses a value defined after it, and claims success.
class BreakingPass : public Pass {
public:
    std::string_view name() const override { return "breaks"; }
    std::string_view summary() const override { return "breaks silently"; }
    PassResult runOnGraph(Graph& g, PassContext&) override {
        g.moveBefore(g.find("neg"), g.find("relu"));
        return PassResult::success(true);
    }
};

}  // namespace

class TestPassManager : public QObject {
    Q_OBJECT
private slots:
    void snapshotsOnlyWhenChanged() {
        auto g = parse(kGraph);
        QVERIFY(g);
        PassManager pm("test");
        pm.addPass(std::make_unique<NopPass>());
        pm.addPass(std::make_unique<AbsPass>());
        pm.addPass(std::make_unique<NopPass>());
        CompileTrace t = pm.run(*g);
        QVERIFY(t.ok());
        QCOMPARE(t.passes.size(), size_t(3));
        QVERIFY(t.initial);
        QVERIFY(!t.passes[0].changed && !t.passes[0].snapshot);
        QVERIFY(t.passes[1].changed && t.passes[1].snapshot);
        QVERIFY(!t.passes[2].changed && !t.passes[2].snapshot);
        // The snapshot is the graph after the pass: abs feeds relu.
        const std::string& text = t.passes[1].snapshot->text();
        QVERIFY(text.find("abs_default: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.abs.default(x)") != std::string::npos);
        QVERIFY(text.find("torch.ops.aten.relu.default(abs_default)") != std::string::npos);
        QCOMPARE(t.passes[1].snapshot->graph->size(), size_t(5));
        QCOMPARE(t.passes[1].fingerprintBefore, t.initial->fingerprint);
        QVERIFY(t.passes[1].fingerprintAfter != t.passes[1].fingerprintBefore);
        // 2 nodes before (relu, neg), 3 after.
        QCOMPARE(t.passes[1].nodesBefore, size_t(2));
        QCOMPARE(t.passes[1].nodesAfter, size_t(3));
        QCOMPARE(t.nodesAfter, size_t(3));
        // Statistic and provenance: one node created, named as FX names it.
        QCOMPARE(t.passes[1].statistics.size(), size_t(1));
        QCOMPARE(t.passes[1].statistics[0].value, int64_t(1));
        QCOMPARE(t.passes[1].events.size(), size_t(1));
        QCOMPARE(t.passes[1].events[0].kind, ProvenanceEvent::Kind::Created);
        QCOMPARE(t.passes[1].events[0].node, std::string("abs_default"));
        QCOMPARE(t.passes[1].events[0].pass, std::string("add_abs"));
    }

    void failureIsReportedAndUndone() {
        auto g = parse(kGraph);
        std::string before = printGraph(*g);
        PassManager pm("test");
        pm.addPass(std::make_unique<FailingPass>());
        pm.addPass(std::make_unique<AbsPass>());
        CompileTrace t = pm.run(*g);
        QVERIFY(!t.ok());
        QCOMPARE(t.failures.size(), size_t(1));
        QCOMPARE(t.failures[0].pass, std::string("fails"));
        QCOMPARE(t.failures[0].message, std::string("could not finish"));
        QCOMPARE(t.failures[0].textBefore, before);
        QVERIFY(t.passes[0].failed && !t.passes[0].changed);
        // The pipeline went on: the next pass ran on the restored graph.
        QVERIFY(t.passes[1].changed);
        QVERIFY(g->find("neg") && !g->find("renamed"));
        QVERIFY(g->find("abs_default"));
        QVERIFY(g->verify().ok());
    }

    void verifyCatchesABrokenGraph() {
        auto g = parse(kGraph);
        std::string before = printGraph(*g);
        PassManager pm("test");
        pm.addPass(std::make_unique<BreakingPass>());
        CompileTrace t = pm.run(*g);
        QCOMPARE(t.failures.size(), size_t(1));
        QVERIFY(t.failures[0].message.find("does not verify") != std::string::npos);
        QVERIFY(t.failures[0].message.find("'relu' before it is defined") != std::string::npos);
        QCOMPARE(printGraph(*g), before);
        // Without verification the broken graph is accepted as a change.
        auto g2 = parse(kGraph);
        PassManagerOptions o;
        o.verifyEach = false;
        PassManager pm2("test", o);
        pm2.addPass(std::make_unique<BreakingPass>());
        QVERIFY(pm2.run(*g2).ok());
        QVERIFY(!g2->verify().ok());
    }

    void skipAndBisect() {
        auto g = parse(kGraph);
        PassManager pm("test");
        pm.addPass(std::make_unique<AbsPass>());
        pm.addPass(std::make_unique<NopPass>());
        pm.addInstrumentation(std::make_unique<SkipPassesInstrumentation>(std::set<std::string>{"add_abs"}));
        CompileTrace t = pm.run(*g);
        QVERIFY(t.passes[0].skipped && !t.passes[0].changed);
        QVERIFY(!t.passes[1].skipped);
        QVERIFY(!g->find("abs_default"));

        auto g2 = parse(kGraph);
        PassManager pm2("test");
        pm2.addPass(std::make_unique<NopPass>());
        pm2.addPass(std::make_unique<AbsPass>());
        pm2.addInstrumentation(std::make_unique<BisectInstrumentation>(1));
        CompileTrace t2 = pm2.run(*g2);
        QVERIFY(!t2.passes[0].skipped);
        QVERIFY(t2.passes[1].skipped);
    }

    void printAfterAll() {
        auto g = parse(kGraph);
        PassManager pm("test");
        pm.addPass(std::make_unique<NopPass>());
        pm.addPass(std::make_unique<AbsPass>());
        std::vector<std::string> seen;
        std::string last;
        pm.addInstrumentation(std::make_unique<PrintAfterAllInstrumentation>(
            [&](const std::string& pass, const std::string&, const std::string& text) {
                seen.push_back(pass);
                last = text;
            },
            false));
        pm.run(*g);
        QCOMPARE(seen, (std::vector<std::string>{"nop", "add_abs"}));
        QCOMPARE(last, printGraph(*g));
    }

    void recursesIntoSubgraphsFirst() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        auto f = loadFile(fxtest::corpus() / "cond_subgraph" / "numerics" / "inference.py");
        QVERIFY(f.ok());
        Graph& g = *f->graphs[0].graph;
        QCOMPARE(g.subgraphs().size(), size_t(2));
        PassManager pm("test");
        pm.addPass(std::make_unique<NopPass>());
        CompileTrace t = pm.run(g);
        // One run per subgraph (in file order), then the top graph.
        QCOMPARE(t.passes.size(), size_t(3));
        QCOMPARE(t.passes[0].graph, g.subgraphs()[0].first);
        QCOMPARE(t.passes[1].graph, g.subgraphs()[1].first);
        QCOMPARE(t.passes[2].graph, std::string());
    }

    void traceJson() {
        auto g = parse(kGraph);
        PassManager pm("test");
        pm.addPass(std::make_unique<AbsPass>());
        auto j = traceToJson(pm.run(*g));
        QCOMPARE(j["nodes_before"].get<int>(), 2);
        QCOMPARE(j["nodes_after"].get<int>(), 3);
        QCOMPARE(j["passes"][0]["name"].get<std::string>(), std::string("add_abs"));
        QCOMPARE(j["passes"][0]["changed"].get<bool>(), true);
        QCOMPARE(j["passes"][0]["events"][0]["kind"].get<std::string>(), std::string("created"));
        QVERIFY(j["passes"][0]["matches"].is_array());
        QVERIFY(j["passes"][0].contains("ms"));
    }
};

QTEST_GUILESS_MAIN(TestPassManager)
#include "tst_pass_manager.moc"
