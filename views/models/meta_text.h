#pragma once
/// Types of nodes as the GUI prints them, the way PyTorch prints them in a graph: symbolic sizes
/// by their expression ("f32[s33, 64]", "Sym(s23*s27)"), never the -1 that stands for a
/// symbolic dimension inside fxray. Shape inference cannot compute symbolic sizes of nodes the
/// file left unannotated (a tuple such as native_layer_norm's); their elements take the
/// annotation of the getitem that unpacks them, as PyTorch printed it, and what is still
/// unknown prints as "?".
#include <QString>

namespace fxray {
class Node;
struct TensorMeta;
}  // namespace fxray

namespace fxray::views {

/// "f32[s33, 64][64, 1]cuda:0" (strides and device when known and asked for); an unknown
/// size or stride (negative without an expression) prints as "?".
QString metaText(const TensorMeta& m, bool withStrides, bool withDevice);

/// The node's output type: "Sym(s33)", "f32[s33, 64]", "(f32[s23, s27, 128], f32[s23, s27, 1])".
QString nodeTypeText(const Node& n, bool withStrides = false, bool withDevice = false);

/// Element `i` of the node's output metadata, with a symbolic annotation taken from an annotated
/// `operator.getitem(n, i)` user when the node's own is not symbolic; null when there is none.
const TensorMeta* elementMeta(const Node& n, size_t i);

}  // namespace fxray::views
