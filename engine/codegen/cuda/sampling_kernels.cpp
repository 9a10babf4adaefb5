// Host side of kernels/sampling.cu: argument blocks, the antialiasing filters' weights, launches.
#include "codegen/cuda/sampling_kernels.h"

#include "codegen/cuda/kernel_module.h"

#include "codegen/cuda/kernels/sampling_args.h"
#include "exec/ops/upsample_filter.h"

#include <algorithm>
#include <cmath>

namespace fxray::cg::cuda {

namespace {

KernelModule& samplingModule() {
    static KernelModule* m =
        new KernelModule("fxray_sampling", {"dtype_io.cuh", "sampling_args.h", "sampling.cu"});  // never destroyed
    return *m;
}

const char* suffixOf(DType t) {
    return t == DType::Float64 ? "f64" : t == DType::Float16 ? "f16" : t == DType::BFloat16 ? "bf16" : "f32";
}

Status launch(CUfunction fn, int64_t work, void** params, const char* what) {
    const int64_t cap = static_cast<int64_t>(std::max(1, runtime().smCount)) * 32;
    return launchGrid(fn, static_cast<unsigned>(std::clamp<int64_t>((work + 255) / 256, 1, cap)), 1, 256, params, what);
}

Status zero(const DeviceView& v) {
    return check(
        runtime().cu.cuMemsetD8(v.address(), 0, static_cast<size_t>(v.meta.numel()) * dtypeItemSize(v.meta.dtype)),
        "zeroing a gradient");
}

/// An fp32 accumulator rounded once into the fp16 / bf16 tensor `dst` of its size (dense).
Status roundInto(const DeviceView& src, const DeviceView& dst) {
    auto fn = samplingModule().function(std::string("fx_round_from_f32_") + suffixOf(dst.meta.dtype));
    if (!fn.ok()) return fn.error();
    CUdeviceptr ps = src.address(), pd = dst.address();
    int64_t n = dst.meta.numel();
    void* params[] = {&ps, &pd, &n};
    return launch(*fn, n, params, "fx_round_from_f32");
}

/// The sampling's sizes from x [N, C, in...] and grid [N, out..., nsp]; an error naming the misfit.
Expected<FxGridArgs> gridArgs(const TensorMeta& x, const TensorMeta& grid, const GridSampling& mode) {
    FxGridArgs a{};
    a.nsp = static_cast<int>(x.shape.size()) - 2;
    if ((a.nsp != 2 && a.nsp != 3) || grid.shape.size() != x.shape.size() || grid.shape.back() != a.nsp ||
        grid.shape[0] != x.shape[0] || !gridSamplingSupportsDtype(x.dtype) || grid.dtype != x.dtype)
        return makeError("device grid sampling needs a float input [N, C, in...] and grid [N, out..., nsp] alike");
    a.N = x.shape[0];
    a.C = x.shape[1];
    a.inSize = a.outSize = 1;
    for (int d = 0; d < 3; ++d) a.in[d] = 1;
    for (int k = 0; k < a.nsp; ++k) {
        a.in[3 - a.nsp + k] = x.shape[static_cast<size_t>(2 + k)];
        a.inSize *= x.shape[static_cast<size_t>(2 + k)];
        a.outSize *= grid.shape[static_cast<size_t>(1 + k)];
    }
    if (!gridSamplingSupports(mode) || (mode.interpolation == 2 && a.nsp != 2))
        return makeError("device grid sampling: an unknown mode, or bicubic sampling of a 5-D input");
    a.alignCorners = mode.alignCorners ? 1 : 0;
    a.interp = static_cast<int>(mode.interpolation);
    a.padding = static_cast<int>(mode.padding);
    return a;
}

bool dense(const DeviceView& v, DType t, int64_t numel) {
    return v.meta.isContiguous() && v.meta.dtype == t && v.meta.numel() == numel;
}

/// One dim's antialiasing filter as a dense [out, in] matrix, row o the normalised triangle
/// filter's taps (the reference's, exec/ops/upsample_filter.h),
/// with each row's nonzero span [lo, hi).
struct Band {
    std::vector<double> w;
    std::vector<int64_t> lo, hi;
};

Band aaBand(int64_t in, int64_t out, bool alignCorners, std::optional<double> scale) {
    Band b;
    b.w = kern::aaFilterMatrix(in, out, alignCorners, scale);
    return b;
}

/// The band's transpose (the adjoint's matrix, [in, out]).
Band transposed(const Band& b, int64_t in, int64_t out) {
    Band t;
    t.w.assign(b.w.size(), 0.0);
    for (int64_t o = 0; o < out; ++o)
        for (int64_t i = 0; i < in; ++i) t.w[static_cast<size_t>(i * out + o)] = b.w[static_cast<size_t>(o * in + i)];
    return t;
}

/// Fills lo / hi of a [rows, cols] band from its nonzeros (an all-zero row: an empty span).
void spans(Band& b, int64_t rows, int64_t cols) {
    b.lo.assign(static_cast<size_t>(rows), 0);
    b.hi.assign(static_cast<size_t>(rows), 0);
    for (int64_t r = 0; r < rows; ++r) {
        int64_t lo = cols, hi = 0;
        for (int64_t c = 0; c < cols; ++c)
            if (b.w[static_cast<size_t>(r * cols + c)] != 0.0) lo = std::min(lo, c), hi = c + 1;
        b.lo[static_cast<size_t>(r)] = lo < hi ? lo : 0;
        b.hi[static_cast<size_t>(r)] = lo < hi ? hi : 0;
    }
}

/// The band's weights and spans on the device, in one allocation.
Expected<DeviceBuffer> uploadBand(const Band& b) {
    const size_t wb = b.w.size() * sizeof(double), sb = b.lo.size() * sizeof(int64_t);
    auto buf = DeviceBuffer::allocate(wb + 2 * sb);
    if (!buf.ok()) return buf.error();
    const auto& cu = runtime().cu;
    if (Status s = check(cu.cuMemcpyHtoD(buf->ptr(), b.w.data(), wb), "uploading the filter weights"); !s.ok())
        return s.error();
    if (Status s = check(cu.cuMemcpyHtoD(buf->ptr() + wb, b.lo.data(), sb), "uploading the filter spans"); !s.ok())
        return s.error();
    if (Status s = check(cu.cuMemcpyHtoD(buf->ptr() + wb + sb, b.hi.data(), sb), "uploading the filter spans"); !s.ok())
        return s.error();
    return buf;
}

/// y [outer, out, inner] = band [out, cols=rows] applied along x [outer, rows, inner]'s middle dim.
Status bandApply(CUdeviceptr x, CUdeviceptr y, DType t, const Band& b, int64_t outer, int64_t rows, int64_t inner,
                 int64_t out) {
    auto wbuf = uploadBand(b);
    if (!wbuf.ok()) return wbuf.error();
    auto fn = samplingModule().function(std::string("fx_band_apply_") + suffixOf(t));
    if (!fn.ok()) return fn.error();
    FxBandArgs a{outer, rows, inner, out, rows};
    const size_t wb = b.w.size() * sizeof(double), sb = b.lo.size() * sizeof(int64_t);
    CUdeviceptr pw = wbuf->ptr(), plo = pw + wb, phi = plo + sb;
    void* params[] = {&x, &pw, &plo, &phi, &y, &a};
    return launch(*fn, outer * out * inner, params, "fx_band_apply");
}

}  // namespace

Expected<std::string> samplingOpsSource() { return samplingModule().source(); }

bool samplingSupports(DType t) { return t == DType::Float32 || t == DType::Float64; }
bool gridSamplingSupportsDtype(DType t) { return samplingSupports(t) || isHalfFloat(t); }

bool gridSamplingSupports(const GridSampling& m) {
    return m.interpolation >= 0 && m.interpolation <= 2 && m.padding >= 0 && m.padding <= 2;
}

Status gridSample(const DeviceView& x, const DeviceView& grid, const GridSampling& mode, const DeviceView& y) {
    auto a = gridArgs(x.meta, grid.meta, mode);
    if (!a.ok()) return a.error();
    if (!dense(y, x.meta.dtype, a->N * a->C * a->outSize))
        return makeError("device grid sampling needs a dense output");
    if (y.meta.numel() == 0) return Status::success();
    DeviceBuffer tx, tg;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    auto gd = denseView(grid, tg);
    if (!gd.ok()) return gd.error();
    auto fn = samplingModule().function(std::string("fx_grid_sample_") + suffixOf(x.meta.dtype));
    if (!fn.ok()) return fn.error();
    CUdeviceptr px = xd->address(), pg = gd->address(), py = y.address();
    void* params[] = {&px, &pg, &py, &*a};
    return launch(*fn, a->N * a->outSize, params, "fx_grid_sample");
}

Status gridSampleBackward(const DeviceView& gy, const DeviceView& x, const DeviceView& grid, const GridSampling& mode,
                          const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gg) {
    auto a = gridArgs(x.meta, grid.meta, mode);
    if (!a.ok()) return a.error();
    const DType t = x.meta.dtype;
    if (gy.meta.dtype != t || gy.meta.numel() != a->N * a->C * a->outSize || (gx && !dense(*gx, t, x.meta.numel())) ||
        (gg && !dense(*gg, t, grid.meta.numel())))
        return makeError("device grid sampler backward needs dense gradients of the input's dtype");
    a->wantInput = gx ? 1 : 0;
    a->wantGrid = gg ? 1 : 0;
    // fp16 / bf16: the input's gradient is summed in an fp32 accumulator, rounded once at the end.
    const bool half = isHalfFloat(t);
    DeviceBuffer acc;
    std::optional<DeviceView> sum = gx;
    if (half && gx && gx->meta.numel() > 0) {
        auto b = DeviceBuffer::allocate(static_cast<size_t>(gx->meta.numel()) * sizeof(float));
        if (!b.ok()) return b.error();
        acc = std::move(b).value();
        sum = DeviceView{acc.ptr(), TensorMeta::contiguous(gx->meta.shape, DType::Float32, gx->meta.device)};
    }
    if (sum && sum->meta.numel() > 0)
        if (Status s = zero(*sum); !s.ok()) return s;
    if (a->N * a->outSize == 0 || (!gx && !gg)) return half && acc.ptr() ? roundInto(*sum, *gx) : Status::success();
    DeviceBuffer tgy, tx, tg;
    auto gyd = denseView(gy, tgy);
    if (!gyd.ok()) return gyd.error();
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    auto gd = denseView(grid, tg);
    if (!gd.ok()) return gd.error();
    auto fn = samplingModule().function(std::string("fx_grid_sample_backward_") + suffixOf(t));
    if (!fn.ok()) return fn.error();
    CUdeviceptr pgy = gyd->address(), px = xd->address(), pg = gd->address(),
                pgx = sum ? sum->address() : CUdeviceptr{0}, pgg = gg ? gg->address() : CUdeviceptr{0};
    void* params[] = {&pgy, &px, &pg, &pgx, &pgg, &*a};
    if (Status s = launch(*fn, a->N * a->outSize, params, "fx_grid_sample_backward"); !s.ok()) return s;
    return half && acc.ptr() ? roundInto(*sum, *gx) : Status::success();
}

Status upsampleBilinearAa(const DeviceView& x, const DeviceView& y, int64_t inH, int64_t inW, int64_t outH,
                          int64_t outW, bool alignCorners, std::optional<double> scaleH, std::optional<double> scaleW,
                          bool backward) {
    const DType t = x.meta.dtype;
    if (!samplingSupports(t) || inH <= 0 || inW <= 0 || outH <= 0 || outW <= 0)
        return makeError("device antialiased resampling needs fp32/fp64 planes of positive sizes");
    // Rows and columns of the planes the two passes read and write.
    const int64_t srcH = backward ? outH : inH, srcW = backward ? outW : inW, dstH = backward ? inH : outH,
                  dstW = backward ? inW : outW;
    if (x.meta.numel() % (srcH * srcW) != 0) return makeError("device antialiased resampling: planes do not fit");
    const int64_t planes = x.meta.numel() / (srcH * srcW);
    if (!dense(y, t, planes * dstH * dstW)) return makeError("device antialiased resampling needs a dense output");
    if (planes == 0) return Status::success();
    Band bh = aaBand(inH, outH, alignCorners, scaleH), bw = aaBand(inW, outW, alignCorners, scaleW);
    if (backward) bh = transposed(bh, inH, outH), bw = transposed(bw, inW, outW);
    spans(bh, dstH, srcH);
    spans(bw, dstW, srcW);
    DeviceBuffer tx;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    // Along H into [planes, dstH, srcW], then along W (rows of length srcW) into y.
    auto mid = DeviceBuffer::allocate(static_cast<size_t>(planes * dstH * srcW) * dtypeItemSize(t));
    if (!mid.ok()) return mid.error();
    if (Status s = bandApply(xd->address(), mid->ptr(), t, bh, planes, srcH, srcW, dstH); !s.ok()) return s;
    return bandApply(mid->ptr(), y.address(), t, bw, planes * dstH, srcW, 1, dstW);
}

}  // namespace fxray::cg::cuda
