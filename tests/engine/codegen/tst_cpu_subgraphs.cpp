// The CPU backend runs `higher_order.cond` with both branches compiled by itself (no reference
// fallback): cond_subgraph's inference graph, cond(x.sum() > 0, relu(x @ W^T + b), sigmoid(x @
// W^T + b)), compiled once, takes the branch PyTorch took on the recorded input (the recorded
// output must come back) and the other branch on the negated input, checked against a hand
// computation of sigmoid(b - x @ W^T). A nested cond (tests/engine/codegen/data/nested_cond.py,
// compiled recursively) matches the reference executor on each of its three paths, and an error
// inside a branch names the cond and the branch. checkpointed's Dynamo graph (an activation
// checkpoint around two linears) gives PyTorch's recorded output with its body compiled.
#include "numerics_case.h"
#include "subgraph_cases.h"

#include "codegen/cpu/cpu_backend.h"
#include "exec/ops/kernel_util.h"
#include "exec/run_check.h"

#include <cmath>

using namespace fxray;

class TestCpuSubgraphs : public QObject {
    Q_OBJECT
private slots:
    void condRunsBothBranchesCompiled() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        fxtest::NumericsCase nc;
        const std::string problem = fxtest::loadNumericsCase("cond_subgraph", "inference", nc);
        QVERIFY2(problem.empty(), problem.c_str());
        const Graph& g = nc.graph();
        auto cg = cg::cpu::CompiledGraph::compile(g, nc.req.inputs);
        QVERIFY2(cg.ok(), cg.ok() ? "" : cg.error().str().c_str());
        QVERIFY((*cg)->fallbackOps().empty());
        bool condIsExtern = false;
        for (const auto& gr : (*cg)->program().groups)
            if (gr.node == "cond") condIsExtern = gr.kind == cg::NodeGroup::Kind::Extern && gr.kernelName == "subgraph";
        QVERIFY(condIsExtern);

        // Inputs: arg0_1 x [8, 32], arg1_1 W [32, 32], arg2_1 b [32].
        const auto x = kern::toDoubles(nc.req.inputs[0].t), W = kern::toDoubles(nc.req.inputs[1].t),
                   b = kern::toDoubles(nc.req.inputs[2].t);
        double sum = 0;
        for (double v : x) sum += v;
        QVERIFY(sum != 0);

        // The recorded input: PyTorch's output back.
        auto out = (*cg)->run(nc.req.inputs);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        OutputComparison c = compareValues(0, (*out)[0], nc.expect[0]);
        QVERIFY2(c.ok, qPrintable(QString("recorded branch: rel_err %1").arg(c.relErr)));

        // The negated input: the other branch.
        std::vector<double> nx(x.size());
        for (size_t i = 0; i < x.size(); ++i) nx[i] = -x[i];
        std::vector<Value> neg = nc.req.inputs;
        neg[0] = Value::ofTensor(kern::makeTensor(nc.req.inputs[0].t.meta, nx));
        auto out2 = (*cg)->run(neg);
        QVERIFY2(out2.ok(), out2.ok() ? "" : out2.error().str().c_str());
        std::vector<double> want(8 * 32), same(8 * 32);
        for (int i = 0; i < 8; ++i)
            for (int j = 0; j < 32; ++j) {
                double a = b[static_cast<size_t>(j)];
                for (int k = 0; k < 32; ++k)
                    a += nx[static_cast<size_t>(i * 32 + k)] * W[static_cast<size_t>(j * 32 + k)];
                const double v = sum > 0 ? 1.0 / (1.0 + std::exp(-a)) : std::max(a, 0.0);  // the branch not taken above
                want[static_cast<size_t>(i * 32 + j)] = v;
                same[static_cast<size_t>(i * 32 + j)] = sum > 0 ? std::max(a, 0.0) : 1.0 / (1.0 + std::exp(-a));
            }
        Value wantV = Value::ofTensor(kern::makeTensor((*out2)[0].t.meta, want));
        OutputComparison c2 = compareValues(0, (*out2)[0], wantV);
        QVERIFY2(c2.ok, qPrintable(QString("other branch: rel_err %1").arg(c2.relErr)));
        // Not the first branch again: relu and sigmoid differ on this input.
        Value sameV = Value::ofTensor(kern::makeTensor((*out2)[0].t.meta, same));
        QVERIFY(!compareValues(0, (*out2)[0], sameV).ok);
    }

    void nestedCondAllPaths() {
        auto f = fxtest::loadSubgraphCase("nested_cond.py");
        QVERIFY(f);
        const Graph& g = f->graphs[0].executable();
        auto filled = [](std::vector<int64_t> shape, double shift, int salt) {
            int64_t n = 1;
            for (int64_t d : shape) n *= d;
            std::vector<double> v(static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(0.7 * double(i) + salt) + shift;
            return fxtest::tv(std::move(shape), std::move(v));
        };
        auto ins = [&](double sx, double sw) {
            return std::vector<Value>{filled({4, 8}, sx, 1), filled({8, 4}, sw, 2), filled({6, 8}, 0.0, 3)};
        };
        auto cg = cg::cpu::CompiledGraph::compile(g, ins(0.5, 0.5));
        QVERIFY2(cg.ok(), cg.ok() ? "" : cg.error().str().c_str());
        QVERIFY((*cg)->fallbackOps().empty());
        std::vector<Value> first;
        for (auto [sx, sw] : std::vector<std::pair<double, double>>{{0.5, 0.5}, {0.5, -0.5}, {-0.5, 0.5}}) {
            const auto in = ins(sx, sw);
            auto out = (*cg)->run(in);
            QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
            RunRequest req;
            req.inputs = in;
            auto ref = runAndCheck(g, req, nullptr);
            QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
            QCOMPARE(out->size(), size_t(2));
            for (size_t i = 0; i < 2; ++i) QVERIFY(compareValues(i, (*out)[i], ref->outputs[i]).ok);
            // Each path computes output 0 its own way.
            if (first.empty())
                first = *out;
            else
                QVERIFY(!compareValues(0, (*out)[0], first[0]).ok);
        }
    }

    void checkpointBodyCompiled() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        auto st = fxtest::loadRecordedStage(fxtest::corpus() / "checkpointed" / "numerics" / "dynamo");
        QVERIFY2(st.ok(), st.ok() ? "" : st.error().str().c_str());
        auto cg = cg::cpu::CompiledGraph::compile(st->graph(), st->inputs);
        QVERIFY2(cg.ok(), cg.ok() ? "" : cg.error().str().c_str());
        std::string fallbacks;
        for (const auto& [op, n] : (*cg)->fallbackOps()) fallbacks += op + " ";
        // The body's aten.linear has no lowering (a host fallback inside it); the checkpoint itself is none.
        QVERIFY2((*cg)->fallbackOps().count("higher_order.tag_activation_checkpoint") == 0, fallbacks.c_str());
        auto out = (*cg)->run(st->inputs);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        QCOMPARE(out->size(), st->expect.size());
        OutputComparison c = compareValues(0, (*out)[0], st->expect[0]);
        QVERIFY2(c.ok, qPrintable(QString("rel_err %1").arg(c.relErr)));
    }

    void errorInBranchNamesCond() {
        auto f = fxtest::loadSubgraphCase("cond_bad_predicate.py");
        QVERIFY(f);
        const Graph& g = f->graphs[0].executable();
        std::vector<Value> in{fxtest::tv({4}, {1, -2, 3, 4}), fxtest::tv({2}, {1, -1})};
        auto cg = cg::cpu::CompiledGraph::compile(g, in);
        QVERIFY2(cg.ok(), cg.ok() ? "" : cg.error().str().c_str());
        auto out = (*cg)->run(in);
        QVERIFY(!out.ok());
        const std::string msg = out.error().message;
        QVERIFY2(msg.find("in the true branch of 'cond': ") == 0, msg.c_str());
        QVERIFY2(msg.find("one element") != std::string::npos, msg.c_str());
        RunRequest req;
        req.inputs = in;
        QVERIFY(!runAndCheck(g, req, nullptr).ok());  // the graph is wrong, not the backend
    }
};

QTEST_GUILESS_MAIN(TestCpuSubgraphs)
#include "tst_cpu_subgraphs.moc"
