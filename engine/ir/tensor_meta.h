#pragma once
/// Tensor metadata (dtype, sizes, strides, offset, device) and the Tensor data holder.
#include "ir/dtype.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fxray {

/// What an FX annotation says about a tensor, and what shape inference computes.
struct TensorMeta {
    DType dtype = DType::Float32;
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;  ///< in elements; empty only when not known
    int64_t offset = 0;            ///< storage offset in elements
    Device device;
    /// Per-dimension symbolic size ("s0", "((s3 + 8)//9)"); empty when all sizes are static.
    /// A symbolic dimension has shape[i] == -1 until bound (exec/shape_binding.h).
    std::vector<std::string> symShape;
    /// Per-dimension symbolic stride ("s27", "2*s27"), same convention; empty when all are static.
    std::vector<std::string> symStrides;
    bool stridesKnown = true;  ///< false when an annotation omitted strides
    bool deviceKnown = true;   ///< false when an annotation omitted the device

    int64_t numel() const;
    int64_t dim() const { return static_cast<int64_t>(shape.size()); }
    bool isSymbolic() const { return !symShape.empty() || !symStrides.empty(); }
    /// True when strides are the row-major strides of shape (size-1 dims ignored).
    bool isContiguous() const;
    /// Bytes spanned by the elements (numel * itemsize).
    int64_t nbytes() const { return numel() * dtypeItemSize(dtype); }

    /// Annotation text: "f32[16, 128][128, 1]cuda:0" (strides/device when known and asked for).
    std::string annotation(bool withStrides = true, bool withDevice = true) const;

    /// Row-major strides for shape.
    static std::vector<int64_t> contiguousStrides(const std::vector<int64_t>& shape);
    /// Contiguous metadata of the given shape and dtype.
    static TensorMeta contiguous(std::vector<int64_t> shape, DType dtype, Device device = {});
};

/// Raw bytes of a tensor, 64-byte aligned. Shared between a tensor and its views.
class Storage {
public:
    explicit Storage(size_t nbytes);
    std::byte* data() { return m_data.get(); }
    const std::byte* data() const { return m_data.get(); }
    size_t nbytes() const { return m_nbytes; }

private:
    struct Free {
        void operator()(std::byte* p) const;
    };
    std::unique_ptr<std::byte, Free> m_data;
    size_t m_nbytes;
};

/// A tensor: metadata plus (optionally) storage. Without storage it is a meta tensor, which is
/// what shape inference passes around. Copying a Tensor aliases its storage.
struct Tensor {
    TensorMeta meta;
    std::shared_ptr<Storage> storage;

    bool hasData() const { return storage != nullptr; }
    DType dtype() const { return meta.dtype; }
    const std::vector<int64_t>& shape() const { return meta.shape; }
    const std::vector<int64_t>& strides() const { return meta.strides; }
    int64_t numel() const { return meta.numel(); }
    int64_t dim() const { return meta.dim(); }

    /// Pointer to element 0 (storage + offset).
    std::byte* raw() { return storage->data() + meta.offset * dtypeItemSize(meta.dtype); }
    const std::byte* raw() const { return storage->data() + meta.offset * dtypeItemSize(meta.dtype); }
    template <typename T>
    T* data() {
        return reinterpret_cast<T*>(raw());
    }
    template <typename T>
    const T* data() const {
        return reinterpret_cast<const T*>(raw());
    }

    /// A new zero-filled tensor with contiguous strides.
    static Tensor empty(std::vector<int64_t> shape, DType dtype, Device device = {});
    /// A new zero-filled tensor with the shape, dtype and strides of `m` (offset 0).
    static Tensor emptyLike(const TensorMeta& m);
    /// Metadata-only tensor.
    static Tensor metaOnly(TensorMeta m);
    /// A view of this tensor's storage with other metadata.
    Tensor view(TensorMeta m) const;
};

}  // namespace fxray
