#pragma once
/// Scalar math of the binary pointwise ops (binary.cpp) that C++ has no function for: integer
/// semantics of a given width (wraparound, shifts, gcd, integer powers), nextafter in half and
/// bfloat16, and the regularized incomplete gamma functions.
#include "ir/dtype.h"

#include <cstdint>

namespace fxray::kern {

/// The two's-complement value of `bits` truncated to integer dtype t (int8 ... int64, uint8).
int64_t wrapInt(uint64_t bits, DType t);

/// PyTorch's bitwise shifts on integer dtype t: a shift by a negative amount or by at least the
/// dtype's width gives 0 (left, and right of unsigned) or the sign fill (right of signed).
int64_t shiftInt(int64_t a, int64_t b, DType t, bool left);

/// Greatest common divisor of |a| and |b| (0 when both are 0).
int64_t gcdInt(int64_t a, int64_t b);

/// base ** exp in integer dtype t with wraparound; a negative exponent gives 1/base truncated
/// (0 unless base is 1 or -1).
int64_t intPow(int64_t base, int64_t exp, DType t);

/// The next value after x towards y that floating dtype t can hold.
double nextAfterIn(double x, double y, DType t);

/// Regularized lower incomplete gamma P(a, x) (torch.igamma), with PyTorch's edge values.
double igammaLower(double a, double x);
/// Regularized upper incomplete gamma Q(a, x) = 1 - P(a, x) (torch.igammac).
double igammaUpper(double a, double x);

}  // namespace fxray::kern
