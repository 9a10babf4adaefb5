#include "registry/assemble.h"

#include "exec/ops/register.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace fxray {

Status assembleOpRegistry(OpRegistry& r) {
    registerAllOps(r);
    return Status::success();
}

void initOpRegistry() {
    // A function-local static: C++ runs the initializer once, and other threads calling in
    // meanwhile wait for it.
    static const bool assembled = [] {
        if (OpRegistry::installed()) return true;
        auto r = std::make_unique<OpRegistry>();
        if (Status s = assembleOpRegistry(*r); !s.ok()) {
            std::fprintf(stderr, "fxray: internal error assembling the op registry: %s\n", s.error().str().c_str());
            std::abort();
        }
        OpRegistry::install(std::move(r));
        return true;
    }();
    (void)assembled;
}

} // namespace fxray
