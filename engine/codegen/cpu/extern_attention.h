#pragma once
/// Extern kernels of the CPU backend for fused attention: the ops that fuse_attention (sfdp)
/// puts into joint graphs — `_scaled_dot_product_efficient_attention` and its backward — and the
/// composite `scaled_dot_product_attention`. Inductor's CPU path runs such ops as a math
/// decomposition (two GEMMs around a softmax); here each (batch, head) runs as fp32 GEMMs
/// (extern_kernels.h's sgemm: OpenBLAS) around a row softmax, with the reference executor's
/// dropout mask (exec/ops/attention.h) so forward and backward agree with each other and with
/// the reference backend.
#include "exec/exec_context.h"
#include "ir/op_registry.h"

#include <string>
#include <vector>

namespace fxray::cg::cpu {

/// Runs extern kernel `fn` ("sdpa_efficient", "sdpa_efficient_backward", "sdpa") on `args` into
/// the preallocated `outs` (nullptr where an output is None). `ctx` draws the dropout seed.
/// Returns false (outputs untouched) for an instance it does not handle (a non-float dtype, a
/// bias that does not broadcast); the caller then uses the reference kernel.
bool runAttentionExtern(const std::string& fn, const OpArgs& args, const std::vector<Tensor*>& outs, ExecContext& ctx);

} // namespace fxray::cg::cpu
