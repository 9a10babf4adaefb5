#pragma once
/// Document: the one piece of state every pane of the window reads — the loaded file, which of
/// its graphs is current, the compile trace of that graph and which pass is being looked at, the
/// partition and its memory budget, and the node selection. Panes never talk to each other: they
/// read the Document and react to its signals, and they change it only through its setters, so
/// the canvas, the code pane, the inspector and the timeline stay in step.
///
/// Long work (loading, compiling, partitioning) runs on a worker thread: the Document starts it,
/// reports `busy(...)`, and installs the immutable result on the UI thread when it arrives.
/// A newer request supersedes an older one (its result is dropped), so nothing stale is shown.
#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>

#include "import/session_state.h"

#include <memory>
#include <string>
#include <vector>

class QThreadPool;

namespace fxray {
struct LoadedFile;
struct LoadedGraph;
class Graph;
struct CompileTrace;
struct PassRecord;
struct PartitionResult;
}  // namespace fxray

namespace fxray::views {

class JobLane;

class Document : public QObject {
    Q_OBJECT
public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    // ---- file -------------------------------------------------------------------------------
    /// Loads synchronously (tests, command line); false + lastError() on failure.
    bool loadSync(const QString& path);
    /// Loads on a worker thread; emits fileChanged() or failed().
    void loadAsync(const QString& path);
    /// Installs an already loaded file (for tests and sessions).
    void setFile(std::shared_ptr<LoadedFile> file, const QString& path);
    const LoadedFile* file() const { return m_file.get(); }
    QString path() const { return m_path; }
    QString lastError() const { return m_lastError; }

    // ---- current graph ----------------------------------------------------------------------
    int graphCount() const;
    int graphIndex() const { return m_graphIndex; }
    const LoadedGraph* currentGraph() const;
    void setGraphIndex(int index);

    // ---- compile ----------------------------------------------------------------------------
    /// Runs pipeline `name` ("joint", "post-grad", ...) on a copy of the current graph's
    /// executable graph, on a worker thread; emits traceChanged() or failed().
    void compileAsync(const QString& pipeline);
    bool compileSync(const QString& pipeline);
    QString pipeline() const { return m_pipeline; }
    std::shared_ptr<const CompileTrace> trace() const { return m_trace; }
    /// -1: the graph before the first pass; otherwise an index into trace()->passes.
    int passIndex() const { return m_passIndex; }
    void setPassIndex(int index);
    /// The record at passIndex(), or null at -1 / without a trace.
    const PassRecord* currentPass() const;
    /// The graph as it was after passIndex() (the latest snapshot at or before it); without a
    /// trace, the current graph as loaded. Never null while a graph is loaded.
    const Graph* shownGraph() const;
    /// The graph before passIndex() (what the diff compares with), or null at -1.
    const Graph* previousGraph() const;

    // ---- partition --------------------------------------------------------------------------
    double memoryBudget() const { return m_budget; }
    /// Re-partitions the current (joint) graph with this budget on a worker thread.
    void setMemoryBudget(double budget);
    bool partitionSync(double budget);
    std::shared_ptr<const PartitionResult> partition() const { return m_partition; }

    // ---- selection --------------------------------------------------------------------------
    QStringList selection() const { return m_selection; }
    /// `origin` is the pane that changed it, so it can ignore its own echo.
    void setSelection(const QStringList& nodeNames, QObject* origin = nullptr);

    // ---- numerics ---------------------------------------------------------------------------
    /// Per node of the current graph, the largest relative error any compared backend showed
    /// against the first one (the numerics panel's `fxray compare`); the canvas's heat map.
    const QHash<QString, double>& nodeErrors() const { return m_nodeErrors; }
    void setNodeErrors(QHash<QString, double> errors);
    /// The recorded inputs of the loaded file (`<stem>/inputs` beside `<stem>.py`, the layout
    /// of the corpus's numerics folders), or empty when there are none.
    QString recordedInputsDir() const;

    /// Drops the results of the jobs in flight (they finish unseen) and reports not busy.
    void cancel();

    // ---- session ----------------------------------------------------------------------------
    /// Where the user is: graph, pipeline, pass, selection, budget (plus saved notes kept as they were).
    SessionState sessionState() const;
    /// Saves the file's graphs and sessionState() as an fxray session (atomic; failed() on error).
    bool saveSessionTo(const QString& path);

    /// True while a load, compile or partition is in flight.
    bool isBusy() const;

Q_SIGNALS:
    void fileChanged();
    void graphChanged();
    void traceChanged();
    void passChanged();
    void partitionChanged();
    void nodeErrorsChanged();
    void selectionChanged(const QStringList& nodeNames, QObject* origin);
    /// Work started (`what`) or ended (empty `what`).
    void busy(const QString& what);
    void failed(const QString& message);

private:
    /// Applies the state of a loaded session file (called by setFile).
    void restoreSession();
    /// Primals that are parameters/buffers (free to save, as Inductor's static inputs).
    std::vector<std::string> staticInputs(const Graph& joint) const;

    std::shared_ptr<LoadedFile> m_file;
    QString m_path;
    QString m_lastError;
    int m_graphIndex = -1;
    QString m_pipeline;
    std::shared_ptr<const CompileTrace> m_trace;
    int m_passIndex = -1;
    double m_budget = 1.0;
    std::shared_ptr<const PartitionResult> m_partition;
    QStringList m_selection;
    QHash<QString, double> m_nodeErrors;
    /// One worker thread for the three lanes: jobs run in the order they were asked for, the
    /// newest request of a kind wins anyway, and more threads would only race the UI for the cores.
    QThreadPool* m_pool = nullptr;
    /// A newer request of a kind supersedes the one in flight (jobs/job_lane.h).
    JobLane* m_loadLane = nullptr;
    JobLane* m_compileLane = nullptr;
    JobLane* m_partitionLane = nullptr;
};

}  // namespace fxray::views
