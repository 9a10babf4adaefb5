// The CUDA backend runs subgraph ops on the device (label gpu): cond picks its branch by reading
// the predicate back (one element) and runs the branch's own compiled graph on device-resident
// operands, with no host op. cond_subgraph (PyTorch's recorded inference graph) must give
// PyTorch's output on the recorded input and the reference executor's on the negated one (the
// other branch); a nested cond (operands a transposed view and a slice at an offset, branches
// returning different layouts) must match the reference executor on each of its three paths,
// also when re-run by benchmark(); an error inside a branch names the cond and the branch;
// checkpointed's Dynamo graph (an activation checkpoint) gives PyTorch's output with its body
// run the same way.
// Skipped with the reason without a device.
#include "numerics_case.h"
#include "subgraph_cases.h"

#include "codegen/cuda/cuda_backend.h"
#include "exec/compare.h"
#include "exec/ops/kernel_util.h"
#include "exec/run_check.h"

#include <cmath>

using namespace fxray;

namespace {

#define SKIP_WITHOUT_DEVICE()                                                                                          \
    if (Status s_ = cg::cuda::requireDevice(); !s_.ok()) QSKIP(qPrintable(QString::fromStdString(s_.error().message)))

std::string hostOps(const cg::cuda::RunStats& st) {
    std::string s;
    for (const auto& [op, n] : st.hostOps) s += op + " x" + std::to_string(n) + " ";
    return s;
}

Expected<std::vector<Value>> reference(const Graph& g, const std::vector<Value>& inputs) {
    RunRequest req;
    req.inputs = inputs;
    auto r = runAndCheck(g, req, nullptr);
    if (!r.ok()) return r.error();
    return r->outputs;
}

/// Deterministic values in [-1, 1) plus `shift`: the sign of the sum is the shift's.
Value filled(std::vector<int64_t> shape, double shift, int salt) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(0.7 * double(i) + salt) + shift;
    return fxtest::tv(std::move(shape), std::move(v));
}

std::string compareAll(const std::vector<Value>& got, const std::vector<Value>& want) {
    if (got.size() != want.size()) return "output count " + std::to_string(got.size());
    for (size_t i = 0; i < got.size(); ++i) {
        OutputComparison c = compareValues(i, got[i], want[i]);
        if (!c.ok) return "output " + std::to_string(i) + ": rel_err " + std::to_string(c.relErr) + " " + c.note;
    }
    return {};
}

}  // namespace

class TestCudaExecSubgraphs : public QObject {
    Q_OBJECT
private slots:
    void cond_subgraph_both_branches() {
        SKIP_WITHOUT_DEVICE();
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        fxtest::NumericsCase nc;
        const std::string problem = fxtest::loadNumericsCase("cond_subgraph", "inference", nc);
        QVERIFY2(problem.empty(), problem.c_str());
        const Graph& g = nc.graph();
        auto cg = cg::cuda::CompiledGraph::compile(g, nc.req.inputs);
        QVERIFY2(cg.ok(), cg.ok() ? "" : cg.error().str().c_str());
        QVERIFY((*cg)->fallbackOps().empty());

        // The recorded input: PyTorch's output.
        cg::cuda::RunStats st;
        auto out = (*cg)->run(nc.req.inputs, {}, 0, {}, &st);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        const std::string c1 = compareAll(*out, nc.expect);
        QVERIFY2(c1.empty(), c1.c_str());
        QVERIFY2(st.hostOps.empty(), hostOps(st).c_str());
        QCOMPARE(st.subgraphRuns, size_t(1));
        QVERIFY(st.kernelLaunches >= 2);  // the predicate's reduction and the branch's kernel

        // The negated input takes the other branch: the reference executor's output.
        std::vector<Value> neg = nc.req.inputs;
        auto x = kern::toDoubles(neg[0].t);
        for (double& v : x) v = -v;
        neg[0] = Value::ofTensor(kern::makeTensor(nc.req.inputs[0].t.meta, x));
        cg::cuda::RunStats st2;
        auto out2 = (*cg)->run(neg, {}, 0, {}, &st2);
        QVERIFY2(out2.ok(), out2.ok() ? "" : out2.error().str().c_str());
        auto ref = reference(g, neg);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        const std::string c2 = compareAll(*out2, *ref);
        QVERIFY2(c2.empty(), c2.c_str());
        QVERIFY2(st2.hostOps.empty(), hostOps(st2).c_str());
        // Not the recorded input's branch again: relu and sigmoid differ on this input.
        double sum = 0;
        for (double v : x) sum += v;
        const Graph* notTaken = g.subgraph(sum > 0 ? "false_graph_0" : "true_graph_0");
        auto other = reference(*notTaken, {neg[2], neg[1], neg[0]});  // operands (b, W, x)
        QVERIFY2(other.ok(), other.ok() ? "" : other.error().str().c_str());
        QVERIFY(!compareAll(*out2, *other).empty());

        // Profiled: the cond is an extern step, not a host one.
        auto prof = (*cg)->profile(nc.req.inputs, {}, 0);
        QVERIFY2(prof.ok(), prof.ok() ? "" : prof.error().str().c_str());
        bool condStep = false;
        for (const auto& s : *prof)
            if (!s.nodes.empty() && s.nodes[0] == "cond") condStep = s.kind == "extern" && s.name == "subgraph";
        QVERIFY(condStep);
    }

    void nested_cond_all_paths() {
        SKIP_WITHOUT_DEVICE();
        auto f = fxtest::loadSubgraphCase("nested_cond.py");
        QVERIFY(f);
        const Graph& g = f->graphs[0].executable();
        // (sign of sum x, sign of sum w): true/true, true/false, false.
        const std::vector<std::pair<double, double>> paths{{0.5, 0.5}, {0.5, -0.5}, {-0.5, 0.5}};
        const std::vector<size_t> branchRuns{2, 2, 1};
        std::vector<Value> first{filled({4, 8}, 0.5, 1), filled({8, 4}, 0.5, 2), filled({6, 8}, 0.0, 3)};
        auto cg = cg::cuda::CompiledGraph::compile(g, first);
        QVERIFY2(cg.ok(), cg.ok() ? "" : cg.error().str().c_str());
        QVERIFY((*cg)->fallbackOps().empty());
        std::vector<std::vector<Value>> outs;
        for (size_t p = 0; p < paths.size(); ++p) {
            std::vector<Value> in{filled({4, 8}, paths[p].first, 1), filled({8, 4}, paths[p].second, 2),
                                  filled({6, 8}, 0.0, 3)};
            cg::cuda::RunStats st;
            auto out = (*cg)->run(in, {}, 0, {}, &st);
            QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
            auto ref = reference(g, in);
            QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
            const std::string c = compareAll(*out, *ref);
            QVERIFY2(c.empty(), qPrintable(QString("path %1: %2").arg(p).arg(c.c_str())));
            QVERIFY2(st.hostOps.empty(), hostOps(st).c_str());
            QCOMPARE(st.subgraphRuns, branchRuns[p]);
            outs.push_back(std::move(out).value());
        }
        // Three different results: each path computed something of its own.
        QVERIFY(!compareAll(outs[0], outs[1]).empty());
        QVERIFY(!compareAll(outs[0], outs[2]).empty());
        // Repeated runs on device-resident inputs reuse the branches' executors.
        auto bs = (*cg)->benchmark(first, {}, 3, 1);
        QVERIFY2(bs.ok(), bs.ok() ? "" : bs.error().str().c_str());
        QVERIFY2(bs->run.hostOps.empty(), hostOps(bs->run).c_str());
        QCOMPARE(bs->run.subgraphRuns, size_t(2));
    }

    void checkpoint_body_on_device() {
        SKIP_WITHOUT_DEVICE();
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        auto rs = fxtest::loadRecordedStage(fxtest::corpus() / "checkpointed" / "numerics" / "dynamo");
        QVERIFY2(rs.ok(), rs.ok() ? "" : rs.error().str().c_str());
        auto cg = cg::cuda::CompiledGraph::compile(rs->graph(), rs->inputs);
        QVERIFY2(cg.ok(), cg.ok() ? "" : cg.error().str().c_str());
        QVERIFY((*cg)->fallbackOps().count("higher_order.tag_activation_checkpoint") == 0);
        cg::cuda::RunStats st;
        auto out = (*cg)->run(rs->inputs, {}, 0, {}, &st);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        const std::string c = compareAll(*out, rs->expect);
        QVERIFY2(c.empty(), c.c_str());
        QVERIFY2(st.hostOps.count("higher_order.tag_activation_checkpoint") == 0, hostOps(st).c_str());
        QCOMPARE(st.subgraphRuns, size_t(1));
        qInfo("host ops inside the body: %s", hostOps(st).c_str());
    }

    void error_in_branch_names_cond() {
        SKIP_WITHOUT_DEVICE();
        auto f = fxtest::loadSubgraphCase("cond_bad_predicate.py");
        QVERIFY(f);
        const Graph& g = f->graphs[0].executable();
        std::vector<Value> in{fxtest::tv({4}, {1, -2, 3, 4}), fxtest::tv({2}, {1, -1})};
        // The reference executor refuses it too: the graph is wrong, not the backend.
        QVERIFY(!reference(g, in).ok());
        auto cg = cg::cuda::CompiledGraph::compile(g, in);
        QVERIFY2(cg.ok(), cg.ok() ? "" : cg.error().str().c_str());
        auto out = (*cg)->run(in);
        QVERIFY(!out.ok());
        const std::string msg = out.error().message;
        QVERIFY2(msg.find("in the true branch of 'cond': ") == 0, msg.c_str());
        QVERIFY2(msg.find("one element") != std::string::npos, msg.c_str());
        // The false branch has no inner cond: it runs.
        std::vector<Value> neg{fxtest::tv({4}, {-1, -2, 3, -4}), in[1]};
        auto ok = (*cg)->run(neg);
        QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().str().c_str());
        auto ref = reference(g, neg);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        const std::string c = compareAll(*ok, *ref);
        QVERIFY2(c.empty(), c.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCudaExecSubgraphs)
#include "tst_cuda_exec_subgraphs.moc"
