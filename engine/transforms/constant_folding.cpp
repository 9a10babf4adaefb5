// constant_folding: PyTorch's freezing constant_fold (torch/_inductor/constant_folding.py,
// ConstantFolder with skip_constructors=True). Runs the reference kernels on every node whose
// inputs are all constants and turns the values that non-folded nodes need into get_attr
// constants `_frozen_paramN`, keeping the node's name as PyTorch's replace_node_with_constant
// does. What is not folded, as in PyTorch: constructors (no tensor input: Inductor generates
// them better than it reads them), random ops (nondeterministic_seeded), higher-order ops,
// in-place ops, and nodes feeding only other folded nodes. fxray adds one rule of its own: a
// result over 16 MiB that is more than twice the size of its constant inputs (a broadcast of a
// small constant) is left to compute at run time instead of being stored.
#include "exec/exec_context.h"
#include "exec/interpreter.h"
#include "ir/op_registry.h"
#include "rewrite/rewriter.h"
#include "transforms/freezing.h"
#include "transforms/passes.h"

#include <map>
#include <unordered_set>

namespace fxray {

namespace {

constexpr int64_t kLargeBytes = int64_t(16) << 20;

/// Removes unused get_attr constants and nodes without users or side effects.
size_t removeDead(Graph& g, Rewriter& rw) {
    size_t removed = 0;
    for (bool again = true; again;) {
        again = false;
        std::vector<Node*> order;
        for (const auto& n : g.nodes()) order.push_back(n.get());
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            Node* n = *it;
            if (!n->users.empty()) continue;
            if (n->kind() == NodeKind::GetAttr) {
                std::string attr = n->target();
                bool sub = g.subgraph(attr) != nullptr;
                rw.erase(n);
                bool stillUsed = false;
                for (const auto& m : g.nodes())
                    if (m->kind() == NodeKind::GetAttr && m->target() == attr) stillUsed = true;
                if (!stillUsed && !sub) g.constants.erase(attr);
                ++removed;
                again = true;
            } else if (n->kind() == NodeKind::CallFunction && !hasSideEffects(*n)) {
                rw.erase(n);
                ++removed;
                again = true;
            }
        }
    }
    return removed;
}

}  // namespace

size_t foldConstants(Graph& g, Rewriter& rw, PassContext& ctx) {
    std::map<const Node*, Value> env;
    std::vector<Node*> candidates;
    ExecContext ectx(0);
    for (const auto& up : g.nodes()) {
        Node* n = up.get();
        if (n->kind() == NodeKind::GetAttr) {
            if (const Tensor* t = constantValue(n)) env[n] = Value::ofTensor(*t);
            continue;
        }
        if (n->kind() != NodeKind::CallFunction) continue;
        auto ins = n->inputNodes();
        bool allKnown = !ins.empty();
        for (const Node* in : ins) allKnown = allKnown && env.count(in);
        if (!allKnown) continue;  // unknown inputs, or a constructor (no tensor input)
        if (n->target() == "operator.getitem") {
            const Value& seq = env[ins[0]];
            if (n->args.size() == 2 && n->args[1].kind == Argument::Kind::Int && seq.isList() && n->args[1].i >= 0 &&
                size_t(n->args[1].i) < seq.list.size()) {
                env[n] = seq.list[size_t(n->args[1].i)];
                if (env[n].isTensor()) candidates.push_back(n);
            }
            continue;
        }
        const OpInfo* op = n->op();
        if (!op || !op->kernel) continue;
        if (op->category == OpCategory::Random || op->category == OpCategory::HigherOrder || op->inplace) continue;
        std::vector<Value> args;
        for (const auto& a : n->args) args.push_back(argumentValue(a, env));
        std::vector<std::pair<std::string, Value>> kwargs;
        for (const auto& [k, a] : n->kwargs) kwargs.emplace_back(k, argumentValue(a, env));
        auto r = invokeOp(op->qualname, std::move(args), std::move(kwargs), &ectx);
        if (!r.ok()) {
            ctx.notifyMatchFailure("constant_fold", *n, "the reference kernel failed: " + r.error().message);
            continue;
        }
        env[n] = std::move(r).value();
        if (env[n].isTensor()) candidates.push_back(n);
    }
    std::unordered_set<const Node*> cand(candidates.begin(), candidates.end());
    size_t folded = 0;
    for (Node* n : candidates) {
        bool allUsersFolded = !n->users.empty();
        for (const Node* u : n->users) allUsersFolded = allUsersFolded && cand.count(u);
        if (allUsersFolded || n->users.empty()) continue;
        const Tensor& t = env[n].t;
        int64_t inBytes = 0;
        for (const Node* in : n->inputNodes())
            if (env[in].isTensor()) inBytes += env[in].t.meta.nbytes();
        if (t.meta.nbytes() > kLargeBytes && t.meta.nbytes() > 2 * inBytes) {
            ctx.notifyMatchFailure("constant_fold", *n,
                                   "result of " + std::to_string(t.meta.nbytes()) + " bytes from " +
                                       std::to_string(inBytes) + " bytes of constants: left to compute at run time");
            continue;
        }
        const std::string name = n->name();
        g.rename(n, g.uniqueName(name + "_folded"));
        Node* c = addConstantNode(g, rw, t, name, n);
        c->sourceComment = n->sourceComment;
        rw.replaceAllUsesWith(n, c);
        ctx.recordMatch("constant_fold", {n->name()}, {c->name()});
        ++folded;
    }
    removeDead(g, rw);
    return folded;
}

namespace {

class ConstantFoldingPass : public Pass {
public:
    ConstantFoldingPass() { m_folded = declareStatistic("folded", "nodes replaced by a constant"); }
    std::string_view name() const override { return "constant_folding"; }
    std::string_view summary() const override {
        return "freezing's constant_fold: evaluate nodes whose inputs are all constants and store the values as "
               "_frozen_param constants; constructors, random, higher-order and in-place ops are not folded (as "
               "PyTorch); fxray also keeps large broadcasts of small constants unfolded";
    }
    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        Rewriter rw(g, ctx);
        size_t before = rw.mutations();
        size_t n = foldConstants(g, rw, ctx);
        bump(m_folded, int64_t(n));
        return PassResult::success(rw.mutations() != before);
    }

private:
    size_t m_folded = 0;
};

}  // namespace

std::unique_ptr<Pass> createConstantFoldingPass() { return std::make_unique<ConstantFoldingPass>(); }

}  // namespace fxray
