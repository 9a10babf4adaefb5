#pragma once
/// Device memory and the fixed device operations of the CUDA backend: a caching allocator
/// (free lists by size class, so that repeated runs of a graph do not pay cuMemAlloc), strided
/// copies (cat, broadcasting addmm's bias, making GEMM operands dense) and cuBLAS GEMMs.
#include "codegen/cuda/cuda_api.h"
#include "exec/tensor_layout.h"  // storageSpan
#include "ir/tensor_meta.h"

#include <cstdint>
#include <vector>

namespace fxray::cg::cuda {

/// A device allocation; returns its block to the cache when destroyed.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;

    static Expected<DeviceBuffer> allocate(size_t bytes);
    CUdeviceptr ptr() const { return m_ptr; }
    size_t bytes() const { return m_bytes; }

private:
    CUdeviceptr m_ptr = 0;
    size_t m_bytes = 0;  ///< requested
    size_t m_class = 0;  ///< size class it came from
};

/// Bytes (in use, cached) by the allocator.
std::pair<size_t, size_t> cacheBytes();

/// A device tensor view: base pointer (storage offset 0) + layout.
struct DeviceView {
    CUdeviceptr base = 0;
    TensorMeta meta;
    /// The address of element 0: base advanced by the storage offset, what a kernel is passed.
    CUdeviceptr address() const {
        return base + static_cast<CUdeviceptr>(meta.offset) * static_cast<CUdeviceptr>(dtypeItemSize(meta.dtype));
    }
};

/// dst[i] = src[i] for every index of dst's shape; src may broadcast (stride 0). Up to 8 dims.
Status stridedCopy(const DeviceView& src, const DeviceView& dst);

/// v itself when it is row-major dense, else a dense copy of it in `tmp` (which then owns it).
Expected<DeviceView> denseView(const DeviceView& v, DeviceBuffer& tmp);

/// For writing `out`: out itself when it is row-major dense, else an uninitialised dense stand-in
/// in `tmp` (which then owns it) for the caller to fill and stridedCopy into out.
Expected<DeviceView> denseTarget(const DeviceView& out, DeviceBuffer& tmp);

/// C = alpha * A @ B + beta * C for 2-D (mm) or 3-D (bmm) views; C must be dense row-major.
/// Operands that are neither row- nor column-major are copied dense first.
Status gemm(const DeviceView& A, const DeviceView& B, const DeviceView& C, double alpha, double beta);

/// Column-major description of a row-major [R, C] matrix view (row stride rs, column stride
/// cs) for cuBLAS: rowMajor with leading dimension ld, or its transpose; false when neither.
struct Operand {
    bool rowMajor = true;
    int64_t ld = 1;
};
bool describe(int64_t R, int64_t C, int64_t rs, int64_t cs, Operand& o);

/// cuBLAS's cudaDataType for a floating dtype.
int cudaType(DType t);

/// True when gemm() handles this dtype.
bool gemmSupports(DType t);

}  // namespace fxray::cg::cuda
