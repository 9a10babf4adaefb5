#include "exec/ops/binary_math.h"

#include "exec/ops/kernel_util.h"

#include <cmath>
#include <limits>
#include <optional>

namespace fxray::kern {

int64_t wrapInt(uint64_t bits, DType t) {
    switch (t) {
    case DType::Bool: return bits != 0;
    case DType::UInt8: return static_cast<uint8_t>(bits);
    case DType::Int8: return static_cast<int8_t>(static_cast<uint8_t>(bits));
    case DType::Int16: return static_cast<int16_t>(static_cast<uint16_t>(bits));
    case DType::Int32: return static_cast<int32_t>(static_cast<uint32_t>(bits));
    default: return static_cast<int64_t>(bits);
    }
}

int64_t shiftInt(int64_t a, int64_t b, DType t, bool left) {
    const int64_t width = 8 * dtypeItemSize(t);
    const uint64_t ua = static_cast<uint64_t>(a);
    if (b < 0 || b >= width) {
        if (left || t == DType::UInt8) return 0;
        return a < 0 ? -1 : 0;
    }
    if (left) return wrapInt(ua << b, t);
    // a already holds a value of dtype t, so an arithmetic shift of the int64 is the shift in t.
    return wrapInt(static_cast<uint64_t>(a >> b), t);
}

int64_t gcdInt(int64_t a, int64_t b) {
    // Unsigned magnitudes, so that INT64_MIN has one too.
    uint64_t x = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
    uint64_t y = b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
    while (x != 0) {
        const uint64_t c = x;
        x = y % x;
        y = c;
    }
    return static_cast<int64_t>(y);
}

int64_t intPow(int64_t base, int64_t exp, DType t) {
    if (exp < 0) {
        if (base == 1) return 1;
        if (base == -1) return (exp % 2 == 0) ? 1 : -1;
        return 0;
    }
    // Products modulo 2^64 reduce to the same value modulo the dtype's width.
    uint64_t result = 1, b = static_cast<uint64_t>(base);
    while (exp > 0) {
        if (exp & 1) result *= b;
        b *= b;
        exp >>= 1;
    }
    return wrapInt(result, t);
}

double nextAfterIn(double x, double y, DType t) {
    if (t == DType::Float64) return std::nextafter(x, y);
    if (t == DType::Float32) return std::nextafterf(static_cast<float>(x), static_cast<float>(y));
    if (t != DType::Float16 && t != DType::BFloat16) return std::nextafter(x, y);
    if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
    if (x == y) return y;
    const bool half = t == DType::Float16;
    auto toBits = [half](double v) {
        return half ? floatToHalf(static_cast<float>(v)) : floatToBf16(static_cast<float>(v));
    };
    auto fromBits = [half](uint16_t b) { return static_cast<double>(half ? halfToFloat(b) : bf16ToFloat(b)); };
    // The smallest subnormal, signed towards y.
    if (x == 0.0) return fromBits(static_cast<uint16_t>(y > 0 ? 0x0001 : 0x8001));
    // Sign-magnitude bits: one step away from zero when moving away from zero, else towards it.
    uint16_t bits = toBits(x);
    const bool awayFromZero = (x < y) == (x > 0);
    bits = static_cast<uint16_t>(awayFromZero ? bits + 1 : bits - 1);
    return fromBits(bits);
}

namespace {

constexpr int kMaxIter = 100000;
constexpr double kEps = 1e-16;

/// log(x^a e^-x / Gamma(a)), the common factor of both series.
double logPrefactor(double a, double x) { return a * std::log(x) - x - std::lgamma(a); }

/// P(a, x) by its power series; converges quickly for x < a + 1.
double lowerSeries(double a, double x) {
    double ap = a, term = 1.0 / a, sum = term;
    for (int n = 0; n < kMaxIter; ++n) {
        ap += 1.0;
        term *= x / ap;
        sum += term;
        if (std::fabs(term) < std::fabs(sum) * kEps) break;
    }
    return sum * std::exp(logPrefactor(a, x));
}

/// Q(a, x) by its continued fraction (modified Lentz); converges quickly for x >= a + 1.
double upperFraction(double a, double x) {
    constexpr double tiny = 1e-300;
    double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
    for (int i = 1; i < kMaxIter; ++i) {
        const double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (std::fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (std::fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        const double del = d * c;
        h *= del;
        if (std::fabs(del - 1.0) < kEps) break;
    }
    return std::exp(logPrefactor(a, x)) * h;
}

/// The edge values of torch.igamma (lower) and igammac (upper); nullopt inside the domain.
std::optional<double> edgeValue(double a, double x, bool lower) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (std::isnan(a) || std::isnan(x) || x < 0 || a < 0) return nan;
    if (a == 0) return x > 0 ? std::optional<double>(lower ? 1.0 : 0.0) : nan;
    if (x == 0) return lower ? 0.0 : 1.0;
    if (std::isinf(a)) return std::isinf(x) ? nan : (lower ? 0.0 : 1.0);
    if (std::isinf(x)) return lower ? 1.0 : 0.0;
    return std::nullopt;
}

}  // namespace

double igammaLower(double a, double x) {
    if (auto e = edgeValue(a, x, true)) return *e;
    return x < a + 1.0 ? lowerSeries(a, x) : 1.0 - upperFraction(a, x);
}

double igammaUpper(double a, double x) {
    if (auto e = edgeValue(a, x, false)) return *e;
    return x < a + 1.0 ? 1.0 - lowerSeries(a, x) : upperFraction(a, x);
}

}  // namespace fxray::kern
