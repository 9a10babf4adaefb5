#pragma once
/// Reader for PyTorch's after-AOT repro scripts: Inductor's `fx_graph_runnable.py` and the
/// minifier's `repro.py` (torch/_dynamo/repro/after_aot.py).
///
/// Such a file is Python meant to be run; fxray reads it as data. The graph is the `Repro`
/// module's `forward` (parsed by the FX text reader); the inputs come from
/// `def load_args(reader):`, whose `reader.storage(...)`, `reader.tensor(...)`,
/// `reader.symint(...)` and `reader.const(...)` lines are parsed one by one, never executed.
/// Buffers and parameters declared in `__init__` (`self.register_buffer('_frozen_param0',
/// torch.randn([16], dtype=torch.float32).cuda())`) give the metadata of their get_attr nodes;
/// their values are random in PyTorch's repro too, so they stay missing constants.
#include "import/loader.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace fxray {

/// True when `text` looks like an after-AOT repro (it defines `load_args(reader)`).
bool looksLikeRepro(std::string_view text);

/// Parses the `load_args` function of a repro into input specs, in the order the reader
/// produces its arguments. `fileName` names the file in diagnostics; `lineOffset` is added to
/// line numbers (for text embedded in a larger file). Returns an empty list when the text has
/// no `load_args`. Recoverable oddities (a `reader.const`, an unsupported input) go to
/// `warnings`.
Expected<std::vector<InputSpec>> parseLoadArgs(std::string_view text, const std::string& fileName,
                                               std::vector<std::string>& warnings, int lineOffset = 0);

/// Parses a repro into one graph with input specs and placeholder metadata, not yet finished
/// (the caller runs finishGraph). Its id is "0" and its stage "repro"; callers may rename.
Expected<LoadedGraph> readReproText(std::string_view text, const std::string& fileName,
                                    std::vector<std::string>& warnings, int lineOffset = 0);

/// Reads a repro file: one finished graph (id "0"), format "repro". Its stage is "repro", or for
/// Inductor's `fx_graph_runnable.py` the AOT stage its debug folder's name implies.
Expected<LoadedFile> readRepro(const std::filesystem::path& path);

}  // namespace fxray
