#pragma once
/// The compile story of a TORCH_TRACE log: the entry point when a trace is opened. A tree of
/// frames -> attempts -> stages coloured by status (models/compile_tree_model.h), and for the
/// chosen compile: its graph breaks and recompile reasons with the user's source line, guards,
/// the failure (exception, stack, the graph it failed on and "Minify"), its phase timings as a
/// bar chart, and Inductor's kernels with the graph nodes each computes.
///
/// Choosing an attempt or stage makes its graph the Document's current graph. Kernels and nodes
/// are linked both ways through the Document's selection: choosing a kernel shows the compile's
/// post-grad graph with the kernel's nodes selected; selecting nodes on the canvas selects the
/// kernels that compute them. The "Output code" tab shows Inductor's output code of the compile
/// with the same links (panels/output_code_view.h): selecting nodes highlights and scrolls to
/// their kernels' lines; clicking a kernel's line selects its nodes. The story is read on a
/// JobLane from the Document's path.
///
/// "Minify failing graph" first checks (on a JobLane of its own) that Python with PyTorch is
/// there (minify/torch_check.h); then the window minifies the graph against torch.compile in the
/// Minifier pane, else the pane says why not and the Minifier opens for another check.
#include <QPointer>
#include <QWidget>

#include <memory>

class QLabel;
class QListWidget;
class QPushButton;
class QTabWidget;
class QTextBrowser;
class QTreeView;

namespace fxray {
struct CompileStory;
}

namespace fxray::views {

class CompileTreeModel;
class Document;
class JobLane;
class OutputCodeView;
class PhaseChart;

class CompileStoryPanel : public QWidget {
    Q_OBJECT
public:
    explicit CompileStoryPanel(Document* doc, QWidget* parent = nullptr);
    ~CompileStoryPanel() override;

    /// Reads the story of `path` on the UI thread (tests, screenshots); false when unreadable.
    bool loadSync(const QString& path);
    /// Installs a story (the lane's result, or a test's).
    void setStory(std::shared_ptr<const CompileStory> story);
    /// Waits for a story read in flight (tests); false on timeout.
    bool waitForStory(int timeoutMs = 60000);

    CompileTreeModel* model() const { return m_model; }
    QTreeView* tree() const { return m_tree; }
    QTextBrowser* details() const { return m_details; }
    PhaseChart* chart() const { return m_chart; }
    QListWidget* kernelList() const { return m_kernels; }
    QPushButton* minifyButton() const { return m_minify; }
    QLabel* minifyNote() const { return m_minifyNote; }
    OutputCodeView* outputCode() const { return m_code; }
    QTabWidget* tabs() const { return m_tabs; }
    /// Index into the story's compiles of the chosen attempt (or the stage's), -1 for none.
    int currentCompile() const { return m_compile; }
    /// Chooses compile `index` in the tree (shows its details, makes its graph current).
    void selectCompile(int index);
    /// The Document graph index of compile `index`'s graph of `stage` ("" = its last graph), or -1.
    int graphIndexOf(int index, const QString& stage = {}) const;

Q_SIGNALS:
    /// "Minify" on a failed compile: its graph is current; the window opens the minifier with
    /// `check` ("torch-compile" when PyTorch is available, else "": the user chooses).
    void minifyRequested(int compileIndex, const QString& check);
    void busy(const QString& what);

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void onFileChanged();
    void onCurrentChanged();
    void showCompile(int index);
    void onKernelChosen();
    void onMinifyClicked();
    /// Selects the kernels (list) that compute any of `nodes`.
    void syncKernelList(const QStringList& nodes);
    /// Shows `nodes` of this compile on the canvas: the graph that has them (the `code`-th
    /// post-grad graph when code >= 0), with them selected.
    void showNodes(const QStringList& nodes, int code = -1);
    /// The compile's output codes with their provenance maps, in log order.
    void fillOutputCode(int index);
    /// Which output code goes with the current graph: its rank among the compile's post-grad graphs.
    int codeOfCurrentGraph() const;
    void onSelectionChanged(const QStringList& nodes, QObject* origin);

    QPointer<Document> m_doc;
    CompileTreeModel* m_model;
    QTreeView* m_tree;
    QLabel* m_summary;
    QTabWidget* m_tabs;
    QTextBrowser* m_details;
    PhaseChart* m_chart;
    QListWidget* m_kernels;
    QPushButton* m_minify;
    QLabel* m_minifyNote;
    OutputCodeView* m_code;
    JobLane* m_lane;
    JobLane* m_probe;  ///< the PyTorch check before minifying
    std::shared_ptr<const CompileStory> m_story;
    int m_compile = -1;
    bool m_syncing = false;
};

}  // namespace fxray::views
