// Host side of kernels/mt_random.cu: the generator's state out to the device and back.
#include "codegen/cuda/random_kernels.h"

#include "codegen/cuda/kernel_module.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <vector>

namespace fxray::cg::cuda {

namespace {

KernelModule& randomModule() {
    static KernelModule* m = new KernelModule("fxray_mt_random", {"mt_random.cu"});  // never destroyed
    return *m;
}

constexpr size_t kWords = std::mt19937_64::state_size;  // 312

/// The engine's state as the kernel keeps it: the 312 words and the position of the next one
/// (312: a twist comes first). libstdc++ writes exactly that as text (its array, then the
/// position) and reads it back; another library's form (the standard's: the last 312 words,
/// oldest first, no position) is not restored here, so it gives nullopt.
std::optional<std::vector<uint64_t>> stateOf(const std::mt19937_64& rng) {
    std::ostringstream os;
    os << rng;
    std::istringstream is(os.str());
    std::vector<uint64_t> v;
    uint64_t w = 0;
    while (is >> w) v.push_back(w);
    if (v.size() != kWords + 1 || v[kWords] > kWords) return std::nullopt;
    return v;
}

}  // namespace

Expected<std::string> randomOpsSource() { return randomModule().source(); }

bool uniformSupports(DType t) { return t == DType::Float32 || t == DType::Float64; }

namespace {

/// Runs `launch(state)` on the generator's state uploaded to the device, then puts the advanced
/// state back into rng (waiting for the kernel: a later random op on the host draws after these).
/// False, with nothing run, where the state cannot be read (see stateOf).
template <class Launch>
Expected<bool> withDeviceState(std::mt19937_64& rng, Launch&& launch) {
    auto state = stateOf(rng);
    if (!state) return false;
    const size_t bytes = state->size() * sizeof(uint64_t);
    auto buf = DeviceBuffer::allocate(bytes);
    if (!buf.ok()) return buf.error();
    const auto& cu = runtime().cu;
    if (Status s = check(cu.cuMemcpyHtoD(buf->ptr(), state->data(), bytes), "uploading the generator state"); !s.ok())
        return s.error();
    if (Status s = launch(buf->ptr()); !s.ok()) return s.error();
    if (Status s = check(cu.cuMemcpyDtoH(state->data(), buf->ptr(), bytes), "reading the generator state back");
        !s.ok())
        return s.error();
    std::ostringstream os;
    for (size_t i = 0; i < kWords; ++i) os << (*state)[i] << ' ';
    os << (*state)[kWords];
    std::istringstream is(os.str());
    if (!(is >> rng)) return makeError("device random op: the generator state could not be restored");
    return true;
}

}  // namespace

Expected<bool> uniformFill(std::mt19937_64& rng, const DeviceView& out) {
    const DType t = out.meta.dtype;
    if (!uniformSupports(t) || !out.meta.isContiguous()) return makeError("device rand needs a dense fp32/fp64 output");
    const int64_t n = out.meta.numel();
    if (n == 0) return true;
    auto fn = randomModule().function(std::string("fx_mt_uniform_") + (t == DType::Float64 ? "f64" : "f32"));
    if (!fn.ok()) return fn.error();
    return withDeviceState(rng, [&](CUdeviceptr ps) {
        CUdeviceptr po = out.address();
        long long count = n;
        void* params[] = {&ps, &po, &count};
        // One block: 312 state words, ten warps.
        return launchGrid(*fn, 1, 1, 320, params, "fx_mt_uniform");
    });
}

Expected<bool> normalFill(std::mt19937_64& rng, const DeviceView& out) {
    const DType t = out.meta.dtype;
    if (!uniformSupports(t) || !out.meta.isContiguous()) return makeError("device randn needs a dense fp32/fp64 output");
    const int64_t n = out.meta.numel();
    if (n == 0) return true;
    auto fn = randomModule().function(std::string("fx_box_muller_") + (t == DType::Float64 ? "f64" : "f32"));
    if (!fn.ok()) return fn.error();
    // Two draws per element, then the flag word after them.
    auto ubuf = DeviceBuffer::allocate(static_cast<size_t>(2 * n) * sizeof(double) + sizeof(int));
    if (!ubuf.ok()) return ubuf.error();
    const CUdeviceptr flag = ubuf->ptr() + static_cast<CUdeviceptr>(2 * n) * sizeof(double);
    if (Status s = check(runtime().cu.cuMemsetD8(flag, 0, sizeof(int)), "clearing randn's redraw flag"); !s.ok())
        return s.error();
    const std::mt19937_64 before = rng;
    auto drawn = uniformFill(rng, DeviceView{ubuf->ptr(), TensorMeta::contiguous({2 * n}, DType::Float64)});
    if (!drawn.ok() || !*drawn) return drawn;
    CUdeviceptr pu = ubuf->ptr(), po = out.address(), pf = flag;
    long long count = n;
    void* params[] = {&pu, &po, &pf, &count};
    const int64_t cap = static_cast<int64_t>(std::max(1, runtime().smCount)) * 32;
    if (Status s = launchGrid(*fn, static_cast<unsigned>(std::min<int64_t>((n + 255) / 256, cap)), 1, 256, params,
                              "fx_box_muller");
        !s.ok())
        return s.error();
    int redraw = 0;
    if (Status s = check(runtime().cu.cuMemcpyDtoH(&redraw, flag, sizeof(int)), "reading randn's redraw flag"); !s.ok())
        return s.error();
    if (redraw) {
        // A first draw of exactly 0 (odds 2^-53 per element): the reference draws again there,
        // which moves every later element; the host runs the op from the untouched generator.
        rng = before;
        return false;
    }
    return true;
}

bool randpermSupports(DType t) {
    return t == DType::Int64 || t == DType::Int32 || t == DType::Float32 || t == DType::Float64;
}

Expected<bool> randpermFill(std::mt19937_64& rng, const DeviceView& out) {
    const DType t = out.meta.dtype;
    if (!randpermSupports(t) || !out.meta.isContiguous() || out.meta.shape.size() != 1)
        return makeError("device randperm needs a dense 1-D int64/int32/fp32/fp64 output");
    const int64_t n = out.meta.numel();
    if (n == 0) return true;
    const char* sfx = t == DType::Int64 ? "i64" : t == DType::Int32 ? "i32" : t == DType::Float32 ? "f32" : "f64";
    auto fn = randomModule().function(std::string("fx_mt_randperm_") + sfx);
    if (!fn.ok()) return fn.error();
    auto perm = DeviceBuffer::allocate(static_cast<size_t>(n) * sizeof(int64_t));
    if (!perm.ok()) return perm.error();
    return withDeviceState(rng, [&](CUdeviceptr ps) {
        CUdeviceptr pp = perm->ptr(), po = out.address();
        long long count = n;
        void* params[] = {&ps, &pp, &po, &count};
        return launchGrid(*fn, 1, 1, 320, params, "fx_mt_randperm");
    });
}

Expected<bool> dropout(std::mt19937_64& rng, const DeviceView& x, double p, const DeviceView& y,
                       const DeviceView& mask) {
    const DType t = x.meta.dtype;
    if (!uniformSupports(t) || y.meta.dtype != t || !y.meta.isContiguous() || mask.meta.dtype != DType::Bool ||
        !mask.meta.isContiguous() || y.meta.shape != x.meta.shape || mask.meta.shape != x.meta.shape || !(p > 0.0) ||
        !(p < 1.0))
        return makeError("device dropout needs fp32/fp64 x, dense outputs of its shape and 0 < p < 1");
    const int64_t n = x.meta.numel();
    if (n == 0) return true;
    auto ubuf = DeviceBuffer::allocate(static_cast<size_t>(n) * sizeof(double));
    if (!ubuf.ok()) return ubuf.error();
    DeviceView u{ubuf->ptr(), TensorMeta::contiguous(x.meta.shape, DType::Float64)};
    auto drawn = uniformFill(rng, u);
    if (!drawn.ok() || !*drawn) return drawn;
    DeviceBuffer tx;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    auto fn = randomModule().function(std::string("fx_dropout_apply_") + (t == DType::Float64 ? "f64" : "f32"));
    if (!fn.ok()) return fn.error();
    // The scale in the tensor's precision first (the reference rounds it the same way).
    double scale = 1.0 / (1.0 - p);
    if (t == DType::Float32) scale = static_cast<double>(static_cast<float>(scale));
    CUdeviceptr px = xd->address(), pu = u.base, py = y.address(), pm = mask.address();
    long long count = n;
    void* params[] = {&px, &pu, &py, &pm, &p, &scale, &count};
    const int64_t cap = static_cast<int64_t>(std::max(1, runtime().smCount)) * 32;
    if (Status s = launchGrid(*fn, static_cast<unsigned>(std::min<int64_t>((n + 255) / 256, cap)), 1, 256, params,
                              "fx_dropout_apply");
        !s.ok())
        return s.error();
    return true;
}

}  // namespace fxray::cg::cuda
