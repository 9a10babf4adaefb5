// The CPU backend against PyTorch: every recorded AOT graph run of the corpus (joint, forward,
// backward, inference) compiled with lowering + fusion + LLVM and run on its recorded inputs
// must reproduce the recorded outputs (rel_err <= 1e-4 fp32, <= 1e-2 fp16, exact for integers),
// with the same input conventions and random-value pins as the reference executor's test
// (tests/engine/exec/tst_corpus_numerics.cpp). No op may run on the reference kernel (no
// fallback, joint graphs included).
#include "numerics_case.h"

#include "codegen/cpu/cpu_backend.h"
#include "exec/compare.h"
#include "import/loader.h"

#include <filesystem>

using namespace fxray;
namespace fs = std::filesystem;

class TestCpuBackendCorpus : public QObject {
    Q_OBJECT
private slots:
    void run_data() { fxtest::addNumericsRows(); }

    void run() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, model);
        QFETCH(QString, stage);
        fxtest::NumericsCase nc;
        const std::string problem = fxtest::loadNumericsCase(model.toStdString(), stage.toStdString(), nc);
        QVERIFY2(problem.empty(), problem.c_str());
        Graph& g = nc.graph();
        RunRequest& req = nc.req;
        const std::vector<Value>* expect = &nc.expect;
        cg::cpu::CpuRunInfo info;
        auto res = cg::cpu::runAndCheckCpu(g, req, expect, &info);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        int compared = 0;
        for (const auto& c : res->comparisons) {
            if (!c.ok)
                QFAIL(qPrintable(QString("output %1: rel_err %2 (tolerance %3) max_abs_err %4 %5")
                                     .arg(c.index)
                                     .arg(c.relErr)
                                     .arg(c.tolerance)
                                     .arg(c.maxAbsErr)
                                     .arg(QString::fromStdString(c.note))));
            compared += (*expect)[c.index].isTensor();
        }
        QVERIFY(compared > 0);
        std::string fb;
        for (const auto& [op, n] : info.fallbacks) fb += " " + op + " x" + std::to_string(n);
        qInfo("%zu kernels, %zu extern calls, compile %.0f ms, fallback:%s", info.kernels, info.externCalls,
              info.compile.totalMs, fb.empty() ? " none" : fb.c_str());
        // No op of the corpus runs on the reference kernel: cond runs its branches compiled by
        // this backend, randperm and native_dropout are extern kernels on fxray's generator
        // (pinned to PyTorch's values here), the fused attention kernels are lowered.
        QVERIFY2(info.fallbacks.empty(),
                 qPrintable(QString("reference-kernel fallback:%1").arg(QString::fromStdString(fb))));
    }
};

QTEST_GUILESS_MAIN(TestCpuBackendCorpus)
#include "tst_cpu_backend_corpus.moc"
