// rand / rand_like on the device: the reference executor's stream (ExecContext::rng, a
// std::mt19937_64, one draw per element in row-major order, (draw >> 11) * 2^-53 rounded to the
// output's dtype; exec/ops/random.cpp) continued from the host generator's state, so that a CUDA
// run and a reference run with one seed give the same values. One block: the 312-word state
// lives in shared memory, its twist runs in three parallel phases (the words that read only old
// words, those that read words the first phase renewed, the last word) and each twist's 312
// outputs are tempered in parallel. The state, as libstdc++ keeps it (312 words and the position
// of the next one), is read from and written back to `state` for the host to resume from.
// native_dropout draws its uniforms the same way (fp64, one per element) and then keeps each
// element where its draw is >= p (fx_dropout_apply).
typedef long long fx_i64;
typedef unsigned long long fx_u64;

#define FX_MT_N 312
#define FX_MT_M 156

__device__ __forceinline__ fx_u64 fx_mt_mix(fx_u64 cur, fx_u64 next, fx_u64 far) {
    const fx_u64 x = (cur & 0xFFFFFFFF80000000ULL) | (next & 0x7FFFFFFFULL);
    return far ^ (x >> 1) ^ ((x & 1ULL) ? 0xB5026F5AA96619E9ULL : 0ULL);
}

__device__ __forceinline__ fx_u64 fx_mt_temper(fx_u64 y) {
    y ^= (y >> 29) & 0x5555555555555555ULL;
    y ^= (y << 17) & 0x71D67FFFEDA60000ULL;
    y ^= (y << 37) & 0xFFF7EEE000000000ULL;
    y ^= y >> 43;
    return y;
}

// The sequential twist's data flow: word i < M reads old words i, i + 1, i + M; M <= i < N - 1
// reads old i, i + 1 and the renewed i - M; the last word reads the renewed 0 and M - 1.
__device__ void fx_mt_twist(fx_u64* mt) {
    const int t = threadIdx.x;
    fx_u64 v = 0;
    if (t < FX_MT_M) v = fx_mt_mix(mt[t], mt[t + 1], mt[t + FX_MT_M]);
    __syncthreads();
    if (t < FX_MT_M) mt[t] = v;
    __syncthreads();
    if (t >= FX_MT_M && t < FX_MT_N - 1) v = fx_mt_mix(mt[t], mt[t + 1], mt[t - FX_MT_M]);
    __syncthreads();
    if (t >= FX_MT_M && t < FX_MT_N - 1) mt[t] = v;
    __syncthreads();
    if (t == FX_MT_N - 1) mt[t] = fx_mt_mix(mt[t], mt[0], mt[FX_MT_M - 1]);
    __syncthreads();
}

template <class T>
__device__ void fx_mt_uniform(fx_u64* state, T* out, fx_i64 n) {
    __shared__ fx_u64 mt[FX_MT_N];
    const int t = threadIdx.x;
    if (t < FX_MT_N) mt[t] = state[t];
    fx_i64 p = (fx_i64)state[FX_MT_N];
    __syncthreads();
    for (fx_i64 done = 0; done < n;) {
        if (p >= FX_MT_N) {
            fx_mt_twist(mt);
            p = 0;
        }
        const fx_i64 take = n - done < FX_MT_N - p ? n - done : FX_MT_N - p;
        if (t < take) out[done + t] = (T)((double)(fx_mt_temper(mt[p + t]) >> 11) * 0x1.0p-53);
        done += take;
        p += take;
    }
    __syncthreads();
    if (t < FX_MT_N) state[t] = mt[t];
    if (t == 0) state[FX_MT_N] = (fx_u64)p;
}

extern "C" __global__ void fx_mt_uniform_f32(fx_u64* state, float* out, fx_i64 n) {
    fx_mt_uniform<float>(state, out, n);
}
extern "C" __global__ void fx_mt_uniform_f64(fx_u64* state, double* out, fx_i64 n) {
    fx_mt_uniform<double>(state, out, n);
}

// randn / randn_like from two uniforms per element (u: 2n fp64 draws of the stream above), by the
// reference's Box-Muller: sqrt(-2 log u1) cos(2 pi u2), in double, rounded to the output. A first
// draw of 0 (the reference draws again, shifting every later element) sets *redraw for the host
// to run the op itself instead.
template <class T>
__device__ void fx_box_muller(const double* u, T* out, int* redraw, fx_i64 n) {
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < n; q += (fx_i64)gridDim.x * blockDim.x) {
        const double u1 = u[2 * q], u2 = u[2 * q + 1];
        if (u1 <= 0.0) *redraw = 1;
        out[q] = (T)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925286766559 * u2));
    }
}

extern "C" __global__ void fx_box_muller_f32(const double* u, float* out, int* redraw, fx_i64 n) {
    fx_box_muller<float>(u, out, redraw, n);
}
extern "C" __global__ void fx_box_muller_f64(const double* u, double* out, int* redraw, fx_i64 n) {
    fx_box_muller<double>(u, out, redraw, n);
}

// native_dropout's outputs from one uniform per element (dense x, u): kept where u >= p, scaled
// by `scale` (1 / (1 - p) rounded to the tensor's dtype by the host, as PyTorch's kernel
// multiplies by a float scale); mask as bytes (bool).
template <class T>
__device__ void fx_dropout_apply(const T* x, const double* u, T* y, unsigned char* mask, double p, double scale,
                                 fx_i64 n) {
    for (fx_i64 q = blockIdx.x * (fx_i64)blockDim.x + threadIdx.x; q < n; q += (fx_i64)gridDim.x * blockDim.x) {
        const bool keep = u[q] >= p;
        mask[q] = keep ? 1 : 0;
        y[q] = keep ? (T)((double)x[q] * scale) : (T)0;
    }
}

extern "C" __global__ void fx_dropout_apply_f32(const float* x, const double* u, float* y, unsigned char* mask,
                                                double p, double scale, fx_i64 n) {
    fx_dropout_apply<float>(x, u, y, mask, p, scale, n);
}
extern "C" __global__ void fx_dropout_apply_f64(const double* x, const double* u, double* y, unsigned char* mask,
                                                double p, double scale, fx_i64 n) {
    fx_dropout_apply<double>(x, u, y, mask, p, scale, n);
}

// randperm(n): the reference's Fisher-Yates from the back (exec/ops/random.cpp), one 64-bit
// draw per step and a draw again while it falls in the biased tail (r >= 2^64 - 2^64 % i),
// then perm[i - 1] and perm[r % i] swapped. The draws are sequential, so thread 0 walks them
// through each twist's 312 tempered words while the block renews the state between; `perm`
// (int64, n) is the scratch the shuffle runs in, converted to the output's type at the end.
template <class T>
__device__ void fx_mt_randperm(fx_u64* state, fx_i64* perm, T* out, fx_i64 n) {
    __shared__ fx_u64 mt[FX_MT_N];
    __shared__ fx_i64 sharedPos, sharedLeft;
    const int t = threadIdx.x;
    if (t < FX_MT_N) mt[t] = state[t];
    for (fx_i64 i = t; i < n; i += blockDim.x) perm[i] = i;
    fx_i64 p = (fx_i64)state[FX_MT_N], left = n;
    __syncthreads();
    while (left > 1) {
        if (p >= FX_MT_N) {
            fx_mt_twist(mt);
            p = 0;
        }
        if (t == 0) {
            while (p < FX_MT_N && left > 1) {
                const fx_u64 r = fx_mt_temper(mt[p++]);
                const fx_u64 bound = (fx_u64)left, limit = 0xFFFFFFFFFFFFFFFFULL - 0xFFFFFFFFFFFFFFFFULL % bound;
                if (r >= limit) continue;
                const fx_i64 j = (fx_i64)(r % bound), a = perm[left - 1];
                perm[left - 1] = perm[j];
                perm[j] = a;
                --left;
            }
            sharedPos = p;
            sharedLeft = left;
        }
        __syncthreads();
        p = sharedPos;
        left = sharedLeft;
        __syncthreads();
    }
    for (fx_i64 i = t; i < n; i += blockDim.x) out[i] = (T)perm[i];
    if (t < FX_MT_N) state[t] = mt[t];
    if (t == 0) state[FX_MT_N] = (fx_u64)p;
}

#define FX_RANDPERM(T, S)                                                                                              \
    extern "C" __global__ void fx_mt_randperm_##S(fx_u64* state, fx_i64* perm, T* out, fx_i64 n) {                     \
        fx_mt_randperm<T>(state, perm, out, n);                                                                        \
    }
FX_RANDPERM(fx_i64, i64)
FX_RANDPERM(int, i32)
FX_RANDPERM(float, f32)
FX_RANDPERM(double, f64)
