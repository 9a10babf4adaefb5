#pragma once
/// Relating a torch.export graph's inputs to the Dynamo graph of the same model, so that a joint
/// graph built from the export graph has PyTorch's primal order and its lifted constants' values.
///
/// torch.export orders inputs parameters, buffers, constants, then user inputs (`p_m_wte_weight`,
/// `b_bn1_running_mean`, `c_m_lifted_tensor_0`, `ids`); Dynamo — and with it AOT autograd's
/// `primals` — orders them by first use (`L_ids_`, `L_s_modules_m_modules_wte_parameters_weight_`).
#include "ir/graph.h"
#include "support/diagnostic.h"

#include <map>
#include <string>
#include <vector>

namespace fxray {

/// The export graph's non-constant placeholder names in the Dynamo graph's placeholder order.
/// Parameters and buffers match by module path (case-insensitively, as export lower-cases),
/// user inputs by name, `L_args_N_` by position. Fails naming the first input that matches none.
Expected<std::vector<std::string>> primalOrderFromDynamo(const Graph& exportGraph, const Graph& dynamoGraph);

/// Values of the export graph's lifted constants (`c_*` placeholders), read from the Dynamo
/// graph's `torch.tensor(<literal>)` calls matched in order by dtype and shape. Literals are read
/// as data, never evaluated. Constants without a match are left out.
std::map<std::string, Tensor> exportConstantsFromDynamo(const Graph& exportGraph, const Graph& dynamoGraph);

}  // namespace fxray
