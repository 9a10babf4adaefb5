#include "codegen/cpu/cpu_ops.h"

#include "codegen/cpu/extern_table.h"
#include "codegen/lowering.h"

namespace fxray::cg::cpu {

const std::vector<std::string_view>& cpuExternKernels() {
    // The names CompiledGraph::run dispatches, read off its table (extern_table.h); the random
    // and data-sized kernels are attached by qualname instead (qualnameExterns()).
    static const std::vector<std::string_view> k = [] {
        std::vector<std::string_view> names;
        for (const auto* part : namedExternParts())
            for (const CpuExtern& x : *part) names.push_back(x.name);
        return names;
    }();
    return k;
}

const std::vector<QualnameExtern>& qualnameExterns() {
    static const std::vector<QualnameExtern> t = {
        {"aten.randperm.default", "randperm"},
        {"aten.native_dropout.default", "native_dropout"},
        {"aten.rand.default", "rand"},
        {"aten.rand_like.default", "rand"},
        {"aten.randn.default", "randn"},
        {"aten.randn_like.default", "randn"},
        {"prims.inductor_seeds.default", "inductor_seeds"},
        {"prims.inductor_random.default", "inductor_random"},
        {"aten._unique.default", "unique"},
        {"aten._unique2.default", "unique2"},
        {"aten.unique_consecutive.default", "unique_consecutive"},
        {"aten.repeat_interleave.Tensor", "repeat_interleave"},
        {"aten.nonzero.default", "nonzero"},
        {"aten.bincount.default", "bincount"},
    };
    return t;
}

const char* qualnameExternFor(const std::string& qualname) {
    for (const auto& e : qualnameExterns())
        if (e.qualname == qualname) return e.kernel.data();
    return nullptr;
}

Status attachCpuKernels(OpRegistry& r, const std::vector<std::string_view>& kernels,
                        const std::vector<QualnameExtern>& byQualname) {
    const auto& codegenExterns = externKernelNames();
    for (std::string_view k : kernels) {
        bool known = false;
        for (const auto& [op, name] : codegenExterns) known = known || name == k;
        if (!known)
            return makeError("the CPU backend's extern kernels (codegen/cpu/cpu_ops.cpp) name '" + std::string(k) +
                             "', which codegen's extern kernel table (codegen/lowering.cpp) lacks");
    }
    for (const auto& up : r.all()) {
        OpInfo& op = *up;
        // An op with neither a rule nor an extern of its own takes its functional form's.
        const OpInfo* path = op.lowering || !op.externKernel.empty() ? &op : borrowedOpOf(r, op.qualname);
        if (!path) continue;
        if (path->lowering) {
            op.cpu = BackendPath::Lowered;
        } else if (!path->externKernel.empty()) {
            for (std::string_view k : kernels)
                if (k == path->externKernel) op.cpu = BackendPath::Extern;
        }
    }
    for (const auto& re : byQualname) {
        auto e = r.entryFor("the CPU backend's externs attached by qualname (codegen/cpu/cpu_ops.cpp)", re.qualname);
        if (!e.ok()) return e.error();
        (*e)->cpu = BackendPath::Extern;
    }
    return Status::success();
}

}  // namespace fxray::cg::cpu
