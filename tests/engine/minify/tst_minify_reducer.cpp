// The minifier's engine: check/inject spec parsing and its messages, PyTorch's same() rule,
// candidates (cut nodes become inputs holding their concrete values, dead code goes), the
// reducer on small hand-built graphs with in-process predicates (smallest graph, no slipping to
// another failure, dropped outputs), injected scale faults, the module hierarchy from names and
// provenance, and the classification of a child process's end (exit, signal, timeout).
#include "test_util.h"

#include "codegen/backend.h"
#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"
#include "minify/candidate.h"
#include "minify/hierarchy.h"
#include "minify/inject.h"
#include "minify/minifier.h"
#include "minify/query.h"
#include "minify/spec.h"
#include "minify/subprocess.h"

#include <fstream>
#include <set>

using namespace fxray;
using namespace fxray::minify;

namespace {

// x -> relu -> neg -> tanh -> exp -> sin -> (sin, cos(x))
const char* kChain = "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, x: \"f32[2, 3][3, 1]cpu\"):\n"
                     "        relu: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.relu.default(x)\n"
                     "        neg: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.neg.default(relu);  relu = None\n"
                     "        tanh: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.tanh.default(neg);  neg = None\n"
                     "        exp: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.exp.default(tanh);  tanh = None\n"
                     "        sin: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.sigmoid.default(exp);  exp = None\n"
                     "        cos: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.abs.default(x);  x = None\n"
                     "        return (sin, cos)\n";

std::unique_ptr<Graph> parse(const char* text) {
    auto g = readFxText(text, "test.py");
    if (!g.ok()) return nullptr;
    resolveOps(**g);
    inferMeta(**g);
    (*g)->rebuildUsers();
    return std::move(g).value();
}

std::vector<Value> chainInputs() { return {fxtest::tv({2, 3}, {-1, 2, -3, 4, -5, 6})}; }

std::multiset<std::string> ops(const Graph& g) {
    std::multiset<std::string> s;
    for (const auto& n : g.nodes())
        if (n->kind() == NodeKind::CallFunction) s.insert(n->opName());
    return s;
}

bool has(const Graph& g, const std::string& op) { return ops(g).count(op) > 0; }

MinifyOptions inProcess(std::function<QueryOutcome(const Graph&, const std::vector<Value>&)> pred) {
    MinifyOptions o;  // no checks: the predicate decides
    o.oracle.inProcess = std::move(pred);
    o.localize = false;
    return o;
}

QueryOutcome verdict(bool yes, std::string sig) {
    QueryOutcome o;
    o.kind = yes ? QueryOutcome::Kind::Reproduced : QueryOutcome::Kind::Clean;
    if (yes) o.signature = std::move(sig);
    return o;
}

}  // namespace

class TestMinifyReducer : public QObject {
    Q_OBJECT
private slots:
    void checkSpecsParse() {
        auto p = parseCheckSpec("pass-fails:remove_noop_ops:view.*fail");
        QVERIFY(p.ok());
        QCOMPARE(p->pass, std::string("remove_noop_ops"));
        QCOMPARE(p->regex, std::string("view.*fail"));
        auto a = parseCheckSpec("accuracy:ref64-vs-ref32");
        QVERIFY(a.ok());
        QCOMPARE(a->refSide, std::string("ref64"));
        QCOMPARE(a->testSide, std::string("ref"));  // ref32 is the reference executor in fp32
        auto c = parseCheckSpec("command:grep -q tanh graph.py");
        QVERIFY(c.ok());
        QCOMPARE(c->command, std::string("grep -q tanh graph.py"));
        auto i = parseInjectSpec("aten.tanh.default:scale=1.01");
        QVERIFY(i.ok());
        QCOMPARE(i->scale, 1.01);
        QCOMPARE(parseInjectSpec("torch.ops.aten.tanh:scale=2")->op, std::string("aten.tanh.default"));
        QCOMPARE(parseInjectSpec("aten.gelu.default:crash-in=dce")->kind, InjectSpec::Kind::CrashIn);
    }

    void badSpecsSayWhy_data() {
        QTest::addColumn<QStringList>("checks");
        QTest::addColumn<QStringList>("injects");
        QTest::addColumn<QString>("message");
        QTest::newRow("no kind") << QStringList{"tanh"} << QStringList{} << "expected KIND:";
        QTest::newRow("unknown kind") << QStringList{"speed:fast"} << QStringList{} << "unknown check kind 'speed'";
        QTest::newRow("unknown pass") << QStringList{"pass-fails:frob:x"} << QStringList{} << "unknown pass 'frob'";
        QTest::newRow("bad regex") << QStringList{"pass-fails:dce:(("} << QStringList{} << "REGEX does not compile";
        QTest::newRow("unknown side") << QStringList{"accuracy:ref-vs-tpu"} << QStringList{} << "unknown side";
        QTest::newRow("no vs") << QStringList{"accuracy:ref"} << QStringList{} << "expected accuracy:A-vs-B";
        QTest::newRow("same sides") << QStringList{"accuracy:ref-vs-ref"} << QStringList{} << "both sides are 'ref'";
        QTest::newRow("cpu missing") << QStringList{"accuracy:ref-vs-cpu"} << QStringList{}
                                     << "backend 'cpu' is not available";
        QTest::newRow("empty command") << QStringList{"command: "} << QStringList{} << "non-empty command";
        QTest::newRow("bad scale") << QStringList{} << QStringList{"aten.tanh.default:scale=abc"} << "finite number";
        QTest::newRow("unknown op") << QStringList{} << QStringList{"aten.frob.default:scale=2"}
                                    << "unknown op 'aten.frob";
        QTest::newRow("unknown fault") << QStringList{} << QStringList{"aten.tanh.default:melt=1"}
                                       << "unknown fault 'melt'";
        QTest::newRow("nothing") << QStringList{} << QStringList{} << "at least one --check";
    }
    void badSpecsSayWhy() {
        QFETCH(QStringList, checks);
        QFETCH(QStringList, injects);
        QFETCH(QString, message);
        if (message.contains("backend 'cpu'") && backendAvailable("cpu")) QSKIP("this build has the CPU backend");
        std::vector<std::string> c, i;
        for (const auto& s : checks) c.push_back(s.toStdString());
        for (const auto& s : injects) i.push_back(s.toStdString());
        auto f = parseFailureSpec(c, i);
        QVERIFY(!f.ok());
        QVERIFY2(f.error().message.find(message.toStdString()) != std::string::npos, f.error().message.c_str());
    }

    void injectAloneMeansCleanVsInjected() {
        auto f = parseFailureSpec({}, {"aten.tanh.default:scale=1.01"});
        QVERIFY(f.ok());
        QCOMPARE(f->checks.size(), size_t(1));
        QCOMPARE(f->checks[0].text, std::string("accuracy:ref-vs-ref"));
    }

    void sameRuleLikePyTorch() {
        using fxtest::tv;
        // Within allclose(1e-3, 1e-3).
        QVERIFY(sameLikePyTorch({tv({2}, {1, 2})}, {tv({2}, {1, 2.001})}, {}, 1e-3, 2.0));
        // A 1% error on values of about 1: allclose fails; RMSE(fp64, res) = 0.01 * rms(1, 2) =
        // 0.0158 > 2 * 0 + 1e-4.
        std::string why;
        QVERIFY(!sameLikePyTorch({tv({2}, {1, 2})}, {tv({2}, {1.01, 2.02})}, {tv({2}, {1, 2})}, 1e-3, 2.0, &why));
        QVERIFY(why.find("RMSE") != std::string::npos);
        // Rounding noise around a true zero: allclose fails (|0.004| > 1e-3), but the tested side
        // is no further from fp64 (0.002) than twice the reference (2 * 0.002) + 1e-4.
        QVERIFY(sameLikePyTorch({tv({2}, {0.002, -0.002})}, {tv({2}, {-0.002, 0.002})}, {tv({2}, {0, 0})}, 1e-3, 2.0));
        // Integers must be equal.
        QVERIFY(!sameLikePyTorch({tv({1}, {3}, DType::Int64)}, {tv({1}, {4}, DType::Int64)}, {}, 1e-3, 2.0));
    }

    void cutNodesBecomeInputsWithTheirValues() {
        auto g = parse(kChain);
        QVERIFY(g);
        auto ws = Workspace::build(*g, chainInputs(), 0);
        QVERIFY(ws.ok());
        const Node* tanh = (*ws)->graph().find("tanh");
        auto m = materialize(**ws, keepOnly(**ws, {tanh->index}));
        QVERIFY(m.ok());
        // placeholder neg, tanh, output: PyTorch's count of 3.
        QCOMPARE(m->nodes, size_t(3));
        auto phs = m->graph->placeholders();
        QCOMPARE(phs.size(), size_t(1));
        QCOMPARE(phs[0]->name(), std::string("neg"));
        // neg = -relu(x): relu(-1, 2, -3, 4, -5, 6) negated.
        auto v = kern::toDoubles(m->inputs[0].t);
        QCOMPARE(v, (std::vector<double>{0, -2, 0, -4, 0, -6}));
        QVERIFY(m->graph->verify().ok());
        // Dead code goes: returning only cos keeps x and cos.
        Candidate c = fullCandidate(**ws);
        c.outs = {(*ws)->graph().find("cos")->index};
        auto m2 = materialize(**ws, c);
        QVERIFY(m2.ok());
        QCOMPARE(m2->nodes, size_t(3));
        QCOMPARE(ops(*m2->graph), (std::multiset<std::string>{"aten.abs.default"}));
    }

    void reducesToTheFailingNodeWithoutSlipping() {
        auto g = parse(kChain);
        QVERIFY(g);
        // Two "bugs": tanh (the one the full graph shows first) and exp. A graph with exp but no
        // tanh fails differently, and must not be taken.
        auto opts = inProcess([](const Graph& c, const std::vector<Value>&) {
            if (has(c, "aten.tanh.default")) return verdict(true, "tanh");
            return verdict(has(c, "aten.exp.default"), "exp");
        });
        auto r = minifyGraph(*g, chainInputs(), opts);
        QVERIFY(r.ok());
        QVERIFY(r->reproduced);
        QCOMPARE(r->signature, std::string("tanh"));
        QCOMPARE(ops(*r->graph), (std::multiset<std::string>{"aten.tanh.default"}));
        QCOMPARE(r->nodesAfter, size_t(3));  // its input, tanh, output
        QCOMPARE(r->nodesBefore, size_t(8));
        QVERIFY(r->queries <= 12);
    }

    void keepsTwoNodesThatFailOnlyTogether() {
        auto g = parse(kChain);
        QVERIFY(g);
        auto opts = inProcess([](const Graph& c, const std::vector<Value>&) {
            return verdict(has(c, "aten.neg.default") && has(c, "aten.sigmoid.default"), "both");
        });
        auto r = minifyGraph(*g, chainInputs(), opts);
        QVERIFY(r.ok());
        QVERIFY(has(*r->graph, "aten.neg.default") && has(*r->graph, "aten.sigmoid.default"));
        // Two inputs (relu, exp cut), neg, sin, output.
        QCOMPARE(r->nodesAfter, size_t(5));
    }

    void graphThatDoesNotFailIsReported() {
        auto g = parse(kChain);
        auto opts = inProcess([](const Graph&, const std::vector<Value>&) { return verdict(false, ""); });
        auto r = minifyGraph(*g, chainInputs(), opts);
        QVERIFY(r.ok());
        QVERIFY(!r->reproduced);
        QCOMPARE(r->queries, size_t(1));
    }

    void dropsOutputs() {
        // Eight independent outputs; only the one through tanh matters.
        std::string text = "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[4][1]cpu\"):\n";
        for (int i = 0; i < 8; ++i)
            text += "        o" + std::to_string(i) + ": \"f32[4][1]cpu\" = torch.ops.aten." +
                    (i == 5 ? "tanh" : "sigmoid") + ".default(x)\n";
        text += "        return (o0, o1, o2, o3, o4, o5, o6, o7)\n";
        auto g = parse(text.c_str());
        QVERIFY(g);
        auto opts = inProcess(
            [](const Graph& c, const std::vector<Value>&) { return verdict(has(c, "aten.tanh.default"), "t"); });
        auto r = minifyGraph(*g, {fxtest::tv({4}, {1, 2, 3, 4})}, opts);
        QVERIFY(r.ok());
        QCOMPARE(r->nodesAfter, size_t(3));  // x, tanh, output
        QCOMPARE(r->graph->outputs().size(), size_t(1));
    }

    void progressReportsTheShrinkingGraph() {
        auto g = parse(kChain);
        auto opts = inProcess(
            [](const Graph& c, const std::vector<Value>&) { return verdict(has(c, "aten.exp.default"), "e"); });
        std::vector<size_t> sizes;
        auto r = minifyGraph(*g, chainInputs(), opts, [&](const MinifyProgress& p) {
            QVERIFY(p.best);
            QCOMPARE(p.best->size(), p.nodes);
            sizes.push_back(p.nodes);
        });
        QVERIFY(r.ok());
        QVERIFY(!sizes.empty());
        QCOMPARE(sizes.back(), size_t(3));
        for (size_t i = 1; i < sizes.size(); ++i) QVERIFY(sizes[i] <= sizes[i - 1]);
    }

    void scaleFaultMultipliesTheOpOutput() {
        auto g = parse(kChain);
        auto inj = parseInjectSpec("aten.tanh.default:scale=1.01");
        QVERIFY(inj.ok());
        auto faulty = g->clone();
        QCOMPARE(applyScaleFaults(*faulty, {*inj}), size_t(1));
        QVERIFY(faulty->verify().ok());
        // The multiply took tanh's name; the clean value lives on as tanh__clean.
        QCOMPARE(faulty->find("tanh")->opName(), std::string("aten.mul.Tensor"));
        QVERIFY(faulty->find("tanh__clean"));
        ExecContext c1(0), c2(0);
        std::map<std::string, Value> clean, bad;
        Interpreter i1(Interpreter::Mode::Execute, &c1), i2(Interpreter::Mode::Execute, &c2);
        i1.onNode = [&](const Node& n, const Value& v) { clean[n.name()] = v; };
        i2.onNode = [&](const Node& n, const Value& v) { bad[n.name()] = v; };
        QVERIFY(i1.run(*g, chainInputs()).ok());
        QVERIFY(i2.run(*faulty, chainInputs()).ok());
        auto a = kern::toDoubles(clean["tanh"].t), b = kern::toDoubles(bad["tanh"].t);
        for (size_t k = 0; k < a.size(); ++k) QVERIFY(std::abs(b[k] - 1.01 * a[k]) < 1e-6);
        // neg is before the fault: unchanged.
        QCOMPARE(kern::toDoubles(clean["neg"].t), kern::toDoubles(bad["neg"].t));
    }

    void inProcessAccuracyQueryLocalisesTheFault() {
        auto g = parse(kChain);
        // The output is sigmoid(exp(tanh(.))): a 1% fault in tanh moves it by less than
        // allclose's 1e-3 + 1e-3 * |out| (about 8e-4 at out = 0.59), so it is masked; 1.5 is not.
        QueryRequest req;
        req.spec = *parseFailureSpec({}, {"aten.tanh.default:scale=1.01"});
        QCOMPARE(evaluateQuery(*g, chainInputs(), req).kind, QueryOutcome::Kind::Clean);
        req.spec = *parseFailureSpec({}, {"aten.tanh.default:scale=1.5"});
        auto o = evaluateQuery(*g, chainInputs(), req);
        QVERIFY2(o.interesting(), o.message.c_str());
        QCOMPARE(o.signature, std::string("accuracy:ref-vs-ref:mismatch@aten.tanh.default"));
        QVERIFY(!o.divergent.empty());
        QCOMPARE(o.divergent.front(), std::string("tanh"));
        // Without the op the two sides agree.
        QueryRequest req2;
        req2.spec = *parseFailureSpec({}, {"aten.gelu.default:scale=1.01"});
        QCOMPARE(evaluateQuery(*g, chainInputs(), req2).kind, QueryOutcome::Kind::Clean);
    }

    void passFaultFailsThePass() {
        auto g = parse(kChain);
        QueryRequest req;
        req.spec = *parseFailureSpec({"pass-fails:dce:holds aten.exp"}, {"aten.exp.default:fail-in=dce"});
        auto o = evaluateQuery(*g, chainInputs(), req);
        QVERIFY2(o.interesting(), o.message.c_str());
        QCOMPARE(o.signature, std::string("pass-fails:dce:failed"));
        QVERIFY(o.failedPassRun >= 0);
    }

    void layersFromNamesAndProvenance() {
        QCOMPARE(layerKey("l__self___layers_0_attn_c_attn"), std::string("layers_0"));
        QCOMPARE(layerKey("getattr_l__self___layers___1___mlp"), std::string("layers_1"));
        QCOMPARE(layerKey("l__self___transformer_h_11_ln_1"), std::string("h_11"));
        QCOMPARE(layerKey("addmm_3"), std::string(""));
        // Two runs of the same two source lines: two block instances, four line runs.
        const char* text = "class GraphModule(torch.nn.Module):\n"
                           "    def forward(self, x: \"f32[4][1]cpu\"):\n"
                           "        # File: m.py:10 in forward, code: y = a(x)\n"
                           "        sin: \"f32[4][1]cpu\" = torch.ops.aten.sigmoid.default(x)\n"
                           "        # File: m.py:11 in forward, code: z = b(y)\n"
                           "        cos: \"f32[4][1]cpu\" = torch.ops.aten.abs.default(sin)\n"
                           "        exp: \"f32[4][1]cpu\" = torch.ops.aten.exp.default(cos)\n"
                           "        # File: m.py:10 in forward, code: y = a(x)\n"
                           "        sin_1: \"f32[4][1]cpu\" = torch.ops.aten.sigmoid.default(exp)\n"
                           "        # File: m.py:11 in forward, code: z = b(y)\n"
                           "        cos_1: \"f32[4][1]cpu\" = torch.ops.aten.abs.default(sin_1)\n"
                           "        return (cos_1,)\n";
        auto g = parse(text);
        QVERIFY(g);
        auto ws = Workspace::build(*g, {fxtest::tv({4}, {1, 2, 3, 4})}, 0);
        QVERIFY(ws.ok());
        std::vector<int> nodes;
        for (int i = 0; i < int((*ws)->size()); ++i)
            if ((*ws)->isCompute(i)) nodes.push_back(i);
        auto levels = hierarchyLevels(**ws, nodes);
        QCOMPARE(levels.size(), size_t(2));
        QCOMPARE(levels[0].size(), size_t(2));  // instances: {sin, cos, exp}, {sin_1, cos_1}
        QCOMPARE(levels[0][0].size(), size_t(3));
        QCOMPARE(levels[1].size(), size_t(4));  // lines: {sin}, {cos, exp}, {sin_1}, {cos_1}
    }

    void childEndsAreClassified() {
        SpawnOptions o;
        o.timeoutSeconds = 5;
        auto r = spawnAndWait({"/bin/sh", "-c", "exit 3"}, o);
        QCOMPARE(r.end, ProcessResult::End::Exited);
        QCOMPARE(r.exitCode, 3);
        r = spawnAndWait({"/bin/sh", "-c", "kill -SEGV $$"}, o);
        QCOMPARE(r.end, ProcessResult::End::Signaled);
        QCOMPARE(r.describe(), std::string("signal 11 (SIGSEGV)"));
        o.timeoutSeconds = 0.3;
        r = spawnAndWait({"/bin/sh", "-c", "sleep 20"}, o);
        QCOMPARE(r.end, ProcessResult::End::TimedOut);
        QVERIFY(r.describe().find("timed out") == 0);
        r = spawnAndWait({"/nonexistent/fxray-test-binary"}, o);
        QCOMPARE(r.end, ProcessResult::End::SpawnFailed);
        // A command run in a folder sees that folder.
        auto dir = std::filesystem::temp_directory_path() / "fxray_tst_spawn_cwd";
        std::filesystem::create_directories(dir);
        SpawnOptions inDir;
        inDir.cwd = dir;
        r = spawnAndWait({"/bin/sh", "-c", "touch here.txt"}, inDir);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(std::filesystem::exists(dir / "here.txt"));
        std::filesystem::remove_all(dir);
    }

    void crashInAPassIsAttributedToIt() {
        auto dir = std::filesystem::temp_directory_path() / "fxray_tst_abnormal";
        std::filesystem::create_directories(dir);
        std::ofstream(dir / "stage") << "pass 3 dce\n";
        auto spec = *parseFailureSpec({"pass-fails:dce:SIGSEGV"}, {});
        auto o = judgeAbnormalEnd(dir, spec, false, "signal 11 (SIGSEGV)");
        QVERIFY(o.interesting());
        QCOMPARE(o.signature, std::string("pass-fails:dce:crashed(SIGSEGV)"));
        QCOMPARE(o.failedPassRun, 3);
        // The same crash in another pass is not this failure.
        auto other = *parseFailureSpec({"pass-fails:cse:"}, {});
        QCOMPARE(judgeAbnormalEnd(dir, other, false, "signal 11 (SIGSEGV)").kind, QueryOutcome::Kind::Crash);
        std::filesystem::remove_all(dir);
    }
};

QTEST_GUILESS_MAIN(TestMinifyReducer)
#include "tst_minify_reducer.moc"
