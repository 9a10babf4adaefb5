// Special functions in double: recurrences to move the argument where an asymptotic expansion
// converges fast, reflection formulas for negative arguments, series for the Bessel functions,
// safeguarded Newton iteration for erfinv.
#include "exec/ops/special_functions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace fxray::special {

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = 1e-17;

/// Bernoulli numbers B_2, B_4, ..., B_24 (the Euler-Maclaurin correction coefficients).
constexpr double kBernoulli[] = {1.0 / 6,       -1.0 / 30,       1.0 / 42,       -1.0 / 30,
                                 5.0 / 66,      -691.0 / 2730,   7.0 / 6,        -3617.0 / 510,
                                 43867.0 / 798, -174611.0 / 330, 854513.0 / 138, -236364091.0 / 2730};

/// The fractional distance of x to its nearest integer, in [-0.5, 0.5]: sin(pi x) and
/// tan(pi x) are better computed from it than from pi * x when |x| > 1.
double reduceToHalf(double x) { return x - std::nearbyint(x); }

}  // namespace

double digamma(double x) {
    if (std::isnan(x)) return x;
    if (x == 0.0) return std::copysign(kInf, -x);
    if (x == kInf) return kInf;
    double result = 0.0;
    if (x < 0.0) {
        if (x == std::trunc(x)) return kNaN;  // poles, and -inf
        // Reflection: psi(x) = psi(1 - x) - pi / tan(pi x).
        result = -kPi / std::tan(kPi * reduceToHalf(x));
        x = 1.0 - x;
    }
    // psi(x) = psi(x + 1) - 1/x until the asymptotic series is accurate to double.
    while (x < 10.0) {
        result -= 1.0 / x;
        x += 1.0;
    }
    // psi(x) ~ ln x - 1/(2x) - sum_k B_2k / (2k x^2k)
    const double z = 1.0 / (x * x);
    const double series =
        z * (1.0 / 12 -
             z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
    return result + std::log(x) - 0.5 / x - series;
}

double trigamma(double x) {
    if (std::isnan(x) || x == -kInf) return kNaN;
    if (x == kInf) return 0.0;
    if (x <= 0.0 && x == std::trunc(x)) return kInf;
    double reflected = 0.0;
    bool reflect = false;
    if (x < 0.5) {
        // Reflection: psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x).
        const double s = std::sin(kPi * reduceToHalf(x));
        reflected = kPi * kPi / (s * s);
        reflect = true;
        x = 1.0 - x;
    }
    double result = 0.0;
    // psi'(x) = psi'(x + 1) + 1/x^2.
    while (x < 10.0) {
        result += 1.0 / (x * x);
        x += 1.0;
    }
    // psi'(x) ~ 1/x + 1/(2x^2) + sum_k B_2k / x^(2k+1)
    const double z = 1.0 / (x * x);
    const double series =
        z * (1.0 / 6 -
             z * (1.0 / 30 - z * (1.0 / 42 - z * (1.0 / 30 - z * (5.0 / 66 - z * (691.0 / 2730 - z * 7.0 / 6))))));
    result += (1.0 + 0.5 / x + series) / x;
    return reflect ? reflected - result : result;
}

double hurwitzZeta(double s, double q) {
    if (std::isnan(s) || std::isnan(q)) return kNaN;
    if (s == 1.0) return kInf;
    if (s < 1.0) return kNaN;
    if (q == kInf) return 0.0;
    if (q <= 0.0) {
        if (q == std::floor(q)) return kInf;  // poles, and -inf
        if (s != std::floor(s)) return kNaN;  // (q + k)^-s is not real
    }
    // Sum the first terms directly until q + N is large enough for the Euler-Maclaurin tail to
    // converge fast; stop early when the terms no longer change the sum.
    const double bound = std::max(10.0, s);
    double sum = 0.0;
    double a = q;
    while (a < bound) {
        const double term = std::pow(a, -s);
        sum += term;
        a += 1.0;
        if (std::fabs(term) < kEps * std::fabs(sum) && a > 0.0) return sum;
    }
    // Tail: sum_{k>=0} (a+k)^-s = a^(1-s)/(s-1) + a^-s/2 + sum_j B_2j/(2j)! (s)_(2j-1) a^(-s-2j+1)
    const double aPow = std::pow(a, -s);
    sum += a * aPow / (s - 1.0) + 0.5 * aPow;
    double rising = s;        // s (s+1) ... (s+2j-2)
    double power = aPow / a;  // a^(-s-2j+1)
    double factorial = 2.0;   // (2j)!
    for (int j = 1; j <= 12; ++j) {
        const double term = kBernoulli[j - 1] / factorial * rising * power;
        sum += term;
        if (std::fabs(term) < kEps * std::fabs(sum)) break;
        rising *= (s + 2.0 * j - 1.0) * (s + 2.0 * j);
        power /= a * a;
        factorial *= (2.0 * j + 1.0) * (2.0 * j + 2.0);
    }
    return sum;
}

double polygamma(int64_t n, double x) {
    if (n == 0) return digamma(x);
    if (n == 1) return trigamma(x);
    // psi^(n)(x) = (-1)^(n+1) n! zeta(n+1, x)
    const double sign = (n % 2 == 1) ? 1.0 : -1.0;
    const double nd = static_cast<double>(n);
    return sign * std::tgamma(nd + 1.0) * hurwitzZeta(nd + 1.0, x);
}

double besselI0(double x) {
    if (std::isnan(x)) return x;
    x = std::fabs(x);
    if (x == kInf) return kInf;
    // I0(x) = sum_k (x^2/4)^k / (k!)^2: every term positive, so no cancellation.
    const double y = 0.25 * x * x;
    double term = 1.0, sum = 1.0;
    for (int k = 1; k < 100000; ++k) {
        term *= y / (static_cast<double>(k) * k);
        sum += term;
        if (!std::isfinite(sum)) return kInf;
        if (term < kEps * sum) break;
    }
    return sum;
}

double besselI1(double x) {
    if (std::isnan(x)) return x;
    const double ax = std::fabs(x);
    if (ax == kInf) return x;
    // I1(x) = (x/2) sum_k (x^2/4)^k / (k! (k+1)!)
    const double y = 0.25 * ax * ax;
    double term = 0.5 * ax, sum = term;
    for (int k = 1; k < 100000 && term > 0.0; ++k) {
        term *= y / (static_cast<double>(k) * (k + 1));
        sum += term;
        if (!std::isfinite(sum)) return std::copysign(kInf, x);
        if (term < kEps * sum) break;
    }
    return std::copysign(sum, x);
}

double erfinv(double y) {
    if (std::isnan(y) || y < -1.0 || y > 1.0) return kNaN;
    if (y == 1.0) return kInf;
    if (y == -1.0) return -kInf;
    if (y == 0.0) return y;
    const double a = std::fabs(y);
    // Starting point: Giles' single-precision approximation of erfinv.
    double w = -std::log((1.0 - a) * (1.0 + a));
    double p;
    if (w < 5.0) {
        w -= 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
    } else {
        w = std::sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
    }
    double x = p * a;
    // Newton on erf(x) - a, kept inside a bracket of the root. Near 1 the residual is formed
    // as (1 - a) - erfc(x), which has no cancellation (1 - a is exact for a >= 0.5).
    double lo = 0.0, hi = 30.0;
    const double dScale = 2.0 / std::sqrt(kPi);
    for (int it = 0; it < 60; ++it) {
        const double f = a <= 0.5 ? std::erf(x) - a : (1.0 - a) - std::erfc(x);
        if (f == 0.0) break;
        if (f > 0.0)
            hi = x;
        else
            lo = x;
        const double df = dScale * std::exp(-x * x);
        double next = x - f / df;
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        const bool done = std::fabs(next - x) <= 1e-16 * std::fabs(x);
        x = next;
        if (done) break;
    }
    return std::copysign(x, y);
}

}  // namespace fxray::special
