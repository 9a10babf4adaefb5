#pragma once
/// FX graphs as SVG images for `fxray report`, drawn by Graphviz's dot through libgvc (the library
/// the app's canvas already lays out with; no `dot` process). Built without Graphviz, or for a
/// graph too large to be read as a picture, there is no image and `why` says so.
#include <string>

namespace fxray::cli {

/// Graphs above this many nodes get no image: dot takes seconds and the picture is unreadable.
constexpr size_t kMaxSvgNodes = 250;

/// The SVG of the graph printed in `fxText` (print_readable form), or "" with `why` set.
std::string fxGraphSvg(const std::string& fxText, std::string* why);

}  // namespace fxray::cli
