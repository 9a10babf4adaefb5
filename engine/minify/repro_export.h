#pragma once
/// What `fxray minify --out DIR` and `fxray debug-compile --out DIR` write:
///  - `minified.py` (or `graph.py`): the graph in FX text (print_readable form);
///  - `inputs/NNN.npy`: its inputs in placeholder order;
///  - `repro.py`: a standalone PyTorch 2.x script — `class Repro(torch.nn.Module)` whose forward
///    is the graph calling `torch.ops.aten...`, code that loads the inputs, runs it in eager and
///    reproduces the failure where PyTorch can see it (an injected fault: a `ReproInjected`
///    module with the fault written out, compared with `same()`; fp32 vs fp64: eager in both
///    precisions). Failures inside fxray (a pass, a compiled backend) are not PyTorch-visible:
///    the script says so and names the fxray command that reproduces them;
///  - `session.json`: the run (source, checks, faults, seed, signature, counts, steps), for
///    scripts and the GUI's Minifier panel;
///  - `minified.fxray`: the minimized graph as an fxray session file (import/session_file.h),
///    which `fxray FILE` and the GUI open like any other file.
#include "minify/minifier.h"

#include <filesystem>
#include <string>

namespace fxray::minify {

/// Where the graph came from, for session.json and the commands printed in repro.py.
struct ExportInfo {
    std::string sourceFile;
    std::string graphSel;
    std::string commandLine;  ///< the fxray command that reproduces the failure
};

/// The repro.py text for g with inputs under `inputs/` next to it. `spec` may be null (a plain
/// eager run, as debug-compile writes).
std::string reproScript(const Graph& g, const std::vector<Value>& inputs, const FailureSpec* spec,
                        const std::string& fxrayCommand);

/// Writes graph text (as `graphFile`), inputs/NNN.npy and repro.py into dir.
Status writeGraphFolder(const std::filesystem::path& dir, const Graph& g, const std::vector<Value>& inputs,
                        const FailureSpec* spec, const std::string& graphFile, const std::string& fxrayCommand);

/// Everything of a finished minification, session.json included.
Status writeMinifyOutputs(const std::filesystem::path& dir, const MinifyResult& r, const MinifyOptions& opts,
                          const ExportInfo& info);

}  // namespace fxray::minify
