#pragma once
/// Runs a graph node by node, either on meta tensors (shape inference) or on real tensors (the
/// reference executor). One code path for both keeps inference and execution in agreement.
#include "exec/exec_context.h"
#include "ir/graph.h"
#include "ir/op_registry.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace fxray {

/// Node-by-node evaluation of a Graph.
class Interpreter {
public:
    enum class Mode { Meta, Execute };
    Interpreter(Mode mode, ExecContext* ctx) : m_mode(mode), m_ctx(ctx) {}

    /// Called after each node with its value (hooks for comparison and inference).
    std::function<void(const Node&, const Value&)> onNode;
    /// Values that replace a node's computed value, by node name (pinning random results to
    /// recorded ones, or replacing a window of nodes by concrete inputs).
    std::map<std::string, Value> pins;
    /// Meta mode: when an op is unknown or its meta function fails, fall back to the node's
    /// annotation instead of failing (so that partly-supported graphs still get metadata).
    bool metaFallbackToAnnotation = true;

    /// Runs g on inputs (one per placeholder) and returns the output values (None for `None`).
    Expected<std::vector<Value>> run(const Graph& g, std::vector<Value> inputs);

    /// Runs a higher-order op ("higher_order.cond", checkpoint, wrap) on its subgraph operands
    /// in this interpreter's mode: what evalNode does for such a node, and what invokeOp uses.
    Expected<Value> callHigherOrder(const std::string& name, std::vector<Value> args,
                                    std::vector<std::pair<std::string, Value>> kwargs);

    /// Nodes whose metadata came from their annotation because inference could not compute it.
    const std::vector<std::string>& unresolvedNodes() const { return m_unresolved; }
    /// Dynamic shapes: the symbols' values the last run read off its inputs (empty for a
    /// static graph).
    const sym::Binding& binding() const { return m_binding; }

private:
    Expected<Value> evalNode(const Node& n, const Graph& g, std::map<const Node*, Value>& env);
    Expected<Value> callOp(const Node& n, const OpInfo& op, std::vector<Value> args,
                           std::vector<std::pair<std::string, Value>> kwargs);

    Mode m_mode;
    ExecContext* m_ctx;
    std::vector<std::string> m_unresolved;
    sym::Binding m_binding;
};

/// Converts an argument to a value, resolving node references through env.
Value argumentValue(const Argument& a, const std::map<const Node*, Value>& env);

}  // namespace fxray

namespace fxray {

/// Calls one registered op by qualified name ("aten.mm.default") on values: binds arguments,
/// runs the meta function and (when ctx is given) the reference kernel; higher-order ops run
/// their subgraphs on the interpreter. For tests, the minifier, constant folding and the
/// compiled backends' fallbacks.
Expected<Value> invokeOp(std::string_view qualname, std::vector<Value> args,
                         std::vector<std::pair<std::string, Value>> kwargs = {}, ExecContext* ctx = nullptr);

}  // namespace fxray
