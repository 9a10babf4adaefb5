#pragma once
/// The *_copy variants of view ops (copy_variants.cpp) and the view op each one copies.
#include <string>
#include <string_view>

namespace fxray {

/// The view op ("aten.permute.default") whose result the copy variant `qualname`
/// ("aten.permute_copy.default") copies; empty when `qualname` is not a copy variant.
std::string copyVariantViewOp(std::string_view qualname);

}  // namespace fxray
