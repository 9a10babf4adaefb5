#include "jobs/job_lane.h"

#include "jobs/tsan_handoff.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QMetaObject>
#include <QThread>
#include <QThreadPool>

namespace fxray::views {

namespace {

/// A call queued from a job's work to the lane's thread.
class PostedCall : public QEvent {
public:
    static QEvent::Type eventType() {
        static const auto t = static_cast<QEvent::Type>(QEvent::registerEventType());
        return t;
    }
    explicit PostedCall(std::function<void()> f) : QEvent(eventType()), fn(std::move(f)) {}
    std::function<void()> fn;
};

}  // namespace

void JobContext::post(std::function<void()> f) const {
    // The lane outlives every job's work (its destructor waits for the pool), so posting to it
    // from the pool is safe; the ticket decides on the UI thread whether the call still counts.
    auto current = m_current;
    const unsigned ticket = m_ticket;
    // An event built here and posted by Qt's (non-template) postEvent: everything written into it
    // precedes the hand-off, which JobLane::event() acquires before running it.
    auto* call = new PostedCall([current, ticket, f = std::move(f)] {
        if (current->load() == ticket) f();
    });
    handoffRelease();
    QCoreApplication::postEvent(m_lane, call);
}

JobLane::JobLane(QObject* owner, QThreadPool* pool, int threads)
        : QObject(owner), m_current(std::make_shared<std::atomic<unsigned>>(0)) {
    if (pool) {
        m_pool = pool;
        m_sharedPool = true;
    } else {
        m_pool = new QThreadPool(this);
        m_pool->setMaxThreadCount(std::max(1, threads));
    }
}

JobLane::~JobLane() {
    ++*m_current;
    // A shared pool belongs to the owner, which may already have deleted it (a child created
    // before the lanes): the owner waits for it in its destructor (abandon()).
    if (!m_sharedPool) m_pool->waitForDone();
}

JobContext JobLane::begin(const QString& what) {
    JobContext ctx;
    ctx.m_lane = this;
    ctx.m_ticket = ++*m_current;
    ctx.m_current = m_current;
    m_busy = true;
    Q_EMIT busyChanged(what);
    return ctx;
}

void JobLane::run(std::function<void()> task) {
    std::function<void()> job = [task = std::move(task)] {
        handoffAcquire();
        task();
    };
    handoffRelease();
    m_pool->start(std::move(job));
}

bool JobLane::event(QEvent* e) {
    // Before reading the event at all: a PostedCall was built on a worker thread.
    handoffAcquire();
    if (e->type() != PostedCall::eventType()) return QObject::event(e);
    static_cast<PostedCall*>(e)->fn();
    return true;
}

void JobLane::finish(unsigned ticket) {
    if (ticket != m_current->load() || !m_busy) return;
    m_busy = false;
    Q_EMIT busyChanged(QString());
}

void JobLane::abandon() {
    ++*m_current;
    m_busy = false;
    m_pool->waitForDone();
}

void JobLane::cancel() {
    ++*m_current;
    if (!m_busy) return;
    m_busy = false;
    Q_EMIT busyChanged(QString());
}

bool JobLane::waitForIdle(int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (m_busy && t.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (m_busy) QThread::msleep(2);
    }
    return !m_busy;
}

}  // namespace fxray::views
