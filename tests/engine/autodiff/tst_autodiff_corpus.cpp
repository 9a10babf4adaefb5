// The joint graph against PyTorch's. For every training model of the corpus:
// - built from `graphs/export_graph.py`, the joint graph has the inputs PyTorch's joint graph has
//   (primals in Dynamo's order, then tangents), returns the same outputs (None where PyTorch
//   returns None), reproduces PyTorch's recorded joint outputs on PyTorch's recorded inputs
//   (rel_err <= 1e-4, rounding-noise outputs judged against fp64), and has a node count within
//   20% of PyTorch's;
// - built from the Dynamo graph (lowered to ATen), it is PyTorch's joint graph node for node:
//   the same printed text, names and annotations included.
#include "test_util.h"

#include "autodiff/export_inputs.h"
#include "autodiff/joint_builder.h"
#include "exec/compare.h"
#include "exec/run_check.h"
#include "exec/shape_inference.h"
#include "import/dynamo_lowering.h"
#include "import/fx_text_reader.h"
#include "import/loader.h"
#include "import/npy.h"
#include "ir/printer.h"

#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

const char* kTrainingModels[] = {"mlp",    "attention",          "gpt2",        "bert", "resnet18", "ln_gelu",
                                 "pad_mm", "randperm_index_add", "checkpointed"};

fs::path modelDir(const QString& m) { return fxtest::corpus() / m.toStdString(); }

/// The Dynamo graph of a model (the numerics run's, else the capture's).
std::unique_ptr<Graph> dynamoGraph(const fs::path& dir) {
    for (const char* f : {"numerics/dynamo.py", "graphs/dynamo_graph.py"})
        if (fs::exists(dir / f)) {
            auto g = readFxFile(dir / f);
            if (g.ok()) return std::move(g).value();
        }
    return nullptr;
}

/// The requires_grad flags of PyTorch's run: its joint graph returns a gradient exactly for the
/// primals that required one (no graph text records the flag itself).
std::vector<std::string> gradInputsOf(const Graph& theirs, const std::vector<std::string>& primals) {
    std::vector<std::string> out;
    auto outs = theirs.outputs();
    if (outs.size() < primals.size()) return out;
    for (size_t i = 0; i < primals.size(); ++i)
        if (!outs[outs.size() - primals.size() + i].isNone()) out.push_back(primals[i]);
    return out;
}

/// Builds the joint graph from the model's export graph, with Dynamo's primal order, the lifted
/// constants' values, and the inputs that required grad in PyTorch's run (`theirs`: its joint
/// graph returns a gradient exactly for those; requires_grad is an input property that no graph
/// text records). `zeroDropout`: the numerics were recorded with dropout p = 0.
Expected<JointGraph> jointFromExport(const fs::path& dir, bool zeroDropout, const Graph& theirs) {
    auto f = loadFile(dir / "graphs" / "export_graph.py");
    if (!f.ok()) return f.error();
    Graph& g = *f->graphs[0].graph;
    if (zeroDropout)
        for (const auto& n : g.nodes())
            if (n->opName() == "aten.dropout.default" && n->args.size() > 1) n->args[1] = Argument::ofFloat(0.0);
    auto dyn = dynamoGraph(dir);
    if (!dyn) return makeError("no Dynamo graph for " + dir.string());
    JointOptions opts;
    auto order = primalOrderFromDynamo(g, *dyn);
    if (!order.ok()) return order.error();
    opts.primalOrder = *order;
    opts.constantValues = exportConstantsFromDynamo(g, *dyn);
    opts.gradInputs = GradInputs::Listed;
    opts.requiresGrad = gradInputsOf(theirs, *order);
    return buildJointGraph(g, opts);
}

/// The joint graph of a model's Dynamo graph file, lowered to ATen first.
Expected<JointGraph> jointFromDynamo(const fs::path& file, const Graph& theirs) {
    auto f = loadFile(file);
    if (!f.ok()) return f.error();
    Graph& g = *f->graphs[0].graph;
    if (auto st = lowerToAten(g); !st.ok()) return st.error();
    resolveOps(g);
    inferMeta(g);
    g.rebuildUsers();
    JointOptions opts;
    std::vector<std::string> primals;
    for (const Node* p : g.placeholders()) primals.push_back(p->name());
    opts.gradInputs = GradInputs::Listed;
    opts.requiresGrad = gradInputsOf(theirs, primals);
    return buildJointGraph(g, opts);
}

/// The first line where two printed graphs differ (comments and devices left out), or "".
std::string firstDifference(const Graph& ours, const Graph& theirs) {
    PrintOptions po;
    po.comments = false;
    po.devices = false;
    std::istringstream a(printGraph(ours, po)), b(printGraph(theirs, po));
    std::string la, lb;
    for (int line = 1;; ++line) {
        bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
        if (ea && eb) return {};
        if (ea || eb || la != lb)
            return "line " + std::to_string(line) + ":\n  ours:    " + (ea ? "<end>" : la) +
                   "\n  PyTorch: " + (eb ? "<end>" : lb);
    }
}

/// Nodes computed from a random op (any dropout counts here, p == 0 included; the engine's
/// randomDerived in import/recorded_pins.h excludes p == 0).
std::set<std::string> randomOpDerived(const Graph& g) {
    std::set<const Node*> tainted;
    for (const auto& n : g.nodes()) {
        bool random = n->op() && n->op()->category == OpCategory::Random;
        for (Node* in : n->inputNodes()) random = random || tainted.count(in);
        if (random) tainted.insert(n.get());
    }
    std::set<std::string> names;
    for (auto* n : tainted) names.insert(n->name());
    return names;
}

/// Checks the joint graph's signature against PyTorch's: same placeholder shapes and dtypes in
/// order, same number of outputs, None in the same places.
void compareSignature(const Graph& ours, const Graph& theirs) {
    auto a = ours.placeholders(), b = theirs.placeholders();
    QCOMPARE(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        const auto& ma = a[i]->meta[0];
        const auto& mb = b[i]->meta[0];
        if (ma.shape != mb.shape || ma.dtype != mb.dtype)
            QFAIL(qPrintable(QString("input %1 (%2): ours %3, PyTorch's %4 (%5)")
                                 .arg(i)
                                 .arg(QString::fromStdString(a[i]->name()))
                                 .arg(QString::fromStdString(ma.annotation(false, false)))
                                 .arg(QString::fromStdString(mb.annotation(false, false)))
                                 .arg(QString::fromStdString(b[i]->name()))));
    }
    auto oa = ours.outputs(), ob = theirs.outputs();
    QCOMPARE(oa.size(), ob.size());
    for (size_t i = 0; i < oa.size(); ++i)
        if (oa[i].isNone() != ob[i].isNone())
            QFAIL(qPrintable(QString("output %1: ours %2, PyTorch's %3")
                                 .arg(i)
                                 .arg(oa[i].isNone() ? "None" : "a tensor")
                                 .arg(ob[i].isNone() ? "None" : "a tensor")));
}

void checkNodeCount(const char* what, const QString& model, size_t ours, size_t theirs) {
    const double ratio = double(ours) / double(theirs);
    qInfo("%s %-20s ours %4zu  PyTorch %4zu  (%+.1f%%)", what, qPrintable(model), ours, theirs, 100.0 * (ratio - 1.0));
    if (std::abs(ratio - 1.0) > 0.20)
        QFAIL(qPrintable(QString("node count %1 is not within 20% of PyTorch's %2").arg(ours).arg(theirs)));
}

/// Runs our joint graph on PyTorch's recorded joint inputs and compares with its recorded outputs.
void checkNumerics(const Graph& g, const fs::path& dir) {
    auto phs = g.placeholders();
    auto inputs = readNpyFolder(dir / "numerics" / "joint" / "inputs", phs.size());
    QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
    for (size_t i = 0; i < inputs->size(); ++i)
        if ((*inputs)[i].isTensor()) (*inputs)[i].t = withAnnotatedStrides((*inputs)[i].t, *phs[i]);

    RunRequest req;
    // PyTorch's CUDA generator is not reproduced: random values are pinned to what PyTorch's
    // forward graph recorded under the same node name (its saved values).
    auto tainted = randomOpDerived(g);
    if (!tainted.empty()) {
        auto fw = loadFile(dir / "numerics" / "forward.py");
        QVERIFY(fw.ok());
        auto fwOuts = fw->graphs[0].graph->outputs();
        auto fwVals = readNpyFolder(dir / "numerics" / "forward" / "outputs", fwOuts.size());
        QVERIFY(fwVals.ok());
        for (size_t i = 0; i < fwOuts.size(); ++i)
            if (fwOuts[i].isNode() && tainted.count(fwOuts[i].node->name()) && (*fwVals)[i].isTensor())
                req.pins[fwOuts[i].node->name()] = (*fwVals)[i];
        QVERIFY2(!req.pins.empty(), "random values are used but none was recorded");
    }
    req.inputs = std::move(inputs).value();
    auto expect = readNpyFolder(dir / "numerics" / "joint" / "outputs", g.outputs().size());
    QVERIFY(expect.ok());
    auto res = runAndCheck(g, req, &*expect);
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
        if (c.fp64Judged) qInfo("output %zu judged against fp64 (rel_err %.3g is rounding noise)", c.index, c.relErr);
        compared += (*expect)[c.index].isTensor();
    }
    QVERIFY(compared > 0);
}

}  // namespace

class TestAutodiffCorpus : public QObject {
    Q_OBJECT
private slots:
    void numerics_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : kTrainingModels)
            if (fxtest::haveCorpus() && fs::exists(fxtest::corpus() / m / "numerics" / "joint" / "inputs"))
                QTest::newRow(m) << QString(m);
    }

    /// Our joint graph run on PyTorch's recorded joint inputs gives PyTorch's recorded outputs.
    void numerics() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, model);
        const fs::path dir = modelDir(model);
        auto theirs = loadFile(dir / "numerics" / "joint.py");
        QVERIFY(theirs.ok());
        const Graph& tg = *theirs->graphs[0].graph;
        auto joint = jointFromExport(dir, true, tg);
        QVERIFY2(joint.ok(), joint.ok() ? "" : joint.error().str().c_str());
        const Graph& g = *joint->graph;
        compareSignature(g, tg);
        checkNodeCount("numerics joint", model, g.computeNodeCount(), tg.computeNodeCount());

        checkNumerics(g, dir);
    }

    void exportJoint_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : kTrainingModels)
            if (fxtest::haveCorpus() && fs::exists(fxtest::corpus() / m / "graphs" / "aot_joint_graph.py"))
                QTest::newRow(m) << QString(m);
    }

    /// With the model's own dropout, the joint graph matches the one PyTorch handed the
    /// partitioner: signature and node count (resnet18 included, which has no numerics).
    void exportJoint() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, model);
        const fs::path dir = modelDir(model);
        auto theirs = loadFile(dir / "graphs" / "aot_joint_graph.py");
        QVERIFY(theirs.ok());
        const Graph& tg = *theirs->graphs[0].graph;
        auto joint = jointFromExport(dir, false, tg);
        QVERIFY2(joint.ok(), joint.ok() ? "" : joint.error().str().c_str());
        compareSignature(*joint->graph, tg);
        checkNodeCount("aot_joint_graph", model, joint->graph->computeNodeCount(), tg.computeNodeCount());
        // The printed joint graph reads back to the same graph.
        std::string text = printGraph(*joint->graph);
        auto back = readFxText(text, "joint.py");
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().str().c_str());
        QCOMPARE(printGraph(**back), text);
    }

    void fromDynamo_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("dynamo");
        QTest::addColumn<QString>("joint");
        if (!fxtest::haveCorpus()) return;
        for (const char* m : kTrainingModels) {
            const fs::path dir = fxtest::corpus() / m;
            if (fs::exists(dir / "numerics" / "dynamo.py"))
                QTest::newRow((std::string(m) + "/numerics").c_str()) << QString(m) << "numerics/dynamo.py"
                                                                      << "numerics/joint.py";
            if (fs::exists(dir / "graphs" / "dynamo_graph.py"))
                QTest::newRow((std::string(m) + "/graphs").c_str()) << QString(m) << "graphs/dynamo_graph.py"
                                                                    << "graphs/aot_joint_graph.py";
        }
    }

    /// Built from the Dynamo graph AOT autograd traced, the joint graph is PyTorch's, line for
    /// line; on the numerics run it also reproduces PyTorch's recorded outputs.
    void fromDynamo() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, model);
        QFETCH(QString, dynamo);
        QFETCH(QString, joint);
        const fs::path dir = modelDir(model);
        auto theirs = loadFile(dir / joint.toStdString());
        QVERIFY(theirs.ok());
        const Graph& tg = *theirs->graphs[0].graph;
        auto ours = jointFromDynamo(dir / dynamo.toStdString(), tg);
        QVERIFY2(ours.ok(), ours.ok() ? "" : ours.error().str().c_str());
        checkNodeCount("from Dynamo", model, ours->graph->computeNodeCount(), tg.computeNodeCount());
        std::string diff = firstDifference(*ours->graph, tg);
        QVERIFY2(diff.empty(), diff.c_str());
        if (joint.startsWith("numerics/")) checkNumerics(*ours->graph, dir);
    }
};

QTEST_GUILESS_MAIN(TestAutodiffCorpus)
#include "tst_autodiff_corpus.moc"
