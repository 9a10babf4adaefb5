#pragma once
/// The CUDA backend's part of the op table: which ops run on the device as generated kernels (a
/// lowering rule) or as hand-written device kernels (cuBLAS GEMMs, strided copies,
/// builtin_kernels.h), and which run on the host through the reference kernel. The registry
/// assembly (registry/assemble.cpp) attaches it to each entry (OpInfo::cuda).
#include "ir/op_registry.h"
#include "support/diagnostic.h"

#include <string_view>
#include <vector>

namespace fxray::cg::cuda {

/// Extern kernel names (codegen/lowering.cpp's table) the executor runs on the device
/// (device_externs.h deviceExternTable()); other extern calls run on the host.
const std::vector<std::string_view>& deviceExternKernels();

/// Ops without a lowering rule that the CUDA backend runs as device externs anyway (rand,
/// rand_like, native_dropout: the reference's stream, random_kernels.h): the kernel name for
/// `qualname` ("aten.rand.default"), or null. The backend turns their fallback calls into extern
/// calls.
const char* fallbackDeviceExternFor(std::string_view qualname);

/// Sets OpInfo::cuda on every entry of r: Lowered where codegen attached a lowering rule, Extern
/// where the op's extern kernel is one of `kernels` or it has no rule but a device extern above.
/// An error names a kernel that neither codegen's extern table nor the list above names. Run after codegen's
/// attachLowerings.
Status attachCudaKernels(OpRegistry& r, const std::vector<std::string_view>& kernels);

}  // namespace fxray::cg::cuda
