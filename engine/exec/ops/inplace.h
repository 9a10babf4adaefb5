#pragma once
/// The in-place ops of inplace.cpp's table and the functional op each one runs.
#include <string>
#include <string_view>

namespace fxray {

/// The functional op ("aten.pow.Tensor_Scalar") whose result the in-place op `qualname`
/// ("aten.pow_.Scalar") writes into self; empty when `qualname` is not in the table.
std::string inplaceFunctionalOp(std::string_view qualname);

}  // namespace fxray
