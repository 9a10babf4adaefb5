// Values of lifted tensor constants that the graph's use of them makes certain.
//
// torch.masked's ops (masked.sum, amax, softmax, cumprod, norm, ...) replace masked-out elements
// by the reduction's identity before reducing: `torch.where(mask, input, torch.tensor(identity,
// dtype=input.dtype))` (torch/masked/_ops.py, _reduction_identity). make_fx lifts that literal as
// `_tensor_constantN`, and PyTorch prints it without its value:
//
//     lift_fresh_copy = aten.lift_fresh_copy.default(_tensor_constant0)
//     where = aten.where.self(mask, x, lift_fresh_copy)
//     amax = aten.amax.default(where)
//
// The identity is the one fill that leaves masked-out elements out of the reduction's result, so
// the reduction that takes the `where` decides the value (through a `neg`, as softmin is softmax
// of the negated input, the negated one). Autograd graphs also keep such a constant where its
// `where` is dead; no output depends on the value there, and zeros stand in for it.
#include "import/lifted_constants.h"

#include "exec/ops/kernel_util.h"

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace fxray {

namespace {

/// A reduction identity, before the constant's dtype gives it a number; None: no such identity.
enum class Identity { None, Zero, One, Lowest, Highest };

/// "sum" for `torch.ops.aten.sum.dim_IntList`; empty for anything but an aten op call.
std::string packetOf(const Node& n) {
    if (!n.isOpCall()) return {};
    const std::string name = n.opName();
    if (name.rfind("aten.", 0) != 0) return {};
    const size_t dot = name.find('.', 5);
    return name.substr(5, dot == std::string::npos ? std::string::npos : dot - 5);
}

bool takesAt(const Node& u, size_t i, const Node* v) {
    return u.args.size() > i && u.args[i].isNode() && u.args[i].node == v;
}

/// The identity the reduction `u` needs of its input `v` (torch.masked's _reduction_identity for
/// the op it traces to), or None when `u` is no such reduction of `v`.
Identity reductionIdentity(const Node& u, const Node* v) {
    const std::string packet = packetOf(u);
    // logaddexp(a, b) is masked elementwise on either operand: exp(-inf) adds nothing.
    if (packet == "logaddexp") return takesAt(u, 0, v) || takesAt(u, 1, v) ? Identity::Lowest : Identity::None;
    if (!takesAt(u, 0, v)) return Identity::None;
    static const std::map<std::string, Identity, std::less<>> table = {
        {"sum", Identity::Zero},           {"cumsum", Identity::Zero},
        {"prod", Identity::One},           {"cumprod", Identity::One},
        {"amax", Identity::Lowest},        {"argmax", Identity::Lowest},
        {"logsumexp", Identity::Lowest},   {"_softmax", Identity::Lowest},
        {"softmax", Identity::Lowest},     {"_log_softmax", Identity::Lowest},
        {"log_softmax", Identity::Lowest}, {"amin", Identity::Highest},
        {"argmin", Identity::Highest},
    };
    if (auto it = table.find(packet); it != table.end()) return it->second;
    if (packet == "linalg_vector_norm") {
        // ord = -inf is a minimum of |x| (identity +inf); ord >= 0 sums powers of |x| or takes
        // their maximum (identity 0). A negative finite ord has no identity: decide nothing.
        const Argument* ord = u.args.size() > 1 ? &u.args[1] : u.kwarg("ord");
        double o = 2.0;
        if (ord && ord->kind == Argument::Kind::Float)
            o = ord->f;
        else if (ord && ord->kind == Argument::Kind::Int)
            o = static_cast<double>(ord->i);
        else if (ord && !ord->isNone())
            return Identity::None;
        if (std::isinf(o) && o < 0) return Identity::Highest;
        if (o >= 0) return Identity::Zero;
    }
    return Identity::None;
}

/// The identity every reduction that takes `w` (directly or negated) agrees on, with the first
/// such reduction's op name; None when none takes it or two disagree.
Identity agreedIdentity(const Node* w, std::string& reducer) {
    Identity agreed = Identity::None;
    bool conflict = false;
    auto consider = [&](const Node& u, const Node* input, bool negated) {
        Identity id = reductionIdentity(u, input);
        if (id == Identity::None) return;
        // Negation keeps 0 and swaps the extremes; a negated 1 is no fill torch.masked makes.
        if (negated && id == Identity::One) conflict = true;
        if (negated && id == Identity::Lowest)
            id = Identity::Highest;
        else if (negated && id == Identity::Highest)
            id = Identity::Lowest;
        if (agreed != Identity::None && agreed != id) conflict = true;
        if (agreed == Identity::None) reducer = u.opName() + (negated ? " of its negation" : "");
        agreed = id;
    };
    for (const Node* u : w->users) {
        if (packetOf(*u) == "neg" && takesAt(*u, 0, w))
            for (const Node* v : u->users) consider(*v, u, true);
        else
            consider(*u, w, false);
    }
    return conflict ? Identity::None : agreed;
}

/// A 0-d tensor of `m` holding the identity, and its value as text; nullopt for dtypes torch.masked
/// gives no such identity (bool extremes, complex).
std::optional<Tensor> identityTensor(Identity id, const TensorMeta& m, std::string& text) {
    if (id == Identity::None) return std::nullopt;
    Tensor t = Tensor::emptyLike(m);
    if (id == Identity::Zero || id == Identity::One) {
        if (isComplex(m.dtype)) return std::nullopt;
        kern::writeElem(t.raw(), m.dtype, id == Identity::One ? 1.0 : 0.0);
        text = id == Identity::One ? "1" : "0";
        return t;
    }
    const bool low = id == Identity::Lowest;
    if (isFloating(m.dtype)) {
        const double inf = std::numeric_limits<double>::infinity();
        kern::writeElem(t.raw(), m.dtype, low ? -inf : inf);
        text = low ? "-inf" : "inf";
        return t;
    }
    if (m.dtype == DType::Int64) {  // beyond a double's exact integers: written as int64
        const int64_t v = low ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
        *t.data<int64_t>() = v;
        text = std::to_string(v);
        return t;
    }
    if (!isIntegral(m.dtype)) return std::nullopt;  // bool (torch.masked raises), complex
    // 8- to 32-bit integers: iinfo(dtype).min / .max, exact as doubles.
    const int bits = 8 * dtypeItemSize(m.dtype);
    const bool isUnsigned = m.dtype == DType::UInt8;
    const double lowest = isUnsigned ? 0.0 : -std::ldexp(1.0, bits - 1);
    const double highest = isUnsigned ? std::ldexp(1.0, bits) - 1 : std::ldexp(1.0, bits - 1) - 1;
    kern::writeElem(t.raw(), m.dtype, low ? lowest : highest);
    text = std::to_string(static_cast<int64_t>(low ? lowest : highest));
    return t;
}

/// The `where.self` nodes that take constant `c` as their fill (argument 2), directly or through
/// lift_fresh_copy; empty when c has any other use.
std::vector<const Node*> fillUses(const Node* c) {
    std::vector<const Node*> wheres;
    auto isFillOf = [](const Node& u, const Node* v) { return u.opName() == "aten.where.self" && takesAt(u, 2, v); };
    for (const Node* u : c->users) {
        if (isFillOf(*u, c)) {
            wheres.push_back(u);
        } else if (u->opName() == "aten.lift_fresh_copy.default" && takesAt(*u, 0, c)) {
            for (const Node* w : u->users) {
                if (!isFillOf(*w, u)) return {};
                wheres.push_back(w);
            }
        } else {
            return {};
        }
    }
    return wheres;
}

/// No graph output depends on c's value: nothing that uses it (transitively) is the output, and
/// none is an op that could write it elsewhere (in place, `out=`, unknown, or a module call).
bool reachesNoOutput(const Node* c) {
    std::vector<const Node*> stack{c};
    std::set<const Node*> seen{c};
    while (!stack.empty()) {
        const Node* n = stack.back();
        stack.pop_back();
        for (const Node* u : n->users) {
            if (!seen.insert(u).second) continue;
            if (u->kind() != NodeKind::CallFunction) return false;  // the output, a method or module
            if (u->isOpCall() ? !u->op() || u->op()->inplace || u->kwarg("out") : u->target() != "operator.getitem")
                return false;
            stack.push_back(u);
        }
    }
    return true;
}

}  // namespace

std::vector<InferredConstant> inferConstantsFromUse(Graph& g) {
    g.rebuildUsers();
    std::vector<InferredConstant> filled;
    for (const auto& n : g.nodes()) {
        if (n->kind() != NodeKind::GetAttr || g.subgraph(n->target()) || g.constants.count(n->target())) continue;
        if (n->meta.size() != 1 || n->meta[0].isSymbolic()) continue;
        TensorMeta m = n->meta[0];
        m.offset = 0;
        if (m.strides.size() != m.shape.size()) m.strides = TensorMeta::contiguousStrides(m.shape);
        const std::string& name = n->target();

        if (m.shape.empty()) {
            const auto wheres = fillUses(n.get());
            Identity id = Identity::None;
            std::string reducer;
            for (const Node* w : wheres) {
                std::string r;
                const Identity here = agreedIdentity(w, r);
                if (here == Identity::None || (id != Identity::None && id != here) ||
                    (!w->meta.empty() && w->meta[0].dtype != m.dtype)) {
                    id = Identity::None;
                    break;
                }
                if (id == Identity::None) reducer = r;
                id = here;
            }
            std::string text;
            if (auto t = identityTensor(id, m, text)) {
                g.constants[name] = std::move(*t);
                filled.push_back(
                    {name, "lifted constant " + name + " taken as " + text +
                               ", inferred from its use: it fills the masked-out elements of a where that " + reducer +
                               " reduces, and " + text +
                               ", the reduction's identity, is the one fill that leaves them out of the "
                               "result (torch.masked's _reduction_identity)"});
                continue;
            }
        }
        if (reachesNoOutput(n.get())) {
            g.constants[name] = Tensor::emptyLike(m);
            filled.push_back(
                {name, "lifted constant " + name + " set to zeros: no output of the graph depends on its value"});
        }
    }
    return filled;
}

}  // namespace fxray
