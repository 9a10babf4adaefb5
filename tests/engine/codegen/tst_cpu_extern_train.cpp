// The CPU backend's training extern kernels (codegen/cpu/extern_train.cpp: batch norm in
// training mode and its backward, max pooling with indices and its backward, convolution
// backward) on resnet18's joint graph, which the corpus has no recorded numerics for: every
// output must match the reference executor's (whose kernels the corpus numerics check against
// PyTorch) within the fp32 tolerance, and none of those ops may fall back to the reference kernel.
//
// The relu outputs are pinned to the reference's values on both sides. A relu's result decides
// which gradients threshold_backward (and max pooling's indices) let through, so an activation
// whose exact value lies within fp32 rounding noise of zero is a coin flip between two correct
// fp32 implementations, and the flip moves a whole gradient element. With seed 7 one such element
// exists: relu_7[12307]'s input is +1.9e-6 exactly (fp64), +2.3e-6 on the reference and -7.2e-7
// on the CPU backend when OpenBLAS uses its SSE3 ("Prescott") sgemm, since convolution_8 there
// rounds to -38.733078 against an exact -38.733152 (K = 1152, 19 ulp, normal for fp32 GEMM) and
// batch norm cancels it down to ~1e-6; threshold_backward_9 then zeroes a gradient of 0.62 and 56
// downstream nodes differ. Which GEMM OpenBLAS picks depends on the CPU it detects, so without the
// pins the test passed or failed by host. The extern kernels under test still see every
// activation the CPU backend computes from the pinned relus.
#include "test_util.h"

#include "codegen/cpu/cpu_backend.h"
#include "exec/compare.h"
#include "exec/node_values.h"
#include "exec/run_check.h"
#include "import/loader.h"

#include <optional>

using namespace fxray;

class TestCpuExternTrain : public QObject {
    Q_OBJECT
private slots:
    void resnet18Joint() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        auto f = loadFile(fxtest::corpus() / "resnet18" / "graphs" / "aot_joint_graph.py");
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        Graph& g = f->graphs[0].executable();
        auto inputs = randomInputs(g, 7);
        QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
        RunRequest req;
        req.inputs = *inputs;
        std::map<std::string, Value> nodeValues;
        auto observed = runReferenceObserved(g, req, nodeValues);
        QVERIFY2(observed.ok(), observed.ok() ? "" : observed.error().str().c_str());
        cg::cpu::CompileOptions opts;
        for (const auto& n : g.nodes()) {
            if (n->opName() != "aten.relu.default") continue;
            auto v = nodeValues.find(n->name());
            QVERIFY2(v != nodeValues.end(), n->name().c_str());
            req.pins[n->name()] = v->second;
            opts.pinned.push_back(n->name());
        }
        QCOMPARE(opts.pinned.size(), size_t(17));  // the stem's and two per basic block
        auto ref = runAndCheck(g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        auto cg = cg::cpu::CompiledGraph::compile(g, *inputs, opts);
        QVERIFY2(cg.ok(), cg.ok() ? "" : cg.error().str().c_str());
        QVERIFY2((*cg)->fallbackOps().empty(),
                 qPrintable(QString("fallbacks: %1").arg((*cg)->fallbackOps().begin()->first.c_str())));
        auto out = (*cg)->run(*inputs, req.pins);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        QCOMPARE(out->size(), ref->outputs.size());
        int compared = 0;
        // Outputs whose rel_err fails get PyTorch's same() second opinion against an fp64 run, as
        // `fxray run` judges them: a deep gradient (the stem's weight, after 20 layers of backward
        // with batch 2) differs between two fp32 summation orders by more than rel_err allows, and
        // which order is closer to the exact value is what matters. The order depends on the host's
        // vector width (AVX-512 machines fail rel_err alone where AVX2 ones pass).
        std::optional<RunResult> ref64;
        for (size_t i = 0; i < out->size(); ++i) {
            auto c = compareValues(i, (*out)[i], ref->outputs[i]);
            if (!c.ok && c.note.empty()) {
                if (!ref64) {
                    RunRequest req64 = req;
                    req64.fp64 = true;
                    auto r64 = runAndCheck(g, req64, nullptr);
                    QVERIFY2(r64.ok(), r64.ok() ? "" : r64.error().str().c_str());
                    ref64 = std::move(r64).value();
                }
                judgeWithFp64(c, (*out)[i], ref->outputs[i], ref64->outputs[i]);
            }
            QVERIFY2(c.ok,
                     qPrintable(QString("output %1: rel_err %2 max_abs_err %3 %4 (fp64 RMSE: ours %5, reference %6)")
                                    .arg(i)
                                    .arg(c.relErr)
                                    .arg(c.maxAbsErr)
                                    .arg(QString::fromStdString(c.note))
                                    .arg(c.rmseOurs)
                                    .arg(c.rmseExpected)));
            if (c.fp64Judged)
                qInfo("output %zu judged against fp64: RMSE ours %g, reference %g", i, c.rmseOurs, c.rmseExpected);
            compared += (*out)[i].isTensor();
        }
        QVERIFY(compared > 40);  // activations, saved statistics, running stats and 62 gradients
    }
};

QTEST_GUILESS_MAIN(TestCpuExternTrain)
#include "tst_cpu_extern_train.moc"
