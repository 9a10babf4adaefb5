// Lifted tensor constants on the command line: graphs fxray writes carry them (a
// `<stem>_constants/` folder beside the file) and run wherever they are copied; constants whose
// value the graph's use decides run with a note saying so; the rest stop with exit 2 naming them.
#include "cli_test_util.h"

#include <QTemporaryDir>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using fxtest::c;
using fxtest::cli;

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

fs::path opinfo(const std::string& rel) { return fxtest::corpus().parent_path() / "opinfo" / rel; }

}  // namespace

class TestCliConstants : public QObject {
    Q_OBJECT

    /// Writes a graph with `write` (a command taking --out FILE) into one folder, copies the file
    /// and its constants folder into another, and checks that the copy runs there, reading its
    /// constants from the new place, with the outputs the original gives.
    void writtenGraphRunsElsewhere(std::vector<std::string> write) {
        QTemporaryDir a, b;
        QVERIFY(a.isValid() && b.isValid());
        const fs::path written = fs::path(a.path().toStdString()) / "g.py";
        write.insert(write.end(), {"--out", written.string()});
        auto w = cli(write);
        QVERIFY2(w.status == 0, w.err.c_str());
        QVERIFY2(slurp(written).find("= self._tensor_constant") != std::string::npos,
                 "the written graph has no lifted constant: the test would prove nothing");
        QVERIFY(!fs::is_empty(fs::path(a.path().toStdString()) / "g_constants"));

        const fs::path copy = fs::path(b.path().toStdString()) / "moved" / "g.py";
        fs::create_directories(copy.parent_path());
        fs::copy_file(written, copy);
        fs::copy(written.parent_path() / "g_constants", copy.parent_path() / "g_constants",
                 fs::copy_options::recursive);

        const fs::path outA = fs::path(a.path().toStdString()) / "out", outB = fs::path(b.path().toStdString()) / "out";
        auto ra = cli({"run", written.string(), "--seed", "3", "--out", outA.string()});
        QVERIFY2(ra.status == 0, ra.err.c_str());
        auto rb = cli({"run", copy.string(), "--seed", "3", "--out", outB.string()});
        QVERIFY2(rb.status == 0, rb.err.c_str());
        QVERIFY2(rb.err.find("read from " + (copy.parent_path() / "g_constants").string()) != std::string::npos,
                 rb.err.c_str());
        int compared = 0;
        for (const auto& e : fs::directory_iterator(outA)) {
            QVERIFY2(fs::exists(outB / e.path().filename()), e.path().filename().string().c_str());
            QVERIFY2(slurp(e.path()) == slurp(outB / e.path().filename()), e.path().filename().string().c_str());
            ++compared;
        }
        QVERIFY(compared > 0);
    }

private slots:
    /// `fxray autodiff dynamo.py --out DIR/j.py`: gpt2's joint graph lifts its mask value and
    /// empty KV caches.
    void autodiffOutputRunsElsewhere() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        writtenGraphRunsElsewhere({"autodiff", c("gpt2/numerics/dynamo.py")});
    }

    /// `fxray compile forward.py --out DIR/o.py`.
    void compileOutputRunsElsewhere() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        writtenGraphRunsElsewhere({"compile", c("gpt2/numerics/forward.py")});
    }

    /// A torch.masked fill is inferred, said in a note naming the constant, and matches PyTorch.
    void maskedFillRunsWithANote() {
        const fs::path num = opinfo("masked_amax__default__s1/numerics");
        if (!fs::exists(num)) QSKIP("../shared/opinfo not found beside the corpus");
        auto r = cli({"run", (num / "forward.py").string(), "--inputs", (num / "forward/inputs").string(), "--expect",
                      (num / "forward/outputs").string()});
        QVERIFY2(r.status == 0, r.err.c_str());
        QVERIFY2(r.err.find("fxray: note: lifted constant _tensor_constant0 taken as -inf") != std::string::npos,
                 r.err.c_str());
        QVERIFY2(r.err.find("aten.amax.default") != std::string::npos, r.err.c_str());
    }

    /// A constant returned as it is (masked.prod of a 0-d tensor): nothing decides it; exit 2 names it.
    void undecidedConstantIsExit2() {
        const fs::path num = opinfo("masked_prod__default__s1/numerics");
        if (!fs::exists(num)) QSKIP("../shared/opinfo not found beside the corpus");
        auto r = cli({"run", (num / "forward.py").string(), "--inputs", (num / "forward/inputs").string()});
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find("constant '_tensor_constant0'") != std::string::npos, r.err.c_str());
        QVERIFY2(r.err.find("--constants DIR") != std::string::npos, r.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCliConstants)
#include "tst_cli_constants.moc"
