// Lowering Dynamo graphs made with torch.compile(dynamic=True) (corpus_dynamic/*/numerics/
// dynamo.py), judged by PyTorch: lowered to ATen they keep their SymInt placeholders and
// symbolic sizes, run at both recorded sizes, and reproduce what the AOT forward graph of the
// same compile recorded for the same inputs (Dynamo's placeholders are AOTAutograd's primals in
// the same order: aot_module_simplified traces the Dynamo graph's flat arguments).
#include "test_util.h"

#include "exec/compare.h"
#include "exec/python_scalar_ops.h"
#include "exec/run_check.h"
#include "exec/shape_binding.h"
#include "exec/shape_inference.h"
#include "import/dynamo_lowering.h"
#include "import/fx_text_reader.h"
#include "import/loader.h"
#include "import/npy.h"

#include <filesystem>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

fs::path dynCorpus() { return fxtest::corpus().parent_path() / "corpus_dynamic"; }
bool haveDynCorpus() { return fs::exists(dynCorpus() / "README.md"); }

std::vector<std::string> dynModels(const char* rel) {
    std::vector<std::string> out;
    if (!haveDynCorpus()) return out;
    for (const auto& m : fs::directory_iterator(dynCorpus()))
        if (fs::exists(m.path() / rel)) out.push_back(m.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

/// A placeholder's annotation without names: "Sym(s33)" or "f32[s33, 64][64, 1]".
std::string annotationOf(const Node& ph) {
    if (isSymPlaceholder(ph)) return ph.annotationText;
    return ph.meta.empty() ? std::string() : ph.meta[0].annotation(true, false);
}

/// Recorded inputs laid out as `fxray run --inputs` does: SymInts as ints, tensors with the
/// annotation's strides at the binding the inputs give.
Expected<std::vector<Value>> recordedInputs(const Graph& g, const fs::path& dir) {
    auto phs = g.placeholders();
    auto vals = readNpyFolder(dir, phs.size());
    if (!vals.ok()) return vals.error();
    std::vector<Value> inputs = std::move(vals).value();
    if (Status st = layOutRecordedInputs(g, inputs); !st.ok()) return st.error();
    return inputs;
}

/// Nodes left at torch level: methods, modules, and calls that are neither ATen ops nor
/// SymInt arithmetic nor tuple indexing.
std::vector<std::string> torchLevelNodes(const Graph& g) {
    std::vector<std::string> out;
    for (const auto& n : g.nodes()) {
        bool bad = n->kind() == NodeKind::CallMethod || n->kind() == NodeKind::CallModule;
        if (n->kind() == NodeKind::CallFunction && n->target().rfind("torch.ops.", 0) != 0 &&
            n->target() != "operator.getitem" && !isPythonScalarOp(n->target()))
            bad = true;
        if (bad) out.push_back(n->name() + " = " + n->target());
    }
    for (const auto& [k, sub] : g.subgraphs())
        for (auto& s : torchLevelNodes(*sub)) out.push_back(k + "." + s);
    return out;
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
    return s;
}

}  // namespace

class TestDynamoLoweringDynamic : public QObject {
    Q_OBJECT
private slots:
    /// Every dynamo.py of corpus_dynamic lowers completely; the result is still a graph of
    /// symbolic sizes, and every tensor node carries an annotation whose dtype agrees with what
    /// shape inference computes (symbolic sizes are not computed statically: kept as annotated).
    void lowers_data() {
        QTest::addColumn<QString>("model");
        for (const auto& m : dynModels("numerics/dynamo.py")) QTest::newRow(m.c_str()) << QString::fromStdString(m);
    }
    void lowers() {
        if (!haveDynCorpus()) QSKIP("corpus_dynamic not found beside the corpus");
        QFETCH(QString, model);
        auto f = loadFile(dynCorpus() / model.toStdString() / "numerics" / "dynamo.py");
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        Graph& g = *f->graphs[0].graph;
        QVERIFY(isTorchLevel(g));
        QVERIFY(graphIsSymbolic(g));
        Status st = lowerToAten(g);
        QVERIFY2(st.ok(), st.ok() ? "" : st.error().str().c_str());
        QVERIFY2(g.verify().ok(), "verify");
        auto left = torchLevelNodes(g);
        QVERIFY2(left.empty(), join(left).c_str());
        QVERIFY(!isTorchLevel(g));  // SymInt arithmetic annotated Sym(...) counts as ATen-level
        QVERIFY(graphIsSymbolic(g));
        auto unknown = resolveOps(g);
        QVERIFY2(unknown.empty(), join(unknown).c_str());
        InferenceReport rep = inferMeta(g);
        for (const auto& m : rep.mismatches)
            QFAIL(qPrintable(QString::fromStdString(m.node + " " + m.what + ": annotated " + m.annotated +
                                                    ", inferred " + m.inferred)));
        // Emitted nodes whose sizes follow the symbols got symbolic annotations.
        // Every node lowering emitted has an annotation: the file's, or one recovered from the
        // probe sizes (a tensor "f32[s77, 4, s27, 16]...", a SymInt "Sym(...)").
        int symbolicNodes = 0;
        std::vector<std::string> bare;
        for (const auto& n : g.nodes()) {
            if (n->kind() != NodeKind::CallFunction) continue;
            for (const auto& m : n->meta) symbolicNodes += m.isSymbolic();
            bool getitem = n->target() == "operator.getitem";  // of split/checkpoint tuples
            if (!getitem && !n->annotated && n->annotationText.empty() &&
                n->target().find("higher_order") == std::string::npos)
                bare.push_back(n->name() + " = " + n->target());
        }
        QVERIFY2(bare.empty(), join(bare).c_str());
        QVERIFY(symbolicNodes > 0);
        // A second lowering finds nothing to do (the kept SymInt arithmetic is not torch-level).
        QVERIFY(lowerToAten(g).ok());
    }

    /// The lowered dynamo.py on each recorded run's inputs (two sizes) reproduces the model
    /// outputs the AOT forward graph recorded.
    void matchesForward_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("run");
        for (const auto& m : dynModels("numerics/forward_2/outputs"))
            for (const char* r : {"forward", "forward_2"})
                QTest::newRow((m + "/" + r).c_str()) << QString::fromStdString(m) << QString(r);
    }
    void matchesForward() {
        if (!haveDynCorpus()) QSKIP("corpus_dynamic not found beside the corpus");
        QFETCH(QString, model);
        QFETCH(QString, run);
        fs::path num = dynCorpus() / model.toStdString() / "numerics";
        auto f = loadFile(num / "dynamo.py");
        auto fw = loadFile(num / "forward.py");
        QVERIFY(f.ok() && fw.ok());
        Graph& g = *f->graphs[0].graph;
        const Graph& fg = *fw->graphs[0].graph;
        // The inputs map one to one: same count, same annotations in the same order.
        auto phs = g.placeholders(), fphs = fg.placeholders();
        QCOMPARE(phs.size(), fphs.size());
        for (size_t i = 0; i < phs.size(); ++i)
            QCOMPARE(QString::fromStdString(annotationOf(*phs[i])), QString::fromStdString(annotationOf(*fphs[i])));
        Status st = lowerToAten(g);
        QVERIFY2(st.ok(), st.ok() ? "" : st.error().str().c_str());
        resolveOps(g);

        auto inputs = recordedInputs(g, num / run.toStdString() / "inputs");
        QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
        auto binding = bindInputs(g, *inputs, false);
        QVERIFY(binding.ok());
        size_t nOut = g.outputs().size();
        auto recorded = readNpyFolder(num / run.toStdString() / "outputs", fg.outputs().size());
        QVERIFY(recorded.ok());
        QVERIFY(recorded->size() >= nOut);
        std::vector<Value> expect(recorded->begin(), recorded->begin() + static_cast<std::ptrdiff_t>(nOut));
        RunRequest req;
        req.inputs = std::move(inputs).value();
        auto res = runAndCheck(g, req, &expect);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        int compared = 0;
        for (const auto& c : res->comparisons) {
            if (!c.ok)
                QFAIL(qPrintable(QString("output %1: rel_err %2 (tolerance %3) %4")
                                     .arg(c.index)
                                     .arg(c.relErr)
                                     .arg(c.tolerance)
                                     .arg(QString::fromStdString(c.note))));
            compared += expect[c.index].isTensor();
        }
        QVERIFY(compared > 0);
        qInfo("%s %s at %s: %d outputs match the forward graph's", qPrintable(model), qPrintable(run),
              sym::bindingStr(*binding).c_str(), compared);
    }

    /// The two recorded runs really are two sizes (else matchesForward proves one size only).
    void runsDifferInSize() {
        if (!haveDynCorpus()) QSKIP("corpus_dynamic not found beside the corpus");
        for (const auto& m : dynModels("numerics/forward_2/inputs")) {
            fs::path num = dynCorpus() / m / "numerics";
            auto f = loadFile(num / "dynamo.py");
            QVERIFY(f.ok());
            const Graph& g = *f->graphs[0].graph;
            auto a = recordedInputs(g, num / "forward" / "inputs");
            auto b = recordedInputs(g, num / "forward_2" / "inputs");
            QVERIFY(a.ok() && b.ok());
            auto ba = bindInputs(g, *a, false), bb = bindInputs(g, *b, false);
            QVERIFY(ba.ok() && bb.ok());
            QVERIFY2(sym::bindingStr(*ba) != sym::bindingStr(*bb), m.c_str());
        }
    }

    /// SymInt arithmetic stays in the graph and `x.size(d)` of a symbolic size becomes
    /// aten.sym_size.int, so one lowered graph serves every size: hand-written Dynamo text.
    void sizeQueriesStaySymbolic() {
        const char* src = R"PY(class GraphModule(torch.nn.Module):
    def forward(self, s0: "Sym(s0)", L_x_: "f32[s0, 4][4, 1]cpu"):
        l_x_ = L_x_
        size = l_x_.size(0)
        mul = size * 2
        view = l_x_.view(mul, 2)
        shape = l_x_.shape
        getitem = shape[0]
        add = getitem + s0
        z = view * add
        return (z, view)
)PY";
        auto f = readFxText(src, "dyn.py");
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        Graph& g = **f;
        Status st = lowerToAten(g);
        QVERIFY2(st.ok(), st.ok() ? "" : st.error().str().c_str());
        int sizes = 0, muls = 0;
        for (const auto& n : g.nodes()) {
            if (n->target() == "torch.ops.aten.sym_size.int") {
                ++sizes;
                QCOMPARE(QString::fromStdString(n->annotationText), QString("Sym(s0)"));
            }
            if (n->target() == "operator.mul") ++muls;
        }
        QCOMPARE(sizes, 2);  // size(0) and shape[0]
        QCOMPARE(muls, 1);
        const Node* view = g.find("view");
        QVERIFY(view && view->meta.size() == 1);
        QCOMPARE(view->meta[0].symShape.size(), size_t(2));
        auto dim0 = view->meta[0].symShape[0].eval({{"s0", sym::Num::ofInt(3)}});  // 2*s0
        QVERIFY2(dim0.ok() && *dim0 == 6, view->meta[0].symShape[0].text().c_str());
        resolveOps(g);
        // Two sizes, one graph: z = x.view(2*s0, 2) * (s0 + s0).
        for (int64_t s : {3, 5}) {
            std::vector<double> xs;
            for (int64_t i = 0; i < s * 4; ++i) xs.push_back(double(i));
            RunRequest req;
            req.inputs = {Value::ofInt(s), fxtest::tv({s, 4}, xs)};
            auto r = runAndCheck(g, req, nullptr);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
            QCOMPARE(r->outputs[1].t.shape(), (std::vector<int64_t>{2 * s, 2}));
            QCOMPARE(r->outputs[0].t.shape(), (std::vector<int64_t>{2 * s, 2}));
            auto z = fxtest::values(r->outputs[0]);
            for (int64_t i = 0; i < s * 4; ++i) QCOMPARE(z[size_t(i)], double(i) * double(2 * s));
        }
    }
};

QTEST_GUILESS_MAIN(TestDynamoLoweringDynamic)
#include "tst_dynamo_lowering_dynamic.moc"
