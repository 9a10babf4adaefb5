#include "registry/coverage.h"

#include "exec/complex_to_real.h"
#include "partition/op_classes.h"

#include <algorithm>

namespace fxray {

namespace {

std::string pathName(BackendPath p, const char* fallback) {
    switch (p) {
    case BackendPath::Lowered: return "lowered";
    case BackendPath::Extern: return "extern";
    case BackendPath::Reference: break;
    }
    return fallback;
}

}  // namespace

bool coverageHasCpuBackend() {
#ifdef FXRAY_HAVE_CPU_BACKEND
    return true;
#else
    return false;
#endif
}

std::vector<OpCoverage> opCoverage(const OpRegistry& r) {
    std::vector<OpCoverage> rows;
    rows.reserve(r.all().size());
    for (const auto& up : r.all()) {
        const OpInfo& op = *up;
        OpCoverage c;
        c.qualname = op.qualname;
        c.category = std::string(opCategoryName(op.category));
        c.ref = op.meta && op.kernel;
        c.cpu = coverageHasCpuBackend() ? pathName(op.cpu, "reference") : "n/a";
        c.cuda = pathName(op.cuda, "host");
        if (isComplexOnlyOp(op.qualname)) {
            // Complex graphs run as real ones on every backend: these ops never reach a lowering.
            if (coverageHasCpuBackend()) c.cpu = "rewritten";
            c.cuda = "rewritten";
        }
        c.vjp = op.vjp ? "rule" : op.nonDifferentiable ? "non-diff" : "none";
        c.partition = op.opClass ? partition::opClassName(*op.opClass) : std::string();
        rows.push_back(std::move(c));
    }
    std::sort(rows.begin(), rows.end(),
              [](const OpCoverage& a, const OpCoverage& b) { return a.qualname < b.qualname; });
    return rows;
}

}  // namespace fxray
