#pragma once
/// 2-D GEMMs through cuBLASLt, as PyTorch's eager mm and addmm run them on recent GPUs
/// (at::cuda::blas::gemm_and_bias; its backward profile on an H200 shows cuBLASLt's split-K
/// kernels): addmm with the bias in the GEMM's epilogue (C = A @ B + bias in one kernel instead of
/// a broadcast copy of the bias into C and a GEMM with beta = 1 that reads it back), mm with the
/// default epilogue and cuBLASLt's heuristic (which takes split-K for the skinny weight-gradient
/// GEMMs; the strided-batched API with one batch did not). On the realistic set the old path
/// measured 3-15% slower per addmm than eager's (issue 17: ViT-S/16, the 4096-wide MLPs).
///
/// libcublasLt is opened at run time next to cuBLAS; FXRAY_CUBLASLT=0 turns this path off (the
/// caller then takes cublasGemmStridedBatchedEx, also where this one declines). Only the bias
/// epilogue is used: cuBLASLt's GELU epilogue is the tanh approximation, not the exact erf GELU
/// that PyTorch's nn.GELU computes by default.
#include "codegen/cuda/device_ops.h"

namespace fxray::cg::cuda {

/// C = A @ B (+ bias) with A [M, K], B [K, N] (row- or column-major views), C [M, N] row-major,
/// the bias (when given) 1-D [N] or [1, N] with unit stride; f32/f16/bf16 of one dtype. Returns
/// false (nothing written) where it does not apply or cuBLASLt is unavailable or refuses.
Expected<bool> gemmLt(const DeviceView& A, const DeviceView& B, const DeviceView& C, const DeviceView* bias);

}  // namespace fxray::cg::cuda
