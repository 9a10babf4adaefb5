// The FX text reader and printer against PyTorch's own printed graphs, and their error messages.
#include "test_util.h"

#include "import/fx_text_reader.h"
#include "import/lifted_constants.h"
#include "import/loader.h"
#include "ir/printer.h"

#include <filesystem>
#include <fstream>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> corpusGraphFiles() {
    std::vector<fs::path> out;
    for (const auto& model : fs::directory_iterator(fxtest::corpus())) {
        for (const char* sub : {"graphs", "numerics"}) {
            fs::path d = model.path() / sub;
            if (!fs::is_directory(d)) continue;
            for (const auto& f : fs::directory_iterator(d))
                if (f.path().extension() == ".py") out.push_back(f.path());
        }
        // TORCH_COMPILE_DEBUG graphs (AOT graphs, post-grad graphs, frozen graphs).
        if (fs::is_directory(model.path() / "debug"))
            for (const auto& dir : fs::directory_iterator(model.path() / "debug"))
                for (const char* name : {"fx_graph_readable.py", "fx_graph_transformed.py"})
                    if (fs::exists(dir.path() / name)) out.push_back(dir.path() / name);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string stripTrailing(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

Diagnostic parseError(const std::string& text) {
    auto g = readFxText(text, "bad.py");
    if (g.ok()) return makeError("<parsed without error>");
    return g.error();
}

const char* kSmall = "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, x: \"f32[2, 3][3, 1]cpu\"):\n"
                     "        # File: model.py:3 in forward, code: return x.relu()\n"
                     "        relu: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.relu.default(x);  x = None\n"
                     "        return (relu,)\n";

}  // namespace

class TestFxTextReader : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
    }

    /// Printing every corpus graph reproduces PyTorch's text exactly (nodes, targets, arguments,
    /// annotations, provenance comments, frees), and re-parsing gives the same graph.
    void corpusRoundTripIsExact() {
        auto files = corpusGraphFiles();
        QVERIFY2(files.size() >= 150, "expected the corpus's ~155 FX files");
        for (const auto& f : files) {
            auto g = readFxFile(f);
            QVERIFY2(g.ok(), g.ok() ? "" : g.error().str().c_str());
            auto text = readTextFile(f);
            QVERIFY(text.ok());
            std::string printed = printGraph(**g);
            if (stripTrailing(printed) != stripTrailing(*text))
                QFAIL(qPrintable(
                    QString("print differs from PyTorch's text: %1").arg(QString::fromStdString(f.string()))));
            auto again = readFxText(printed, f.string());
            QVERIFY(again.ok());
            QCOMPARE((*again)->fingerprint(), (*g)->fingerprint());
            QVERIFY((*g)->size() > 1);
        }
    }

    void jointFormHasPrimalsAndTangents() {
        auto g = readFxFile(fxtest::corpus() / "mlp/numerics/joint.py");
        QVERIFY(g.ok());
        auto phs = (*g)->placeholders();
        QCOMPARE(phs.size(), size_t(6));
        QCOMPARE(phs[0]->name(), std::string("primals_1"));
        QCOMPARE(phs[5]->name(), std::string("tangents_1"));
        QCOMPARE(phs[5]->meta[0].annotation(), std::string("f32[16, 32][32, 1]cuda:0"));
        QCOMPARE((*g)->signature.pytreeGroups, (std::vector<std::string>{"primals", "tangents"}));
        auto outs = (*g)->outputs();
        QCOMPARE(outs.size(), size_t(6));
        QVERIFY(outs[3].isNone());           // the input without a gradient
        QCOMPARE((*g)->size(), size_t(29));  // summary.json nodes.joint
    }

    void dynamoGraphHasMethodsOperatorsAndAliases() {
        auto g = readFxFile(fxtest::corpus() / "checkpointed/graphs/dynamo_graph.py");
        QVERIFY(g.ok());
        Node* x = (*g)->find("l_x_");
        QVERIFY(x && x->kind() == NodeKind::Placeholder);
        QCOMPARE(x->target(), std::string("L_x_"));
        Node* sum = (*g)->find("sum_1");
        QVERIFY(sum && sum->kind() == NodeKind::CallMethod);
        QCOMPARE(sum->target(), std::string("sum"));
        QVERIFY(sum->kwarg("dim") && sum->kwarg("dim")->i == 1);
        Graph* body = (*g)->subgraph("wrap_body_0");
        QVERIFY(body);
        Node* mul = body->find("mul");
        QVERIFY(mul && mul->target() == "operator.mul");
        QVERIFY(body->find("linear")->sourceComment.find("gen_corpus.py:103") != std::string::npos);
    }

    void subscriptsSlicesAndInplaceOperators() {
        auto g = readFxFile(fxtest::corpus() / "gpt2/numerics/dynamo.py");
        QVERIFY(g.ok());
        Node* q = (*g)->find("q_indices");
        QVERIFY(q && q->target() == "operator.getitem");
        QCOMPARE(q->args[1].repr(), std::string("(None, None, slice(None, None, None), None)"));
        auto r = readFxFile(fxtest::corpus() / "resnet18/graphs/dynamo_graph.py");
        QVERIFY(r.ok());
        Node* iadd = (*r)->find("out_5");
        QVERIFY(iadd && iadd->target() == "operator.iadd");
        QCOMPARE(iadd->args[0].node->name(), std::string("out_4"));
    }

    void condSubgraphsAreNested() {
        auto g = readFxFile(fxtest::corpus() / "cond_subgraph/numerics/inference.py");
        QVERIFY(g.ok());
        QCOMPARE((*g)->subgraphs().size(), size_t(2));
        QVERIFY((*g)->subgraph("true_graph_0")->find("relu"));
        QVERIFY((*g)->subgraph("false_graph_0")->find("sigmoid"));
        QVERIFY((*g)->verify().ok());
    }

    void annotationsParse() {
        auto m = parseAnnotation("f32[16, 128][1, 16]cuda:0");
        QVERIFY(m);
        QCOMPARE(m->shape, (std::vector<int64_t>{16, 128}));
        QCOMPARE(m->strides, (std::vector<int64_t>{1, 16}));
        QCOMPARE(m->device.str(), std::string("cuda:0"));
        auto s = parseAnnotation("b8[]");
        QVERIFY(s && s->dtype == DType::Bool && s->shape.empty() && !s->stridesKnown && !s->deviceKnown);
        auto sym = parseAnnotation("f32[s0, ((s3 + 8)//9)]");
        QVERIFY(sym && sym->isSymbolic());
        QCOMPARE(sym->annotation(), std::string("f32[s0, ((s3 + 8)//9)]"));
        QVERIFY(!parseAnnotation("Sym(s0)"));
        QVERIFY(!parseAnnotation("q99[1]"));
    }

    /// AOTInductor graphs reach numbered submodules with getattr; the printer writes it back.
    void getattrOfSelfIsAnAttribute() {
        auto g = readFxFile(fxtest::corpus() / "mlp/debug/model___8.2/fx_graph_readable.py");
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().str().c_str());
        Node* w = (*g)->find("_0_weight");
        QVERIFY(w && w->kind() == NodeKind::GetAttr);
        QCOMPARE(w->target(), std::string("0.weight"));
        QVERIFY(printGraph(**g).find("_0_weight: \"f32[128, 64]\" = getattr(self, \"0\").weight") != std::string::npos);
    }

    void typeExpressionAnnotationsAreSkipped() {
        auto g = readFxText("class FxModule(torch.nn.Module):\n    def forward(self, L_x_ : torch.Tensor, y : "
                            "typing.List[int] = None):\n"
                            "        relu = torch.ops.aten.relu.default(L_x_);  L_x_ = None\n        return (relu,)\n",
                            "m.py");
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().str().c_str());
        QCOMPARE((*g)->placeholders().size(), size_t(2));
        QVERIFY((*g)->placeholders()[0]->meta.empty());
    }

    void unknownOpStillLoads() {
        std::string text = kSmall;
        text.replace(text.find("aten.relu.default"), 17, "aten.frobnicate.default");
        auto path = fs::temp_directory_path() / "fxray_unknown_op.py";
        { std::ofstream(path) << text; }
        auto f = loadFile(path);
        QVERIFY(f.ok());
        QCOMPARE(f->graphs[0].unknownOps, (std::vector<std::string>{"aten.frobnicate.default"}));
        QVERIFY(f->graphs[0].graph->verify().ok());
    }

    void errorsNameFileLineAndColumn_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("message");
        QString base = QString::fromUtf8(kSmall);
        QTest::newRow("no class") << "x = 1\n" << 1 << 0 << "no 'class";
        QTest::newRow("unknown name") << QString(base).replace("(x);", "(y);") << 4 << 66 << "unknown name 'y'";
        QTest::newRow("unclosed paren") << QString(base).replace("(x);  x = None", "(x") << 4 << 9
                                        << "unclosed bracket";
        QTest::newRow("bad annotation") << QString(base).replace("\"f32[2, 3][3, 1]cpu\" =", "\"f32[2, 3][3]cpu\" =")
                                        << 4 << 15 << "bad annotation";
        QTest::newRow("no return") << QString(base).replace("        return (relu,)\n", "") << 2 << 5
                                   << "no return statement";
        QTest::newRow("assigned twice") << QString(base).replace(
                                               "        return",
                                               "        relu = torch.ops.aten.relu.default(x)\n        return")
                                        << 5 << 9 << "assigned twice";
        QTest::newRow("bad character") << QString(base).replace("(x);", "(x $);") << 4 << 68
                                       << "unexpected character '$'";
        QTest::newRow("unterminated string")
            << QString(base).replace("(x);", "(x, 'abc);") << 4 << 69 << "unterminated string";
        QTest::newRow("nested expression")
            << QString(base).replace("(x);", "(x + x);") << 4 << 68 << "nested expression";
        QTest::newRow("empty target") << QString(base).replace("        return", "        = x\n        return") << 5
                                      << 9 << "expected a name before '='";
        QTest::newRow("call self") << QString(base).replace("        return", "        y = self(x)\n        return")
                                   << 5 << 13 << "calling 'self'";
        QTest::newRow("no forward") << "class M(torch.nn.Module):\n    def f(self):\n        return 1\n"
                                    << 1 << 1 << "has no forward()";
    }
    void errorsNameFileLineAndColumn() {
        QFETCH(QString, text);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, message);
        Diagnostic d = parseError(text.toStdString());
        QVERIFY2(d.message.find(message.toStdString()) != std::string::npos, d.str().c_str());
        QCOMPARE(d.file, std::string("bad.py"));
        QCOMPARE(d.line, line);
        QCOMPARE(d.column, column);
        QVERIFY(d.str().rfind("bad.py:", 0) == 0);
    }

    /// Damaged input never crashes the reader: every truncation point and many byte flips of a
    /// real graph either parse or give a located error. (The asan preset runs this too.)
    void damagedInputNeverCrashes() {
        auto text = readTextFile(fxtest::corpus() / "gpt2/numerics/forward.py");
        QVERIFY(text.ok());
        const std::string& t = *text;
        int errors = 0;
        for (size_t cut = 0; cut < t.size(); cut += 97) {
            auto g = readFxText(std::string_view(t).substr(0, cut), "cut.py");
            if (!g.ok()) {
                ++errors;
                QVERIFY(!g.error().message.empty());
                QCOMPARE(g.error().file, std::string("cut.py"));
            }
        }
        QVERIFY(errors > 0);
        uint64_t state = 12345;
        const char junk[] = "()[]:;,=\"'#\n x.0-";
        for (int k = 0; k < 400; ++k) {
            std::string m = t;
            for (int f = 0; f < 3; ++f) {
                state = state * 6364136223846793005ull + 1442695040888963407ull;
                m[(state >> 17) % m.size()] = junk[(state >> 40) % (sizeof junk - 1)];
            }
            auto g = readFxText(m, "flip.py");
            if (g.ok())
                QVERIFY((*g)->size() > 0);
            else
                QVERIFY(g.error().line >= 0);
        }
    }

    void liftedConstantsComeFromDynamoLiterals() {
        auto g = readFxFile(fxtest::corpus() / "gpt2/numerics/joint.py");
        auto d = readFxFile(fxtest::corpus() / "gpt2/numerics/dynamo.py");
        QVERIFY(g.ok() && d.ok());
        QVERIFY(!missingConstants(**g).empty());
        auto filled = linkLiftedConstants(**g, **d);
        QVERIFY(std::find(filled.begin(), filled.end(), "_tensor_constant0") != filled.end());
        const Tensor& c = (*g)->constants.at("_tensor_constant0");
        QCOMPARE(c.dtype(), DType::Float32);
        QCOMPARE(c.numel(), int64_t(1));
        QCOMPARE(kern::toDoubles(c)[0], 0.0);  // torch.tensor(0.0, ...) in dynamo.py
        QVERIFY(missingConstants(**g).empty());
    }
};

QTEST_GUILESS_MAIN(TestFxTextReader)
#include "tst_fx_text_reader.moc"
