#pragma once
/// The main window: the graph canvas in the middle, the panes (pass timeline, diff, matches,
/// partition, inspector, code, kernels — installPanels()) and the compile picker docked around
/// it, all reading one Document. Opening (menu, folders, drag and drop, recent files, command
/// line) goes through the Document's worker; the status bar shows what is running, with
/// Cancel; failures appear there and in a non-modal message. Dock layout and geometry are
/// saved in QSettings; a default layout ships in resources/default_layout.json.
#include <QHash>
#include <QMainWindow>
#include <QPointer>

#include <memory>

class QAction;
class QActionGroup;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QTemporaryDir;
class QToolButton;

namespace fxray::views {

class CompilePicker;
class CompileStoryPanel;
class Document;
class SweepPanel;
class GraphCanvas;
enum class Theme;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    Document* document() const { return m_doc; }
    GraphCanvas* canvas() const { return m_canvas; }
    CompilePicker* picker() const { return m_picker; }
    QDockWidget* pickerDock() const { return m_pickerDock; }
    /// The compile story of a TORCH_TRACE log: the pane a trace opens on.
    CompileStoryPanel* storyPanel() const { return m_story; }
    QDockWidget* storyDock() const { return m_storyDock; }
    /// The pane of `fxray sweep` results folders (shown when one is opened).
    SweepPanel* sweepPanel() const { return m_sweep; }
    QDockWidget* sweepDock() const { return m_sweepDock; }

    /// Loads synchronously (command line, tests, screenshots); on failure the error is shown
    /// in the status bar (and a non-modal message when visible).
    bool openFile(const QString& path);
    /// Loads on the Document's worker (menu, drag and drop, recent files).
    void openFileAsync(const QString& path);
    /// File → Learn, the guided compile: opens the bundled attention sample, compiles it with the
    /// joint pipeline and selects the first pass; the timeline's teaching pane explains each pass
    /// as F8 steps through them. False (with a note) when the sample cannot be opened.
    bool startTour();
    /// Text of the status bar's message label.
    QString statusText() const;
    /// Puts a message in the status bar until the next one (what the user should know once).
    void showNote(const QString& text);
    /// Places the docks as resources/default_layout.json says.
    void applyDefaultLayout();
    void setTheme(Theme t);
    /// Drops what is in flight (Document jobs and the canvas layout).
    void cancelWork();
    /// No message boxes (screenshots, tests): errors go to the status bar only.
    void setQuiet(bool quiet) { m_quiet = quiet; }

protected:
    void closeEvent(QCloseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dropEvent(QDropEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    void buildDocks();
    void buildMenus();
    void buildStatusBar();
    void showOpenDialog();
    /// Saves graphs + state as an .fxray session (to the open session, or asking where).
    void saveSession(bool askForPath);
    void showOpenFolderDialog();
    void showExportDialog(const QString& suffix);
    void showSettings();
    void refreshRecentMenu();
    void updateTitle();
    void onBusy(const QString& what);
    void onFailed(const QString& message);
    void restoreWindowState();

    Document* m_doc = nullptr;
    GraphCanvas* m_canvas = nullptr;
    CompilePicker* m_picker = nullptr;
    QDockWidget* m_pickerDock = nullptr;
    CompileStoryPanel* m_story = nullptr;
    QDockWidget* m_storyDock = nullptr;
    SweepPanel* m_sweep = nullptr;
    QDockWidget* m_sweepDock = nullptr;
    QDockWidget* m_timelineDock = nullptr;
    /// Where File → Learn unpacks its sample (the loader reads files, not resources).
    std::unique_ptr<QTemporaryDir> m_tourDir;
    /// A sweep results folder goes to the sweep pane instead of the Document.
    bool openSweepResults(const QString& path);
    QList<QDockWidget*> m_panelDocks;
    QMenu* m_recent = nullptr;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_docksMenu = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_graphInfo = nullptr;
    QProgressBar* m_progress = nullptr;
    QToolButton* m_cancelButton = nullptr;
    QAction* m_cancel = nullptr;
    QAction* m_nextPass = nullptr;
    QAction* m_previousPass = nullptr;
    QAction* m_themeLight = nullptr;
    QAction* m_themeDark = nullptr;
    QString m_docBusy, m_layoutBusy;
    QHash<QObject*, QString> m_paneBusy;  ///< panes with work of their own (kernels, numerics)
    QString m_idleMessage;                ///< what the status bar says when nothing runs
    QPointer<QWidget> m_errorBox;
    bool m_quiet = false;
};

}  // namespace fxray::views
