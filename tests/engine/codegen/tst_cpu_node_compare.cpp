// The CPU backend agrees with the reference executor on every node, not only on the outputs
// (issue 8: "compare --backends ref,cpu agrees on every node"): for every recorded AOT graph run
// of the corpus, with its recorded inputs and random-value pins, every tensor-valued node of the
// graph compiled with every node exposed as an output (exec/node_values.h) matches the reference
// executor's value of that node, judged as run_check judges outputs (rel_err <= 1e-4 fp32,
// <= 1e-2 fp16, exact for integers; a node failing rel_err re-judged against the fp64 run).
// And a divergence injected into one node (a wrong pinned value on the CPU side) is found at
// that node, not before and not later.
//
// Time: every case is run, none skipped (gpt2_12 and resnet18 have no recorded numerics); the
// whole binary takes about 8 s on the 2-core machine, the joints of gpt2 and bert the longest.
#include "numerics_case.h"

#include "codegen/cpu/cpu_backend.h"
#include "exec/node_values.h"
#include "exec/ops/kernel_util.h"

#include <chrono>

using namespace fxray;

namespace {

GraphRunner cpuRunner() {
    return [](const Graph& g, const RunRequest& req) -> Expected<std::vector<Value>> {
        auto r = cg::cpu::runAndCheckCpu(g, req, nullptr);
        if (!r.ok()) return r.error();
        return std::move(r->outputs);
    };
}

/// Reference and CPU node values of one case, judged; fp64 run only when a node fails rel_err.
struct NodeRun {
    std::map<std::string, Value> ref, cpu, ref64;
    std::vector<NodeError> errors;
    std::string problem;
};

NodeRun compareCase(const Graph& g, const RunRequest& refReq, const RunRequest& cpuReq) {
    NodeRun r;
    auto ro = runReferenceObserved(g, refReq, r.ref);
    if (!ro.ok()) {
        r.problem = "reference: " + ro.error().str();
        return r;
    }
    auto co = runExposed(g, cpuReq, cpuRunner(), r.cpu);
    if (!co.ok()) {
        r.problem = "cpu: " + co.error().str();
        return r;
    }
    r.errors = compareNodeValues(g, r.ref, r.cpu, nullptr, "cpu");
    if (firstDivergent(r.errors)) {
        RunRequest req64 = refReq;
        req64.fp64 = true;
        auto o64 = runReferenceObserved(g, req64, r.ref64);
        if (!o64.ok()) {
            r.problem = "fp64 reference: " + o64.error().str();
            return r;
        }
        r.errors = compareNodeValues(g, r.ref, r.cpu, &r.ref64, "cpu");
    }
    return r;
}

}  // namespace

class TestCpuNodeCompare : public QObject {
    Q_OBJECT
private slots:
    void everyNodeAgrees_data() { fxtest::addNumericsRows(); }

    void everyNodeAgrees() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, model);
        QFETCH(QString, stage);
        fxtest::NumericsCase nc;
        const std::string problem = fxtest::loadNumericsCase(model.toStdString(), stage.toStdString(), nc);
        QVERIFY2(problem.empty(), problem.c_str());
        const Graph& g = nc.graph();
        auto t0 = std::chrono::steady_clock::now();
        NodeRun r = compareCase(g, nc.req, nc.req);
        QVERIFY2(r.problem.empty(), r.problem.c_str());
        // Every tensor-valued node the reference saw was reported by the CPU run too.
        auto names = tensorValuedNodes(g, nc.req.inputs);
        QVERIFY2(names.ok(), names.ok() ? "" : names.error().str().c_str());
        QVERIFY(!names->empty());
        for (const auto& n : *names)
            if (r.ref.count(n) && r.ref.at(n).isTensor() && r.ref.at(n).t.hasData())
                QVERIFY2(r.cpu.count(n) && r.cpu.at(n).isTensor(),
                         qPrintable(QString("node %1 not reported").arg(n.c_str())));
        QCOMPARE(r.errors.size(), names->size());
        for (const auto& e : r.errors)
            QVERIFY2(e.ok, qPrintable(QString("node %1 (%2): rel_err %3 max_abs_err %4 %5")
                                          .arg(e.node.c_str())
                                          .arg(e.target.c_str())
                                          .arg(e.relErr)
                                          .arg(e.maxAbsErr)
                                          .arg(e.note.c_str())));
        size_t fp64 = 0;
        for (const auto& e : r.errors) fp64 += e.fp64Judged;
        qInfo("%zu of %zu tensor nodes compared, all agree (%zu by the fp64 rule) (%.0f ms)", r.errors.size(),
              names->size(), fp64,
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }

    /// mlp's forward: t, addmm, relu, t_1, addmm_1. The CPU side gets relu's value times 1.01
    /// (a pin); t and addmm agree, relu is the first divergent node, addmm_1 inherits the error.
    void injectedDivergenceIsFoundAtItsNode() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        fxtest::NumericsCase nc;
        const std::string problem = fxtest::loadNumericsCase("mlp", "forward", nc);
        QVERIFY2(problem.empty(), problem.c_str());
        const Graph& g = nc.graph();
        std::map<std::string, Value> ref;
        auto ro = runReferenceObserved(g, nc.req, ref);
        QVERIFY(ro.ok());
        QVERIFY(ref.count("relu"));
        std::vector<double> v = kern::toDoubles(ref.at("relu").t);
        double nonzero = 0;
        for (double& x : v) nonzero += x != 0, x *= 1.01;
        QVERIFY(nonzero > 0);
        RunRequest wrong = nc.req;
        wrong.pins["relu"] = Value::ofTensor(kern::makeTensor(ref.at("relu").t.meta, v));
        NodeRun r = compareCase(g, nc.req, wrong);
        QVERIFY2(r.problem.empty(), r.problem.c_str());
        const NodeError* first = firstDivergent(r.errors);
        QVERIFY(first);
        QCOMPARE(first->node, std::string("relu"));
        QCOMPARE(first->target, std::string("aten.relu.default"));
        QVERIFY(std::abs(first->relErr - 0.01) < 1e-4);  // exactly the injected 1 %
        std::map<std::string, bool> ok;
        for (const auto& e : r.errors) ok[e.node] = e.ok;
        QVERIFY(ok.count("t") && ok["t"]);
        QVERIFY(ok.count("addmm") && ok["addmm"]);
        QVERIFY(ok.count("addmm_1") && !ok["addmm_1"]);
    }
};

QTEST_GUILESS_MAIN(TestCpuNodeCompare)
#include "tst_cpu_node_compare.moc"
