#pragma once
/// The partition laid out to explain itself: the forward's blocks in a left lane, the saved
/// tensors (one card each) in the middle column as the interface, the backward's blocks in a
/// right lane. Blocks are the canvas's clusters (a model's layers, CanvasGraph), not its stacks:
/// the layers of a "× 12" stack each save their own tensors, so each gets its own row. The cards
/// of the tensors a forward block produces sit beside that block; the backward blocks are placed
/// at the height of the cards they read, so a layer's backward lines up with its forward.
///
/// Edges are bundled per block: one bundle per forward block for the cut edges leaving it (the
/// min-cut's edges, count and bytes), one per backward block for the saved tensors it reads.
/// Recomputed nodes are counted on their blocks. Given the saved set before a budget change, the
/// tensors that joined the set are marked and those that left it come back as ghost cards.
///
/// A plain value computed on the UI thread (a few hundred blocks and cards at most); the widget
/// (panels/partition_lanes_view) only paints it.
#include "graph/canvas_graph.h"

#include <QHash>
#include <QRectF>
#include <QSet>
#include <QString>

#include <optional>
#include <vector>

namespace fxray {
class Graph;
struct PartitionResult;
}  // namespace fxray

namespace fxray::views {

/// What a partition saved, kept to compare the next one with (a budget change).
struct SavedSnapshot {
    QHash<QString, qint64> bytes;  ///< saved tensor -> bytes
    QHash<QString, QString> type;  ///< saved tensor -> its type text, for ghost cards
    qint64 savedBytes = 0;
    int recomputed = 0;
    double budget = 1.0;
};

SavedSnapshot snapshotOf(const PartitionResult& pr, const CanvasGraph& g, double budget);

struct LaneBlock {
    enum class Lane : uint8_t { Forward, Backward };
    Lane lane = Lane::Forward;
    QString label;
    int nodes = 0;
    int recomputed = 0;  ///< nodes of the block the backward computes again
    int firstNode = 0;   ///< graph order, for the forward lane's order
    QRectF rect;
    int bundled = 0;  ///< its bundle's count: cut edges leaving it, or saved tensors it reads
    qint64 bundledBytes = 0;
};

struct LaneCard {
    /// Saved: saved now and before (or no before). Joined: saved now, not before. Left: saved
    /// before, not now (a ghost card; `recomputed` says whether the backward recomputes it).
    enum class State : uint8_t { Saved, Joined, Left };
    QString name;
    QString type;  ///< "f32[2, 64, 256]" (dtype and shape)
    qint64 bytes = 0;
    bool input = false;       ///< a primal or a view of one: costs no activation memory
    bool recomputed = false;  ///< the backward recomputes this node
    State state = State::Saved;
    int block = -1;  ///< the forward block that produces it
    QRectF rect;
};

struct LaneBundle {
    int block = -1;  ///< forward block (cut edges leaving it) or backward block (tensors it reads)
    int count = 0;
    qint64 bytes = 0;
    /// The ends. Cut: the block, then the span of its cards. Read: a point at the mean height of
    /// the cards read (on the column's right edge), then the block.
    QRectF from, to;
};

struct PartitionLanes {
    std::vector<LaneBlock> blocks;
    std::vector<LaneCard> cards;          ///< saved and joined cards, then ghost cards
    std::vector<LaneBundle> cutBundles;   ///< per forward block: the cut edges leaving it
    std::vector<LaneBundle> readBundles;  ///< per backward block: the saved tensors it reads
    int cutEdges = 0;                     ///< PartitionResult::cut.size()
    QRectF forwardLane, savedColumn, backwardLane;
    QSizeF size;
    int forwardNodes = 0, backwardNodes = 0;
    qint64 savedBytes = 0;
    int savedCount = 0;
    /// The budget change, when a before was given.
    std::optional<SavedSnapshot> before;
    QStringList joined, left;  ///< tensor names, graph order
    int recomputedNow = 0;
};

/// Geometry of the lanes (scene units = pixels at zoom 1).
struct LaneMetrics {
    double blockWidth = 230, blockHeight = 64;
    double cardWidth = 200, cardHeight = 40;
    int cardColumns = 3;
    double gap = 10, laneGap = 90, header = 54;
};

/// Lays out `pr` (a partition of `g`'s graph). `before`: the saved set of the previous
/// partition of the same graph, to show the change.
PartitionLanes layoutPartitionLanes(const CanvasGraph& g, const PartitionResult& pr,
                                    const std::optional<SavedSnapshot>& before, const LaneMetrics& m = {});

}  // namespace fxray::views
