// Ops that write a tensor into a view of a fresh one: the *_scatter ops (slice_scatter,
// select_scatter, diagonal_scatter, as_strided_scatter: a copy of self keeping its strides and
// storage offset, as at::clone_preserve_strides makes it) and the backwards of views
// (slice/select/diagonal/unfold_backward: zeros of the input's size, contiguous). Each one is
// its view op applied to that base, so one table maps them to the view op.
#include "exec/ops/register.h"
#include "exec/ops/shape_util.h"

namespace fxray {
using namespace kern;

namespace {

/// One op of the family: args are (self, src, view args...) for a scatter, (grad, input_sizes,
/// view args...) for a backward.
struct ViewWrite {
    const char* name;
    const char* schema;
    const char* view;
    bool backward;
    bool accumulate;  ///< overlapping view elements sum (unfold windows overlap)
};

constexpr ViewWrite kViewWrites[] = {
    {"aten.slice_scatter.default",
     "slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor",
     "aten.slice.Tensor", false, false},
    {"aten.select_scatter.default", "select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor",
     "aten.select.int", false, false},
    {"aten.diagonal_scatter.default",
     "diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor",
     "aten.diagonal.default", false, false},
    {"aten.as_strided_scatter.default",
     "as_strided_scatter(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> "
     "Tensor",
     "aten.as_strided.default", false, false},
    {"aten.slice_backward.default",
     "slice_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt start, SymInt end, SymInt step) -> "
     "Tensor",
     "aten.slice.Tensor", true, false},
    {"aten.select_backward.default",
     "select_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt index) -> Tensor", "aten.select.int",
     true, false},
    {"aten.diagonal_backward.default",
     "diagonal_backward(Tensor grad_output, SymInt[] input_sizes, int offset, int dim1, int dim2) -> Tensor",
     "aten.diagonal.default", true, false},
    {"aten.unfold_backward.default",
     "unfold_backward(Tensor grad_in, SymInt[] input_sizes, int dim, int size, int step) -> Tensor",
     "aten.unfold.default", true, true},
};

const ViewWrite* entryFor(const OpArgs& a) {
    for (const auto& e : kViewWrites)
        if (a.op().qualname == e.name) return &e;
    return nullptr;
}

/// The view op's arguments: everything after the first two.
std::vector<Value> viewArgs(const OpArgs& a) { return std::vector<Value>(a.values().begin() + 2, a.values().end()); }

/// The base the view is taken of: self's preserved-stride copy, or zeros of input_sizes.
Expected<TensorMeta> baseMeta(const OpArgs& a, const ViewWrite& e) {
    const TensorMeta& first = a.tensor(0).meta;
    if (first.isSymbolic()) return opError(a, "symbolic shapes are not supported");
    if (!e.backward) return clonePreserveStridesMeta(first);
    const auto sizes = a.toIntList(1);
    for (int64_t s : sizes)
        if (s < 0) return opError(a, "input_sizes must be non-negative, got " + shapeStr(sizes));
    return contiguousLike(first, sizes);
}

Expected<Value> metaViewWrite(const OpArgs& a) {
    const ViewWrite* e = entryFor(a);
    if (!e) return opError(a, "no view op to write through");
    auto base = baseMeta(a, *e);
    if (!base.ok()) return base.error();
    auto view = viewMetaOf(a, e->view, *base, viewArgs(a));
    if (!view.ok()) return view.error();
    const auto& srcShape = a.tensor(e->backward ? 0 : 1).shape();
    if (!e->backward && srcShape != view->shape)
        return opError(a, "expected src to have a size equal to the slice of self. src size = " + shapeStr(srcShape) +
                              ", slice size = " + shapeStr(view->shape));
    if (e->backward) {
        auto b = broadcastShapes(view->shape, srcShape);
        if (!b || *b != view->shape)
            return opError(a, "gradient of shape " + shapeStr(srcShape) + " does not match the view of shape " +
                                  shapeStr(view->shape) + " of an input of size " + shapeStr(base->shape));
    }
    return metaValue(std::move(base).value());
}

Expected<Value> viewWriteKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    const ViewWrite* e = entryFor(a);
    if (!e) return opError(a, "no view op to write through");
    Tensor base = e->backward ? Tensor::emptyLike(out.t.meta) : clonePreserveStrides(a.tensor(0));
    auto view = viewOf(a, e->view, base, viewArgs(a), ctx);
    if (!view.ok()) return view.error();
    writeInto(*view, a.tensor(e->backward ? 0 : 1), e->accumulate);
    return Value::ofTensor(base);
}

}  // namespace

void registerViewScatterOps(OpRegistry& r) {
    for (const auto& e : kViewWrites) r.add(e.name, e.schema, OpCategory::Other, metaViewWrite, viewWriteKernel);
}

}  // namespace fxray
