#pragma once
/// Tensor metadata (dtype, sizes, strides, offset, device) and the Tensor data holder.
#include "ir/dtype.h"
#include "ir/sym_int.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fxray {

/// What an FX annotation says about a tensor, and what shape inference computes.
///
/// Dynamic shapes: a size or stride may be symbolic ("f32[s0, 64][64, 1]"). The symbolic ones
/// live in symShape/symStrides as parsed expressions (SymInt); those vectors are empty when every
/// size (stride) is static, and otherwise hold one SymInt per dimension, static ones included.
/// The rule for `shape[d]` (`strides[d]`) of a symbolic dimension: it holds kUnboundSize (-1),
/// never a size, whatever hint is known (the hint is the SymInt's, sizeAt(d).hint()). Kernels and
/// shape rules read `shape` as numbers; on an unbound graph a -1 poisons what they compute from it
/// rather than passing a guess off as a static size. Code never tests shape[d] to tell whether a
/// dimension is symbolic: it asks isSymbolicDim(d) / isSymbolicStride(d) or sizeAt(d)/strideAt(d).
/// bindMeta (exec/shape_binding.h) evaluates the expressions and returns static metadata.
struct TensorMeta {
    /// What shape[d] / strides[d] hold for a symbolic dimension (see above).
    static constexpr int64_t kUnboundSize = -1;

    DType dtype = DType::Float32;
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;  ///< in elements; empty only when not known
    int64_t offset = 0;            ///< storage offset in elements
    Device device;
    /// Per-dimension sizes as SymInts ("s0", "((s3 + 8)//9)", 64); empty when all are static.
    std::vector<SymInt> symShape;
    /// Per-dimension strides as SymInts ("s27", "2*s27", 1); empty when all are static.
    std::vector<SymInt> symStrides;
    bool stridesKnown = true;  ///< false when an annotation omitted strides
    bool deviceKnown = true;   ///< false when an annotation omitted the device

    int64_t numel() const;
    int64_t dim() const { return static_cast<int64_t>(shape.size()); }
    bool isSymbolic() const { return !symShape.empty() || !symStrides.empty(); }
    bool hasSymbolicSizes() const { return !symShape.empty(); }
    bool isSymbolicDim(size_t d) const { return d < symShape.size() && symShape[d].isSymbolic(); }
    bool isSymbolicStride(size_t d) const { return d < symStrides.size() && symStrides[d].isSymbolic(); }
    /// Size d is neither a number nor an expression: shape inference on an unbound graph derived
    /// it from a symbolic size (kUnboundSize) without knowing the expression.
    bool isUnknownDim(size_t d) const { return !isSymbolicDim(d) && shape[d] < 0; }
    /// Some size has no number: it is symbolic, or unknown (above). Rules that need numbers
    /// refuse such metadata.
    bool hasUnboundSizes() const;
    /// Size d: its expression when symbolic, else the number.
    SymInt sizeAt(size_t d) const { return isSymbolicDim(d) ? symShape[d] : SymInt(shape[d]); }
    /// Stride d likewise (strides must be known).
    SymInt strideAt(size_t d) const { return isSymbolicStride(d) ? symStrides[d] : SymInt(strides[d]); }
    /// Sets size d (shape[d] and symShape, by the rule above); symShape is dropped when no size
    /// is symbolic any more.
    void setSize(size_t d, const SymInt& s);
    /// Sets stride d likewise.
    void setStride(size_t d, const SymInt& s);
    /// Forgets the symbolic sizes and strides (after binding, or when a rule computed numbers).
    void clearSymbolic() {
        symShape.clear();
        symStrides.clear();
    }
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
