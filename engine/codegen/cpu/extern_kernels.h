#pragma once
/// Extern kernels of the CPU backend: GEMMs (mm, addmm, bmm, baddbmm, addbmm; sgemm, which the
/// convolutions of extern_conv.cpp use too)
/// and cat (their table: extern_table.h gemmExterns()). They take the bound arguments of the node
/// (runtime tensors, honouring strides) and write into a preallocated output.
#include "ir/op_registry.h"
#include "support/diagnostic.h"

#include <string>

namespace fxray::cg::cpu {

/// Which GEMM implementation is linked: "openblas" or "blocked".
const char* gemmImplementation();

/// C[M,N] = alpha * A[M,K] @ B[K,N] + beta * C, fp32, row/column strides in elements (one of
/// each operand's strides must be 1 or the operand is copied first). C is row-major with ldc.
void sgemm(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t ars, int64_t acs, const float* B,
           int64_t brs, int64_t bcs, float beta, float* C, int64_t ldc);
/// The built-in blocked kernel, exposed for the benchmark that chose between the two.
void sgemmBlocked(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t ars, int64_t acs,
                  const float* B, int64_t brs, int64_t bcs, float beta, float* C, int64_t ldc);

}  // namespace fxray::cg::cpu
