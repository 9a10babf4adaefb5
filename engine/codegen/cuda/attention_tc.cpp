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

/// Query rows per forward block: 4 warps of 16.
constexpr int64_t kTcRows = 64;

/// The padded head dim of the kernels (attention_tc.cu) for head dims K and Kv: 64 or 128, 0 past.
int64_t tcHeadDim(int64_t K, int64_t Kv) {
    const int64_t d = std::max(K, Kv);
    return d <= 64 ? 64 : d <= 128 ? 128 : 0;
}

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

/// fx_attn_tc_fwd: Q [64][hd + 4] and K, V [KT][hd + 4], each as big and small halves; 4-byte words.
unsigned tcForwardSharedBytes(int64_t hd) {
    const unsigned ld = static_cast<unsigned>(hd) + 4, kt = hd == 64 ? 32 : 16;
    return 4 * (2 * kTcRows * ld + 4 * kt * ld);
}

std::string tcForwardName(int64_t hd) { return "fx_attn_tc_fwd_" + std::to_string(hd); }

/// fx_attn_tc_bwd: K, V [64][hd + 4], Q, dO [bq][hd + 4], each as big and small halves, dS [bq][72]
/// fp32, then lse and D of bq rows; 4-byte words.
unsigned tcBackwardSharedBytes(int64_t hd, int bq) {
    const unsigned ld = static_cast<unsigned>(hd) + 4, rows = static_cast<unsigned>(bq);
    return 4 * (4 * 64 * ld + 4 * rows * ld + rows * 72 + 2 * rows);
}

/// The backward kernel for a padded head dim, with its query rows a step. Head dim 64 takes 16
/// with the products interleaved (attention_tc.cu's ILV; on an H200 174 us at ViT's
/// 16 x 6 x 197 x 64 against 221 without and 226 for 32-row steps, which were 5% ahead of the
/// plain 16-row kernel at 1024 rows and spill when interleaved); FXRAY_ATTENTION=tc32 takes 32.
/// Head dim 128 takes 16, not interleaved (it would spill).
Expected<TcBackward> tcBackwardFor(int64_t hd) {
    if (hd == 128) {
        auto fn = tcKernel("fx_attn_tc_bwd_128", tcBackwardSharedBytes(128, 16));
        if (!fn.ok()) return fn.error();
        return TcBackward{*fn, tcBackwardSharedBytes(128, 16)};
    }
    if (envOr("FXRAY_ATTENTION") == "tc32") {
        auto fn = tcKernel("fx_attn_tc_bwd_64", tcBackwardSharedBytes(64, 32));
        if (fn.ok()) return TcBackward{*fn, tcBackwardSharedBytes(64, 32)};
    }
    auto fn = tcKernel("fx_attn_tc_bwd_64_q16", tcBackwardSharedBytes(64, 16));
    if (!fn.ok()) return fn.error();
    return TcBackward{*fn, tcBackwardSharedBytes(64, 16)};
}

}  // namespace

Expected<TcBackward> tcBackwardKernel(const FxAttnArgs& a) {
    const int64_t hd = tcHeadDim(a.K, a.Kv);
    if (hd == 0) return makeError("the tensor-core attention kernels take head dims up to 128");
    return tcBackwardFor(hd);
}

bool attentionUsesTensorCores(const TensorMeta& q, const TensorMeta& k, const TensorMeta& v) {
    if (q.dtype != DType::Float32 || q.shape.size() != 4 || k.shape.size() != 4 || v.shape.size() != 4) return false;
    const std::string force = envOr("FXRAY_ATTENTION");
    if (force == "fused" || force == "gemm") return false;
    const CudaRuntime& rt = runtime();
    if (!rt.haveDevice || rt.ccMajor < 8) return false;  // mma.sync on tf32 is sm_80+
    const int64_t hd = tcHeadDim(q.shape[3], v.shape[3]);
    if (hd == 0) return false;
    // Head dims 65..128 only when forced (tc, tc16, tc32): their kernels hold one backward block
    // an SM (4 warps: the split K, V tiles take 135 KiB) and lose to the cuBLAS / SIMT path on an
    // H200 (8 x 6 x 512 x 128: 393 / 1,251 us forward / backward against 338 / 743).
    if (hd == 128 && force != "tc" && force != "tc16" && force != "tc32") return false;
    // Both kernels of the head dim load, with their shared memory allowed (a GPU with less per
    // block than head dim 128's ~170 KiB, or a failed compile, keeps the other paths).
    auto loads = [](int64_t d) {
        return tcKernel(tcForwardName(d), tcForwardSharedBytes(d)).ok() && tcBackwardFor(d).ok();
    };
    static const bool available64 = loads(64);
    static const bool available128 = loads(128);
    return hd == 64 ? available64 : available128;
}

Status attentionForwardTc(const DeviceView& q, const DeviceView& k, const DeviceView& v,
                          const std::optional<DeviceView>& bias, const DeviceView& out,
                          const std::optional<DeviceView>& lse, double scale, CausalMask causal) {
    if (!sameDtype(DType::Float32, {&q, &k, &v, &out, bias ? &*bias : nullptr}))
        return makeError("the tensor-core attention kernel is fp32 only");
    auto a = argsOf(q.meta, k.meta, v.meta, bias ? &bias->meta : nullptr, out.meta, scale, causal);
    if (!a.ok()) return a.error();
    const int64_t hd = tcHeadDim(a->K, a->Kv);
    if (hd == 0) return makeError("the tensor-core attention kernels take head dims up to 128");
    auto lsePtr = forwardLse(lse, *a);
    if (!lsePtr.ok()) return lsePtr.error();
    CUdeviceptr plse = *lsePtr;
    const int64_t rows = std::max<int64_t>(a->M, a->lseLen);
    a->tiles = (rows + kTcRows - 1) / kTcRows;
    const unsigned smem = tcForwardSharedBytes(hd);
    auto fn = tcKernel(tcForwardName(hd), smem);
    if (!fn.ok()) return fn.error();
    CUdeviceptr pq = q.base, pk = k.base, pv = v.base, pb = bias ? bias->base : 0, po = out.base;
    void* params[] = {&pq, &pk, &pv, &pb, &po, &plse, &*a};
    const int64_t blocks = a->B * a->H * a->tiles;
    if (blocks > INT32_MAX) return makeError("device attention: too many blocks");
    return launchGrid(*fn, static_cast<unsigned>(blocks), 1, 128, params, "fx_attn_tc_fwd", smem);
}

}  // namespace fxray::cg::cuda
