#pragma once
/// Vector-Jacobian product rules: one per differentiable ATen op, keyed by qualname. A rule
/// emits the backward nodes PyTorch's autograd formula (tools/autograd/derivatives.yaml and
/// FunctionsManual.cpp) emits when AOT autograd traces it, and hands the gradient of each
/// differentiable input back. Rules give gradients in the order autograd's generated code
/// computes them (derivatives.yaml entries sorted by input name), so node order and names
/// follow PyTorch's joint graphs.
#include "autodiff/emitter.h"

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace fxray {

/// What a rule sees: the forward node (in the joint graph), its bound arguments, the gradients
/// of its outputs, and where to put the gradients of its inputs.
class VjpCall {
public:
    VjpCall(GraphEmitter& e, Node& fwd, std::vector<Argument> bound, std::vector<Node*> results,
            std::vector<Node*> gradOuts, std::function<bool(const Node*)> requiresGrad, Node* savedResult);

    GraphEmitter& e;
    /// The forward op node (a tuple node for multi-output ops).
    Node& fwd;

    /// Bound argument i (schema order, defaults filled).
    const Argument& arg(size_t i) const { return m_bound[i]; }
    /// The node of tensor argument i, or null (None, a Python number).
    Node* input(size_t i) const { return m_bound[i].isNode() ? m_bound[i].node : nullptr; }
    /// Element k of a Tensor[] argument.
    Node* inputAt(size_t i, size_t k) const;
    /// Tensor argument i needs a gradient.
    bool needs(size_t i) const { return needsNode(input(i)); }
    bool needsNode(const Node* n) const { return n && m_requiresGrad(n); }
    /// Output k of the forward op as a node (`getitem` of a tuple op, or the op node itself).
    Node* result(size_t k) const { return k < m_results.size() ? m_results[k] : nullptr; }
    /// Gradient of output k (null when no gradient flows into it).
    Node* grad(size_t k = 0) const { return k < m_gradOuts.size() ? m_gradOuts[k] : nullptr; }
    /// The result saved for backward, detached (the forward `detach` re-detached, as autograd's
    /// SavedVariable unpacking shows in PyTorch's joint graphs).
    Node* savedResult();
    /// The saved result is the op's own output (an in-place source op): savedResult() detaches
    /// it twice, in the backward, where PyTorch's joint graphs show both detaches.
    void deferFirstDetach() { m_deferDetach = true; }
    /// Metadata of a forward node or of the forward op's (single) output.
    const TensorMeta& meta(const Node* n) const { return e.meta(n); }
    const TensorMeta& outMeta() const { return e.meta(&fwd); }

    /// Gives the gradient of tensor argument i (ignored when i needs none).
    void give(size_t i, Node* g) { giveSlot(i, 0, input(i), g); }
    /// Gives the gradient of element k of Tensor[] argument i.
    void giveAt(size_t i, size_t k, Node* g) { giveSlot(i, k, inputAt(i, k), g); }

    /// One gradient handed back.
    struct Given {
        size_t arg = 0, item = 0;
        Node* input = nullptr;
        Node* grad = nullptr;
    };
    /// The gradients in input order (autograd validates and accumulates them in that order,
    /// whatever order the formula computed them in).
    std::vector<Given> given() const;

private:
    std::vector<Argument> m_bound;
    std::vector<Node*> m_results;
    std::vector<Node*> m_gradOuts;
    std::function<bool(const Node*)> m_requiresGrad;
    Node* m_saved;
    bool m_savedUnpacked = false;
    bool m_deferDetach = false;
    std::vector<Given> m_given;

    void giveSlot(size_t i, size_t k, Node* input, Node* g);
};

/// A rule body.
using VjpFn = void (*)(VjpCall& c);

/// One op's rule.
struct VjpRule {
    std::string_view qualname;
    VjpFn fn = nullptr;
    /// The formula uses the op's result: the forward detaches it right after the op (autograd
    /// saving an output), and the rule reads it through savedResult().
    bool savesResult = false;
    /// Bit k set: output k carries no gradient (batch norm's updated running statistics,
    /// which autograd computes under no_grad).
    uint32_t nonDifferentiableOutputs = 0;
};

/// The rule for an op (its registry entry's OpInfo::vjp), or null when fxray has none.
const VjpRule* findVjp(std::string_view qualname);
/// Every rule attached to the registry, by qualname.
std::vector<const VjpRule*> allVjpRules();

/// Ops that produce floating outputs but never carry gradients (detach, creation, comparisons):
/// the entry's OpInfo::nonDifferentiable.
bool isNonDifferentiable(std::string_view qualname);

/// The rules of every family file below, in one table owned for the process.
const std::vector<VjpRule>& vjpRuleTable();
/// The table behind isNonDifferentiable.
const std::vector<std::string_view>& nonDifferentiableOps();
/// Attaches `rules` (OpInfo::vjp) and `nonDifferentiable` (OpInfo::nonDifferentiable) to r's
/// entries, at assembly. An error names the table and an op r lacks, or an op with two rules.
/// The tables must outlive r.
Status attachAutodiff(OpRegistry& r, const std::vector<VjpRule>& rules,
                      const std::vector<std::string_view>& nonDifferentiable);

// Rule families, one file each (vjp_*.cpp); each appends its rules.
void addPointwiseVjps(std::vector<VjpRule>& out);   // arithmetic, unary math, activations, where
void addReductionVjps(std::vector<VjpRule>& out);   // sum, mean, softmax, log_softmax
void addLinalgVjps(std::vector<VjpRule>& out);      // mm, addmm, bmm, dot, mv
void addViewVjps(std::vector<VjpRule>& out);        // view, reshape, transpose, permute, expand, slice, ...
void addShapeVjps(std::vector<VjpRule>& out);       // cat, split, stack, clone, copies, padding
void addIndexingVjps(std::vector<VjpRule>& out);    // embedding, gather, index_select, index_add
void addNormVjps(std::vector<VjpRule>& out);        // layer norm, batch norm
void addConvVjps(std::vector<VjpRule>& out);        // convolution, pooling
void addRandomVjps(std::vector<VjpRule>& out);      // native_dropout
void addUnaryVjps(std::vector<VjpRule>& out);       // trigonometric, exp/log variants, special functions, rounding
void addActivationVjps(std::vector<VjpRule>& out);  // shrinks, hard*, threshold, log_sigmoid, clamps
void addBinaryVjps(std::vector<VjpRule>& out);      // maximum/minimum, pow, remainders, logaddexp, lerp, addcmul
void addStatisticsVjps(std::vector<VjpRule>& out);  // norms, var/std, logsumexp, prod, max/min, scans
void addReorderVjps(std::vector<VjpRule>& out);     // flip, roll, repeat, tril/triu, diagonals, shuffles
void addScatterVjps(std::vector<VjpRule>& out);     // scatter, index_copy/fill/put, put/take, masked, *_scatter
void addLossVjps(std::vector<VjpRule>& out);        // losses, group/RMS norm, 3-d pooling, grid sampling, im2col
void addProductVjps(std::vector<VjpRule>& out);     // addmv, addr, baddbmm, addbmm, vdot, trace, cross, block_diag
void addResampleVjps(
    std::vector<VjpRule>& out);  // upsampling, reflection/replication pads, adaptive/fractional max pool, unpool
void addReduceIntoVjps(std::vector<VjpRule>& out);  // scatter_reduce, index_reduce
void addMiscVjps(
    std::vector<VjpRule>& out);  // fill, copy, sort, frexp, cumprod, logcumsumexp, _safe_softmax, as_strided
void addFusedCellVjps(std::vector<VjpRule>& out);  // _thnn_fused_lstm/gru_cell, efficient attention
void addComplexVjps(std::vector<VjpRule>& out);    // view_as_complex/real, conj, polar, complex, real, imag
/// The *_copy variants of view ops (view_copy, permute_copy, ...) take their view op's rule;
/// call after every family.
void addCopyVariantVjps(std::vector<VjpRule>& out);

}  // namespace fxray
