// Decompositions of linear and matmul, as AOT autograd traces them: at::linear's fused paths
// (addmm, or flatten + addmm + view for contiguous N-d inputs) and torch/_decomp's matmul
// (mm / folded mm / expand + reshape + bmm + view).
#include "autodiff/geometry.h"
#include "autodiff/tracer.h"

#include <algorithm>

namespace fxray {

namespace {

int64_t prod(const std::vector<int64_t>& v, size_t from = 0, size_t to = SIZE_MAX) {
    int64_t p = 1;
    for (size_t i = from; i < std::min(to, v.size()); ++i) p *= v[i];
    return p;
}

/// torch/_decomp should_fold: use one mm over the folded batch of the larger operand.
bool shouldFold(Tracer& t, Node* tensor1, Node* tensor2) {
    GraphEmitter& e = t.e;
    const bool firstLarger = e.meta(tensor1).dim() >= e.meta(tensor2).dim();
    Node* t1 = firstLarger ? tensor1 : tensor2;
    Node* t2 = firstLarger ? tensor2 : tensor1;
    const TensorMeta& m1 = e.meta(t1);
    if (!(m1.dim() >= 3 && e.meta(t2).dim() <= 2)) return false;
    if (t.requiresGrad(t2)) return true;
    if (e.meta(tensor1).dim() == 2) return false;
    if (m1.numel() == 0) return true;
    auto st = knownStrides(m1);
    for (int64_t i = 0; i + 2 < m1.dim(); ++i)
        if (st[static_cast<size_t>(i)] != st[static_cast<size_t>(i) + 1] * m1.shape[static_cast<size_t>(i) + 1])
            return false;
    return true;
}

Node* matmul(Tracer& t, Node* tensor1, Node* tensor2) {
    GraphEmitter& e = t.e;
    if (!tensor1 || !tensor2) return nullptr;
    const auto s1 = e.shape(tensor1), s2 = e.shape(tensor2);
    const auto dim1 = static_cast<int64_t>(s1.size()), dim2 = static_cast<int64_t>(s2.size());
    if (dim1 == 0 || dim2 == 0) {
        e.fail("matmul does not support 0-dimensional tensors");
        return nullptr;
    }
    if (dim1 == 1 && dim2 == 1) return e.op("aten.dot.default", {nodeArg(tensor1), nodeArg(tensor2)});
    if (dim1 == 2 && dim2 == 1) return e.op("aten.mv.default", {nodeArg(tensor1), nodeArg(tensor2)});
    if (dim1 == 1 && dim2 == 2) return e.squeeze(e.mm(e.unsqueeze(tensor1, 0), tensor2), 0);
    if (dim1 == 2 && dim2 == 2) return e.mm(tensor1, tensor2);
    if (shouldFold(t, tensor1, tensor2)) {
        const bool transpose = dim2 > dim1;
        Node* t1 = transpose ? e.transpose(tensor2, -2, -1) : tensor1;
        Node* t2 = !transpose ? tensor2 : (dim1 == 2 ? e.t(tensor1) : tensor1);
        if (!t1 || !t2) return nullptr;
        const auto sizes1 = e.shape(t1);
        std::vector<int64_t> outShape(sizes1.begin(), sizes1.end() - 1);
        const int64_t folded = prod(outShape);
        const bool t2Matrix = e.meta(t2).dim() == 2;
        if (t2Matrix) outShape.push_back(e.shape(t2)[1]);
        Node* t1Folded = e.reshape(t1, {folded, sizes1.back()});
        if (t2Matrix) {
            Node* out = e.op("aten._unsafe_view.default", {nodeArg(e.mm(t1Folded, t2)), intList(outShape)});
            if (!transpose || !out) return out;
            Node* mt = e.transpose(out, -2, -1);
            return mt && isContiguousLayout(e.meta(mt)) ? mt : e.contiguousClone(mt);
        }
        return e.op("aten._unsafe_view.default",
                    {nodeArg(e.op("aten.mv.default", {nodeArg(t1Folded), nodeArg(t2)})), intList(outShape)});
    }
    // Batched: broadcast the batch dims, fold them, one bmm, view back.
    const int64_t n = dim1 > 1 ? s1[s1.size() - 2] : 1;
    const int64_t m1 = s1.back();
    std::vector<int64_t> batch1(s1.begin(), s1.end() - std::min<int64_t>(2, dim1));
    const int64_t m2 = dim2 > 1 ? s2[s2.size() - 2] : s2.back();
    const int64_t p = dim2 > 1 ? s2.back() : 1;
    std::vector<int64_t> batch2(s2.begin(), s2.end() - std::min<int64_t>(2, dim2));
    if (dim1 == 3 && dim2 == 3 && batch1[0] != batch2[0]) {
        if (batch1[0] == 1 && t.requiresGrad(tensor1)) return matmul(t, e.squeeze(tensor1, 0), tensor2);
        if (batch2[0] == 1 && t.requiresGrad(tensor2)) return matmul(t, tensor1, e.squeeze(tensor2, 0));
    }
    // torch.broadcast_shapes of the batch portions.
    const size_t nb = std::max(batch1.size(), batch2.size());
    std::vector<int64_t> batch(nb, 1);
    for (size_t i = 0; i < nb; ++i) {
        int64_t a = i + batch1.size() >= nb ? batch1[i + batch1.size() - nb] : 1;
        int64_t b = i + batch2.size() >= nb ? batch2[i + batch2.size() - nb] : 1;
        if (a != b && a != 1 && b != 1) {
            e.fail("matmul batch dimensions do not broadcast");
            return nullptr;
        }
        batch[i] = a == 1 ? b : a;
    }
    const int64_t batchProd = prod(batch);
    auto size1 = batch;
    size1.insert(size1.end(), {n, m1});
    Node* t1e = e.reshape(e.expand(tensor1, size1), {batchProd, n, m1});
    const bool vectorRhs = dim2 == 1;
    Node* t2e;
    if (vectorRhs) {
        auto size2 = batch;
        size2.push_back(m2);
        t2e = e.unsqueeze(e.reshape(e.expand(tensor2, size2), {batchProd, m2}), 2);
    } else {
        auto size2 = batch;
        size2.insert(size2.end(), {m2, p});
        t2e = e.reshape(e.expand(tensor2, size2), {batchProd, m2, p});
    }
    auto outShape = batch;
    if (dim1 > 1) outShape.push_back(n);
    if (dim2 > 1) outShape.push_back(p);
    Node* r = e.bmm(t1e, t2e);
    if (vectorRhs) r = e.squeeze(r, -1);
    return e.view(r, outShape);
}

// matmul.default
std::optional<Traced> decomposeMatmul(DecompCall& c) {
    Node* r = matmul(c.t, c.in(0), c.in(1));
    if (!r) return std::nullopt;
    return Traced::of(r);
}

// linear.default (at::linear): addmm for 2-D inputs with a bias; flatten + addmm + view for
// contiguous N-d inputs with a bias; otherwise matmul with the transposed weight, plus the bias.
std::optional<Traced> decomposeLinear(DecompCall& c) {
    GraphEmitter& e = c.e;
    Node* input = c.in(0);
    Node* weight = c.in(1);
    Node* bias = c.in(2);
    if (!input || !weight) return std::nullopt;
    const TensorMeta& im = e.meta(input);
    Node* r = nullptr;
    if (im.dim() == 2 && bias) {
        Node* wt = e.t(weight);
        r = e.op("aten.addmm.default", {nodeArg(bias), nodeArg(input), nodeArg(wt)});
    } else if (im.dim() >= 3 && bias && isContiguousLayout(im)) {
        const auto sizes = im.shape;
        Node* flat = e.reshape(input, {prod(sizes, 0, sizes.size() - 1), sizes.back()});
        Node* wt = e.t(weight);
        Node* mm = e.op("aten.addmm.default", {nodeArg(bias), nodeArg(flat), nodeArg(wt)});
        if (!mm) return std::nullopt;
        std::vector<int64_t> out(sizes.begin(), sizes.end() - 1);
        out.push_back(e.shape(mm)[1]);
        r = e.view(mm, out);
    } else {
        r = matmul(c.t, input, e.t(weight));
        // `output.add_(bias)` on a fresh result: functionalised into an out-of-place add.
        if (bias && r) r = e.add(r, bias);
    }
    if (!r) return std::nullopt;
    return Traced::of(r);
}

}  // namespace

void addLinalgDecompositions(std::vector<Decomposition>& out) {
    out.push_back({"aten.linear.default", decomposeLinear});
    out.push_back({"aten.matmul.default", decomposeMatmul});
}

}  // namespace fxray
