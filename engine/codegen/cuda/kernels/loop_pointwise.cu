// Elementwise ops whose scalar function loops with a data-dependent trip count, which the kernel
// IR cannot express (codegen/cpu/extern_pointwise.cpp runs them on the CPU backend): gcd and lcm
// (Euclid's algorithm) and the regularized incomplete gamma functions igamma / igammac (a power
// series or a continued fraction run to convergence). Operands arrive dense and broadcast to the
// output's shape; the scalar functions follow exec/ops/binary_math.cpp step for step, so the
// device, the CPU backend and the reference give the same values.
typedef long long fx_i64;
typedef unsigned long long fx_u64;

__device__ fx_i64 fx_gcd(fx_i64 a, fx_i64 b) {
    // Unsigned magnitudes, so that INT64_MIN has one too.
    fx_u64 x = a < 0 ? 0ULL - (fx_u64)a : (fx_u64)a;
    fx_u64 y = b < 0 ? 0ULL - (fx_u64)b : (fx_u64)b;
    while (x != 0) {
        const fx_u64 c = x;
        x = y % x;
        y = c;
    }
    return (fx_i64)y;
}

// |p / gcd * q| wrapped to the output's width (bits: 64 or 32); 0 when both are 0.
__device__ fx_i64 fx_wrap(fx_u64 v, int bits) { return bits == 32 ? (fx_i64)(int)(unsigned)v : (fx_i64)v; }
__device__ fx_i64 fx_lcm(fx_i64 p, fx_i64 q, int bits) {
    const fx_i64 g = fx_gcd(p, q);
    if (g == 0) return 0;
    fx_i64 v = fx_wrap((fx_u64)(p / g) * (fx_u64)q, bits);
    if (v < 0) v = fx_wrap(0ULL - (fx_u64)v, bits);
    return v;
}

#define FX_IG_MAX_ITER 100000
#define FX_IG_EPS 1e-16

__device__ double fx_log_prefactor(double a, double x) { return a * log(x) - x - lgamma(a); }

// P(a, x) by its power series; converges quickly for x < a + 1.
__device__ double fx_lower_series(double a, double x) {
    double ap = a, term = 1.0 / a, sum = term;
    for (int n = 0; n < FX_IG_MAX_ITER; ++n) {
        ap += 1.0;
        term *= x / ap;
        sum += term;
        if (fabs(term) < fabs(sum) * FX_IG_EPS) break;
    }
    return sum * exp(fx_log_prefactor(a, x));
}

// Q(a, x) by its continued fraction (modified Lentz); converges quickly for x >= a + 1.
__device__ double fx_upper_fraction(double a, double x) {
    const double tiny = 1e-300;
    double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
    for (int i = 1; i < FX_IG_MAX_ITER; ++i) {
        const double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        const double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < FX_IG_EPS) break;
    }
    return exp(fx_log_prefactor(a, x)) * h;
}

// torch.igamma (lower) / igammac (upper), edge values included.
__device__ double fx_igamma(double a, double x, bool lower) {
    const double nan = __longlong_as_double(0x7ff8000000000000LL);
    if (isnan(a) || isnan(x) || x < 0 || a < 0) return nan;
    if (a == 0) return x > 0 ? (lower ? 1.0 : 0.0) : nan;
    if (x == 0) return lower ? 0.0 : 1.0;
    if (isinf(a)) return isinf(x) ? nan : (lower ? 0.0 : 1.0);
    if (isinf(x)) return lower ? 1.0 : 0.0;
    if (x < a + 1.0) {
        const double p = fx_lower_series(a, x);
        return lower ? p : 1.0 - p;
    }
    const double q = fx_upper_fraction(a, x);
    return lower ? 1.0 - q : q;
}

#define FX_LOOP(q, n)                                                                                                  \
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < (n); q += (fx_i64)gridDim.x * blockDim.x)

#define FX_INT_KERNELS(T, S, BITS)                                                                                     \
    extern "C" __global__ void fx_gcd_##S(const T* a, const T* b, T* y, fx_i64 n) {                                    \
        FX_LOOP(q, n) y[q] = (T)fx_gcd(a[q], b[q]);                                                                    \
    }                                                                                                                  \
    extern "C" __global__ void fx_lcm_##S(const T* a, const T* b, T* y, fx_i64 n) {                                    \
        FX_LOOP(q, n) y[q] = (T)fx_lcm(a[q], b[q], BITS);                                                              \
    }
FX_INT_KERNELS(fx_i64, i64, 64)
FX_INT_KERNELS(int, i32, 32)

#define FX_IGAMMA_KERNELS(T, S)                                                                                        \
    extern "C" __global__ void fx_igamma_##S(const T* a, const T* x, T* y, fx_i64 n) {                                 \
        FX_LOOP(q, n) y[q] = (T)fx_igamma((double)a[q], (double)x[q], true);                                           \
    }                                                                                                                  \
    extern "C" __global__ void fx_igammac_##S(const T* a, const T* x, T* y, fx_i64 n) {                                \
        FX_LOOP(q, n) y[q] = (T)fx_igamma((double)a[q], (double)x[q], false);                                          \
    }
FX_IGAMMA_KERNELS(float, f32)
FX_IGAMMA_KERNELS(double, f64)
