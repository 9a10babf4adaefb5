// Passes on symbolic graphs: every graph of ../corpus_dynamic (forward and backward of each model,
// made with torch.compile(dynamic=True)) goes through the joint, post-grad and inductor
// pipelines once, and the one transformed graph must still reproduce BOTH of PyTorch's recorded
// runs (forward/ and forward_2/: two sizes of the same symbols). A pass that compared sizes as
// numbers (-1 == -1) or baked one size into the graph fails one of the two.
#include "test_util.h"

#include "exec/compare.h"
#include "exec/run_check.h"
#include "exec/shape_binding.h"
#include "import/loader.h"
#include "import/npy.h"
#include "ir/printer.h"
#include "transforms/passes.h"

#include <QCoreApplication>

#include <filesystem>
#include <fstream>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

fs::path dynamicCorpus() { return fxtest::corpus().parent_path() / "corpus_dynamic"; }

/// One recorded run's inputs as the CLI reads them: SymInt files become ints, tensors take the
/// annotated layout at the binding read off the inputs.
Expected<std::vector<Value>> recordedInputs(const Graph& g, const fs::path& dir) {
    auto phs = g.placeholders();
    auto vals = readNpyFolder(dir, phs.size());
    if (!vals.ok()) return vals.error();
    std::vector<Value> inputs = std::move(vals).value();
    if (Status st = layOutRecordedInputs(g, inputs); !st.ok()) return st.error();
    return inputs;
}

/// Runs g on the recorded inputs of `dir` and compares with its outputs: "" when every output
/// matches (the reference executor's tolerance, fp64 second opinion), else what differs.
std::string reproduces(const Graph& g, const fs::path& dir) {
    auto inputs = recordedInputs(g, dir / "inputs");
    if (!inputs.ok()) return inputs.error().str();
    auto expect = readNpyFolder(dir / "outputs", g.outputs().size());
    if (!expect.ok()) return expect.error().str();
    RunRequest req;
    req.inputs = std::move(inputs).value();
    auto res = runAndCheck(g, req, &*expect);
    if (!res.ok()) return res.error().str();
    int compared = 0;
    for (const auto& c : res->comparisons) {
        if (!c.ok)
            return "output " + std::to_string(c.index) + ": rel_err " + std::to_string(c.relErr) + " (tolerance " +
                   std::to_string(c.tolerance) + ") " + c.note;
        compared += (*expect)[c.index].isTensor();
    }
    return compared > 0 ? std::string() : "no tensor output was compared";
}

}  // namespace

class TestDynamicPipelines : public QObject {
    Q_OBJECT
private slots:
    void run_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("stage");
        QTest::addColumn<QString>("pipeline");
        if (!fs::exists(dynamicCorpus())) return;
        std::vector<std::string> models;
        for (const auto& d : fs::directory_iterator(dynamicCorpus()))
            if (d.is_directory()) models.push_back(d.path().filename().string());
        std::sort(models.begin(), models.end());
        for (const auto& m : models)
            for (const char* stage : {"forward", "backward"}) {
                fs::path num = dynamicCorpus() / m / "numerics";
                if (!fs::is_directory(num / stage / "inputs") ||
                    !fs::is_directory(num / (std::string(stage) + "_2") / "inputs"))
                    continue;
                for (const char* pl : {"joint", "post-grad", "inductor"})
                    QTest::newRow((m + "/" + stage + "/" + pl).c_str())
                        << QString::fromStdString(m) << QString(stage) << QString(pl);
            }
    }

    void run() {
        if (!fs::exists(dynamicCorpus())) QSKIP("corpus_dynamic not found beside the corpus");
        QFETCH(QString, model);
        QFETCH(QString, stage);
        QFETCH(QString, pipeline);
        const fs::path num = dynamicCorpus() / model.toStdString() / "numerics";
        auto f = loadFile(num / (stage.toStdString() + ".py"));
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        Graph& g = *f->graphs[0].graph;
        QVERIFY(graphIsSymbolic(g));
        const std::vector<std::string> before = [&] {
            std::vector<std::string> v;
            for (Node* p : g.placeholders()) v.push_back(p->name());
            return v;
        }();

        auto pm = buildPipeline(pipeline.toStdString());
        QVERIFY(pm.ok());
        CompileTrace trace = (*pm)->run(g);
        for (const auto& fl : trace.failures)
            QFAIL(qPrintable(QString::fromStdString("pass " + fl.pass + " failed: " + fl.message)));
        QVERIFY2(g.verify().ok(), "the graph after the pipeline does not verify");
        std::vector<std::string> after;
        for (Node* p : g.placeholders()) after.push_back(p->name());
        QVERIFY2(after == before, "the pipeline changed the inputs");
        // The printed graph keeps its symbols (a pass must not write a size of one run into it),
        // and reads back: what `fxray compile --out` writes runs at every size too.
        const std::string text = printGraph(g);
        const fs::path out =
            fs::temp_directory_path() / ("fxray_tst_dyn_" + std::to_string(QCoreApplication::applicationPid()) + ".py");
        {
            std::ofstream os(out);
            os << text;
        }
        auto reread = loadFile(out);
        fs::remove(out);
        QVERIFY2(reread.ok(), reread.ok() ? "" : reread.error().str().c_str());
        QVERIFY2(inputSymbols(*reread->graphs[0].graph) == inputSymbols(g), "the printed graph lost its symbols");

        for (const std::string& run : {stage.toStdString(), stage.toStdString() + "_2"}) {
            std::string why = reproduces(g, num / run);
            QVERIFY2(why.empty(), (run + ": " + why).c_str());
            why = reproduces(*reread->graphs[0].graph, num / run);
            QVERIFY2(why.empty(), (run + " (printed and read back): " + why).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestDynamicPipelines)
#include "tst_dynamic_pipelines.moc"
