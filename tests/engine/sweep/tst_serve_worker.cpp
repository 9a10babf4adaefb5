// A sweep's long-lived worker (sweep/serve_worker.h) against a stand-in worker that speaks the
// same protocol: answers come back as exit statuses, a worker that crashes during a check is that
// check's crash and the next check gets a fresh worker, a hang times out the same way, and a
// worker is replaced after recycleAfter checks. (tst_cli_sweep checks real fxray workers give the
// results of a process per graph.)
#include "sweep/serve_worker.h"

#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace fs = std::filesystem;
using fxray::minify::ProcessResult;
using fxray::sweep::ServeWorker;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

class TestServeWorker : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    fs::path dir() const { return m_tmp.path().toStdString(); }
    fs::path m_fake;

private slots:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        // The stand-in worker (its header says what it answers); copied so that it is executable
        // whatever the checkout's file modes.
        m_fake = dir() / "fake-fxray";
        fs::copy_file(fs::path(FXRAY_TESTS_DIR) / "engine" / "sweep" / "fake_sweep_worker.sh", m_fake);
        fs::permissions(m_fake, fs::perms::owner_all);
    }

    void answersAreExitStatuses() {
        ServeWorker w(m_fake, {}, dir() / "log");
        const fs::path out = dir() / "out", err = dir() / "err";
        ProcessResult a = w.run({"ok"}, 10, out, err);
        QCOMPARE(int(a.end), int(ProcessResult::End::Exited));
        QCOMPARE(a.exitCode, 0);
        QCOMPARE(slurp(out), std::string("ran ok\n"));
        const std::string pid = slurp(err);
        ProcessResult b = w.run({"differ"}, 10, out, err);
        QCOMPARE(b.exitCode, 1);
        QCOMPARE(slurp(out), std::string("ran differ\n"));
        QCOMPARE(slurp(err), pid);  // the same process answered both
        QCOMPARE(w.served(), size_t(2));
    }

    void aCrashIsTheCheckAndTheNextGetsAFreshWorker() {
        ServeWorker w(m_fake, {}, dir() / "log");
        const fs::path out = dir() / "out", err = dir() / "err";
        QCOMPARE(w.run({"ok"}, 10, out, err).exitCode, 0);
        const std::string before = slurp(err);
        ProcessResult c = w.run({"crash"}, 10, out, err);
        QCOMPARE(int(c.end), int(ProcessResult::End::Signaled));
        QCOMPARE(c.signal, int(SIGSEGV));
        ProcessResult d = w.run({"ok"}, 10, out, err);
        QCOMPARE(int(d.end), int(ProcessResult::End::Exited));
        QCOMPARE(d.exitCode, 0);
        QVERIFY(slurp(err) != before);  // another process
    }

    void aHangTimesOutAndTheNextGetsAFreshWorker() {
        ServeWorker w(m_fake, {}, dir() / "log");
        const fs::path out = dir() / "out", err = dir() / "err";
        ProcessResult h = w.run({"hang"}, 0.5, out, err);
        QCOMPARE(int(h.end), int(ProcessResult::End::TimedOut));
        QCOMPARE(h.seconds, 0.5);
        ProcessResult d = w.run({"ok"}, 10, out, err);
        QCOMPARE(d.exitCode, 0);
    }

    void workersAreRecycled() {
        ServeWorker w(m_fake, {}, dir() / "log");
        w.recycleAfter = 2;
        const fs::path out = dir() / "out", err = dir() / "err";
        std::vector<std::string> pids;
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(w.run({"ok"}, 10, out, err).exitCode, 0);
            pids.push_back(slurp(err));
        }
        QCOMPARE(pids[0], pids[1]);
        QVERIFY(pids[1] != pids[2]);
        QCOMPARE(pids[2], pids[3]);
    }

    void aMissingExecutableIsAStartFailure() {
        ServeWorker w(dir() / "no-such-fxray", {}, dir() / "log");
        ProcessResult r = w.run({"ok"}, 10, dir() / "out", dir() / "err");
        QCOMPARE(int(r.end), int(ProcessResult::End::SpawnFailed));
        QVERIFY(!r.error.empty());
    }

    void theEnvironmentReachesTheWorker() {
        ServeWorker w(m_fake, {"CUDA_VISIBLE_DEVICES=5"}, dir() / "log");
        QCOMPARE(w.run({"env"}, 10, dir() / "out", dir() / "err").exitCode, 0);
        QCOMPARE(slurp(dir() / "out"), std::string("5\n"));
    }
};

QTEST_GUILESS_MAIN(TestServeWorker)
#include "tst_serve_worker.moc"
