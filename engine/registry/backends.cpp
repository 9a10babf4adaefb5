#include "registry/backends.h"

#include "codegen/backend.h"
#include "codegen/cuda/backend_cuda.h"
#ifdef FXRAY_HAVE_CPU_BACKEND
#include "codegen/cpu/backend_cpu.h"
#endif

namespace fxray {

void registerBuiltinBackends() {
    auto ref = []() -> Expected<std::unique_ptr<Backend>> { return makeReferenceBackend(false); };
    registerBackend("ref", ref);
    registerBackend("ref32", ref);  // the minifier's accuracy:ref64-vs-ref32 names it so
    registerBackend("ref64", []() -> Expected<std::unique_ptr<Backend>> { return makeReferenceBackend(true); });
#ifdef FXRAY_HAVE_CPU_BACKEND
    registerBackend("cpu", []() -> Expected<std::unique_ptr<Backend>> { return cg::cpu::makeCpuBackend(); });
#endif
    registerBackend("cuda", [] { return cg::cuda::makeCudaBackend(); });
}

}  // namespace fxray
