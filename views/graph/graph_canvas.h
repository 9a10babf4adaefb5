#pragma once
/// GraphCanvas: the central pane — the shown graph of the Document drawn as boxes and edges,
/// with its toolbar (colouring, fit, zoom, collapse), a search bar (Ctrl+F, F3 / Shift+F3) and
/// the layout machinery: layouts run on a worker thread, are cached by graph fingerprint, and a
/// new pass is laid out incrementally from the positions of the previous one, so each node
/// keeps its place unless the pass rewrote it.
#include "graph/graph_layout.h"
#include "graph/graph_scene.h"
#include "graph/node_overlay.h"

#include <QHash>
#include <QSet>
#include <QWidget>

#include <memory>

class QAction;
class QActionGroup;
class QComboBox;
class QLabel;
class QLineEdit;
class QThreadPool;
class QToolBar;

namespace fxray::views {

class Document;
class JobLane;
class GraphView;

class GraphCanvas : public QWidget {
    Q_OBJECT
public:
    enum class Mode { Category, Diff, Partition, Numerics };

    explicit GraphCanvas(Document* doc, QWidget* parent = nullptr);
    ~GraphCanvas() override;

    GraphScene* scene() const { return m_scene; }
    GraphView* view() const { return m_view; }
    Mode mode() const { return m_mode; }
    void setMode(Mode m);
    /// "canvas"/"category", "diff", "partition", "numerics"/"heat"; false for an unknown name.
    bool setModeByName(const QString& name);
    /// Paints a per-node overlay (kernel time, saved bytes, …) over the category colours, with
    /// its legend; an empty overlay removes it. Diff, Partition and Numerics modes keep their own
    /// colouring (Numerics is itself the numeric-error overlay).
    void setOverlay(const NodeOverlay& overlay);
    const NodeOverlay& overlay() const { return m_overlay; }
    /// Where the toolbar's overlay comes from; it follows the Document (pass, partition).
    enum class OverlaySource { None, SavedBytes, LastChangedBy, KernelTime };
    /// Reads `fxray bench --json` output and shows its kernel times (OverlaySource::KernelTime);
    /// false with `error` set (and the legend saying it) when the file is not one.
    bool loadBenchProfile(const QString& path, QString* error = nullptr);
    void setOverlaySource(OverlaySource source);
    OverlaySource overlaySource() const { return m_overlaySource; }

    /// True while a layout is computing (or queued).
    bool layoutPending() const { return m_pending; }
    /// True while Graphviz routes the overview's edges (the blocks are placed already), lays out
    /// an opened block, or routes an incremental layout's edges.
    bool routingPending() const { return m_routePending || m_blockPending || m_edgesPending || m_crossPending; }
    /// Drops the layout in flight (its result is ignored).
    void cancelLayout();
    /// Processes events until no layout (nor routing) is pending; false on timeout (tests,
    /// screenshots).
    bool waitForLayout(int timeoutMs = 30000);
    /// Engine and time of the layout on screen ("dot", "layered", "incremental", "cache").
    QString layoutEngine() const { return m_lastEngine; }
    double layoutMs() const { return m_lastLayoutMs; }
    LayoutParams& layoutParams() { return m_params; }
    /// Graphs above this many nodes open with their clusters (and stacks) collapsed.
    void setCollapseLimit(int nodes) { m_collapseLimit = nodes; }
    /// The default: above ~300 nodes even the readable zoom shows only a corner of the graph,
    /// while its collapsed blocks fit on one screen.
    static constexpr int kDefaultCollapseLimit = 300;

    /// Search: the node indices whose name, op or type contains `text` (case-insensitive).
    QList<int> findNodes(const QString& text) const;
    void setSearchText(const QString& text);
    void findNext();
    void findPrevious();

    /// Scrolls to the first selected node, zooming in until it is readable.
    void centerOnSelection();

    /// Writes SVG, PNG or DOT by the file's suffix.
    bool exportTo(const QString& path, QString* error = nullptr);

    // Actions for the window's menus (stable object names, shortcuts set).
    QAction* fitAction() const { return m_fit; }
    QAction* zoomInAction() const { return m_zoomIn; }
    QAction* zoomOutAction() const { return m_zoomOut; }
    QAction* findAction() const { return m_find; }
    QAction* findNextAction() const { return m_findNext; }
    QAction* findPreviousAction() const { return m_findPrev; }
    QAction* collapseAllAction() const { return m_collapseAll; }
    QAction* expandAllAction() const { return m_expandAll; }
    QList<QAction*> modeActions() const;

Q_SIGNALS:
    /// Layout started (`what`) or finished (empty).
    void busy(const QString& what);
    /// A layout was installed in the scene.
    void layoutReady();

private:
    void buildUi();
    void onGraphChanged();
    void refresh();
    void startLayout(std::shared_ptr<const CanvasGraph> cg);
    void install(std::shared_ptr<const CanvasGraph> cg, const GraphLayout& layout, const QString& engine);
    void applyColouring();
    void applyDocumentSelection(bool centre);
    void updateLegend();
    void updateSearchLabel();
    void jumpToHit();
    QSet<QString> movedByCurrentPass() const;

    Document* m_doc;
    GraphScene* m_scene = nullptr;
    GraphView* m_view = nullptr;
    QToolBar* m_toolbar = nullptr;
    QLabel* m_legend = nullptr;
    QLabel* m_info = nullptr;
    QWidget* m_searchBar = nullptr;
    QLineEdit* m_searchEdit = nullptr;
    QLabel* m_searchCount = nullptr;
    QAction *m_fit = nullptr, *m_zoomIn = nullptr, *m_zoomOut = nullptr, *m_find = nullptr, *m_findNext = nullptr,
            *m_findPrev = nullptr, *m_collapseAll = nullptr, *m_expandAll = nullptr;
    QActionGroup* m_modeGroup = nullptr;
    QAction *m_modeCategory = nullptr, *m_modeDiff = nullptr, *m_modePartition = nullptr, *m_modeNumerics = nullptr;

    Mode m_mode = Mode::Category;
    NodeOverlay m_overlay;
    OverlaySource m_overlaySource = OverlaySource::None;
    NodeOverlay m_benchOverlay;  ///< the last bench profile loaded
    QComboBox* m_overlayBox = nullptr;
    void refreshOverlay();
    LayoutParams m_params;
    /// Layouts run here; a newer request supersedes the one in flight.
    JobLane* m_layoutLane = nullptr;
    bool m_pending = false;
    /// The overview's edge routes (Graphviz, serialised with the layouts' dot by its lock).
    JobLane* m_routeLane = nullptr;
    bool m_routePending = false;
    void routeOverview();
    /// Expanded blocks' own layouts (block_layout.h), on a worker of their own.
    JobLane* m_blockLane = nullptr;
    bool m_blockPending = false;
    void layOutBlocks();
    /// Graphviz's routes for an incremental layout (the nodes are placed already).
    JobLane* m_edgeLane = nullptr;
    bool m_edgesPending = false;
    void routeLayout(std::shared_ptr<const CanvasGraph> cg, std::shared_ptr<const GraphLayout> layout);
    /// Graphviz's routes for the edges into and out of expanded blocks.
    JobLane* m_crossLane = nullptr;
    bool m_crossPending = false;
    void routeCrossEdges();
    bool m_fitPending = true;
    bool m_collapseAllPending = false;
    int m_collapseLimit = kDefaultCollapseLimit;
    QString m_lastEngine;
    double m_lastLayoutMs = 0;
    std::shared_ptr<const CanvasGraph> m_shown;
    std::shared_ptr<const CanvasGraph> m_requested;
    QHash<quint64, std::shared_ptr<const GraphLayout>> m_cache;
    QHash<quint64, std::shared_ptr<const CanvasGraph>> m_graphs;  ///< built CanvasGraphs, same keys
    QHash<QString, QPointF> m_history;
    /// The full layouts' routes by edge (with where their ends were): an incremental layout reuses
    /// those whose ends stayed and has Graphviz route only the others.
    RouteMemory m_routeHistory;
    QSet<QString> m_collapsed;
    quint64 m_partitionAskedFor = 0;
    QList<int> m_hits;
    int m_hitPos = -1;
};

}  // namespace fxray::views
