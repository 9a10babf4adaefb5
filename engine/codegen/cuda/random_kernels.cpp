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

Expected<bool> uniformFill(std::mt19937_64& rng, const DeviceView& out) {
    const DType t = out.meta.dtype;
    if (!uniformSupports(t) || !out.meta.isContiguous()) return makeError("device rand needs a dense fp32/fp64 output");
    const int64_t n = out.meta.numel();
    if (n == 0) return true;
    auto state = stateOf(rng);
    if (!state) return false;
    const size_t bytes = state->size() * sizeof(uint64_t);
    auto buf = DeviceBuffer::allocate(bytes);
    if (!buf.ok()) return buf.error();
    const auto& cu = runtime().cu;
    if (Status s = check(cu.cuMemcpyHtoD(buf->ptr(), state->data(), bytes), "uploading the generator state"); !s.ok())
        return s.error();
    auto fn = randomModule().function(std::string("fx_mt_uniform_") + (t == DType::Float64 ? "f64" : "f32"));
    if (!fn.ok()) return fn.error();
    CUdeviceptr ps = buf->ptr(), po = out.address();
    long long count = n;
    void* params[] = {&ps, &po, &count};
    // One block: 312 state words, ten warps.
    if (Status s = launchGrid(*fn, 1, 1, 320, params, "fx_mt_uniform"); !s.ok()) return s.error();
    // The advanced state back into the host generator (waits for the kernel: a later random op
    // on the host draws after these).
    if (Status s = check(cu.cuMemcpyDtoH(state->data(), buf->ptr(), bytes), "reading the generator state back");
        !s.ok())
        return s.error();
    std::ostringstream os;
    for (size_t i = 0; i < kWords; ++i) os << (*state)[i] << ' ';
    os << (*state)[kWords];
    std::istringstream is(os.str());
    if (!(is >> rng)) return makeError("device rand: the generator state could not be restored");
    return true;
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
