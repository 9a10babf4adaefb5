#include "transforms/pass_util.h"
#include "rewrite/sym_meta_eq.h"

#include "ir/op_registry.h"

namespace fxray::passutil {

std::string opOf(const Node& n) {
    if (n.kind() != NodeKind::CallFunction || !n.isOpCall()) return {};
    return n.opName();
}

std::optional<int64_t> asInt(const Argument& a) {
    if (a.kind == Argument::Kind::Int) return a.i;
    if (a.kind == Argument::Kind::Bool) return a.b ? 1 : 0;
    return std::nullopt;
}

std::optional<double> asNumber(const Argument& a) {
    if (a.kind == Argument::Kind::Float) return a.f;
    if (a.kind == Argument::Kind::Int) return static_cast<double>(a.i);
    if (a.kind == Argument::Kind::Bool) return a.b ? 1.0 : 0.0;
    return std::nullopt;
}

std::optional<std::vector<int64_t>> asIntList(const Argument& a) {
    if (!a.isSequence()) return std::nullopt;
    std::vector<int64_t> out;
    for (const auto& it : a.items) {
        auto v = asInt(it);
        if (!v) return std::nullopt;
        out.push_back(*v);
    }
    return out;
}

const TensorMeta* tensorMeta(const Node& n) {
    if (n.meta.size() != 1 || n.metaIsTuple) return nullptr;
    return &n.meta[0];
}

bool sameMeta(const Node& a, const Node& b) {
    const TensorMeta* x = tensorMeta(a);
    const TensorMeta* y = tensorMeta(b);
    if (!x || !y) return false;
    // Symbolic sizes compare by expression (sym_meta_eq.h): PyTorch's same_meta asks
    // statically_known_true(sym_eq(...)) of sizes and strides alike.
    if (!sameSizes(*x, *y) || x->dtype != y->dtype) return false;
    if (x->deviceKnown && y->deviceKnown && !(x->device == y->device)) return false;
    return sameStrides(*x, *y);
}

const Node* storageRoot(const Node* n) {
    for (;;) {
        if (n->kind() == NodeKind::CallFunction && n->target() == "operator.getitem" && !n->args.empty() &&
            n->args[0].isNode()) {
            const Node* t = n->args[0].node;
            if (t->op() && t->op()->aliasesInput && !t->op()->inplace) {
                n = t;
                continue;
            }
            return n;
        }
        const OpInfo* op = n->op();
        if (op && op->aliasesInput && !op->inplace && !n->args.empty() && n->args[0].isNode()) {
            n = n->args[0].node;
            continue;
        }
        return n;
    }
}

}  // namespace fxray::passutil
