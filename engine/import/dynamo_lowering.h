#pragma once
/// Lowering of torch-level Dynamo graphs (`torch._C._nn.linear`, `x.view(...)`, `a + b`,
/// `x[:, 0]`, ...) to ATen call_function nodes (`torch.ops.aten.linear.default`, ...), so that
/// they can be resolved against the op registry, shape-inferred and executed. The result is the
/// graph torch.export records for the same model (same ops, same constant arguments).
///
/// The choices follow PyTorch's own mapping where it matters for values: `F.batch_norm`'s
/// argument order becomes ATen's, `1.0 - x` becomes `aten.rsub.Scalar(x, 1.0)`, `2 / x` becomes
/// `reciprocal(x) * 2` (Tensor.__rtruediv__), `torch.tensor(literal)` becomes a lifted constant
/// (`_tensor_constantN` get_attr + `aten.lift_fresh_copy`), indexing becomes
/// unsqueeze/select/slice/index as `Tensor.__getitem__` does, and `x.to(dtype)` on a tensor that
/// already has that dtype, like `x.contiguous()` on a contiguous one, disappears (they return
/// self in PyTorch).
#include "ir/graph.h"
#include "support/diagnostic.h"

namespace fxray {

/// Rewrites every torch-level node of g (and of its subgraphs) into ATen nodes in place.
///
/// The node that produces a torch call's value keeps the original node's name, annotation and
/// provenance comment; extra nodes get FX-style unique names (`unsqueeze_1`). `x.size()`,
/// `x.shape[i]` and arithmetic on them fold into the users' arguments. Side-effect calls
/// (`torch._C._set_grad_enabled`, `torch._assert`) are dropped.
///
/// Lowering is atomic per node: a node that cannot be lowered (unsupported target or
/// arguments) is left as it was and the returned Diagnostic names the first such node and its
/// target; all other nodes are still lowered and the graph always passes verify().
/// Metadata (`meta`) of the nodes is read as it stands (annotations, or an earlier inferMeta);
/// run resolveOps() and inferMeta() on the result.
Status lowerToAten(Graph& g);

/// True when g (or a subgraph) has nodes that lowerToAten would rewrite: call_method nodes,
/// or call_function nodes other than `torch.ops.*` ops and list indexing.
bool isTorchLevel(const Graph& g);

}  // namespace fxray
