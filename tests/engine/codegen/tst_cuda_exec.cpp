// The CUDA backend against PyTorch (label gpu): every recorded AOT graph run of the corpus
// (joint, forward, backward, inference) compiled to CUDA and run on the GPU with its recorded
// inputs must reproduce the recorded outputs (rel_err <= 1e-4 fp32, <= 1e-2 fp16, exact for
// integers), with the input conventions and random-value pins of the CPU backend's test; no
// subgraph op (cond_subgraph's cond) runs on the host.
// Skipped with the reason when there is no usable device.
#include "numerics_case.h"

#include "codegen/cuda/cuda_backend.h"
#include "exec/compare.h"
#include "import/loader.h"

#include <filesystem>

using namespace fxray;
namespace fs = std::filesystem;

class TestCudaExec : public QObject {
    Q_OBJECT
private slots:
    void run_data() { fxtest::addNumericsRows(); }

    void run() {
        if (Status s = cg::cuda::requireDevice(); !s.ok()) QSKIP(qPrintable(QString::fromStdString(s.error().message)));
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, model);
        QFETCH(QString, stage);
        fxtest::NumericsCase nc;
        const std::string problem = fxtest::loadNumericsCase(model.toStdString(), stage.toStdString(), nc);
        QVERIFY2(problem.empty(), problem.c_str());
        Graph& g = nc.graph();
        RunRequest& req = nc.req;
        const std::vector<Value>* expect = &nc.expect;
        cg::cuda::CudaRunInfo info;
        auto res = cg::cuda::runAndCheckCuda(g, req, expect, &info);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        int compared = 0;
        double worst = 0;
        for (const auto& c : res->comparisons) {
            if (!c.ok)
                QFAIL(qPrintable(QString("output %1: rel_err %2 (tolerance %3) max_abs_err %4 %5")
                                     .arg(c.index)
                                     .arg(c.relErr)
                                     .arg(c.tolerance)
                                     .arg(c.maxAbsErr)
                                     .arg(QString::fromStdString(c.note))));
            compared += (*expect)[c.index].isTensor();
            worst = std::max(worst, c.relErr);
        }
        QVERIFY(compared > 0);
        std::string host;
        for (const auto& [op, n] : info.run.hostOps) host += " " + op + " x" + std::to_string(n);
        // Subgraph ops run their subgraphs compiled for the device, never on the host.
        for (const auto& [op, n] : info.run.hostOps) QVERIFY2(op.rfind("higher_order.", 0) != 0, host.c_str());
        if (model == "cond_subgraph") {
            QVERIFY2(info.run.hostOps.empty(), host.c_str());
            QCOMPARE(info.run.subgraphRuns, size_t(1));
        }
        qInfo("RESULT %s/%s ok max_rel_err %.3g | %zu kernels, %zu launches, %zu gemms, %zu device externs | compile "
              "%.0f ms (nvrtc %.0f) run %.1f ms | host:%s",
              qPrintable(model), qPrintable(stage), worst, info.kernels, info.run.kernelLaunches, info.run.gemms,
              info.run.deviceExterns, info.compile.totalMs, info.compile.nvrtcMs, res->ms,
              host.empty() ? " none" : host.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCudaExec)
#include "tst_cuda_exec.moc"
