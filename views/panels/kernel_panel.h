#pragma once
/// The kernel pane, two tabs:
/// - "fxray kernels": fxray's own code generation for the shown graph, compiled on a worker
///   thread whenever the graph changes while the pane is visible (or on "Compile"; a newer
///   request or "Cancel" drops the result in flight). It lists the fused kernels and the group
///   map (graph node -> kernel, extern call or fallback), and for the chosen kernel shows its
///   kernel IR, optimised LLVM IR, assembly and CUDA C++. Selection is shared both ways:
///   selecting a node shows the kernel(s) computing it; choosing a kernel selects its nodes.
/// - "Inductor code": the code Inductor generated for the file's graphs
///   (`inductor_output_code`, debug folders' `output_code.py`) and its IR dumps, one at a time,
///   with a find box (Enter: next, Shift+Enter: previous).
#include <QPointer>
#include <QWidget>

#include <cstdint>
#include <memory>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTableView;
class QThreadPool;

namespace fxray::views {

class JobLane;

class Document;
class KernelArtifactModel;
class StringTableModel;
struct KernelReport;

class KernelPanel : public QWidget {
    Q_OBJECT
public:
    /// Tabs of the code view of one kernel, in order.
    enum CodeTab { KernelIrTab, LlvmIrTab, AssemblyTab, CudaTab };

    explicit KernelPanel(Document* doc, QWidget* parent = nullptr);
    ~KernelPanel() override;

    // ---- Inductor's code ----------------------------------------------------------------------
    KernelArtifactModel* model() const { return m_model; }
    QComboBox* chooser() const { return m_chooser; }
    QPlainTextEdit* editor() const { return m_edit; }
    QLineEdit* findBox() const { return m_find; }
    /// Finds the next (or previous) occurrence of the find box's text, wrapping around.
    bool findNext(bool backward = false);

    // ---- fxray's kernels ----------------------------------------------------------------------
    /// Compiles the shown graph on the worker (no-op when its report is current).
    void compileNow();
    /// Drops the compile in flight (its result is ignored).
    void cancelCompile();
    bool compiling() const { return m_compiling; }
    /// True while NVRTC checks the CUDA module of the report on screen (a second job).
    bool checkingCuda() const { return m_checkingCuda; }
    /// Processes events until no compile (nor NVRTC check) is in flight; false on timeout (tests).
    bool waitForCompile(int timeoutMs = 60000);
    /// The report on screen (null before the first compile).
    const KernelReport* report() const { return m_report.get(); }
    StringTableModel* kernelModel() const { return m_kernelModel; }
    StringTableModel* groupModel() const { return m_groupModel; }
    QTableView* kernelView() const { return m_kernelView; }
    QTableView* groupView() const { return m_groupView; }
    QPlainTextEdit* codeView(CodeTab t) const { return m_code[t]; }
    QTabWidget* codeTabs() const { return m_codeTabs; }
    QLabel* statusLabel() const { return m_status; }
    /// The kernel shown (-1: none).
    int currentKernel() const { return m_kernel; }
    /// Shows kernel k's code and selects its row (does not change the Document's selection).
    void showKernel(int k);

Q_SIGNALS:
    /// A compile result (or failure) was installed.
    void kernelsReady();
    /// Work started (`what`) or ended (empty), for the window's status bar.
    void busy(const QString& what);

protected:
    void showEvent(QShowEvent* e) override;

private:
    QWidget* buildFxrayTab();
    QWidget* buildInductorTab();
    void showArtifact(int row);
    void onGraphMaybeChanged();
    void install(std::shared_ptr<const KernelReport> r);
    void followSelection();
    void updateCodeTab();
    void updateStatus();
    void startCudaCheck();

    /// Guarded: item views emit signals while the window tears down, possibly after the
    /// Document is gone.
    QPointer<Document> m_doc;
    QTabWidget* m_tabs = nullptr;
    // Inductor's code
    KernelArtifactModel* m_model = nullptr;
    QComboBox* m_chooser = nullptr;
    QLineEdit* m_find = nullptr;
    QLabel* m_findStatus = nullptr;
    QPlainTextEdit* m_edit = nullptr;
    // fxray's kernels
    QPushButton* m_compileButton = nullptr;
    QLabel* m_status = nullptr;
    StringTableModel* m_kernelModel = nullptr;
    StringTableModel* m_groupModel = nullptr;
    QTableView* m_kernelView = nullptr;
    QTableView* m_groupView = nullptr;
    QTabWidget* m_codeTabs = nullptr;
    QPlainTextEdit* m_code[4] = {};
    std::shared_ptr<const KernelReport> m_report;
    int m_kernel = -1;
    bool m_compiling = false;
    bool m_checkingCuda = false;
    QString m_nvrtcStatus;  ///< NVRTC's verdict on the report's CUDA module
    bool m_stale = true;    ///< the shown graph changed since the last request
    bool m_syncing = false;
    uint64_t m_requestedFp = 0;  ///< fingerprint of the graph being compiled
    JobLane* m_compileLane = nullptr;
    /// NVRTC's check runs apart: a stale one (seconds on a big module) must not hold up the
    /// compile of the graph the user stepped to.
    JobLane* m_cudaLane = nullptr;
};

}  // namespace fxray::views
