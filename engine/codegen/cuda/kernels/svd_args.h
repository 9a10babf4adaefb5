#ifndef FXRAY_SVD_ARGS_H
#define FXRAY_SVD_ARGS_H
// The argument block of kernels/svd.cu, shared by the host code (codegen/cuda/linalg_svd.cpp) and
// the device code. Plain C types only: NVRTC compiles it without the host's headers.

// One thread per matrix of A (dense [batches, m, n]); k = min(m, n), reduced factors. U [.., m, k]
// and Vh [.., k, n] are written through their row / column strides, batches u/vBatch apart; S is
// dense [batches, k]. pinv: R dense [batches, n, m]; atol / rtol per batch (stride 0: one value),
// fp64 or fp32 (the *F64 flags).
struct FxSvdArgs {
    long long batches, m, n;
    int wantUV;
    long long uRow, uCol, uBatch, vRow, vCol, vBatch;
    long long atolStride, rtolStride;
    int hasAtol, hasRtol, atolF64, rtolF64;
    double defaultRtol;
};

#endif
