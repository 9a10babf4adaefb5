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
        {"randperm", randpermOnDevice},
        {"native_dropout", nativeDropoutOnDevice},
    };
    return t;
}

}  // namespace fxray::cg::cuda
