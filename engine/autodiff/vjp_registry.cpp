// The VJP table: every family's rules, attached to the op registry's entries at assembly, and
// VjpCall's plumbing.
#include "autodiff/vjp.h"

#include "exec/ops/copy_variants.h"
#include "ir/op_registry.h"

#include <algorithm>
#include <string>

namespace fxray {

VjpCall::VjpCall(GraphEmitter& em, Node& f, std::vector<Argument> bound, std::vector<Node*> results,
                 std::vector<Node*> gradOuts, std::function<bool(const Node*)> requiresGrad, Node* savedResult)
        : e(em), fwd(f), m_bound(std::move(bound)), m_results(std::move(results)), m_gradOuts(std::move(gradOuts)),
          m_requiresGrad(std::move(requiresGrad)), m_saved(savedResult) {}

Node* VjpCall::inputAt(size_t i, size_t k) const {
    const Argument& a = m_bound[i];
    if (!a.isSequence() || k >= a.items.size() || !a.items[k].isNode()) return nullptr;
    return a.items[k].node;
}

Node* VjpCall::savedResult() {
    if (!m_saved) {
        e.fail("rule for " + fwd.opName() + " reads a saved result that was not kept", fwd.name());
        return nullptr;
    }
    if (m_savedUnpacked) return m_saved;
    m_savedUnpacked = true;
    if (m_deferDetach) {
        // Saved output of an in-place op: PyTorch's joint graphs consume two detach names for a
        // dead pair before the live pair; the dead pair is emitted so that names match.
        Node* dead = e.op("aten.detach.default", {nodeArg(m_saved)});
        e.op("aten.detach.default", {nodeArg(dead)});
        m_saved = e.op("aten.detach.default", {nodeArg(m_saved)});
    }
    m_saved = e.op("aten.detach.default", {nodeArg(m_saved)});
    return m_saved;
}

void VjpCall::giveSlot(size_t i, size_t k, Node* input, Node* g) {
    if (!input || !g || !needsNode(input)) return;
    m_given.push_back({i, k, input, g});
}

std::vector<VjpCall::Given> VjpCall::given() const {
    auto out = m_given;
    std::stable_sort(out.begin(), out.end(),
                     [](const Given& a, const Given& b) { return a.arg != b.arg ? a.arg < b.arg : a.item < b.item; });
    return out;
}

const std::vector<VjpRule>& vjpRuleTable() {
    static const auto* t = [] {
        auto* all = new std::vector<VjpRule>;
        addPointwiseVjps(*all);
        addReductionVjps(*all);
        addLinalgVjps(*all);
        addViewVjps(*all);
        addShapeVjps(*all);
        addIndexingVjps(*all);
        addNormVjps(*all);
        addConvVjps(*all);
        addRandomVjps(*all);
        addUnaryVjps(*all);
        addActivationVjps(*all);
        addBinaryVjps(*all);
        addStatisticsVjps(*all);
        addReorderVjps(*all);
        addScatterVjps(*all);
        addLossVjps(*all);
        addProductVjps(*all);
        addResampleVjps(*all);
        addReduceIntoVjps(*all);
        addMiscVjps(*all);
        addFusedCellVjps(*all);
        addComplexVjps(*all);
        addCopyVariantVjps(*all);
        return all;
    }();
    return *t;
}

void addCopyVariantVjps(std::vector<VjpRule>& out) {
    static constexpr std::string_view kCopies[] = {
        "aten.view_copy.default",     "aten.permute_copy.default", "aten.expand_copy.default",
        "aten.t_copy.default",        "aten.transpose_copy.int",   "aten.squeeze_copy.default",
        "aten.squeeze_copy.dim",      "aten.squeeze_copy.dims",    "aten.unsqueeze_copy.default",
        "aten.diagonal_copy.default", "aten.alias_copy.default",   "aten.as_strided_copy.default",
        "aten.unfold_copy.default",   "aten.slice_copy.Tensor",    "aten.select_copy.int",
        "aten.narrow_copy.default",   "aten.split_copy.Tensor",    "aten.split_with_sizes_copy.default",
        "aten.unbind_copy.int",
    };
    std::vector<VjpRule> extra;
    for (std::string_view copy : kCopies) {
        const std::string view = copyVariantViewOp(copy);
        for (const auto& r : out)
            if (r.qualname == view) extra.push_back({copy, r.fn, r.savesResult, r.nonDifferentiableOutputs});
    }
    out.insert(out.end(), extra.begin(), extra.end());
}

const std::vector<std::string_view>& nonDifferentiableOps() {
    // Outputs that autograd never connects to their inputs: detaches, values made from an
    // input's metadata only, random draws, comparisons and integer results.
    static const std::vector<std::string_view> ops = {
        "aten.detach.default",
        "aten.detach_.default",
        "aten.detach_copy.default",
        "aten.zeros_like.default",
        "aten.ones_like.default",
        "aten.empty_like.default",
        "aten.full_like.default",
        "aten.rand_like.default",
        "aten.randn_like.default",
        "aten.new_zeros.default",
        "aten.new_ones.default",
        "aten.new_empty.default",
        "aten.new_full.default",
        "aten.new_empty_strided.default",
        "aten.bernoulli.p",
        "aten.argmax.default",
        "aten._assert_tensor_metadata.default",
        "aten.scalar_tensor.default",
        "aten.zeros.default",
        "aten.ones.default",
        "aten.full.default",
        "aten.empty.memory_format",
        "aten.arange.default",
        "aten.arange.start",
        "aten.arange.start_step",
        "aten.eye.default",
        "aten.eye.m",
        "aten.sym_size.int",
        "aten.sym_stride.int",
        "aten.sym_numel.default",
        "aten.sym_storage_offset.default",
        "aten._assert_scalar.default",
        "aten._assert_async.msg",
        "aten._assert_async.default",
        "aten.sym_constrain_range.default",
        "aten.sym_constrain_range_for_size.default",
    };
    return ops;
}

Status attachAutodiff(OpRegistry& r, const std::vector<VjpRule>& rules,
                      const std::vector<std::string_view>& nonDifferentiable) {
    for (const auto& rule : rules) {
        auto e = r.entryFor("the VJP rules (autodiff/vjp_*.cpp)", rule.qualname);
        if (!e.ok()) return e.error();
        if ((*e)->vjp)
            return makeError("the VJP rules (autodiff/vjp_*.cpp) name '" + std::string(rule.qualname) +
                             "' twice: one rule per op");
        (*e)->vjp = &rule;
    }
    for (std::string_view op : nonDifferentiable) {
        auto e = r.entryFor("the non-differentiable ops (autodiff/vjp_registry.cpp)", op);
        if (!e.ok()) return e.error();
        (*e)->nonDifferentiable = true;
    }
    return Status::success();
}

const VjpRule* findVjp(std::string_view qualname) {
    const OpInfo* op = OpRegistry::instance().find(qualname);
    return op ? op->vjp : nullptr;
}

std::vector<const VjpRule*> allVjpRules() {
    std::vector<const VjpRule*> out;
    for (const auto& op : OpRegistry::instance().all())
        if (op->vjp) out.push_back(op->vjp);
    std::sort(out.begin(), out.end(), [](const VjpRule* a, const VjpRule* b) { return a->qualname < b->qualname; });
    return out;
}

bool isNonDifferentiable(std::string_view qualname) {
    const OpInfo* op = OpRegistry::instance().find(qualname);
    return op && op->nonDifferentiable;
}

}  // namespace fxray
