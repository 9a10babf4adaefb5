#pragma once
/// Work that must run in a child process (the numerics pane's `fxray compare`, which may touch a
/// GPU): a crash or hang there is a result, never the end of the app. Like JobLane, one job at a
/// time per owner: start() supersedes the child in flight (it is killed), cancel() kills it, and
/// `done` runs on the owner's thread with how the child ended. busyChanged(what) reports it.
#include <QByteArray>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <functional>

class QProcess;
class QTimer;

namespace fxray::views {

/// How a child process ended.
struct ChildResult {
    bool started = false;  ///< false: it could not start (startError says why)
    QString startError;
    bool crashed = false;  ///< killed by a signal (or by us after the timeout: timedOut)
    bool timedOut = false;
    int exitCode = -1;  ///< when it exited normally
    QByteArray out;
    QString err;
};

class ChildJob : public QObject {
    Q_OBJECT
public:
    explicit ChildJob(QObject* owner);
    ~ChildJob() override;

    /// Starts `program args`; `timeoutMs` <= 0 waits for ever.
    void start(const QString& what, const QString& program, const QStringList& args,
               std::function<void(const ChildResult&)> done, int timeoutMs = 0);
    /// Kills the child in flight; its result is dropped.
    void cancel();
    bool isBusy() const { return m_proc != nullptr; }
    /// Processes events until the child is done (tests); false on timeout.
    bool waitForIdle(int timeoutMs = 120000);

Q_SIGNALS:
    void busyChanged(const QString& what);

private:
    void finished();
    void drop();

    QProcess* m_proc = nullptr;
    QTimer* m_timer = nullptr;
    bool m_timedOut = false;
    std::function<void(const ChildResult&)> m_done;
};

}  // namespace fxray::views
