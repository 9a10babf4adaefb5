#include "codegen/cuda/attention_tc.h"

#include "codegen/cuda/attention_common.h"
#include "codegen/cuda/dl_util.h"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <map>
#include <mutex>

namespace fxray::cg::cuda {

using namespace attn;

namespace {

/// The head dims the kernels are instantiated for (attention_tc.cu): K and Kv up to 64.
constexpr int64_t kTcHeadDim = 64;
/// Query rows per block: 4 warps of 16.
constexpr int64_t kTcRows = 64;

/// cuFuncSetAttribute from the driver the runtime opened (RTLD_NOLOAD: the same copy, not a
/// second one); the driver API table has no use for it elsewhere.
using SetAttribute = CUresult (*)(CUfunction, int, int);
SetAttribute setAttribute() {
    static SetAttribute f = [] {
        void* h = dlopen(runtime().driverLib.c_str(), RTLD_NOW | RTLD_NOLOAD);
        return h ? reinterpret_cast<SetAttribute>(dlsym(h, "cuFuncSetAttribute")) : nullptr;
    }();
    return f;
}
constexpr int kMaxDynamicSharedBytes = 8;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES

/// A kernel of attention_tc.cu allowed `bytes` of dynamic shared memory (above the 48 KiB default).
Expected<CUfunction> tcKernel(const std::string& name, unsigned bytes) {
    static std::mutex mu;
    static std::map<std::string, Status> allowed;  // per kernel, set once
    auto fn = attentionModule().function(name);
    if (!fn.ok()) return fn.error();
    std::lock_guard<std::mutex> g(mu);
    auto it = allowed.find(name);
    if (it == allowed.end()) {
        SetAttribute set = setAttribute();
        Status s = set ? check(set(*fn, kMaxDynamicSharedBytes, static_cast<int>(bytes)),
                               "allowing " + name + " its shared memory")
                       : Status(makeError("the CUDA driver lacks cuFuncSetAttribute"));
        it = allowed.emplace(name, s).first;
    }
    if (!it->second.ok()) return it->second.error();
    return fn;
}

/// fx_attn_tc_fwd: Q [64][68] and K, V [32][68], each as big and small halves; 4-byte words.
unsigned tcForwardSharedBytes() {
    const unsigned ld = kTcHeadDim + 4;
    return 4 * (2 * kTcRows * ld + 4 * 32 * ld);
}

}  // namespace

unsigned tcBackwardSharedBytes() {
    // fx_attn_tc_bwd: K, V [64][68], Q, dO [16][68], dS^T [64][20], each as big and small halves,
    // then lse and D of 16 rows; 4-byte words.
    const unsigned ld = kTcHeadDim + 4, words = 2 * (2 * 64 * ld + 2 * 16 * ld + 64 * 20) + 2 * 16;
    return words * 4;
}

Expected<CUfunction> tcBackwardKernel() { return tcKernel("fx_attn_tc_bwd_64", tcBackwardSharedBytes()); }

bool attentionUsesTensorCores(const TensorMeta& q, const TensorMeta& k, const TensorMeta& v) {
    if (q.dtype != DType::Float32 || q.shape.size() != 4 || k.shape.size() != 4 || v.shape.size() != 4) return false;
    const std::string force = envOr("FXRAY_ATTENTION");
    if (force == "fused" || force == "gemm") return false;
    const CudaRuntime& rt = runtime();
    if (!rt.haveDevice || rt.ccMajor < 8) return false;  // mma.sync on tf32 is sm_80+
    if (q.shape[3] > kTcHeadDim || v.shape[3] > kTcHeadDim) return false;
    // Both kernels load, with their shared memory allowed (a GPU with less per block than the
    // backward's ~95 KiB, or a failed compile, keeps the other paths).
    static const bool available = tcKernel("fx_attn_tc_fwd_64", tcForwardSharedBytes()).ok() && tcBackwardKernel().ok();
    return available;
}

Status attentionForwardTc(const DeviceView& q, const DeviceView& k, const DeviceView& v,
                          const std::optional<DeviceView>& bias, const DeviceView& out,
                          const std::optional<DeviceView>& lse, double scale, bool causal) {
    if (!sameDtype(DType::Float32, {&q, &k, &v, &out, bias ? &*bias : nullptr}))
        return makeError("the tensor-core attention kernel is fp32 only");
    auto a = argsOf(q.meta, k.meta, v.meta, bias ? &bias->meta : nullptr, out.meta, scale, causal);
    if (!a.ok()) return a.error();
    if (a->K > kTcHeadDim || a->Kv > kTcHeadDim)
        return makeError("the tensor-core attention kernel takes head dims up to 64");
    auto lsePtr = forwardLse(lse, *a);
    if (!lsePtr.ok()) return lsePtr.error();
    CUdeviceptr plse = *lsePtr;
    const int64_t rows = std::max<int64_t>(a->M, a->lseLen);
    a->tiles = (rows + kTcRows - 1) / kTcRows;
    const unsigned smem = tcForwardSharedBytes();
    auto fn = tcKernel("fx_attn_tc_fwd_64", smem);
    if (!fn.ok()) return fn.error();
    CUdeviceptr pq = q.base, pk = k.base, pv = v.base, pb = bias ? bias->base : 0, po = out.base;
    void* params[] = {&pq, &pk, &pv, &pb, &po, &plse, &*a};
    const int64_t blocks = a->B * a->H * a->tiles;
    if (blocks > INT32_MAX) return makeError("device attention: too many blocks");
    return launchGrid(*fn, static_cast<unsigned>(blocks), 1, 128, params, "fx_attn_tc_fwd", smem);
}

}  // namespace fxray::cg::cuda
