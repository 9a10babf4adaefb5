// Device externs for the sampling ops Inductor leaves to ATen: grid_sampler_3d (and the 2-D
// sampler's reflection padding, which its lowering rule declines), the grid sampler backwards,
// and antialiased bilinear resampling with its backward (sampling_kernels.h). Each checks what it
// handles before allocating, declining to the host otherwise. Listed in deviceExternTable().
#include "codegen/cuda/device_externs.h"
#include "codegen/cuda/sampling_kernels.h"

namespace fxray::cg::cuda {

namespace {

/// The sampler's interpolation_mode, padding_mode and align_corners from argument `first` on.
GridSampling samplingMode(const OpArgs& A, size_t first) {
    return {A.toInt(first), A.toInt(first + 1), A.toBool(first + 2)};
}

/// grid_sampler_2d / grid_sampler_3d(input, grid, interpolation_mode, padding_mode,
/// align_corners); the 2-D one where its lowering rule declines (reflection padding, bicubic).
template <size_t Rank>
Expected<bool> gridSamplerOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && samplingSupports(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A || !gridSamplingSupports(samplingMode(*A, 2)) || (Rank != 4 && A->toInt(2) == 2)) return false;
    auto x = c.view(0), grid = c.view(1);
    if (!x || !grid || x->meta.shape.size() != Rank || x->meta.dtype != om->dtype || grid->meta.dtype != om->dtype)
        return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = gridSample(*x, *grid, samplingMode(*A, 2), **o); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// grid_sampler_{2,3}d_backward(grad_output, input, grid, interpolation_mode, padding_mode,
/// align_corners, output_mask) and cudnn_grid_sampler_backward(self, grid, grad_output) (Cudnn:
/// bilinear, zero padding, corners aligned) -> (grad_input, grad_grid); bicubic for 4-D inputs.
template <bool Cudnn>
Expected<bool> gridSamplerBackwardOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    if (!A || c.outCount() != 2) return false;
    const GridSampling mode = Cudnn ? GridSampling{0, 0, true} : samplingMode(*A, 3);
    if (!gridSamplingSupports(mode)) return false;
    auto gy = c.view(Cudnn ? 2 : 0), x = c.view(Cudnn ? 0 : 1), grid = c.view(Cudnn ? 1 : 2);
    if (!gy || !x || !grid || !samplingSupports(x->meta.dtype) || grid->meta.dtype != x->meta.dtype ||
        gy->meta.dtype != x->meta.dtype || ((Cudnn || mode.interpolation == 2) && x->meta.shape.size() != 4))
        return false;
    for (size_t i = 0; i < 2; ++i)
        if (c.hasOut(i) && (!c.outMeta(i)->isContiguous() || c.outMeta(i)->dtype != x->meta.dtype)) return false;
    auto outs = c.outs(2);
    if (!outs.ok()) return outs.error();
    if (Status s = gridSampleBackward(*gy, *x, *grid, mode, (*outs)[0], (*outs)[1]); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

std::optional<double> optDouble(const OpArgs& A, size_t i) {
    if (i >= A.size() || A.isNone(i)) return std::nullopt;
    return A.toDouble(i);
}

/// _upsample_bilinear2d_aa(self, output_size, align_corners, scales_h, scales_w) and
/// _upsample_bilinear2d_aa_backward(grad_output, output_size, input_size, align_corners,
/// scales_h, scales_w).
template <bool Backward>
Expected<bool> upsampleAaOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && samplingSupports(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A) return false;
    auto x = c.view(0);
    if (!x || x->meta.dtype != om->dtype || x->meta.shape.size() != 4) return false;
    const auto os = A->toIntList(1);
    const auto is = Backward ? A->toIntList(2) : x->meta.shape;
    if (os.size() != 2 || is.size() != 4) return false;
    const size_t first = Backward ? 3 : 2;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = upsampleBilinearAa(*x, **o, is[2], is[3], os[0], os[1], A->toBool(first), optDouble(*A, first + 1),
                                      optDouble(*A, first + 2), Backward);
        !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

}  // namespace

const std::vector<DeviceExtern>& samplingDeviceExterns() {
    static const std::vector<DeviceExtern> t = {
        {"grid_sampler_2d", gridSamplerOnDevice<4>},
        {"grid_sampler_3d", gridSamplerOnDevice<5>},
        {"grid_sampler_backward", gridSamplerBackwardOnDevice<false>},
        {"cudnn_grid_sampler_backward", gridSamplerBackwardOnDevice<true>},
        {"upsample_bilinear2d_aa", upsampleAaOnDevice<false>},
        {"upsample_bilinear2d_aa_backward", upsampleAaOnDevice<true>},
    };
    return t;
}

}  // namespace fxray::cg::cuda
