// How much an fp32 GEMM gains when cuBLASLt's candidate algorithms are timed instead of taking its
// first heuristic (what fxray's cuBLASLt path and PyTorch eager both do). Built and run on the GPU
// machine (nvcc there):
//   nvcc -O2 -o /tmp/lt_algos bench/cublaslt_algos.cu -lcublasLt -lcublas && /tmp/lt_algos
// Shapes are the realistic set's GEMM-bound graphs (mlp_4k, ln_gelu_big), row-major y = x w^T and
// the two backward products, TF32 off (CUBLAS_COMPUTE_32F). Prints µs per call for cublasSgemm,
// the first heuristic, and the best of up to 32 candidates, median of 20 timed calls each.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CK(x)                                                                   \
    do {                                                                        \
        auto e_ = (x);                                                          \
        if (e_ != 0) { std::printf("error %d at %s:%d\n", (int)e_, __FILE__, __LINE__); return 1; } \
    } while (0)

namespace {

struct Shape {
    const char* name;
    int m, n, k;    // column-major C[m, n] = op(A)[m, k] op(B)[k, n]
    bool ta, tb;
};

template <class F>
float medianUs(F&& call) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < 3; ++i) call();
    std::vector<float> t;
    for (int i = 0; i < 20; ++i) {
        cudaEventRecord(a);
        call();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms * 1000.f);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// Random-looking data: all-zero operands draw less power and would clock higher than real ones.
__global__ void fill(float* x, size_t n, unsigned seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned v = (unsigned)i * 2654435761u ^ seed;
        v ^= v >> 13;
        v *= 0x5bd1e995u;
        x[i] = (float)(v >> 8) / 16777216.f - 0.5f;
    }
}

}  // namespace

int main() {
    // Row-major y[M, N] = x[M, K] w[N, K]^T is column-major y^T[N, M] = w[N,K]^T^T ... expressed
    // directly as column-major problems with their transposes.
    const Shape shapes[] = {
        {"mlp fwd  y=xW^T   2048x4096x4096", 4096, 2048, 4096, true, false},
        {"mlp dX   dy W     2048x4096x4096", 4096, 2048, 4096, false, false},
        {"mlp dW   dy^T x   4096x4096x2048", 4096, 4096, 2048, false, true},
        {"ln fc1   8192x4096x1024", 4096, 8192, 1024, true, false},
        {"ln fc2   8192x1024x4096", 1024, 8192, 4096, true, false},
        {"ln dW1   4096x1024x8192", 1024, 4096, 8192, false, true},
        {"ln dW2   1024x4096x8192", 4096, 1024, 8192, false, true},
        {"ln dX1   8192x1024x4096", 1024, 8192, 4096, false, false},
    };
    cublasHandle_t h;
    cublasLtHandle_t lt;
    CK(cublasCreate(&h));
    CK(cublasLtCreate(&lt));
    const size_t wsBytes = 64u << 20;
    void* ws;
    CK(cudaMalloc(&ws, wsBytes));
    std::printf("%-34s %10s %10s %10s %6s %5s  TFLOP/s(best)\n", "shape", "sgemm us", "heur0 us", "best us", "gain", "algos");
    for (const Shape& s : shapes) {
        const size_t la = (size_t)s.m * s.k, lb = (size_t)s.k * s.n, lc = (size_t)s.m * s.n;
        float *A, *B, *C;
        CK(cudaMalloc(&A, la * 4));
        CK(cudaMalloc(&B, lb * 4));
        CK(cudaMalloc(&C, lc * 4));
        fill<<<1024, 256>>>(A, la, 1u);
        fill<<<1024, 256>>>(B, lb, 2u);
        const float one = 1.f, zero = 0.f;
        const int lda = s.ta ? s.k : s.m, ldb = s.tb ? s.n : s.k;
        const float sg = medianUs([&] {
            cublasSgemm(h, s.ta ? CUBLAS_OP_T : CUBLAS_OP_N, s.tb ? CUBLAS_OP_T : CUBLAS_OP_N, s.m, s.n, s.k, &one, A,
                        lda, B, ldb, &zero, C, s.m);
        });
        cublasLtMatmulDesc_t d;
        CK(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        cublasOperation_t oa = s.ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = s.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
        CK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &oa, sizeof oa));
        CK(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &ob, sizeof ob));
        cublasLtMatrixLayout_t a, b, c;
        CK(cublasLtMatrixLayoutCreate(&a, CUDA_R_32F, s.ta ? s.k : s.m, s.ta ? s.m : s.k, lda));
        CK(cublasLtMatrixLayoutCreate(&b, CUDA_R_32F, s.tb ? s.n : s.k, s.tb ? s.k : s.n, ldb));
        CK(cublasLtMatrixLayoutCreate(&c, CUDA_R_32F, s.m, s.n, s.m));
        cublasLtMatmulPreference_t p;
        CK(cublasLtMatmulPreferenceCreate(&p));
        CK(cublasLtMatmulPreferenceSetAttribute(p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsBytes, sizeof wsBytes));
        cublasLtMatmulHeuristicResult_t res[32];
        int got = 0;
        CK(cublasLtMatmulAlgoGetHeuristic(lt, d, a, b, c, c, p, 32, res, &got));
        float first = 0, best = 1e30f;
        for (int i = 0; i < got; ++i) {
            const float t = medianUs([&] {
                cublasLtMatmul(lt, d, &one, A, a, B, b, &zero, C, c, C, c, &res[i].algo, ws, wsBytes, 0);
            });
            if (i == 0) first = t;
            best = std::min(best, t);
        }
        const double flop = 2.0 * s.m * s.n * s.k;
        std::printf("%-34s %10.1f %10.1f %10.1f %5.2fx %5d  %.1f\n", s.name, sg, first, best, first / best, got,
                    flop / best * 1e-6);
        cublasLtMatmulPreferenceDestroy(p);
        cublasLtMatrixLayoutDestroy(a);
        cublasLtMatrixLayoutDestroy(b);
        cublasLtMatrixLayoutDestroy(c);
        cublasLtMatmulDescDestroy(d);
        cudaFree(A);
        cudaFree(B);
        cudaFree(C);
    }
    return 0;
}
