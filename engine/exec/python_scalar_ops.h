#pragma once
/// The Python-level calls on SymInts/SymFloats/SymBools that dynamic-shape graphs make between
/// ATen ops: `operator.mul(s23, s27)`, `operator.floordiv`, comparisons, `torch.sym_float`,
/// `torch.sym_max`, `math.floor`, ... PyTorch runs them as plain Python arithmetic on the
/// symbols' values; so does fxray, with the rules of ir/sym_expr.h.
#include "ir/value.h"
#include "support/diagnostic.h"

#include <optional>
#include <string_view>
#include <vector>

namespace fxray {

/// The call's result when `target` is such a function and every argument is a Python number;
/// nullopt otherwise (a tensor operand: not a scalar call).
std::optional<Expected<Value>> callPythonScalarOp(std::string_view target, const std::vector<Value>& args);
/// `target` is one of the scalar functions above.
bool isPythonScalarOp(std::string_view target);

}  // namespace fxray
