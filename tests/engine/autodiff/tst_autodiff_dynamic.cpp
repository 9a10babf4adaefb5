// Autodiff of dynamic-shape graphs against PyTorch's (../shared/corpus_dynamic, made with
// torch.compile(dynamic=True)). For every model, the joint graph built from the Dynamo graph
// (lowered to ATen):
// - keeps its sizes symbolic: the tangents and the gradients have the symbolic sizes of
//   PyTorch's backward graph (equal as expressions: the same value at several bindings), and
//   the graph takes PyTorch's SymInt primals;
// - partitioned (min cut, at the default binding), its forward and backward graphs chained
//   together reproduce the same recorded runs at both sizes;
// - where PyTorch recorded runs, reproduces them at BOTH recorded sizes from the one graph: run
//   on the recorded forward inputs plus the recorded tangents (the backward's tangents_*
//   inputs), its forward outputs match the recorded forward outputs and its gradients the
//   recorded backward outputs.
#include "test_util.h"

#include "autodiff/joint_builder.h"
#include "exec/compare.h"
#include "exec/ops/kernel_util.h"
#include "exec/run_check.h"
#include "exec/shape_binding.h"
#include "exec/shape_inference.h"
#include "import/dynamo_lowering.h"
#include "import/fx_text_reader.h"
#include "import/loader.h"
#include "import/npy.h"
#include "partition/partitioner.h"

#include <filesystem>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

fs::path dyn() { return fxtest::corpus().parent_path() / "corpus_dynamic"; }

/// Models with recorded runs, then graph-only ones.
const char* kRunModels[] = {"mlp", "attention", "ln_gelu", "gpt2", "checkpointed"};
const char* kGraphModels[] = {"resnet18"};

std::unique_ptr<Graph> readGraph(const fs::path& file) {
    auto g = readFxFile(file);
    return g.ok() ? std::move(g).value() : nullptr;
}

/// The joint graph of the model's Dynamo graph; the primals that require grad are those
/// PyTorch's backward returns a gradient for (no graph text records requires_grad itself).
Expected<JointGraph> jointOf(const fs::path& num, const Graph& backward) {
    auto f = loadFile(num / "dynamo.py");
    if (!f.ok()) return f.error();
    Graph& g = *f->graphs[0].graph;
    if (auto st = lowerToAten(g); !st.ok()) return st.error();
    resolveOps(g);
    inferMeta(g);
    g.rebuildUsers();
    JointOptions opts;
    opts.gradInputs = GradInputs::Listed;
    auto phs = g.placeholders();
    auto outs = backward.outputs();
    if (outs.size() != phs.size()) return makeError("the backward graph does not return one value per primal");
    for (size_t i = 0; i < phs.size(); ++i)
        if (!outs[i].isNone()) opts.requiresGrad.push_back(phs[i]->name());
    return buildJointGraph(g, opts);
}

/// Bindings to compare symbolic sizes at: every symbol of either graph at a few values.
std::vector<sym::Binding> probeBindings(const Graph& a, const Graph& b) {
    auto syms = inputSymbols(a);
    for (const auto& s : inputSymbols(b))
        if (std::find(syms.begin(), syms.end(), s) == syms.end()) syms.push_back(s);
    std::vector<sym::Binding> out;
    for (int64_t base : {3, 16, 41}) {
        sym::Binding bnd;
        int64_t k = 0;
        for (const auto& s : syms) bnd[s] = sym::Num::ofInt(base + 2 * k++);
        out.push_back(bnd);
    }
    return out;
}

/// The sizes of two metas are the same expressions: equal at every binding.
QString sameSizes(const TensorMeta& ours, const TensorMeta& theirs, const std::vector<sym::Binding>& bindings) {
    if (ours.shape.size() != theirs.shape.size()) return "different ranks";
    for (const auto& bnd : bindings) {
        auto a = bindMeta(ours, bnd), b = bindMeta(theirs, bnd);
        if (!a.ok() || !b.ok()) return QString::fromStdString((a.ok() ? b.error() : a.error()).str());
        if (a->shape != b->shape)
            return QString("at %1: ours %2, PyTorch's %3")
                .arg(QString::fromStdString(sym::bindingStr(bnd)), QString::fromStdString(a->annotation(false, false)),
                     QString::fromStdString(b->annotation(false, false)));
    }
    return {};
}

bool anySymbolic(const TensorMeta& m) { return !m.symShape.empty(); }

}  // namespace

class TestAutodiffDynamic : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fs::exists(dyn() / "README.md")) QSKIP("no corpus_dynamic next to the corpus");
    }

    void sizesStaySymbolic_data() {
        QTest::addColumn<QString>("model");
        for (const char* m : kRunModels) QTest::newRow(m) << m;
        for (const char* m : kGraphModels) QTest::newRow(m) << m;
    }
    void sizesStaySymbolic() {
        QFETCH(QString, model);
        const fs::path num = dyn() / model.toStdString() / "numerics";
        auto bw = readGraph(num / "backward.py");
        QVERIFY(bw);
        auto j = jointOf(num, *bw);
        QVERIFY2(j.ok(), j.ok() ? "" : j.error().str().c_str());
        const Graph& g = *j->graph;
        const auto bindings = probeBindings(g, *bw);

        // PyTorch's SymInt primals are ours (resnet18 has no forward graph recorded).
        if (auto fw = readGraph(num / "forward.py")) {
            std::vector<std::string> oursSym, theirsSym;
            for (const Node* p : g.placeholders())
                if (isSymPlaceholder(*p)) oursSym.push_back(symPlaceholderExpr(*p));
            for (const Node* p : fw->placeholders())
                if (isSymPlaceholder(*p)) theirsSym.push_back(symPlaceholderExpr(*p));
            QCOMPARE(oursSym, theirsSym);
        }

        // Tangents: PyTorch's backward takes them last, in order.
        std::vector<const Node*> ourTangents, theirTangents;
        for (const Node* p : g.placeholders())
            if (p->name().rfind("tangents_", 0) == 0) ourTangents.push_back(p);
        for (const Node* p : bw->placeholders())
            if (p->name().rfind("tangents_", 0) == 0) theirTangents.push_back(p);
        QCOMPARE(ourTangents.size(), theirTangents.size());
        int symbolic = 0;
        for (size_t i = 0; i < ourTangents.size(); ++i) {
            QString d = sameSizes(ourTangents[i]->meta[0], theirTangents[i]->meta[0], bindings);
            QVERIFY2(d.isEmpty(), qPrintable(QString::fromStdString(ourTangents[i]->name()) + ": " + d));
            symbolic += anySymbolic(ourTangents[i]->meta[0]);
        }

        // Gradients: the joint returns one per primal after the forward outputs, as PyTorch's
        // backward does.
        auto outs = g.outputs();
        auto theirs = bw->outputs();
        const size_t first = j->numMutatedInputs + j->numForwardOutputs;
        QCOMPARE(outs.size() - first, theirs.size());
        int grads = 0;
        for (size_t i = 0; i < theirs.size(); ++i) {
            const Argument& a = outs[first + i];
            QCOMPARE(a.isNone(), theirs[i].isNone());
            if (a.isNone()) continue;
            QVERIFY(a.isNode() && theirs[i].isNode());
            QString d = sameSizes(a.node->meta[0], theirs[i].node->meta[0], bindings);
            QVERIFY2(d.isEmpty(), qPrintable("gradient " + QString::number(i) + ": " + d));
            ++grads;
        }
        QVERIFY(grads > 0);
        // The symbolic sizes were not baked: a tangent or a node of the joint graph is symbolic.
        for (const auto& n : g.nodes())
            for (const auto& m : n->meta) symbolic += anySymbolic(m);
        QVERIFY(symbolic > 0);
    }

    void matchesBothRecordedSizes_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("suffix");
        for (const char* m : kRunModels)
            for (const char* s : {"", "_2"}) QTest::newRow((std::string(m) + (*s ? s : "_1")).c_str()) << m << s;
    }
    void matchesBothRecordedSizes() {
        QFETCH(QString, model);
        QFETCH(QString, suffix);
        const fs::path num = dyn() / model.toStdString() / "numerics";
        const std::string sfx = suffix.toStdString();
        auto bw = readGraph(num / "backward.py");
        auto fw = readGraph(num / "forward.py");
        QVERIFY(bw && fw);
        auto j = jointOf(num, *bw);
        QVERIFY2(j.ok(), j.ok() ? "" : j.error().str().c_str());
        const Graph& g = *j->graph;

        // Inputs: the forward's primals, then the backward's tangents.
        auto fwIn = readNpyFolder(num / ("forward" + sfx) / "inputs", fw->placeholders().size());
        auto bwIn = readNpyFolder(num / ("backward" + sfx) / "inputs", bw->placeholders().size());
        QVERIFY(fwIn.ok() && bwIn.ok());
        std::vector<Value> inputs = *fwIn;
        auto bwPhs = bw->placeholders();
        for (size_t i = 0; i < bwPhs.size(); ++i)
            if (bwPhs[i]->name().rfind("tangents_", 0) == 0) inputs.push_back((*bwIn)[i]);
        QCOMPARE(inputs.size(), g.placeholders().size());
        auto st = layOutRecordedInputs(g, inputs);
        QVERIFY2(st.ok(), st.ok() ? "" : st.error().str().c_str());

        // Expected: the forward's own outputs (it returns the saved values after them), then
        // the backward's gradients.
        const size_t nFwd = j->numMutatedInputs + j->numForwardOutputs;
        auto fwOut = readNpyFolder(num / ("forward" + sfx) / "outputs", fw->outputs().size());
        auto bwOut = readNpyFolder(num / ("backward" + sfx) / "outputs", bw->outputs().size());
        QVERIFY(fwOut.ok() && bwOut.ok());
        std::vector<Value> expect(fwOut->begin(), fwOut->begin() + static_cast<std::ptrdiff_t>(nFwd));
        expect.insert(expect.end(), bwOut->begin(), bwOut->end());
        QCOMPARE(expect.size(), g.outputs().size());

        RunRequest req;
        req.inputs = std::move(inputs);
        auto res = runAndCheck(g, req, &expect);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        int grads = 0;
        for (const auto& c : res->comparisons) {
            if (!c.ok)
                QFAIL(qPrintable(QString("output %1: rel_err %2 (tolerance %3) %4")
                                     .arg(c.index)
                                     .arg(c.relErr)
                                     .arg(c.tolerance)
                                     .arg(QString::fromStdString(c.note))));
            grads += c.index >= nFwd && expect[c.index].isTensor();
        }
        QVERIFY(grads > 0);
        qInfo("%s%s: %d gradients match", qPrintable(model), sfx.c_str(), grads);
    }

    void partitionedGraphsMatchBothRecordedSizes_data() { matchesBothRecordedSizes_data(); }
    void partitionedGraphsMatchBothRecordedSizes() {
        QFETCH(QString, model);
        QFETCH(QString, suffix);
        const fs::path num = dyn() / model.toStdString() / "numerics";
        const std::string sfx = suffix.toStdString();
        auto bw = readGraph(num / "backward.py");
        auto fw = readGraph(num / "forward.py");
        QVERIFY(bw && fw);
        auto j = jointOf(num, *bw);
        QVERIFY2(j.ok(), j.ok() ? "" : j.error().str().c_str());
        auto parts = partitionJoint(*j->graph);
        QVERIFY2(parts.ok(), parts.ok() ? "" : parts.error().str().c_str());
        QVERIFY(!parts->saved.empty());

        // Our forward on PyTorch's forward inputs.
        auto fwIn = readNpyFolder(num / ("forward" + sfx) / "inputs", fw->placeholders().size());
        QVERIFY(fwIn.ok());
        std::vector<Value> inputs = *fwIn;
        QVERIFY(layOutRecordedInputs(*parts->forward, inputs).ok());
        RunRequest fr;
        fr.inputs = std::move(inputs);
        auto fres = runAndCheck(*parts->forward, fr, nullptr);
        QVERIFY2(fres.ok(), fres.ok() ? "" : fres.error().str().c_str());

        // Our backward on our saved values (by name) and PyTorch's tangents.
        auto bwIn = readNpyFolder(num / ("backward" + sfx) / "inputs", bw->placeholders().size());
        QVERIFY(bwIn.ok());
        std::map<std::string, Value> byName;
        auto fOuts = parts->forward->outputs();
        for (size_t i = 0; i < fOuts.size(); ++i)
            if (fOuts[i].isNode()) byName[fOuts[i].node->name()] = fres->outputs[i];
        std::vector<const Node*> theirTangents;
        auto bwPhs = bw->placeholders();
        for (size_t i = 0; i < bwPhs.size(); ++i)
            if (bwPhs[i]->name().rfind("tangents_", 0) == 0) byName[bwPhs[i]->name()] = (*bwIn)[i];
        std::vector<Value> bin;
        for (const Node* p : parts->backward->placeholders()) {
            auto it = byName.find(p->name());
            QVERIFY2(it != byName.end(), p->name().c_str());
            bin.push_back(it->second);
        }
        QVERIFY(layOutRecordedInputs(*parts->backward, bin).ok());
        auto bwOut = readNpyFolder(num / ("backward" + sfx) / "outputs", bw->outputs().size());
        QVERIFY(bwOut.ok());
        QCOMPARE(parts->backward->outputs().size(), bwOut->size());
        RunRequest br;
        br.inputs = std::move(bin);
        auto bres = runAndCheck(*parts->backward, br, &*bwOut);
        QVERIFY2(bres.ok(), bres.ok() ? "" : bres.error().str().c_str());
        int grads = 0;
        for (const auto& c : bres->comparisons) {
            if (!c.ok) QFAIL(qPrintable(QString("gradient %1: rel_err %2").arg(c.index).arg(c.relErr)));
            grads += (*bwOut)[c.index].isTensor();
        }
        QVERIFY(grads > 0);
    }

    void theRecordedRunsHaveDifferentSizes() {
        // Guards the test above: the two runs bind the symbols differently.
        for (const char* m : kRunModels) {
            const fs::path num = dyn() / m / "numerics";
            auto bw = readGraph(num / "backward.py");
            QVERIFY(bw);
            std::vector<sym::Binding> b;
            for (const char* s : {"backward", "backward_2"}) {
                auto in = readNpyFolder(num / s / "inputs", bw->placeholders().size());
                QVERIFY(in.ok());
                scalarizeSymInputs(*bw, *in);
                auto bnd = bindInputs(*bw, *in, false);
                QVERIFY2(bnd.ok(), bnd.ok() ? "" : bnd.error().str().c_str());
                b.push_back(*bnd);
            }
            QVERIFY2(sym::bindingStr(b[0]) != sym::bindingStr(b[1]), m);
        }
    }

    void aSymPrimalThatOnlySizesATensor() {
        // A hand-written graph: s0 is used by no op, only by x's annotation; the tangent and
        // x's gradient still carry it.
        auto g = readFxText("class M(torch.nn.Module):\n"
                            "    def forward(self, s0: \"Sym(s0)\", x: \"f32[s0, 4][4, 1]\", w: \"f32[4, 4][4, 1]\"):\n"
                            "        mm: \"f32[s0, 4][4, 1]\" = torch.ops.aten.mm.default(x, w)\n"
                            "        return (mm,)\n",
                            "inline.py");
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().str().c_str());
        resolveOps(**g);
        (*g)->rebuildUsers();
        JointOptions opts;
        opts.gradInputs = GradInputs::Listed;
        opts.requiresGrad = {"x", "w"};
        auto j = buildJointGraph(**g, opts);
        QVERIFY2(j.ok(), j.ok() ? "" : j.error().str().c_str());
        bool symTangent = false;
        for (const Node* p : j->graph->placeholders())
            if (p->name() == "tangents_1")
                symTangent = p->meta[0].isSymbolicDim(0) && p->meta[0].symShape[0].text() == "s0";
        QVERIFY(symTangent);
        auto outs = j->graph->outputs();
        QCOMPARE(outs.size(), size_t(4));  // mm, then the gradients of s0 (None), x and w
        QVERIFY(outs[1].isNone());
        QVERIFY(outs[2].isNode() && outs[2].node->meta[0].symShape.size() == 2 &&
                outs[2].node->meta[0].symShape[0].text() == "s0");
        QVERIFY(outs[3].isNode() && outs[3].node->meta[0].symShape.empty());
        QCOMPARE(outs[3].node->meta[0].shape, (std::vector<int64_t>{4, 4}));
    }
    void aSymbolOnlyATensorCarries() {
        // No Sym placeholder: s0 lives in x's annotation alone. mean's backward divides by the
        // row count, which the joint graph reads with sym_size (as PyTorch's joint graphs do);
        // at any size the gradient is tangent / s0 in every row.
        auto g = readFxText("class M(torch.nn.Module):\n"
                            "    def forward(self, x: \"f32[s0, 4][4, 1]\"):\n"
                            "        mean: \"f32[4][1]\" = torch.ops.aten.mean.dim(x, [0])\n"
                            "        return (mean,)\n",
                            "mean.py");
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().str().c_str());
        resolveOps(**g);
        (*g)->rebuildUsers();
        JointOptions opts;
        opts.gradInputs = GradInputs::AllFloating;
        auto j = buildJointGraph(**g, opts);
        QVERIFY2(j.ok(), j.ok() ? "" : j.error().str().c_str());
        bool readsSize = false;
        for (const auto& n : j->graph->nodes()) readsSize = readsSize || n->target() == "torch.ops.aten.sym_size.int";
        QVERIFY(readsSize);
        for (int64_t rows : {3, 10}) {
            sym::Binding b{{"s0", sym::Num::ofInt(rows)}};
            auto inputs = randomInputs(*j->graph, 7, &b);
            QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
            const auto tangent = kern::toDoubles((*inputs)[1].t);
            RunRequest req;
            req.inputs = *inputs;
            auto res = runAndCheck(*j->graph, req, nullptr);
            QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
            const Value& grad = res->outputs.back();
            QVERIFY(grad.isTensor());
            QCOMPARE(grad.t.meta.shape, (std::vector<int64_t>{rows, 4}));
            const auto gv = kern::toDoubles(grad.t);
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t c = 0; c < 4; ++c)
                    QVERIFY(std::abs(gv[size_t(r * 4 + c)] - tangent[size_t(c)] / double(rows)) < 1e-6);
        }
    }

    void aSizeTheProbesCannotExpressIsAClearError() {
        // x[:s0] of a 64-row tensor: the size is min(s0, 64), which no probe binding sees whole
        // (large probes clamp, small ones do not). The builder must refuse, naming the node,
        // rather than bake either behaviour into the joint graph.
        auto g =
            readFxText("class M(torch.nn.Module):\n"
                       "    def forward(self, s0: \"Sym(s0)\", w: \"f32[64, 4][4, 1]\"):\n"
                       "        slice_1: \"f32[Min(64, s0), 4][4, 1]\" = torch.ops.aten.slice.Tensor(w, 0, 0, s0)\n"
                       "        return (slice_1,)\n",
                       "clamp.py");
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().str().c_str());
        resolveOps(**g);
        (*g)->rebuildUsers();
        JointOptions opts;
        opts.gradInputs = GradInputs::Listed;
        opts.requiresGrad = {"w"};
        auto j = buildJointGraph(**g, opts);
        QVERIFY(!j.ok());
        QVERIFY2(!j.error().node.empty(), j.error().str().c_str());
        QVERIFY2(j.error().str().find("clamp.py") != std::string::npos, j.error().str().c_str());
    }
};

QTEST_GUILESS_MAIN(TestAutodiffDynamic)
#include "tst_autodiff_dynamic.moc"
