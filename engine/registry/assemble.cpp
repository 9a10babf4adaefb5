#include "registry/assemble.h"

#include "registry/backends.h"

#include "autodiff/vjp.h"
#include "codegen/cuda/cuda_ops.h"
#include "codegen/lowering.h"
#include "exec/ops/register.h"
#include "partition/op_classes.h"
#ifdef FXRAY_HAVE_CPU_BACKEND
#include "codegen/cpu/cpu_ops.h"
#endif

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace fxray {

Status assembleOpRegistry(OpRegistry& r) {
    // The ops themselves first (exec: schema, meta function, reference kernel); each upper
    // layer then attaches its concern to the entries, and fails on a name the registry lacks.
    registerAllOps(r);
    if (Status s = attachAutodiff(r, vjpRuleTable(), nonDifferentiableOps()); !s.ok()) return s;
    partition::attachOpClasses(r);
    if (Status s = cg::attachLowerings(r, cg::loweringRuleTable(), cg::externKernelNames()); !s.ok()) return s;
#ifdef FXRAY_HAVE_CPU_BACKEND
    if (Status s = cg::cpu::attachCpuKernels(r, cg::cpu::cpuExternKernels(), cg::cpu::qualnameExterns()); !s.ok())
        return s;
#endif
    if (Status s = cg::cuda::attachCudaKernels(r, cg::cuda::deviceExternKernels()); !s.ok()) return s;
    return Status::success();
}

void initOpRegistry() {
    // A function-local static: C++ runs the initializer once, and other threads calling in
    // meanwhile wait for it.
    static const bool assembled = [] {
        if (!OpRegistry::installed()) {
            auto r = std::make_unique<OpRegistry>();
            if (Status s = assembleOpRegistry(*r); !s.ok()) {
                std::fprintf(stderr, "fxray: internal error assembling the op registry: %s\n", s.error().str().c_str());
                std::abort();
            }
            OpRegistry::install(std::move(r));
        }
        registerBuiltinBackends();
        return true;
    }();
    (void)assembled;
}

}  // namespace fxray
