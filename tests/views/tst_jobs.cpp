// The GUI's one way of running work (views/jobs): a lane delivers a job's result on the UI
// thread, a newer job or cancel() drops the older result (and its progress), busyChanged tells
// the status bar, and a lane going away waits for its work; a child job reports a crash, a
// timeout and a start failure as results, and cancel() kills the child.
#include "jobs/child_job.h"
#include "jobs/job_lane.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <QThread>
#include <QThreadPool>

#include <atomic>
#include <memory>

using namespace fxray::views;

class TestJobs : public QObject {
    Q_OBJECT
private slots:
    void resultArrivesOnTheOwnersThread() {
        QObject owner;
        JobLane lane(&owner);
        QSignalSpy busy(&lane, &JobLane::busyChanged);
        QThread* worker = nullptr;
        int got = 0;
        lane.start<int>(
            "adding",
            [&worker](const JobContext&) {
                worker = QThread::currentThread();
                return 41 + 1;
            },
            [&got](int& r) {
                QCOMPARE(QThread::currentThread(), QCoreApplication::instance()->thread());
                got = r;
            });
        QVERIFY(lane.isBusy());
        QVERIFY(lane.waitForIdle(10000));
        QCOMPARE(got, 42);
        QVERIFY(worker && worker != QThread::currentThread());
        QCOMPARE(busy.count(), 2);
        QCOMPARE(busy[0][0].toString(), QString("adding"));
        QCOMPARE(busy[1][0].toString(), QString());
    }

    void newerJobSupersedesTheOlder() {
        JobLane lane(nullptr, nullptr, 2);
        std::atomic<bool> release{false};
        QStringList delivered;
        lane.start<QString>(
            "slow",
            [&release](const JobContext&) {
                while (!release) QThread::msleep(1);
                return QString("old");
            },
            [&delivered](QString& r) { delivered << r; });
        lane.start<QString>(
            "fast", [](const JobContext&) { return QString("new"); }, [&delivered](QString& r) { delivered << r; });
        QVERIFY(lane.waitForIdle(10000));
        release = true;
        lane.pool()->waitForDone();
        QCoreApplication::processEvents();
        QCOMPARE(delivered, QStringList{"new"});
    }

    void cancelDropsResultAndProgress() {
        JobLane lane;
        QSignalSpy busy(&lane, &JobLane::busyChanged);
        std::atomic<bool> release{false}, sawCancel{false};
        int progress = 0, results = 0;
        lane.start<int>(
            "working",
            [&](const JobContext& ctx) {
                while (!release) QThread::msleep(1);
                sawCancel = ctx.cancelled();
                ctx.post([&progress] { ++progress; });
                return 1;
            },
            [&results](int&) { ++results; });
        lane.cancel();
        QVERIFY(!lane.isBusy());
        QCOMPARE(busy.last()[0].toString(), QString());
        release = true;
        lane.pool()->waitForDone();
        QCoreApplication::processEvents();
        QVERIFY(sawCancel);
        QCOMPARE(progress, 0);
        QCOMPARE(results, 0);
    }

    void progressReachesTheUiWhileCurrent() {
        JobLane lane;
        QList<int> seen;
        lane.start<int>(
            "counting",
            [&seen](const JobContext& ctx) {
                for (int i = 1; i <= 3; ++i) ctx.post([i, &seen] { seen << i; });
                return 3;
            },
            [&seen](int& n) { seen << -n; });
        QVERIFY(lane.waitForIdle(10000));
        QCOMPARE(seen, (QList<int>{1, 2, 3, -3}));
    }

    void laneGoingAwayWaitsForItsWork() {
        auto finished = std::make_shared<std::atomic<bool>>(false);
        {
            JobLane lane;
            lane.start<int>(
                "sleeping",
                [finished](const JobContext&) {
                    QThread::msleep(200);
                    *finished = true;
                    return 0;
                },
                [](int&) { QFAIL("delivered after the lane went away"); });
        }
        QVERIFY(*finished);
        QCoreApplication::processEvents();
    }

    void childCrashIsAResult() {
        ChildJob job(nullptr);
        ChildResult got;
        bool done = false;
        job.start("crashing", "sh", {"-c", "echo partial; kill -SEGV $$"}, [&](const ChildResult& r) {
            got = r;
            done = true;
        });
        QVERIFY(job.waitForIdle(20000));
        QVERIFY(done);
        QVERIFY(got.started);
        QVERIFY(got.crashed);
        QCOMPARE(got.exitCode, -1);
        QCOMPARE(got.out.trimmed(), QByteArray("partial"));
    }

    void childExitCodeAndOutput() {
        ChildJob job(nullptr);
        ChildResult got;
        job.start("exiting", "sh", {"-c", "echo out; echo err >&2; exit 3"}, [&](const ChildResult& r) { got = r; });
        QVERIFY(job.waitForIdle(20000));
        QVERIFY(!got.crashed);
        QCOMPARE(got.exitCode, 3);
        QCOMPARE(got.out.trimmed(), QByteArray("out"));
        QCOMPARE(got.err, QString("err"));
    }

    void childTimeoutKillsIt() {
        ChildJob job(nullptr);
        ChildResult got;
        job.start(
            "hanging", "sh", {"-c", "sleep 30"}, [&](const ChildResult& r) { got = r; }, 200);
        QVERIFY(job.waitForIdle(10000));
        QVERIFY(got.timedOut);
        QVERIFY(got.crashed);
    }

    void childThatCannotStartSaysWhy() {
        ChildJob job(nullptr);
        ChildResult got;
        bool done = false;
        job.start("missing", "/nonexistent/fxray-no-such-program", {}, [&](const ChildResult& r) {
            got = r;
            done = true;
        });
        QVERIFY(job.waitForIdle(10000));
        QVERIFY(done);
        QVERIFY(!got.started);
        QVERIFY(!got.startError.isEmpty());
    }

    void childCancelKillsAndDrops() {
        ChildJob job(nullptr);
        QSignalSpy busy(&job, &ChildJob::busyChanged);
        bool done = false;
        job.start("hanging", "sh", {"-c", "sleep 30"}, [&](const ChildResult&) { done = true; });
        QVERIFY(job.isBusy());
        QElapsedTimer t;
        t.start();
        job.cancel();
        QVERIFY(!job.isBusy());
        QVERIFY(t.elapsed() < 5000);
        QCoreApplication::processEvents();
        QVERIFY(!done);
        QCOMPARE(busy.last()[0].toString(), QString());
    }
};

QTEST_GUILESS_MAIN(TestJobs)
#include "tst_jobs.moc"
