// Pointwise arithmetic, comparisons and selection. Each op: a schema, a meta function (shape,
// dtype and strides via pointwiseMeta) and a kernel computing in double.
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <cmath>

namespace fxray {
using namespace kern;

namespace {

Expected<Value> metaBinary(const OpArgs& a) { return pointwiseMeta(a, {0, 1}); }

Expected<Value> addKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double alpha = a.size() > 2 ? a.toDouble(2) : 1.0;
    return pointwiseKernel(a, out, {0, 1}, [alpha](const double* x) { return x[0] + alpha * x[1]; });
}

Expected<Value> mulKernel(const OpArgs& a, const Value& out, ExecContext&) {
    return pointwiseKernel(a, out, {0, 1}, [](const double* x) { return x[0] * x[1]; });
}

} // namespace

void registerPointwiseOps(OpRegistry& r) {
    r.add("aten.add.Tensor", "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
          OpCategory::Pointwise, metaBinary, addKernel);
    r.add("aten.mul.Tensor", "mul.Tensor(Tensor self, Tensor other) -> Tensor",
          OpCategory::Pointwise, metaBinary, mulKernel);
}

} // namespace fxray
