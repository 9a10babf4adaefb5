#pragma once
/// Installs the panes around the canvas as dock widgets: pass timeline, FX text diff, match
/// explorer, partition, node inspector, code, kernels, numerics and the minifier. Each dock has
/// a stable objectName ("dock.timeline", ...) so that QMainWindow::saveState/restoreState keep
/// the layout, and a default area. The window lists the returned docks in its View menu (their
/// toggleViewAction()s) and may put the pass-stepping actions in a menu of its own.
#include <QList>

class QAction;
class QDockWidget;
class QMainWindow;

namespace fxray::views {

class Document;

struct Panels {
    QDockWidget* timeline = nullptr;
    QDockWidget* diff = nullptr;
    QDockWidget* matches = nullptr;
    QDockWidget* partition = nullptr;
    QDockWidget* inspector = nullptr;
    QDockWidget* code = nullptr;
    QDockWidget* kernels = nullptr;
    QDockWidget* minifier = nullptr;  ///< views/panels/minifier_panel.h
    QDockWidget* numerics = nullptr;  ///< views/panels/numerics_panel.h
    /// Step to the next / previous pass (Alt+Right or F8 / Alt+Left or Shift+F8); already added
    /// to the window so the shortcuts work wherever the focus is.
    QAction* nextPass = nullptr;
    QAction* previousPass = nullptr;

    /// Every dock, in View-menu order.
    QList<QDockWidget*> docks() const {
        return {timeline, matches, diff, code, inspector, partition, kernels, numerics, minifier};
    }
};

/// Creates the panes, docks them in `window` (each in its default area) and connects them to
/// `doc`. How they are split and tabbed is resources/default_layout.json's, applied by the main
/// window. Call once, before restoring the window state.
Panels installPanels(QMainWindow* window, Document* doc);

}  // namespace fxray::views
