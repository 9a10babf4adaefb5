// Graphs with complex values (exec/complex_to_real.h): PyTorch's recorded OpInfo runs of complex,
// polar and view_as_complex, and Meta-Llama blocks with complex rotary embeddings (forward,
// backward and Dynamo stages, fp32 and bf16, recorded by bench/gen_popular_complex.py), run on the
// reference executor and on the CPU backend with no fallback and judged against PyTorch's
// outputs by run_check's one rule. Also: complex outputs are compared on both parts, and a complex
// op the rewrite has no rule for fails naming its node.
#include "test_util.h"

#include "codegen/backend.h"
#include "exec/compare.h"
#include "exec/complex_to_real.h"
#include "exec/run_check.h"
#include "import/loader.h"
#include "import/npy.h"

#include <QTest>

#include <filesystem>

using namespace fxray;

namespace {

namespace fs = std::filesystem;

fs::path ropeDir() { return fs::path(FXRAY_COMPLEX_ROPE_DIR); }

/// Loads STEM.py (its executable graph: the Dynamo stage's lowering too) with the recorded inputs
/// laid out as the placeholders say and PyTorch's outputs, as `fxray run --inputs --expect` does.
struct Recorded {
    std::unique_ptr<LoadedFile> file;
    RunRequest req;
    std::vector<Value> expect;
    const Graph& graph() const { return file->graphs[0].executable(); }
};
std::string loadRecorded(const fs::path& stem, Recorded& r) {
    auto f = loadFile(stem.string() + ".py");
    if (!f.ok()) return f.error().str();
    r.file = std::make_unique<LoadedFile>(std::move(f).value());
    if (!r.file->graphs[0].executableUnknownOps().empty())
        return "unknown op " + *r.file->graphs[0].executableUnknownOps().begin();
    const Graph& g = r.graph();
    auto in = readNpyFolder(stem / "inputs", g.placeholders().size());
    if (!in.ok()) return in.error().str();
    r.req.inputs = std::move(in).value();
    if (Status s = layOutRecordedInputs(g, r.req.inputs); !s.ok()) return s.error().str();
    auto expect = readNpyFolder(stem / "outputs", g.outputs().size());
    if (!expect.ok()) return expect.error().str();
    r.expect = std::move(expect).value();
    return {};
}

std::string failures(const RunResult& res) {
    std::string s;
    for (const auto& c : res.comparisons)
        if (!c.ok)
            s += "output " + std::to_string(c.index) + ": rel_err " + std::to_string(c.relErr) + " " + c.note + "; ";
    return s;
}

/// Runs the recorded stage on `backend` against PyTorch's outputs: every output matches, no
/// fallback.
void runMatches(const fs::path& stem, const std::string& backend) {
    Recorded r;
    const std::string err = loadRecorded(stem, r);
    QVERIFY2(err.empty(), err.c_str());
    QVERIFY(graphHasComplex(r.graph()));
    auto b = makeBackend(backend);
    QVERIFY2(b.ok(), b.ok() ? "" : b.error().str().c_str());
    RunReport rep;
    auto res = (*b)->run(r.graph(), r.req, &r.expect, &rep);
    QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
    QCOMPARE(res->comparisons.size(), r.expect.size());
    QVERIFY2(res->ok, failures(*res).c_str());
    std::string fallbacks;
    for (const auto& [op, n] : rep.fallbacks) fallbacks += op + " ";
    QVERIFY2(fallbacks.empty(), ("fallbacks: " + fallbacks).c_str());
}

Tensor complexTensor(std::vector<int64_t> shape, const std::vector<double>& pairs) {
    std::vector<int64_t> rs = shape;
    rs.push_back(2);
    return realAsComplex(fxtest::tensor(rs, pairs), DType::Complex64);
}

}  // namespace

class TestCpuComplex : public QObject {
    Q_OBJECT
private slots:
    void opinfo_data() {
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QString>("backend");
        for (const char* g : {"complex__default__s0", "complex__default__s1", "polar__default__s0",
                              "polar__default__s1", "view_as_complex__default__s0"})
            for (const char* b : {"ref", "cpu"})
                QTest::newRow((std::string(g) + "/" + b).c_str()) << QString(g) << QString(b);
    }
    // PyTorch's recorded OpInfo samples (../shared/opinfo): unknown ops before the rewrite.
    void opinfo() {
        QFETCH(QString, graph);
        QFETCH(QString, backend);
        const fs::path stem = fxtest::corpus().parent_path() / "opinfo" / graph.toStdString() / "numerics" / "forward";
        if (!fs::exists(stem.string() + ".py")) QSKIP("no ../shared/opinfo here");
        runMatches(stem, backend.toStdString());
    }

    void rope_data() {
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QString>("stage");
        QTest::addColumn<QString>("backend");
        for (const char* g : {"llama_rope_complex", "llama_rope_polar", "llama_rope_complex_bf16", "llama_rope_polar_bf16"})
            for (const char* s : {"forward", "backward", "dynamo"})
                for (const char* b : {"ref", "cpu"})
                    QTest::newRow((std::string(g) + "/" + s + "/" + b).c_str()) << QString(g) << QString(s) << QString(b);
    }
    // Meta's apply_rotary_emb: a complex64 freqs_cis input (or polar in the graph), complex mul,
    // view_as_real; the backward's _conj and complex mul; the Dynamo stage's torch-level calls.
    void rope() {
        QFETCH(QString, graph);
        QFETCH(QString, stage);
        QFETCH(QString, backend);
        runMatches(ropeDir() / graph.toStdString() / "numerics" / stage.toStdString(), backend.toStdString());
    }

    // A complex output differing only in its imaginary parts does not match (the comparison once
    // read real parts only).
    void comparesBothParts() {
        Value a = Value::ofTensor(complexTensor({2}, {1, 2, 3, 4}));
        Value b = Value::ofTensor(complexTensor({2}, {1, 2, 3, -4}));
        QVERIFY(compareValues(0, a, a).ok);
        QVERIFY(!compareValues(0, a, b).ok);
        // deepCopy keeps the imaginary parts too.
        Value c = deepCopy(b);
        QCOMPARE(fxtest::values(Value::ofTensor(complexAsReal(c.t))), (std::vector<double>{1, 2, 3, -4}));
    }

    // The boundary: a complex input reaches the real graph as its interleaved view, without a
    // copy, and a transposed pair tensor comes back as the complex values it holds.
    void boundaryViews() {
        Tensor c = complexTensor({2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
        Tensor r = complexAsReal(c);
        QCOMPARE(r.shape(), (std::vector<int64_t>{2, 3, 2}));
        QCOMPARE(r.strides(), (std::vector<int64_t>{6, 2, 1}));
        QCOMPARE(r.storage, c.storage);
        // Parts stored planar ([2, 3] reals, then imaginaries), seen as [2, 3, 2] through strides.
        Tensor planar = fxtest::tensor({2, 2, 3}, {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11});
        TensorMeta m = planar.meta;
        m.shape = {2, 3, 2};
        m.strides = {3, 1, 6};
        Tensor back = realAsComplex(planar.view(m), DType::Complex64);
        QCOMPARE(back.dtype(), DType::Complex64);
        QCOMPARE(fxtest::values(Value::ofTensor(complexAsReal(back))),
                 (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
    }

    // A complex op without a rule (exp of a complex tensor) fails naming the node, on both sides.
    void unsupportedOpNamesTheNode() {
        auto g = fxtest::parseForward(
            "x: \"f32[3, 2][2, 1]cpu\"",
            "        c: \"c64[3][1]cpu\" = torch.ops.aten.view_as_complex.default(x)\n"
            "        e: \"c64[3][1]cpu\" = torch.ops.aten.exp.default(c)\n"
            "        r: \"f32[3, 2][2, 1]cpu\" = torch.ops.aten.view_as_real.default(e)\n"
            "        return (r,)\n");
        QVERIFY(g);
        RunRequest req;
        req.inputs = {Value::ofTensor(fxtest::tensor({3, 2}, {1, 2, 3, 4, 5, 6}))};
        for (const char* backend : {"ref", "cpu"}) {
            auto b = makeBackend(backend);
            QVERIFY(b.ok());
            auto res = (*b)->run(*g, req, nullptr, nullptr);
            QVERIFY(!res.ok());
            QVERIFY2(res.error().message.find("aten.exp.default (node 'e')") != std::string::npos,
                     res.error().str().c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestCpuComplex)
#include "tst_cpu_complex.moc"
