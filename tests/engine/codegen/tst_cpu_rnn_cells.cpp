// The CPU backend's lowerings of the fused LSTM / GRU cells and their backwards (codegen/
// lower_rnn.cpp) and of leaky_relu_backward / elu / elu_backward against the reference executor,
// on every form of the ops (biases or none, a missing grad_cy): all compiled, none on the host.
#include "rnn_cells_graph.h"
#include "test_util.h"

#include "codegen/cpu/cpu_backend.h"
#include "exec/run_check.h"

using namespace fxray;

class TestCpuRnnCells : public QObject {
    Q_OBJECT
private slots:
    void cellsMatchReferenceWithoutFallbacks() {
        auto [params, body] = fxtest::rnnCellsGraph("cpu");
        auto g = fxtest::parseForward(params, body);
        QVERIFY(g);
        auto in = randomInputs(*g, 11);
        QVERIFY2(in.ok(), in.ok() ? "" : in.error().str().c_str());
        RunRequest req;
        req.inputs = *in;
        auto ref = runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        auto cg = cg::cpu::CompiledGraph::compile(*g, *in);
        QVERIFY2(cg.ok(), cg.ok() ? "" : cg.error().str().c_str());
        QVERIFY2((*cg)->fallbackOps().empty(), (*cg)->fallbackOps().begin()->first.c_str());
        auto out = (*cg)->run(*in);
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        QCOMPARE(out->size(), ref->outputs.size());
        for (size_t i = 0; i < out->size(); ++i) {
            auto cmp = compareValues(i, (*out)[i], ref->outputs[i]);
            QVERIFY2(cmp.ok, qPrintable(QString("output %1 rel_err %2").arg(i).arg(cmp.relErr)));
        }
    }
};

QTEST_GUILESS_MAIN(TestCpuRnnCells)
#include "tst_cpu_rnn_cells.moc"
