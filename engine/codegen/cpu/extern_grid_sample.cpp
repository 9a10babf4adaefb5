// Extern kernels of the CPU backend for grid sampling that Inductor does not lower but runs as
// fallback kernels: grid_sampler_3d and the backwards grid_sampler_2d_backward,
// grid_sampler_3d_backward and cudnn_grid_sampler_backward (the 2-D forward is lowered, its
// decomposition). The backward scatters each output position's gradient into the input corners
// it read, a data-dependent write no loop nest over the output expresses. Their table:
// extern_table.h gridSampleExterns().
//
// Handled: (bi/tri)linear interpolation with zero, border or reflection padding, over two or
// three spatial dims, as ATen's GridSampler.h computes it: coordinates unnormalised from
// [-1, 1] (align_corners or not), then clipped to the input (border) or reflected about its
// edges and clipped (reflection), the position's gradient multiplied by those maps' slopes (0 or
// +-1); corners outside the input read zero. Nearest and bicubic interpolation, non-float data
// and non-finite grid positions (where CPU and CUDA disagree) return false before writing: the
// reference kernel (exec/ops/grid_sample.cpp) then runs them, a reported fallback.
#include "codegen/cpu/extern_table.h"

#include "codegen/cpu/extern_util.h"
#include "exec/ops/kernel_util.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace fxray::cg::cpu {

namespace {

/// Sizes of one sampling: input (N, C, spatial...) and grid (N, out spatial..., nsp), spatial dims
/// in tensor order (D, H, W); the grid's last dim holds them reversed (x for W).
struct Sampling {
    int nsp = 2;
    int64_t N = 0, C = 0, inSize = 1, outSize = 1;
    std::array<int64_t, 3> in{1, 1, 1};
    bool alignCorners = false;
    int padding = 0;  ///< 0 zeros, 1 border, 2 reflection
};

std::optional<Sampling> samplingOf(const Tensor& input, const Tensor& grid, bool alignCorners, int padding = 0) {
    Sampling s;
    s.nsp = static_cast<int>(input.dim()) - 2;
    if ((s.nsp != 2 && s.nsp != 3) || grid.dim() != input.dim() || grid.shape().back() != s.nsp ||
        grid.shape()[0] != input.shape()[0] || !isFloating(input.dtype()) || !isFloating(grid.dtype()))
        return std::nullopt;
    s.N = input.shape()[0];
    s.C = input.shape()[1];
    for (int k = 0; k < s.nsp; ++k) {
        s.in[static_cast<size_t>(k)] = input.shape()[static_cast<size_t>(2 + k)];
        s.inSize *= s.in[static_cast<size_t>(k)];
        s.outSize *= grid.shape()[static_cast<size_t>(1 + k)];
    }
    s.alignCorners = alignCorners;
    s.padding = padding;
    return s;
}

/// ATen's clip_coordinates_set_grad: in clamped to [0, size - 1]; slope 0 where clamped.
double clipCoordinate(double in, int64_t size, double& slope) {
    if (in <= 0) {
        slope = 0;
        return 0;
    }
    const double max = static_cast<double>(size - 1);
    if (in >= max) {
        slope = 0;
        return max;
    }
    slope = 1;
    return in;
}

/// ATen's reflect_coordinates_set_grad: in reflected into [twiceLow / 2, twiceHigh / 2]; slope
/// +-1 by the number of reflections.
double reflectCoordinate(double in, int64_t twiceLow, int64_t twiceHigh, double& slope) {
    if (twiceLow == twiceHigh) {
        slope = 0;
        return 0;
    }
    const double min = static_cast<double>(twiceLow) / 2, span = static_cast<double>(twiceHigh - twiceLow) / 2;
    in -= min;
    double sign = 1;
    if (in < 0) sign = -1, in = -in;
    const double extra = std::fmod(in, span);
    const int64_t flips = static_cast<int64_t>(std::floor(in / span));
    slope = flips % 2 == 0 ? sign : -sign;
    return flips % 2 == 0 ? extra + min : span - extra + min;
}

/// One output position's corners: flat input offsets (-1 outside), weights, and the weights'
/// derivatives along each spatial dim (unnormalisation's factor included).
struct Corners {
    int count = 0;
    std::array<int64_t, 8> offset{};
    std::array<double, 8> weight{};
    std::array<std::array<double, 3>, 8> dweight{};
};

/// The corners of grid point `g` (nsp coordinates, x first); false for a non-finite position.
bool cornersOf(const Sampling& s, const double* g, Corners& c) {
    std::array<double, 3> pos{}, lo{}, scale{};
    for (int k = 0; k < s.nsp; ++k) {
        const double coord = g[s.nsp - 1 - k];
        const int64_t size = s.in[static_cast<size_t>(k)];
        if (!std::isfinite(coord)) return false;
        const size_t kk = static_cast<size_t>(k);
        scale[kk] = s.alignCorners ? static_cast<double>(size - 1) / 2 : static_cast<double>(size) / 2;
        pos[kk] = s.alignCorners ? (coord + 1) / 2 * static_cast<double>(size - 1)
                                 : ((coord + 1) * static_cast<double>(size) - 1) / 2;
        if (s.padding != 0) {
            double reflectSlope = 1, clipSlope = 1;
            if (s.padding == 2)
                pos[kk] = s.alignCorners ? reflectCoordinate(pos[kk], 0, 2 * (size - 1), reflectSlope)
                                         : reflectCoordinate(pos[kk], -1, 2 * size - 1, reflectSlope);
            pos[kk] = clipCoordinate(pos[kk], size, clipSlope);
            scale[kk] *= reflectSlope * clipSlope;
        }
        lo[kk] = std::floor(pos[kk]);
    }
    c.count = 1 << s.nsp;
    for (int corner = 0; corner < c.count; ++corner) {
        int64_t off = 0;
        bool inside = true;
        std::array<double, 3> w{};
        for (int k = 0; k < s.nsp; ++k) {
            const size_t kk = static_cast<size_t>(k);
            const bool upper = (corner >> (s.nsp - 1 - k)) & 1;
            const double idx = lo[kk] + (upper ? 1.0 : 0.0);
            w[kk] = upper ? pos[kk] - lo[kk] : lo[kk] + 1.0 - pos[kk];
            inside = inside && idx >= 0 && idx < static_cast<double>(s.in[kk]);
            off = off * s.in[kk] + static_cast<int64_t>(idx);
        }
        const size_t ci = static_cast<size_t>(corner);
        c.offset[ci] = inside ? off : -1;
        c.weight[ci] = 1.0;
        for (int k = 0; k < s.nsp; ++k) c.weight[ci] *= w[static_cast<size_t>(k)];
        for (int k = 0; k < s.nsp; ++k) {
            const bool upper = (corner >> (s.nsp - 1 - k)) & 1;
            double d = (upper ? 1.0 : -1.0) * scale[static_cast<size_t>(k)];
            for (int j = 0; j < s.nsp; ++j)
                if (j != k) d *= w[static_cast<size_t>(j)];
            c.dweight[ci][static_cast<size_t>(k)] = d;
        }
    }
    return true;
}

/// Linear interpolation (mode 0) with a padding mode handled here (zeros, border, reflection).
bool linearAnyPadding(const OpArgs& a, size_t interpArg) {
    return a.toInt(interpArg) == 0 && a.toInt(interpArg + 1) >= 0 && a.toInt(interpArg + 1) <= 2;
}

/// grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners).
bool gridSampler3d(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    if (outs.empty() || !outs[0] || !linearAnyPadding(a, 2)) return false;
    auto s = samplingOf(a.tensor(0), a.tensor(1), a.toBool(4), static_cast<int>(a.toInt(3)));
    if (!s || s->nsp != 3 || outs[0]->numel() != s->N * s->C * s->outSize) return false;
    const auto x = kern::toDoubles(a.tensor(0)), grid = kern::toDoubles(a.tensor(1));
    std::vector<double> y(static_cast<size_t>(outs[0]->numel()), 0.0);
    Corners c;
    for (int64_t n = 0; n < s->N; ++n)
        for (int64_t o = 0; o < s->outSize; ++o) {
            if (!cornersOf(*s, grid.data() + (n * s->outSize + o) * s->nsp, c)) return false;
            for (int64_t ch = 0; ch < s->C; ++ch) {
                const double* plane = x.data() + (n * s->C + ch) * s->inSize;
                double v = 0.0;
                for (int k = 0; k < c.count; ++k)
                    if (c.offset[static_cast<size_t>(k)] >= 0)
                        v += c.weight[static_cast<size_t>(k)] * plane[c.offset[static_cast<size_t>(k)]];
                y[static_cast<size_t>((n * s->C + ch) * s->outSize + o)] = v;
            }
        }
    kern::fromDoubles(*outs[0], y);
    return true;
}

/// grad_input (each output gradient spread over the corners by their weights) and grad_grid (the
/// corners' values times the weights' derivatives, summed over channels) into outs[0], outs[1]
/// where not null.
bool samplerBackward(const Sampling& s, const Tensor& gOut, const Tensor& input, const Tensor& gridT,
                     const std::vector<Tensor*>& outs) {
    if (outs.size() < 2 || gOut.numel() != s.N * s.C * s.outSize) return false;
    if ((outs[0] && outs[0]->numel() != input.numel()) || (outs[1] && outs[1]->numel() != gridT.numel())) return false;
    const auto go = kern::toDoubles(gOut), x = kern::toDoubles(input), grid = kern::toDoubles(gridT);
    std::vector<double> gi(x.size(), 0.0), gg(grid.size(), 0.0);
    Corners c;
    for (int64_t n = 0; n < s.N; ++n)
        for (int64_t o = 0; o < s.outSize; ++o) {
            const int64_t gpos = (n * s.outSize + o) * s.nsp;
            if (!cornersOf(s, grid.data() + gpos, c)) return false;
            std::array<double, 3> dpos{};
            for (int64_t ch = 0; ch < s.C; ++ch) {
                const int64_t plane = (n * s.C + ch) * s.inSize;
                const double g = go[static_cast<size_t>((n * s.C + ch) * s.outSize + o)];
                for (int k = 0; k < c.count; ++k) {
                    const size_t kk = static_cast<size_t>(k);
                    if (c.offset[kk] < 0) continue;
                    const size_t e = static_cast<size_t>(plane + c.offset[kk]);
                    gi[e] += c.weight[kk] * g;
                    for (int d = 0; d < s.nsp; ++d)
                        dpos[static_cast<size_t>(d)] += x[e] * c.dweight[kk][static_cast<size_t>(d)] * g;
                }
            }
            for (int d = 0; d < s.nsp; ++d)
                gg[static_cast<size_t>(gpos + s.nsp - 1 - d)] = dpos[static_cast<size_t>(d)];
        }
    if (outs[0]) kern::fromDoubles(*outs[0], gi);
    if (outs[1]) kern::fromDoubles(*outs[1], gg);
    return true;
}

/// grid_sampler_{2,3}d_backward(grad_output, input, grid, interpolation_mode, padding_mode,
/// align_corners, output_mask) -> (grad_input, grad_grid).
bool gridSamplerBackward(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    if (!linearAnyPadding(a, 3)) return false;
    auto s = samplingOf(a.tensor(1), a.tensor(2), a.toBool(5), static_cast<int>(a.toInt(4)));
    return s && samplerBackward(*s, a.tensor(0), a.tensor(1), a.tensor(2), outs);
}

/// cudnn_grid_sampler_backward(self, grid, grad_output) -> (grad_self, grad_grid): bilinear,
/// zero padding, corners aligned.
bool cudnnGridSamplerBackward(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    auto s = samplingOf(a.tensor(0), a.tensor(1), true);
    return s && s->nsp == 2 && samplerBackward(*s, a.tensor(2), a.tensor(0), a.tensor(1), outs);
}

}  // namespace

const std::vector<CpuExtern>& gridSampleExterns() {
    static const std::vector<CpuExtern> t = {
        {"grid_sampler_3d", gridSampler3d},
        {"grid_sampler_backward", gridSamplerBackward},
        {"cudnn_grid_sampler_backward", cudnnGridSamplerBackward},
    };
    return t;
}

}  // namespace fxray::cg::cpu
