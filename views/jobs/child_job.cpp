#include "jobs/child_job.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QThread>
#include <QTimer>

namespace fxray::views {

ChildJob::ChildJob(QObject* owner) : QObject(owner) {}

ChildJob::~ChildJob() { drop(); }

void ChildJob::start(const QString& what, const QString& program, const QStringList& args,
                     std::function<void(const ChildResult&)> done, int timeoutMs) {
    drop();
    m_done = std::move(done);
    m_timedOut = false;
    m_proc = new QProcess(this);
    m_proc->setProgram(program);
    m_proc->setArguments(args);
    connect(m_proc, &QProcess::finished, this, &ChildJob::finished);
    connect(m_proc, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) finished();
    });
    if (timeoutMs > 0) {
        m_timer = new QTimer(this);
        m_timer->setSingleShot(true);
        connect(m_timer, &QTimer::timeout, this, [this] {
            if (!m_proc) return;
            m_timedOut = true;
            m_proc->kill();  // finished() follows
        });
        m_timer->start(timeoutMs);
    }
    m_proc->start();
    Q_EMIT busyChanged(what);
}

void ChildJob::finished() {
    if (!m_proc) return;
    QProcess* p = m_proc;
    m_proc = nullptr;
    if (m_timer) {
        m_timer->deleteLater();
        m_timer = nullptr;
    }
    p->deleteLater();
    ChildResult r;
    r.started = p->error() != QProcess::FailedToStart;
    if (!r.started) r.startError = p->errorString();
    r.timedOut = m_timedOut;
    r.crashed = r.started && p->exitStatus() != QProcess::NormalExit;
    r.exitCode = r.started && !r.crashed ? p->exitCode() : -1;
    r.out = p->readAllStandardOutput();
    r.err = QString::fromUtf8(p->readAllStandardError()).trimmed();
    auto done = std::move(m_done);
    m_done = nullptr;
    Q_EMIT busyChanged(QString());
    if (done) done(r);
}

void ChildJob::drop() {
    if (m_timer) {
        m_timer->stop();
        m_timer->deleteLater();
        m_timer = nullptr;
    }
    if (!m_proc) return;
    QProcess* p = m_proc;
    m_proc = nullptr;
    m_done = nullptr;
    p->disconnect(this);
    p->kill();
    p->waitForFinished(2000);
    p->deleteLater();
}

void ChildJob::cancel() {
    const bool wasBusy = m_proc != nullptr;
    drop();
    if (wasBusy) Q_EMIT busyChanged(QString());
}

bool ChildJob::waitForIdle(int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (m_proc && t.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (m_proc) QThread::msleep(2);
    }
    return !m_proc;
}

}  // namespace fxray::views
