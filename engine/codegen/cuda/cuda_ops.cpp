#include "codegen/cuda/cuda_ops.h"

#include "codegen/lowering.h"

namespace fxray::cg::cuda {

const std::vector<std::string_view>& deviceExternKernels() {
    // The names Executor::deviceExtern handles: a branch added there belongs here too, or
    // `fxray ops` reports its op as a host fallback.
    static const std::vector<std::string_view> k = {
        "cat", "mm", "bmm", "addmm", "conv", "conv_backward", "batch_norm_train", "batch_norm_backward",
        "max_pool2d", "max_pool2d_backward", "embedding_backward", "index_add",
        "sdpa_efficient", "sdpa_efficient_backward", "sdpa",
    };
    return k;
}

Status attachCudaKernels(OpRegistry& r, const std::vector<std::string_view>& kernels) {
    const auto& codegenExterns = externKernelNames();
    for (std::string_view k : kernels) {
        bool known = false;
        for (const auto& [op, name] : codegenExterns) known = known || name == k;
        if (!known)
            return makeError("the CUDA backend's device kernels (codegen/cuda/cuda_ops.cpp) name '" + std::string(k) +
                             "', which codegen's extern kernel table (codegen/lowering.cpp) lacks");
    }
    for (const auto& up : r.all()) {
        OpInfo& op = *up;
        if (op.lowering) {
            op.cuda = BackendPath::Lowered;
        } else if (!op.externKernel.empty()) {
            for (std::string_view k : kernels)
                if (k == op.externKernel) op.cuda = BackendPath::Extern;
        }
    }
    return Status::success();
}

} // namespace fxray::cg::cuda
