#pragma once
/// A blocked double-precision matrix multiply shared by the linalg and conv kernels. Reference
/// kernels accumulate in double and round once to the output dtype, so this is the hot loop of
/// mm/bmm/addmm/matmul/linear and of convolution (im2col) forward and backward.
#include <cstdint>

namespace fxray::kern {

/// A matrix view over doubles: element (r, c) is at data[r * rs + c * cs]. Any strides work
/// (transposes are free): operands are packed before the inner loops.
struct MatView {
    const double* data = nullptr;
    int64_t rs = 0;
    int64_t cs = 1;
    double at(int64_t r, int64_t c) const { return data[r * rs + c * cs]; }
};

/// C = A·B (or C += A·B when accumulate) for A: M×K, B: K×N; C is row-major with row stride
/// ldc. The summation order of every element is fixed (k ascending within blocks of the
/// reduction), so results are deterministic whatever the thread split.
void gemm(int64_t M, int64_t N, int64_t K, MatView A, MatView B, double* C, int64_t ldc, bool accumulate = false);

}  // namespace fxray::kern
