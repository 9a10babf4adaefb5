#pragma once
/// The CPU backend's part of the op table: which ops it runs as generated code (a lowering rule),
/// which as a hand-written extern kernel (extern_*.cpp), and which fall back to the reference
/// kernel. The registry assembly (registry/assemble.cpp) attaches it to each entry (OpInfo::cpu).
#include "ir/op_registry.h"
#include "support/diagnostic.h"

#include <string>
#include <string_view>
#include <vector>

namespace fxray::cg::cpu {

/// Extern kernel names (codegen's OpaqueCall::fn, codegen/lowering.cpp's table) this backend
/// implements: the names in its dispatch table (extern_table.h) but those attached by qualname.
const std::vector<std::string_view>& cpuExternKernels();

/// One op the lowering leaves a fallback, which this backend takes over with an extern kernel of
/// its own, attached by qualname: the random ops (extern_random.cpp, drawing from fxray's
/// generator) and the ops whose output sizes their input values give (_unique, repeat_interleave;
/// extern_fallback_ops.cpp). The CUDA backend's fallbackExterns are the same idea.
struct QualnameExtern {
    std::string_view qualname;  ///< "aten.randperm.default"
    std::string_view kernel;    ///< "randperm"
};
/// Every extern attached by qualname.
const std::vector<QualnameExtern>& qualnameExterns();

/// The kernel name of `qualname`'s extern attached by qualname ("aten.randperm.default" ->
/// "randperm"), or null.
const char* qualnameExternFor(const std::string& qualname);

/// Sets OpInfo::cpu on every entry of r: Lowered where codegen attached a lowering rule, Extern
/// where the op's extern kernel is one of `kernels` or it is one of `byQualname`. An error names the
/// table and the entry that r or codegen's extern table lacks. Run after codegen's attachLowerings.
Status attachCpuKernels(OpRegistry& r, const std::vector<std::string_view>& kernels,
                        const std::vector<QualnameExtern>& byQualname);

}  // namespace fxray::cg::cpu
