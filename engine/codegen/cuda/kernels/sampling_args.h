#ifndef FXRAY_SAMPLING_ARGS_H
#define FXRAY_SAMPLING_ARGS_H
// The argument blocks of kernels/sampling.cu (grid sampling and antialiased resampling, ops
// Inductor runs as fallback kernels), shared by the host code (codegen/cuda/sampling_kernels.cpp)
// and the device code. Plain C types only: NVRTC compiles it without the host's headers.

// Grid sampling over dense input [N, C, in...] and dense grid [N, out..., nsp] (x first); nsp 2
// or 3, spatial sizes padded with leading 1s to 3 (D, H, W). interp and padding as ATen numbers
// them: bilinear / trilinear 0, nearest 1; zeros 0, border 1, reflection 2.
struct FxGridArgs {
    long long N, C, outSize, inSize;
    long long in[3];
    int nsp, alignCorners;
    int interp, padding;
    int wantInput, wantGrid;  // backward: which gradients to write
};

// A banded matrix applied along the middle dim of dense x [outer, rows, inner]:
// y[o, r, i] = sum over k in [lo[r], hi[r]) of w[r * cols + k] * x[o, k, i], y dense [outer, out, inner].
// The antialiased resampling's two separable passes and their adjoints (the transposed matrix).
struct FxBandArgs {
    long long outer, rows, inner, out, cols;
};

#endif
