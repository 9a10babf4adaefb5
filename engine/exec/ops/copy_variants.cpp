// The *_copy variants of view ops (view_copy, permute_copy, diagonal_copy, unbind_copy, ...):
// PyTorch computes the view and clones it contiguous, so each variant reuses its view op's meta
// function and kernel and copies the result into a fresh contiguous tensor (no aliasing).
// One table maps each variant to its view op.
#include "exec/ops/copy_variants.h"
#include "exec/ops/register.h"
#include "exec/ops/shape_util.h"

#include <string_view>

namespace fxray {
using namespace kern;

namespace {

/// A copy variant: its qualname and schema, and the view op it copies.
struct CopyVariant {
    const char* name;
    const char* schema;
    const char* view;
};

/// The schemas are the view ops' with the aliasing annotations dropped, so arguments bind to
/// the same positions and the view's meta function can read them.
constexpr CopyVariant kCopyVariants[] = {
    // view_copy reshapes when no view exists (ATen's view_copy falls back to reshape).
    {"aten.view_copy.default", "view_copy(Tensor self, SymInt[] size) -> Tensor", "aten.reshape.default"},
    {"aten.permute_copy.default", "permute_copy(Tensor self, int[] dims) -> Tensor", "aten.permute.default"},
    {"aten.expand_copy.default", "expand_copy(Tensor self, SymInt[] size, *, bool implicit=False) -> Tensor",
     "aten.expand.default"},
    {"aten.t_copy.default", "t_copy(Tensor self) -> Tensor", "aten.t.default"},
    {"aten.transpose_copy.int", "transpose_copy.int(Tensor self, int dim0, int dim1) -> Tensor", "aten.transpose.int"},
    {"aten.squeeze_copy.default", "squeeze_copy(Tensor self) -> Tensor", "aten.squeeze.default"},
    {"aten.squeeze_copy.dim", "squeeze_copy.dim(Tensor self, int dim) -> Tensor", "aten.squeeze.dim"},
    {"aten.squeeze_copy.dims", "squeeze_copy.dims(Tensor self, int[] dim) -> Tensor", "aten.squeeze.dims"},
    {"aten.unsqueeze_copy.default", "unsqueeze_copy(Tensor self, int dim) -> Tensor", "aten.unsqueeze.default"},
    {"aten.diagonal_copy.default", "diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor",
     "aten.diagonal.default"},
    {"aten.alias_copy.default", "alias_copy(Tensor self) -> Tensor", "aten.alias.default"},
    {"aten.detach_copy.default", "detach_copy(Tensor self) -> Tensor", "aten.detach.default"},
    {"aten.as_strided_copy.default",
     "as_strided_copy(Tensor self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor",
     "aten.as_strided.default"},
    {"aten.unfold_copy.default", "unfold_copy(Tensor self, int dimension, int size, int step) -> Tensor",
     "aten.unfold.default"},
    {"aten.slice_copy.Tensor",
     "slice_copy.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor",
     "aten.slice.Tensor"},
    {"aten.select_copy.int", "select_copy.int(Tensor self, int dim, SymInt index) -> Tensor", "aten.select.int"},
    {"aten.narrow_copy.default", "narrow_copy(Tensor self, int dim, SymInt start, SymInt length) -> Tensor",
     "aten.narrow.default"},
    {"aten.split_copy.Tensor", "split_copy.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]",
     "aten.split.Tensor"},
    {"aten.split_with_sizes_copy.default",
     "split_with_sizes_copy(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]",
     "aten.split_with_sizes.default"},
    {"aten.unbind_copy.int", "unbind_copy.int(Tensor self, int dim=0) -> Tensor[]", "aten.unbind.int"},
};

/// The view op behind the copy variant `a` is bound to.
const OpInfo* viewOpFor(const OpArgs& a) {
    for (const auto& v : kCopyVariants)
        if (a.op().qualname == v.name) return OpRegistry::instance().find(v.view);
    return nullptr;
}

/// A fresh contiguous description of one view.
TensorMeta contiguousCopyOf(const TensorMeta& view) { return contiguousLike(view, view.shape); }

Expected<Value> viewMeta(const OpArgs& a) {
    const OpInfo* view = viewOpFor(a);
    if (!view || !view->meta) return opError(a, "no view op to copy");
    return view->meta(a);
}

Expected<Value> metaCopyVariant(const OpArgs& a) {
    auto v = viewMeta(a);
    if (!v.ok()) return v;
    if (v->isList()) {
        std::vector<Tensor> parts;
        for (const auto& x : v->list) parts.push_back(Tensor::metaOnly(contiguousCopyOf(x.t.meta)));
        return Value::ofTensors(std::move(parts), v->isTuple);
    }
    return metaValue(contiguousCopyOf(v->t.meta));
}

Expected<Value> copyVariantKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    auto meta = viewMeta(a);
    if (!meta.ok()) return meta;
    auto views = viewOpFor(a)->kernel(a, *meta, ctx);
    if (!views.ok()) return views;
    if (views->isList()) {
        std::vector<Tensor> parts;
        for (size_t i = 0; i < views->list.size(); ++i)
            parts.push_back(makeTensor(out.list[i].t.meta, toDoubles(views->list[i].t)));
        return Value::ofTensors(std::move(parts), out.isTuple);
    }
    return Value::ofTensor(makeTensor(out.t.meta, toDoubles(views->t)));
}

}  // namespace

std::string copyVariantViewOp(std::string_view qualname) {
    for (const auto& v : kCopyVariants)
        if (qualname == v.name) return v.view;
    return {};
}

void registerCopyVariantOps(OpRegistry& r) {
    for (const auto& v : kCopyVariants) r.add(v.name, v.schema, OpCategory::Other, metaCopyVariant, copyVariantKernel);
}

}  // namespace fxray
