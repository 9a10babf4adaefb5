// Aliases (detach, alias), copies (lift_fresh_copy, copy, copy_), fills and *_like factories,
// and _assert_tensor_metadata. Layout rules follow what PyTorch 2.11's fake tensors report,
// which is what FX annotations record.
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <string>

namespace fxray {
using namespace kern;

namespace {

/// The layout `empty_like(self)` gets with preserve_format under fake tensors (PyTorch's
/// compute_elementwise_output_strides): contiguous inputs give contiguous strides (even when a
/// size-1 dim has an odd stride); others keep their dimension order, made dense.
std::vector<int64_t> preservedStrides(const TensorMeta& m) {
    if (m.strides.size() != m.shape.size() || m.isContiguous()) return TensorMeta::contiguousStrides(m.shape);
    return stridesLike(m.shape, m);
}

/// Channels-last strides (NHWC / NDHWC order) for a 4-D or 5-D shape.
std::vector<int64_t> channelsLastStrides(const std::vector<int64_t>& shape) {
    const size_t nd = shape.size();
    std::vector<int64_t> st(nd);
    // Innermost is C (dim 1), then the spatial dims from last to first, then N.
    std::vector<size_t> order{1};
    for (size_t d = nd - 1; d >= 2; --d) order.push_back(d);
    order.push_back(0);
    int64_t acc = 1;
    for (size_t d : order) {
        st[d] = acc;
        acc *= std::max<int64_t>(shape[d], 1);
    }
    return st;
}

Expected<Value> aliasMeta(const OpArgs& a) { return metaValue(a.tensor(0).meta); }

Expected<Value> aliasKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return Value::ofTensor(a.tensor(0).view(out.t.meta));
}

/// detach_ only drops autograd history: the value is self, unchanged.
Expected<Value> selfKernel(const OpArgs& a, const Value&, ExecContext&) { return a[0]; }

/// lift_fresh_copy is a clone that PyTorch's fake tensors report contiguous.
Expected<Value> metaLiftFreshCopy(const OpArgs& a) {
    const TensorMeta& in = a.tensor(0).meta;
    return metaValue(TensorMeta::contiguous(in.shape, in.dtype, in.device));
}

/// Writes src (broadcast to out's shape, converted to out's dtype) into a new tensor.
Expected<Value> copyValuesKernel(const OpArgs& a, const Value& out, size_t srcIdx) {
    const Value& src = a[srcIdx];
    std::vector<double> v = src.isTensor() ? toDoublesBroadcast(src.t, out.t.shape())
                                           : std::vector<double>(static_cast<size_t>(out.t.numel()), src.toDouble());
    return Value::ofTensor(makeTensor(out.t.meta, v));
}

Expected<Value> liftFreshCopyKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return copyValuesKernel(a, out, 0);
}

Status checkCopySource(const OpArgs& a) {
    const Tensor& self = a.tensor(0);
    if (!a.isTensor(1)) return Status::success();
    auto b = broadcastShapes(self.shape(), a.tensor(1).shape());
    if (!b || *b != self.shape())
        return opError(a, "src " + a.tensor(1).meta.annotation(false, false) + " cannot be broadcast to self " +
                              self.meta.annotation(false, false));
    return Status::success();
}

/// copy(self, src) is clone_preserve_strides(self).copy_(src): self's exact strides, unless
/// self overlaps itself (an expanded dim), when it is a preserve-format clone.
Expected<Value> metaCopy(const OpArgs& a) {
    if (auto st = checkCopySource(a); !st.ok()) return st.error();
    const TensorMeta& in = a.tensor(0).meta;
    TensorMeta m = in;
    m.offset = 0;
    bool overlaps = false;
    for (int64_t i = 0; i < in.dim(); ++i)
        if (in.shape[i] > 1 && i < static_cast<int64_t>(in.strides.size()) && in.strides[i] == 0) overlaps = true;
    if (overlaps || in.strides.size() != in.shape.size()) m.strides = preservedStrides(in);
    return metaValue(std::move(m));
}

Expected<Value> copyKernel(const OpArgs& a, const Value& out, ExecContext&) { return copyValuesKernel(a, out, 1); }

Expected<Value> metaCopyInplace(const OpArgs& a) {
    if (auto st = checkCopySource(a); !st.ok()) return st.error();
    return metaValue(a.tensor(0).meta);
}

Expected<Value> copyInplaceKernel(const OpArgs& a, const Value&, ExecContext&) {
    Tensor self = a.tensor(0);
    const Value& src = a[1];
    std::vector<double> v = src.isTensor() ? toDoublesBroadcast(src.t, self.shape())
                                           : std::vector<double>(static_cast<size_t>(self.numel()), src.toDouble());
    fromDoubles(self, v);
    return Value::ofTensor(self);
}

/// fill.Scalar(self, value): a new tensor laid out like empty_like(self).
Expected<Value> metaFill(const OpArgs& a) {
    TensorMeta m = a.tensor(0).meta;
    m.strides = preservedStrides(m);
    m.offset = 0;
    return metaValue(std::move(m));
}

Expected<Value> fillKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return Value::ofTensor(
        makeTensor(out.t.meta, std::vector<double>(static_cast<size_t>(out.t.numel()), a.toDouble(1))));
}

/// Argument positions of the *_like factories; full_like has fill_value at 1.
struct LikeArgs {
    size_t dtype, device, memoryFormat;
};
constexpr LikeArgs kLike{1, 3, 5};
constexpr LikeArgs kFullLike{2, 4, 6};

template <LikeArgs L>
Expected<Value> metaLike(const OpArgs& a) {
    const TensorMeta& in = a.tensor(0).meta;
    TensorMeta m = in;
    m.offset = 0;
    if (auto dt = a.toOptDType(L.dtype)) m.dtype = *dt;
    if (a[L.device].kind == Value::Kind::Device) m.device = a[L.device].device;
    MemoryFormat mf =
        a[L.memoryFormat].kind == Value::Kind::MemoryFormat ? a[L.memoryFormat].memoryFormat : MemoryFormat::Preserve;
    switch (mf) {
    case MemoryFormat::Preserve: m.strides = preservedStrides(in); break;
    case MemoryFormat::Contiguous: m.strides = TensorMeta::contiguousStrides(in.shape); break;
    case MemoryFormat::ChannelsLast:
    case MemoryFormat::ChannelsLast3d: {
        const int64_t want = mf == MemoryFormat::ChannelsLast ? 4 : 5;
        if (in.dim() != want)
            return opError(a, std::string(memoryFormatTorchName(mf)) + " needs a " + std::to_string(want) +
                                  "-D tensor, got " + in.annotation(false, false));
        m.strides = channelsLastStrides(in.shape);
        break;
    }
    }
    return metaValue(std::move(m));
}

/// Fills with the constant Fixed, or with fill_value (argument 1) when Fixed < 0.
template <int Fixed>
Expected<Value> likeKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double v = Fixed >= 0 ? static_cast<double>(Fixed) : a.toDouble(1);
    return Value::ofTensor(makeTensor(out.t.meta, std::vector<double>(static_cast<size_t>(out.t.numel()), v)));
}

/// _assert_tensor_metadata guards export-time assumptions; fxray does not re-check them, so
/// it never fails and returns None.
Expected<Value> metaNone(const OpArgs&) { return Value::none(); }
Expected<Value> noneKernel(const OpArgs&, const Value&, ExecContext&) { return Value::none(); }

}  // namespace

void registerMiscOps(OpRegistry& r) {
    r.add("aten.detach.default", "detach(Tensor(a) self) -> Tensor(a)", OpCategory::View, aliasMeta, aliasKernel)
        .aliasesInput = true;
    r.add("aten.alias.default", "alias(Tensor(a) self) -> Tensor(a)", OpCategory::View, aliasMeta, aliasKernel)
        .aliasesInput = true;
    OpInfo& detachInplace = r.add("aten.detach_.default", "detach_(Tensor(a!) self) -> Tensor(a!)", OpCategory::Other,
                                  aliasMeta, selfKernel);
    detachInplace.inplace = detachInplace.aliasesInput = true;

    r.add("aten.lift_fresh_copy.default", "lift_fresh_copy(Tensor self) -> Tensor", OpCategory::Other,
          metaLiftFreshCopy, liftFreshCopyKernel);
    r.add("aten.copy.default", "copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor", OpCategory::Other,
          metaCopy, copyKernel);
    OpInfo& copyInplace =
        r.add("aten.copy_.default", "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
              OpCategory::Other, metaCopyInplace, copyInplaceKernel);
    copyInplace.inplace = copyInplace.aliasesInput = true;

    r.add("aten.fill.Scalar", "fill.Scalar(Tensor self, Scalar value) -> Tensor", OpCategory::Creation, metaFill,
          fillKernel);
    r.add("aten.zeros_like.default",
          "zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
          "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
          OpCategory::Creation, metaLike<kLike>, likeKernel<0>);
    r.add("aten.ones_like.default",
          "ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
          "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
          OpCategory::Creation, metaLike<kLike>, likeKernel<1>);
    r.add("aten.empty_like.default",
          "empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
          "bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
          OpCategory::Creation, metaLike<kLike>, likeKernel<0>);
    r.add("aten.full_like.default",
          "full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, "
          "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
          OpCategory::Creation, metaLike<kFullLike>, likeKernel<-1>);

    r.add("aten._assert_tensor_metadata.default",
          "_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, ScalarType? dtype=None, "
          "*, Device? device=None, Layout? layout=None) -> ()",
          OpCategory::Other, metaNone, noneKernel);
}

}  // namespace fxray
