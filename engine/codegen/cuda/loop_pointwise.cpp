// Host side of kernels/loop_pointwise.cu: operands broadcast into dense copies, one launch.
#include "codegen/cuda/loop_pointwise.h"

#include "codegen/cuda/kernel_module.h"

#include <algorithm>

namespace fxray::cg::cuda {

namespace {

KernelModule& loopModule() {
    static KernelModule* m = new KernelModule("fxray_loop_pointwise", {"loop_pointwise.cu"});  // never destroyed
    return *m;
}

const char* nameOf(LoopOp op) {
    switch (op) {
    case LoopOp::Gcd: return "fx_gcd_";
    case LoopOp::Lcm: return "fx_lcm_";
    case LoopOp::Igamma: return "fx_igamma_";
    default: return "fx_igammac_";
    }
}

const char* suffixOf(DType t) {
    switch (t) {
    case DType::Int64: return "i64";
    case DType::Int32: return "i32";
    case DType::Float64: return "f64";
    default: return "f32";
    }
}

/// v itself when it already has out's shape densely, else a broadcast dense copy in tmp.
Expected<DeviceView> broadcastDense(const DeviceView& v, const TensorMeta& out, DeviceBuffer& tmp) {
    if (v.meta.shape == out.shape && v.meta.isContiguous()) return v;
    auto buf =
        DeviceBuffer::allocate(std::max<size_t>(1, static_cast<size_t>(out.numel()) * dtypeItemSize(v.meta.dtype)));
    if (!buf.ok()) return buf.error();
    tmp = std::move(buf).value();
    DeviceView d{tmp.ptr(), TensorMeta::contiguous(out.shape, v.meta.dtype)};
    if (Status s = stridedCopy(v, d); !s.ok()) return s.error();
    return d;
}

}  // namespace

Expected<std::string> loopPointwiseSource() { return loopModule().source(); }

bool loopPointwiseSupports(LoopOp op, DType t) {
    if (op == LoopOp::Gcd || op == LoopOp::Lcm) return t == DType::Int64 || t == DType::Int32;
    return t == DType::Float32 || t == DType::Float64;
}

Status loopPointwise(LoopOp op, const DeviceView& a, const DeviceView& b, const DeviceView& out) {
    const DType t = out.meta.dtype;
    if (!loopPointwiseSupports(op, t) || a.meta.dtype != t || b.meta.dtype != t || !out.meta.isContiguous())
        return makeError("device elementwise loop: operands and a dense output of one supported dtype");
    const int64_t n = out.meta.numel();
    if (n == 0) return Status::success();
    DeviceBuffer ta, tb;
    auto ad = broadcastDense(a, out.meta, ta);
    if (!ad.ok()) return ad.error();
    auto bd = broadcastDense(b, out.meta, tb);
    if (!bd.ok()) return bd.error();
    auto fn = loopModule().function(std::string(nameOf(op)) + suffixOf(t));
    if (!fn.ok()) return fn.error();
    CUdeviceptr pa = ad->address(), pb = bd->address(), py = out.address();
    long long count = n;
    void* params[] = {&pa, &pb, &py, &count};
    const int64_t cap = static_cast<int64_t>(std::max(1, runtime().smCount)) * 32;
    return launchGrid(*fn, static_cast<unsigned>(std::clamp<int64_t>((n + 255) / 256, 1, cap)), 1, 256, params,
                      nameOf(op));
}

}  // namespace fxray::cg::cuda
