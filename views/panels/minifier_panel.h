#pragma once
/// The Minifier panel: shrinks the current graph to a small one that fails the same way
/// (engine/minify/minifier.h) and shows it shrinking. The user picks what "fails" means — an
/// injected fault on one of the graph's ops, two executors disagreeing, a pass failing with a
/// message, a command exiting 0, or PyTorch's torch.compile failing the same way (the
/// `torch-compile` check: fxray's repro of each candidate run by Python with PyTorch) — plus jobs
/// and a per-query timeout, and runs it.
///
/// The minifier runs on a thread of the panel's own (it takes seconds to minutes; the Document's
/// single worker stays free for loading and compiling), and every query runs in a child process
/// of the fxray executable — in the GUI that is the running binary itself. Progress arrives
/// queued on the UI thread: queries, nodes, the strategy, and the best graph so far in the
/// panel's code view. When it ends, the result is written to a temporary folder, so "Open
/// result" loads its session file as the Document's file, and "Export…" writes the same outputs
/// (FX text, inputs as .npy, repro.py, session.json) to a folder the user chooses.
#include <QPointer>
#include <QTemporaryDir>
#include <QWidget>

#include <memory>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;

namespace fxray::minify {
struct MinifyResult;
struct MinifyOptions;
struct MinifyProgress;
}  // namespace fxray::minify

namespace fxray::views {

class JobLane;

class Document;

class MinifierPanel : public QWidget {
    Q_OBJECT
public:
    /// Values of checkBox()'s items (Qt::UserRole).
    enum CheckKind { InjectedFault = 0, Accuracy, PassFails, Command, TorchCompile };

    explicit MinifierPanel(Document* doc, QWidget* parent = nullptr);
    /// Cancels a run in flight and waits for it (its queries are bounded by the timeout).
    ~MinifierPanel() override;

    /// The fxray executable that answers the queries. Default: the running application when it
    /// is fxray, else the engine's search (FXRAY_EXE, a build tree's app/fxray).
    void setExecutable(const QString& path) { m_executable = path; }
    QString executable() const { return m_executable; }

    /// Starts a run with the current settings (what the Run button does); false and a message
    /// in statusLabel() when the settings are bad or a run is in flight.
    bool start();
    /// Chooses the torch-compile check `spec` ("torch-compile[:BACKEND...]") and starts (the
    /// Compile story's "Minify failing graph"); false as start() is.
    bool startTorchCompile(const QString& spec);
    /// Asks the run in flight to stop; it ends with the best graph found so far.
    void cancel();
    bool isRunning() const;
    /// The last finished run's result (null before one, or when it failed to start).
    const minify::MinifyResult* result() const { return m_result.get(); }
    /// Writes the result's outputs into dir (created when missing); false + statusLabel() on error.
    bool exportTo(const QString& dir);
    /// Loads the result's session file as the Document's file (asynchronously).
    bool openResult();

    QComboBox* checkBox() const { return m_check; }
    QComboBox* opBox() const { return m_op; }
    QDoubleSpinBox* scaleSpin() const { return m_scale; }
    QComboBox* sidesBox() const { return m_sides; }
    QComboBox* passBox() const { return m_pass; }
    QLineEdit* regexEdit() const { return m_regex; }
    QLineEdit* commandEdit() const { return m_command; }
    QLineEdit* torchEdit() const { return m_torch; }
    QSpinBox* jobsSpin() const { return m_jobs; }
    QDoubleSpinBox* timeoutSpin() const { return m_timeout; }
    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* openButton() const { return m_open; }
    QPushButton* exportButton() const { return m_export; }
    QLabel* statusLabel() const { return m_status; }
    QPlainTextEdit* codeView() const { return m_code; }
    QListWidget* stepsList() const { return m_steps; }
    /// Nodes of the best graph shown so far (PyTorch's count); 0 before a run.
    size_t shownNodes() const { return m_shownNodes; }

Q_SIGNALS:
    /// A run ended (finished, cancelled or failed); result() holds it when there is one.
    void finished();

private:
    struct Run;
    void refreshGraph();
    void updateEnabled();
    void onProgress(const minify::MinifyProgress& p);
    void onFinished(std::shared_ptr<Run> run, const QString& error);
    /// The `fxray minify` command that reproduces the result from the folder dir.
    std::string commandFor(const QString& dir) const;

    QPointer<Document> m_doc;
    QString m_executable;
    QComboBox* m_check;
    QStackedWidget* m_pages;
    QComboBox* m_op;
    QDoubleSpinBox* m_scale;
    QComboBox* m_sides;
    QComboBox* m_pass;
    QLineEdit* m_regex;
    QLineEdit* m_command;
    QLineEdit* m_torch;
    QSpinBox* m_jobs;
    QDoubleSpinBox* m_timeout;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QPushButton* m_open;
    QPushButton* m_export;
    QLabel* m_status;
    QPlainTextEdit* m_code;
    QListWidget* m_steps;

    JobLane* m_lane = nullptr;       ///< runs the minifier (its queries are child processes)
    std::shared_ptr<Run> m_current;  ///< the run in flight
    std::shared_ptr<minify::MinifyResult> m_result;
    std::shared_ptr<minify::MinifyOptions> m_resultOpts;
    std::shared_ptr<QTemporaryDir> m_resultDir;  ///< the result's outputs, for "Open result"
    QString m_sourcePath, m_graphId;
    const void* m_shownBest = nullptr;  ///< the graph in codeView(), to skip reprinting it
    size_t m_shownNodes = 0;
};

}  // namespace fxray::views
