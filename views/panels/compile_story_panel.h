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
/// kernels that compute them. The story is read on a JobLane from the Document's path.
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
    QTabWidget* tabs() const { return m_tabs; }
    /// Index into the story's compiles of the chosen attempt (or the stage's), -1 for none.
    int currentCompile() const { return m_compile; }
    /// Chooses compile `index` in the tree (shows its details, makes its graph current).
    void selectCompile(int index);
    /// The Document graph index of compile `index`'s graph of `stage` ("" = its last graph), or -1.
    int graphIndexOf(int index, const QString& stage = {}) const;

Q_SIGNALS:
    /// "Minify" on a failed compile: its graph is current; the window opens the minifier.
    void minifyRequested(int compileIndex);
    void busy(const QString& what);

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void onFileChanged();
    void onCurrentChanged();
    void showCompile(int index);
    void onKernelChosen();
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
    JobLane* m_lane;
    std::shared_ptr<const CompileStory> m_story;
    int m_compile = -1;
    bool m_syncing = false;
};

}  // namespace fxray::views
