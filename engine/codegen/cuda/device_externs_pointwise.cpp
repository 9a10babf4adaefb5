// Device externs for elementwise ops whose scalar function loops (gcd, lcm, igamma, igammac:
// loop_pointwise.h). Operands of another dtype than the output (type promotion) stay on the host.
// Listed in deviceExternTable().
#include "codegen/cuda/device_externs.h"
#include "codegen/cuda/loop_pointwise.h"

namespace fxray::cg::cuda {

namespace {

template <LoopOp Op>
Expected<bool> loopOnDevice(DeviceCall& c) {
    // gcd(self, other), lcm(self, other), igamma(self, other), igammac(self, other)
    const TensorMeta* om = c.out0();
    if (!om || !om->isContiguous() || !loopPointwiseSupports(Op, om->dtype)) return false;
    auto a = c.view(0), b = c.view(1);
    if (!a || !b || a->meta.dtype != om->dtype || b->meta.dtype != om->dtype) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = loopPointwise(Op, *a, *b, **o); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

}  // namespace

const std::vector<DeviceExtern>& pointwiseDeviceExterns() {
    static const std::vector<DeviceExtern> t = {
        {"gcd", loopOnDevice<LoopOp::Gcd>},
        {"lcm", loopOnDevice<LoopOp::Lcm>},
        {"igamma", loopOnDevice<LoopOp::Igamma>},
        {"igammac", loopOnDevice<LoopOp::Igammac>},
    };
    return t;
}

}  // namespace fxray::cg::cuda
