#pragma once
/// The numerics pane (issue 9): compares the current graph on several backends by running
/// `fxray compare FILE --graph SEL --backends ref,cpu[,cuda] --json` as a child process of the
/// fxray executable itself, so that a GPU fault or a crash in generated code never takes down
/// the GUI. Inputs: the file's recorded inputs folders (forward/inputs, forward_2/inputs), seeded
/// random ones, or a folder the user chooses. A dynamic-shape graph gets a size picker: random
/// inputs are drawn at its sizes (compare --sizes), an inputs folder binds them; the result
/// says which binding it holds for.
/// Shows a sortable table of every node's relative error per backend, the outputs' errors and
/// the first divergent node; hands node -> worst error to the Document for the canvas's heat
/// map; clicking a row selects the node (canvas, inspector, kernel pane). A child that says
/// "no CUDA device" disables the cuda box with that reason.
#include <QPointer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace fxray::views {

class ChildJob;
struct ChildResult;
class Document;
class NumericsModel;
class SizePicker;

class NumericsPanel : public QWidget {
    Q_OBJECT
public:
    explicit NumericsPanel(Document* doc, QWidget* parent = nullptr);
    ~NumericsPanel() override;

    /// The fxray executable run as the child: FXRAY_EXECUTABLE, this program when it is fxray,
    /// else an `fxray` beside it (or in ../app, the build tree); empty when none is found.
    static QString defaultExecutable();
    void setExecutable(const QString& path) { m_exe = path; }
    QString executable() const { return m_exe; }

    /// The child's arguments for the current graph and boxes (empty without a file).
    QStringList compareArguments() const;
    /// Starts the child (no-op while one runs); false when it cannot start.
    bool run();
    void cancel();
    bool running() const;
    /// Processes events until the child is done; false on timeout (tests).
    bool waitForRun(int timeoutMs = 120000);

    /// Installs compare's JSON output (what run() does with the child's stdout); false and a
    /// status message when it does not parse.
    bool loadJson(const QByteArray& json);
    /// Handles a failed child: its exit code and stderr (public for tests).
    void childFailed(int exitCode, const QString& stderrText);

    NumericsModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QCheckBox* cpuBox() const { return m_cpu; }
    QCheckBox* cudaBox() const { return m_cuda; }
    QPushButton* runButton() const { return m_run; }
    QLabel* statusLabel() const { return m_status; }
    QLabel* summaryLabel() const { return m_summary; }
    QComboBox* sourceBox() const { return m_source; }
    SizePicker* sizePicker() const { return m_sizes; }
    QSpinBox* seedBox() const { return m_seed; }

    /// The inputs folder the run reads (empty: seeded random inputs).
    QString inputsDir() const;
    /// Uses `dir` as the inputs folder (what choosing one in the dialog does); an empty dir
    /// chooses random inputs. For a dynamic-shape graph the sizes are read off its files.
    void setInputsDir(const QString& dir);
    /// Why the chosen inputs and sizes cannot run, in one sentence; empty when they can.
    QString problem() const;

Q_SIGNALS:
    /// A comparison finished (ok: its JSON was installed).
    void finished(bool ok);
    /// Work started (`what`) or ended (empty), for the window's status bar.
    void busy(const QString& what);

private:
    void onFinished(const ChildResult& r);
    void followSelection();
    void reset();
    void updateInputsLabel();
    void rebuildSources();
    void sourceChosen(int index);
    void applySource();
    void updateRunEnabled();

    QPointer<Document> m_doc;
    QString m_exe;
    ChildJob* m_job = nullptr;
    NumericsModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_view;
    QCheckBox* m_cpu;
    QCheckBox* m_cuda;
    QSpinBox* m_seed;
    QComboBox* m_source;
    SizePicker* m_sizes;
    QString m_sourceProblem;         ///< the chosen folder does not fit the graph
    QString m_customDir;             ///< a folder the user chose (kept across files)
    bool m_statusIsProblem = false;  ///< the status line shows problem() (cleared when solved)
    QLabel* m_inputs;
    QPushButton* m_run;
    QLabel* m_status;
    QLabel* m_summary;
    QProgressBar* m_busy;
    bool m_syncing = false;
};

}  // namespace fxray::views
