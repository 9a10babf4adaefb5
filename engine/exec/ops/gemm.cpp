// Blocked GEMM in the Goto/BLIS style, kept small: operands are packed into panels so that the
// 4×4 register tile of the micro-kernel streams through contiguous memory whatever the
// operands' strides; large products split their rows over two threads.
#include "exec/ops/gemm.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace fxray::kern {

namespace {

constexpr int64_t MR = 4;     // rows of the register tile
constexpr int64_t NR = 4;     // columns of the register tile
constexpr int64_t KC = 256;   // reduction block: an A panel (MR×KC) and a B panel (KC×NR) fit L1
constexpr int64_t MC = 128;   // rows of A packed at once (fits L2)
constexpr int64_t NC = 1024;  // columns of B packed at once

/// Two doubles: GCC/Clang vector extension, so that the tile is vectorised at -O2 on any x86-64
/// or ARM target without -march flags.
typedef double V2 __attribute__((vector_size(16)));

/// acc (MR×NR, row-major) = sum over k of a[k][i] * b[k][j]; a is MR-interleaved, b NR-interleaved.
inline void microKernel(int64_t kc, const double* __restrict a, const double* __restrict b, double* __restrict acc) {
    constexpr int64_t NV = NR / 2;
    V2 c[MR][NV] = {};
    for (int64_t k = 0; k < kc; ++k) {
        V2 bv[NV];
        for (int64_t j = 0; j < NV; ++j) __builtin_memcpy(&bv[j], b + k * NR + 2 * j, sizeof(V2));
        for (int64_t i = 0; i < MR; ++i) {
            const V2 ai = {a[k * MR + i], a[k * MR + i]};
            for (int64_t j = 0; j < NV; ++j) c[i][j] += ai * bv[j];
        }
    }
    for (int64_t i = 0; i < MR; ++i)
        for (int64_t j = 0; j < NV; ++j) __builtin_memcpy(acc + i * NR + 2 * j, &c[i][j], sizeof(V2));
}

/// Packs B[k0:k0+kc, j0:j0+nc] into NR-wide column panels, zero-padded.
void packB(const MatView& B, int64_t k0, int64_t kc, int64_t j0, int64_t nc, double* out) {
    for (int64_t jp = 0; jp < nc; jp += NR) {
        const int64_t nr = std::min(NR, nc - jp);
        double* dst = out + jp * kc;
        for (int64_t k = 0; k < kc; ++k) {
            const double* src = B.data + (k0 + k) * B.rs + (j0 + jp) * B.cs;
            int64_t j = 0;
            if (B.cs == 1)
                for (; j < nr; ++j) dst[k * NR + j] = src[j];
            else
                for (; j < nr; ++j) dst[k * NR + j] = src[j * B.cs];
            for (; j < NR; ++j) dst[k * NR + j] = 0.0;
        }
    }
}

/// Packs A[i0:i0+mc, k0:k0+kc] into MR-tall row panels, zero-padded.
void packA(const MatView& A, int64_t i0, int64_t mc, int64_t k0, int64_t kc, double* out) {
    for (int64_t ip = 0; ip < mc; ip += MR) {
        const int64_t mr = std::min(MR, mc - ip);
        double* dst = out + ip * kc;
        for (int64_t i = 0; i < MR; ++i) {
            if (i < mr) {
                const double* src = A.data + (i0 + ip + i) * A.rs + k0 * A.cs;
                for (int64_t k = 0; k < kc; ++k) dst[k * MR + i] = src[k * A.cs];
            } else {
                for (int64_t k = 0; k < kc; ++k) dst[k * MR + i] = 0.0;
            }
        }
    }
}

/// C rows [m0, m1) of the product.
void gemmRows(int64_t m0, int64_t m1, int64_t N, int64_t K, const MatView& A, const MatView& B, double* C, int64_t ldc,
              bool accumulate) {
    const int64_t M = m1 - m0;
    if (M <= 0 || N <= 0) return;
    if (K == 0) {
        if (!accumulate)
            for (int64_t i = m0; i < m1; ++i) std::fill(C + i * ldc, C + i * ldc + N, 0.0);
        return;
    }
    const int64_t ncMax = std::min(NC, (N + NR - 1) / NR * NR);
    const int64_t kcMax = std::min(KC, K);
    const int64_t mcMax = std::min(MC, (M + MR - 1) / MR * MR);
    std::vector<double> bp(static_cast<size_t>(kcMax * ((ncMax + NR - 1) / NR * NR)));
    std::vector<double> ap(static_cast<size_t>(kcMax * ((mcMax + MR - 1) / MR * MR)));
    double acc[MR * NR];
    for (int64_t jc = 0; jc < N; jc += NC) {
        const int64_t nc = std::min(NC, N - jc);
        for (int64_t pc = 0; pc < K; pc += KC) {
            const int64_t kc = std::min(KC, K - pc);
            const bool add = accumulate || pc > 0;
            packB(B, pc, kc, jc, nc, bp.data());
            for (int64_t ic = m0; ic < m1; ic += MC) {
                const int64_t mc = std::min(MC, m1 - ic);
                packA(A, ic, mc, pc, kc, ap.data());
                for (int64_t jr = 0; jr < nc; jr += NR) {
                    const int64_t nr = std::min(NR, nc - jr);
                    for (int64_t ir = 0; ir < mc; ir += MR) {
                        const int64_t mr = std::min(MR, mc - ir);
                        microKernel(kc, ap.data() + ir * kc, bp.data() + jr * kc, acc);
                        for (int64_t i = 0; i < mr; ++i) {
                            double* crow = C + (ic + ir + i) * ldc + jc + jr;
                            const double* arow = acc + i * NR;
                            if (add)
                                for (int64_t j = 0; j < nr; ++j) crow[j] += arow[j];
                            else
                                for (int64_t j = 0; j < nr; ++j) crow[j] = arow[j];
                        }
                    }
                }
            }
        }
    }
}

}  // namespace

void gemm(int64_t M, int64_t N, int64_t K, MatView A, MatView B, double* C, int64_t ldc, bool accumulate) {
    // Two threads only pay off for products of a few million multiply-adds; each thread owns a
    // contiguous band of rows, so every element's summation order is the same either way.
    const double work = double(M) * double(N) * double(K);
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    if (work < 4.0e6 || hw < 2 || M < 2 * MR) {
        gemmRows(0, M, N, K, A, B, C, ldc, accumulate);
        return;
    }
    const int64_t half = (M / 2 + MR - 1) / MR * MR;
    std::thread t([&] { gemmRows(half, M, N, K, A, B, C, ldc, accumulate); });
    gemmRows(0, half, N, K, A, B, C, ldc, accumulate);
    t.join();
}

}  // namespace fxray::kern
