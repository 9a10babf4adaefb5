#pragma once
// Helpers shared by subcommands: loading with one-line errors, op histograms.
#include "import/loader.h"
#include "support/diagnostic.h"

#include <map>
#include <ostream>
#include <string>

namespace fxray::cli {

/// Prints "fxray: <diagnostic>" and returns exit status 2.
int reportError(std::ostream& err, const Diagnostic& d);
/// "aten.mm.default" -> count, for call nodes (recursing into subgraphs). Methods count as
/// "method.view", other functions by target.
std::map<std::string, int> opHistogram(const Graph& g);

} // namespace fxray::cli
