#include "main_window.h"

#include "import/loader.h"
#include "ir/printer.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTreeWidget>

namespace fxray::views {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setObjectName(QStringLiteral("MainWindow"));
    setWindowTitle(tr("fxray"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/fxray.svg")));

    m_code = new QPlainTextEdit(this);
    m_code->setObjectName(QStringLiteral("codePane"));
    m_code->setReadOnly(true);
    m_code->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_code->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_code->setPlaceholderText(tr("Open a graph with File > Open (Ctrl+O): FX text from print_readable, "
                                  "AOT joint/forward/backward graphs, Dynamo graphs."));
    setCentralWidget(m_code);

    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("graphTree"));
    m_tree->setHeaderLabels({tr("Node"), tr("Op"), tr("Type")});
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* dock = new QDockWidget(tr("Graph"), this);
    dock->setObjectName(QStringLiteral("graphDock"));
    dock->setWidget(m_tree);
    m_tree->setMinimumWidth(360);
    addDockWidget(Qt::LeftDockWidgetArea, dock);

    m_status = new QLabel(tr("Ready"), this);
    statusBar()->addWidget(m_status, 1);

    buildMenus();
    QSettings s;
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open..."), this, &MainWindow::showOpenDialog);
    open->setShortcut(QKeySequence::Open);
    m_recent = file->addMenu(tr("Open &Recent"));
    refreshRecentMenu();
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About fxray"), this, [this] {
        QMessageBox::about(this, tr("About fxray"),
                           tr("fxray %1: a debugger for PyTorch graph compilers.").arg(QStringLiteral(FXRAY_VERSION)));
    });
}

void MainWindow::showOpenDialog() {
    QString path = QFileDialog::getOpenFileName(this, tr("Open graph"), QString(),
                                                tr("FX graphs (*.py);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
}

bool MainWindow::openFile(const QString& path) {
    auto loaded = loadFile(path.toStdString());
    if (!loaded.ok()) {
        const QString msg = QString::fromStdString(loaded.error().str());
        m_status->setText(msg);
        if (isVisible()) QMessageBox::warning(this, tr("Cannot open file"), msg);
        return false;
    }
    m_file = std::make_unique<LoadedFile>(std::move(loaded).value());
    setWindowTitle(tr("%1 - fxray").arg(QFileInfo(path).fileName()));
    rememberRecent(path);
    showGraph(0);
    return true;
}

void MainWindow::showGraph(int index) {
    m_tree->clear();
    if (!m_file || index >= static_cast<int>(m_file->graphs.size())) return;
    const LoadedGraph& lg = m_file->graphs[static_cast<size_t>(index)];
    m_code->setPlainText(QString::fromStdString(printGraph(*lg.graph)));
    auto* root = new QTreeWidgetItem(m_tree, {QString::fromStdString(lg.stage)});
    for (const auto& n : lg.graph->nodes()) {
        QString type;
        if (n->meta.size() == 1) type = QString::fromStdString(n->meta[0].annotation(false, false));
        else if (n->meta.size() > 1) type = tr("tuple of %1").arg(n->meta.size());
        new QTreeWidgetItem(root, {QString::fromStdString(n->name()), QString::fromStdString(n->opName()), type});
    }
    root->setExpanded(true);
    m_status->setText(tr("%1 nodes, %2 unknown ops, %3 metadata disagreements")
                          .arg(lg.graph->size())
                          .arg(lg.unknownOps.size())
                          .arg(lg.inference.mismatches.size()));
}

QString MainWindow::codeText() const { return m_code->toPlainText(); }

int MainWindow::listedNodeCount() const {
    return m_tree->topLevelItemCount() ? m_tree->topLevelItem(0)->childCount() : 0;
}

void MainWindow::rememberRecent(const QString& path) {
    QSettings s;
    QStringList recent = s.value(QStringLiteral("recentFiles")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 10) recent.removeLast();
    s.setValue(QStringLiteral("recentFiles"), recent);
    refreshRecentMenu();
}

void MainWindow::refreshRecentMenu() {
    m_recent->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    for (const QString& p : recent) m_recent->addAction(p, this, [this, p] { openFile(p); });
    m_recent->setEnabled(!recent.isEmpty());
}

void MainWindow::closeEvent(QCloseEvent* e) {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    e->accept();
}

} // namespace fxray::views
