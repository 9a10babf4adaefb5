// The reference executor against PyTorch's own op test database: every graph of
// ../shared/opinfo (PyTorch 2.11's OpInfo samples traced to ATen graphs, see its README) runs on
// its recorded inputs and must reproduce PyTorch's recorded outputs by the corpus's rule.
// Cases that cannot match yet are listed with their reason in opinfo_known_failures.txt; they
// run too, as expected failures, so a listed case that starts to pass fails the test (XPASS)
// until it is taken off the list. Unlisted failures fail as usual.
#include "test_util.h"

#include "exec/run_check.h"
#include "import/lifted_constants.h"
#include "import/loader.h"
#include "import/npy.h"

#include <nlohmann/json.hpp>

#include <QString>
#include <QTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

/// ../shared/opinfo: beside the corpus (FXRAY_OPINFO_DIR overrides, for a copy elsewhere).
fs::path opinfoDir() {
    if (const char* env = std::getenv("FXRAY_OPINFO_DIR"); env && *env) return fs::path(env);
    return fxtest::corpus().parent_path() / "opinfo";
}

/// "case/stage" -> reason, from the checked-in list.
std::map<std::string, std::string> knownFailures() {
    std::map<std::string, std::string> out;
    std::ifstream in(fs::path(FXRAY_TESTS_DIR) / "engine" / "exec" / "opinfo_known_failures.txt");
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ss(line);
        std::string key, reason;
        ss >> key;
        std::getline(ss, reason);
        out[key] = reason.empty() ? "listed" : reason.substr(reason.find_first_not_of(" \t"));
    }
    return out;
}

/// Loads, runs and judges one graph; an empty string when it matches PyTorch, else why not.
std::string runCase(const fs::path& num, const std::string& stage) {
    auto f = loadFile(num / (stage + ".py"));
    if (!f.ok()) return "load: " + f.error().str();
    auto sel = selectGraph(*f, "");
    if (!sel.ok()) return "select: " + sel.error().str();
    LoadedGraph& lg = **sel;
    Graph& g = lg.executable();
    if (!lg.executableUnknownOps().empty()) return "unknown op " + lg.executableUnknownOps().front();
    if (auto missing = missingConstants(g); !missing.empty())
        return "the file does not carry the value of constant '" + missing.front() + "'";
    auto phs = g.placeholders();
    auto inputs = readNpyFolder(num / stage / "inputs", phs.size());
    if (!inputs.ok()) return "inputs: " + inputs.error().str();
    for (size_t i = 0; i < inputs->size(); ++i)
        if ((*inputs)[i].isTensor()) (*inputs)[i].t = withAnnotatedStrides((*inputs)[i].t, *phs[i]);
    auto expect = readNpyFolder(num / stage / "outputs", g.outputs().size());
    if (!expect.ok()) return "outputs: " + expect.error().str();
    RunRequest req;
    req.inputs = std::move(inputs).value();
    auto res = runAndCheck(g, req, &*expect);
    if (!res.ok()) return res.error().str();
    for (const auto& c : res->comparisons)
        if (!c.ok) {
            std::ostringstream s;
            s << "output " << c.index << " differs: rel_err " << c.relErr << " (tolerance " << c.tolerance
              << ") max_abs_err " << c.maxAbsErr << " " << c.note;
            return s.str();
        }
    return {};
}

}  // namespace

class TestOpInfo : public QObject {
    Q_OBJECT
    int m_ok = 0, m_total = 0;
private slots:
    void run_data() {
        QTest::addColumn<QString>("caseName");
        QTest::addColumn<QString>("stage");
        std::ifstream in(opinfoDir() / "index.json");
        if (!in) return;
        auto index = nlohmann::json::parse(in, nullptr, false);
        if (index.is_discarded() || !index.contains("cases")) return;
        for (const auto& c : index["cases"]) {
            const std::string name = c.value("case", ""), stage = c.value("stage", "");
            QTest::newRow((name + "/" + stage).c_str())
                << QString::fromStdString(name) << QString::fromStdString(stage);
        }
    }

    void run() {
        if (!fs::exists(opinfoDir() / "index.json")) QSKIP("../shared/opinfo not found beside the corpus");
        QFETCH(QString, caseName);
        QFETCH(QString, stage);
        static const auto known = knownFailures();
        const std::string key = caseName.toStdString() + "/" + stage.toStdString();
        const std::string problem = runCase(opinfoDir() / caseName.toStdString() / "numerics", stage.toStdString());
        ++m_total;
        m_ok += problem.empty();
        if (auto it = known.find(key); it != known.end()) QEXPECT_FAIL("", it->second.c_str(), Continue);
        QVERIFY2(problem.empty(), problem.c_str());
    }

    void cleanupTestCase() {
        if (m_total > 0)
            qInfo("opinfo: %d of %d graphs match PyTorch on the reference executor (%.1f%%)", m_ok, m_total,
                  100.0 * m_ok / m_total);
    }

    /// Every listed case exists (a stale entry would hide nothing, but would mislead).
    void knownFailuresNameRealCases() {
        if (!fs::exists(opinfoDir() / "index.json")) QSKIP("../shared/opinfo not found beside the corpus");
        for (const auto& [key, reason] : knownFailures()) {
            const auto slash = key.rfind('/');
            QVERIFY2(slash != std::string::npos, key.c_str());
            const fs::path graph = opinfoDir() / key.substr(0, slash) / "numerics" / (key.substr(slash + 1) + ".py");
            QVERIFY2(fs::exists(graph), ("listed but not in ../shared/opinfo: " + key).c_str());
            QVERIFY2(!reason.empty() && reason != "listed", ("no reason given for " + key).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestOpInfo)
#include "tst_opinfo.moc"
