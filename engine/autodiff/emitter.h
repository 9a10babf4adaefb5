#pragma once
/// GraphEmitter: builds an ATen graph node by node the way make_fx records one. Every op node
/// gets its metadata from the op's meta function at once (decompositions and VJP rules choose
/// between view and copy by the strides of what they hold), is named as FX names it, and its
/// arguments are normalised as the dispatcher hands them to `__torch_dispatch__` (positional
/// arguments up to the last non-default one, keyword-only arguments that differ from their
/// default).
#include "autodiff/fx_namer.h"
#include "ir/graph.h"
#include "ir/op_registry.h"
#include "ir/value.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fxray {

using Kwargs = std::vector<std::pair<std::string, Argument>>;

/// Argument builders for emitter calls.
inline Argument nodeArg(Node* n) { return Argument::ofNode(n); }
Argument intList(const std::vector<int64_t>& v);
Argument boolList(const std::vector<bool>& v);
/// The integer values of an int or int-list argument (`1` -> {1}); empty for other kinds.
std::vector<int64_t> intsOf(const Argument& a);
/// A Python number argument's value.
double numberOf(const Argument& a);

/// Appends nodes to one graph with metadata, FX names and dispatcher-normalised arguments.
class GraphEmitter {
public:
    explicit GraphEmitter(Graph& g);

    Graph& graph() { return m_g; }
    FxNamer& names() { return m_names; }

    /// A placeholder placed after the existing ones.
    Node* placeholder(std::string_view name, const TensorMeta& m);
    /// A SymInt placeholder (`"Sym(s23)"` annotation) holding `value` while tracing.
    Node* symPlaceholder(std::string_view name, const std::string& annotation, int64_t value);
    /// `torch.ops.<qualname>(args, kwargs)`; null when an argument is null or the op's meta
    /// function rejects the arguments (the error is kept, see ok()).
    Node* op(std::string_view qualname, std::vector<Argument> args, Kwargs kwargs = {});
    /// `tuple[index]` for an op returning several tensors.
    Node* getitem(Node* tuple, int64_t index);
    /// `self.<name>` for a tensor constant; `value` may be meta-only.
    Node* getAttr(const std::string& name, const Tensor& value);
    /// The output node returning `outs` (as PyTorch's joint graphs do, a flat list).
    Node* output(std::vector<Argument> outs);

    /// Metadata of a tensor-valued node (asserts it is one).
    const TensorMeta& meta(const Node* n) const;
    const std::vector<int64_t>& shape(const Node* n) const { return meta(n).shape; }
    DType dtype(const Node* n) const { return meta(n).dtype; }
    bool isTensor(const Node* n) const;
    /// The meta value recorded for n (a tensor, or a list for tuple-valued nodes).
    const Value* value(const Node* n) const;

    bool ok() const { return !m_error.has_value(); }
    const Diagnostic& error() const { return *m_error; }
    /// Records the first failure; later emissions return null.
    void fail(Diagnostic d);
    void fail(std::string message, const std::string& node = {});

    /// Provenance comment given to every node emitted from now on.
    std::string comment;
    /// Called after every op or getitem node is emitted (the tracer records autograd here).
    std::function<void(Node*)> onEmit;

    // ----- building blocks shared by decompositions and VJP rules -------------------------------
    Node* view(Node* x, const std::vector<int64_t>& shape);
    /// ATen's reshape: a view when the geometry allows, else `clone(contiguous)` + `_unsafe_view`.
    Node* reshape(Node* x, const std::vector<int64_t>& shape);
    Node* t(Node* x);
    Node* transpose(Node* x, int64_t d0, int64_t d1);
    Node* mm(Node* a, Node* b);
    Node* bmm(Node* a, Node* b);
    Node* expand(Node* x, const std::vector<int64_t>& shape);
    Node* unsqueeze(Node* x, int64_t dim);
    Node* squeeze(Node* x, int64_t dim);
    Node* mul(Node* a, const Argument& b);
    Node* add(Node* a, Node* b);
    Node* neg(Node* x);
    /// `at::sum_to(x, shape)`: sum over broadcast dims (keepdim) and a view when dims were
    /// prepended; x itself when shapes already agree.
    Node* sumTo(Node* x, const std::vector<int64_t>& shape);
    /// `clone(x, memory_format=torch.contiguous_format)`.
    Node* contiguousClone(Node* x);
    /// A fresh zero tensor like PyTorch's `at::zeros(sizes, x.options())`.
    Node* zerosLike(Node* like, const std::vector<int64_t>& shape);

private:
    Graph& m_g;
    FxNamer m_names;
    std::map<const Node*, Value> m_values;
    std::optional<Diagnostic> m_error;

    Node* record(Node* n, Value v);
};

/// Bound arguments of an op node: one Argument per schema argument, positional or keyword,
/// defaults filled. Fails naming the node when the arguments do not fit the schema.
Expected<std::vector<Argument>> bindNodeArguments(const OpInfo& op, const Node& n);

}  // namespace fxray
