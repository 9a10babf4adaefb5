#pragma once
/// The module hierarchy of a graph, recovered from what the graph text keeps of it, so that the
/// reducer can drop whole layers before single nodes.
///
/// ATen graphs carry no nn_module_stack; what they keep is provenance — the `# File: x.py:97 in
/// forward, code: ...` comment before each node — and, in torch-level graphs, names such as
/// `l__self___layers_0_attn`. Levels, coarse to fine:
///  1. layer instances by name (`layers_0`, `h_1`, `blocks_2`, ...), when names carry them;
///  2. block instances by provenance: a new instance starts when a source line seen earlier in
///     the current instance comes back (the same forward() run again for the next layer);
///  3. runs of nodes from one source line.
#include "minify/candidate.h"

#include <string>
#include <vector>

namespace fxray::minify {

/// Groups of `nodes` (original indices, graph order) per level, coarse first. Levels that do
/// not split the nodes into at least two groups, or split them into single nodes, are left out.
std::vector<std::vector<std::vector<int>>> hierarchyLevels(const Workspace& ws, const std::vector<int>& nodes);

/// "File: /x/resnet.py:97" for a node's provenance comment ("" without one).
std::string provenanceKey(const Node& n);
/// "layers_0" for a node named like `l__self___layers_0_attn_c_attn` ("" when none).
std::string layerKey(const std::string& nodeName);

}  // namespace fxray::minify
