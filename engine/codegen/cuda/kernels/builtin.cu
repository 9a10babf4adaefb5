// The CUDA backend's fixed device kernels (host side: codegen/cuda/builtin_kernels.cpp), embedded
// at build time (cmake/EmbedSources.cmake) and compiled by NVRTC once per process on first use.
//
// The direct convolution kernels (one thread per output element, or one block per weight
// element for the weight gradient) are the fallback where cuDNN is not installed or refuses a
// configuration (codegen/cuda/cudnn_conv.h runs convolutions first). Accumulation is in the
// tensor's own type (fp32 for fp32), like cuDNN's fp32 path. The argument structs below are
// mirrored by hand in builtin_kernels.cpp (kernels/attention_args.h shows the shared-header form
// these should move to).
typedef long long i64;
#define FX_GRID_LOOP(q, n)                                                                                             \
    for (i64 q = (i64)blockIdx.x * blockDim.x + threadIdx.x; q < (n); q += (i64)gridDim.x * blockDim.x)
#define FX_BLOCK_LOOP(e, n) for (i64 e = blockIdx.x; e < (n); e += gridDim.x)

struct FxCopyArgs {
    i64 n, ndim, elem, soff, doff;
    i64 size[8], sst[8], dst[8];
};
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

// _to_copy of a dense real tensor to a complex dtype (the kernel IR has no complex values):
// interleaved (x, 0) pairs of the component type.
template <class S, class C>
__device__ void fx_to_complex(const S* x, C* y, i64 n) {
    FX_GRID_LOOP(q, n) {
        y[2 * q] = (C)x[q];
        y[2 * q + 1] = (C)0;
    }
}
extern "C" __global__ void fx_to_complex_f32_c64(const float* x, float* y, i64 n) { fx_to_complex(x, y, n); }
extern "C" __global__ void fx_to_complex_f32_c128(const float* x, double* y, i64 n) { fx_to_complex(x, y, n); }
extern "C" __global__ void fx_to_complex_f64_c64(const double* x, float* y, i64 n) { fx_to_complex(x, y, n); }
extern "C" __global__ void fx_to_complex_f64_c128(const double* x, double* y, i64 n) { fx_to_complex(x, y, n); }

// Thread 0 ends with the block's sum (blockDim.x a multiple of 32).
template <class A>
__device__ A fx_block_sum(A v) {
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

template <class T>
__device__ void fx_conv_fwd(const T* x, const T* w, const T* b, T* y, const FxConvArgs& a) {
    const i64 total = a.N * a.O * a.out[0] * a.out[1] * a.out[2];
    const i64 cpg = a.C / a.G, opg = a.O / a.G;
    FX_GRID_LOOP(q, total) {
        i64 r = q;
        const i64 e2 = r % a.out[2];
        r /= a.out[2];
        const i64 e1 = r % a.out[1];
        r /= a.out[1];
        const i64 e0 = r % a.out[0];
        r /= a.out[0];
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
                        acc += xc[i0 * a.xs[2] + i1 * a.xs[3] + i2 * a.xs[4]] *
                               wc[k0 * a.ws[2] + k1 * a.ws[3] + k2 * a.ws[4]];
                    }
                }
            }
        }
        if (a.hasBias) acc += b[a.boff + o * a.bs];
        y[a.yoff + n * a.ys[0] + o * a.ys[1] + e0 * a.ys[2] + e1 * a.ys[3] + e2 * a.ys[4]] = acc;
    }
}

// Gradient of the input: one thread per input element gathers the outputs its window reached.
// With a bias (b, per input channel) this is the transposed convolution of gy (conv_transpose's
// forward: gx its output, gy its input).
template <class T>
__device__ void fx_conv_bwd_input(const T* gy, const T* w, const T* b, T* gx, const FxConvArgs& a) {
    const i64 total = a.N * a.C * a.in[0] * a.in[1] * a.in[2];
    const i64 cpg = a.C / a.G, opg = a.O / a.G;
    FX_GRID_LOOP(q, total) {
        i64 r = q;
        const i64 i2 = r % a.in[2];
        r /= a.in[2];
        const i64 i1 = r % a.in[1];
        r /= a.in[1];
        const i64 i0 = r % a.in[0];
        r /= a.in[0];
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
                        acc += gyo[e0 * a.ys[2] + e1 * a.ys[3] + e2 * a.ys[4]] *
                               wo[k0 * a.ws[2] + k1 * a.ws[3] + k2 * a.ws[4]];
                    }
                }
            }
        }
        if (a.hasBias) acc += b[a.boff + c * a.bs];
        gx[a.xoff + n * a.xs[0] + c * a.xs[1] + i0 * a.xs[2] + i1 * a.xs[3] + i2 * a.xs[4]] = acc;
    }
}

// Gradient of the weight: one block per weight element reduces over batch and output positions.
template <class T>
__device__ void fx_conv_bwd_weight(const T* gy, const T* x, T* gw, const FxConvArgs& a) {
    const i64 cpg = a.C / a.G, opg = a.O / a.G;
    const i64 total = a.O * cpg * a.k[0] * a.k[1] * a.k[2];
    const i64 m = a.N * a.out[0] * a.out[1] * a.out[2];
    FX_BLOCK_LOOP(e, total) {
        i64 r = e;
        const i64 k2 = r % a.k[2];
        r /= a.k[2];
        const i64 k1 = r % a.k[1];
        r /= a.k[1];
        const i64 k0 = r % a.k[0];
        r /= a.k[0];
        const i64 cl = r % cpg, o = r / cpg, c = (o / opg) * cpg + cl;
        T acc = T(0);
        for (i64 j = threadIdx.x; j < m; j += blockDim.x) {
            i64 s = j;
            const i64 e2 = s % a.out[2];
            s /= a.out[2];
            const i64 e1 = s % a.out[1];
            s /= a.out[1];
            const i64 e0 = s % a.out[0];
            const i64 n = s / a.out[0];
            const i64 i0 = e0 * a.st[0] - a.pad[0] + k0 * a.dil[0];
            const i64 i1 = e1 * a.st[1] - a.pad[1] + k1 * a.dil[1];
            const i64 i2 = e2 * a.st[2] - a.pad[2] + k2 * a.dil[2];
            if (i0 < 0 || i0 >= a.in[0] || i1 < 0 || i1 >= a.in[1] || i2 < 0 || i2 >= a.in[2]) continue;
            acc += gy[a.yoff + n * a.ys[0] + o * a.ys[1] + e0 * a.ys[2] + e1 * a.ys[3] + e2 * a.ys[4]] *
                   x[a.xoff + n * a.xs[0] + c * a.xs[1] + i0 * a.xs[2] + i1 * a.xs[3] + i2 * a.xs[4]];
        }
        acc = fx_block_sum(acc);
        if (threadIdx.x == 0)
            gw[a.woff + o * a.ws[0] + cl * a.ws[1] + k0 * a.ws[2] + k1 * a.ws[3] + k2 * a.ws[4]] = acc;
    }
}

// Gradient of the bias: one block per output channel.
template <class T>
__device__ void fx_conv_bwd_bias(const T* gy, T* gb, const FxConvArgs& a) {
    const i64 m = a.N * a.out[0] * a.out[1] * a.out[2];
    FX_BLOCK_LOOP(o, a.O) {
        T acc = T(0);
        for (i64 j = threadIdx.x; j < m; j += blockDim.x) {
            i64 s = j;
            const i64 e2 = s % a.out[2];
            s /= a.out[2];
            const i64 e1 = s % a.out[1];
            s /= a.out[1];
            const i64 e0 = s % a.out[0];
            const i64 n = s / a.out[0];
            acc += gy[a.yoff + n * a.ys[0] + o * a.ys[1] + e0 * a.ys[2] + e1 * a.ys[3] + e2 * a.ys[4]];
        }
        acc = fx_block_sum(acc);
        if (threadIdx.x == 0) gb[a.boff + o * a.bs] = acc;
    }
}

__device__ __forceinline__ i64 fx_index(const void* p, i64 i, i64 isize) {
    return isize == 8 ? ((const i64*)p)[i] : (i64)((const int*)p)[i];
}

// scale_grad_by_freq's counts: how often the indices (padding included) name each row, into
// zeroed counts [num].
extern "C" __global__ void fx_embedding_count(const void* idx, unsigned long long* counts, i64 rows, i64 isize,
                                              i64 num) {
    FX_GRID_LOOP(i, rows) {
        const i64 k = fx_index(idx, i, isize);
        if (k >= 0 && k < num) atomicAdd(counts + k, 1ull);
    }
}

// Rows of grad (dense [rows, D]) added at their index; rows sharing an index collide: atomics.
// With counts (scale_grad_by_freq), each row's gradient is divided by its index's count.
template <class T>
__device__ void fx_embedding_bwd(const T* g, const void* idx, T* out, i64 rows, i64 D, i64 isize, i64 num, i64 padding,
                                 const unsigned long long* counts) {
    FX_GRID_LOOP(q, rows * D) {
        const i64 i = q / D, d = q % D;
        const i64 k = fx_index(idx, i, isize);
        if (k == padding || k < 0 || k >= num) continue;
        atomicAdd(out + k * D + d, counts ? (T)((double)g[q] * (1.0 / (double)counts[k])) : g[q]);
    }
}

struct FxIndexAddArgs {
    i64 n, ndim, dim, isize, ioff, istride, soff, ooff, dimSize;
    i64 size[8], ss[8], os[8];
    double alpha;
};
template <class T>
__device__ void fx_index_add(const T* src, const void* idx, T* out, const FxIndexAddArgs& a) {
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
template <class A>
__device__ A fx_block_all_sum(A v) {
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
        if (s >= S) {
            s -= S;
            ++n;
        }
    }
};
#define FX_CHANNEL_LOOP(i, c)                                                                                          \
    for (FxNs p_(threadIdx.x, blockDim.x, S); p_.n < N; p_.next())                                                     \
        if (const i64 i = (p_.n * C + (c)) * S + p_.s; true)

// Training-mode batch norm over a dense [N, C, S] activation: one block (1024 threads) per
// channel, statistics in double (two passes: mean, then the squared deviations), then the
// normalised store. nrm/nrv may alias rm/rv (the in-place variants) or be null (no running
// statistics): thread 0 reads each before writing it.
template <class T>
__device__ void fx_bn_train(const T* x, const T* w, const T* b, const T* rm, const T* rv, T* y, T* mean, T* invstd,
                            T* nrm, T* nrv, i64 N, i64 C, i64 S, double mom, double eps) {
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
            if (nrm) {  // absent running statistics are not updated
                nrm[c] = (T)((1.0 - mom) * (double)rm[c] + mom * m);
                // One value per channel: n / (n - 1) makes the unbiased variance NaN, as in PyTorch.
                const double unbiased = cnt > 1    ? q / (double)(cnt - 1)
                                        : cnt == 1 ? __longlong_as_double(0x7ff8000000000000LL)
                                                   : var;
                nrv[c] = (T)((1.0 - mom) * (double)rv[c] + mom * unbiased);
            }
        }
        const double wc = w ? (double)w[c] : 1.0, bc = b ? (double)b[c] : 0.0;
        const T scale = (T)(is * wc), shift = (T)(bc - m * is * wc);
        FX_CHANNEL_LOOP(i, c) y[i] = x[i] * scale + shift;
    }
}

// native_batch_norm_backward over a dense [N, C, S] activation: one block (1024 threads) per channel.
template <class T>
__device__ void fx_bn_bwd(const T* gy, const T* x, const T* w, const T* mean, const T* invstd, const T* rm, const T* rv,
                          T* gx, T* gw, T* gb, i64 N, i64 C, i64 S, i64 train, double eps) {
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
        const double gm = train && cnt ? sg / (double)cnt : 0.0,
                     proj = train && cnt ? dot / (double)cnt * is * is : 0.0;
        FX_CHANNEL_LOOP(i, c) gx[i] = (T)(((double)gy[i] - gm - ((double)x[i] - m) * proj) * k1);
    }
}

// Batch norm where a channel holds many elements (ResNet's first layers: 64 channels of 400k):
// one block a channel left most of the GPU idle (the first layer's statistics and normalisation
// took 0.53 ms, 8% of the bandwidth). Here the grid is (C, P): a channel is cut into P parts,
// fx_bn_*_partial sums each part into part[(c * P + p) * 3 + k] (doubles), and fx_bn_*_apply
// has every block of a channel reduce its P partials, in the same order, to the same statistics
// and write its own part. The host picks P (builtin_kernels.cpp, bnParts); P = 1 keeps the
// single-kernel fx_bn_train / fx_bn_bwd above.

// Part p of P of a channel's cnt elements, walked like FX_CHANNEL_LOOP.
struct FxPartWalk {
    i64 j, end;
    FxNs at;
    __device__ FxPartWalk(i64 cnt, i64 P, i64 p, i64 S)
        : j(min(p * ((cnt + P - 1) / P), cnt) + threadIdx.x), end(min((p + 1) * ((cnt + P - 1) / P), cnt)),
          at(j, blockDim.x, S) {}
    __device__ bool more() const { return j < end; }
    __device__ void next() {
        j += blockDim.x;
        at.next();
    }
};
#define FX_PART_LOOP(i, c, P, p)                                                                                       \
    for (FxPartWalk w_(N * S, P, p, S); w_.more(); w_.next())                                                          \
        if (const i64 i = (w_.at.n * C + (c)) * S + w_.at.s; true)

// Statistics of a part in one pass, shifted by K (the channel's first value, kept in slot 2 so
// the apply kernel need not read x where y may be written): sums of d and d² with d = x - K stay
// exact enough in double for any realistic spread (the shift keeps d² near the variance).
template <class T>
__device__ void fx_bn_stats_partial(const T* x, double* part, i64 N, i64 C, i64 S, i64 P) {
    const i64 c = blockIdx.x, p = blockIdx.y;
    const double K = (double)x[c * S];
    double a = 0, q = 0;
    FX_PART_LOOP(i, c, P, p) {
        const double d = (double)x[i] - K;
        a += d;
        q += d * d;
    }
    a = fx_block_sum(a);
    q = fx_block_sum(q);
    if (threadIdx.x == 0) {
        double* o = part + (c * P + p) * 3;
        o[0] = a;
        o[1] = q;
        o[2] = K;
    }
}

// A channel's P partial (k0, k1) sums, the same in every block of the channel.
__device__ void fx_bn_reduce_parts(const double* part, i64 c, i64 P, double& k0, double& k1) {
    double a = 0, b = 0;
    for (i64 k = threadIdx.x; k < P; k += blockDim.x) {
        a += part[(c * P + k) * 3];
        b += part[(c * P + k) * 3 + 1];
    }
    k0 = fx_block_all_sum(a);
    k1 = fx_block_all_sum(b);
}

template <class T>
__device__ void fx_bn_train_apply(const T* w, const T* b, const T* rm, const T* rv, const T* x, T* y, T* mean,
                                  T* invstd, T* nrm, T* nrv, const double* part, i64 N, i64 C, i64 S, i64 P,
                                  double mom, double eps) {
    const i64 c = blockIdx.x, p = blockIdx.y, cnt = N * S;  // cnt > 0: P > 1 only for large channels
    double a, q;
    fx_bn_reduce_parts(part, c, P, a, q);
    const double dm = a / (double)cnt, m = part[c * P * 3 + 2] + dm;
    const double m2 = fmax(q - a * dm, 0.0);  // the sum of squared deviations from the mean
    const double var = m2 / (double)cnt, is = 1.0 / sqrt(var + eps);
    if (p == 0 && threadIdx.x == 0) {
        mean[c] = (T)m;
        invstd[c] = (T)is;
        if (nrm) {
            nrm[c] = (T)((1.0 - mom) * (double)rm[c] + mom * m);
            const double unbiased = cnt > 1 ? m2 / (double)(cnt - 1) : __longlong_as_double(0x7ff8000000000000LL);
            nrv[c] = (T)((1.0 - mom) * (double)rv[c] + mom * unbiased);
        }
    }
    const double wc = w ? (double)w[c] : 1.0, bc = b ? (double)b[c] : 0.0;
    const T scale = (T)(is * wc), shift = (T)(bc - m * is * wc);
    FX_PART_LOOP(i, c, P, p) y[i] = x[i] * scale + shift;
}

// The backward's two sums of a part: the gradient's, and its dot with x - mean.
template <class T>
__device__ void fx_bn_bwd_partial(const T* gy, const T* x, const T* mean, const T* rm, double* part, i64 N, i64 C,
                                  i64 S, i64 P, i64 train) {
    const i64 c = blockIdx.x, p = blockIdx.y;
    const double m = train ? (double)mean[c] : (double)rm[c];
    double sg = 0, dot = 0;
    FX_PART_LOOP(i, c, P, p) {
        const double g = (double)gy[i];
        sg += g;
        dot += g * ((double)x[i] - m);
    }
    sg = fx_block_sum(sg);
    dot = fx_block_sum(dot);
    if (threadIdx.x == 0) {
        part[(c * P + p) * 3] = sg;
        part[(c * P + p) * 3 + 1] = dot;
    }
}

template <class T>
__device__ void fx_bn_bwd_apply(const T* gy, const T* x, const T* w, const T* mean, const T* invstd, const T* rm,
                                const T* rv, T* gx, T* gw, T* gb, const double* part, i64 N, i64 C, i64 S, i64 P,
                                i64 train, double eps) {
    const i64 c = blockIdx.x, p = blockIdx.y, cnt = N * S;
    double sg, dot;
    fx_bn_reduce_parts(part, c, P, sg, dot);
    const double m = train ? (double)mean[c] : (double)rm[c];
    const double is = train ? (double)invstd[c] : 1.0 / sqrt((double)rv[c] + eps);
    if (p == 0 && threadIdx.x == 0) {
        if (gw) gw[c] = (T)(dot * is);
        if (gb) gb[c] = (T)sg;
    }
    if (!gx) return;
    const double k1 = is * (w ? (double)w[c] : 1.0);
    const double gm = train ? sg / (double)cnt : 0.0, proj = train ? dot / (double)cnt * is * is : 0.0;
    FX_PART_LOOP(i, c, P, p) gx[i] = (T)(((double)gy[i] - gm - ((double)x[i] - m) * proj) * k1);
}

struct FxPoolArgs {
    i64 planes, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw;
};
// max_pool2d_with_indices over dense [planes, H, W]: NaN wins (as in PyTorch), first maximum kept.
template <class T>
__device__ void fx_maxpool2d(const T* x, T* y, i64* ind, const FxPoolArgs& a) {
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
                    if (v != v) {
                        nan = true;
                        break;
                    }
                }
            }
        }
        y[q] = best;
        ind[q] = bi;
    }
}

// Gradient of max pooling: each output's gradient added at its argmax (windows overlap: atomics).
template <class T>
__device__ void fx_maxpool2d_bwd(const T* gy, const i64* ind, T* gx, i64 planes, i64 HW, i64 per) {
    FX_GRID_LOOP(q, planes * per) {
        const i64 k = ind[q];
        if (k >= 0 && k < HW) atomicAdd(gx + (q / per) * HW + k, gy[q]);
    }
}

#define FX_INSTANTIATE(T, S)                                                                                           \
    extern "C" __global__ void fx_conv_fwd_##S(const T* x, const T* w, const T* b, T* y, FxConvArgs a) {               \
        fx_conv_fwd<T>(x, w, b, y, a);                                                                                 \
    }                                                                                                                  \
    extern "C" __global__ void fx_conv_bwd_input_##S(const T* gy, const T* w, const T* b, T* gx, FxConvArgs a) {       \
        fx_conv_bwd_input<T>(gy, w, b, gx, a);                                                                         \
    }                                                                                                                  \
    extern "C" __global__ void fx_conv_bwd_weight_##S(const T* gy, const T* x, T* gw, FxConvArgs a) {                  \
        fx_conv_bwd_weight<T>(gy, x, gw, a);                                                                           \
    }                                                                                                                  \
    extern "C" __global__ void fx_conv_bwd_bias_##S(const T* gy, T* gb, FxConvArgs a) {                                \
        fx_conv_bwd_bias<T>(gy, gb, a);                                                                                \
    }                                                                                                                  \
    extern "C" __global__ void fx_embedding_bwd_##S(const T* g, const void* idx, T* out, i64 rows, i64 D, i64 isize,   \
                                                    i64 num, i64 padding, const unsigned long long* counts) {          \
        fx_embedding_bwd<T>(g, idx, out, rows, D, isize, num, padding, counts);                                        \
    }                                                                                                                  \
    extern "C" __global__ void fx_index_add_##S(const T* src, const void* idx, T* out, FxIndexAddArgs a) {             \
        fx_index_add<T>(src, idx, out, a);                                                                             \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(1024)                                                                 \
        fx_bn_train_##S(const T* x, const T* w, const T* b, const T* rm, const T* rv, T* y, T* mean, T* invstd,        \
                        T* nrm, T* nrv, i64 N, i64 C, i64 S_, double mom, double eps) {                                \
        fx_bn_train<T>(x, w, b, rm, rv, y, mean, invstd, nrm, nrv, N, C, S_, mom, eps);                                \
    }                                                                                                                  \
    extern "C" __global__ void __launch_bounds__(1024)                                                                 \
        fx_bn_bwd_##S(const T* gy, const T* x, const T* w, const T* mean, const T* invstd, const T* rm, const T* rv,   \
                      T* gx, T* gw, T* gb, i64 N, i64 C, i64 S_, i64 train, double eps) {                              \
        fx_bn_bwd<T>(gy, x, w, mean, invstd, rm, rv, gx, gw, gb, N, C, S_, train, eps);                                \
    }                                                                                                                  \
    extern "C" __global__ void fx_bn_stats_partial_##S(const T* x, double* part, i64 N, i64 C, i64 S_, i64 P) {        \
        fx_bn_stats_partial<T>(x, part, N, C, S_, P);                                                                  \
    }                                                                                                                  \
    extern "C" __global__ void fx_bn_train_apply_##S(const T* x, const T* w, const T* b, const T* rm, const T* rv,     \
                                                     T* y, T* mean, T* invstd, T* nrm, T* nrv, const double* part,     \
                                                     i64 N, i64 C, i64 S_, i64 P, double mom, double eps) {            \
        fx_bn_train_apply<T>(w, b, rm, rv, x, y, mean, invstd, nrm, nrv, part, N, C, S_, P, mom, eps);                 \
    }                                                                                                                  \
    extern "C" __global__ void fx_bn_bwd_partial_##S(const T* gy, const T* x, const T* mean, const T* rm,              \
                                                     double* part, i64 N, i64 C, i64 S_, i64 P, i64 train) {           \
        fx_bn_bwd_partial<T>(gy, x, mean, rm, part, N, C, S_, P, train);                                               \
    }                                                                                                                  \
    extern "C" __global__ void fx_bn_bwd_apply_##S(const T* gy, const T* x, const T* w, const T* mean,                 \
                                                   const T* invstd, const T* rm, const T* rv, T* gx, T* gw, T* gb,     \
                                                   const double* part, i64 N, i64 C, i64 S_, i64 P, i64 train,         \
                                                   double eps) {                                                       \
        fx_bn_bwd_apply<T>(gy, x, w, mean, invstd, rm, rv, gx, gw, gb, part, N, C, S_, P, train, eps);                 \
    }                                                                                                                  \
    extern "C" __global__ void fx_maxpool2d_##S(const T* x, T* y, i64* ind, FxPoolArgs a) {                            \
        fx_maxpool2d<T>(x, y, ind, a);                                                                                 \
    }                                                                                                                  \
    extern "C" __global__ void fx_maxpool2d_bwd_##S(const T* gy, const i64* ind, T* gx, i64 planes, i64 HW, i64 per) { \
        fx_maxpool2d_bwd<T>(gy, ind, gx, planes, HW, per);                                                             \
    }
FX_INSTANTIATE(float, f32)
FX_INSTANTIATE(double, f64)
