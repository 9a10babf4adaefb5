// The CUDA backend against PyTorch (label gpu): every recorded AOT graph run of the corpus
// (joint, forward, backward, inference) compiled to CUDA and run on the GPU with its recorded
// inputs must reproduce the recorded outputs (rel_err <= 1e-4 fp32, <= 1e-2 fp16, exact for
// integers), with the input conventions and random-value pins of the CPU backend's test.
// Skipped with the reason when there is no usable device.
#include "test_util.h"

#include "codegen/cuda/cuda_backend.h"
#include "exec/compare.h"
#include "import/loader.h"

#include <filesystem>

using namespace fxray;
namespace fs = std::filesystem;

class TestCudaExec : public QObject {
    Q_OBJECT
private slots:
    void run_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("stage");
        if (!fxtest::haveCorpus()) return;
        std::vector<std::pair<std::string, std::string>> rows;
        for (const auto& model : fs::directory_iterator(fxtest::corpus()))
            for (const char* stage : {"joint", "forward", "backward", "inference"})
                if (fs::exists(model.path() / "numerics" / (std::string(stage) + ".py")) &&
                    fs::is_directory(model.path() / "numerics" / stage / "inputs"))
                    rows.emplace_back(model.path().filename().string(), stage);
        std::sort(rows.begin(), rows.end());
        for (auto& [m, s] : rows)
            QTest::newRow((m + "/" + s).c_str()) << QString::fromStdString(m) << QString::fromStdString(s);
    }

    void run() {
        if (Status s = cg::cuda::requireDevice(); !s.ok()) QSKIP(qPrintable(QString::fromStdString(s.error().message)));
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, model);
        QFETCH(QString, stage);
        fs::path num = fxtest::corpus() / model.toStdString() / "numerics";
        auto f = loadFile(num / (stage.toStdString() + ".py"));
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        Graph& g = *f->graphs[0].graph;
        auto phs = g.placeholders();
        auto inputs = readNpyFolder(num / stage.toStdString() / "inputs", phs.size());
        QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
        for (size_t i = 0; i < inputs->size(); ++i)
            if ((*inputs)[i].isTensor()) (*inputs)[i].t = withAnnotatedStrides((*inputs)[i].t, *phs[i]);
        RunRequest req;
        auto pins = fxtest::recordedRandomPins(g, num);
        QVERIFY2(pins, "forward.py or its recorded outputs cannot be read");
        req.pins = std::move(*pins);
        req.inputs = std::move(inputs).value();
        auto expect = readNpyFolder(num / stage.toStdString() / "outputs", g.outputs().size());
        QVERIFY(expect.ok());
        cg::cuda::CudaRunInfo info;
        auto res = cg::cuda::runAndCheckCuda(g, req, &*expect, &info);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        int compared = 0;
        double worst = 0;
        for (const auto& c : res->comparisons) {
            if (!c.ok)
                QFAIL(qPrintable(QString("output %1: rel_err %2 (tolerance %3) max_abs_err %4 %5")
                                     .arg(c.index).arg(c.relErr).arg(c.tolerance).arg(c.maxAbsErr)
                                     .arg(QString::fromStdString(c.note))));
            compared += (*expect)[c.index].isTensor();
            worst = std::max(worst, c.relErr);
        }
        QVERIFY(compared > 0);
        std::string host;
        for (const auto& [op, n] : info.run.hostOps) host += " " + op + " x" + std::to_string(n);
        qInfo("RESULT %s/%s ok max_rel_err %.3g | %zu kernels, %zu launches, %zu gemms | compile %.0f ms (nvrtc %.0f) run %.1f ms | host:%s",
              qPrintable(model), qPrintable(stage), worst, info.kernels, info.run.kernelLaunches, info.run.gemms,
              info.compile.totalMs, info.compile.nvrtcMs, res->ms, host.empty() ? " none" : host.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCudaExec)
#include "tst_cuda_exec.moc"
