#pragma once
/// Small helpers shared by the passes: reading literal arguments, metadata comparisons, storage
/// identity (which node's buffer a value lives in).
#include "ir/graph.h"

#include <optional>
#include <string_view>
#include <vector>

namespace fxray::passutil {

/// The op name of a call node ("aten.view.default"), or "" for other nodes.
std::string opOf(const Node& n);
/// Literal int / float / int list, when the argument is one.
std::optional<int64_t> asInt(const Argument& a);
std::optional<double> asNumber(const Argument& a);
std::optional<std::vector<int64_t>> asIntList(const Argument& a);
/// The single tensor metadata of a node, or null.
const TensorMeta* tensorMeta(const Node& n);
/// PyTorch's same_meta: same shape, dtype, device and (for strided tensors) exact strides.
bool sameMeta(const Node& a, const Node& b);
/// The node whose storage n's value lives in: through views, getitem of split-like ops.
const Node* storageRoot(const Node* n);

}  // namespace fxray::passutil
