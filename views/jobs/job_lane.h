#pragma once
/// The one way the GUI runs work off the UI thread. A JobLane belongs to a QObject (a panel, the
/// Document, the canvas) and runs each job's work on a thread pool; what the work returns is
/// handed to `done` on the lane's thread (the owner's, the UI thread). A newer start() on the
/// same lane, or cancel(), supersedes the job in flight: its work runs on (or polls
/// JobContext::cancelled() and stops early) and its result is dropped unseen. Progress the work
/// posts reaches the UI thread the same way, only while its job is current. busyChanged(what)
/// reports the lane's state for the status bar ("" when idle).
///
/// Work must not touch the owner or any UI object: it gets copies. Lanes may share one pool (the
/// Document's load, compile and partition run one after another, as the user asked for them);
/// the lane's destructor supersedes its job and waits for the pool's work, so nothing is posted
/// to a lane that is going away. ChildJob (child_job.h) is the same for work that must run in a
/// child process, where a crash cannot take the app down.
#include <QObject>
#include <QPointer>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

class QThreadPool;

namespace fxray::views {

class JobLane;

/// What a job's work sees while it runs on the pool.
class JobContext {
public:
    /// The job was superseded or cancelled: its result will be dropped, so it may stop early.
    bool cancelled() const { return m_current->load() != m_ticket; }
    /// Runs `f` on the lane's thread, unless the job is no longer current by then.
    void post(std::function<void()> f) const;

private:
    friend class JobLane;
    JobLane* m_lane = nullptr;
    unsigned m_ticket = 0;
    std::shared_ptr<std::atomic<unsigned>> m_current;
};

class JobLane : public QObject {
    Q_OBJECT
public:
    /// Runs jobs on `pool` (shared with other lanes of the same owner, which keeps the order
    /// the jobs were started in when it has one thread) or, when null, on a pool of its own
    /// with `threads` threads.
    explicit JobLane(QObject* owner = nullptr, QThreadPool* pool = nullptr, int threads = 1);
    ~JobLane() override;

    /// Starts a job: `work` on the pool, then `done(result)` on this lane's thread if the job is
    /// still current. `what` is what the status bar says meanwhile.
    template <typename R>
    void start(const QString& what, std::function<R(const JobContext&)> work, std::function<void(R&)> done) {
        JobContext ctx = begin(what);
        run([ctx, work = std::move(work), done = std::move(done)]() mutable {
            auto result = std::make_shared<R>(work(ctx));
            ctx.post([ctx, result, done] {
                ctx.m_lane->finish(ctx.m_ticket);
                done(*result);
            });
        });
    }
    /// Supersedes the job in flight (its result and progress are dropped) and reports idle.
    void cancel();
    /// Supersedes the job in flight and waits for the pool's work, telling no one: for owners'
    /// destructors, when the receivers of busyChanged may be half gone.
    void abandon();
    /// A current job has not delivered yet.
    bool isBusy() const { return m_busy; }
    /// Processes events until no job is current (tests); false on timeout.
    bool waitForIdle(int timeoutMs = 60000);
    QThreadPool* pool() const { return m_pool; }

Q_SIGNALS:
    /// What the lane is doing; empty when it is idle.
    void busyChanged(const QString& what);

protected:
    /// Runs the calls JobContext::post() queued (see tsan_handoff.h for why they are events).
    bool event(QEvent* e) override;

private:
    friend class JobContext;
    JobContext begin(const QString& what);
    void run(std::function<void()> task);
    void finish(unsigned ticket);

    QThreadPool* m_pool = nullptr;
    bool m_sharedPool = false;  ///< the owner's pool: the owner waits for it
    std::shared_ptr<std::atomic<unsigned>> m_current;
    bool m_busy = false;
};

}  // namespace fxray::views
