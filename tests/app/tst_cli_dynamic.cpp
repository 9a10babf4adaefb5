// Dynamic shapes through the command line: every recorded run of PyTorch's dynamic-shape graphs
// (../shared/corpus_dynamic, torch.compile(dynamic=True)) matches at both recorded sizes from the
// same graph file, on the reference executor and the CPU backend; --sizes draws inputs at a
// chosen binding; inputs that disagree with each other about a symbol are a bad input; `fxray
// autodiff` of a dynamic Dynamo graph writes one joint graph that reproduces PyTorch's forward and
// backward runs at both recorded sizes, and `fxray partition` of it reports the saved bytes as an
// expression over the symbols and at the binding.
#include "cli_test_util.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using fxtest::cli;

namespace {

fs::path dyn() { return fxtest::corpus().parent_path() / "corpus_dynamic"; }

const char* kModels[] = {"mlp", "attention", "ln_gelu", "gpt2", "checkpointed"};

std::string readAll(const fs::path& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

size_t npyCount(const fs::path& dir) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".npy";
    return n;
}

std::string npyName(size_t i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%03zu.npy", i);
    return buf;
}

/// The shape of a recorded .npy file (its header's 'shape': (16, 128)).
std::vector<int64_t> npyShape(const fs::path& p) {
    std::string h = readAll(p).substr(0, 256);
    std::vector<int64_t> out;
    size_t open = h.find("'shape': (");
    if (open == std::string::npos) return out;
    std::string body = h.substr(open + 10, h.find(')', open) - open - 10);
    for (size_t i = 0; i < body.size();) {
        size_t j = body.find(',', i);
        std::string item = body.substr(i, j == std::string::npos ? std::string::npos : j - i);
        if (item.find_first_of("0123456789") != std::string::npos) out.push_back(std::stoll(item));
        if (j == std::string::npos) break;
        i = j + 1;
    }
    return out;
}

}  // namespace

class TestCliDynamic : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fs::exists(dyn() / "README.md")) QSKIP("no corpus_dynamic next to the corpus");
    }
    void everyRecordedRunMatches_data() {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QString>("run");
        for (const char* backend : {"ref", "cpu"})
            for (const char* m : kModels)
                for (const char* g : {"forward", "backward"})
                    for (const char* r : {"", "_2"}) {
                        std::string run = std::string(g) + r;
                        QTest::newRow((std::string(backend) + "/" + m + "/" + run).c_str())
                            << backend << m << g << QString::fromStdString(run);
                    }
    }
    void everyRecordedRunMatches() {
        QFETCH(QString, backend);
        QFETCH(QString, model);
        QFETCH(QString, graph);
        QFETCH(QString, run);
        fs::path num = dyn() / model.toStdString() / "numerics";
        auto r = cli({"run", (num / (graph.toStdString() + ".py")).string(), "--inputs",
                      (num / run.toStdString() / "inputs").string(), "--expect",
                      (num / run.toStdString() / "outputs").string(), "--backend", backend.toStdString(), "--json"});
        if (backend == "cpu" && r.err.find("not available in this build") != std::string::npos)
            QSKIP("this build has no CPU backend");
        QVERIFY2(r.status == 0, (r.err + r.out).c_str());
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(j["ok"].get<bool>());
        QVERIFY(!j["outputs"].empty());
    }
    void theTwoRunsReallyHaveDifferentSizes() {
        // Guards the test above: the same file ran at two bindings.
        std::ifstream in(dyn() / "mlp/numerics/numerics.json");
        auto j = nlohmann::json::parse(in);
        QVERIFY(j["runs"]["forward"] != j["runs"]["forward_2"]);
    }
    void sizesChooseTheBinding() {
        auto r = cli({"run", (dyn() / "mlp/numerics/forward.py").string(), "--sizes", "s33=3", "--json"});
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["outputs"][0]["annotation"].get<std::string>(), std::string("f32[3, 32]"));
        QCOMPARE(j["outputs"][5]["value"].get<std::string>(), std::string("int 3"));  // the SymInt output
        QVERIFY(r.err.find("s33=3") != std::string::npos);
        auto other = cli({"run", (dyn() / "mlp/numerics/forward.py").string(), "--sizes", "s33=11", "--json"});
        QCOMPARE(nlohmann::json::parse(other.out)["outputs"][0]["annotation"].get<std::string>(),
                 std::string("f32[11, 32]"));
    }
    void badSizesAreBadInput() {
        auto unknown = cli({"run", (dyn() / "mlp/numerics/forward.py").string(), "--sizes", "s99=3"});
        QCOMPARE(unknown.status, 2);
        QVERIFY(unknown.err.find("no symbol s99") != std::string::npos);
        QVERIFY(unknown.err.find("s33") != std::string::npos);
        auto malformed = cli({"run", (dyn() / "mlp/numerics/forward.py").string(), "--sizes", "s33=three"});
        QCOMPARE(malformed.status, 2);
        QVERIFY(malformed.err.find("SYMBOL=N") != std::string::npos);
    }
    void inputsThatDisagreeAboutASymbolAreBadInput() {
        // The SymInt file says s33 = 7 while the activation has 2 rows (the recorded size).
        fs::path tmp = fs::temp_directory_path() / "fxray_dyn_disagree";
        fs::remove_all(tmp);
        fs::copy(dyn() / "mlp/numerics/forward/inputs", tmp);
        fs::copy_file(dyn() / "mlp/numerics/forward_2/inputs/002.npy", tmp / "002.npy",
                      fs::copy_options::overwrite_existing);
        auto r = cli({"run", (dyn() / "mlp/numerics/forward.py").string(), "--inputs", tmp.string()});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find("primals_4") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("s33") != std::string::npos, r.err.c_str());
        fs::remove_all(tmp);
    }
    void autodiffOfADynamicGraphRunsAtBothRecordedSizes() {
        // ln_gelu: two symbols (batch s77, sequence s27), views through their product.
        const fs::path num = dyn() / "ln_gelu/numerics";
        fs::path tmp = fs::temp_directory_path() / "fxray_dyn_autodiff";
        fs::remove_all(tmp);
        fs::create_directories(tmp);
        const fs::path joint = tmp / "joint.py";
        auto a = cli({"autodiff", (num / "dynamo.py").string(), "--out", joint.string()});
        QVERIFY2(a.status == 0, (a.err + a.out).c_str());
        const std::string text = readAll(joint);
        // PyTorch's SymInt primals and a symbolic tangent, as its backward graph takes it.
        QVERIFY(text.find("primals_3: \"Sym(s77)\"") != std::string::npos);
        QVERIFY(text.find("primals_4: \"Sym(s27)\"") != std::string::npos);
        QVERIFY2(text.find("tangents_1: \"f32[s77, s27, 128]") != std::string::npos, text.c_str());

        for (const char* run : {"", "_2"}) {
            // Inputs: the forward's primals, then the backward's tangent (its last input).
            // Expected: the forward's own output, then the backward's gradients.
            const fs::path in = tmp / (std::string("in") + run), expect = tmp / (std::string("expect") + run);
            fs::create_directories(in);
            fs::create_directories(expect);
            const fs::path fwIn = num / (std::string("forward") + run) / "inputs";
            const fs::path bwIn = num / (std::string("backward") + run) / "inputs";
            const size_t primals = npyCount(fwIn);
            for (size_t i = 0; i < primals; ++i) fs::copy_file(fwIn / npyName(i), in / npyName(i));
            fs::copy_file(bwIn / npyName(npyCount(bwIn) - 1), in / npyName(primals));
            fs::copy_file(num / (std::string("forward") + run) / "outputs" / npyName(0), expect / npyName(0));
            for (const auto& e : fs::directory_iterator(num / (std::string("backward") + run) / "outputs"))
                fs::copy_file(e.path(), expect / npyName(1 + std::stoul(e.path().stem().string())));
            // One graph file, both sizes, on the reference executor and the CPU backend.
            for (const char* backend : {"ref", "cpu"}) {
                auto r = cli({"run", joint.string(), "--inputs", in.string(), "--expect", expect.string(), "--backend",
                              backend, "--json"});
                if (std::string(backend) == "cpu" && r.err.find("not available in this build") != std::string::npos)
                    continue;
                QVERIFY2(r.status == 0, (std::string(backend) + ": " + r.err + r.out).c_str());
                auto j = nlohmann::json::parse(r.out);
                QVERIFY(j["ok"].get<bool>());
                int compared = 0;
                for (const auto& o : j["outputs"]) compared += o.contains("rel_err") && o["ok"].get<bool>();
                QVERIFY(compared >= 7);  // the output and six gradients
            }
        }
        fs::remove_all(tmp);
    }
    void partitionReportsSavedBytesAsAnExpression() {
        // mlp: PyTorch's forward saves relu (f32[s33, 128]) as its one activation; the rest it
        // saves are inputs, views of inputs and the SymInt. The partition of fxray's joint graph
        // reports the activation bytes as an expression over s33 and at the binding asked for,
        // and at each recorded size both equal the bytes of PyTorch's saved relu.
        const fs::path num = dyn() / "mlp/numerics";
        fs::path tmp = fs::temp_directory_path() / "fxray_dyn_partition";
        fs::remove_all(tmp);
        fs::create_directories(tmp);
        const fs::path joint = tmp / "joint.py";
        auto a = cli({"autodiff", (num / "dynamo.py").string(), "--out", joint.string()});
        QVERIFY2(a.status == 0, (a.err + a.out).c_str());
        for (const char* run : {"forward", "forward_2"}) {
            auto relu = npyShape(num / run / "outputs" / npyName(2));  // forward.py returns relu third
            QCOMPARE(relu.size(), size_t(2));
            const int64_t s33 = relu[0], bytes = relu[0] * relu[1] * 4;
            auto r = cli({"partition", joint.string(), "--sizes", "s33=" + std::to_string(s33), "--json"});
            QVERIFY2(r.status == 0, (r.err + r.out).c_str());
            auto j = nlohmann::json::parse(r.out);
            QCOMPARE(j["binding"]["s33"].get<int64_t>(), s33);
            QCOMPARE(j["activation_bytes"].get<int64_t>(), bytes);
            const std::string expr = j["activation_bytes_expr"].get<std::string>();
            QVERIFY2(expr.find("s33") != std::string::npos, expr.c_str());
            // The expression gives PyTorch's bytes at the other size too.
            auto other = cli({"partition", joint.string(), "--sizes", "s33=" + std::to_string(s33 + 5), "--json"});
            QVERIFY(other.status == 0);
            auto jo = nlohmann::json::parse(other.out);
            QCOMPARE(jo["activation_bytes_expr"].get<std::string>(), expr);
            QCOMPARE(jo["activation_bytes"].get<int64_t>(), (s33 + 5) * relu[1] * 4);
            // The text form prints both.
            auto t = cli({"partition", joint.string(), "--sizes", "s33=" + std::to_string(s33)});
            QVERIFY(t.status == 0);
            QVERIFY2(t.out.find(expr) != std::string::npos, t.out.c_str());
            QVERIFY2(t.out.find("s33=" + std::to_string(s33)) != std::string::npos, t.out.c_str());
        }
        fs::remove_all(tmp);
    }
};

QTEST_GUILESS_MAIN(TestCliDynamic)
#include "tst_cli_dynamic.moc"
