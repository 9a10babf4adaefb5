// Extern kernels of the CPU backend for antialiased bilinear resampling, _upsample_bilinear2d_aa
// and its backward. Each output position reads a window of input positions whose start and length
// vary with the position (a triangle filter stretched by the downscaling factor, normalised per
// position), which the kernel IR's fixed-tap loads do not express; Inductor has no lowering for
// it either and runs ATen's kernel. Their table: extern_table.h upsampleAaExterns().
//
// The filter is ATen's (UpSampleKernel.cpp's _compute_indices_weights_aa, as the reference's
// exec/ops/upsample.cpp computes it); the two dims are applied separably in double. Shapes that
// do not line up return false before writing: the reference kernel then reports them.
#include "codegen/cpu/extern_table.h"

#include "codegen/cpu/extern_util.h"
#include "exec/ops/kernel_util.h"
#include "exec/ops/upsample_filter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

namespace fxray::cg::cpu {

namespace {

std::optional<double> optScale(const OpArgs& a, size_t i) {
    if (i >= a.size() || a.isNone(i)) return std::nullopt;
    return a.toDouble(i);
}

/// Resamples planes of (inH, inW) to (outH, outW) with weights wh (outH x inH), ww (outW x inW);
/// `transpose` runs the adjoint (gradient of outputs to inputs) instead.
std::vector<double> resample(const std::vector<double>& x, int64_t planes, int64_t inH, int64_t inW, int64_t outH,
                             int64_t outW, const std::vector<double>& wh, const std::vector<double>& ww,
                             bool transpose) {
    std::vector<double> y(static_cast<size_t>(planes * outH * outW), 0.0), row(static_cast<size_t>(outH * inW));
    auto W = [](const std::vector<double>& m, int64_t cols, int64_t r, int64_t c) {
        return m[static_cast<size_t>(r * cols + c)];
    };
    for (int64_t p = 0; p < planes; ++p) {
        const double* xp = x.data() + p * inH * inW;
        double* yp = y.data() + p * outH * outW;
        // first along H: row[oh][iw] = sum over ih of wH(oh, ih) x[ih][iw]
        std::fill(row.begin(), row.end(), 0.0);
        for (int64_t oh = 0; oh < outH; ++oh)
            for (int64_t ih = 0; ih < inH; ++ih) {
                const double w = transpose ? W(wh, outH, ih, oh) : W(wh, inH, oh, ih);
                if (w == 0.0) continue;
                for (int64_t iw = 0; iw < inW; ++iw) row[static_cast<size_t>(oh * inW + iw)] += w * xp[ih * inW + iw];
            }
        for (int64_t oh = 0; oh < outH; ++oh)
            for (int64_t ow = 0; ow < outW; ++ow) {
                double acc = 0.0;
                for (int64_t iw = 0; iw < inW; ++iw) {
                    const double w = transpose ? W(ww, outW, iw, ow) : W(ww, inW, ow, iw);
                    acc += w * row[static_cast<size_t>(oh * inW + iw)];
                }
                yp[oh * outW + ow] = acc;
            }
    }
    return y;
}

/// _upsample_bilinear2d_aa(self, output_size, align_corners, scales_h, scales_w).
bool upsampleAa(const OpArgs& a, Tensor& out) {
    const Tensor& x = a.tensor(0);
    const auto os = a.toIntList(1);
    if (x.dim() != 4 || os.size() != 2 || os[0] <= 0 || os[1] <= 0) return false;
    const int64_t planes = x.shape()[0] * x.shape()[1], inH = x.shape()[2], inW = x.shape()[3];
    if (inH <= 0 || inW <= 0 || out.numel() != planes * os[0] * os[1]) return false;
    const bool align = a.toBool(2);
    const auto wh = kern::aaFilterMatrix(inH, os[0], align, optScale(a, 3)),
               ww = kern::aaFilterMatrix(inW, os[1], align, optScale(a, 4));
    kern::fromDoubles(out, resample(kern::toDoubles(x), planes, inH, inW, os[0], os[1], wh, ww, false));
    return true;
}

/// _upsample_bilinear2d_aa_backward(grad_output, output_size, input_size, align_corners, scales_h,
/// scales_w): the forward's adjoint.
bool upsampleAaBackward(const OpArgs& a, Tensor& out) {
    const Tensor& g = a.tensor(0);
    const auto os = a.toIntList(1), is = a.toIntList(2);
    if (os.size() != 2 || is.size() != 4 || g.dim() != 4 || os[0] <= 0 || os[1] <= 0 || is[2] <= 0 || is[3] <= 0)
        return false;
    const int64_t planes = is[0] * is[1];
    if (g.numel() != planes * os[0] * os[1] || out.numel() != planes * is[2] * is[3]) return false;
    const bool align = a.toBool(3);
    const auto wh = kern::aaFilterMatrix(is[2], os[0], align, optScale(a, 4)),
               ww = kern::aaFilterMatrix(is[3], os[1], align, optScale(a, 5));
    kern::fromDoubles(out, resample(kern::toDoubles(g), planes, os[0], os[1], is[2], is[3], wh, ww, true));
    return true;
}

}  // namespace

const std::vector<CpuExtern>& upsampleAaExterns() {
    static const std::vector<CpuExtern> t = {
        {"upsample_bilinear2d_aa", single<upsampleAa>},
        {"upsample_bilinear2d_aa_backward", single<upsampleAaBackward>},
    };
    return t;
}

}  // namespace fxray::cg::cpu
