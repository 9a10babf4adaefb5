// Extern kernels of the CPU backend for random ops (randperm, native_dropout, rand/randn and
// Inductor's seed ops). They draw from fxray's own generator (ExecContext::rng, a seeded
// mt19937_64) with the same draws in the same order as the reference executor's kernels
// (exec/ops/random.cpp), so that a CPU run and a reference run with one seed give the same
// permutation and the same dropout mask. Neither reproduces PyTorch's Philox streams: where a run
// is compared with PyTorch, the random nodes are pinned to PyTorch's recorded values and these
// kernels are not used. Attached by qualname (cpu_ops.cpp qualnameExterns()).
#include "codegen/cpu/cpu_ops.h"
#include "codegen/cpu/extern_table.h"
#include "exec/ops/kernel_util.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

namespace fxray::cg::cpu {

namespace {

/// Uniform in [0, 1) from the top 53 bits of one draw (the reference kernels' rule).
double uniform01(ExecContext& ctx) { return static_cast<double>(ctx.rng() >> 11) * 0x1.0p-53; }

bool randperm(const OpArgs&, Tensor& out, ExecContext& ctx) {
    const int64_t n = out.numel();
    std::vector<double> perm(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = static_cast<double>(i);
    // Fisher-Yates from the back; rejection on the 64-bit draw keeps every bound unbiased.
    for (uint64_t i = static_cast<uint64_t>(n); i > 1; --i) {
        const uint64_t limit = UINT64_MAX - UINT64_MAX % i;
        uint64_t r = ctx.rng();
        while (r >= limit) r = ctx.rng();
        std::swap(perm[i - 1], perm[r % i]);
    }
    kern::fromDoubles(out, perm);
    return true;
}

/// native_dropout(input, p, train) -> (input * mask * scale, mask); inactive (eval, or p == 0):
/// (input, ones) without drawing.
bool nativeDropout(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext& ctx) {
    if (outs.size() != 2 || !outs[0] || !outs[1]) return false;
    const Tensor& in = a.tensor(0);
    const double p = a.toDouble(1);
    const bool active = !a.isNone(2) && a.toBool(2) && p > 0.0;
    if (active && !isFloating(in.dtype())) return false;
    std::vector<double> x = kern::toDoubles(in);
    std::vector<double> mask(x.size(), 1.0);
    if (active && p >= 1.0) {
        std::fill(x.begin(), x.end(), 0.0);
        std::fill(mask.begin(), mask.end(), 0.0);
    } else if (active) {
        // The scale is rounded to the tensor's dtype first, as PyTorch's kernel multiplies by a
        // float scale.
        const double scale =
            kern::roundTo(1.0 / (1.0 - p), in.dtype() == DType::Float64 ? DType::Float64 : DType::Float32);
        for (size_t i = 0; i < x.size(); ++i) {
            const bool keep = uniform01(ctx) >= p;
            mask[i] = keep ? 1.0 : 0.0;
            x[i] = keep ? x[i] * scale : 0.0;
        }
    }
    kern::fromDoubles(*outs[0], x);
    kern::fromDoubles(*outs[1], mask);
    return true;
}

/// rand / rand_like: one uniform draw per element in row-major order, as the reference kernel.
bool uniform(const OpArgs&, const std::vector<Tensor*>& outs, ExecContext& ctx) {
    if (outs.empty() || !outs[0] || !isFloating(outs[0]->dtype())) return false;
    std::vector<double> vals(static_cast<size_t>(outs[0]->numel()));
    for (auto& v : vals) v = uniform01(ctx);
    kern::fromDoubles(*outs[0], vals);
    return true;
}

/// randn / randn_like: one standard normal per element in row-major order by Box-Muller from two
/// draws (a draw again while the first is 0), as the reference kernel.
bool normal(const OpArgs&, const std::vector<Tensor*>& outs, ExecContext& ctx) {
    if (outs.empty() || !outs[0] || !isFloating(outs[0]->dtype())) return false;
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    std::vector<double> vals(static_cast<size_t>(outs[0]->numel()));
    for (auto& v : vals) {
        double u1 = uniform01(ctx);
        while (u1 <= 0.0) u1 = uniform01(ctx);
        const double u2 = uniform01(ctx);
        v = std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
    }
    kern::fromDoubles(*outs[0], vals);
    return true;
}

/// prims.inductor_seeds(count, device): count seeds of 53 bits from the run's generator, as the
/// reference kernel draws them.
bool inductorSeeds(const OpArgs&, const std::vector<Tensor*>& outs, ExecContext& ctx) {
    if (outs.empty() || !outs[0]) return false;
    std::vector<double> vals(static_cast<size_t>(outs[0]->numel()));
    for (auto& v : vals) v = static_cast<double>(ctx.rng() >> 11);
    kern::fromDoubles(*outs[0], vals);
    return true;
}

/// prims.inductor_random(size, seed, mode): uniforms ("rand") or normals ("randn") from a
/// generator seeded by the 0-d seed tensor alone, as the reference kernel.
bool inductorRandom(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    if (outs.empty() || !outs[0] || !isFloating(outs[0]->dtype()) || a.tensor(1).numel() != 1) return false;
    const std::string& mode = a[2].s;
    if (mode != "rand" && mode != "randn") return false;
    ExecContext seeded(static_cast<uint64_t>(kern::toDoubles(a.tensor(1))[0]));
    std::vector<Tensor*> one{outs[0]};
    return mode == "rand" ? uniform(a, one, seeded) : normal(a, one, seeded);
}

}  // namespace

const std::vector<CpuExtern>& randomExternKernels() {
    static const std::vector<CpuExtern> t = {
        {"randperm", [](const OpArgs& a, const std::vector<Tensor*>& outs,
                        ExecContext& ctx) { return !outs.empty() && outs[0] && randperm(a, *outs[0], ctx); }},
        {"native_dropout", nativeDropout},
        {"rand", uniform},
        {"randn", normal},
        {"inductor_seeds", inductorSeeds},
        {"inductor_random", inductorRandom},
    };
    return t;
}

}  // namespace fxray::cg::cpu
