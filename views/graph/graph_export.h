#pragma once
/// Exporting the canvas: SVG (QSvgGenerator, vector, what papers and issues want), PNG (a
/// raster of the whole graph, scaled down to stay under a size limit) and DOT (the graph with
/// its labels and current colours, for Graphviz users). Each returns false with `error` set.
#include <QString>

namespace fxray::views {

class GraphScene;

bool exportSvg(GraphScene& scene, const QString& path, QString* error = nullptr);
/// `maxSide`: the longest side in pixels; the scene is scaled to fit (never enlarged above 2x).
bool exportPng(GraphScene& scene, const QString& path, int maxSide = 8000, QString* error = nullptr);
bool exportDot(const GraphScene& scene, const QString& path, QString* error = nullptr);
/// The DOT text exportDot writes.
QString toDot(const GraphScene& scene);

}  // namespace fxray::views
