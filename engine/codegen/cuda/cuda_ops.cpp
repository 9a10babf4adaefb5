#include "codegen/cuda/cuda_ops.h"

#include "codegen/cuda/device_externs.h"
#include "codegen/lowering.h"

namespace fxray::cg::cuda {

namespace {

struct FallbackExtern {
    std::string_view qualname, kernel;
};

const std::vector<FallbackExtern>& fallbackExterns() {
    static const std::vector<FallbackExtern> t = {
        {"aten.rand.default", "rand"},
        {"aten.rand_like.default", "rand"},
        {"aten.randn.default", "randn"},
        {"aten.randn_like.default", "randn"},
        {"prims.inductor_seeds.default", "inductor_seeds"},
        {"prims.inductor_random.default", "inductor_random"},
        {"aten.native_dropout.default", "native_dropout"},
        {"aten.randperm.default", "randperm"},
        {"aten._unique.default", "unique"},
        {"aten._unique2.default", "unique2"},
        {"aten.unique_consecutive.default", "unique_consecutive"},
        {"aten.repeat_interleave.Tensor", "repeat_interleave"},
    };
    return t;
}

}  // namespace

const char* fallbackDeviceExternFor(std::string_view qualname) {
    for (const auto& re : fallbackExterns())
        if (re.qualname == qualname) return re.kernel.data();
    return nullptr;
}

const std::vector<std::string_view>& deviceExternKernels() {
    // The names the executor dispatches, read off its table (device_externs.h).
    static const std::vector<std::string_view> k = [] {
        std::vector<std::string_view> names;
        for (const DeviceExtern& x : deviceExternTable()) names.push_back(x.name);
        return names;
    }();
    return k;
}

Status attachCudaKernels(OpRegistry& r, const std::vector<std::string_view>& kernels) {
    const auto& codegenExterns = externKernelNames();
    for (std::string_view k : kernels) {
        bool known = false;
        for (const auto& [op, name] : codegenExterns) known = known || name == k;
        for (const auto& re : fallbackExterns()) known = known || re.kernel == k;
        if (!known)
            return makeError("the CUDA backend's device kernels (codegen/cuda/cuda_ops.cpp) name '" + std::string(k) +
                             "', which codegen's extern kernel table (codegen/lowering.cpp) lacks");
    }
    for (const auto& up : r.all()) {
        OpInfo& op = *up;
        // An op with neither a rule nor an extern of its own takes its functional form's.
        const OpInfo* path = op.lowering || !op.externKernel.empty() ? &op : borrowedOpOf(r, op.qualname);
        if (!path) continue;
        if (path->lowering) {
            op.cuda = BackendPath::Lowered;
        } else if (!path->externKernel.empty()) {
            for (std::string_view k : kernels)
                if (k == path->externKernel) op.cuda = BackendPath::Extern;
        }
    }
    for (const auto& re : fallbackExterns()) {
        auto e = r.entryFor("the CUDA backend's random device kernels (codegen/cuda/cuda_ops.cpp)",
                            std::string(re.qualname));
        if (!e.ok()) return e.error();
        (*e)->cuda = BackendPath::Extern;
    }
    return Status::success();
}

}  // namespace fxray::cg::cuda
