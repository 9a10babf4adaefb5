// remove_noop_ops: PyTorch's post_grad.remove_noop_ops (run first by joint_graph_passes and
// again in post_grad_passes). A node is replaced by its source when its op is in the no-op
// registry, the op's condition holds for its arguments, and node and source have the same
// metadata (shape, dtype, device, strides) — so a clone that changes the layout stays.
#include "pass/pass.h"
#include "rewrite/rewriter.h"
#include "rewrite/sym_meta_eq.h"
#include "transforms/pass_util.h"
#include "transforms/passes.h"

#include <algorithm>
#include <cstdint>
#include <unordered_set>

namespace fxray {

namespace {

using namespace passutil;

/// One entry of the no-op registry: the rule's name (PyTorch's function), which argument is the
/// source, and whether the condition holds.
struct NoopRule {
    const char* name;
    const Node* src;
    bool holds;
};

/// The expression of a SymInt node (s27 for `primals_2: "Sym(s27)"`); nullopt for other nodes.
std::optional<SymInt> symExprOf(const Node& n) {
    const std::string& a = n.annotationText;
    if (!n.meta.empty() || a.size() < 6 || a.compare(0, 4, "Sym(") != 0 || a.back() != ')') return std::nullopt;
    auto s = SymInt::parse(std::string_view(a).substr(4, a.size() - 5));
    if (!s.ok()) return std::nullopt;
    return std::move(s).value();
}

std::optional<NoopRule> noopRule(const Node& n) {
    const std::string op = opOf(n);
    if (op.empty() || n.args.empty()) return std::nullopt;
    auto argNode = [&](size_t i) -> const Node* {
        return i < n.args.size() && n.args[i].isNode() ? n.args[i].node : nullptr;
    };
    const TensorMeta* in = argNode(0) ? tensorMeta(*argNode(0)) : nullptr;
    auto args = n.args;
    if (op == "aten.slice.Tensor") {
        // slice(self, dim=0, start=None, end=None, step=1): the whole dimension.
        if (!in) return NoopRule{"slice_noop", argNode(0), false};
        int64_t dim = args.size() > 1 ? asInt(args[1]).value_or(0) : 0;
        const Argument* kwStart = n.kwarg("start");
        const Argument* kwEnd = n.kwarg("end");
        const Argument* kwStep = n.kwarg("step");
        Argument start = args.size() > 2 ? args[2] : kwStart ? *kwStart : Argument::none();
        Argument end = args.size() > 3 ? args[3] : kwEnd ? *kwEnd : Argument::none();
        Argument step = args.size() > 4 ? args[4] : kwStep ? *kwStep : Argument::ofInt(1);
        if (dim < 0) dim += in->dim();
        bool holds = false;
        if (dim >= 0 && dim < in->dim() && !start.isNone() && !end.isNone()) {
            auto s = asInt(start), e = asInt(end), st = asInt(step);
            const size_t d = static_cast<size_t>(dim);
            // PyTorch: statically_known_true(end >= 2**63 - 1) or (end >= size). A symbolic
            // size is known to be reached by INT64_MAX, or by a SymInt end of the same expression
            // (slice(x, 2, 0, s27) on [.., s27, ..]); a number against a symbol proves nothing.
            bool reachesEnd = false;
            const bool dimKnown = !in->isSymbolicDim(d) && !in->isUnknownDim(d);
            if (e) {
                reachesEnd = *e == INT64_MAX || (dimKnown && *e >= in->shape[d]);
            } else if (end.isNode() && !in->isUnknownDim(d)) {
                auto endSize = symExprOf(*end.node);
                reachesEnd = endSize && *endSize == in->sizeAt(d);
            }
            holds = s && *s == 0 && reachesEnd && st && *st == 1;
        }
        return NoopRule{"slice_noop", argNode(0), holds};
    }
    if (op == "aten.repeat.default") {
        auto r = args.size() > 1 ? asIntList(args[1]) : std::nullopt;
        bool holds = r && std::all_of(r->begin(), r->end(), [](int64_t v) { return v == 1; });
        return NoopRule{"repeat_noop", argNode(0), holds};
    }
    if (op == "aten.constant_pad_nd.default") {
        auto p = args.size() > 1 ? asIntList(args[1]) : std::nullopt;
        bool holds = p && std::all_of(p->begin(), p->end(), [](int64_t v) { return v == 0; });
        return NoopRule{"constant_pad_nd", argNode(0), holds};
    }
    if (op == "prims.convert_element_type.default") {
        bool holds = in && args.size() > 1 && args[1].kind == Argument::Kind::DType && args[1].dtype == in->dtype;
        return NoopRule{"convert_element_type_noop", argNode(0), holds};
    }
    if (op == "aten.pow.Tensor_Scalar") {
        bool holds = args.size() > 1 && args[1].kind == Argument::Kind::Int && args[1].i == 1;
        return NoopRule{"pow_noop", argNode(0), holds};
    }
    if (op == "aten.cat.default") {
        if (!n.args[0].isSequence() || n.args[0].items.size() != 1 || !n.args[0].items[0].isNode()) return std::nullopt;
        return NoopRule{"cat_noop", n.args[0].items[0].node, true};
    }
    if (op == "aten.view.default") {
        auto size = args.size() > 1 ? asIntList(args[1]) : std::nullopt;
        bool holds = in && !in->isSymbolic() && size && *size == in->shape;
        return NoopRule{"view_default_noop", argNode(0), holds};
    }
    if (op == "aten.copy.default") return NoopRule{"true_noop", argNode(1), true};
    if (op == "aten.alias.default" || op == "aten.clone.default") return NoopRule{"true_noop", argNode(0), true};
    // detach: Inductor's decompositions turn it into alias before these passes run, so in
    // PyTorch it goes the same way; graphs captured without them still have it.
    if (op == "aten.detach.default") return NoopRule{"true_noop", argNode(0), true};
    return std::nullopt;
}

class RemoveNoopOpsPass : public Pass {
public:
    RemoveNoopOpsPass() {
        m_removed = declareStatistic("removed", "no-op nodes replaced by their source");
        m_blocked = declareStatistic("kept_for_aliasing", "no-ops kept so that inputs and outputs do not alias");
    }
    std::string_view name() const override { return "remove_noop_ops"; }
    std::string_view summary() const override {
        return "replace no-op nodes (clone/alias/detach/copy with the same layout, views to the same shape, "
               "full slices, repeat/pad/cat/pow/convert that change nothing) by their input";
    }

    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        Rewriter rw(g, ctx);
        std::unordered_set<const Node*> inputs, inputStorages, outputStorages;
        for (Node* ph : g.placeholders()) {
            inputs.insert(ph);
            inputStorages.insert(storageRoot(ph));
        }
        Node* out = g.outputNode();
        std::unordered_set<const Node*> outputArgs;
        for (const auto& a : g.outputs())
            if (a.isNode()) {
                outputArgs.insert(a.node);
                outputStorages.insert(storageRoot(a.node));
            }
        std::vector<Node*> nodes;
        for (const auto& n : g.nodes()) nodes.push_back(n.get());
        bool changed = false;
        for (Node* n : nodes) {
            if (n == out || rw.isErased(n)) continue;
            auto rule = noopRule(*n);
            if (!rule || !rule->src || !rule->holds) continue;
            Node* src = const_cast<Node*>(rule->src);
            if (!sameMeta(*n, *src)) {
                // Only worth showing when it is the layout that keeps the node.
                const TensorMeta* a = tensorMeta(*n);
                const TensorMeta* b = tensorMeta(*src);
                if (a && b && sameSizes(*a, *b) && a->dtype == b->dtype)
                    ctx.notifyMatchFailure(rule->name, *n,
                                           "changes the layout: " + b->annotation(true, false) + " -> " +
                                               a->annotation(true, false));
                continue;
            }
            // Do not introduce new aliasing between inputs and outputs (fx_passes/README.md).
            const Node* nodeStorage = storageRoot(n);
            const Node* srcStorage = storageRoot(src);
            bool nodeIsView = nodeStorage == srcStorage;
            if (!nodeIsView && outputStorages.count(nodeStorage) &&
                (inputStorages.count(srcStorage) || outputStorages.count(srcStorage))) {
                bump(m_blocked);
                ctx.notifyMatchFailure(rule->name, *n, "would make an output alias an input or another output");
                continue;
            }
            if (nodeIsView && outputArgs.count(n) && (inputs.count(src) || outputArgs.count(src))) {
                bump(m_blocked);
                ctx.notifyMatchFailure(rule->name, *n, "would return the same tensor as an input or another output");
                continue;
            }
            std::string name = n->name();
            rw.setPattern(rule->name);
            rw.replaceAllUsesWith(n, src);
            rw.erase(n);
            rw.setPattern("");
            ctx.recordMatch(rule->name, {name});
            bump(m_removed);
            changed = true;
        }
        return PassResult::success(changed);
    }

private:
    size_t m_removed = 0, m_blocked = 0;
};

}  // namespace

std::unique_ptr<Pass> createRemoveNoopOpsPass() { return std::make_unique<RemoveNoopOpsPass>(); }

}  // namespace fxray
