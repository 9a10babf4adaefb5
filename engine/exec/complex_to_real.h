#pragma once
/// Complex values as real ones. fxray's kernels (reference, CPU, CUDA) are real-valued; a graph
/// holding complex tensors (rotary embeddings done with complex numbers, as in Meta's Llama code
/// and torchtitan: polar, view_as_complex, complex mul, view_as_real, conj in the backward) is
/// rewritten before it runs: a complex tensor of shape S becomes a real one of shape S + [2]
/// (real and imaginary parts last), which is exactly PyTorch's interleaved complex storage, so
/// complex graph inputs and outputs are reinterpreted at the boundary without copies.
///
/// The reference executor (Interpreter, execute mode) and the compiled backends' compile() apply
/// it; each keeps the RealifiedGraph to convert inputs and outputs. A complex node the rewrite has
/// no rule for fails with a message naming the node and op, never with a wrong value.
#include "ir/graph.h"
#include "support/diagnostic.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxray {

struct Value;

/// A complex tensor as its real view (same storage): dtype float32/float64, shape + [2], strides
/// doubled + [1], offset doubled. Works on meta-only tensors too.
Tensor complexAsReal(const Tensor& t);
/// The inverse: a real tensor whose last dimension (size 2) holds real and imaginary parts, as
/// a complex tensor of `complexType`. A view where the layout allows (last stride 1, even other
/// strides and offset), else a contiguous copy first.
Tensor realAsComplex(const Tensor& t, DType complexType);

/// The graph holds a complex value or a complex-only op (view_as_real, ...), at its top level.
bool graphHasComplex(const Graph& g);
/// Ops that exist only for complex values and that the rewrite always replaces by real ones
/// (`fxray ops` shows them as rewritten on the compiled backends).
bool isComplexOnlyOp(std::string_view qualname);

/// A graph with its complex values made real, and what converts at its boundary.
struct RealifiedGraph {
    std::unique_ptr<Graph> graph;
    /// Per placeholder: its complex dtype, or none for a real input.
    std::vector<std::optional<DType>> inputTypes;
    /// Per flattened output: its complex dtype, or none.
    std::vector<std::optional<DType>> outputTypes;
    /// The original graph's complex nodes by name (for per-node values).
    std::map<std::string, DType> complexNodes;

    /// Inputs for `graph`: complex tensors replaced by their real views.
    std::vector<Value> realInputs(const std::vector<Value>& inputs) const;
    /// Outputs of `graph` made those of the original graph (complex outputs reinterpreted).
    void restoreOutputs(std::vector<Value>& outputs) const;
    /// The value node `name` of the original graph has, given the one `graph` computed for it.
    Value restoreNode(const std::string& name, const Value& v) const;
};

/// Rewrites g (its top level; subgraphs are copied as they are and rewritten when they run).
/// Fails naming the first complex node it cannot rewrite.
Expected<std::shared_ptr<const RealifiedGraph>> complexToReal(const Graph& g);

}  // namespace fxray
