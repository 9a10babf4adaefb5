#include "main_window.h"

#include "compile_picker.h"
#include "document.h"
#include "graph/canvas_colors.h"
#include "graph/graph_canvas.h"
#include "models/sweep_results_model.h"
#include "panels/compile_story_panel.h"
#include "panels/sweep_panel.h"
#include "settings.h"
#include "theme.h"

#include "import/loader.h"
#include "transforms/passes.h"

#include "panels/kernel_panel.h"
#include "panels/minifier_panel.h"
#include "panels/numerics_panel.h"
#include "panels/panels.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeView>
#include <QUrl>

namespace fxray::views {

namespace {
/// Bump when the dock set changes incompatibly: an old saved state is then ignored (4: the
/// sweep dock).
constexpr int kStateVersion = 4;
}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), m_doc(new Document(this)) {
    setObjectName(QStringLiteral("MainWindow"));
    setWindowTitle(tr("fxray"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/fxray.svg")));
    setAcceptDrops(true);
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);

    m_canvas = new GraphCanvas(m_doc, this);
    setCentralWidget(m_canvas);
    buildDocks();
    buildStatusBar();
    buildMenus();

    connect(m_doc, &Document::fileChanged, this, [this] {
        updateTitle();
        if (!m_doc->path().isEmpty()) {
            settings::addRecentFile(m_doc->path());
            m_idleMessage = tr("Opened %1").arg(QDir::toNativeSeparators(m_doc->path()));
            if (!m_doc->isBusy()) m_status->setText(m_idleMessage);
        }
        refreshRecentMenu();
        // A trace or debug folder with several graphs: the picker is how to get at them.
        if (m_doc->graphCount() > 1) {
            m_pickerDock->show();
            m_pickerDock->raise();
        }
        // A TORCH_TRACE log opens on its story: what compiled, what broke, what failed.
        if (m_doc->file() && m_doc->file()->format == "torch-trace") {
            m_storyDock->show();
            m_storyDock->raise();
        }
    });
    connect(m_doc, &Document::graphChanged, this, &MainWindow::updateTitle);
    connect(m_doc, &Document::busy, this, [this](const QString& what) {
        m_docBusy = what;
        onBusy(what);
    });
    connect(m_canvas, &GraphCanvas::busy, this, [this](const QString& what) {
        m_layoutBusy = what;
        onBusy(what);
    });
    connect(m_doc, &Document::failed, this, &MainWindow::onFailed);
    restoreWindowState();
}

MainWindow::~MainWindow() = default;

// ---- docks --------------------------------------------------------------------------------

void MainWindow::buildDocks() {
    m_picker = new CompilePicker(m_doc, this);
    m_pickerDock = new QDockWidget(tr("Compiles"), this);
    m_pickerDock->setObjectName(QStringLiteral("dock.compiles"));
    m_pickerDock->toggleViewAction()->setObjectName(QStringLiteral("action.toggle.dock.compiles"));
    m_pickerDock->setWidget(m_picker);
    addDockWidget(Qt::LeftDockWidgetArea, m_pickerDock);
    m_story = new CompileStoryPanel(m_doc, this);
    m_storyDock = new QDockWidget(tr("Compile story"), this);
    m_storyDock->setObjectName(QStringLiteral("dock.story"));
    m_storyDock->toggleViewAction()->setObjectName(QStringLiteral("action.toggle.dock.story"));
    // Keyboard way in: the shortcut shows the pane and puts the focus on its tree.
    m_storyDock->toggleViewAction()->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Y));
    m_storyDock->setWidget(m_story);
    addDockWidget(Qt::LeftDockWidgetArea, m_storyDock);
    tabifyDockWidget(m_pickerDock, m_storyDock);
    m_sweep = new SweepPanel(this);
    m_sweepDock = new QDockWidget(tr("Sweep"), this);
    m_sweepDock->setObjectName(QStringLiteral("dock.sweep"));
    m_sweepDock->toggleViewAction()->setObjectName(QStringLiteral("action.toggle.dock.sweep"));
    m_sweepDock->setWidget(m_sweep);
    addDockWidget(Qt::BottomDockWidgetArea, m_sweepDock);
    connect(m_sweep, &SweepPanel::graphActivated, this,
            [this](const QString& file, const QString& status, const QString& message) {
                openFileAsync(file);
                if (status != QLatin1String("ok")) showNote(tr("Sweep: %1 — %2").arg(status, message));
            });
    const Panels panels = installPanels(this, m_doc);
    for (QDockWidget* d : panels.docks())
        if (d) m_panelDocks << d;
    m_nextPass = panels.nextPass;
    m_timelineDock = panels.timeline;
    m_previousPass = panels.previousPass;
    // Panes with workers of their own report in the status bar too, and Cancel stops them.
    auto paneBusy = [this](QObject* pane) {
        return [this, pane](const QString& what) {
            if (what.isEmpty())
                m_paneBusy.remove(pane);
            else
                m_paneBusy.insert(pane, what);
            onBusy(what);
        };
    };
    if (auto* k = qobject_cast<KernelPanel*>(panels.kernels->widget()))
        connect(k, &KernelPanel::busy, this, paneBusy(k));
    if (auto* n = qobject_cast<NumericsPanel*>(panels.numerics->widget()))
        connect(n, &NumericsPanel::busy, this, paneBusy(n));
    connect(m_story, &CompileStoryPanel::busy, this, paneBusy(m_story));
    connect(m_storyDock->toggleViewAction(), &QAction::triggered, this, [this](bool on) {
        if (on) m_story->tree()->setFocus(Qt::ShortcutFocusReason);
    });
    // "Minify" on a failed compile: its graph is already current. With PyTorch there, the minifier
    // runs against torch.compile at once (progress and Cancel in its pane); else the user chooses.
    QDockWidget* minifier = panels.minifier;
    connect(m_story, &CompileStoryPanel::minifyRequested, this, [this, minifier](int, const QString& check) {
        if (!minifier) return;
        minifier->show();
        minifier->raise();
        minifier->widget()->setFocus(Qt::OtherFocusReason);
        auto* panel = qobject_cast<MinifierPanel*>(minifier->widget());
        if (!check.isEmpty() && panel && panel->startTorchCompile(check)) {
            showNote(tr("Minifier: minifying the failing graph against PyTorch (torch.compile)"));
            return;
        }
        showNote(tr("Minifier: the failing graph is current; choose what counts as failing and run"));
    });
}

void MainWindow::applyDefaultLayout() {
    QFile f(QStringLiteral(":/layout/default_layout.json"));
    if (!f.open(QIODevice::ReadOnly)) return;
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    const QJsonObject areas = o.value(QLatin1String("areas")).toObject();
    const QList<QPair<QString, Qt::DockWidgetArea>> names = {{QStringLiteral("left"), Qt::LeftDockWidgetArea},
                                                             {QStringLiteral("right"), Qt::RightDockWidgetArea},
                                                             {QStringLiteral("bottom"), Qt::BottomDockWidgetArea},
                                                             {QStringLiteral("top"), Qt::TopDockWidgetArea}};
    // An area holds groups split along it; the docks of a group share one tab bar. Qt splits a
    // tabbed dock by adding a tab instead, so: take every listed dock out, place each group's
    // first dock (splitting from the previous group's), and only then tabify the rest.
    QList<QPair<Qt::DockWidgetArea, QList<QDockWidget*>>> groups;
    for (const auto& [key, area] : names)
        for (const QJsonValue& g : areas.value(key).toArray()) {
            QList<QDockWidget*> docks;
            for (const QJsonValue& n : g.toArray())
                if (auto* d = findChild<QDockWidget*>(n.toString())) docks << d;  // absent: a pane this build lacks
            if (!docks.isEmpty()) groups.append({area, docks});
        }
    for (const auto& [area, docks] : groups)
        for (QDockWidget* d : docks) {
            d->setFloating(false);
            removeDockWidget(d);
        }
    QHash<int, QDockWidget*> previousGroup;  // per area
    for (const auto& [area, docks] : groups) {
        QDockWidget* first = docks.first();
        addDockWidget(area, first);
        if (QDockWidget* prev = previousGroup.value(area))
            splitDockWidget(prev, first,
                            area == Qt::BottomDockWidgetArea || area == Qt::TopDockWidgetArea ? Qt::Horizontal
                                                                                              : Qt::Vertical);
        previousGroup.insert(area, first);
    }
    for (const auto& [area, docks] : groups) {
        for (QDockWidget* d : docks.mid(1)) tabifyDockWidget(docks.first(), d);
        for (QDockWidget* d : docks) d->show();
        docks.first()->raise();
    }
    for (const QJsonValue& n : o.value(QLatin1String("hidden")).toArray())
        if (auto* d = findChild<QDockWidget*>(n.toString())) d->hide();
    const QJsonArray size = o.value(QLatin1String("size")).toArray();
    if (size.size() == 2 && !isMaximized()) resize(size[0].toInt(1440), size[1].toInt(900));
}

void MainWindow::restoreWindowState() {
    applyDefaultLayout();
    QSettings s;
    if (s.value(QStringLiteral("window/version")).toInt() != kStateVersion) return;
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(s.value(QStringLiteral("window/state")).toByteArray(), kStateVersion);
}

// ---- guided compile -----------------------------------------------------------------------

bool MainWindow::startTour() {
    if (!m_tourDir) m_tourDir = std::make_unique<QTemporaryDir>();
    const QString path = m_tourDir->filePath(QStringLiteral("attention_joint.py"));
    if (!QFile::exists(path) && !QFile::copy(QStringLiteral(":/samples/attention_joint.py"), path)) {
        showNote(tr("Learn: the bundled sample could not be unpacked to %1").arg(path));
        return false;
    }
    if (!openFile(path)) return false;
    // The sample is small (87 nodes): compiling it on the UI thread takes milliseconds and lets
    // the tour start on a known pass instead of waiting for the worker.
    if (!m_doc->compileSync(QStringLiteral("joint"))) {
        showNote(tr("Learn: compiling the sample failed"));
        return false;
    }
    m_doc->setPassIndex(0);
    if (m_timelineDock) {
        m_timelineDock->show();
        m_timelineDock->raise();
    }
    showNote(tr("Learn: a small attention model's joint graph, pass by pass. The explanation of each pass is beside "
                "the pass list; F8 steps to the next pass, Shift+F8 back."));
    return true;
}

// ---- menus --------------------------------------------------------------------------------

void MainWindow::buildMenus() {
    auto named = [](QAction* a, const char* name) {
        a->setObjectName(QString::fromLatin1(name));
        return a;
    };
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->setObjectName(QStringLiteral("menuFile"));
    named(file->addAction(tr("&Open File..."), this, &MainWindow::showOpenDialog), "actionOpen")
        ->setShortcut(QKeySequence::Open);
    named(file->addAction(tr("Open &Folder..."), this, &MainWindow::showOpenFolderDialog), "actionOpenFolder")
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_recent = file->addMenu(tr("Open &Recent"));
    m_recent->setObjectName(QStringLiteral("menuRecent"));
    refreshRecentMenu();
    named(file->addAction(tr("Re&load"), this,
                          [this] {
                              if (!m_doc->path().isEmpty()) openFileAsync(m_doc->path());
                          }),
          "actionReload")
        ->setShortcut(QKeySequence::Refresh);
    named(file->addAction(tr("Lear&n: a Guided Compile"), this, [this] { startTour(); }), "actionLearn")
        ->setToolTip(
            tr("Open a small attention model, compile it and step through the passes with their explanations"));
    file->addSeparator();
    named(file->addAction(tr("&Save Session"), this, [this] { saveSession(false); }), "actionSaveSession")
        ->setShortcut(QKeySequence::Save);
    named(file->addAction(tr("Save Session &As..."), this, [this] { saveSession(true); }), "actionSaveSessionAs")
        ->setShortcut(QKeySequence::SaveAs);
    QMenu* exp = file->addMenu(tr("&Export View"));
    exp->setObjectName(QStringLiteral("menuExport"));
    named(exp->addAction(tr("As &SVG..."), this, [this] { showExportDialog(QStringLiteral("svg")); }),
          "actionExportSvg")
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    named(exp->addAction(tr("As &PNG..."), this, [this] { showExportDialog(QStringLiteral("png")); }),
          "actionExportPng")
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    named(exp->addAction(tr("As &DOT..."), this, [this] { showExportDialog(QStringLiteral("dot")); }),
          "actionExportDot");
    file->addSeparator();
    named(file->addAction(tr("&Settings..."), this, &MainWindow::showSettings), "actionSettings")
        ->setShortcut(QKeySequence::Preferences);
    file->addSeparator();
    named(file->addAction(tr("&Quit"), this, &QWidget::close), "actionQuit")->setShortcut(QKeySequence::Quit);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->setObjectName(QStringLiteral("menuView"));
    m_viewMenu->addActions(m_canvas->modeActions());
    m_viewMenu->addSeparator();
    for (QAction* a : {m_canvas->fitAction(), m_canvas->zoomInAction(), m_canvas->zoomOutAction()}) {
        a->setShortcutContext(Qt::WindowShortcut);
        m_viewMenu->addAction(a);
    }
    m_viewMenu->addSeparator();
    for (QAction* a : {m_canvas->findAction(), m_canvas->findNextAction(), m_canvas->findPreviousAction(),
                       m_canvas->collapseAllAction(), m_canvas->expandAllAction()}) {
        a->setShortcutContext(Qt::WindowShortcut);
        m_viewMenu->addAction(a);
    }
    for (QAction* a : m_canvas->modeActions()) a->setShortcutContext(Qt::WindowShortcut);
    m_viewMenu->addSeparator();
    QMenu* theme = m_viewMenu->addMenu(tr("&Theme"));
    theme->setObjectName(QStringLiteral("menuTheme"));
    auto* themes = new QActionGroup(this);
    m_themeLight = named(theme->addAction(tr("&Light")), "actionThemeLight");
    m_themeDark = named(theme->addAction(tr("&Dark")), "actionThemeDark");
    for (QAction* a : {m_themeLight, m_themeDark}) {
        a->setCheckable(true);
        themes->addAction(a);
    }
    (currentTheme() == Theme::Dark ? m_themeDark : m_themeLight)->setChecked(true);
    connect(m_themeLight, &QAction::triggered, this, [this] { setTheme(Theme::Light); });
    connect(m_themeDark, &QAction::triggered, this, [this] { setTheme(Theme::Dark); });
    m_docksMenu = m_viewMenu->addMenu(tr("&Panes"));
    m_docksMenu->setObjectName(QStringLiteral("menuPanes"));
    m_docksMenu->addAction(m_pickerDock->toggleViewAction());
    m_docksMenu->addAction(m_storyDock->toggleViewAction());
    m_docksMenu->addAction(m_sweepDock->toggleViewAction());
    for (QDockWidget* d : m_panelDocks) m_docksMenu->addAction(d->toggleViewAction());
    named(m_viewMenu->addAction(tr("&Reset Layout"), this, &MainWindow::applyDefaultLayout), "actionResetLayout");

    QMenu* compile = menuBar()->addMenu(tr("&Compile"));
    compile->setObjectName(QStringLiteral("menuCompile"));
    for (const std::string& p : knownPipelines()) {
        const QString name = QString::fromStdString(p);
        QAction* a =
            compile->addAction(tr("Run &%1 Pipeline").arg(name), this, [this, name] { m_doc->compileAsync(name); });
        a->setObjectName(QStringLiteral("actionCompile_%1").arg(name));
        if (name == QLatin1String("joint")) a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    }
    if (m_nextPass || m_previousPass) compile->addSeparator();
    if (m_nextPass) compile->addAction(m_nextPass);
    if (m_previousPass) compile->addAction(m_previousPass);
    compile->addSeparator();
    compile->addAction(m_cancel);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("menuHelp"));
    named(help->addAction(tr("&Keyboard Shortcuts"), this,
                          [this] {
                              QStringList rows;
                              for (QAction* a : findChildren<QAction*>()) {
                                  if (a->shortcut().isEmpty() || a->text().isEmpty()) continue;
                                  rows << QStringLiteral("<tr><td>%1</td><td>&nbsp;&nbsp;<b>%2</b></td></tr>")
                                              .arg(a->text().remove(QLatin1Char('&')).toHtmlEscaped(),
                                                   a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped());
                              }
                              rows.removeDuplicates();
                              auto* box = new QMessageBox(QMessageBox::NoIcon, tr("Keyboard Shortcuts"),
                                                          QStringLiteral("<table>%1</table>").arg(rows.join(QString())),
                                                          QMessageBox::Close, this);
                              box->setAttribute(Qt::WA_DeleteOnClose);
                              box->setModal(false);
                              box->show();
                          }),
          "actionShortcuts")
        ->setShortcut(QKeySequence::HelpContents);
    named(help->addAction(
              tr("&About fxray"), this,
              [this] {
                  QMessageBox::about(
                      this, tr("About fxray"),
                      tr("fxray %1: a debugger for PyTorch graph compilers.").arg(QStringLiteral(FXRAY_VERSION)));
              }),
          "actionAbout");
}

void MainWindow::buildStatusBar() {
    m_status = new QLabel(tr("Ready"), this);
    m_status->setObjectName(QStringLiteral("statusMessage"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_graphInfo = new QLabel(this);
    m_graphInfo->setObjectName(QStringLiteral("statusGraph"));
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("statusProgress"));
    m_progress->setRange(0, 0);  // indeterminate: the engine reports no fractions
    m_progress->setMaximumWidth(140);
    m_progress->setMaximumHeight(16);
    m_progress->hide();
    m_cancel = new QAction(tr("&Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("actionCancel"));
    m_cancel->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Period));
    m_cancel->setEnabled(false);
    connect(m_cancel, &QAction::triggered, this, &MainWindow::cancelWork);
    addAction(m_cancel);
    m_cancelButton = new QToolButton(this);
    m_cancelButton->setDefaultAction(m_cancel);
    m_cancelButton->setAutoRaise(true);
    m_cancelButton->hide();
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_graphInfo);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancelButton);
}

void MainWindow::refreshRecentMenu() {
    if (!m_recent) return;
    m_recent->clear();
    const QStringList recent = settings::recentFiles();
    for (const QString& p : recent) m_recent->addAction(p, this, [this, p] { openFileAsync(p); });
    if (!recent.isEmpty()) {
        m_recent->addSeparator();
        m_recent->addAction(tr("&Clear List"), this, [this] {
            settings::clearRecentFiles();
            refreshRecentMenu();
        });
    }
    m_recent->setEnabled(!recent.isEmpty());
}

// ---- opening ------------------------------------------------------------------------------

void MainWindow::showOpenDialog() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open graph"), QString(),
        tr("Graphs (*.py *.log *.pt2 *.fxray *.txt *.json);;FX text (*.py);;TORCH_TRACE logs (*.log *.txt);;"
           "torch.export archives (*.pt2);;fxray sessions (*.fxray);;All files (*)"));
    if (!path.isEmpty()) openFileAsync(path);
}

void MainWindow::saveSession(bool askForPath) {
    if (!m_doc->file()) return;
    // Ctrl+S on an open session writes back to it; anything else asks where (never over the
    // user's original artifacts).
    QString path = m_doc->path().endsWith(QStringLiteral(".fxray")) ? m_doc->path() : QString();
    if (askForPath || path.isEmpty()) {
        QString suggestion = path;
        if (suggestion.isEmpty()) suggestion = QFileInfo(m_doc->path()).completeBaseName() + QStringLiteral(".fxray");
        path = QFileDialog::getSaveFileName(this, tr("Save session"), suggestion, tr("fxray sessions (*.fxray)"));
        if (path.isEmpty()) return;
        if (!path.endsWith(QStringLiteral(".fxray"))) path += QStringLiteral(".fxray");
    }
    if (!m_doc->saveSessionTo(path)) return;  // failed() reported it
    settings::addRecentFile(path);
    refreshRecentMenu();
    m_idleMessage = tr("Session saved to %1").arg(QDir::toNativeSeparators(path));
    m_status->setText(m_idleMessage);
}

void MainWindow::showOpenFolderDialog() {
    const QString path = QFileDialog::getExistingDirectory(
        this, tr("Open folder (TORCH_TRACE, debug, to_folder output or sweep results)"));
    if (!path.isEmpty()) openFileAsync(path);
}

bool MainWindow::openSweepResults(const QString& path) {
    if (!QFileInfo(path).isDir() || !SweepResultsModel::isResultsFolder(path)) return false;
    if (!m_sweep->loadFolder(path)) return false;
    m_sweepDock->show();
    m_sweepDock->raise();
    settings::addRecentFile(path);
    refreshRecentMenu();
    m_idleMessage = tr("Sweep results %1: double-click a row to open its graph").arg(QDir::toNativeSeparators(path));
    m_status->setText(m_idleMessage);
    return true;
}

bool MainWindow::openFile(const QString& path) {
    if (openSweepResults(path)) return true;
    m_status->setText(tr("Loading %1...").arg(path));
    if (!m_doc->loadSync(path)) return false;  // failed() reported it
    m_idleMessage = tr("Opened %1").arg(QDir::toNativeSeparators(path));
    m_status->setText(m_idleMessage);
    return true;
}

void MainWindow::openFileAsync(const QString& path) {
    if (openSweepResults(path)) return;
    m_doc->loadAsync(path);
}

void MainWindow::updateTitle() {
    const LoadedGraph* g = m_doc->currentGraph();
    if (!m_doc->file() || m_doc->path().isEmpty()) {
        setWindowTitle(tr("fxray"));
        m_graphInfo->clear();
        return;
    }
    const QString name = QFileInfo(m_doc->path()).fileName();
    if (g && m_doc->graphCount() > 1)
        setWindowTitle(tr("%1 [%2] - fxray").arg(name, QString::fromStdString(g->id)));
    else
        setWindowTitle(tr("%1 - fxray").arg(name));
    if (g)
        m_graphInfo->setText(
            tr("%1 · %n node(s)", nullptr, static_cast<int>(g->graph->size())).arg(QString::fromStdString(g->stage)));
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasUrls() && !e->mimeData()->urls().isEmpty() && e->mimeData()->urls().first().isLocalFile())
        e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e) {
    const QList<QUrl> urls = e->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile()) return;
    openFileAsync(urls.first().toLocalFile());
    e->acceptProposedAction();
}

void MainWindow::showExportDialog(const QString& suffix) {
    const QString base =
        m_doc->path().isEmpty() ? QStringLiteral("graph") : QFileInfo(m_doc->path()).completeBaseName();
    const QString path = QFileDialog::getSaveFileName(this, tr("Export view"), base + QLatin1Char('.') + suffix,
                                                      tr("%1 files (*.%2)").arg(suffix.toUpper(), suffix));
    if (path.isEmpty()) return;
    QString error;
    if (m_canvas->exportTo(path, &error))
        m_status->setText(m_idleMessage = tr("Exported %1").arg(QDir::toNativeSeparators(path)));
    else
        onFailed(error);
}

void MainWindow::showSettings() {
    SettingsDialog dlg(this);
    if (dlg.exec() != QDialog::Accepted) return;
    const QString oldLanguage = settings::language();
    settings::setLanguage(dlg.language());
    setTheme(themeFromName(dlg.theme()));
    if (dlg.language() != oldLanguage) m_status->setText(tr("The language changes when fxray is restarted."));
}

void MainWindow::setTheme(Theme t) {
    applyTheme(t);
    settings::setTheme(themeName(t));
    (t == Theme::Dark ? m_themeDark : m_themeLight)->setChecked(true);
    m_canvas->scene()->setDark(t == Theme::Dark);
}

void MainWindow::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange) m_canvas->scene()->setDark(canvas_colors::darkPalette());
    QMainWindow::changeEvent(e);
}

// ---- progress and errors ------------------------------------------------------------------

void MainWindow::onBusy(const QString&) {
    // Several sources (the Document's worker, the layout worker, panes): show whichever runs.
    QString what = !m_docBusy.isEmpty() ? m_docBusy : m_layoutBusy;
    if (what.isEmpty() && !m_paneBusy.isEmpty()) what = m_paneBusy.constBegin().value();
    const bool busy = !what.isEmpty();
    m_progress->setVisible(busy);
    m_cancelButton->setVisible(busy);
    m_cancel->setEnabled(busy);
    if (busy)
        m_status->setText(what + QStringLiteral("..."));
    else if (m_status->text().endsWith(QLatin1String("...")))
        m_status->setText(m_idleMessage.isEmpty() ? tr("Ready") : m_idleMessage);
}

void MainWindow::cancelWork() {
    m_doc->cancel();
    m_canvas->cancelLayout();
    m_docBusy.clear();
    m_layoutBusy.clear();
    for (auto* k : findChildren<KernelPanel*>()) k->cancelCompile();
    for (auto* n : findChildren<NumericsPanel*>()) n->cancel();
    m_paneBusy.clear();
    onBusy(QString());
    m_status->setText(m_idleMessage = tr("Cancelled"));
}

void MainWindow::onFailed(const QString& message) {
    // The first line fits the status bar; the whole message goes in the box.
    m_status->setText(m_idleMessage = message.section(QLatin1Char('\n'), 0, 0));
    m_status->setToolTip(message);
    if (m_quiet || !isVisible() || QGuiApplication::platformName() == QLatin1String("offscreen")) return;
    if (m_errorBox) m_errorBox->close();
    auto* box = new QMessageBox(QMessageBox::Warning, tr("fxray"), message, QMessageBox::Close, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->show();
    m_errorBox = box;
}

QString MainWindow::statusText() const { return m_status->text(); }

void MainWindow::showNote(const QString& text) {
    m_status->setText(m_idleMessage = text);
    m_status->setToolTip(text);
}

void MainWindow::closeEvent(QCloseEvent* e) {
    QSettings s;
    s.setValue(QStringLiteral("window/version"), kStateVersion);
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState(kStateVersion));
    e->accept();
}

}  // namespace fxray::views
