#pragma once
/// Subgraph ops (`higher_order.cond`, checkpoint, wrap) as the backends compile them: each
/// subgraph compiled ahead by the backend itself, for the operand metadata the lowering inferred,
/// and the one the op runs picked at run time (cond: by its predicate).
#include "codegen/lowering.h"

#include <optional>
#include <string>
#include <vector>

namespace fxray::cg {

struct SubgraphCall {
    bool isCond = false;
    /// cond: the true and the false branch; checkpoint/wrap: the body.
    std::vector<const Graph*> graphs;
    /// The predicate (cond only).
    const Argument* predicate = nullptr;
    std::vector<const Argument*> operands;
    /// Per operand: a tensor's metadata (at offset 0: subgraph inputs are relaid there), else its value.
    std::vector<Value> operandMetas;
};

/// The subgraphs and operands of call's node in lg; nullopt for another op, an unusual form
/// (cond(pred, true, false, operands), checkpoint/wrap(body, *operands)) or an operand that is
/// not a tensor or scalar known to the lowering.
std::optional<SubgraphCall> subgraphCall(const OpaqueCall& call, const Graph& g, const LoweredGraph& lg);

/// "the true branch", "the false branch" or "the body": how errors name subgraph i.
std::string subgraphRole(bool isCond, size_t i);

}  // namespace fxray::cg
