#pragma once
/// Per-node overlays: one mechanism for every value the canvas can paint on nodes (numeric error
/// from `fxray compare`, kernel time from `fxray bench`, saved bytes of the partition). An
/// overlay is a name → value table with two thresholds: values at or below `low` take the
/// gradient's first colour (green), at or above `high` its last (red), between them the hue
/// runs green → yellow → red (linearly, or in log10 for values spanning decades). A collapsed
/// block shows the aggregate of its children: the max (an error, a time: the worst child) or the
/// sum (bytes). Nodes without a value are muted. The legend reads the same fields.
#include "graph/canvas_graph.h"

#include <QColor>
#include <QHash>
#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace fxray {
struct CompileTrace;
struct PartitionResult;
}  // namespace fxray

namespace fxray::views {

struct NodeOverlay {
    enum class Aggregate { Max, Sum };

    QString title;  ///< the legend's title ("numeric error (rel)")
    QString unit;   ///< printed after values ("ms", "B"); empty for none
    QHash<QString, double> values;
    double low = 0.0, high = 1.0;  ///< thresholds (the gradient's ends)
    bool logScale = false;         ///< the gradient runs over log10(value)
    Aggregate aggregate = Aggregate::Max;
    /// For categorical values: value k (1-based) stands for categories[k - 1] (a pass name).
    QStringList categories;

    bool empty() const { return values.isEmpty(); }
    /// Where v lies on the gradient, 0 (low) … 1 (high), clamped; non-finite values are 1.
    double position(double v) const;
    /// The value at gradient position t (0 … 1): position()'s inverse, for the legend.
    double valueAt(double t) const;
    /// The fill of a node or block with value v (a non-finite value: the error magenta).
    QColor colour(double v, bool dark) const;
    /// The aggregate of these node indices' values (nodes without a value are skipped), or none.
    std::optional<double> aggregateOf(const CanvasGraph& g, const std::vector<int>& nodes) const;
    /// The value as the legend and tooltips print it.
    QString format(double v) const;

    /// Relative error per node (log scale, canvas_colors' heat thresholds, max).
    static NodeOverlay numericError(QHash<QString, double> relErr);
    /// Kernel time per node in ms (linear from 0 to the slowest node, max).
    static NodeOverlay kernelTime(QHash<QString, double> ms);
    /// Kernel time per node from `fxray bench --json` (its "steps": name, nodes, ms): each node
    /// gets the time of the step that computes it (a fused kernel's time on each of its nodes,
    /// so blocks take the max, never a sum that would count a kernel twice). Null with `error`
    /// naming the file and what is wrong when it is not such a file.
    static std::optional<NodeOverlay> kernelTimeFromBench(const QString& path, QString* error);
    /// Bytes saved for the backward per node (linear from 0 to the largest, summed in blocks).
    static NodeOverlay savedBytes(QHash<QString, double> bytes);
    /// The partition's saved values with their bytes.
    static NodeOverlay savedBytes(const PartitionResult& partition);
    /// The pass that last created or replaced each node, among passes 0 … `passIndex` of the
    /// trace: value k is the k-th pass (categories holds the pass names); later passes redder.
    static NodeOverlay lastChangedBy(const CompileTrace& trace, int passIndex);
};

/// The node indices of a block: a cluster's nodes, or every node of a stack's clusters.
std::vector<int> clusterNodes(const CanvasGraph& g, int cluster);
std::vector<int> stackNodes(const CanvasGraph& g, int stack);

}  // namespace fxray::views
