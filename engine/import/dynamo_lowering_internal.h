#pragma once
/// Internals of dynamo_lowering: the per-node lowering context and the rule tables shared by
/// dynamo_lowering_*.cpp. Not part of the engine API.
#include "ir/graph.h"
#include "ir/sym_expr.h"
#include "ir/value.h"
#include "support/diagnostic.h"

#include <array>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace fxray::lowering {

/// One torch-level call with its arguments already rewritten to refer to lowered nodes.
/// For call_method nodes args[0] is the tensor the method is called on.
struct TorchCall {
    const Node* node = nullptr;
    std::string target;  ///< call_function target or method name
    bool method = false;
    std::vector<Argument> args;
    std::vector<std::pair<std::string, Argument>> kwargs;

    /// Binds the call to a Python signature (parameter names in positional order) and returns
    /// one pointer per parameter, null where the argument was not given. Too many positional
    /// arguments, unknown or repeated keywords are errors.
    Expected<std::vector<const Argument*>> bind(std::initializer_list<std::string_view> params) const;
};

/// A torch.autocast region open at the node being lowered (dynamo_lowering_autocast.cpp).
struct AutocastRegion {
    bool enabled = false;
    std::string device = "cuda";
    DType dtype = DType::Float16;
};

/// The state of lowering one graph: metadata of every value so far, and the nodes emitted for
/// the torch-level node being lowered (rolled back when its rule fails).
class LowerCtx {
public:
    explicit LowerCtx(Graph& g);

    Graph& graph() { return m_g; }

    /// Starts lowering `n`: emitted nodes go before it.
    void begin(Node* n);
    /// Emits `torch.ops.<qualname>` before the current node, after checking that the op is
    /// registered and that its shape rule accepts the arguments (so that a bad lowering fails
    /// here, naming the op, rather than later). Returns a reference to the new node.
    Expected<Argument> emit(std::string_view qualname, std::vector<Argument> args,
                            std::vector<std::pair<std::string, Argument>> kwargs = {});
    /// Emits a Python-level call on SymInts/SymFloats (`operator.mul(s0, 4)`, `torch.sym_max`)
    /// before the current node: dynamic-shape graphs keep size arithmetic as such nodes.
    Expected<Argument> emitScalar(std::string_view target, std::vector<Argument> args);
    /// Emits a `_tensor_constantN` get_attr holding t (FX's lifted-constant form).
    Argument emitConstant(Tensor t);
    /// Emits `operator.getitem(tuple, i)` for item i of an emitted multi-output op (the form
    /// ATen graphs take a tuple's item in), when the torch-level function returns one tensor.
    Expected<Argument> emitItem(const Argument& tuple, size_t i);
    /// Erases the nodes emitted since begin() (the rule failed).
    void rollback();
    /// Nodes emitted since begin().
    const std::vector<Node*>& emitted() const { return m_emitted; }

    /// Metadata value of an argument: meta tensors for tensor nodes, numbers, lists, ...
    /// In a dynamic-shape graph the value at the hint binding (static sizes, SymInt nodes as
    /// their hint values): shape rules see real sizes, never -1.
    Value valueOf(const Argument& a) const { return valueUnder(a, 0); }
    /// The value under probe binding k (0: the hints; 1, 2: other sizes, used to recover which
    /// sizes of an emitted node are symbolic and which expression they follow).
    Value valueUnder(const Argument& a, size_t k) const;

    /// The graph has symbolic sizes (SymInt placeholders or symbolic annotations).
    bool symbolic() const { return m_symbolic; }
    /// The argument is a SymInt/SymFloat/SymBool node (a number known only at run time).
    bool isScalarNode(const Argument& a) const;
    /// The argument is a number literal or a SymInt/SymFloat/SymBool node.
    bool isScalar(const Argument& a) const;
    /// Size `dim` of tensor x as an argument: an int where static, else an emitted
    /// `aten.sym_size.int(x, dim)` node (as torch.export records `x.size(dim)`).
    Expected<Argument> sizeArg(const Argument& x, int64_t dim);
    /// All sizes of tensor x (sizeArg per dimension).
    Expected<std::vector<Argument>> sizeArgs(const Argument& x);
    /// Symbolic metadata of a tensor argument (its annotation, or what emit() recovered), or
    /// the static metadata when nothing about it is symbolic.
    std::optional<TensorMeta> symMeta(const Argument& a) const;
    /// Erases emitted `aten.sym_size.int` nodes nobody uses (`x.size()` asks for every size).
    void dropUnusedSizeNodes();
    /// Tensor metadata of an argument, or nullopt when it is not a tensor.
    std::optional<TensorMeta> tensorMeta(const Argument& a) const;
    /// The argument is a tensor-valued node.
    bool isTensor(const Argument& a) const { return tensorMeta(a).has_value(); }
    /// Computes the value of a kept `torch.ops.*` node (its op's shape rule, else its annotation).
    void computeValue(const Node& n);
    /// Takes the device of n's value from its annotation: `x.to(device)` must compare with the
    /// device PyTorch recorded, which wins over what shape rules derived.
    void preferAnnotatedDevice(const Node& n);

    /// n is annotated as one tensor with an unbacked size (u0: a size the data gives).
    bool annotatesUnbackedTensor(const Node& n) const;
    /// The graph's annotations name devices (so tensors' devices are known).
    bool devicesKnown() const { return m_devicesKnown; }
    /// The autocast regions open at the current node, innermost last.
    std::vector<AutocastRegion>& autocast() { return m_autocast; }

private:
    /// Hint and probe bindings for every symbol the graph mentions.
    void initBindings();
    void computeValueRaw(const Node& n);
    /// Value of a node's annotation under probe binding k (tensors bound, Sym(...) evaluated).
    Value annotationUnder(const Node& n, size_t k) const;
    /// Gives an emitted node symbolic annotations: its value is recomputed under the probe
    /// bindings and each size/stride matched against the symbolic texts around it.
    void resymbolize(Node* n, const Value& v0, const std::array<Value, 2>& probes);
    /// Symbolic texts the current node's sizes can follow: its operands', its own annotation's.
    std::vector<std::string> candidateTexts(const Node* n) const;

    Graph& m_g;
    bool m_symbolic = false;
    std::array<sym::Binding, 3> m_bind;  ///< hints, then two probe bindings
    std::set<const Node*> m_sizeNodes;
    bool m_devicesKnown = false;
    Node* m_cur = nullptr;
    std::vector<Node*> m_emitted;
    std::vector<std::string> m_emittedConstants;
    std::map<const Node*, Value> m_values;
    std::vector<AutocastRegion> m_autocast;
};

/// A lowering rule: returns the argument that replaces the torch-level value (a reference to
/// an emitted node, to an existing node for no-ops, or a folded constant).
using Rule = Expected<Argument> (*)(LowerCtx&, const TorchCall&);

/// torch.amp.autocast_mode._enter_autocast / _exit_autocast: open and close a region.
Expected<Argument> enterAutocast(LowerCtx& c, const TorchCall& call);
Expected<Argument> exitAutocast(LowerCtx& c, const TorchCall& call);
/// The call with its operands cast as the innermost enabled autocast region would (the casts
/// are emitted), or the call itself outside one or for ops autocast leaves alone.
Expected<TorchCall> applyAutocast(LowerCtx& c, const TorchCall& call);

/// Rules for call_function targets (`torch.*`, `operator.*`, `builtins.getattr`), or null.
Rule findFunctionRule(std::string_view target);
/// torch.repeat_interleave(input, repeats: int, dim=None) and the method of the same name.
Expected<Argument> lowerRepeatInterleave(LowerCtx& c, const TorchCall& call);
/// F.multi_head_attention_forward without attention weights (dynamo_lowering_attention.cpp).
Expected<Argument> lowerMultiHeadAttention(LowerCtx& c, const TorchCall& call);
/// Rules of dynamo_lowering_popular.cpp (F.normalize, F.one_hot, losses, ...), or null.
Rule findPopularFunctionRule(std::string_view target);
/// Rules of dynamo_lowering_activations.cpp (selu, prelu, rms_norm, cosine_similarity, 1-D
/// pools, evaluation-mode dropouts, ...), or null.
Rule findActivationFunctionRule(std::string_view target);
/// torch.fft's functions (dynamo_lowering_fft.cpp), or null.
Rule findFftFunctionRule(std::string_view target);
/// Tensor functions ATen implements as composites (argsort, isfinite, diff, new_tensor, ...),
/// by their bare name, for both `torch.X(t, ...)` and `t.X(...)` (dynamo_lowering_composites.cpp).
Rule findCompositeRule(std::string_view name);
/// Splits, products and covariance composites (tensor_split, kron, block_diag, cov, ...) by bare
/// name, as findCompositeRule (dynamo_lowering_combine.cpp), or null.
Rule findCombineRule(std::string_view name);
/// Rules for call_method names, or null.
Rule findMethodRule(std::string_view method);
/// Rules for `operator.*` and `builtins.getattr` targets, or null (dynamo_lowering_operators.cpp).
Rule findOperatorRule(std::string_view target);

/// Generic mapping of `torch.X(...)` / `x.X(...)` onto the registered overload of `aten.X.*`
/// whose schema the arguments bind to (PyTorch binds the Python call to the same schemas).
Expected<Argument> lowerGeneric(LowerCtx& c, const TorchCall& call, std::string_view atenName);

// Helpers shared by the rule files.

/// Python number as double, or nullopt.
std::optional<double> numberOf(const Argument* a);
/// Python int (or bool), or nullopt.
std::optional<int64_t> intOf(const Argument* a);
/// Python bool (ints accepted as truth values); `def` when absent or None.
std::optional<bool> boolOf(const Argument* a, bool def);
/// The argument is there and not None.
bool given(const Argument* a);
/// The argument, which must be a tensor (the error names it as `what`).
Expected<Argument> needTensor(LowerCtx& c, const Argument* a, const char* what);
/// A call whose first parameter is the tensor `input` (self for a method): the arguments bound
/// by `names` (p[0] is input), input itself and its metadata.
struct InputCall {
    Argument x;
    TensorMeta m;
    std::vector<const Argument*> p;
};
Expected<InputCall> bindInput(LowerCtx& c, const TorchCall& call, std::initializer_list<std::string_view> names);
/// Reduction.h's enum of a loss's reduction string (none 0, mean 1, sum 2): mean when the
/// argument is absent; nullopt for anything else (None included, as F rejects it).
std::optional<int64_t> reductionOf(const Argument* a);
/// An int or a sequence of ints as an `int[]` list argument; a lone int is repeated n times.
std::optional<Argument> intList(const Argument& a, size_t n = 1);
/// `x.view(2, 3)` / `x.view((2, 3))` / `x.view([2, 3])`: the sizes from position `first` on.
std::optional<Argument> varargSizes(const TorchCall& call, size_t first);
/// Emits the dtype/device conversion of `x` (`_to_copy`), or returns x unchanged when it
/// already has that dtype and device and no copy was asked for.
Expected<Argument> convertTo(LowerCtx& c, const Argument& x, std::optional<DType> dtype, std::optional<Device> device,
                             bool copy, std::optional<MemoryFormat> memoryFormat);
/// A Float argument from a number argument.
Argument asFloat(const Argument& a);

}  // namespace fxray::lowering
