// Elementwise ops whose scalar function loops a data-dependent number of times, which the
// generated kernels (straight-line expressions per element) cannot express: gcd and lcm
// (Euclid's algorithm) and the regularized incomplete gamma functions igamma and igammac (a
// power series or a continued fraction run to convergence, in double). Operands arrive dense in
// the output's shape (the host expands broadcast ones). The rules are the reference's
// (exec/ops/binary_math.cpp), so device, CPU backend and reference agree.
typedef long long fx_i64;
typedef unsigned long long fx_u64;

// Magnitudes as unsigned, so that the most negative value has one too.
__device__ __forceinline__ fx_u64 fx_mag(fx_i64 v) { return v < 0 ? 0ull - (fx_u64)v : (fx_u64)v; }

__device__ fx_u64 fx_gcd_u(fx_u64 x, fx_u64 y) {
    while (x != 0) {
        const fx_u64 c = x;
        x = y % x;
        y = c;
    }
    return y;
}

template <class T>
__device__ void fx_gcd(const T* a, const T* b, T* o, fx_i64 n) {
    for (fx_i64 i = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; i < n; i += (fx_i64)gridDim.x * blockDim.x)
        o[i] = (T)(fx_i64)fx_gcd_u(fx_mag((fx_i64)a[i]), fx_mag((fx_i64)b[i]));
}

// |p / gcd * q| with the dtype's two's-complement wraparound; 0 when both are 0.
template <class T>
__device__ void fx_lcm(const T* a, const T* b, T* o, fx_i64 n) {
    for (fx_i64 i = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; i < n; i += (fx_i64)gridDim.x * blockDim.x) {
        const fx_i64 p = (fx_i64)a[i], q = (fx_i64)b[i];
        const fx_i64 g = (fx_i64)fx_gcd_u(fx_mag(p), fx_mag(q));
        if (g == 0) {
            o[i] = (T)0;
            continue;
        }
        T v = (T)((fx_u64)(p / g) * (fx_u64)q);
        if (v < (T)0) v = (T)(0ull - (fx_u64)(fx_i64)v);
        o[i] = v;
    }
}

#define FX_IGAMMA_MAX_ITER 100000
#define FX_IGAMMA_EPS 1e-16

__device__ double fx_log_prefactor(double a, double x) { return a * log(x) - x - lgamma(a); }

// P(a, x) by its power series; converges quickly for x < a + 1.
__device__ double fx_lower_series(double a, double x) {
    double ap = a, term = 1.0 / a, sum = term;
    for (int n = 0; n < FX_IGAMMA_MAX_ITER; ++n) {
        ap += 1.0;
        term *= x / ap;
        sum += term;
        if (fabs(term) < fabs(sum) * FX_IGAMMA_EPS) break;
    }
    return sum * exp(fx_log_prefactor(a, x));
}

// Q(a, x) by its continued fraction (modified Lentz); converges quickly for x >= a + 1.
__device__ double fx_upper_fraction(double a, double x) {
    const double tiny = 1e-300;
    double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
    for (int i = 1; i < FX_IGAMMA_MAX_ITER; ++i) {
        const double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        const double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < FX_IGAMMA_EPS) break;
    }
    return exp(fx_log_prefactor(a, x)) * h;
}

// torch.igamma (lower) / igammac (upper) with PyTorch's edge values.
__device__ double fx_igamma_value(double a, double x, bool upper) {
    const double nan = __longlong_as_double(0x7ff8000000000000ll);
    if (isnan(a) || isnan(x) || x < 0 || a < 0) return nan;
    if (a == 0) return x > 0 ? (upper ? 0.0 : 1.0) : nan;
    if (x == 0) return upper ? 1.0 : 0.0;
    if (isinf(a)) return isinf(x) ? nan : (upper ? 1.0 : 0.0);
    if (isinf(x)) return upper ? 0.0 : 1.0;
    if (x < a + 1.0) {
        const double p = fx_lower_series(a, x);
        return upper ? 1.0 - p : p;
    }
    const double q = fx_upper_fraction(a, x);
    return upper ? q : 1.0 - q;
}

template <class T>
__device__ void fx_igamma(const T* a, const T* x, T* o, fx_i64 n, int upper) {
    for (fx_i64 i = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; i < n; i += (fx_i64)gridDim.x * blockDim.x)
        o[i] = (T)fx_igamma_value((double)a[i], (double)x[i], upper != 0);
}

#define FX_INTEGER_OPS(T, S)                                                                                           \
    extern "C" __global__ void fx_gcd_##S(const T* a, const T* b, T* o, fx_i64 n) { fx_gcd<T>(a, b, o, n); }           \
    extern "C" __global__ void fx_lcm_##S(const T* a, const T* b, T* o, fx_i64 n) { fx_lcm<T>(a, b, o, n); }
FX_INTEGER_OPS(fx_i64, i64)
FX_INTEGER_OPS(int, i32)
FX_INTEGER_OPS(short, i16)
FX_INTEGER_OPS(signed char, i8)
FX_INTEGER_OPS(unsigned char, u8)

#define FX_IGAMMA_OPS(T, S)                                                                                            \
    extern "C" __global__ void fx_igamma_##S(const T* a, const T* x, T* o, fx_i64 n, int upper) {                      \
        fx_igamma<T>(a, x, o, n, upper);                                                                               \
    }
FX_IGAMMA_OPS(float, f32)
FX_IGAMMA_OPS(double, f64)
