// Every pass preserves numerics: each recorded AOT graph of the corpus (joint, forward,
// backward, inference) is run through the joint pipeline (and the post-grad pipeline), and the
// result must reproduce PyTorch's recorded outputs on the recorded inputs (rel_err <= 1e-4 fp32,
// the reference executor's rule with its fp64 second opinion). No pass may fail.
#include "test_util.h"

#include "exec/compare.h"
#include "exec/run_check.h"
#include "import/loader.h"
#include "transforms/passes.h"

#include <filesystem>
#include <set>

using namespace fxray;
namespace fs = std::filesystem;

class TestPipelineNumerics : public QObject {
    Q_OBJECT
private slots:
    void run_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("stage");
        QTest::addColumn<QString>("pipeline");
        if (!fxtest::haveCorpus()) return;
        std::vector<std::tuple<std::string, std::string, std::string>> rows;
        for (const auto& model : fs::directory_iterator(fxtest::corpus()))
            for (const char* stage : {"joint", "forward", "backward", "inference"})
                if (fs::exists(model.path() / "numerics" / (std::string(stage) + ".py")) &&
                    fs::is_directory(model.path() / "numerics" / stage / "inputs"))
                    for (const char* pipeline : {"joint", "post-grad"})
                        rows.emplace_back(model.path().filename().string(), stage, pipeline);
        std::sort(rows.begin(), rows.end());
        for (auto& [m, s, p] : rows)
            QTest::newRow((m + "/" + s + "/" + p).c_str())
                << QString::fromStdString(m) << QString::fromStdString(s) << QString::fromStdString(p);
    }

    void run() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, model);
        QFETCH(QString, stage);
        QFETCH(QString, pipeline);
        fs::path num = fxtest::corpus() / model.toStdString() / "numerics";
        auto f = loadFile(num / (stage.toStdString() + ".py"));
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        Graph& g = *f->graphs[0].graph;
        auto phs = g.placeholders();
        auto inputs = readNpyFolder(num / stage.toStdString() / "inputs", phs.size());
        QVERIFY(inputs.ok());
        for (size_t i = 0; i < inputs->size(); ++i)
            if ((*inputs)[i].isTensor()) (*inputs)[i].t = withAnnotatedStrides((*inputs)[i].t, *phs[i]);
        auto expect = readNpyFolder(num / stage.toStdString() / "outputs", g.outputs().size());
        QVERIFY(expect.ok());

        RunRequest req;
        // PyTorch's random streams are not reproduced: values derived from random ops are pinned
        // to what the forward graph recorded under the same node name.
        auto pins = fxtest::recordedRandomPins(g, num);
        QVERIFY2(pins, "forward.py or its recorded outputs cannot be read");
        req.pins = std::move(*pins);

        auto pm = buildPipeline(pipeline.toStdString());
        QVERIFY(pm.ok());
        CompileTrace trace = (*pm)->run(g);
        for (const auto& fl : trace.failures) QFAIL(qPrintable(QString::fromStdString("pass " + fl.pass + " failed: " + fl.message)));
        QVERIFY2(g.verify().ok(), "the graph after the pipeline does not verify");
        // Pinned nodes must survive the pipeline, or the comparison would use fresh randomness.
        for (const auto& [name, v] : req.pins) QVERIFY2(g.find(name), qPrintable(QString::fromStdString("pinned node " + name + " is gone")));

        req.inputs = std::move(inputs).value();
        auto res = runAndCheck(g, req, &*expect);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        int compared = 0;
        for (const auto& c : res->comparisons) {
            if (!c.ok)
                QFAIL(qPrintable(QString("output %1: rel_err %2 (tolerance %3) %4")
                                     .arg(c.index).arg(c.relErr).arg(c.tolerance).arg(QString::fromStdString(c.note))));
            compared += (*expect)[c.index].isTensor();
        }
        QVERIFY(compared > 0);
    }
};

QTEST_GUILESS_MAIN(TestPipelineNumerics)
#include "tst_pipeline_numerics.moc"
