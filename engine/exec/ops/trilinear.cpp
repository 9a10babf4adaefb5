// _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim): the product of three
// tensors, each unsqueezed at its `expand` dims to a common rank, summed over `sumdim` (those
// dims are dropped). torch.nn.functional.bilinear and its gradients are made of it.
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/register.h"

#include <array>
#include <string>

namespace fxray {
using namespace kern;
using namespace nn;

namespace {

struct Trilinear {
    int64_t total = 0;
    std::array<std::vector<int64_t>, 3> shapes;  ///< each input at the common rank
    std::vector<int64_t> full;                   ///< broadcast shape before the sum
    std::vector<bool> summed;
    std::vector<int64_t> outShape;
};

Expected<Trilinear> trilinearSpec(const OpArgs& a) {
    Trilinear t;
    std::array<const Tensor*, 3> in{};
    for (size_t i = 0; i < 3; ++i) {
        auto x = reqTensor(a, i);
        if (!x.ok()) return x.error();
        in[i] = *x;
    }
    if (in[1]->dtype() != in[0]->dtype() || in[2]->dtype() != in[0]->dtype())
        return opError(a, "expected i1, i2 and i3 to have the same dtype");
    t.total = in[0]->dim() + static_cast<int64_t>(a.toIntList(3).size());
    for (size_t i = 0; i < 3; ++i) {
        const auto expand = a.toIntList(3 + i);
        std::vector<bool> inserted(static_cast<size_t>(t.total), false);
        for (int64_t d : expand) {
            auto w = wrapDim(d, t.total);
            if (!w || inserted[static_cast<size_t>(*w)])
                return opError(a, "expand" + std::to_string(i + 1) + " " + shapeStr(expand) +
                                      " is not a list of distinct dims of " + std::to_string(t.total));
            inserted[static_cast<size_t>(*w)] = true;
        }
        if (in[i]->dim() + static_cast<int64_t>(expand.size()) != t.total)
            return opError(a, "i" + std::to_string(i + 1) + " " + shapeStr(in[i]->shape()) + " with expand" +
                                  std::to_string(i + 1) + " " + shapeStr(expand) + " does not reach rank " +
                                  std::to_string(t.total));
        size_t src = 0;
        for (int64_t d = 0; d < t.total; ++d)
            t.shapes[i].push_back(inserted[static_cast<size_t>(d)] ? 1 : in[i]->shape()[src++]);
    }
    auto b = broadcastShapes(t.shapes[0], t.shapes[1]);
    if (b) b = broadcastShapes(*b, t.shapes[2]);
    if (!b)
        return opError(a, "expanded inputs " + shapeStr(t.shapes[0]) + ", " + shapeStr(t.shapes[1]) + " and " +
                              shapeStr(t.shapes[2]) + " cannot be broadcast together");
    t.full = *b;
    t.summed.assign(static_cast<size_t>(t.total), false);
    for (int64_t d : a.toIntList(6)) {
        auto w = wrapDim(d, t.total);
        if (!w)
            return opError(a, "sumdim " + std::to_string(d) + " is out of range for rank " + std::to_string(t.total));
        t.summed[static_cast<size_t>(*w)] = true;
    }
    for (int64_t d = 0; d < t.total; ++d)
        if (!t.summed[static_cast<size_t>(d)]) t.outShape.push_back(t.full[static_cast<size_t>(d)]);
    return t;
}

Expected<Value> metaTrilinear(const OpArgs& a) {
    auto t = trilinearSpec(a);
    if (!t.ok()) return t.error();
    const Tensor& x = a.tensor(0);
    return metaValue(TensorMeta::contiguous(t->outShape, x.dtype(), x.meta.device));
}

Expected<Value> trilinearKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto t = trilinearSpec(a);
    if (!t.ok()) return t.error();
    std::array<std::vector<double>, 3> v;
    for (size_t i = 0; i < 3; ++i) {
        // The input's values in row-major order are those of its unsqueezed form.
        Tensor unsqueezed = makeTensor(TensorMeta::contiguous(t->shapes[i], DType::Float64), toDoubles(a.tensor(i)));
        v[i] = toDoublesBroadcast(unsqueezed, t->full);
    }
    const auto outStrides = rowMajorStrides(t->outShape);
    std::vector<double> y(static_cast<size_t>(product(t->outShape)), 0.0);
    const int64_t n = product(t->full);
    std::vector<int64_t> idx(t->full.size(), 0);
    for (int64_t e = 0; e < n; ++e) {
        int64_t o = 0;
        for (size_t d = 0, k = 0; d < idx.size(); ++d)
            if (!t->summed[d]) o += idx[d] * outStrides[k++];
        y[static_cast<size_t>(o)] +=
            v[0][static_cast<size_t>(e)] * v[1][static_cast<size_t>(e)] * v[2][static_cast<size_t>(e)];
        for (size_t d = idx.size(); d-- > 0;) {
            if (++idx[d] < t->full[d]) break;
            idx[d] = 0;
        }
    }
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

}  // namespace

void registerTrilinearOps(OpRegistry& r) {
    r.add("aten._trilinear.default",
          "_trilinear(Tensor i1, Tensor i2, Tensor i3, int[] expand1, int[] expand2, int[] expand3, int[] sumdim, "
          "int unroll_dim=1) -> Tensor",
          OpCategory::Other, metaTrilinear, trilinearKernel);
}

}  // namespace fxray
