#pragma once
/// A node of an FX graph.
#include "ir/argument.h"
#include "ir/tensor_meta.h"

#include <string>
#include <utility>
#include <vector>

namespace fxray {

class Graph;
struct OpInfo;

/// FX's node opcodes.
enum class NodeKind : uint8_t { Placeholder, CallFunction, CallMethod, CallModule, GetAttr, Output };
std::string_view nodeKindName(NodeKind k);

/// One FX node. Owned by its Graph; referenced by pointer from arguments.
class Node {
public:
    Node(Graph* owner, NodeKind kind, std::string name, std::string target)
            : m_owner(owner), m_kind(kind), m_name(std::move(name)), m_target(std::move(target)) {}

    Graph* owner() const { return m_owner; }
    NodeKind kind() const { return m_kind; }
    const std::string& name() const { return m_name; }
    /// Dotted Python path for call_function ("torch.ops.aten.addmm.default",
    /// "operator.getitem", "torch._C._nn.linear"), the method name for call_method, the
    /// attribute path for get_attr and call_module, the argument name for placeholders.
    const std::string& target() const { return m_target; }
    void setTarget(std::string t) {
        m_target = std::move(t);
        m_op = nullptr;
    }
    void setNameInternal(std::string n) { m_name = std::move(n); }  ///< use Graph::rename

    /// The registry entry of an `torch.ops.*` target, or null (unknown op, or not an op call).
    const OpInfo* op() const { return m_op; }
    void setOp(const OpInfo* op) { m_op = op; }
    /// "aten.addmm.default" for `torch.ops.aten.addmm.default`, else the target itself.
    std::string opName() const;
    bool isOpCall() const;

    std::vector<Argument> args;
    std::vector<std::pair<std::string, Argument>> kwargs;
    /// Keyword argument by name, or null.
    const Argument* kwarg(std::string_view key) const;

    /// Output metadata: one entry for a tensor-valued node, several for ops returning a tuple.
    std::vector<TensorMeta> meta;
    /// The node returns a tuple/list (its metadata entries are its elements).
    bool metaIsTuple = false;
    /// The source file annotated this node with a tensor type.
    bool annotated = false;
    /// Annotation text that is not a tensor type ("Sym(s0)"), kept verbatim for printing.
    std::string annotationText;

    /// Provenance comment that preceded the node ("File: x.py:12 in forward, code: ...").
    std::string sourceComment;
    /// Placeholders: default value text when the signature gave one; unused otherwise.
    std::string placeholderDefault;

    /// Nodes that use this node, in graph order. Maintained by Graph::rebuildUsers().
    std::vector<Node*> users;
    /// Position in the owner's node list (valid after Graph::renumber()).
    int index = -1;
    /// 1-based line of the node in the file it was read from, 0 if created.
    int sourceLine = 0;

    /// Nodes referenced by args and kwargs, first occurrence order, without repeats.
    std::vector<Node*> inputNodes() const;

private:
    Graph* m_owner;
    NodeKind m_kind;
    std::string m_name;
    std::string m_target;
    const OpInfo* m_op = nullptr;
};

}  // namespace fxray
