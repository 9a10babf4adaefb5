#pragma once
/// Graph: an ordered list of FX nodes plus submodules (higher-order op bodies) and constants.
#include "ir/node.h"
#include "ir/sym_expr.h"
#include "support/diagnostic.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fxray {

/// How `forward`'s parameters and return were written, so that printing reproduces them.
struct GraphSignature {
    /// Joint graphs: `forward(self, primals, tangents)` with placeholders flattened from these
    /// groups by `fx_pytree.tree_flatten_spec`. Empty for the plain annotated-parameter form.
    std::vector<std::string> pytreeGroups;
    /// Placeholders come from `fx_pytree.tree_flatten_spec(...)` (true even with no groups, as
    /// in frozen graphs: `forward(self)` + `tree_flatten_spec([], self._in_spec)`).
    bool pytreeInputs = false;
    /// `return pytree.tree_unflatten([...], self._out_spec)` rather than `return (...)`.
    bool pytreeReturn = false;
    /// Parameters and annotations were written (false for unannotated repro modules).
    bool annotatedParams = true;
};

/// An FX graph. Owns its nodes. Node order is execution order.
class Graph {
public:
    Graph() = default;
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;

    /// Python class name in the printed form ("GraphModule", "inner_f", "<lambda>", "Repro").
    std::string className = "GraphModule";
    GraphSignature signature;
    /// Print annotations with strides / devices (the source's choice, or inferred ones).
    bool printStrides = true;
    bool printDevices = true;
    /// Where the graph came from (for messages).
    std::string sourceFile;
    /// Dynamic shapes: the value each symbol had when PyTorch traced (a TORCH_TRACE's
    /// create_symbol hints); random inputs are drawn at these sizes unless told otherwise.
    sym::Binding symbolHints;

    const std::vector<std::unique_ptr<Node>>& nodes() const { return m_nodes; }
    size_t size() const { return m_nodes.size(); }

    /// Appends a node; the name must be unique (use uniqueName()).
    Node* append(NodeKind kind, std::string name, std::string target);
    /// Inserts before `pos` (or at the end when pos is null).
    Node* insertBefore(Node* pos, NodeKind kind, std::string name, std::string target);
    /// Removes a node that has no users.
    void erase(Node* n);
    /// Renames a node (name must be free).
    void rename(Node* n, std::string newName);
    /// Node by name, or null.
    Node* find(std::string_view name) const;
    /// `base`, or `base_1`, `base_2`, ... whichever is free (FX's naming).
    std::string uniqueName(std::string_view base) const;

    std::vector<Node*> placeholders() const;
    /// The output node, or null if the graph has none yet.
    Node* outputNode() const;
    /// Arguments of the output node flattened (the returned values, None included).
    std::vector<Argument> outputs() const;

    /// Submodules referenced by get_attr (bodies of cond, checkpoint, ...), in file order.
    std::vector<std::pair<std::string, std::unique_ptr<Graph>>>& subgraphs() { return m_subgraphs; }
    const std::vector<std::pair<std::string, std::unique_ptr<Graph>>>& subgraphs() const { return m_subgraphs; }
    Graph* subgraph(std::string_view name) const;
    Graph* addSubgraph(std::string name);

    /// Tensor constants referenced by get_attr (weights from to_folder/.pt2, lifted constants).
    std::map<std::string, Tensor> constants;

    /// Makes every use of `from` (in args, kwargs and the output) use `to` instead. Returns the
    /// number of argument slots changed. Users lists are updated.
    size_t replaceAllUsesWith(Node* from, Node* to);
    /// Moves node n to just before pos (null: before the output node).
    void moveBefore(Node* n, Node* pos);
    /// A deep copy: nodes (same names, targets, arguments remapped), metadata, provenance,
    /// submodules and constants (tensors share storage).
    std::unique_ptr<Graph> clone() const;
    /// Copies node n of another graph into this one before pos, with arguments remapped through
    /// `map` (source node -> node in this graph). Returns the new node; its name is made unique.
    Node* importNode(const Node& n, Node* pos, const std::unordered_map<const Node*, Node*>& map);

    /// Recomputes users and indices of every node.
    void rebuildUsers();
    void renumber();
    /// Number of nodes excluding placeholders and output, recursively including subgraphs.
    size_t computeNodeCount() const;

    /// Structural checks: unique names, references to earlier nodes of this graph, placeholders
    /// first, exactly one output at the end. Recurses into subgraphs.
    Status verify() const;
    /// Stable 64-bit hash of the structure (names, targets, arguments, metadata).
    uint64_t fingerprint() const;

private:
    std::vector<std::unique_ptr<Node>> m_nodes;
    std::unordered_map<std::string, Node*> m_byName;
    std::vector<std::pair<std::string, std::unique_ptr<Graph>>> m_subgraphs;
};

}  // namespace fxray
