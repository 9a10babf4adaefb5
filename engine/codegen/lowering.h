#pragma once
/// Lowering of an ATen graph to loop-level computations (Inductor's IR level, before fusion).
///
/// Every tensor a node produces becomes an LNode: a Buffer (an input, a constant, or the result
/// of an extern/fallback call), a Pointwise computation (a body giving the value at output
/// coordinates), a Reduction (a body over the input coordinates, reduced over some dims) or a
/// View (a coordinate map onto another LNode). Bodies read their inputs through a Loader, so the
/// scheduler decides later whether a producer is inlined into its consumer or read back from
/// memory. Composite ops (softmax, layer norm and their backwards) decompose into several LNodes.
/// Ops without a lowering run as calls: GEMM/convolution/cat as extern kernels, anything else
/// through the reference kernel (an explicit, reported fallback).
#include "codegen/kernel_ir.h"
#include "ir/graph.h"
#include "ir/op_registry.h"
#include "support/diagnostic.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace fxray::cg {

/// Gives bodies the value of another LNode at coordinates (one Index per dim of its shape).
class Loader {
public:
    virtual ~Loader() = default;
    virtual ExprP load(int lnode, const std::vector<Index>& coords) = 0;
};

/// Value of a Pointwise LNode at its output coordinates, or of a Reduction's operand at its
/// input coordinates.
using BodyFn = std::function<ExprP(Loader&, const std::vector<Index>&)>;
/// Coordinates of a view's base for coordinates of the view.
using ViewFn = std::function<std::vector<Index>(const std::vector<Index>&)>;

enum class LKind : uint8_t { Buffer, Pointwise, Reduction, View };

/// One lowered tensor.
struct LNode {
    int id = -1;
    LKind kind = LKind::Buffer;
    std::string name;  ///< the graph node (with a suffix for composite parts)
    const Node* origin = nullptr;
    TensorMeta meta;          ///< shape, dtype, and the layout it gets when realized
    std::vector<int> inputs;  ///< LNodes the body or view reads
    BodyFn body;
    // Reduction
    ReduceOp rop = ReduceOp::Sum;
    std::vector<int64_t> inShape;
    std::vector<bool> rmask;  ///< per dim of inShape: reduced
    bool keepdim = false;
    // View
    int base = -1;
    ViewFn viewMap;
    bool aliasing = false;  ///< a true view (shares storage with base in PyTorch's semantics)
};

/// What a graph node evaluates to: a tensor (an LNode), a list/tuple, or another value.
struct LValue {
    enum class Kind : uint8_t { None, Tensor, List, Other };
    Kind kind = Kind::None;
    int node = -1;
    std::vector<LValue> items;
    bool isTuple = false;
    Value other;  ///< Kind::Other: a value known at compile time (a shape, a number)
};

/// A graph node run outside generated kernels.
struct OpaqueCall {
    enum class Kind : uint8_t { Extern, Fallback };
    Kind kind = Kind::Fallback;
    const Node* node = nullptr;
    std::string fn;                   ///< extern kernel name ("mm", "addmm", "bmm", "conv", "cat")
    std::vector<const Node*> inputs;  ///< graph nodes whose runtime values the call needs
    /// Their values when the call was lowered: a later in-place op rebinds a node's entry in
    /// LoweredGraph::values to its result, which the call must not read (callInput()).
    std::map<const Node*, LValue> inputValues;
    /// The op the reference kernel runs when no extern takes the call: the node's own, or, for an
    /// in-place op lowered as its functional form's extern (index_add_), that functional op, so
    /// that the fallback writes the call's result buffers and not self.
    std::string referenceOp;
    LValue result;     ///< Buffer LNodes receiving its tensors
    int position = 0;  ///< number of LNodes that existed before it (ordering)
};

/// The lowered graph.
struct LoweredGraph {
    std::vector<LNode> nodes;
    std::map<const Node*, LValue> values;
    /// Graph nodes in graph order (for reports).
    std::vector<const Node*> order;
    std::vector<OpaqueCall> calls;
    /// Placeholder i -> its Buffer LNode (-1 for non-tensor inputs).
    std::vector<int> inputNodes;
    /// get_attr constants and pinned nodes: Buffer LNode -> name.
    std::map<int, std::string> constants;
    std::map<int, std::string> pinned;
    std::vector<LValue> outputs;
    /// Op names that run through the reference kernel, with counts.
    std::map<std::string, int> fallbackOps;
};

/// The value graph node `n` had when `call` was lowered (what the call reads at run time, not a
/// later in-place op's rebinding); null when it has none.
const LValue* callInput(const LoweredGraph& lg, const OpaqueCall& call, const Node* n);

/// Meta-only inputs from the placeholders' annotations, for compiling without real inputs.
/// The compiled backends handle static shapes only: a missing or symbolic annotation is an
/// error naming the input and `backend` ("CPU", "CUDA").
Expected<std::vector<Value>> annotatedStaticInputs(const Graph& g, const std::string& backend);

/// Lowers g for inputs with the given metadata (one per placeholder; non-tensor inputs as their
/// Value). `pinned` names nodes whose value will be supplied at run time (recorded random
/// results). Shapes and layouts come from the reference executor's meta functions. `values`,
/// when given, are the real inputs: they fix the lengths of data-sized outputs (nonzero,
/// masked_select with an unbacked u0 annotation), which no meta function knows.
Expected<LoweredGraph> lowerGraph(const Graph& g, const std::vector<Value>& inputMetas,
                                  const std::vector<std::string>& pinned = {},
                                  const std::vector<Value>* values = nullptr);

// ----- for the op lowering files -------------------------------------------------------------

/// The lowering of one node in progress.
class LowerCtx {
public:
    LowerCtx(LoweredGraph& lg, const Node& n, const OpArgs& args, const Value& out,
             const std::vector<const Argument*>& argOf)
            : m_lg(lg), m_node(n), m_args(args), m_out(out), m_argOf(argOf) {}
    /// Not copyable: a body that captured a copy would read the node's arguments after they are
    /// gone (bodies run at scheduling and code generation, after lowering).
    LowerCtx(const LowerCtx&) = delete;
    LowerCtx& operator=(const LowerCtx&) = delete;

    const Node& node() const { return m_node; }
    const OpArgs& args() const { return m_args; }
    /// The output as inferred (a meta tensor or a list of them).
    const Value& out() const { return m_out; }
    const TensorMeta& outMeta(size_t i = 0) const;
    /// LNode of tensor argument i (schema position), or -1.
    int in(size_t i) const;
    /// LNodes of a Tensor[] argument.
    std::vector<int> inList(size_t i) const;
    const TensorMeta& meta(int lnode) const { return m_lg.nodes[static_cast<size_t>(lnode)].meta; }

    int pointwise(TensorMeta m, std::vector<int> inputs, BodyFn body, std::string suffix = {});
    int reduction(TensorMeta m, int input, std::vector<int64_t> inShape, std::vector<bool> rmask, bool keepdim,
                  ReduceOp op, BodyFn body, std::vector<int> extraInputs = {}, std::string suffix = {});
    int view(TensorMeta m, int base, ViewFn map, bool aliasing);

    LoweredGraph& graph() { return m_lg; }

private:
    LoweredGraph& m_lg;
    const Node& m_node;
    const OpArgs& m_args;
    const Value& m_out;
    const std::vector<const Argument*>& m_argOf;
};

/// A lowering rule: the node's value, or nullopt when this instance cannot be lowered (the node
/// then falls back to the reference kernel).
using LowerFn = std::optional<LValue> (*)(LowerCtx&);

/// A lowering rule as the op registry links to it (OpInfo::lowering).
struct LoweringRule {
    std::string qualname;
    LowerFn fn = nullptr;
};
/// Every rule of the lower_*.cpp files, owned for the process.
const std::vector<LoweringRule>& loweringRuleTable();
/// Attaches `rules` (OpInfo::lowering) and `externs` (op -> extern kernel, OpInfo::externKernel)
/// to r's entries, at assembly. An error names the table and an op r lacks. The tables must
/// outlive r. lowerGraph reads both from the entries.
Status attachLowerings(OpRegistry& r, const std::vector<LoweringRule>& rules,
                       const std::map<std::string, std::string>& externs);

/// Rule tables, one per op family file.
void addPointwiseLowerings(std::map<std::string, LowerFn>& t);  // lower_pointwise.cpp
void addViewLowerings(std::map<std::string, LowerFn>& t);       // lower_views.cpp
void addReductionLowerings(std::map<std::string, LowerFn>& t);  // lower_reduction.cpp
void addNormLowerings(std::map<std::string, LowerFn>& t);       // lower_norm.cpp
void addMathLowerings(std::map<std::string, LowerFn>& t);       // lower_math.cpp
void addShapeLowerings(std::map<std::string, LowerFn>& t);      // lower_shape.cpp
void addScanLowerings(std::map<std::string, LowerFn>& t);       // lower_scan.cpp
void addScatterLowerings(std::map<std::string, LowerFn>& t);    // lower_scatter.cpp
void addPoolLowerings(std::map<std::string, LowerFn>& t);       // lower_pool.cpp
void addLossLowerings(std::map<std::string, LowerFn>& t);       // lower_loss.cpp
void addMutationLowerings(std::map<std::string, LowerFn>& t);   // lower_mutation.cpp
void addUpsampleLowerings(std::map<std::string, LowerFn>& t);   // lower_upsample.cpp
void addRnnLowerings(std::map<std::string, LowerFn>& t);        // lower_rnn.cpp

/// Extern kernels by op name ("aten.mm.default" -> "mm").
const std::map<std::string, std::string>& externKernelNames();

/// The op whose lowering rule or extern kernel a node of `qualname` borrows when it has neither
/// of its own: an in-place op's functional form (add_ -> add, index_add_ -> index_add), a *_copy
/// variant's view op (permute_copy -> permute), copy_'s copy; null when it borrows nothing. The
/// op table reports such ops by the path they take.
const OpInfo* borrowedOpOf(const OpRegistry& r, const std::string& qualname);

// ----- helpers shared by the rule files ------------------------------------------------------

/// Value of tensor `lnode` (shape `inShape`) broadcast to output coordinates.
ExprP loadBroadcast(Loader& L, int lnode, const std::vector<int64_t>& inShape, const std::vector<Index>& outCoords);
/// A tensor argument broadcast to the output, or a Python number as a constant; converted to
/// compute type ct.
ExprP operand(LowerCtx& c, size_t i, Loader& L, const std::vector<Index>& coords, DType ct);
LValue tensorValue(int lnode);
/// as_strided(base, size, stride, storageOffset) of a contiguous base as a map from view
/// coordinates to base coordinates (storage positions unravelled row-major); nullopt when a
/// position falls outside the base or a stride is negative (lower_views.cpp).
std::optional<ViewFn> asStridedMap(const TensorMeta& base, const std::vector<int64_t>& size,
                                   const std::vector<int64_t>& stride, std::optional<int64_t> storageOffset);
/// A copy of `root` (with metadata outMeta) in which each element that the view (maps: view
/// coordinates -> root coordinates, applied in order; view shape viewShape) lands on takes the
/// view's value from `value` (broadcast to viewShape); -1 when not lowered (lower_mutation.cpp).
int scatterIntoView(LowerCtx& c, int root, const std::vector<ViewFn>& maps, const std::vector<int64_t>& viewShape,
                    int value, const TensorMeta& outMeta);
/// An in-place op's functional `value` written through `self` when self is a view or views
/// alias it: its root is replaced by the scatter of value into it and every graph value that is
/// the root or a view of it is rebound; returns the in-place node's own value, or nullopt when
/// the write is not lowered (lower_mutation.cpp). A value that views self's storage (an in-place
/// view op) rebinds selfNode only.
std::optional<LValue> writeThroughView(LowerCtx& c, int self, const Node* selfNode, const LValue& value);
/// Coordinates of a contiguous row-major reshape: coords of shape `to` -> coords of shape `from`.
std::vector<Index> reshapeCoords(const std::vector<Index>& coords, const std::vector<int64_t>& to,
                                 const std::vector<int64_t>& from);

}  // namespace fxray::cg
