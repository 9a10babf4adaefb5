#pragma once
/// The CPU backend's part of the op table: which ops it runs as generated code (a lowering rule),
/// which as a hand-written extern kernel (extern_*.cpp), and which fall back to the reference
/// kernel. The registry assembly (registry/assemble.cpp) attaches it to each entry (OpInfo::cpu).
#include "ir/op_registry.h"
#include "support/diagnostic.h"

#include <string_view>
#include <vector>

namespace fxray::cg::cpu {

/// Extern kernel names (codegen's OpaqueCall::fn, codegen/lowering.cpp's table) this backend
/// implements: the names in its dispatch table (extern_table.h) but the random ones.
const std::vector<std::string_view>& cpuExternKernels();

/// One random op the backend runs as an extern kernel of its own (extern_random.cpp), drawing
/// from fxray's generator; the lowering leaves it a fallback, which this backend takes over.
struct RandomExtern {
    std::string_view qualname;  ///< "aten.randperm.default"
    std::string_view kernel;    ///< "randperm"
};
/// Every random extern (extern_random.cpp).
const std::vector<RandomExtern>& randomExterns();

/// Sets OpInfo::cpu on every entry of r: Lowered where codegen attached a lowering rule, Extern
/// where the op's extern kernel is one of `kernels` or it is one of `random`. An error names the
/// table and the entry that r or codegen's extern table lacks. Run after codegen's attachLowerings.
Status attachCpuKernels(OpRegistry& r, const std::vector<std::string_view>& kernels,
                        const std::vector<RandomExtern>& random);

}  // namespace fxray::cg::cpu
