// Lifted constants whose value the graph's use decides (inferConstantsFromUse): the fills
// torch.masked's ops give `where` before a reduction, and constants no output depends on.
// PyTorch's own record is the judge: the OpInfo masked_* graphs mask elements out, so their
// recorded outputs show the fill (and a wrong fill changes them).
#include "numerics_case.h"

#include "exec/compare.h"
#include "exec/run_check.h"
#include "import/lifted_constants.h"
#include "import/loader.h"
#include "import/npy.h"

#include <QTemporaryDir>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

fs::path opinfoDir() { return fxtest::corpus().parent_path() / "opinfo"; }

/// A graph of x (dtype `dt`, 4 elements) and a mask m whose one constant, of dtype `dt`, fills
/// `where(m, x, c)`; `body` (lines of 8-space-indented FX text) uses `where` and returns `out`.
std::string maskedGraph(const std::string& dt, const std::string& body, const std::string& out) {
    return "class GraphModule(torch.nn.Module):\n"
           "    def forward(self, x: \"" +
           dt +
           "[4][1]cpu\", m: \"b8[4][1]cpu\"):\n"
           "        _tensor_constant0: \"" +
           dt +
           "[][]cpu\" = self._tensor_constant0\n"
           "        lift_fresh_copy: \"" +
           dt +
           "[][]cpu\" = torch.ops.aten.lift_fresh_copy.default(_tensor_constant0)\n"
           "        where: \"" +
           dt + "[4][1]cpu\" = torch.ops.aten.where.self(m, x, lift_fresh_copy)\n" + body + "        return (" + out +
           ",)\n";
}

}  // namespace

class TestLiftedConstantsUse : public QObject {
    Q_OBJECT
private slots:
    /// Which uses decide a value, and which value; the others leave the constant missing (exit 2).
    void decisions() {
        const double inf = std::numeric_limits<double>::infinity();
        struct Case {
            const char* what;
            std::string text;
            std::optional<double> value;  ///< nullopt: stays missing
            const char* noteHas;
        };
        const Case cases[] = {
            {"sum", maskedGraph("f32", "        s: \"f32[][]cpu\" = torch.ops.aten.sum.default(where)\n", "s"), 0.0,
             "taken as 0"},
            {"prod", maskedGraph("f32", "        s: \"f32[][]cpu\" = torch.ops.aten.prod.default(where)\n", "s"), 1.0,
             "taken as 1"},
            {"amax", maskedGraph("f32", "        s: \"f32[][]cpu\" = torch.ops.aten.amax.default(where, [0])\n", "s"),
             -inf, "aten.amax.default"},
            {"int amin",
             maskedGraph("i32", "        s: \"i32[][]cpu\" = torch.ops.aten.amin.default(where, [0])\n", "s"),
             2147483647.0, "taken as 2147483647"},
            {"softmin: softmax of the negation",
             maskedGraph("f32",
                         "        neg: \"f32[4][1]cpu\" = torch.ops.aten.neg.default(where)\n"
                         "        s: \"f32[4][1]cpu\" = torch.ops.aten._softmax.default(neg, 0, False)\n",
                         "s"),
             inf, "of its negation"},
            {"logaddexp, second operand",
             maskedGraph("f32", "        s: \"f32[4][1]cpu\" = torch.ops.aten.logaddexp.default(x, where)\n", "s"),
             -inf, "logaddexp"},
            {"norm ord=-inf",
             maskedGraph("f32", "        s: \"f32[][]cpu\" = torch.ops.aten.linalg_vector_norm.default(where, -inf)\n",
                         "s"),
             inf, "taken as inf"},
            {"norm ord=2 (default)",
             maskedGraph("f32", "        s: \"f32[][]cpu\" = torch.ops.aten.linalg_vector_norm.default(where)\n", "s"),
             0.0, "taken as 0"},
            {"the where itself is returned", maskedGraph("f32", "", "where"), std::nullopt, ""},
            {"norm ord=-2 has no identity",
             maskedGraph("f32", "        s: \"f32[][]cpu\" = torch.ops.aten.linalg_vector_norm.default(where, -2.0)\n",
                         "s"),
             std::nullopt, ""},
            {"two reductions disagree",
             maskedGraph("f32",
                         "        s: \"f32[][]cpu\" = torch.ops.aten.sum.default(where)\n"
                         "        t: \"f32[][]cpu\" = torch.ops.aten.amax.default(where, [0])\n",
                         "s, t"),
             std::nullopt, ""},
            {"a bool amax has no identity",
             maskedGraph("b8", "        s: \"b8[][]cpu\" = torch.ops.aten.amax.default(where, [0])\n", "s"),
             std::nullopt, ""},
            {"the constant is also used elsewhere",
             maskedGraph("f32",
                         "        s: \"f32[][]cpu\" = torch.ops.aten.sum.default(where)\n"
                         "        t: \"f32[4][1]cpu\" = torch.ops.aten.add.Tensor(x, lift_fresh_copy)\n",
                         "s, t"),
             std::nullopt, ""},
            {"dead: no output depends on it",
             maskedGraph("f32", "        s: \"f32[4][1]cpu\" = torch.ops.aten.mul.Tensor(where, x)\n", "x"), 0.0,
             "no output"},
            {"dead, but an in-place op on the way may write elsewhere",
             maskedGraph("f32", "        s: \"f32[4][1]cpu\" = torch.ops.aten.add_.Tensor(x, where)\n", "x"),
             std::nullopt, ""},
        };
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        int k = 0;
        for (const Case& c : cases) {
            const fs::path p = fs::path(tmp.path().toStdString()) / ("g" + std::to_string(k++) + ".py");
            std::ofstream(p) << c.text;
            auto f = loadFile(p);
            QVERIFY2(f.ok(), f.ok() ? c.what : f.error().str().c_str());
            const LoadedGraph& lg = f->graphs[0];
            const auto& consts = lg.graph->constants;
            QVERIFY2(consts.count("_tensor_constant0") == (c.value ? 1u : 0u), c.what);
            if (!c.value) {
                QVERIFY2(missingConstants(*lg.graph) == std::vector<std::string>{"_tensor_constant0"}, c.what);
                continue;
            }
            const Tensor& t = consts.at("_tensor_constant0");
            QVERIFY2(t.shape().empty() && t.dtype() == lg.graph->find("_tensor_constant0")->meta[0].dtype, c.what);
            QCOMPARE(kern::toDoubles(t).at(0), *c.value);
            // Never silent: a note names the constant and says why.
            QVERIFY2(std::any_of(lg.notes.begin(), lg.notes.end(),
                                 [&](const std::string& n) {
                                     return n.find("_tensor_constant0") != std::string::npos &&
                                            n.find(c.noteHas) != std::string::npos;
                                 }),
                     c.what);
        }
    }

    /// int64 extremes are not doubles: the fill is written as int64 exactly.
    void int64ExtremeIsExact() {
        QTemporaryDir tmp;
        const fs::path p = fs::path(tmp.path().toStdString()) / "g.py";
        std::ofstream(p) << maskedGraph("i64", "        s: \"i64[][]cpu\" = torch.ops.aten.amax.default(where, [0])\n",
                                        "s");
        auto f = loadFile(p);
        QVERIFY(f.ok());
        const Tensor& t = f->graphs[0].graph->constants.at("_tensor_constant0");
        QCOMPARE(*t.data<int64_t>(), std::numeric_limits<int64_t>::min());
    }

    /// PyTorch's masked ops, traced: the inferred fill reproduces the recorded outputs, and those
    /// outputs pin it (another fill does not match), since each sample masks elements out.
    void maskedOpInfoGraphsMatchPyTorch_data() {
        QTest::addColumn<QString>("caseName");
        QTest::addColumn<bool>("pinned");
        for (const char* c : {"masked_amax", "masked_amin", "masked_logsumexp", "masked_sum", "masked_mean",
                              "masked_norm", "masked_softmax", "masked_softmin", "masked_log_softmax",
                              "masked_logaddexp", "masked_cumsum", "masked_cumprod"})
            QTest::newRow(c) << QString(c) + "__default__s1" << true;
        // argmax of a 0-d tensor is 0 whatever it holds: these run, but pin nothing.
        for (const char* c : {"masked_argmax", "masked_argmin"})
            QTest::newRow(c) << QString(c) + "__default__s1" << false;
    }
    void maskedOpInfoGraphsMatchPyTorch() {
        if (!fs::exists(opinfoDir() / "index.json")) QSKIP("../shared/opinfo not found beside the corpus");
        QFETCH(QString, caseName);
        QFETCH(bool, pinned);
        const std::string stage = "forward";
        const fs::path num = opinfoDir() / caseName.toStdString() / "numerics";
        auto f = loadFile(num / (stage + ".py"));
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        Graph& g = *f->graphs[0].graph;
        QVERIFY(missingConstants(g).empty());
        QVERIFY(std::any_of(f->graphs[0].notes.begin(), f->graphs[0].notes.end(), [](const std::string& n) {
            return n.find("lifted constant _tensor_constant0 taken as") == 0;
        }));
        auto phs = g.placeholders();
        auto inputs = readNpyFolder(num / stage / "inputs", phs.size());
        auto expect = readNpyFolder(num / stage / "outputs", g.outputs().size());
        QVERIFY(inputs.ok() && expect.ok());
        RunRequest req;
        for (size_t i = 0; i < inputs->size(); ++i)
            req.inputs.push_back((*inputs)[i].isTensor()
                                     ? Value::ofTensor(withAnnotatedStrides((*inputs)[i].t, *phs[i]))
                                     : (*inputs)[i]);
        auto good = runAndCheck(g, req, &*expect);
        QVERIFY2(good.ok(), good.ok() ? "" : good.error().str().c_str());
        // Judged directly, not through an fp64 rerun (which would share a wrong fill).
        auto matches = [](const RunResult& r) {
            return r.ok && std::all_of(r.comparisons.begin(), r.comparisons.end(),
                                       [](const OutputComparison& c) { return c.ok && !c.fp64Judged; });
        };
        QVERIFY(matches(*good));
        if (!pinned) return;

        // Any other fill (a finite one where the identity is infinite, and the other way) differs.
        for (auto& [name, t] : g.constants) {
            const double v = kern::toDoubles(t).at(0);
            t = kern::makeTensor(t.meta, {std::isinf(v) ? 0.5 : -INFINITY});
        }
        auto wrong = runAndCheck(g, req, &*expect);
        QVERIFY(!wrong.ok() || !matches(*wrong));
    }
};

QTEST_GUILESS_MAIN(TestLiftedConstantsUse)
#include "tst_lifted_constants_use.moc"
