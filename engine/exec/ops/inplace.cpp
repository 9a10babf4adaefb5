// In-place ops (`add_`, `masked_fill_`, `sqrt_`, ...) through one mechanism: `X_.ov` runs the
// functional op `X.ov` (found in the registry by name at run time, so the functional op may be
// registered by any op family) and writes its result into self's storage with PyTorch's in-place
// rules: the result's broadcast shape must be self's shape, its dtype must be castable to self's
// dtype, and self must not have elements sharing one memory location.
#include "exec/ops/inplace.h"

#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <string>
#include <string_view>
#include <unordered_map>

namespace fxray {
using namespace kern;

namespace {

/// One in-place op: its qualname, PyTorch's schema, and the functional op computing its values.
/// The functional op takes the same arguments in the same order (PyTorch's convention for
/// `X_`/`X` pairs); `functional` is empty when it is the qualname without the trailing `_`.
struct InplaceOp {
    const char* qualname;
    const char* schema;
    const char* functional = "";
    OpCategory category = OpCategory::Pointwise;
};

// clang-format off
/// Every in-place op this mechanism registers.
const InplaceOp kInplaceOps[] = {
    // Arithmetic
    {"aten.add_.Tensor", "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"},
    // add_.Scalar is left out: torch.export and AOT write add_.Tensor for `t.add_(1)`, and with
    // both registered the Dynamo lowering would pick the Scalar overload PyTorch does not.
    {"aten.sub_.Tensor", "sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"},
    {"aten.sub_.Scalar", "sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)"},
    {"aten.mul_.Tensor", "mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.mul_.Scalar", "mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.div_.Tensor", "div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.div_.Scalar", "div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.div_.Tensor_mode", "div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)"},
    {"aten.neg_.default", "neg_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.pow_.Scalar", "pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)", "aten.pow.Tensor_Scalar"},
    {"aten.pow_.Tensor", "pow_.Tensor(Tensor(a!) self, Tensor exponent) -> Tensor(a!)", "aten.pow.Tensor_Tensor"},
    {"aten.remainder_.Tensor", "remainder_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.remainder_.Scalar", "remainder_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.fmod_.Tensor", "fmod_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.fmod_.Scalar", "fmod_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.floor_divide_.Tensor", "floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", "aten.floor_divide.default"},
    {"aten.floor_divide_.Scalar", "floor_divide_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.addcmul_.default", "addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)"},
    {"aten.addcdiv_.default", "addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)"},
    {"aten.lerp_.Scalar", "lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)"},
    {"aten.lerp_.Tensor", "lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)"},
    {"aten.atan2_.default", "atan2_(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.hypot_.default", "hypot_(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.copysign_.Tensor", "copysign_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.copysign_.Scalar", "copysign_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.xlogy_.Tensor", "xlogy_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.xlogy_.Scalar_Other", "xlogy_.Scalar_Other(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.ldexp_.default", "ldexp_(Tensor(a!) self, Tensor other) -> Tensor(a!)", "aten.ldexp.Tensor"},
    {"aten.nextafter_.default", "nextafter_(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.heaviside_.default", "heaviside_(Tensor(a!) self, Tensor values) -> Tensor(a!)"},
    {"aten.gcd_.default", "gcd_(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.lcm_.default", "lcm_(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.igamma_.default", "igamma_(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.igammac_.default", "igammac_(Tensor(a!) self, Tensor other) -> Tensor(a!)"},

    // Clamping
    {"aten.clamp_.default", "clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)"},
    {"aten.clamp_.Tensor", "clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)"},
    {"aten.clamp_min_.default", "clamp_min_(Tensor(a!) self, Scalar min) -> Tensor(a!)"},
    {"aten.clamp_min_.Tensor", "clamp_min_.Tensor(Tensor(a!) self, Tensor min) -> Tensor(a!)"},
    {"aten.clamp_max_.default", "clamp_max_(Tensor(a!) self, Scalar max) -> Tensor(a!)"},
    {"aten.clamp_max_.Tensor", "clamp_max_.Tensor(Tensor(a!) self, Tensor max) -> Tensor(a!)"},

    // Unary math (the functional ops may come from another op family)
    {"aten.sqrt_.default", "sqrt_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.rsqrt_.default", "rsqrt_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.exp_.default", "exp_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.log_.default", "log_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.abs_.default", "abs_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.reciprocal_.default", "reciprocal_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.erf_.default", "erf_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.ceil_.default", "ceil_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.floor_.default", "floor_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.trunc_.default", "trunc_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.round_.default", "round_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.digamma_.default", "digamma_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.sigmoid_.default", "sigmoid_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.tanh_.default", "tanh_(Tensor(a!) self) -> Tensor(a!)"},

    // Logical and bitwise
    {"aten.logical_not_.default", "logical_not_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.logical_and_.default", "logical_and_(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.logical_or_.default", "logical_or_(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.logical_xor_.default", "logical_xor_(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.bitwise_and_.Tensor", "bitwise_and_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.bitwise_or_.Tensor", "bitwise_or_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.bitwise_xor_.Tensor", "bitwise_xor_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.bitwise_xor_.Scalar", "bitwise_xor_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.bitwise_left_shift_.Tensor", "bitwise_left_shift_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.bitwise_right_shift_.Tensor", "bitwise_right_shift_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},

    // Comparisons write 0/1 into self's dtype
    {"aten.eq_.Tensor", "eq_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.eq_.Scalar", "eq_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.ne_.Tensor", "ne_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.ne_.Scalar", "ne_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.lt_.Tensor", "lt_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.lt_.Scalar", "lt_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.le_.Tensor", "le_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.le_.Scalar", "le_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.gt_.Tensor", "gt_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.gt_.Scalar", "gt_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},
    {"aten.ge_.Tensor", "ge_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)"},
    {"aten.ge_.Scalar", "ge_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)"},

    // Triangles (x.tril_() in Dynamo graphs: causal masks built in place)
    {"aten.tril_.default", "tril_(Tensor(a!) self, int diagonal=0) -> Tensor(a!)", "", OpCategory::Other},
    {"aten.triu_.default", "triu_(Tensor(a!) self, int diagonal=0) -> Tensor(a!)", "", OpCategory::Other},

    // Fills
    {"aten.fill_.Scalar", "fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)"},
    {"aten.fill_.Tensor", "fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)"},
    {"aten.zero_.default", "zero_(Tensor(a!) self) -> Tensor(a!)"},
    {"aten.masked_fill_.Scalar", "masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)"},
    {"aten.masked_fill_.Tensor", "masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)"},

    // Indexed accumulation (as_strided's backward writes through index_add_)
    {"aten.index_add_.default",
     "index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor(a!)", "",
     OpCategory::Other},
};
// clang-format on

/// The table row of an in-place op, by qualname.
const InplaceOp* findInplace(std::string_view qualname) {
    static const auto byName = [] {
        std::unordered_map<std::string_view, const InplaceOp*> m;
        for (const InplaceOp& op : kInplaceOps) m.emplace(op.qualname, &op);
        return m;
    }();
    auto it = byName.find(qualname);
    return it == byName.end() ? nullptr : it->second;
}

/// "aten.add.Tensor" for "aten.add_.Tensor", unless the table names another functional op.
std::string functionalName(const InplaceOp& op) {
    if (*op.functional) return op.functional;
    std::string q = op.qualname;
    const size_t dot = q.rfind('.');
    return q.substr(0, dot - 1) + q.substr(dot);
}

/// torch.can_cast for writing a result of dtype `from` into a tensor of dtype `to`.
bool canCast(DType from, DType to) {
    if (isComplex(from) && !isComplex(to)) return false;
    if (isFloating(from) && isIntegral(to, false)) return false;
    if (from != DType::Bool && to == DType::Bool) return false;
    return true;
}

std::string dtName(DType t) { return std::string(dtypeTorchName(t)); }

/// The functional op's arguments: the in-place op's bound values under the functional schema.
Expected<OpArgs> functionalArgs(const OpArgs& a) {
    const InplaceOp* row = findInplace(a.op().qualname);
    if (!row) return opError(a, "not in the table of in-place ops");
    const std::string name = functionalName(*row);
    const OpInfo* f = OpRegistry::instance().find(name);
    if (!f) return opError(a, "fxray cannot run it: its functional op " + name + " is not supported");
    if (f->schema.args.size() != a.size())
        return opError(a, "the arguments of " + name + " do not match the in-place op's");
    return OpArgs(*f, a.values());
}

/// The result's shape must be self's (self is not broadcast), its dtype castable to self's, and
/// self may not have several elements at one address (an expanded tensor).
Expected<Value> metaInplace(const OpArgs& a) {
    if (!a.isTensor(0)) return opError(a, "self must be a tensor, got " + a[0].describe());
    const TensorMeta& self = a.tensor(0).meta;
    auto fa = functionalArgs(a);
    if (!fa.ok()) return fa.error();
    auto res = fa->op().meta(*fa);
    if (!res.ok()) return res;
    if (!res->isTensor()) return opError(a, "the functional op " + fa->op().qualname + " does not return one tensor");
    const TensorMeta& r = res->t.meta;
    if (r.shape != self.shape)
        return opError(a, "output with shape " + shapeStr(self.shape) + " doesn't match the broadcast shape " +
                              shapeStr(r.shape));
    if (!canCast(r.dtype, self.dtype))
        return opError(a, "result type " + dtName(r.dtype) + " can't be cast to the desired output type " +
                              dtName(self.dtype));
    for (size_t d = 0; d < self.shape.size() && d < self.strides.size(); ++d)
        if (self.shape[d] > 1 && self.strides[d] == 0)
            return opError(a, "unsupported operation: more than one element of the written-to tensor refers to a "
                              "single memory location. Please clone() the tensor before performing the operation.");
    return metaValue(self);
}

/// Computes the functional result, then writes it (converted to self's dtype) into self.
Expected<Value> inplaceKernel(const OpArgs& a, const Value&, ExecContext& ctx) {
    auto fa = functionalArgs(a);
    if (!fa.ok()) return fa.error();
    auto meta = fa->op().meta(*fa);
    if (!meta.ok()) return meta;
    if (!fa->op().kernel) return opError(a, "the functional op " + fa->op().qualname + " has no reference kernel");
    auto res = fa->op().kernel(*fa, *meta, ctx);
    if (!res.ok()) return res;
    Tensor self = a.tensor(0);
    // Every argument was read by the functional kernel before this write, so self appearing
    // among its own operands (x.add_(x)) sees the old values, as in PyTorch.
    fromDoubles(self, toDoublesBroadcast(res->t, self.shape()));
    return Value::ofTensor(self);
}

/// zero(self): the functional form of zero_, zeros laid out like self's values.
Expected<Value> metaZero(const OpArgs& a) {
    if (!a.isTensor(0)) return opError(a, "self must be a tensor, got " + a[0].describe());
    TensorMeta m = a.tensor(0).meta;
    m.strides = emptyLikeStrides(m);
    m.offset = 0;
    return metaValue(std::move(m));
}

Expected<Value> zeroKernel(const OpArgs&, const Value& out, ExecContext&) {
    return Value::ofTensor(makeTensor(out.t.meta, std::vector<double>(static_cast<size_t>(out.t.numel()), 0.0)));
}

/// fill.Tensor(self, value): the functional form of fill_.Tensor; value is a 0-dim tensor.
Expected<Value> metaFillTensor(const OpArgs& a) {
    if (a.isTensor(1) && a.tensor(1).dim() != 0)
        return opError(a, "fill_ only supports 0-dimension value tensor but got tensor with " +
                              std::to_string(a.tensor(1).dim()) + " dimensions.");
    return metaZero(a);
}

Expected<Value> fillTensorKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double v = a.isTensor(1) ? toDoubles(a.tensor(1))[0] : a.toDouble(1);
    return Value::ofTensor(makeTensor(out.t.meta, std::vector<double>(static_cast<size_t>(out.t.numel()), v)));
}

}  // namespace

std::string inplaceFunctionalOp(std::string_view qualname) {
    const InplaceOp* row = findInplace(qualname);
    return row ? functionalName(*row) : std::string();
}

void registerInplaceOps(OpRegistry& r) {
    // Functional forms that exist for their in-place ops' sake.
    r.add("aten.zero.default", "zero(Tensor self) -> Tensor", OpCategory::Creation, metaZero, zeroKernel);
    r.add("aten.fill.Tensor", "fill.Tensor(Tensor self, Tensor value) -> Tensor", OpCategory::Creation, metaFillTensor,
          fillTensorKernel);
    for (const InplaceOp& op : kInplaceOps) {
        OpInfo& info = r.add(op.qualname, op.schema, op.category, metaInplace, inplaceKernel);
        info.inplace = info.aliasesInput = true;
    }
}

}  // namespace fxray
