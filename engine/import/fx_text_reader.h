#pragma once
/// Reader for FX's printed Python form (`GraphModule.print_readable()`, `fx_graph_readable.py`,
/// the AOT joint `forward(self, primals, tangents)` form, torch-level Dynamo graphs).
///
/// Nothing is executed: the text is parsed as data. Targets are kept as written
/// (`torch.ops.aten.addmm.default`, `torch._C._nn.linear`, methods like `view`); resolving them
/// against the op registry and inferring metadata is done by the loader.
#include "ir/graph.h"
#include "ir/tensor_meta.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace fxray {

/// Parses FX text. `fileName` is used in diagnostics. The first `class X(...)` with a
/// `forward` method is the graph; classes nested in it are its submodules (subgraphs).
Expected<std::unique_ptr<Graph>> readFxText(std::string_view text, const std::string& fileName);

/// Reads and parses a file.
Expected<std::unique_ptr<Graph>> readFxFile(const std::filesystem::path& path);

/// Parses an annotation such as `f32[16, 128][128, 1]cuda:0`, `b8[]`, `f32[s0, 16]`.
/// Returns nullopt for text that is not a tensor type (e.g. `Sym(s0)`). A symbolic size or
/// stride is parsed into its SymInt here; one that is no expression makes the annotation fail,
/// with the reason in `error` when given ("size 1: cannot read symbolic expression ...").
std::optional<TensorMeta> parseAnnotation(std::string_view text, std::string* error = nullptr);

/// Reads a whole file into a string (Diagnostic naming the file on failure).
Expected<std::string> readTextFile(const std::filesystem::path& path);

/// The whole file if it holds at most maxBytes, else an error naming the file: "<what> too large
/// (N MiB; fxray reads up to M MiB)". For logs and folders that can be huge, so that the size is
/// checked before anything is read.
Expected<std::string> readFileUpTo(const std::filesystem::path& path, uintmax_t maxBytes, const std::string& what);

}  // namespace fxray
