#pragma once
/// Where each kernel of an Inductor output code (`inductor_output_code`, `output_code.py`) is, and
/// which post-grad nodes it computes: the lines that link the output code and the graph both
/// ways in the app's Compile story pane.
///
/// A kernel's lines are its definition — the comment block above `NAME = async_compile.KIND(...)`
/// (kernel path, source nodes, graph fragment) through the closing `'''` of its source — and each
/// call site in `call()`: the comments just above it and the call line (`NAME.run(...)`,
/// `extern_kernels.mm(...)`). Its nodes come from the provenance map of the same compile
/// (`inductor_provenance_tracking_node_mappings`' cppCodeToPost, keyed by the call site's
/// "[Provenance debug handles] NAME:N"), else from the `%node = call_function` lines of the
/// definition's graph fragment. Text that is not output code gives no kernels.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxray {

/// One kernel of an output code.
struct OutputCodeKernel {
    std::string name;                         ///< "triton_poi_fused_gelu_view_1", "extern_kernels.addmm"
    std::string handle;                       ///< "extern_kernels.addmm:2" when the call site names one
    std::vector<std::string> nodes;           ///< post-grad nodes it computes
    std::vector<std::pair<int, int>> ranges;  ///< lines (0-based, inclusive): definition, call sites
};

/// The kernels of one output code.
struct OutputCodeMap {
    std::string aotId;  ///< "0_forward" from "# AOT ID: ['0_forward']", else ""
    std::vector<OutputCodeKernel> kernels;
    /// Kernels with a range holding `line`.
    std::vector<int> kernelsAtLine(int line) const;
    /// Kernels that compute `node`.
    std::vector<int> kernelsOfNode(const std::string& node) const;
};

/// Maps `code`; `provenanceJson` is the compile's provenance payload for this code ("" if none).
OutputCodeMap mapOutputCode(std::string_view code, std::string_view provenanceJson = {});

}  // namespace fxray
