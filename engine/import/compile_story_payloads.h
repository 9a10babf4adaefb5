#pragma once
/// Parsers for the text payloads the compile story reads (compile_story.h): graph-break messages,
/// Python tracebacks, recompile reasons, Inductor output code and provenance maps. Each takes
/// any text and returns what it recognises; unrecognised text gives empty results.
#include "import/compile_story.h"

#include <string_view>
#include <vector>

namespace fxray::detail {

/// A `dynamo_graph_break_reason` payload: "Graph break in user code at FILE:LINE", the reason
/// block, and "User code traceback:" (its innermost frame is the user frame). count is 1.
GraphBreak parseGraphBreakMessage(std::string_view payload);

/// A Python traceback (`dynamo_error`, `exception_stack_trace`): frames as "file:line in fn",
/// and the final exception line split into type and message.
CompileFailure parseTraceback(std::string_view text);

/// A `recompile_reasons` payload: a JSON list of strings, or one reason per line.
std::vector<std::string> parseRecompileReasons(std::string_view payload);

/// Splits "0/0: tensor 'x' size mismatch ..." into ("0/0", "tensor 'x' size ..."); the id is
/// empty when the reason does not start with a compile id.
std::pair<std::string, std::string> splitGuardFailure(const std::string& reason);

/// Kernels of an `inductor_output_code` payload: `NAME = async_compile.KIND('NAME', ...)`
/// definitions and `extern_kernels.X(...)` calls, each with the nodes of the
/// "# Topologically Sorted Source Nodes: [...]" comment before it.
std::vector<KernelInfo> kernelsFromOutputCode(std::string_view code);

/// Kernels of an `inductor_provenance_tracking_node_mappings` payload (its `cppCodeToPost`
/// map, "kernel:index" -> post-grad nodes). Empty when the map is absent or empty.
std::vector<KernelInfo> kernelsFromProvenance(std::string_view json);

/// Adds `b` to `list`, merging it into an entry with the same reason and user line.
void mergeGraphBreak(std::vector<GraphBreak>& list, const GraphBreak& b);

/// `s` without leading and trailing blanks.
std::string_view trimView(std::string_view s);

}  // namespace fxray::detail
