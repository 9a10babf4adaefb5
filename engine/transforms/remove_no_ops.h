#pragma once
/// PyTorch's joint_graph.remove_no_ops, which constant_fold_uniform_value calls: arithmetic with
/// an identity operand (x + 0, x - 0, x * 1, x / 1, where 0 and 1 may be literals or uniform
/// `full` nodes found by constant folding) is replaced by the other operand.
#include "rewrite/rewriter.h"

#include <unordered_set>

namespace fxray {

/// Runs the rules over g. `zeros` / `ones` are nodes known to hold only 0 / only 1. Returns the
/// number of nodes removed. Records matches under the rule names ("add_zero", "mul_one", ...).
size_t removeNoOps(Rewriter& rw, const std::unordered_set<const Node*>& zeros,
                   const std::unordered_set<const Node*>& ones);

}  // namespace fxray
