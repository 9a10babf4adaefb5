#pragma once
/// The coverage matrix of the op table (`fxray ops`): for each registered op, what runs it on each
/// backend and what the other layers know about it, as the assembled entries say.
#include "ir/op_registry.h"

#include <string>
#include <vector>

namespace fxray {

/// One op's row.
struct OpCoverage {
    std::string qualname;   ///< "aten.mm.default"
    std::string category;   ///< opCategoryName(): "pointwise", "extern", ...
    bool ref = false;       ///< a meta function and a reference kernel
    /// "lowered" | "extern" | "reference" (fallback) | "n/a" (not built) | "rewritten" (a complex-only
    /// op that exec/complex_to_real.h turns into real ops before lowering)
    std::string cpu;
    std::string cuda;  ///< "lowered" | "extern" (device kernel) | "host" (fallback) | "rewritten"
    std::string vjp;        ///< "rule" | "non-diff" | "none"
    std::string partition;  ///< PyTorch's partitioner class of its packet ("recomputable", "view", ...), "" none
};

/// The rows of every op in r, sorted by qualname.
std::vector<OpCoverage> opCoverage(const OpRegistry& r);

/// Whether this build has the CPU backend (otherwise every cpu cell is "n/a").
bool coverageHasCpuBackend();

}  // namespace fxray
