#pragma once
/// The main window: open a graph file, list its graphs and nodes, show its FX text.
/// (The canvas, pass timeline, match and partition views arrive with the GUI issue.)
#include <QMainWindow>

class QPlainTextEdit;
class QTreeWidget;
class QLabel;
class QMenu;

namespace fxray { struct LoadedFile; }

namespace fxray::views {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Loads a file; on failure shows the one-line error in the status bar and a message box.
    bool openFile(const QString& path);
    /// Text currently shown in the code pane (for tests).
    QString codeText() const;
    /// Number of graph nodes listed in the node tree (for tests).
    int listedNodeCount() const;

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    void buildMenus();
    void showOpenDialog();
    void rememberRecent(const QString& path);
    void refreshRecentMenu();
    void showGraph(int index);

    QPlainTextEdit* m_code = nullptr;
    QTreeWidget* m_tree = nullptr;
    QLabel* m_status = nullptr;
    QMenu* m_recent = nullptr;
    std::unique_ptr<LoadedFile> m_file;
};

} // namespace fxray::views
