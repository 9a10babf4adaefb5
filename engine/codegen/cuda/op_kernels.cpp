#include "codegen/cuda/op_kernels.h"

#include <algorithm>
#include <map>
#include <memory>

namespace fxray::cg::cuda {

const std::vector<std::string>& opKernelFiles() {
    static const std::vector<std::string> f = {"mask_index.cu"};
    return f;
}

KernelModule* opKernelModule(const std::string& file) {
    // One module per file, made on first use and never destroyed (the runtime outlives callers).
    static const auto* modules = [] {
        auto* m = new std::map<std::string, std::unique_ptr<KernelModule>>();
        for (const std::string& f : opKernelFiles())
            (*m)[f] = std::make_unique<KernelModule>("fxray_" + f.substr(0, f.find('.')), std::vector<std::string>{f});
        return m;
    }();
    auto it = modules->find(file);
    return it == modules->end() ? nullptr : it->second.get();
}

CUdeviceptr elementAddr(const DeviceView& v) {
    return v.base + static_cast<CUdeviceptr>(v.meta.offset) * static_cast<CUdeviceptr>(dtypeItemSize(v.meta.dtype));
}

Expected<DeviceView> denseBuffer(const std::vector<int64_t>& shape, DType t, DeviceBuffer& tmp) {
    TensorMeta m = TensorMeta::contiguous(shape, t, Device{"cuda", 0});
    auto buf = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(m.numel(), 1) * dtypeItemSize(t)));
    if (!buf.ok()) return buf.error();
    tmp = std::move(buf).value();
    return DeviceView{tmp.ptr(), m};
}

Expected<DeviceView> expandDense(const DeviceView& v, const std::vector<int64_t>& shape, DeviceBuffer& tmp) {
    if (v.meta.shape == shape && v.meta.isContiguous()) return v;
    auto d = denseBuffer(shape, v.meta.dtype, tmp);
    if (!d.ok()) return d.error();
    if (Status s = stridedCopy(v, *d); !s.ok()) return s.error();
    return *d;
}

Status launchOver(CUfunction fn, int64_t work, void** params, const char* what) {
    const int64_t cap = static_cast<int64_t>(std::max(1, runtime().smCount)) * 32;
    const int64_t blocks = std::clamp<int64_t>((work + 255) / 256, 1, cap);
    return launchGrid(fn, static_cast<unsigned>(blocks), 1, 256, params, what);
}

const char* kernelSuffix(DType t) {
    switch (t) {
    case DType::Float32: return "f32";
    case DType::Float64: return "f64";
    case DType::Int64: return "i64";
    case DType::Int32: return "i32";
    case DType::Int16: return "i16";
    case DType::Int8: return "i8";
    case DType::UInt8: return "u8";
    default: return nullptr;
    }
}

Status zeroFill(const DeviceView& v) {
    const size_t bytes = static_cast<size_t>(v.meta.numel() * dtypeItemSize(v.meta.dtype));
    if (bytes == 0) return Status::success();
    return check(runtime().cu.cuMemsetD8(elementAddr(v), 0, bytes), "zeroing an output");
}

}  // namespace fxray::cg::cuda
