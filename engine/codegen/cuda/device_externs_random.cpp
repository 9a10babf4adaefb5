// Device externs for random ops: rand / rand_like, randn / randn_like, randperm and native_dropout draw the reference
// executor's stream on the device (random_kernels.h), continuing the run's generator. Listed in
// deviceExternTable().
#include "codegen/cuda/device_externs.h"
#include "codegen/cuda/random_kernels.h"

namespace fxray::cg::cuda {

namespace {

/// rand(size, ...) / rand_like(self, ...): uniforms from the run's generator, as the reference.
Expected<bool> randOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    if (!om || !uniformSupports(om->dtype) || !om->isContiguous()) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    auto done = uniformFill(c.context().rng, **o);
    if (!done.ok()) return done.error();
    if (*done) ++c.stats().deviceExterns;
    return *done;
}

/// randn(size, ...) / randn_like(self, ...): Box-Muller normals from the run's generator, as the
/// reference.
Expected<bool> randnOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    if (!om || !uniformSupports(om->dtype) || !om->isContiguous()) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    auto done = normalFill(c.context().rng, **o);
    if (!done.ok()) return done.error();
    if (*done) ++c.stats().deviceExterns;
    return *done;
}

/// prims.inductor_seeds(count, device): the reference's 53-bit seeds, drawn from the run's
/// generator here and copied over (a handful of words).
Expected<bool> inductorSeedsOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    if (!om || om->dtype != DType::Int64 || !om->isContiguous()) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    std::vector<int64_t> seeds(static_cast<size_t>(om->numel()));
    for (auto& v : seeds) v = static_cast<int64_t>(c.context().rng() >> 11);
    if (!seeds.empty())
        if (Status s = check(runtime().cu.cuMemcpyHtoD((*o)->address(), seeds.data(), seeds.size() * sizeof(int64_t)),
                             "writing Inductor's seeds");
            !s.ok())
            return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// prims.inductor_random(size, seed, mode): the reference's uniforms or normals from a generator
/// seeded by the seed tensor alone (its one word read back).
Expected<bool> inductorRandomOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    const OpArgs* A = c.args();
    auto seed = c.view(1);
    if (!om || !A || !uniformSupports(om->dtype) || !om->isContiguous() || !seed || seed->meta.numel() != 1 ||
        seed->meta.dtype != DType::Int64)
        return false;
    const std::string& mode = (*A)[2].s;
    if (mode != "rand" && mode != "randn") return false;
    int64_t value = 0;
    if (Status s = check(runtime().cu.cuMemcpyDtoH(&value, seed->address(), sizeof(value)), "reading Inductor's seed");
        !s.ok())
        return s.error();
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    std::mt19937_64 gen(static_cast<uint64_t>(value));
    auto done = mode == "rand" ? uniformFill(gen, **o) : normalFill(gen, **o);
    if (!done.ok()) return done.error();
    if (*done) ++c.stats().deviceExterns;
    return *done;
}

/// randperm(n, ...): the reference's shuffle from the run's generator.
Expected<bool> randpermOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    if (!om || !randpermSupports(om->dtype) || !om->isContiguous() || om->shape.size() != 1) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    auto done = randpermFill(c.context().rng, **o);
    if (!done.ok()) return done.error();
    if (*done) ++c.stats().deviceExterns;
    return *done;
}

/// native_dropout(input, p, train) -> (input * mask * scale, mask); inactive (train None or
/// false, or p == 0): (input, ones) without drawing; p >= 1: zeros without drawing.
Expected<bool> nativeDropoutOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    auto x = c.view(0);
    if (!A || !x || c.outCount() != 2 || !c.hasOut(0) || !c.hasOut(1)) return false;
    const TensorMeta &ym = *c.outMeta(0), &mm = *c.outMeta(1);
    const double p = A->toDouble(1);
    const bool active = !A->isNone(2) && A->toBool(2) && p > 0.0;
    if (mm.dtype != DType::Bool || !mm.isContiguous() || ym.dtype != x->meta.dtype) return false;
    if (active && (!uniformSupports(x->meta.dtype) || !ym.isContiguous())) return false;
    auto outs = c.outs(2);
    if (!outs.ok()) return outs.error();
    const DeviceView &y = *(*outs)[0], &mask = *(*outs)[1];
    auto fill = [](const DeviceView& v, unsigned char byte) {
        const size_t item = dtypeItemSize(v.meta.dtype);
        return check(runtime().cu.cuMemsetD8(v.base + static_cast<CUdeviceptr>(v.meta.offset) * item, byte,
                                             static_cast<size_t>(v.meta.numel()) * item),
                     "filling a dropout output");
    };
    if (!active || p >= 1.0) {
        Status s = active ? fill(y, 0) : stridedCopy(*x, y);
        if (s.ok()) s = fill(mask, active ? 0 : 1);
        if (!s.ok()) return s.error();
        ++c.stats().deviceExterns;
        return true;
    }
    auto done = dropout(c.context().rng, *x, p, y, mask);
    if (!done.ok()) return done.error();
    if (*done) ++c.stats().deviceExterns;
    return *done;
}

}  // namespace

const std::vector<DeviceExtern>& randomDeviceExterns() {
    static const std::vector<DeviceExtern> t = {
        {"rand", randOnDevice},
        {"randn", randnOnDevice},
        {"inductor_seeds", inductorSeedsOnDevice},
        {"inductor_random", inductorRandomOnDevice},
        {"randperm", randpermOnDevice},
        {"native_dropout", nativeDropoutOnDevice},
    };
    return t;
}

}  // namespace fxray::cg::cuda
