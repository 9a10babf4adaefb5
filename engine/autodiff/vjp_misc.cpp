// VJP rules of the remaining ops OpInfo differentiates: fills and copies (the functional forms
// of in-place ops), sort, frexp, the scans cumprod and logcumsumexp, _safe_softmax, masked
// indexing and as_strided. Formulas follow tools/autograd/derivatives.yaml and
// FunctionsManual.cpp.
#include "autodiff/geometry.h"
#include "autodiff/vjp.h"

#include <limits>

namespace fxray {

namespace {

Argument num(double v) { return Argument::ofFloat(v); }

// fill.Scalar / zero: self: zeros_like(grad).
void fillScalar(VjpCall& c) { c.give(0, c.e.op("aten.zeros_like.default", {nodeArg(c.grad())})); }

// fill.Tensor(self, value): self: zeros_like(grad); value: grad.sum().
void fillTensor(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.op("aten.zeros_like.default", {nodeArg(c.grad())}));
    if (c.needs(1)) c.give(1, c.e.op("aten.sum.default", {nodeArg(c.grad())}));
}

// copy(self, src, non_blocking): self: zeros_like(grad); src: grad (summed to src's shape and
// cast to its dtype by the builder).
void copy(VjpCall& c) {
    if (c.needs(0)) c.give(0, c.e.op("aten.zeros_like.default", {nodeArg(c.grad())}));
    if (c.needs(1)) c.give(1, c.grad());
}

// sort(self, dim, descending) -> (values, indices): value_selecting_reduction_backward(grad,
// dim, indices, self.sizes(), keepdim=true): zeros(sizes).scatter(dim, indices, grad).
void sort(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (!c.grad(0)) return;
    const auto& shape = c.meta(c.input(0)).shape;
    if (shape.empty()) return c.give(0, c.grad(0));
    const int64_t dim = wrapDimIndex(c.arg(1).i, static_cast<int64_t>(shape.size()));
    Node* z = e.zerosLike(c.grad(0), shape);
    c.give(0, e.op("aten.scatter.src", {nodeArg(z), Argument::ofInt(dim), nodeArg(c.result(1)), nodeArg(c.grad(0))}));
}

// frexp.Tensor(self) -> (mantissa, exponent): self: grad / exponent.exp2().
void frexp(VjpCall& c) {
    if (!c.grad(0)) return;
    Node* p = c.e.op("aten.exp2.default", {nodeArg(c.result(1))});
    c.give(0, c.e.op("aten.div.Tensor", {nodeArg(c.grad(0)), nodeArg(p)}));
}

/// reversed_cumsum(x, dim): x.flip(dim).cumsum(dim).flip(dim).
Node* reversedCumsum(GraphEmitter& e, Node* x, int64_t dim) {
    Node* f = e.op("aten.flip.default", {nodeArg(x), intList({dim})});
    return e.op("aten.flip.default",
                {nodeArg(e.op("aten.cumsum.default", {nodeArg(f), Argument::ofInt(dim)})), intList({dim})});
}

// cumprod(self, dim, dtype): cumprod_backward for inputs without zeros:
// reversed_cumsum(grad * result, dim) / self.
void cumprod(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(c.input(0)).shape;
    if (shape.empty() || c.meta(c.input(0)).numel() <= 1) return c.give(0, c.grad());
    const int64_t dim = wrapDimIndex(c.arg(1).i, static_cast<int64_t>(shape.size()));
    Node* w = e.mul(c.grad(), nodeArg(c.savedResult()));
    c.give(0, e.op("aten.div.Tensor", {nodeArg(reversedCumsum(e, w, dim)), c.arg(0)}));
}

// logcumsumexp(self, dim): logcumsumexp_backward: the positive and negative parts of grad in log
// space, each through a reversed logcumsumexp: exp(rlcse(log|g+| - result) + self) - exp(...g-...).
void logcumsumexp(VjpCall& c) {
    GraphEmitter& e = c.e;
    const auto& shape = c.meta(c.input(0)).shape;
    if (shape.empty()) return c.give(0, c.grad());
    const int64_t dim = wrapDimIndex(c.arg(1).i, static_cast<int64_t>(shape.size()));
    const double lowest = std::numeric_limits<float>::lowest();
    Node* g = c.grad();
    Node* r = c.savedResult();
    Node* logAbs = e.op("aten.log.default", {nodeArg(e.op("aten.abs.default", {nodeArg(g)}))});
    auto part = [&](const char* cmp) {
        Node* sel = e.op(cmp, {nodeArg(g), num(0.0)});
        Node* lg = e.op("aten.where.ScalarOther", {nodeArg(sel), nodeArg(logAbs), num(lowest)});
        Node* d = e.op("aten.sub.Tensor", {nodeArg(lg), nodeArg(r)});
        Node* f = e.op("aten.flip.default", {nodeArg(d), intList({dim})});
        Node* l =
            e.op("aten.flip.default",
                 {nodeArg(e.op("aten.logcumsumexp.default", {nodeArg(f), Argument::ofInt(dim)})), intList({dim})});
        return e.op("aten.exp.default", {nodeArg(e.op("aten.add.Tensor", {nodeArg(l), c.arg(0)}))});
    };
    Node* pos = part("aten.gt.Scalar");
    Node* neg = part("aten.lt.Scalar");
    c.give(0, e.op("aten.sub.Tensor", {nodeArg(pos), nodeArg(neg)}));
}

// _safe_softmax(self, dim, dtype): _softmax_backward_data(grad, result, dim, self.scalar_type()).
void safeSoftmax(VjpCall& c) {
    c.give(0, c.e.op("aten._softmax_backward_data.default", {nodeArg(c.grad()), nodeArg(c.savedResult()), c.arg(1),
                                                             Argument::ofDType(c.meta(c.input(0)).dtype)}));
}

// _unsafe_masked_index(self, mask, indices, fill): self:
// _unsafe_masked_index_put_accumulate(zeros(self.sizes()), mask, indices, grad).
void unsafeMaskedIndex(VjpCall& c) {
    Node* z = c.e.zerosLike(c.grad(), c.meta(c.input(0)).shape);
    c.give(0, c.e.op("aten._unsafe_masked_index_put_accumulate.default",
                     {nodeArg(z), c.arg(1), c.arg(2), nodeArg(c.grad())}));
}

// _unsafe_masked_index_put_accumulate(self, mask, indices, values): self: grad;
// values: _unsafe_masked_index(grad, mask, indices, 0).
void unsafeMaskedIndexPut(VjpCall& c) {
    c.give(0, c.grad());
    if (c.needs(3))
        c.give(3, c.e.op("aten._unsafe_masked_index.default", {nodeArg(c.grad()), c.arg(1), c.arg(2), num(0.0)}));
}

/// Flat storage positions of an as_strided view (offset + sum of index * stride), as int64
/// nodes broadcast to `size`: the gradient of each view element lands there.
Node* stridedPositions(GraphEmitter& e, const std::vector<int64_t>& size, const std::vector<int64_t>& stride,
                       int64_t offset, const TensorMeta& like) {
    Node* pos = nullptr;
    const size_t n = size.size();
    for (size_t d = 0; d < n; ++d) {
        Node* r = e.op("aten.arange.default", {Argument::ofInt(size[d])},
                       {{"dtype", Argument::ofDType(DType::Int64)}, {"device", Argument::ofDevice(like.device)}});
        r = e.op("aten.mul.Scalar", {nodeArg(r), Argument::ofInt(stride[d])});
        std::vector<int64_t> shape(n, 1);
        shape[d] = size[d];
        r = e.view(r, shape);
        pos = pos ? e.op("aten.add.Tensor", {nodeArg(pos), nodeArg(r)}) : r;
    }
    if (!pos)
        pos = e.op("aten.scalar_tensor.default", {Argument::ofInt(0)}, {{"dtype", Argument::ofDType(DType::Int64)}});
    if (offset) pos = e.op("aten.add.Scalar", {nodeArg(pos), Argument::ofInt(offset)});
    return e.expand(pos, size);
}

// as_strided(self, size, stride, storage_offset) on a contiguous input: as_strided_backward,
// each view element's gradient added at its storage position (overlapping views accumulate).
void asStrided(VjpCall& c) {
    GraphEmitter& e = c.e;
    const TensorMeta& in = c.meta(c.input(0));
    if (!in.isContiguous() || in.offset != 0)
        return e.fail("no VJP for as_strided of a non-contiguous input", c.fwd.name());
    auto size = intsOf(c.arg(1)), stride = intsOf(c.arg(2));
    const int64_t offset = c.arg(3).kind == Argument::Kind::Int ? c.arg(3).i : 0;
    if (size.size() != stride.size()) return e.fail("as_strided size and stride differ in length", c.fwd.name());
    Node* pos = e.reshape(stridedPositions(e, size, stride, offset, in), {-1});
    Node* flat = e.zerosLike(c.grad(), {in.numel()});
    Node* g = e.reshape(c.grad(), {-1});
    Node* acc = e.op("aten.index_add.default", {nodeArg(flat), Argument::ofInt(0), nodeArg(pos), nodeArg(g)});
    c.give(0, e.reshape(acc, in.shape));
}

// _softmax_backward_data(grad_output, output, dim, input_dtype): grad_output:
// _softmax_backward_data(grad, output, dim, input_dtype); output: softmax_double_backward =
// grad_output * grad - sum(output * grad_output) * grad - grad_output * sum(output * grad).
void softmaxBackwardData(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (c.needs(0))
        c.give(0, e.op("aten._softmax_backward_data.default", {nodeArg(c.grad()), c.arg(1), c.arg(2), c.arg(3)}));
    if (!c.needs(1)) return;
    auto sumKeep = [&](Node* x) {
        return e.op("aten.sum.dim_IntList", {nodeArg(x), intList({c.arg(2).i}), Argument::ofBool(true)});
    };
    Node* sYgo = sumKeep(e.op("aten.mul.Tensor", {c.arg(1), c.arg(0)}));
    Node* sYg = sumKeep(e.op("aten.mul.Tensor", {c.arg(1), nodeArg(c.grad())}));
    Node* r = e.op("aten.sub.Tensor", {nodeArg(e.op("aten.mul.Tensor", {c.arg(0), nodeArg(c.grad())})),
                                       nodeArg(e.mul(sYgo, nodeArg(c.grad())))});
    c.give(1, e.op("aten.sub.Tensor", {nodeArg(r), nodeArg(e.op("aten.mul.Tensor", {c.arg(0), nodeArg(sYg)}))}));
}

/// _embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
/// include_last_offset, padding_idx) -> (out, offset2bag, bag_size, max_indices): weight:
/// _embedding_bag_backward; per_sample_weights: _embedding_bag_per_sample_weights_backward.
/// `bag` holds the bookkeeping outputs (the op's own, or a re-run of _embedding_bag for the
/// forward-only variant, which need not compute them).
void embeddingBagGrads(VjpCall& c, Node* offset2bag, Node* bagSize, Node* maxIndices) {
    GraphEmitter& e = c.e;
    if (!c.grad(0)) return;
    if (c.needs(6))
        c.give(6, e.op("aten._embedding_bag_per_sample_weights_backward.default",
                       {nodeArg(c.grad(0)), c.arg(0), c.arg(1), c.arg(2), nodeArg(offset2bag), c.arg(4), c.arg(8)}));
    if (c.needs(0))
        c.give(0, e.op("aten._embedding_bag_backward.default",
                       {nodeArg(c.grad(0)), c.arg(1), c.arg(2), nodeArg(offset2bag), nodeArg(bagSize),
                        nodeArg(maxIndices), Argument::ofInt(c.meta(c.input(0)).shape.at(0)), c.arg(3), c.arg(4),
                        c.arg(5), c.arg(6), c.arg(8)}));
}
void embeddingBag(VjpCall& c) { embeddingBagGrads(c, c.result(1), c.result(2), c.result(3)); }
void embeddingBagForwardOnly(VjpCall& c) {
    GraphEmitter& e = c.e;
    if (!c.grad(0)) return;
    Node* bag = e.op("aten._embedding_bag.default",
                     {c.arg(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5), c.arg(6), c.arg(7), c.arg(8)});
    if (!bag) return;
    embeddingBagGrads(c, e.getitem(bag, 1), e.getitem(bag, 2), e.getitem(bag, 3));
}

// as_strided_scatter(self, src, size, stride, storage_offset): self: as_strided_scatter_backward,
// which (for contiguous inputs, all PyTorch supports) keeps grad at the scattered positions and
// zeros elsewhere: as_strided_scatter(zeros_like(grad), grad.as_strided(...), ...) (PyTorch's
// formula, matched as it is); src: grad.as_strided(size, stride, storage_offset).
void asStridedScatter(VjpCall& c) {
    GraphEmitter& e = c.e;
    Node* g = e.meta(c.grad()).isContiguous() ? c.grad() : e.contiguousClone(c.grad());
    Node* slice = e.op("aten.as_strided.default", {nodeArg(g), c.arg(2), c.arg(3), c.arg(4)});
    if (c.needs(0))
        c.give(0, e.op("aten.as_strided_scatter.default", {nodeArg(e.op("aten.zeros_like.default", {nodeArg(g)})),
                                                           nodeArg(slice), c.arg(2), c.arg(3), c.arg(4)}));
    if (c.needs(1)) c.give(1, slice);
}

}  // namespace

void addMiscVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.fill.Scalar", fillScalar});
    out.push_back({"aten.zero.default", fillScalar});
    out.push_back({"aten.fill.Tensor", fillTensor});
    out.push_back({"aten.copy.default", copy});
    out.push_back({"aten.sort.default", sort, false, 0b10});
    out.push_back({"aten.frexp.Tensor", frexp, false, 0b10});
    out.push_back({"aten.cumprod.default", cumprod, true});
    out.push_back({"aten.logcumsumexp.default", logcumsumexp, true});
    out.push_back({"aten._safe_softmax.default", safeSoftmax, true});
    out.push_back({"aten._unsafe_masked_index.default", unsafeMaskedIndex});
    out.push_back({"aten._unsafe_masked_index_put_accumulate.default", unsafeMaskedIndexPut});
    out.push_back({"aten.as_strided.default", asStrided});
    out.push_back({"aten._softmax_backward_data.default", softmaxBackwardData});
    out.push_back({"aten._embedding_bag.default", embeddingBag, false, 0b1110});
    out.push_back({"aten._embedding_bag_forward_only.default", embeddingBagForwardOnly, false, 0b1110});
    out.push_back({"aten.as_strided_scatter.default", asStridedScatter});
}

}  // namespace fxray
