#include "support/diagnostic.h"

namespace fxray {

std::string Diagnostic::str() const {
    std::string out;
    if (!file.empty()) {
        out += file;
        if (line > 0) {
            out += ":" + std::to_string(line);
            if (column > 0) out += ":" + std::to_string(column);
        }
        out += ": ";
    }
    if (!node.empty()) out += "node '" + node + "': ";
    out += message;
    return out;
}

Diagnostic makeError(std::string message) {
    Diagnostic d;
    d.message = std::move(message);
    return d;
}

}  // namespace fxray
