// Graphs with complex values on the CUDA backend (exec/complex_to_real.h makes them real before
// lowering): Meta-Llama blocks with complex rotary embeddings (forward, backward and Dynamo
// stages, fp32 and bf16, recorded by bench/gen_popular_complex.py) and PyTorch's OpInfo rows of
// complex, polar and view_as_complex, judged against PyTorch's outputs with nothing run on the
// host. Skipped without a device.
#include "complex_rope_cases.h"
#include "cuda_exec_util.h"

using namespace fxray;
using namespace complextest;

class TestCudaExecComplex : public QObject {
    Q_OBJECT
private slots:
    void rope_data() { addRopeRows(); }
    void rope() {
        SKIP_WITHOUT_DEVICE();
        QFETCH(QString, graph);
        QFETCH(QString, stage);
        runMatches(ropeDir() / graph.toStdString() / "numerics" / stage.toStdString(), "cuda");
    }

    void opinfo_data() {
        QTest::addColumn<QString>("graph");
        // cfloat/cdouble (_to_copy into complex) ran through a to_complex device extern before the
        // rewrite; they are real kernels now (tst_cuda_exec_ops no longer lists them).
        for (const char* g : {"complex__default__s0", "complex__default__s1", "polar__default__s0",
                              "polar__default__s1", "view_as_complex__default__s0", "cfloat__default__s0",
                              "cfloat__default__s1", "cdouble__default__s0", "cdouble__default__s1"})
            QTest::newRow(g) << QString(g);
    }
    void opinfo() {
        SKIP_WITHOUT_DEVICE();
        QFETCH(QString, graph);
        const fs::path stem = fxtest::corpus().parent_path() / "opinfo" / graph.toStdString() / "numerics" / "forward";
        if (!fs::exists(stem.string() + ".py")) QSKIP("no OpInfo set beside the corpus");
        runMatches(stem, "cuda");
    }
};

QTEST_GUILESS_MAIN(TestCudaExecComplex)
#include "tst_cuda_exec_complex.moc"
