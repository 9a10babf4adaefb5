#include "transforms/remove_no_ops.h"
#include "rewrite/sym_meta_eq.h"

#include "ir/op_registry.h"
#include "transforms/pass_util.h"

#include <algorithm>
#include <cmath>
#include <deque>

namespace fxray {

namespace {

using namespace passutil;

bool isScalar(const Argument& a) { return a.kind == Argument::Kind::Int || a.kind == Argument::Kind::Float; }
bool scalarIs(const Argument& a, double v) { return isScalar(a) && *asNumber(a) == v; }

/// Whether an in-place op writes to n (PyTorch's is_mutated: a user that writes its argument).
bool isMutated(const Node& n) {
    for (const Node* u : n.users) {
        const OpInfo* op = u->op();
        if (op && op->inplace && !u->args.empty() && u->args[0].isNode() && u->args[0].node == &n) return true;
    }
    return false;
}

/// A consumer that depends on exact strides (a view, reached through aliasing ops, or the
/// output). PyTorch can change strides here because Inductor turns views into reshapes later;
/// the reference executor cannot, so such replacements are left out.
bool stridesMatter(const Node& n) {
    std::deque<const Node*> q{&n};
    while (!q.empty()) {
        const Node* x = q.front();
        q.pop_front();
        for (const Node* u : x->users) {
            if (u->kind() == NodeKind::Output) return true;
            const OpInfo* op = u->op();
            if (!op) return true;
            if (op->qualname == "aten.view.default" || op->qualname == "aten.as_strided.default") return true;
            if (op->aliasesInput && !op->inplace) q.push_back(u);
        }
    }
    return false;
}

bool isNegativeZero(const Argument& a, const std::unordered_set<const Node*>& zeros) {
    Argument v = a;
    if (a.isNode()) {
        const Node* n = a.node;
        const TensorMeta* m = tensorMeta(*n);
        if (!zeros.count(n) || opOf(*n) != "aten.full.default" || n->args.size() != 2 || !m || !isFloating(m->dtype))
            return false;
        v = n->args[1];
    }
    return v.kind == Argument::Kind::Float && v.f == 0.0 && std::signbit(v.f);
}

}  // namespace

size_t removeNoOps(Rewriter& rw, const std::unordered_set<const Node*>& zeros,
                   const std::unordered_set<const Node*>& ones) {
    Graph& g = rw.graph();
    PassContext& ctx = rw.context();
    auto in = [](const Argument& a, const std::unordered_set<const Node*>& s) { return a.isNode() && s.count(a.node); };
    size_t removed = 0;

    auto replaceNoOp = [&](Node* n, size_t idx, const char* rule) {
        const Argument& repl = n->args[idx];
        bool allNodes = std::all_of(n->args.begin(), n->args.end(), [](const Argument& a) { return a.isNode(); });
        if (!allNodes) {
            bool allScalars = std::all_of(n->args.begin(), n->args.end(), isScalar);
            if (allScalars || !repl.isNode()) return;
        }
        Node* r = repl.node;
        if (isMutated(*r)) return (void)ctx.notifyMatchFailure(rule, *n, "the operand is mutated in place later");
        const TensorMeta* nm = tensorMeta(*n);
        const TensorMeta* rm = tensorMeta(*r);
        if (!nm || !rm) return;
        if (!sameSizes(*nm, *rm) || !(nm->device == rm->device))
            return (void)ctx.notifyMatchFailure(rule, *n, "the operand has another shape or device (broadcast)");
        Node* target = r;
        std::string name = n->name();
        rw.setPattern(rule);
        if (nm->dtype != rm->dtype) {
            rw.order();
            Node* after = g.nodes()[static_cast<size_t>(n->index) + 1].get();
            auto conv = rw.createOp(after, "prims.convert_element_type.default",
                                    {Argument::ofNode(r), Argument::ofDType(nm->dtype)});
            if (!conv.ok()) {
                rw.setPattern("");
                return;
            }
            target = *conv;
        }
        const TensorMeta* tm = tensorMeta(*target);
        if (tm && tm->strides != nm->strides && stridesMatter(*n)) {
            if (target != r) rw.erase(target);
            rw.setPattern("");
            return (void)ctx.notifyMatchFailure(rule, *n, "the operand's layout differs and a view depends on it");
        }
        rw.replaceAllUsesWith(n, target);
        rw.erase(n);
        rw.setPattern("");
        ctx.recordMatch(rule, {name},
                        target != r ? std::vector<std::string>{target->name()} : std::vector<std::string>{});
        ++removed;
    };

    auto alphaIsOne = [](const Node& n) {
        const Argument* a = n.kwarg("alpha");
        return !a || scalarIs(*a, 1.0);
    };
    std::vector<Node*> nodes;
    for (const auto& n : g.nodes()) nodes.push_back(n.get());
    for (Node* n : nodes) {
        if (rw.isErased(n) || n->args.size() != 2) continue;
        const std::string op = opOf(*n);
        const Argument& a0 = n->args[0];
        const Argument& a1 = n->args[1];
        if (op == "aten.add.Tensor") {
            bool z0 = in(a0, zeros) || scalarIs(a0, 0), z1 = in(a1, zeros) || scalarIs(a1, 0);
            if (!(z0 || z1) || !alphaIsOne(*n)) continue;
            size_t idx = z0 ? 1 : 0;
            const Argument& repl = n->args[idx];
            if (repl.isNode()) {
                const TensorMeta* m = tensorMeta(*repl.node);
                // +0.0 is not an identity for floats (-0.0 + 0.0 == +0.0); -0.0 is.
                if (m && isFloating(m->dtype) && !isNegativeZero(n->args[1 - idx], zeros)) continue;
            }
            replaceNoOp(n, idx, "add_zero");
        } else if (op == "aten.sub.Tensor") {
            if (!(in(a1, zeros) || scalarIs(a1, 0)) || !alphaIsOne(*n)) continue;
            replaceNoOp(n, 0, "sub_zero");
        } else if (op == "aten.mul.Tensor") {
            bool o0 = in(a0, ones) || scalarIs(a0, 1), o1 = in(a1, ones) || scalarIs(a1, 1);
            if (!(o0 || o1)) continue;
            replaceNoOp(n, o0 ? 1 : 0, "mul_one");
        } else if (op == "aten.div.Tensor") {
            if (!(in(a1, ones) || scalarIs(a1, 1))) continue;
            replaceNoOp(n, 0, "div_one");
        }
    }
    return removed;
}

}  // namespace fxray
