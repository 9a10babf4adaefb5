#include "ir/value.h"

namespace fxray {

std::string Value::describe() const {
    switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return std::string("bool ") + (b ? "True" : "False");
    case Kind::Int: return "int " + std::to_string(i);
    case Kind::Double: return "float " + pyFloatRepr(d);
    case Kind::String: return "str " + pyStringRepr(s);
    case Kind::Tensor: return "Tensor " + t.meta.annotation(false, false);
    case Kind::List: return std::string(isTuple ? "tuple" : "list") + " of " + std::to_string(list.size());
    case Kind::DType: return std::string(dtypeTorchName(dtype));
    case Kind::Device: return device.repr();
    case Kind::Layout: return std::string(layoutTorchName(layout));
    case Kind::MemoryFormat: return std::string(memoryFormatTorchName(memoryFormat));
    case Kind::Slice: return "slice";
    case Kind::Graph: return "graph";
    case Kind::Ellipsis: return "Ellipsis";
    }
    return "?";
}

}  // namespace fxray
