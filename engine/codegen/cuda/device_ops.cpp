#include "codegen/cuda/device_ops.h"

#include "codegen/cuda/builtin_kernels.h"

#include <map>
#include <mutex>

namespace fxray::cg::cuda {

namespace {

struct Cache {
    std::mutex mu;
    std::map<size_t, std::vector<CUdeviceptr>> free;
    size_t inUse = 0, cached = 0;
};
Cache& cache() {
    static Cache* c = new Cache();  // never destroyed: the driver may be gone at exit
    return *c;
}

/// 512-byte granules up to 1 MiB as powers of two, then whole MiB: small tensors share few
/// classes, large ones waste at most 1 MiB.
size_t sizeClass(size_t bytes) {
    if (bytes <= 512) return 512;
    if (bytes <= (size_t(1) << 20)) {
        size_t c = 512;
        while (c < bytes) c <<= 1;
        return c;
    }
    size_t mib = size_t(1) << 20;
    return (bytes + mib - 1) / mib * mib;
}

}  // namespace

DeviceBuffer::~DeviceBuffer() {
    if (!m_ptr) return;
    Cache& c = cache();
    std::lock_guard<std::mutex> g(c.mu);
    c.free[m_class].push_back(m_ptr);
    c.inUse -= m_class;
    c.cached += m_class;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
        this->~DeviceBuffer();
        m_ptr = o.m_ptr;
        m_bytes = o.m_bytes;
        m_class = o.m_class;
        o.m_ptr = 0;
    }
    return *this;
}

Expected<DeviceBuffer> DeviceBuffer::allocate(size_t bytes) {
    DeviceBuffer b;
    b.m_bytes = bytes;
    b.m_class = sizeClass(bytes);
    Cache& c = cache();
    {
        std::lock_guard<std::mutex> g(c.mu);
        auto& fl = c.free[b.m_class];
        if (!fl.empty()) {
            b.m_ptr = fl.back();
            fl.pop_back();
            c.cached -= b.m_class;
            c.inUse += b.m_class;
            return b;
        }
    }
    const CudaRuntime& rt = runtime();
    CUresult r = rt.cu.cuMemAlloc(&b.m_ptr, b.m_class);
    if (r != 0) {
        // Out of memory: give the cached blocks back and try once more.
        std::lock_guard<std::mutex> g(c.mu);
        for (auto& [cls, list] : c.free)
            for (CUdeviceptr p : list) rt.cu.cuMemFree(p);
        c.free.clear();
        c.cached = 0;
        r = rt.cu.cuMemAlloc(&b.m_ptr, b.m_class);
    }
    if (r != 0) {
        b.m_ptr = 0;
        return makeError("cuMemAlloc of " + std::to_string(bytes) + " bytes: " + driverError(r));
    }
    std::lock_guard<std::mutex> g(c.mu);
    c.inUse += b.m_class;
    return b;
}

std::pair<size_t, size_t> cacheBytes() {
    Cache& c = cache();
    std::lock_guard<std::mutex> g(c.mu);
    return {c.inUse, c.cached};
}

// ----- strided copy ----------------------------------------------------------------------------

namespace {

/// Mirrors FxCopyArgs in builtin_kernels.cpp.
struct CopyArgs {
    int64_t n, ndim, elem, soff, doff;
    int64_t size[8], sst[8], dst[8];
};

}  // namespace

Status stridedCopy(const DeviceView& src, const DeviceView& dst) {
    const TensorMeta& d = dst.meta;
    if (d.shape.size() > 8) return makeError("strided copy of a tensor with more than 8 dims");
    int64_t n = d.numel();
    if (n == 0) return Status::success();
    auto fn = builtinFunction("fx_strided_copy");
    if (!fn.ok()) return fn.error();
    CopyArgs a{};
    a.n = n;
    a.ndim = static_cast<int64_t>(d.shape.size());
    a.elem = dtypeItemSize(d.dtype);
    a.soff = src.meta.offset;
    a.doff = d.offset;
    // Source dims align to the right of the destination's (broadcasting); missing or size-1
    // source dims read stride 0.
    size_t lead = d.shape.size() - std::min(d.shape.size(), src.meta.shape.size());
    for (size_t i = 0; i < d.shape.size(); ++i) {
        a.size[i] = d.shape[i];
        a.dst[i] = d.strides[i];
        if (i < lead)
            a.sst[i] = 0;
        else {
            size_t j = i - lead;
            a.sst[i] = src.meta.shape[j] == 1 ? 0 : src.meta.strides[j];
        }
    }
    CUdeviceptr s = src.base, t = dst.base;
    void* params[] = {&s, &t, &a};
    return launchBuiltin(*fn, n, params, "fx_strided_copy");
}

bool gemmSupports(DType t) {
    return t == DType::Float32 || t == DType::Float64 || t == DType::Float16 || t == DType::BFloat16;
}

bool describe(int64_t R, int64_t C, int64_t rs, int64_t cs, Operand& o) {
    if ((C == 1 || cs == 1) && (R == 1 || rs >= std::max<int64_t>(C, 1))) {
        o.rowMajor = true;
        o.ld = R == 1 ? std::max<int64_t>(C, 1) : rs;
        return true;
    }
    if ((R == 1 || rs == 1) && (C == 1 || cs >= std::max<int64_t>(R, 1))) {
        o.rowMajor = false;
        o.ld = C == 1 ? std::max<int64_t>(R, 1) : cs;
        return true;
    }
    return false;
}

int cudaType(DType t) {
    switch (t) {
    case DType::Float64: return CUDA_R_64F;
    case DType::Float16: return CUDA_R_16F;
    case DType::BFloat16: return CUDA_R_16BF;
    default: return CUDA_R_32F;
    }
}

Status gemm(const DeviceView& A0, const DeviceView& B0, const DeviceView& C, double alpha, double beta) {
    const CudaRuntime& rt = runtime();
    if (!rt.haveCublas) return makeError("cuBLAS unavailable: " + rt.whyNoCublas);
    const size_t nd = C.meta.shape.size();
    if (nd != 2 && nd != 3) return makeError("gemm of rank " + std::to_string(nd));
    const size_t r = nd - 2;
    int64_t batch = nd == 3 ? C.meta.shape[0] : 1;
    int64_t M = C.meta.shape[r], N = C.meta.shape[r + 1], K = A0.meta.shape[r + 1];
    DType dt = C.meta.dtype;
    if (M == 0 || N == 0 || batch == 0) return Status::success();
    // Dense copies of operands cuBLAS cannot read directly.
    DeviceBuffer tmpA, tmpB;
    DeviceView A = A0, B = B0;
    Operand oa, ob;
    auto densify = [&](DeviceView& v, DeviceBuffer& tmp, Operand& o, int64_t R, int64_t Cc) -> Status {
        if (describe(R, Cc, v.meta.strides[r], v.meta.strides[r + 1], o) &&
            (nd == 2 || v.meta.shape[0] == 1 || v.meta.strides[0] >= 0))
            return Status::success();
        TensorMeta m = TensorMeta::contiguous(v.meta.shape, v.meta.dtype, v.meta.device);
        auto buf = DeviceBuffer::allocate(static_cast<size_t>(m.numel() * dtypeItemSize(dt)));
        if (!buf.ok()) return buf.error();
        tmp = std::move(buf).value();
        if (Status s = stridedCopy(v, DeviceView{tmp.ptr(), m}); !s.ok()) return s;
        v = DeviceView{tmp.ptr(), m};
        describe(R, Cc, m.strides[r], m.strides[r + 1], o);
        return Status::success();
    };
    if (Status s = densify(A, tmpA, oa, M, K); !s.ok()) return s;
    if (Status s = densify(B, tmpB, ob, K, N); !s.ok()) return s;
    Operand oc;
    if (!describe(M, N, C.meta.strides[r], C.meta.strides[r + 1], oc) || !oc.rowMajor)
        return makeError("gemm output is not row-major");
    int64_t item = dtypeItemSize(dt);
    int64_t sA = nd == 3 && A.meta.shape[0] > 1 ? A.meta.strides[0] : 0;
    int64_t sB = nd == 3 && B.meta.shape[0] > 1 ? B.meta.strides[0] : 0;
    int64_t sC = nd == 3 ? C.meta.strides[0] : 0;
    if (K == 0) {
        // An empty sum: C = beta * C; for mm/bmm (beta 0) zeros.
        if (beta == 0.0)
            return check(
                rt.cu.cuMemsetD8(C.base + static_cast<CUdeviceptr>(C.meta.offset * item), 0,
                                 static_cast<size_t>(storageSpan(C.meta) - C.meta.offset) * static_cast<size_t>(item)),
                "zeroing an empty GEMM");
        return Status::success();
    }
    // Row-major C = A @ B is column-major C^T = B^T @ A^T.
    float af = static_cast<float>(alpha), bf = static_cast<float>(beta);
    const void* pa = dt == DType::Float64 ? static_cast<const void*>(&alpha) : &af;
    const void* pb = dt == DType::Float64 ? static_cast<const void*>(&beta) : &bf;
    int type = cudaType(dt);
    int compute = dt == DType::Float64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
    const void* bptr = reinterpret_cast<const void*>(B.base + static_cast<CUdeviceptr>(B.meta.offset * item));
    const void* aptr = reinterpret_cast<const void*>(A.base + static_cast<CUdeviceptr>(A.meta.offset * item));
    void* cptr = reinterpret_cast<void*>(C.base + static_cast<CUdeviceptr>(C.meta.offset * item));
    cublasStatus_t st = rt.blas.cublasGemmStridedBatchedEx(
        rt.cublas, ob.rowMajor ? CUBLAS_OP_N : CUBLAS_OP_T, oa.rowMajor ? CUBLAS_OP_N : CUBLAS_OP_T,
        static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), pa, bptr, type, static_cast<int>(ob.ld), sB,
        aptr, type, static_cast<int>(oa.ld), sA, pb, cptr, type, static_cast<int>(oc.ld), sC, static_cast<int>(batch),
        compute, CUBLAS_GEMM_DEFAULT);
    if (st != 0) return makeError("cublasGemmStridedBatchedEx failed (cublasStatus " + std::to_string(st) + ")");
    return Status::success();
}

Expected<DeviceView> denseView(const DeviceView& v, DeviceBuffer& tmp) {
    if (v.meta.isContiguous()) return v;
    TensorMeta m = TensorMeta::contiguous(v.meta.shape, v.meta.dtype, v.meta.device);
    auto buf = DeviceBuffer::allocate(static_cast<size_t>(m.numel() * dtypeItemSize(m.dtype)));
    if (!buf.ok()) return buf.error();
    tmp = std::move(buf).value();
    if (Status s = stridedCopy(v, DeviceView{tmp.ptr(), m}); !s.ok()) return s.error();
    return DeviceView{tmp.ptr(), m};
}

Expected<DeviceView> denseTarget(const DeviceView& out, DeviceBuffer& tmp) {
    if (out.meta.isContiguous()) return out;
    TensorMeta m = TensorMeta::contiguous(out.meta.shape, out.meta.dtype, out.meta.device);
    auto buf = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(m.numel(), 1) * dtypeItemSize(m.dtype)));
    if (!buf.ok()) return buf.error();
    tmp = std::move(buf).value();
    return DeviceView{tmp.ptr(), m};
}

}  // namespace fxray::cg::cuda
