// Every pass preserves numerics: each recorded AOT graph of the corpus (joint, forward,
// backward, inference) is run through every pipeline (joint, post-grad, inductor, freezing —
// the latter without parameter values, and on inference graphs also with the parameters
// inlined from the recorded inputs), and each recorded Dynamo graph through pre-grad and
// inductor; the result must reproduce PyTorch's recorded outputs on the recorded inputs
// (rel_err <= 1e-4 fp32, the reference executor's rule with its fp64 second opinion). No pass
// may fail.
#include "test_util.h"

#include "exec/compare.h"
#include "exec/run_check.h"
#include "exec/shape_inference.h"
#include "import/dynamo_lowering.h"
#include "import/loader.h"
#include "import/npy.h"
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
            for (const char* stage : {"joint", "forward", "backward", "inference", "dynamo"})
                if (fs::exists(model.path() / "numerics" / (std::string(stage) + ".py")) &&
                    fs::is_directory(model.path() / "numerics" / stage / "inputs")) {
                    std::vector<const char*> pls = {"joint", "post-grad", "inductor", "freezing"};
                    if (std::string(stage) == "inference") pls.push_back("freezing+params");
                    if (std::string(stage) == "dynamo") pls = {"pre-grad", "inductor"};
                    for (const char* pipeline : pls)
                        rows.emplace_back(model.path().filename().string(), stage, pipeline);
                }
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
        const bool dynamo = stage == "dynamo";
        if (dynamo && (!f->graphs[0].lowered || !f->graphs[0].loweredUnknownOps.empty()))
            QSKIP("the loader cannot lower this Dynamo graph");
        if (dynamo && !fxtest::randomDerived(*f->graphs[0].lowered).empty())
            QSKIP("random values of a torch-level graph are not pinned to PyTorch's");
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

        std::string pl = pipeline.toStdString();
        PipelineConfig cfg;
        std::map<std::string, Value> byName;
        for (size_t i = 0; i < phs.size() && i < inputs->size(); ++i) byName[phs[i]->name()] = (*inputs)[i];
        if (pl == "freezing+params") {
            pl = "freezing";
            auto dyn = loadFile(num / "dynamo.py");
            QVERIFY(dyn.ok());
            auto isParam = parameterPlaceholders(g, *dyn->graphs[0].graph);
            QVERIFY(isParam.ok());
            auto fi = freezeInputsFromValues(g, *isParam, *inputs);
            QVERIFY(fi.ok());
            cfg.freeze = std::make_shared<FreezeInputs>(std::move(fi).value());
        }
        auto pm = buildPipeline(pl, {}, cfg);
        QVERIFY(pm.ok());
        CompileTrace trace = (*pm)->run(g);
        for (const auto& fl : trace.failures)
            QFAIL(qPrintable(QString::fromStdString("pass " + fl.pass + " failed: " + fl.message)));
        QVERIFY2(g.verify().ok(), "the graph after the pipeline does not verify");
        // Pinned nodes must survive the pipeline, or the comparison would use fresh randomness.
        for (const auto& [name, v] : req.pins)
            QVERIFY2(g.find(name), qPrintable(QString::fromStdString("pinned node " + name + " is gone")));

        // Freezing removes the parameter inputs: feed the preserved ones by name.
        for (Node* p : g.placeholders()) req.inputs.push_back(byName.at(p->name()));
        // pre-grad leaves a torch-level graph: run it lowered, as the loader does.
        std::unique_ptr<Graph> lowered;
        const Graph* run = &g;
        if (dynamo && isTorchLevel(g)) {
            lowered = g.clone();
            QVERIFY(lowerToAten(*lowered).ok());
            resolveOps(*lowered);
            (void)inferMeta(*lowered);
            lowered->rebuildUsers();
            run = lowered.get();
        }
        auto res = runAndCheck(*run, req, &*expect);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        int compared = 0;
        for (const auto& c : res->comparisons) {
            if (!c.ok)
                QFAIL(qPrintable(QString("output %1: rel_err %2 (tolerance %3) %4")
                                     .arg(c.index)
                                     .arg(c.relErr)
                                     .arg(c.tolerance)
                                     .arg(QString::fromStdString(c.note))));
            compared += (*expect)[c.index].isTensor();
        }
        QVERIFY(compared > 0);
    }
};

QTEST_GUILESS_MAIN(TestPipelineNumerics)
#include "tst_pipeline_numerics.moc"
