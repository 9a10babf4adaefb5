#pragma once
/// The forward half of AOT autograd's joint tracing: replays a source ATen graph into the joint
/// graph, decomposing composite ops the way PyTorch's dispatcher does (CompositeImplicitAutograd
/// kernels and the Python decompositions AOT registers), functionalising in-place ops, and
/// recording an autograd tape of every differentiable op emitted.
#include "autodiff/emitter.h"
#include "autodiff/vjp.h"

#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fxray {

/// What a source node became in the joint graph: a tensor node, a tuple (its getitem nodes), or
/// nothing (asserts and other dropped ops).
struct Traced {
    Node* node = nullptr;
    std::vector<Node*> items;
    bool isTuple = false;
    static Traced of(Node* n) {
        Traced t;
        t.node = n;
        return t;
    }
};

/// One differentiable op on the tape.
struct TapeEntry {
    Node* node = nullptr;
    const VjpRule* rule = nullptr;
    /// The forward `detach` of the op's result (rules that save it), or the result itself when
    /// the source op was in-place (autograd then detaches both times in the backward).
    Node* saved = nullptr;
    bool deferredDetach = false;
};

class Tracer;

/// What a decomposition sees: the source node, its arguments bound to the op's schema (node
/// references already mapped into the joint graph), and the tracer.
struct DecompCall {
    Tracer& t;
    GraphEmitter& e;
    const Node& src;
    std::vector<Argument> args;     ///< schema order, defaults filled, joint nodes
    std::vector<Argument> srcArgs;  ///< the same, with the source graph's nodes

    Node* in(size_t i) const { return args[i].isNode() ? args[i].node : nullptr; }
    const Argument& arg(size_t i) const { return args[i]; }
    /// Functionalised in-place update: source argument i now holds `value`.
    void mutate(size_t i, Node* value);
};

/// A decomposition body; nullopt after recording an error on the emitter.
using DecompFn = std::optional<Traced> (*)(DecompCall& c);

/// One composite op's decomposition.
struct Decomposition {
    std::string_view qualname;
    DecompFn fn = nullptr;
};

/// The decomposition for a source op, or null (the op is traced as it is).
const Decomposition* findDecomposition(std::string_view qualname);

// Decomposition families, one file each (decompose_*.cpp).
void addLinalgDecompositions(std::vector<Decomposition>& out);  // linear, matmul
void addNnDecompositions(std::vector<Decomposition>& out);      // norms, dropout, conv, softmax, pooling
void addShapeDecompositions(std::vector<Decomposition>& out);   // reshape, contiguous, flatten, to, where, ...

/// Forward tracing state: source-to-joint mapping, requires-grad propagation, the tape and the
/// input mutations found while functionalising.
class Tracer {
public:
    explicit Tracer(GraphEmitter& e);

    GraphEmitter& e;

    /// Source node -> joint value.
    std::unordered_map<const Node*, Traced> env;
    /// Joint primal placeholder of each source placeholder that is a primal.
    std::unordered_map<const Node*, Node*> primalOf;
    /// Joint primal -> its value after functionalised in-place updates.
    std::unordered_map<const Node*, Node*> mutations;
    /// Differentiable ops in forward order.
    std::vector<TapeEntry> tape;
    /// Source placeholders that are lifted constants: each becomes a `_tensor_constantN`
    /// attribute where it is first used (as AOT's joint graphs place them).
    std::unordered_map<const Node*, Tensor> lazyConstants;
    /// Joint tuple node -> its getitem nodes.
    std::unordered_map<const Node*, std::vector<Node*>> tupleItems;
    /// Dynamic shapes: source SymInt values (Sym placeholders, size arithmetic, sym_size) at
    /// the binding being traced. They are traced as plain integers; joint_symbolic.cpp turns the
    /// sizes that follow from them back into SymInt nodes.
    std::unordered_map<const Node*, Argument> symValues;

    /// The joint node carries a gradient (a primal that requires grad, or an op output that
    /// depends on one).
    bool requiresGrad(const Node* n) const { return n && m_rg.count(n) > 0; }
    void markRequiresGrad(Node* n) { m_rg.insert(n); }

    /// Replays one source node. Errors go to the emitter.
    void trace(const Node& src);
    /// Emits an op and, for ops returning several tensors, a getitem per element.
    Traced emit(std::string_view qualname, std::vector<Argument> args, Kwargs kwargs = {});
    /// Rebinds a source node to a new joint value after an in-place update.
    void rebind(const Node* src, Node* value);
    /// Maps a source argument into the joint graph (node references through env).
    Argument mapArg(const Argument& a, const Node& user);

    /// Autograd bookkeeping for a freshly emitted node (the emitter's onEmit hook).
    void record(Node* n);

    /// Set while the op being emitted replaces an in-place source op.
    bool inplaceSource = false;
    /// Forward nodes emitted inside an activation-checkpointed region, with the region's id.
    std::unordered_map<const Node*, int> checkpointRegion;

private:
    std::unordered_set<const Node*> m_rg;
    int m_constantCounter = 0;
    int m_region = 0;  ///< checkpoint region being traced (0: none)
    int m_regionCount = 0;

    /// After an in-place update of `view` (a slice, select or diagonal of another source node)
    /// to `value`: the base updated with the matching *_scatter op and rebound, up the chain of
    /// views, so that later reads of the base see the write.
    void writeBack(const Node& view, Node* value);
    /// Inlines `wrap` / `tag_activation_checkpoint`: the body traced with its placeholders bound
    /// to the operands (AOT traces through them; the checkpoint only leaves tags).
    void inlineBody(const Node& src, bool checkpoint);
};

}  // namespace fxray
