#pragma once
/// Tensor constants that travel with an FX text file.
///
/// FX text has no place for tensor values: `_tensor_constant0: "f32[][]" = self._tensor_constant0`
/// names a constant without carrying it. Graphs fxray writes keep their constants' values in a
/// folder beside the file, `<stem>_constants/NAME.npy` (a subgraph's as
/// `<stem>_constants/SUB/NAME.npy`), and the loader reads that folder back, so a written graph
/// runs wherever it is copied with its folder.
#include "ir/graph.h"
#include "ir/printer.h"
#include "support/diagnostic.h"

#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace fxray {

/// The folder beside an FX text file that holds its constants: "dir/j.py" -> "dir/j_constants".
std::filesystem::path constantsFolderFor(const std::filesystem::path& graphFile);

/// Where the constants of earlier graphs were written: graphs that share a constant's storage
/// (the pass snapshots of one compile) then share its file through a hard link, not a copy.
struct ConstantFiles {
    /// storage, offset, dtype, shape, strides -> the .npy file holding those values
    std::map<std::tuple<const void*, int64_t, DType, std::vector<int64_t>, std::vector<int64_t>>, std::filesystem::path>
        written;
};

/// Writes the value of every constant a get_attr node of g uses (subgraphs included) into
/// constantsFolderFor(graphFile). .npy files an earlier graph left there are removed first, and
/// the folder itself when g has no constants. Fails naming the file it cannot write, or a
/// constant name that is not a plain file name. With `shared`, values already written for an
/// earlier graph are hard-linked (copied where links fail).
Status writeConstantsFolder(const std::filesystem::path& graphFile, const Graph& g, ConstantFiles* shared = nullptr);

/// printGraph(g, opts) to `path` plus writeConstantsFolder: a graph file that runs on its own.
Status writeGraphFile(const std::filesystem::path& path, const Graph& g, const PrintOptions& opts = {});

/// Fills g's missing constants (subgraphs included) from constantsFolderFor(graphFile) and
/// returns the names it filled ("SUB/NAME" for a subgraph's). A file that exists but cannot be
/// read, or whose shape differs from the get_attr node's annotation, is an error naming it.
/// Values take the annotation's dtype and strides (.npy holds bfloat16 as float32, C order).
Expected<std::vector<std::string>> readConstantsFolder(const std::filesystem::path& graphFile, Graph& g);

}  // namespace fxray
