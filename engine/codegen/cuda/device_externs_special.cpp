// The device externs of the elementwise ops with a looping scalar function (gcd, lcm, igamma,
// igammac: kernels/special_ops.cu) and of _efficientzerotensor (zeros). Each declines, before
// allocating, what its kernel does not handle (operand dtypes other than the output's, operands
// that do not broadcast to it): the host then runs the reference kernel, a reported fallback.
#include "codegen/cuda/device_externs.h"

#include "codegen/cuda/fallback_kernels.h"
#include "codegen/cuda/op_kernels.h"

#include <string>

namespace fxray::cg::cuda {

namespace {

bool integral(DType t) {
    return t == DType::Int64 || t == DType::Int32 || t == DType::Int16 || t == DType::Int8 || t == DType::UInt8;
}

/// op(self, other) into output 0: both of the output's dtype, broadcasting to its shape.
/// Kernel "fx_<name>_<suffix>"; igamma's take the upper flag as a last argument.
template <bool Integral, int Upper>
Expected<bool> binaryOnDevice(DeviceCall& c, const char* name) {
    const TensorMeta* om = c.out0();
    if (!om || (Integral ? !integral(om->dtype) : (om->dtype != DType::Float32 && om->dtype != DType::Float64)))
        return false;
    auto a = c.view(0), b = c.view(1);
    if (!a || !b || a->meta.dtype != om->dtype || b->meta.dtype != om->dtype) return false;
    auto ab = broadcastShape(a->meta.shape, b->meta.shape);
    if (!ab || *ab != om->shape || om->shape.size() > 8) return false;
    auto fn = opKernelModule("special_ops.cu")->function(std::string("fx_") + name + "_" + kernelSuffix(om->dtype));
    if (!fn.ok()) return fn.error();
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    DeviceBuffer ta, tb, to;
    auto ad = expandDense(*a, om->shape, ta), bd = expandDense(*b, om->shape, tb);
    if (!ad.ok()) return ad.error();
    if (!bd.ok()) return bd.error();
    // A strided output is computed dense, then copied into its layout.
    auto od = om->isContiguous() ? Expected<DeviceView>(**o) : denseBuffer(om->shape, om->dtype, to);
    if (!od.ok()) return od.error();
    int64_t n = om->numel();
    int upper = Upper;
    CUdeviceptr pa = elementAddr(*ad), pb = elementAddr(*bd), po = elementAddr(*od);
    void* params[] = {&pa, &pb, &po, &n, &upper};
    if (n > 0)
        if (Status s = launchOver(*fn, n, params, name); !s.ok()) return s.error();
    if (!om->isContiguous())
        if (Status s = stridedCopy(*od, **o); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> gcdOnDevice(DeviceCall& c) { return binaryOnDevice<true, 0>(c, "gcd"); }
Expected<bool> lcmOnDevice(DeviceCall& c) { return binaryOnDevice<true, 0>(c, "lcm"); }
Expected<bool> igammaOnDevice(DeviceCall& c) { return binaryOnDevice<false, 0>(c, "igamma"); }
Expected<bool> igammacOnDevice(DeviceCall& c) { return binaryOnDevice<false, 1>(c, "igamma"); }

/// _efficientzerotensor(size, ...): PyTorch's storage-less zero tensor, here dense zeros.
Expected<bool> zeroTensorOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    if (!om || !om->isContiguous()) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = zeroFill(**o); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

}  // namespace

const std::vector<DeviceExtern>& specialOpDeviceExterns() {
    static const std::vector<DeviceExtern> t = {
        {"gcd", gcdOnDevice},       {"lcm", lcmOnDevice},
        {"igamma", igammaOnDevice}, {"igammac", igammacOnDevice},
        {"efficient_zero_tensor", zeroTensorOnDevice},
    };
    return t;
}

}  // namespace fxray::cg::cuda
