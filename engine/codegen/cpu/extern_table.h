#pragma once
/// The CPU backend's extern kernels as one table: CompiledGraph::run dispatches an opaque call
/// through it by the lowering's kernel name (OpaqueCall::fn), and `fxray ops` reports from it
/// which ops run as extern kernels (cpu_ops.cpp). Each extern_*.cpp contributes its part; a
/// kernel added to a part is dispatched and reported with no other list to keep in step.
#include "exec/exec_context.h"
#include "ir/op_registry.h"

#include <string_view>
#include <vector>

namespace fxray::cg::cpu {

/// Runs one extern kernel on the node's bound arguments into the preallocated outputs
/// (`outs[i]` for output i, nullptr where the op returns None or it is not needed). Returns
/// false, with outputs untouched and no random draw made, for an instance it does not handle (an
/// unusual dtype, a transposed convolution): the reference kernel then runs it, a reported
/// fallback.
using CpuExternFn = bool (*)(const OpArgs& args, const std::vector<Tensor*>& outs, ExecContext& ctx);

struct CpuExtern {
    std::string_view name;  ///< the lowering's extern kernel name ("mm", "conv_backward", ...)
    CpuExternFn run;
};

/// GEMMs (mm, bmm, addmm, baddbmm, addbmm, linear, matmul), cat and _chunk_cat (extern_kernels.cpp).
const std::vector<CpuExtern>& gemmExterns();
/// Convolution and its backward, 1 to 3 spatial dims, plain and transposed, and the Dynamo-stage
/// conv1d/conv2d/conv3d (extern_conv.cpp).
const std::vector<CpuExtern>& convExterns();
/// Scatters, pooling with indices, training batch norm and its backward (extern_train.cpp).
const std::vector<CpuExtern>& trainExterns();
/// Fused attention and its backward (extern_attention.cpp).
const std::vector<CpuExtern>& attentionExterns();
/// Ops TorchInductor runs as fallback kernels rather than lowering (sort, adaptive max pooling,
/// segment_reduce and their backwards) and data-dependent writes (put, masked index_put with
/// accumulation); extern_fallback_ops.cpp.
const std::vector<CpuExtern>& fallbackOpExterns();
/// Linear algebra Inductor leaves to LAPACK (triangular_solve, _linalg_slogdet,
/// linalg_matrix_exp, _linalg_svd, linalg_pinv, linalg_lu_solve; extern_linalg.cpp).
const std::vector<CpuExtern>& linalgExterns();
/// Elementwise ops whose scalar function loops to a data-dependent count: gcd, lcm, igamma,
/// igammac; _to_copy into a complex dtype (extern_pointwise.cpp).
const std::vector<CpuExtern>& pointwiseExterns();
/// Embedding bags and their backwards (extern_embedding_bag.cpp).
const std::vector<CpuExtern>& embeddingBagExterns();
/// Loss, distance and norm backwards and _efficientzerotensor (extern_backward_ops.cpp).
const std::vector<CpuExtern>& backwardOpExterns();
/// grid_sampler_3d and the grid samplers' backwards (extern_grid_sample.cpp).
const std::vector<CpuExtern>& gridSampleExterns();
/// Antialiased bilinear resampling and its backward (extern_upsample_aa.cpp).
const std::vector<CpuExtern>& upsampleAaExterns();
/// Random ops drawing from fxray's generator (extern_random.cpp); attached to their ops by
/// qualname (cpu_ops.h qualnameExterns()), not through codegen's extern names.
const std::vector<CpuExtern>& randomExternKernels();
/// Ops whose output sizes their input values give (_unique, _unique2, unique_consecutive,
/// repeat_interleave.Tensor, nonzero, bincount; extern_fallback_ops.cpp), attached by qualname as
/// the random ones.
const std::vector<CpuExtern>& dataSizedExternKernels();

/// Table adapters for the parts: a kernel with one output takes it as `Tensor&` (declining when
/// it is not wanted); one with several takes the output list as it is.
template <bool (*F)(const OpArgs&, Tensor&)>
bool single(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    return !outs.empty() && outs[0] && F(a, *outs[0]);
}
template <bool (*F)(const OpArgs&, const std::vector<Tensor*>&)>
bool multi(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    return F(a, outs);
}

/// Every part above dispatched by codegen's extern kernel names (all but the random and
/// data-sized kernels, attached by qualname): one list, so that a new part is both dispatched and attached.
const std::vector<const std::vector<CpuExtern>*>& namedExternParts();

/// The kernel named `name` in any part, or null.
const CpuExtern* findCpuExtern(std::string_view name);

}  // namespace fxray::cg::cpu
