#include "codegen/cuda/builtin_kernels.h"

#include <map>
#include <mutex>

namespace fxray::cg::cuda {

namespace {

// Convolution is a direct kernel (one thread per output element, or one block per weight
// element for the weight gradient), not cuDNN: cuDNN is a large optional install that the
// backend would have to dlopen with a much bigger API surface (descriptors, algorithm search,
// workspaces), and the corpus's convolutions are small (resnet18 at 32x32, convbn_freeze), so
// a direct kernel costs little and keeps the backend's only requirements libcuda, NVRTC and
// cuBLAS. Accumulation is in the tensor's own type (fp32 for fp32), like cuDNN's fp32 path.
const char* kSource = R"(// fxray built-in kernels
typedef long long i64;
#define FX_GRID_LOOP(q, n) for (i64 q = (i64)blockIdx.x * blockDim.x + threadIdx.x; q < (n); q += (i64)gridDim.x * blockDim.x)
#define FX_BLOCK_LOOP(e, n) for (i64 e = blockIdx.x; e < (n); e += gridDim.x)

struct FxCopyArgs { i64 n, ndim, elem, soff, doff; i64 size[8], sst[8], dst[8]; };
extern "C" __global__ void fx_strided_copy(const unsigned char* src, unsigned char* dst, FxCopyArgs a) {
    FX_GRID_LOOP(q, a.n) {
        i64 rest = q, so = a.soff, dof = a.doff;
        for (int d = (int)a.ndim - 1; d >= 0; --d) {
            i64 c = rest % a.size[d];
            rest /= a.size[d];
            so += c * a.sst[d];
            dof += c * a.dst[d];
        }
        switch (a.elem) {
        case 1: dst[dof] = src[so]; break;
        case 2: ((unsigned short*)dst)[dof] = ((const unsigned short*)src)[so]; break;
        case 4: ((unsigned int*)dst)[dof] = ((const unsigned int*)src)[so]; break;
        default: ((unsigned long long*)dst)[dof] = ((const unsigned long long*)src)[so]; break;
        }
    }
}

// Thread 0 ends with the block's sum (blockDim.x a multiple of 32).
template <class A> __device__ A fx_block_sum(A v) {
    __shared__ A sh[32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    __syncthreads();  // sh may still be read by the previous iteration of a block loop
    if (lane == 0) sh[wid] = v;
    __syncthreads();
    if (wid == 0) {
        v = lane < (int)(blockDim.x >> 5) ? sh[lane] : A(0);
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    return v;
}

// Shapes as [N, C, D0, D1, D2] / [O, C/G, K0, K1, K2] / [N, O, E0, E1, E2]: 1-D and 2-D
// convolutions fill the leading spatial slots with size 1, stride 0.
struct FxConvArgs {
    i64 N, C, O, G, hasBias, boff, bs;
    i64 in[3], out[3], k[3], st[3], pad[3], dil[3];
    i64 xs[5], ws[5], ys[5];
    i64 xoff, woff, yoff;
};

template <class T> __device__ void fx_conv_fwd(const T* x, const T* w, const T* b, T* y, const FxConvArgs& a) {
    const i64 total = a.N * a.O * a.out[0] * a.out[1] * a.out[2];
    const i64 cpg = a.C / a.G, opg = a.O / a.G;
    FX_GRID_LOOP(q, total) {
        i64 r = q;
        const i64 e2 = r % a.out[2]; r /= a.out[2];
        const i64 e1 = r % a.out[1]; r /= a.out[1];
        const i64 e0 = r % a.out[0]; r /= a.out[0];
        const i64 o = r % a.O, n = r / a.O, g = o / opg;
        T acc = T(0);
        for (i64 c = 0; c < cpg; ++c) {
            const T* xc = x + a.xoff + n * a.xs[0] + (g * cpg + c) * a.xs[1];
            const T* wc = w + a.woff + o * a.ws[0] + c * a.ws[1];
            for (i64 k0 = 0; k0 < a.k[0]; ++k0) {
                const i64 i0 = e0 * a.st[0] - a.pad[0] + k0 * a.dil[0];
                if (i0 < 0 || i0 >= a.in[0]) continue;
                for (i64 k1 = 0; k1 < a.k[1]; ++k1) {
                    const i64 i1 = e1 * a.st[1] - a.pad[1] + k1 * a.dil[1];
                    if (i1 < 0 || i1 >= a.in[1]) continue;
                    for (i64 k2 = 0; k2 < a.k[2]; ++k2) {
                        const i64 i2 = e2 * a.st[2] - a.pad[2] + k2 * a.dil[2];
                        if (i2 < 0 || i2 >= a.in[2]) continue;
                        acc += xc[i0 * a.xs[2] + i1 * a.xs[3] + i2 * a.xs[4]] * wc[k0 * a.ws[2] + k1 * a.ws[3] + k2 * a.ws[4]];
                    }
                }
            }
        }
        if (a.hasBias) acc += b[a.boff + o * a.bs];
        y[a.yoff + n * a.ys[0] + o * a.ys[1] + e0 * a.ys[2] + e1 * a.ys[3] + e2 * a.ys[4]] = acc;
    }
}

// Gradient of the input: one thread per input element gathers the outputs its window reached.
template <class T> __device__ void fx_conv_bwd_input(const T* gy, const T* w, T* gx, const FxConvArgs& a) {
    const i64 total = a.N * a.C * a.in[0] * a.in[1] * a.in[2];
    const i64 cpg = a.C / a.G, opg = a.O / a.G;
    FX_GRID_LOOP(q, total) {
        i64 r = q;
        const i64 i2 = r % a.in[2]; r /= a.in[2];
        const i64 i1 = r % a.in[1]; r /= a.in[1];
        const i64 i0 = r % a.in[0]; r /= a.in[0];
        const i64 c = r % a.C, n = r / a.C, g = c / cpg, cl = c % cpg;
        T acc = T(0);
        for (i64 ol = 0; ol < opg; ++ol) {
            const i64 o = g * opg + ol;
            const T* gyo = gy + a.yoff + n * a.ys[0] + o * a.ys[1];
            const T* wo = w + a.woff + o * a.ws[0] + cl * a.ws[1];
            for (i64 k0 = 0; k0 < a.k[0]; ++k0) {
                const i64 t0 = i0 + a.pad[0] - k0 * a.dil[0];
                if (t0 < 0 || t0 % a.st[0]) continue;
                const i64 e0 = t0 / a.st[0];
                if (e0 >= a.out[0]) continue;
                for (i64 k1 = 0; k1 < a.k[1]; ++k1) {
                    const i64 t1 = i1 + a.pad[1] - k1 * a.dil[1];
                    if (t1 < 0 || t1 % a.st[1]) continue;
                    const i64 e1 = t1 / a.st[1];
                    if (e1 >= a.out[1]) continue;
                    for (i64 k2 = 0; k2 < a.k[2]; ++k2) {
                        const i64 t2 = i2 + a.pad[2] - k2 * a.dil[2];
                        if (t2 < 0 || t2 % a.st[2]) continue;
                        const i64 e2 = t2 / a.st[2];
                        if (e2 >= a.out[2]) continue;
                        acc += gyo[e0 * a.ys[2] + e1 * a.ys[3] + e2 * a.ys[4]] * wo[k0 * a.ws[2] + k1 * a.ws[3] + k2 * a.ws[4]];
                    }
                }
            }
        }
        gx[a.xoff + n * a.xs[0] + c * a.xs[1] + i0 * a.xs[2] + i1 * a.xs[3] + i2 * a.xs[4]] = acc;
    }
}

// Gradient of the weight: one block per weight element reduces over batch and output positions.
template <class T> __device__ void fx_conv_bwd_weight(const T* gy, const T* x, T* gw, const FxConvArgs& a) {
    const i64 cpg = a.C / a.G, opg = a.O / a.G;
    const i64 total = a.O * cpg * a.k[0] * a.k[1] * a.k[2];
    const i64 m = a.N * a.out[0] * a.out[1] * a.out[2];
    FX_BLOCK_LOOP(e, total) {
        i64 r = e;
        const i64 k2 = r % a.k[2]; r /= a.k[2];
        const i64 k1 = r % a.k[1]; r /= a.k[1];
        const i64 k0 = r % a.k[0]; r /= a.k[0];
        const i64 cl = r % cpg, o = r / cpg, c = (o / opg) * cpg + cl;
        T acc = T(0);
        for (i64 j = threadIdx.x; j < m; j += blockDim.x) {
            i64 s = j;
            const i64 e2 = s % a.out[2]; s /= a.out[2];
            const i64 e1 = s % a.out[1]; s /= a.out[1];
            const i64 e0 = s % a.out[0]; const i64 n = s / a.out[0];
            const i64 i0 = e0 * a.st[0] - a.pad[0] + k0 * a.dil[0];
            const i64 i1 = e1 * a.st[1] - a.pad[1] + k1 * a.dil[1];
            const i64 i2 = e2 * a.st[2] - a.pad[2] + k2 * a.dil[2];
            if (i0 < 0 || i0 >= a.in[0] || i1 < 0 || i1 >= a.in[1] || i2 < 0 || i2 >= a.in[2]) continue;
            acc += gy[a.yoff + n * a.ys[0] + o * a.ys[1] + e0 * a.ys[2] + e1 * a.ys[3] + e2 * a.ys[4]] *
                   x[a.xoff + n * a.xs[0] + c * a.xs[1] + i0 * a.xs[2] + i1 * a.xs[3] + i2 * a.xs[4]];
        }
        acc = fx_block_sum(acc);
        if (threadIdx.x == 0) gw[a.woff + o * a.ws[0] + cl * a.ws[1] + k0 * a.ws[2] + k1 * a.ws[3] + k2 * a.ws[4]] = acc;
    }
}

// Gradient of the bias: one block per output channel.
template <class T> __device__ void fx_conv_bwd_bias(const T* gy, T* gb, const FxConvArgs& a) {
    const i64 m = a.N * a.out[0] * a.out[1] * a.out[2];
    FX_BLOCK_LOOP(o, a.O) {
        T acc = T(0);
        for (i64 j = threadIdx.x; j < m; j += blockDim.x) {
            i64 s = j;
            const i64 e2 = s % a.out[2]; s /= a.out[2];
            const i64 e1 = s % a.out[1]; s /= a.out[1];
            const i64 e0 = s % a.out[0]; const i64 n = s / a.out[0];
            acc += gy[a.yoff + n * a.ys[0] + o * a.ys[1] + e0 * a.ys[2] + e1 * a.ys[3] + e2 * a.ys[4]];
        }
        acc = fx_block_sum(acc);
        if (threadIdx.x == 0) gb[a.boff + o * a.bs] = acc;
    }
}

__device__ __forceinline__ i64 fx_index(const void* p, i64 i, i64 isize) {
    return isize == 8 ? ((const i64*)p)[i] : (i64)((const int*)p)[i];
}

// Rows of grad (dense [rows, D]) added at their index; rows sharing an index collide: atomics.
template <class T> __device__ void fx_embedding_bwd(const T* g, const void* idx, T* out, i64 rows, i64 D, i64 isize,
                                                    i64 num, i64 padding) {
    FX_GRID_LOOP(q, rows * D) {
        const i64 i = q / D, d = q % D;
        const i64 k = fx_index(idx, i, isize);
        if (k == padding || k < 0 || k >= num) continue;
        atomicAdd(out + k * D + d, g[q]);
    }
}

struct FxIndexAddArgs { i64 n, ndim, dim, isize, ioff, istride, soff, ooff, dimSize; i64 size[8], ss[8], os[8]; double alpha; };
template <class T> __device__ void fx_index_add(const T* src, const void* idx, T* out, const FxIndexAddArgs& a) {
    const T alpha = (T)a.alpha;
    FX_GRID_LOOP(q, a.n) {
        i64 r = q, so = a.soff, oo = a.ooff;
        for (int d = (int)a.ndim - 1; d >= 0; --d) {
            i64 c = r % a.size[d];
            r /= a.size[d];
            so += c * a.ss[d];
            if (d == (int)a.dim) {
                c = fx_index(idx, a.ioff + c * a.istride, a.isize);
                if (c < 0) c += a.dimSize;
            }
            oo += c * a.os[d];
        }
        atomicAdd(out + oo, alpha * src[so]);
    }
}

// Every thread ends with the block's sum.
template <class A> __device__ A fx_block_all_sum(A v) {
    __shared__ A r;
    v = fx_block_sum(v);
    if (threadIdx.x == 0) r = v;
    __syncthreads();
    v = r;
    __syncthreads();
    return v;
}

// Walks a channel's elements of a dense [N, C, S] tensor, element j = (n, s) for j = start,
// start + step, ...: the 64-bit division happens once per thread, not once per element (it
// dominated batch norm's time at ResNet sizes).
struct FxNs {
    i64 n, s, dn, ds, S;
    __device__ FxNs(i64 j, i64 step, i64 S_) : n(j / S_), s(j % S_), dn(step / S_), ds(step % S_), S(S_) {}
    __device__ void next() {
        n += dn;
        s += ds;
        if (s >= S) { s -= S; ++n; }
    }
};
#define FX_CHANNEL_LOOP(i, c) for (FxNs p_(threadIdx.x, blockDim.x, S); p_.n < N; p_.next()) \
    if (const i64 i = (p_.n * C + (c)) * S + p_.s; true)

// Training-mode batch norm over a dense [N, C, S] activation: one block (1024 threads) per
// channel, statistics in double (two passes: mean, then the squared deviations), then the
// normalised store.
template <class T> __device__ void fx_bn_train(const T* x, const T* w, const T* b, const T* rm, const T* rv, T* y, T* mean,
                                               T* invstd, T* nrm, T* nrv, i64 N, i64 C, i64 S, double mom, double eps) {
    const i64 cnt = N * S;
    if (S <= 0) return;
    FX_BLOCK_LOOP(c, C) {
        double s = 0;
        FX_CHANNEL_LOOP(i, c) s += (double)x[i];
        s = fx_block_all_sum(s);
        const double m = cnt ? s / (double)cnt : 0.0;
        double q = 0;
        FX_CHANNEL_LOOP(i, c) {
            const double d = (double)x[i] - m;
            q += d * d;
        }
        q = fx_block_all_sum(q);
        const double var = cnt ? q / (double)cnt : 0.0, is = 1.0 / sqrt(var + eps);
        if (threadIdx.x == 0) {
            mean[c] = (T)m;
            invstd[c] = (T)is;
            nrm[c] = (T)((1.0 - mom) * (double)rm[c] + mom * m);
            nrv[c] = (T)((1.0 - mom) * (double)rv[c] + mom * (cnt > 1 ? q / (double)(cnt - 1) : var));
        }
        const double wc = w ? (double)w[c] : 1.0, bc = b ? (double)b[c] : 0.0;
        const T scale = (T)(is * wc), shift = (T)(bc - m * is * wc);
        FX_CHANNEL_LOOP(i, c) y[i] = x[i] * scale + shift;
    }
}

// native_batch_norm_backward over a dense [N, C, S] activation: one block (1024 threads) per channel.
template <class T> __device__ void fx_bn_bwd(const T* gy, const T* x, const T* w, const T* mean, const T* invstd, const T* rm,
                                             const T* rv, T* gx, T* gw, T* gb, i64 N, i64 C, i64 S, i64 train, double eps) {
    const i64 cnt = N * S;
    if (S <= 0) return;
    FX_BLOCK_LOOP(c, C) {
        const double m = train ? (double)mean[c] : (double)rm[c];
        const double is = train ? (double)invstd[c] : 1.0 / sqrt((double)rv[c] + eps);
        double sg = 0, dot = 0;
        FX_CHANNEL_LOOP(i, c) {
            const double g = (double)gy[i];
            sg += g;
            dot += g * ((double)x[i] - m);
        }
        sg = fx_block_all_sum(sg);
        dot = fx_block_all_sum(dot);
        if (threadIdx.x == 0) {
            if (gw) gw[c] = (T)(dot * is);
            if (gb) gb[c] = (T)sg;
        }
        if (!gx) continue;
        const double k1 = is * (w ? (double)w[c] : 1.0);
        const double gm = train && cnt ? sg / (double)cnt : 0.0, proj = train && cnt ? dot / (double)cnt * is * is : 0.0;
        FX_CHANNEL_LOOP(i, c) gx[i] = (T)(((double)gy[i] - gm - ((double)x[i] - m) * proj) * k1);
    }
}

struct FxPoolArgs { i64 planes, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw; };
// max_pool2d_with_indices over dense [planes, H, W]: NaN wins (as in PyTorch), first maximum kept.
template <class T> __device__ void fx_maxpool2d(const T* x, T* y, i64* ind, const FxPoolArgs& a) {
    FX_GRID_LOOP(q, a.planes * a.OH * a.OW) {
        const i64 ow = q % a.OW, oh = (q / a.OW) % a.OH, pl = q / (a.OH * a.OW);
        const T* src = x + pl * a.H * a.W;
        T best = T(0);
        i64 bi = -1;
        bool nan = false;
        for (i64 i = 0; i < a.kh && !nan; ++i) {
            const i64 ih = oh * a.sh - a.ph + i * a.dh;
            if (ih < 0 || ih >= a.H) continue;
            for (i64 j = 0; j < a.kw; ++j) {
                const i64 iw = ow * a.sw - a.pw + j * a.dw;
                if (iw < 0 || iw >= a.W) continue;
                const T v = src[ih * a.W + iw];
                if (bi < 0 || v > best || v != v) {
                    best = v;
                    bi = ih * a.W + iw;
                    if (v != v) { nan = true; break; }
                }
            }
        }
        y[q] = best;
        ind[q] = bi;
    }
}

// Gradient of max pooling: each output's gradient added at its argmax (windows overlap: atomics).
template <class T> __device__ void fx_maxpool2d_bwd(const T* gy, const i64* ind, T* gx, i64 planes, i64 HW, i64 per) {
    FX_GRID_LOOP(q, planes * per) {
        const i64 k = ind[q];
        if (k >= 0 && k < HW) atomicAdd(gx + (q / per) * HW + k, gy[q]);
    }
}

#define FX_INSTANTIATE(T, S)                                                                                      \
    extern "C" __global__ void fx_conv_fwd_##S(const T* x, const T* w, const T* b, T* y, FxConvArgs a) {             \
        fx_conv_fwd<T>(x, w, b, y, a);                                                                            \
    }                                                                                                             \
    extern "C" __global__ void fx_conv_bwd_input_##S(const T* gy, const T* w, T* gx, FxConvArgs a) {                \
        fx_conv_bwd_input<T>(gy, w, gx, a);                                                                       \
    }                                                                                                             \
    extern "C" __global__ void fx_conv_bwd_weight_##S(const T* gy, const T* x, T* gw, FxConvArgs a) {               \
        fx_conv_bwd_weight<T>(gy, x, gw, a);                                                                      \
    }                                                                                                             \
    extern "C" __global__ void fx_conv_bwd_bias_##S(const T* gy, T* gb, FxConvArgs a) { fx_conv_bwd_bias<T>(gy, gb, a); } \
    extern "C" __global__ void fx_embedding_bwd_##S(const T* g, const void* idx, T* out, i64 rows, i64 D, i64 isize,  \
                                                    i64 num, i64 padding) {                                       \
        fx_embedding_bwd<T>(g, idx, out, rows, D, isize, num, padding);                                           \
    }                                                                                                             \
    extern "C" __global__ void fx_index_add_##S(const T* src, const void* idx, T* out, FxIndexAddArgs a) {          \
        fx_index_add<T>(src, idx, out, a);                                                                        \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(1024) fx_bn_train_##S(const T* x, const T* w, const T* b, const T* rm, const T* rv, T* y,  \
                                               T* mean, T* invstd, T* nrm, T* nrv, i64 N, i64 C, i64 S_,          \
                                               double mom, double eps) {                                          \
        fx_bn_train<T>(x, w, b, rm, rv, y, mean, invstd, nrm, nrv, N, C, S_, mom, eps);                           \
    }                                                                                                             \
    extern "C" __global__ void __launch_bounds__(1024) fx_bn_bwd_##S(const T* gy, const T* x, const T* w, const T* mean, const T* invstd,   \
                                             const T* rm, const T* rv, T* gx, T* gw, T* gb, i64 N, i64 C, i64 S_,  \
                                             i64 train, double eps) {                                             \
        fx_bn_bwd<T>(gy, x, w, mean, invstd, rm, rv, gx, gw, gb, N, C, S_, train, eps);                          \
    }                                                                                                             \
    extern "C" __global__ void fx_maxpool2d_##S(const T* x, T* y, i64* ind, FxPoolArgs a) {                        \
        fx_maxpool2d<T>(x, y, ind, a);                                                                            \
    }                                                                                                             \
    extern "C" __global__ void fx_maxpool2d_bwd_##S(const T* gy, const i64* ind, T* gx, i64 planes, i64 HW,        \
                                                    i64 per) {                                                    \
        fx_maxpool2d_bwd<T>(gy, ind, gx, planes, HW, per);                                                        \
    }
FX_INSTANTIATE(float, f32)
FX_INSTANTIATE(double, f64)
)";

struct ConvArgs {
    int64_t N, C, O, G, hasBias, boff, bs;
    int64_t in[3], out[3], k[3], st[3], pad[3], dil[3];
    int64_t xs[5], ws[5], ys[5];
    int64_t xoff, woff, yoff;
};

struct IndexAddArgs {
    int64_t n, ndim, dim, isize, ioff, istride, soff, ooff, dimSize;
    int64_t size[8], ss[8], os[8];
    double alpha;
};

struct Module {
    std::mutex mu;
    CUmodule mod = nullptr;
    std::string err;
    std::map<std::string, CUfunction> fns;
};
Module& module() {
    static Module* m = new Module();  // never destroyed: the driver may be gone at exit
    return *m;
}

Status loadLocked(Module& m) {
    if (m.mod) return Status::success();
    if (!m.err.empty()) return makeError(m.err);
    if (Status s = requireDevice(); !s.ok()) return s;
    auto out = nvrtcCompile(kSource, "fxray_builtin", targetArch());
    if (!out.ok()) {
        m.err = out.error().message;
        return out.error();
    }
    if (Status s = check(runtime().cu.cuModuleLoadData(&m.mod, out->image.data()), "loading the built-in kernels"); !s.ok()) {
        m.err = s.error().message;
        m.mod = nullptr;
        return s;
    }
    return Status::success();
}

const char* suffix(DType t) { return t == DType::Float64 ? "f64" : "f32"; }

/// Spatial dims right-aligned into three slots (leading ones size 1, stride 0).
void spatial(const TensorMeta& m, int64_t (&size)[3], int64_t (&strides)[5]) {
    const size_t s = m.shape.size() - 2;
    strides[0] = m.strides[0];
    strides[1] = m.strides[1];
    for (size_t i = 0; i < 3; ++i) {
        if (i < 3 - s) {
            size[i] = 1;
            strides[2 + i] = 0;
        } else {
            size[i] = m.shape[2 + i - (3 - s)];
            strides[2 + i] = m.strides[2 + i - (3 - s)];
        }
    }
}

/// Per-spatial-dim parameter (PyTorch allows one value for all dims) right-aligned like spatial().
void param(const std::vector<int64_t>& v, size_t s, int64_t fill, int64_t (&out)[3]) {
    for (size_t i = 0; i < 3; ++i) {
        if (i < 3 - s) out[i] = fill;
        else {
            size_t j = i - (3 - s);
            out[i] = v.empty() ? fill : v.size() == 1 ? v[0] : j < v.size() ? v[j] : fill;
        }
    }
}

/// x [N, C, ...], w [O, C/G, ...], y [N, O, ...]: shapes and strides of all three.
Expected<ConvArgs> convArgs(const TensorMeta& x, const TensorMeta& w, const TensorMeta& y, const std::vector<int64_t>& stride,
                            const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, int64_t groups) {
    const size_t r = x.shape.size();
    if (r < 3 || r > 5 || w.shape.size() != r || y.shape.size() != r)
        return makeError("device convolution needs 1 to 3 spatial dims with matching ranks");
    if (groups < 1 || x.shape[1] % groups || w.shape[0] % groups || w.shape[1] * groups != x.shape[1])
        return makeError("device convolution: channels do not match groups");
    ConvArgs a{};
    a.N = x.shape[0];
    a.C = x.shape[1];
    a.O = w.shape[0];
    a.G = groups;
    spatial(x, a.in, a.xs);
    spatial(w, a.k, a.ws);
    spatial(y, a.out, a.ys);
    param(stride, r - 2, 1, a.st);
    param(padding, r - 2, 0, a.pad);
    param(dilation, r - 2, 1, a.dil);
    for (int i = 0; i < 3; ++i)
        if (a.st[i] < 1 || a.dil[i] < 1 || a.pad[i] < 0) return makeError("device convolution: bad stride/padding/dilation");
    a.xoff = x.offset;
    a.woff = w.offset;
    a.yoff = y.offset;
    return a;
}

int64_t numel3(const int64_t (&s)[3]) { return s[0] * s[1] * s[2]; }

} // namespace

const std::string& builtinSource() {
    static const std::string s = kSource;
    return s;
}

Status warmBuiltins() {
    Module& m = module();
    std::lock_guard<std::mutex> g(m.mu);
    return loadLocked(m);
}

Expected<CUfunction> builtinFunction(const char* name) {
    Module& m = module();
    std::lock_guard<std::mutex> g(m.mu);
    if (auto it = m.fns.find(name); it != m.fns.end()) return it->second;
    if (Status s = loadLocked(m); !s.ok()) return s.error();
    CUfunction f = nullptr;
    if (Status s = check(runtime().cu.cuModuleGetFunction(&f, m.mod, name), std::string("built-in kernel ") + name); !s.ok())
        return s.error();
    m.fns[name] = f;
    return f;
}

namespace {

Status launchBlocks(CUfunction fn, int64_t blocks, void** params, const char* what, unsigned threads = 256) {
    const CudaRuntime& rt = runtime();
    blocks = std::max<int64_t>(1, std::min<int64_t>(blocks, static_cast<int64_t>(std::max(1, rt.smCount)) * 32));
    CUresult r = rt.cu.cuLaunchKernel(fn, static_cast<unsigned>(blocks), 1, 1, threads, 1, 1, 0, nullptr, params, nullptr);
    if (r == 0) return Status::success();
    return check(r, std::string("launching ") + what);
}

Expected<CUfunction> typed(const char* base, DType t) { return builtinFunction((std::string(base) + "_" + suffix(t)).c_str()); }

} // namespace

Status launchBuiltin(CUfunction fn, int64_t work, void** params, const char* what) {
    if (work <= 0) return Status::success();
    return launchBlocks(fn, (work + 255) / 256, params, what);
}

bool convSupports(DType t) { return t == DType::Float32 || t == DType::Float64; }
bool scatterSupports(DType t) { return t == DType::Float32 || t == DType::Float64; }

Status convForward(const DeviceView& x, const DeviceView& w, const std::optional<DeviceView>& bias, const DeviceView& y,
                   const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                   const std::vector<int64_t>& dilation, int64_t groups) {
    auto a = convArgs(x.meta, w.meta, y.meta, stride, padding, dilation, groups);
    if (!a.ok()) return a.error();
    if (bias) {
        a->hasBias = 1;
        a->boff = bias->meta.offset;
        a->bs = bias->meta.strides.empty() ? 1 : bias->meta.strides[0];
    }
    auto fn = typed("fx_conv_fwd", y.meta.dtype);
    if (!fn.ok()) return fn.error();
    CUdeviceptr px = x.base, pw = w.base, pb = bias ? bias->base : 0, py = y.base;
    void* params[] = {&px, &pw, &pb, &py, &*a};
    return launchBuiltin(*fn, a->N * a->O * numel3(a->out), params, "fx_conv_fwd");
}

Status convBackward(const DeviceView& gy, const DeviceView& x, const DeviceView& w, const std::optional<DeviceView>& gx,
                    const std::optional<DeviceView>& gw, const std::optional<DeviceView>& gb,
                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                    const std::vector<int64_t>& dilation, int64_t groups) {
    const DType dt = gy.meta.dtype;
    if (gx) {
        auto a = convArgs(gx->meta, w.meta, gy.meta, stride, padding, dilation, groups);
        if (!a.ok()) return a.error();
        auto fn = typed("fx_conv_bwd_input", dt);
        if (!fn.ok()) return fn.error();
        CUdeviceptr pgy = gy.base, pw = w.base, pgx = gx->base;
        void* params[] = {&pgy, &pw, &pgx, &*a};
        if (Status s = launchBuiltin(*fn, a->N * a->C * numel3(a->in), params, "fx_conv_bwd_input"); !s.ok()) return s;
    }
    if (gw) {
        auto a = convArgs(x.meta, gw->meta, gy.meta, stride, padding, dilation, groups);
        if (!a.ok()) return a.error();
        auto fn = typed("fx_conv_bwd_weight", dt);
        if (!fn.ok()) return fn.error();
        CUdeviceptr pgy = gy.base, px = x.base, pgw = gw->base;
        void* params[] = {&pgy, &px, &pgw, &*a};
        if (Status s = launchBlocks(*fn, gw->meta.numel(), params, "fx_conv_bwd_weight"); !s.ok()) return s;
    }
    if (gb) {
        auto a = convArgs(x.meta, w.meta, gy.meta, stride, padding, dilation, groups);
        if (!a.ok()) return a.error();
        a->boff = gb->meta.offset;
        a->bs = gb->meta.strides.empty() ? 1 : gb->meta.strides[0];
        auto fn = typed("fx_conv_bwd_bias", dt);
        if (!fn.ok()) return fn.error();
        CUdeviceptr pgy = gy.base, pgb = gb->base;
        void* params[] = {&pgy, &pgb, &*a};
        if (Status s = launchBlocks(*fn, a->O, params, "fx_conv_bwd_bias"); !s.ok()) return s;
    }
    return Status::success();
}

namespace {

bool indexType(DType t) { return t == DType::Int64 || t == DType::Int32; }

} // namespace

Status embeddingBackward(const DeviceView& grad, const DeviceView& indices, const DeviceView& out, int64_t paddingIdx) {
    const CudaRuntime& rt = runtime();
    const TensorMeta& om = out.meta;
    if (om.shape.size() != 2 || !om.isContiguous() || !indexType(indices.meta.dtype))
        return makeError("device embedding_dense_backward needs a dense 2-D output and int32/int64 indices");
    const int64_t D = om.shape[1], rows = indices.meta.numel();
    if (grad.meta.numel() != rows * D) return makeError("device embedding_dense_backward: grad does not match indices");
    const size_t item = static_cast<size_t>(dtypeItemSize(om.dtype));
    if (Status s = check(rt.cu.cuMemsetD8(out.base + static_cast<CUdeviceptr>(om.offset) * item, 0,
                                          static_cast<size_t>(om.numel()) * item),
                         "zeroing embedding_dense_backward's output");
        !s.ok())
        return s;
    DeviceBuffer tg, ti;
    auto g = denseView(grad, tg);
    if (!g.ok()) return g.error();
    auto ix = denseView(indices, ti);
    if (!ix.ok()) return ix.error();
    auto fn = typed("fx_embedding_bwd", om.dtype);
    if (!fn.ok()) return fn.error();
    const size_t isz = static_cast<size_t>(dtypeItemSize(ix->meta.dtype));
    CUdeviceptr pg = g->base + static_cast<CUdeviceptr>(g->meta.offset) * item;
    CUdeviceptr pi = ix->base + static_cast<CUdeviceptr>(ix->meta.offset) * isz;
    CUdeviceptr po = out.base + static_cast<CUdeviceptr>(om.offset) * item;
    int64_t isize = static_cast<int64_t>(isz), num = om.shape[0];
    int64_t r = rows, d = D, pad = paddingIdx;
    void* params[] = {&pg, &pi, &po, &r, &d, &isize, &num, &pad};
    return launchBuiltin(*fn, rows * D, params, "fx_embedding_bwd");
}

Status indexAdd(const DeviceView& self, int64_t dim, const DeviceView& index, const DeviceView& source, double alpha,
                const DeviceView& out) {
    const TensorMeta& om = out.meta;
    const size_t nd = om.shape.size();
    if (nd == 0 || nd > 8 || source.meta.shape.size() != nd || index.meta.shape.size() > 1 || !indexType(index.meta.dtype))
        return makeError("device index_add needs 1 to 8 dims and a 1-D int32/int64 index");
    if (dim < 0) dim += static_cast<int64_t>(nd);
    if (dim < 0 || dim >= static_cast<int64_t>(nd)) return makeError("device index_add: dim out of range");
    if (Status s = stridedCopy(self, out); !s.ok()) return s;
    IndexAddArgs a{};
    a.n = source.meta.numel();
    a.ndim = static_cast<int64_t>(nd);
    a.dim = dim;
    a.isize = dtypeItemSize(index.meta.dtype);
    a.ioff = index.meta.offset;
    a.istride = index.meta.strides.empty() ? 1 : index.meta.strides[0];
    a.soff = source.meta.offset;
    a.ooff = om.offset;
    a.dimSize = om.shape[static_cast<size_t>(dim)];
    a.alpha = alpha;
    for (size_t d = 0; d < nd; ++d) {
        a.size[d] = source.meta.shape[d];
        a.ss[d] = source.meta.strides[d];
        a.os[d] = om.strides[d];
    }
    auto fn = typed("fx_index_add", om.dtype);
    if (!fn.ok()) return fn.error();
    CUdeviceptr ps = source.base, pi = index.base, po = out.base;
    void* params[] = {&ps, &pi, &po, &a};
    return launchBuiltin(*fn, a.n, params, "fx_index_add");
}

namespace {

CUdeviceptr addr(const DeviceView& v) {
    return v.base + static_cast<CUdeviceptr>(v.meta.offset) * static_cast<CUdeviceptr>(dtypeItemSize(v.meta.dtype));
}
CUdeviceptr addr(const std::optional<DeviceView>& v) { return v ? addr(*v) : 0; }

/// A per-channel parameter the kernels index as p[c]: dense 1-D (or absent).
bool channelVector(const std::optional<DeviceView>& v, int64_t C, DType t) {
    if (!v) return true;
    const TensorMeta& m = v->meta;
    return m.dtype == t && m.shape.size() == 1 && m.shape[0] == C && (C <= 1 || m.strides[0] == 1);
}

struct Ncs {
    int64_t N = 0, C = 0, S = 1;
};
Ncs ncs(const TensorMeta& m) {
    Ncs r{m.shape[0], m.shape[1], 1};
    for (size_t d = 2; d < m.shape.size(); ++d) r.S *= m.shape[d];
    return r;
}

} // namespace

Status batchNormTrain(const DeviceView& x, const std::optional<DeviceView>& w, const std::optional<DeviceView>& b,
                      const DeviceView& rm, const DeviceView& rv, const std::vector<DeviceView>& outs, double momentum,
                      double eps) {
    const TensorMeta& xm = x.meta;
    const DType t = xm.dtype;
    if (xm.shape.size() < 2 || outs.size() != 5 || !outs[0].meta.isContiguous() || outs[0].meta.shape != xm.shape)
        return makeError("device batch norm needs a dense [N, C, ...] output");
    const Ncs n = ncs(xm);
    if (!channelVector(w, n.C, t) || !channelVector(b, n.C, t) || !channelVector(rm, n.C, t) || !channelVector(rv, n.C, t))
        return makeError("device batch norm needs dense per-channel parameters");
    for (size_t i = 1; i < 5; ++i)
        if (!channelVector(outs[i], n.C, t)) return makeError("device batch norm needs dense per-channel outputs");
    DeviceBuffer tx;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    auto fn = typed("fx_bn_train", t);
    if (!fn.ok()) return fn.error();
    CUdeviceptr px = addr(*xd), pw = addr(w), pb = addr(b), prm = addr(rm), prv = addr(rv), py = addr(outs[0]),
                pm = addr(outs[1]), pis = addr(outs[2]), pnm = addr(outs[3]), pnv = addr(outs[4]);
    int64_t N = n.N, C = n.C, S = n.S;
    void* params[] = {&px, &pw, &pb, &prm, &prv, &py, &pm, &pis, &pnm, &pnv, &N, &C, &S, &momentum, &eps};
    return launchBlocks(*fn, C, params, "fx_bn_train", 1024);
}

Status batchNormBackward(const DeviceView& gy, const DeviceView& x, const std::optional<DeviceView>& w,
                         const std::optional<DeviceView>& rm, const std::optional<DeviceView>& rv,
                         const std::optional<DeviceView>& mean, const std::optional<DeviceView>& invstd, bool train,
                         double eps, const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gw,
                         const std::optional<DeviceView>& gb) {
    const TensorMeta& xm = x.meta;
    const DType t = xm.dtype;
    if (xm.shape.size() < 2 || gy.meta.shape != xm.shape || gy.meta.dtype != t) return makeError("device batch norm backward: shapes");
    const Ncs n = ncs(xm);
    if (train ? (!mean || !invstd) : (!rm || !rv)) return makeError("device batch norm backward: statistics missing");
    for (const auto* v : {&w, &rm, &rv, &mean, &invstd, &gw, &gb})
        if (!channelVector(*v, n.C, t)) return makeError("device batch norm backward needs dense per-channel tensors");
    if (gx && (!gx->meta.isContiguous() || gx->meta.shape != xm.shape)) return makeError("device batch norm backward: output layout");
    DeviceBuffer tx, tg;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    auto gd = denseView(gy, tg);
    if (!gd.ok()) return gd.error();
    auto fn = typed("fx_bn_bwd", t);
    if (!fn.ok()) return fn.error();
    CUdeviceptr pgy = addr(*gd), px = addr(*xd), pw = addr(w), pm = addr(mean), pis = addr(invstd), prm = addr(rm), prv = addr(rv),
                pgx = addr(gx), pgw = addr(gw), pgb = addr(gb);
    int64_t N = n.N, C = n.C, S = n.S, tr = train ? 1 : 0;
    void* params[] = {&pgy, &px, &pw, &pm, &pis, &prm, &prv, &pgx, &pgw, &pgb, &N, &C, &S, &tr, &eps};
    return launchBlocks(*fn, C, params, "fx_bn_bwd", 1024);
}

namespace {

struct PoolArgs {
    int64_t planes, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw;
};

Expected<PoolArgs> poolArgs(const TensorMeta& x, const TensorMeta& y, const std::vector<int64_t>& k, const std::vector<int64_t>& st,
                            const std::vector<int64_t>& pad, const std::vector<int64_t>& dil) {
    const size_t nd = x.shape.size();
    if (nd < 3 || y.shape.size() != nd || k.empty()) return makeError("device max pooling needs [..., H, W]");
    auto pick = [](const std::vector<int64_t>& v, size_t i, int64_t dflt) { return v.empty() ? dflt : v.size() == 1 ? v[0] : v[i]; };
    PoolArgs a{};
    a.planes = 1;
    for (size_t d = 0; d + 2 < nd; ++d) a.planes *= x.shape[d];
    a.H = x.shape[nd - 2];
    a.W = x.shape[nd - 1];
    a.OH = y.shape[nd - 2];
    a.OW = y.shape[nd - 1];
    a.kh = pick(k, 0, 1);
    a.kw = pick(k, 1, 1);
    a.sh = pick(st, 0, a.kh);
    a.sw = pick(st, 1, a.kw);
    a.ph = pick(pad, 0, 0);
    a.pw = pick(pad, 1, 0);
    a.dh = pick(dil, 0, 1);
    a.dw = pick(dil, 1, 1);
    if (a.sh < 1 || a.sw < 1 || a.dh < 1 || a.dw < 1) return makeError("device max pooling: bad stride/dilation");
    return a;
}

} // namespace

Status maxPool2d(const DeviceView& x, const DeviceView& y, const DeviceView& indices, const std::vector<int64_t>& kernel,
                 const std::vector<int64_t>& stride, const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation) {
    if (!y.meta.isContiguous() || !indices.meta.isContiguous() || indices.meta.dtype != DType::Int64)
        return makeError("device max pooling needs dense outputs");
    auto a = poolArgs(x.meta, y.meta, kernel, stride, padding, dilation);
    if (!a.ok()) return a.error();
    DeviceBuffer tx;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    auto fn = typed("fx_maxpool2d", y.meta.dtype);
    if (!fn.ok()) return fn.error();
    CUdeviceptr px = addr(*xd), py = addr(y), pi = addr(indices);
    void* params[] = {&px, &py, &pi, &*a};
    return launchBuiltin(*fn, a->planes * a->OH * a->OW, params, "fx_maxpool2d");
}

Status maxPool2dBackward(const DeviceView& gy, const DeviceView& indices, const DeviceView& gx) {
    const TensorMeta& m = gx.meta;
    if (!m.isContiguous() || m.shape.size() < 3 || indices.meta.dtype != DType::Int64 || indices.meta.numel() != gy.meta.numel())
        return makeError("device max pooling backward needs a dense gradient and int64 indices");
    const size_t nd = m.shape.size();
    int64_t planes = 1;
    for (size_t d = 0; d + 2 < nd; ++d) planes *= m.shape[d];
    int64_t HW = m.shape[nd - 2] * m.shape[nd - 1], per = planes ? gy.meta.numel() / planes : 0;
    const size_t item = static_cast<size_t>(dtypeItemSize(m.dtype));
    if (Status s = check(runtime().cu.cuMemsetD8(addr(gx), 0, static_cast<size_t>(m.numel()) * item), "zeroing max pooling's gradient");
        !s.ok())
        return s;
    DeviceBuffer tg, ti;
    auto gd = denseView(gy, tg);
    if (!gd.ok()) return gd.error();
    auto id = denseView(indices, ti);
    if (!id.ok()) return id.error();
    auto fn = typed("fx_maxpool2d_bwd", m.dtype);
    if (!fn.ok()) return fn.error();
    CUdeviceptr pg = addr(*gd), pi = addr(*id), px = addr(gx);
    void* params[] = {&pg, &pi, &px, &planes, &HW, &per};
    return launchBuiltin(*fn, planes * per, params, "fx_maxpool2d_bwd");
}

} // namespace fxray::cg::cuda
