// constant_fold_uniform_value: PyTorch's joint_graph.constant_fold_uniform_value. Values that
// are provably uniform (every element equal) are propagated from constructors (`full`), one-
// element constants (get_attr, lift_fresh_copy), through views and pointwise ops; each such
// node whose users are not all folded too is replaced by one `full(shape, value, ...)` call.
// Then remove_no_ops removes arithmetic with the zeros and ones found.
//
// Like PyTorch's UniformValueConstantFolder, a pointwise op is evaluated once on one-element
// tensors (the reference kernel), so the folded value has the op's own rounding.
#include "exec/exec_context.h"
#include "exec/interpreter.h"
#include "exec/ops/kernel_util.h"
#include "ir/op_registry.h"
#include "pass/pass.h"
#include "rewrite/rewriter.h"
#include "transforms/pass_util.h"
#include "transforms/passes.h"
#include "transforms/remove_no_ops.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

namespace fxray {

namespace {

using namespace passutil;

/// What constant folding knows about a node's value.
struct Uniform {
    double value = 0.0;
    DType dtype = DType::Float32;
    int storage = 0;  ///< values sharing a storage (views of one constant) have the same id
};

bool isViewPacket(const std::string& op) {
    // PyTorch's view_op_packets + indexing_op_packets (overload packets: any overload).
    static const char* packets[] = {"aten.squeeze.", "aten.unsqueeze.",  "aten.alias.",
                                    "aten.view.",    "aten.slice.",      "aten.t.",
                                    "aten.expand.",  "aten.as_strided.", "aten.permute."};
    for (const char* p : packets)
        if (op.rfind(p, 0) == 0) return true;
    return false;
}

class ConstantFoldUniformValuePass : public Pass {
public:
    ConstantFoldUniformValuePass() {
        m_folded = declareStatistic("folded", "nodes replaced by a full() constructor");
        m_noops = declareStatistic("no_ops_removed", "x+0, x-0, x*1, x/1 removed by remove_no_ops");
    }
    std::string_view name() const override { return "constant_fold_uniform_value"; }
    std::string_view summary() const override {
        return "replace tensors of one repeated value by full(); then remove x+0, x-0, x*1, x/1 "
               "(remove_no_ops). Symbolic shapes and view.dtype are not handled";
    }

    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        Rewriter rw(g, ctx);
        std::unordered_map<const Node*, Uniform> known;
        int nextStorage = 1;
        // Nodes whose value is known and would be replaced (PyTorch's node_replacements), in order.
        std::vector<Node*> replacements;
        for (const auto& up : g.nodes()) {
            Node* n = up.get();
            auto u = deduce(g, *n, known, nextStorage);
            if (!u) continue;
            known[n] = *u;
            if (n->kind() == NodeKind::CallFunction) replacements.push_back(n);
        }
        // A replacement whose users are all replaced too would be dead: drop it.
        std::unordered_set<const Node*> replacing(replacements.begin(), replacements.end());
        std::vector<Node*> kept;
        for (Node* n : replacements) {
            bool allUsersReplaced = !n->users.empty();
            for (Node* u : n->users) allUsersReplaced = allUsersReplaced && replacing.count(u);
            if (!allUsersReplaced) kept.push_back(n);
        }
        std::map<int, int> perStorage;
        for (Node* n : kept) ++perStorage[known[n].storage];

        std::unordered_set<const Node*> zeros, ones;
        bool changed = false;
        for (Node* n : kept) {
            const TensorMeta* m = tensorMeta(*n);
            if (!m || m->isSymbolic() || !m->isContiguous()) continue;
            if (m->dtype == DType::UInt8) continue;  // lossy value round trips
            // Views of one constant would each get their own copy: keep the aliasing.
            if (perStorage[known[n].storage] > 1) continue;
            const Uniform& u = known[n];
            Argument value;
            if (opOf(*n) == "aten.full.default" && n->args.size() == 2)
                value = n->args[1];
            else if (m->dtype == DType::Bool)
                value = Argument::ofBool(u.value != 0.0);
            else if (isIntegral(m->dtype))
                value = Argument::ofInt(static_cast<int64_t>(u.value));
            else
                value = Argument::ofFloat(u.value);
            std::vector<Argument> shape;
            for (int64_t s : m->shape) shape.push_back(Argument::ofInt(s));
            rw.order();
            Node* after = g.nodes()[static_cast<size_t>(n->index) + 1].get();
            std::string name = n->name();
            rw.setPattern("uniform_value");
            auto full = rw.createOp(after, "aten.full.default", {Argument::ofList(std::move(shape)), value},
                                    {{"dtype", Argument::ofDType(m->dtype)},
                                     {"layout", Argument::ofLayout(Layout::Strided)},
                                     {"device", Argument::ofDevice(m->device)},
                                     {"pin_memory", Argument::ofBool(false)}});
            if (!full.ok()) {
                rw.setPattern("");
                ctx.notifyMatchFailure("uniform_value", *n, full.error().message);
                continue;
            }
            (*full)->sourceComment = n->sourceComment;
            rw.replaceAllUsesWith(n, *full);
            if (n->users.empty() && !hasSideEffects(*n)) rw.erase(n);
            rw.setPattern("");
            ctx.recordMatch("uniform_value", {name}, {(*full)->name()});
            bump(m_folded);
            changed = true;
            double v = *passutil::asNumber(value.kind == Argument::Kind::Bool ? Argument::ofInt(value.b) : value);
            if (v == 0.0)
                zeros.insert(*full);
            else if (v == 1.0)
                ones.insert(*full);
        }
        size_t removed = removeNoOps(rw, zeros, ones);
        bump(m_noops, static_cast<int64_t>(removed));
        return PassResult::success(changed || removed > 0);
    }

private:
    /// PyTorch's _deduce_value: the uniform value of n, or nullopt (unknown).
    std::optional<Uniform> deduce(const Graph& g, const Node& n, const std::unordered_map<const Node*, Uniform>& known,
                                  int& nextStorage) {
        auto fresh = [&](double v, DType t) { return Uniform{v, t, nextStorage++}; };
        if (n.kind() == NodeKind::GetAttr) {
            auto it = g.constants.find(n.target());
            if (it == g.constants.end() || !it->second.hasData() || it->second.numel() != 1) return std::nullopt;
            return fresh(kern::toDoubles(it->second)[0], it->second.dtype());
        }
        if (n.kind() != NodeKind::CallFunction) return std::nullopt;
        const std::string op = opOf(n);
        if (op.empty() || !n.op()) return std::nullopt;
        const TensorMeta* m = tensorMeta(n);
        if (!m || m->isSymbolic()) return std::nullopt;
        if (n.op()->category == OpCategory::Random || n.op()->inplace) return std::nullopt;
        // Any unknown tensor input makes the value unknown, except for the peephole below.
        bool allKnown = true;
        for (const Node* in : n.inputNodes()) allKnown = allKnown && known.count(in);
        if (op == "aten.lift_fresh_copy.default") {
            if (!allKnown || m->numel() != 1) return std::nullopt;
            return fresh(known.at(n.args[0].node).value, m->dtype);
        }
        if (op == "aten.full.default") {
            if (n.args.size() != 2) return std::nullopt;
            auto v = asNumber(n.args[1]);
            if (!v) return std::nullopt;
            return fresh(kern::roundTo(*v, m->dtype), m->dtype);
        }
        if ((op == "aten.mul.Tensor" || op == "aten.mul.Scalar") && !isFloating(m->dtype) && !isComplex(m->dtype)) {
            // x * 0 is 0 for integers whatever x is (not for floats: nan * 0 is nan).
            for (const auto& a : n.args)
                if (a.kind == Argument::Kind::Int && a.i == 0) return fresh(0.0, m->dtype);
        }
        if (!allKnown) return std::nullopt;
        if (isViewPacket(op)) {
            if (n.args.empty() || !n.args[0].isNode()) return std::nullopt;
            return known.at(n.args[0].node);
        }
        if (n.op()->category != OpCategory::Pointwise && op != "aten.scalar_tensor.default") return std::nullopt;
        // Evaluate on one-element tensors: a uniform input is a [1] tensor of its value.
        std::map<const Node*, Value> env;
        for (const Node* in : n.inputNodes()) {
            const Uniform& u = known.at(in);
            Tensor t = Tensor::empty({1}, u.dtype);
            kern::fromDoubles(t, {u.value});
            env[in] = Value::ofTensor(t);
        }
        std::vector<Value> args;
        for (const auto& a : n.args) args.push_back(argumentValue(a, env));
        std::vector<std::pair<std::string, Value>> kwargs;
        for (const auto& [k, a] : n.kwargs)
            if (k != "memory_format") kwargs.emplace_back(k, argumentValue(a, env));
        ExecContext ectx(0);
        auto r = invokeOp(op, std::move(args), std::move(kwargs), &ectx);
        if (!r.ok() || !r->isTensor() || r->t.numel() < 1) return std::nullopt;
        return fresh(kern::toDoubles(r->t)[0], r->t.dtype());
    }

    size_t m_folded = 0, m_noops = 0;
};

}  // namespace

std::unique_ptr<Pass> createConstantFoldUniformValuePass() { return std::make_unique<ConstantFoldUniformValuePass>(); }

}  // namespace fxray
