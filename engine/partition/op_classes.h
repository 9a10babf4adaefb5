#pragma once
/// The operator categories the min-cut partitioner reasons about, as PyTorch's
/// `get_default_op_list()` (torch/_functorch/partitioners.py) defines them: recomputable
/// (the allowlist), view, random, compute-intensive and fusible. PyTorch matches ops by overload
/// packet (`aten.add`, not `aten.add.Tensor`), so these do too.
///
/// These are PyTorch's lists, not fxray's op categories: fxray's registry calls `clone` pointwise
/// and `detach` a view, PyTorch's partitioner calls neither so, and partitions must agree with
/// PyTorch's.
#include "ir/node.h"
#include "ir/op_registry.h"

#include <string>
#include <string_view>

namespace fxray::partition {

/// What the partitioner knows about one op packet.
struct OpClass {
    bool recomputable = false;      ///< in the recompute allowlist (incl. Tag.pointwise packets)
    bool view = false;              ///< a view op for the partitioner (never saved, never banned)
    bool random = false;            ///< PyTorch's partitioner random_ops (never recomputed)
    bool computeIntensive = false;  ///< matmul/conv/attention family (never recomputed)
    bool fusible = false;           ///< recomputable or random: Inductor can fuse it
    bool cat = false;               ///< aten.cat: anything fuses into it as a consumer
    bool getitem = false;           ///< operator.getitem
};

/// `aten.add` for target `torch.ops.aten.add.Tensor`; `prims.convert_element_type` for a prims
/// overload; the target itself otherwise (`operator.getitem`). PyTorch's `get_aten_target`.
std::string opPacket(const Node& n);

/// Classifies a node's op (placeholders and outputs classify as nothing): its registry entry's
/// OpInfo::opClass, or PyTorch's lists by packet for ops outside the registry (`operator.add`).
OpClass classifyOp(const Node& n);

/// PyTorch's class of an op packet ("aten.add"), or null when its lists do not name it.
const OpClass* opClassOfPacket(std::string_view packet);
/// The packet of an op name: "aten.add" for "aten.add.Tensor", "prims.convert_element_type" for
/// its overload, the name itself otherwise ("operator.getitem").
std::string packetOf(std::string_view name);
/// Attaches to each of r's entries the class of its packet (OpInfo::opClass), at assembly.
/// PyTorch's lists, copied whole, also name packets fxray does not register (`aten.lgamma`,
/// `prims.iota`, `operator.add`): those attach to nothing and are no error.
void attachOpClasses(OpRegistry& r);
/// "view", "recomputable", "random", "compute-intensive", "cat", "getitem" (joined by '+' where
/// several apply; a view is recomputable without saying so); "" for none.
std::string opClassName(const OpClass& c);

/// The op draws random numbers (`torch.Tag.nondeterministic_seeded`): never CSE'd, never
/// dead-code eliminated (FX treats it as impure), and recomputing it changes results.
bool isNondeterministicSeeded(const Node& n);

/// FX's `Node.is_impure()`: placeholders, outputs, ops with a mutable schema (`add_`, `copy_`)
/// and random ops survive dead-code elimination.
bool isImpure(const Node& n);

/// The node's value is a SymInt/SymFloat/SymBool (annotated `Sym(...)`).
bool isSymNode(const Node& n);

/// Bytes of the node's value as PyTorch's `_size_of` counts them: numel * itemsize of a tensor,
/// the sum over the tensors of a tuple, 1 for a symbolic scalar. Symbolic sizes without a hint
/// count 4096 elements (PyTorch's fallback).
int64_t sizeOfNode(const Node& n);

/// Floating-point operations of one node, as `torch.utils.flop_counter` counts them (mm, addmm,
/// bmm, baddbmm, convolution, convolution_backward, the attention kernels); 0 for other ops.
/// The memory-budget knapsack uses max(flops, 1) as the node's runtime.
double estimateFlops(const Node& n);

}  // namespace fxray::partition
