// VJP rules of indexing ops: embedding, index_select, index_add, gather.
#include "autodiff/vjp.h"

namespace fxray {

namespace {

// embedding: weight: embedding_backward(grad, indices, weight.size(0), padding_idx,
// scale_grad_by_freq, sparse), which for dense weights is embedding_dense_backward.
void embedding(VjpCall& c) {
    if (!c.needs(0)) return;
    const int64_t numWeights = c.meta(c.input(0)).shape.at(0);
    c.give(0, c.e.op("aten.embedding_dense_backward.default",
                     {nodeArg(c.grad()), c.arg(1), Argument::ofInt(numWeights), c.arg(2), c.arg(3)}));
}

// index_select: index_select_backward: zeros of the input's size with the gradient index_add'ed.
void indexSelect(VjpCall& c) {
    Node* z = c.e.zerosLike(c.grad(), c.meta(c.input(0)).shape);
    c.give(0, c.e.op("aten.index_add.default", {nodeArg(z), c.arg(1), c.arg(2), nodeArg(c.grad())}));
}

// index_add: self: grad; source: maybe_multiply(grad.index_select(dim, index).expand_as(source), alpha).
void indexAdd(VjpCall& c) {
    c.give(0, c.grad());
    if (!c.needs(3)) return;
    const auto& srcShape = c.meta(c.input(3)).shape;
    Node* g;
    if (!srcShape.empty()) {
        Node* sel = c.e.op("aten.index_select.default", {nodeArg(c.grad()), c.arg(1), c.arg(2)});
        g = c.e.expand(sel, srcShape);
    } else {
        Node* idx = c.e.op("aten.squeeze.dim", {c.arg(2), Argument::ofInt(0)});
        g = c.e.op("aten.index_select.default", {nodeArg(c.grad()), c.arg(1), nodeArg(idx)});
    }
    if (!c.arg(4).isNone() && numberOf(c.arg(4)) != 1.0) g = c.e.op("aten.mul.Scalar", {nodeArg(g), c.arg(4)});
    c.give(3, g);
}

// gather: gather_backward: grad.new_zeros(self.sizes()).scatter_add(dim, index, grad).
void gather(VjpCall& c) {
    Node* z = c.e.op("aten.new_zeros.default", {nodeArg(c.grad()), intList(c.meta(c.input(0)).shape)});
    c.give(0, c.e.op("aten.scatter_add.default", {nodeArg(z), c.arg(1), c.arg(2), nodeArg(c.grad())}));
}

}  // namespace

void addIndexingVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.embedding.default", embedding});
    out.push_back({"aten.index_select.default", indexSelect});
    out.push_back({"aten.index_add.default", indexAdd});
    out.push_back({"aten.gather.default", gather});
}

}  // namespace fxray
