#include "cli/common.h"

namespace fxray::cli {

int reportError(std::ostream& err, const Diagnostic& d) {
    err << "fxray: " << d.str() << "\n";
    return 2;
}

std::map<std::string, int> opHistogram(const Graph& g) {
    std::map<std::string, int> h;
    for (const auto& n : g.nodes()) {
        switch (n->kind()) {
        case NodeKind::CallFunction: ++h[n->opName()]; break;
        case NodeKind::CallMethod: ++h["method." + n->target()]; break;
        case NodeKind::CallModule: ++h["module." + n->target()]; break;
        default: break;
        }
    }
    for (const auto& [k, sub] : g.subgraphs())
        for (const auto& [op, c] : opHistogram(*sub)) h[op] += c;
    return h;
}

} // namespace fxray::cli
