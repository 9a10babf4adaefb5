#include "panels/panels.h"

#include "panels/code_panel.h"
#include "panels/diff_panel.h"
#include "panels/inspector_panel.h"
#include "panels/kernel_panel.h"
#include "panels/match_panel.h"
#include "panels/minifier_panel.h"
#include "panels/numerics_panel.h"
#include "panels/partition_panel.h"
#include "panels/timeline_panel.h"

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QMainWindow>

namespace fxray::views {

namespace {

QDockWidget* dock(QMainWindow* window, QWidget* pane, const QString& title, const char* name, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, window);
    d->setObjectName(QString::fromLatin1(name));
    d->setWidget(pane);
    d->toggleViewAction()->setObjectName(QStringLiteral("action.toggle.%1").arg(QString::fromLatin1(name)));
    window->addDockWidget(area, d);
    return d;
}

}  // namespace

Panels installPanels(QMainWindow* window, Document* doc) {
    Panels p;
    auto* timeline = new TimelinePanel(doc);
    p.timeline = dock(window, timeline, QCoreApplication::translate("Panels", "Passes"), "dock.timeline",
                      Qt::LeftDockWidgetArea);
    p.matches = dock(window, new MatchPanel(doc), QCoreApplication::translate("Panels", "Matches"), "dock.matches",
                     Qt::LeftDockWidgetArea);
    p.inspector = dock(window, new InspectorPanel(doc), QCoreApplication::translate("Panels", "Inspector"),
                       "dock.inspector", Qt::RightDockWidgetArea);
    p.partition = dock(window, new PartitionPanel(doc), QCoreApplication::translate("Panels", "Partition"),
                       "dock.partition", Qt::RightDockWidgetArea);
    p.code = dock(window, new CodePanel(doc), QCoreApplication::translate("Panels", "Code"), "dock.code",
                  Qt::BottomDockWidgetArea);
    p.diff = dock(window, new DiffPanel(doc), QCoreApplication::translate("Panels", "Diff"), "dock.diff",
                  Qt::BottomDockWidgetArea);
    p.kernels = dock(window, new KernelPanel(doc), QCoreApplication::translate("Panels", "Kernels"), "dock.kernels",
                     Qt::BottomDockWidgetArea);
    p.numerics = dock(window, new NumericsPanel(doc), QCoreApplication::translate("Panels", "Numerics"),
                      "dock.numerics", Qt::BottomDockWidgetArea);
    p.minifier = dock(window, new MinifierPanel(doc), QCoreApplication::translate("Panels", "Minifier"),
                      "dock.minifier", Qt::RightDockWidgetArea);
    // Where the docks sit relative to each other (splits, tabs, what is raised) is defined once,
    // in resources/default_layout.json, which the main window applies (View > Reset Layout).
    p.nextPass = timeline->nextAction();
    p.previousPass = timeline->previousAction();
    // Window-wide: stepping works from the canvas as well as from the timeline.
    timeline->removeAction(p.nextPass);
    timeline->removeAction(p.previousPass);
    window->addAction(p.nextPass);
    window->addAction(p.previousPass);
    return p;
}

}  // namespace fxray::views
