#pragma once
/// Special functions in double precision for the reference kernels, with PyTorch's values at
/// poles and outside the domain (NaN, +-inf). Accurate to a few ulp of double on the ranges the
/// ops meet, so results rounded to fp32 are the correctly rounded ones almost everywhere.
#include <cstdint>

namespace fxray::special {

/// psi(x), the logarithmic derivative of the gamma function. psi(+-0) = -+inf, NaN at negative
/// integers and -inf.
double digamma(double x);
/// psi'(x). +inf at 0 and the negative integers.
double trigamma(double x);
/// The Hurwitz zeta function zeta(s, q) = sum_k (q + k)^-s for s > 1 (NaN for s < 1, inf at
/// s = 1); for q <= 0 it is inf at integers q and needs an integral s otherwise.
double hurwitzZeta(double s, double q);
/// The n-th derivative of digamma (n >= 0): psi^(n)(x) = (-1)^(n+1) n! zeta(n+1, x) for n >= 1.
double polygamma(int64_t n, double x);
/// Modified Bessel function of the first kind, order 0 and order 1.
double besselI0(double x);
double besselI1(double x);
/// The inverse error function: erf(erfinv(y)) = y on [-1, 1], +-inf at +-1, NaN outside.
double erfinv(double y);

}  // namespace fxray::special
