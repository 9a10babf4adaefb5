// fxray autodiff FORWARD.py --check-grads DIR: fxray's VJP rules against the gradients PyTorch
// recorded for its OpInfo samples (../shared/opinfo, torch.autograd.grad traced with make_fx).
// Cases from each family must match; a gradient made wrong must be caught (exit 1); an op without
// a VJP rule and bad folders are bad input (exit 2).
#include "cli_test_util.h"

#include "import/npy.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;
using fxtest::cli;

namespace {

fs::path opinfoDir() {
    if (const char* env = std::getenv("FXRAY_OPINFO_DIR"); env && *env) return fs::path(env);
    return fxtest::corpus().parent_path() / "opinfo";
}

fs::path numerics(const std::string& c) { return opinfoDir() / c / "numerics"; }

size_t countFiles(const fs::path& dir) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".npy";
    return n;
}

/// The case's numerics folder copied under `dir` (forward.py and the backward stage).
fs::path copyCase(const std::string& c, const fs::path& dir) {
    fs::path to = dir / c / "numerics";
    fs::create_directories(to);
    fs::copy_file(numerics(c) / "forward.py", to / "forward.py");
    fs::copy_file(numerics(c) / "backward.py", to / "backward.py");
    fs::copy(numerics(c) / "backward", to / "backward", fs::copy_options::recursive);
    return to;
}

}  // namespace

class TestCliAutodiffGrads : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fs::exists(opinfoDir() / "index.json")) QSKIP("no ../shared/opinfo");
    }

    void familiesMatchPyTorch_data() {
        QTest::addColumn<QString>("name");
        for (const char* c :
             {// pointwise
              "sigmoid__default__s0", "mul__default__s0", "abs__default__s0", "atan2__default__s0",
              "clamp__default__s0",
              // reductions
              "sum__default__s1", "amax__default__s0", "softmax__default__s0", "logsumexp__default__s0",
              "var__default__s0", "norm__default__s0",
              // views and reorders
              "permute__default__s0", "expand__default__s0", "flip__default__s0", "repeat__default__s0",
              // indexing
              "gather__default__s0", "index_select__default__s0", "scatter_add__default__s0", "take__default__s0",
              // norms
              "nn_functional_layer_norm__default__s0", "nn_functional_rms_norm__default__s0",
              "nn_functional_group_norm__default__s0"})
            QTest::newRow(c) << QString(c);
    }

    void familiesMatchPyTorch() {
        QFETCH(QString, name);
        const std::string c = name.toStdString();
        if (!fs::exists(numerics(c) / "backward")) QSKIP("case not in this opinfo set");
        auto r =
            cli({"autodiff", (numerics(c) / "forward.py").string(), "--check-grads", numerics(c).string(), "--json"});
        QVERIFY2(r.status == 0, (r.err + r.out).c_str());
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(j["ok"].get<bool>());
        // One comparison per gradient PyTorch recorded, each within the corpus tolerance.
        QCOMPARE(j["gradients"].size(), countFiles(numerics(c) / "backward" / "outputs"));
        for (const auto& g : j["gradients"]) {
            QVERIFY(g["ok"].get<bool>());
            QVERIFY(g["rel_err"].get<double>() <= g["tolerance"].get<double>() || g.contains("judged_by"));
        }
    }

    void textReportAndStageFolder() {
        // The stage folder itself works as well as numerics/; the text names each gradient.
        const std::string c = "mul__default__s0";
        auto r = cli(
            {"autodiff", (numerics(c) / "forward.py").string(), "--check-grads", (numerics(c) / "backward").string()});
        QVERIFY2(r.status == 0, (r.err + r.out).c_str());
        QVERIFY(r.out.find("grad of arg0_1") != std::string::npos);
        QVERIFY(r.out.find("grad of arg1_1") != std::string::npos);
        QVERIFY(r.out.find("max_abs_err") != std::string::npos);
        QVERIFY(r.out.find("FAIL") == std::string::npos);
    }

    void wrongGradientFails() {
        // A forward graph that computes add where PyTorch computed mul: fxray's gradients (the
        // cotangent itself) are not PyTorch's (cotangent times the other operand). rel_err fails,
        // and so does the second opinion, PyTorch's backward graph in fp64: exit 1.
        QTemporaryDir tmp;
        const std::string c = "mul__default__s0";
        fs::path dir = copyCase(c, tmp.path().toStdString());
        std::string text;
        {
            std::ifstream in(dir / "forward.py");
            text.assign(std::istreambuf_iterator<char>(in), {});
        }
        const auto at = text.find("aten.mul.Tensor");
        QVERIFY(at != std::string::npos);
        text.replace(at, 15, "aten.add.Tensor");
        fs::remove(dir / "forward.py");
        std::ofstream(dir / "forward.py") << text;
        auto r = cli({"autodiff", (dir / "forward.py").string(), "--check-grads", dir.string(), "--json"});
        QVERIFY2(r.status == 1, (r.out + r.err).c_str());
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(!j["ok"].get<bool>());
        QCOMPARE(j["gradients"].size(), size_t(2));
        for (const auto& g : j["gradients"]) {
            QVERIFY(!g["ok"].get<bool>());
            QCOMPARE(g["judged_by"].get<std::string>(), std::string("fp64_rmse"));
        }
    }

    void missingVjpNamesTheOp() {
        // floor_divide has no VJP rule (PyTorch does not differentiate it either, so OpInfo has no
        // backward stage for it): checked against a recorded stage of the same signature, the
        // joint graph cannot be built and the message names the op.
        const std::string c = "floor_divide__default__s1";
        auto r = cli({"autodiff", (numerics(c) / "forward.py").string(), "--check-grads",
                      numerics("div__floor_rounding__s1").string()});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find("no VJP rule for aten.floor_divide.default") != std::string::npos, r.err.c_str());
    }

    void badFolders() {
        const std::string c = "gather__default__s0";
        const std::string fwd = (numerics(c) / "forward.py").string();
        auto r = cli({"autodiff", fwd, "--check-grads", (numerics(c) / "nowhere").string()});
        QCOMPARE(r.status, 2);
        QVERIFY(r.err.find("nowhere") != std::string::npos);

        // A cotangent missing: the inputs do not fit the forward graph.
        QTemporaryDir tmp;
        fs::path dir = copyCase(c, tmp.path().toStdString());
        fs::remove(dir / "backward" / "inputs" / "002.npy");
        r = cli({"autodiff", fwd, "--check-grads", dir.string()});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find("one cotangent each") != std::string::npos, r.err.c_str());

        // The options that choose other inputs do not go with the check.
        r = cli({"autodiff", fwd, "--check-grads", numerics(c).string(), "--requires-grad", "all"});
        QCOMPARE(r.status, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliAutodiffGrads)
#include "tst_cli_autodiff_grads.moc"
