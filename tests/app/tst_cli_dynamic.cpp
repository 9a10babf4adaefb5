// Dynamic shapes through the command line: every recorded run of PyTorch's dynamic-shape graphs
// (../shared/corpus_dynamic, torch.compile(dynamic=True)) matches at both recorded sizes from the
// same graph file, on the reference executor and the CPU backend; --sizes draws inputs at a
// chosen binding; inputs that disagree with each other about a symbol are a bad input.
#include "cli_test_util.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using fxtest::cli;

namespace {

fs::path dyn() { return fxtest::corpus().parent_path() / "corpus_dynamic"; }

const char* kModels[] = {"mlp", "attention", "ln_gelu", "gpt2", "checkpointed"};

} // namespace

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
};

QTEST_GUILESS_MAIN(TestCliDynamic)
#include "tst_cli_dynamic.moc"
