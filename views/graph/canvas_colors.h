#pragma once
/// The canvas's colours: one fill per node class, the diff marks (added green, removed red,
/// rewritten amber), the partition regions, the numerics heat map and the selection accent, in
/// a light and a dark variant. Tests compare against these, so they are the single definition.
#include "graph/canvas_graph.h"

#include <QColor>

namespace fxray::views::canvas_colors {

/// True when the application palette is dark (the theme decides, the canvas follows).
bool darkPalette();

QColor classFill(NodeClass c, bool dark);
QColor text(bool dark);
QColor edge(bool dark);
QColor background(bool dark);

QColor added(bool dark);
QColor removed(bool dark);
QColor rewritten(bool dark);
QColor unchanged(bool dark);  ///< the fill of untouched nodes in diff mode (muted)

QColor forward(bool dark);
QColor backward(bool dark);
QColor unclaimed(bool dark);
QColor saved(bool dark);       ///< border of saved values
QColor recomputed(bool dark);  ///< border of recomputed nodes
QColor cut(bool dark);         ///< cut edges

/// Heat map of numeric error: log10(rel_err) from kHeatLow (green) through yellow to kHeatHigh
/// and above (red); 0 is green, NaN/inf magenta. Nodes without a compared value: unchanged().
constexpr double kHeatLow = -9.0, kHeatHigh = -1.0;
QColor heat(double relErr, bool dark);
/// The overlays' gradient (node_overlay.h): t = 0 green through yellow to t = 1 red; heat() is
/// this gradient over log10 rel_err.
QColor gradient(double t, bool dark);

QColor selection(bool dark);
QColor searchHit(bool dark);

}  // namespace fxray::views::canvas_colors
