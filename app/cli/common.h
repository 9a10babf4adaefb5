#pragma once
// Helpers shared by subcommands: loading with one-line errors, op histograms, run inputs.
#include "cli/args.h"
#include "import/loader.h"
#include "ir/sym_expr.h"
#include "ir/value.h"
#include "support/diagnostic.h"

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace fxray::cli {

/// Prints "fxray: <diagnostic>" and returns exit status 2.
int reportError(std::ostream& err, const Diagnostic& d);
/// The non-empty parts of a comma-separated list ("ref,cpu" -> {"ref", "cpu"}).
std::vector<std::string> splitComma(const std::string& s);
/// "aten.mm.default" -> count, for call nodes (recursing into subgraphs). Methods count as
/// "method.view", other functions by target.
std::map<std::string, int> opHistogram(const Graph& g);

/// FILE (the one positional argument) loaded into `file` and its graph chosen by --graph, ready
/// to `verb` ("execute", "compile"): fails naming the file when it cannot be read, the
/// selector matches nothing, or the graph calls ops fxray does not know.
Expected<LoadedGraph*> loadRunnable(const Args& a, std::optional<LoadedFile>& file, const std::string& verb);

/// The inputs of a run of g, as `run`, `compare` and `debug-compile` take them: with `dir`,
/// DIR/NNN.npy per placeholder (exactly as many files as placeholders), laid out with the
/// placeholders' annotated strides so that views behave as in PyTorch; without, seeded random
/// inputs from the annotations, at `sizes` for a dynamic-shape graph (default: its hints).
Expected<std::vector<Value>> loadInputs(const Graph& g, const std::string& dir, uint64_t seed,
                                        const sym::Binding* sizes = nullptr);

/// `--sizes S=N,...` of a dynamic-shape graph: parsed, every symbol one the graph's inputs
/// mention (the error lists those they do). Empty when the option is absent.
Expected<sym::Binding> sizesOption(const Args& a, const Graph& g);

}  // namespace fxray::cli
