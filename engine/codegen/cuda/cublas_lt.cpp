#include "codegen/cuda/cublas_lt.h"

#include "codegen/cuda/dl_util.h"

#include <cstdint>
#include <mutex>

namespace fxray::cg::cuda {

namespace {

// ----- cuBLASLt (cublasLt.h), the part used here, ABI-compatible ------------------------------
using LtHandle = struct cublasLtContext*;
using LtDesc = struct cublasLtMatmulDescOpaque*;
using LtLayout = struct cublasLtMatrixLayoutOpaque*;
using LtPref = struct cublasLtMatmulPreferenceOpaque*;
struct LtAlgo {
    uint64_t data[8];
};
struct LtHeuristic {
    LtAlgo algo;
    size_t workspaceSize;
    int state;
    float wavesCount;
    int reserved[4];
};
enum : int { DESC_TRANSA = 3, DESC_TRANSB = 4, DESC_EPILOGUE = 7, DESC_BIAS_POINTER = 8 };
enum : uint32_t { EPILOGUE_DEFAULT = 1, EPILOGUE_BIAS = 4 };
enum : int { PREF_MAX_WORKSPACE_BYTES = 1 };

struct LtApi {
    int (*create)(LtHandle*) = nullptr;
    int (*descCreate)(LtDesc*, int computeType, int scaleType) = nullptr;
    int (*descDestroy)(LtDesc) = nullptr;
    int (*descSet)(LtDesc, int attr, const void* buf, size_t size) = nullptr;
    int (*layoutCreate)(LtLayout*, int type, uint64_t rows, uint64_t cols, int64_t ld) = nullptr;
    int (*layoutDestroy)(LtLayout) = nullptr;
    int (*prefCreate)(LtPref*) = nullptr;
    int (*prefDestroy)(LtPref) = nullptr;
    int (*prefSet)(LtPref, int attr, const void* buf, size_t size) = nullptr;
    int (*heuristic)(LtHandle, LtDesc, LtLayout, LtLayout, LtLayout, LtLayout, LtPref, int, LtHeuristic*,
                     int*) = nullptr;
    int (*matmul)(LtHandle, LtDesc, const void*, const void*, LtLayout, const void*, LtLayout, const void*, const void*,
                  LtLayout, void*, LtLayout, const LtAlgo*, void*, size_t, CUstream) = nullptr;
    LtHandle handle = nullptr;
    bool ok = false;
};

/// The workspace cuBLASLt may use (PyTorch gives it the same order of size on Hopper).
constexpr size_t kWorkspace = size_t(32) << 20;

const LtApi& lt() {
    static LtApi* api = new LtApi();  // never destroyed: the driver may be gone at exit
    static std::once_flag once;
    std::call_once(once, [] {
        LtApi& a = *api;
        if (!runtime().haveCublas) return;
        std::string opened, tried, missing;
        void* lib = openFirst({envOr("FXRAY_CUBLASLT_LIB"), "libcublasLt.so", "libcublasLt.so.13", "libcublasLt.so.12",
                               "/usr/local/cuda/lib64/libcublasLt.so"},
                              opened, tried);
        if (!lib) return;
        sym(lib, a.create, "cublasLtCreate", missing);
        sym(lib, a.descCreate, "cublasLtMatmulDescCreate", missing);
        sym(lib, a.descDestroy, "cublasLtMatmulDescDestroy", missing);
        sym(lib, a.descSet, "cublasLtMatmulDescSetAttribute", missing);
        sym(lib, a.layoutCreate, "cublasLtMatrixLayoutCreate", missing);
        sym(lib, a.layoutDestroy, "cublasLtMatrixLayoutDestroy", missing);
        sym(lib, a.prefCreate, "cublasLtMatmulPreferenceCreate", missing);
        sym(lib, a.prefDestroy, "cublasLtMatmulPreferenceDestroy", missing);
        sym(lib, a.prefSet, "cublasLtMatmulPreferenceSetAttribute", missing);
        sym(lib, a.heuristic, "cublasLtMatmulAlgoGetHeuristic", missing);
        sym(lib, a.matmul, "cublasLtMatmul", missing);
        a.ok = missing.empty() && a.create(&a.handle) == 0;
    });
    return *api;
}

/// Descriptors released at scope exit.
struct LtCall {
    const LtApi& a;
    LtDesc desc = nullptr;
    LtLayout la = nullptr, lb = nullptr, lc = nullptr;
    LtPref pref = nullptr;
    ~LtCall() {
        if (pref) a.prefDestroy(pref);
        for (LtLayout l : {la, lb, lc})
            if (l) a.layoutDestroy(l);
        if (desc) a.descDestroy(desc);
    }
};

}  // namespace

Expected<bool> gemmLt(const DeviceView& A, const DeviceView& B, const DeviceView& C, const DeviceView* bias) {
    const std::string off = envOr("FXRAY_CUBLASLT");
    if (off == "0") return false;
    const DType dt = C.meta.dtype;
    if (dt != DType::Float32 && dt != DType::Float16 && dt != DType::BFloat16) return false;
    if (A.meta.dtype != dt || B.meta.dtype != dt || (bias && bias->meta.dtype != dt)) return false;
    if (A.meta.shape.size() != 2 || B.meta.shape.size() != 2 || C.meta.shape.size() != 2) return false;
    const int64_t M = C.meta.shape[0], N = C.meta.shape[1], K = A.meta.shape[1];
    if (M == 0 || N == 0 || K == 0) return false;
    const int64_t item = dtypeItemSize(dt);
    CUdeviceptr biasPtr = 0;
    if (bias) {
        // N contiguous values ([N] or [1, N]), 16-byte aligned as cuBLASLt's kernels read them.
        const auto& bs = bias->meta.shape;
        const bool vec = (bs.size() == 1 && bs[0] == N && (N == 1 || bias->meta.strides[0] == 1)) ||
                         (bs.size() == 2 && bs[0] == 1 && bs[1] == N && (N == 1 || bias->meta.strides[1] == 1));
        biasPtr = bias->base + static_cast<CUdeviceptr>(bias->meta.offset * item);
        if (!vec || biasPtr % 16 != 0) return false;
    }
    Operand oa, ob, oc;
    if (!describe(M, K, A.meta.strides[0], A.meta.strides[1], oa) ||
        !describe(K, N, B.meta.strides[0], B.meta.strides[1], ob) ||
        !describe(M, N, C.meta.strides[0], C.meta.strides[1], oc) || !oc.rowMajor)
        return false;
    const LtApi& a = lt();
    if (!a.ok) return false;
    static DeviceBuffer* workspace = [] {
        auto w = DeviceBuffer::allocate(kWorkspace);
        return w.ok() ? new DeviceBuffer(std::move(w).value()) : nullptr;  // kept for the process
    }();
    if (!workspace) return false;
    // Row-major C = A @ B + bias is column-major Cᵀ [N, M] = Bᵀ Aᵀ + bias, the bias along Cᵀ's
    // rows: cuBLASLt's "A" is our B, its "B" our A (as in gemm()).
    LtCall c{a};
    const int type = cudaType(dt);
    const int transA = ob.rowMajor ? CUBLAS_OP_N : CUBLAS_OP_T, transB = oa.rowMajor ? CUBLAS_OP_N : CUBLAS_OP_T;
    const uint32_t epilogue = bias ? EPILOGUE_BIAS : EPILOGUE_DEFAULT;
    const void* bp = reinterpret_cast<const void*>(biasPtr);
    if (a.descCreate(&c.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) != 0 ||
        a.descSet(c.desc, DESC_TRANSA, &transA, sizeof transA) != 0 ||
        a.descSet(c.desc, DESC_TRANSB, &transB, sizeof transB) != 0 ||
        a.descSet(c.desc, DESC_EPILOGUE, &epilogue, sizeof epilogue) != 0 ||
        (bias && a.descSet(c.desc, DESC_BIAS_POINTER, &bp, sizeof bp) != 0))
        return false;
    // Stored (column-major) shapes: op N reads [rows, cols] as given, op T the transpose.
    const uint64_t n = static_cast<uint64_t>(N), m = static_cast<uint64_t>(M), k = static_cast<uint64_t>(K);
    if (a.layoutCreate(&c.la, type, ob.rowMajor ? n : k, ob.rowMajor ? k : n, ob.ld) != 0 ||
        a.layoutCreate(&c.lb, type, oa.rowMajor ? k : m, oa.rowMajor ? m : k, oa.ld) != 0 ||
        a.layoutCreate(&c.lc, type, n, m, oc.ld) != 0)
        return false;
    const uint64_t ws = kWorkspace;
    if (a.prefCreate(&c.pref) != 0 || a.prefSet(c.pref, PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws) != 0) return false;
    LtHeuristic h{};
    int found = 0;
    if (a.heuristic(a.handle, c.desc, c.la, c.lb, c.lc, c.lc, c.pref, 1, &h, &found) != 0 || found < 1) return false;
    const float one = 1.0f, zero = 0.0f;
    const void* pa = reinterpret_cast<const void*>(B.base + static_cast<CUdeviceptr>(B.meta.offset * item));
    const void* pb = reinterpret_cast<const void*>(A.base + static_cast<CUdeviceptr>(A.meta.offset * item));
    void* pc = reinterpret_cast<void*>(C.base + static_cast<CUdeviceptr>(C.meta.offset * item));
    int st = a.matmul(a.handle, c.desc, &one, pa, c.la, pb, c.lb, &zero, pc, c.lc, pc, c.lc, &h.algo,
                      reinterpret_cast<void*>(workspace->ptr()), kWorkspace, nullptr);
    // A refusal writes nothing: the caller's path then computes C whole.
    return st == 0;
}

}  // namespace fxray::cg::cuda
