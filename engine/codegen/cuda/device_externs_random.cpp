// Device externs for random ops: rand / rand_like draw the reference executor's stream on the
// device (random_kernels.h), continuing the run's generator. Listed in deviceExternTable().
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

}  // namespace

const std::vector<DeviceExtern>& randomDeviceExterns() {
    static const std::vector<DeviceExtern> t = {
        {"rand", randOnDevice},
    };
    return t;
}

}  // namespace fxray::cg::cuda
