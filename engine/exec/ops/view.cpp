// View ops: outputs alias the input's storage; the meta function computes the view's shape,
// strides and offset, and the kernel only attaches the input's storage to that metadata.
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

namespace fxray {
using namespace kern;

namespace {

/// Kernel shared by every view op: same storage, metadata from the meta function.
Expected<Value> aliasKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return Value::ofTensor(a.tensor(0).view(out.t.meta));
}

Expected<Value> metaT(const OpArgs& a) {
    const TensorMeta& in = a.tensor(0).meta;
    if (in.dim() > 2) return opError(a, "expects a tensor of at most 2 dimensions, got " + std::to_string(in.dim()));
    TensorMeta m = in;
    if (in.dim() == 2) {
        std::swap(m.shape[0], m.shape[1]);
        std::swap(m.strides[0], m.strides[1]);
    }
    return metaValue(std::move(m));
}

} // namespace

void registerViewOps(OpRegistry& r) {
    r.add("aten.t.default", "t(Tensor(a) self) -> Tensor(a)", OpCategory::View, metaT, aliasKernel)
        .aliasesInput = true;
}

} // namespace fxray
