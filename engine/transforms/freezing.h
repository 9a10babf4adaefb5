#pragma once
/// Freezing (PyTorch's `freeze` / `freezing_passes`, torch/_inductor/freezing.py): an inference
/// graph whose parameters and buffers will not change has them inlined as constants, so that
/// constant folding, binary folding, batch-norm folding and the weight-concatenation patterns
/// can precompute what depends on weights only.
///
/// The graph itself does not say which placeholders are parameters, nor their values: PyTorch
/// knows them from the tracing context. fxray takes them from the caller (FreezeInputs), for
/// the corpus layout from the Dynamo graph of the same run, whose placeholder names say which
/// inputs are parameters (`..._parameters_...`, `..._buffers_...`) in the AOT graph's order.
#include "exec/exec_context.h"
#include "ir/graph.h"
#include "ir/value.h"
#include "support/diagnostic.h"

#include <map>
#include <string>
#include <vector>

namespace fxray {

class Rewriter;
class PassContext;

/// What the `freeze` pass inlines: placeholder name -> the parameter's value.
struct FreezeInputs {
    std::map<std::string, Tensor> params;
};

/// Which placeholders of `aot` are parameters or buffers, by the names of `dynamo`'s
/// placeholders in the same positions. Fails when the placeholder counts differ.
Expected<std::vector<bool>> parameterPlaceholders(const Graph& aot, const Graph& dynamo);

/// FreezeInputs for `aot` from its input values (one per placeholder) and which are parameters.
Expected<FreezeInputs> freezeInputsFromValues(const Graph& aot, const std::vector<bool>& isParam,
                                              const std::vector<Value>& values);

/// PyTorch's constant_fold (ConstantFolder with skip_constructors=True) on g: every node whose
/// inputs are all constants (get_attr values) is evaluated with the reference kernels; nodes
/// whose value some non-folded node needs become get_attr `_frozen_paramN` constants, unused
/// get_attrs and dead nodes are removed. Returns the number of nodes replaced by constants.
size_t foldConstants(Graph& g, Rewriter& rw, PassContext& ctx);

/// A fresh `_frozen_paramN` attribute name of g (the first N not used by g's constants).
std::string nextFrozenParamName(const Graph& g);

/// Adds `value` as a constant of g and a get_attr node reading it before `pos` (null: after the
/// placeholders), named `nameHint` made unique; records its creation with the rewriter's pass.
Node* addConstantNode(Graph& g, Rewriter& rw, Tensor value, std::string_view nameHint, Node* pos = nullptr);

/// The constant value behind n (a get_attr of g's constants), or null.
const Tensor* constantValue(const Node* n);

/// Runs one op on constant values with the reference kernels, as the folding passes precompute
/// weights: its tensor result, or why there is none.
Expected<Tensor> evalConstantOp(std::string_view op, std::vector<Value> args);

}  // namespace fxray
