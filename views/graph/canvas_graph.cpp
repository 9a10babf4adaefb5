#include "graph/canvas_graph.h"

#include "ir/graph.h"
#include "ir/op_registry.h"
#include "models/meta_text.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include <algorithm>
#include <unordered_map>

namespace fxray::views {

namespace {

bool startsWith(const std::string& s, std::string_view prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

NodeClass classOf(const Node& n) {
    switch (n.kind()) {
    case NodeKind::Placeholder: return NodeClass::Input;
    case NodeKind::Output: return NodeClass::Output;
    case NodeKind::GetAttr: return NodeClass::Creation;
    default: break;
    }
    if (isSymbolicScalarNode(n)) return NodeClass::Scalar;
    if (!n.op()) {
        // operator.getitem only unpacks a tuple: draw it like a view.
        if (n.target() == "operator.getitem") return NodeClass::View;
        return NodeClass::Other;
    }
    switch (n.op()->category) {
    case OpCategory::Pointwise: return NodeClass::Pointwise;
    case OpCategory::Reduction: return NodeClass::Reduction;
    case OpCategory::View: return NodeClass::View;
    case OpCategory::Extern: return NodeClass::Extern;
    case OpCategory::Random: return NodeClass::Random;
    case OpCategory::HigherOrder: return NodeClass::HigherOrder;
    case OpCategory::Creation: return NodeClass::Creation;
    case OpCategory::Other: return NodeClass::Other;
    }
    return NodeClass::Other;
}

QString shortOp(const Node& n) {
    switch (n.kind()) {
    case NodeKind::Placeholder: return QStringLiteral("input");
    case NodeKind::Output: return QStringLiteral("output");
    case NodeKind::GetAttr: return QStringLiteral("get_attr");
    default: break;
    }
    // "aten.addmm.default" -> "addmm"; "operator.getitem" -> "getitem"; overloads other than
    // default stay visible ("add.Tensor") because they are different ops.
    QString full = QString::fromStdString(n.opName());
    QStringList parts = full.split(QLatin1Char('.'));
    if (n.op() && parts.size() >= 3) {
        const QString& ov = parts.last();
        return ov == QLatin1String("default") ? parts[parts.size() - 2]
                                              : parts[parts.size() - 2] + QLatin1Char('.') + ov;
    }
    return parts.isEmpty() ? full : parts.last();
}

QString typeText(const Node& n) { return nodeTypeText(n); }

/// "File: /x/modeling_gpt2.py:549 in forward, code: ..." -> "modeling_gpt2.py:549".
QString statementKey(const QString& comment) {
    static const QRegularExpression re(QStringLiteral("File: (?:.*/)?([^/:]+):(\\d+)"));
    auto m = re.match(comment);
    return m.hasMatch() ? m.captured(1) + QLatin1Char(':') + m.captured(2) : QString();
}

QString fileOf(const QString& key) { return key.section(QLatin1Char(':'), 0, 0); }

/// A cluster before it is written into the CanvasGraph.
struct Block {
    QString label;
    std::vector<int> nodes;
    int number = 0;  ///< the layer's number from 1; 0 for a prologue or epilogue
};

/// The op of each node of `b`, in graph order: what "the same layer" means.
QStringList opSequence(const CanvasGraph& cg, const Block& b) {
    QStringList ops;
    ops.reserve(static_cast<qsizetype>(b.nodes.size()));
    for (int n : b.nodes) ops << cg.nodes[static_cast<size_t>(n)].op;
    return ops;
}

/// Writes `blocks` as clusters, grouping runs of at least two consecutive blocks with the same op
/// sequence into stacks. A block that follows such a run and starts with its op sequence is cut
/// after it (the last layer plus the phase's epilogue), so the run takes in every layer. `file`
/// is where the layers' statements are ("" for fixed-size runs, which are never stacked: equal
/// runs of a long chain are not layers).
void emitBlocks(CanvasGraph& cg, std::vector<Block> blocks, const QString& phase, const QString& file) {
    std::vector<QStringList> ops;
    for (const Block& b : blocks) ops.push_back(file.isEmpty() ? QStringList() : opSequence(cg, b));
    for (size_t i = 0; !file.isEmpty() && i + 1 < blocks.size(); ++i) {
        size_t j = i + 1;
        while (j < blocks.size() && ops[j] == ops[i]) ++j;
        // One layer is enough when the next block repeats it (a two-layer model).
        if (j >= blocks.size() || (j - i < 2 && blocks[i].number == 0)) continue;
        const QStringList layer = ops[i];  // a copy: ops grows below
        if (ops[j].size() <= layer.size() || ops[j].mid(0, layer.size()) != layer) continue;
        Block tail{QCoreApplication::translate("CanvasGraph", "%1 epilogue").arg(phase),
                   std::vector<int>(blocks[j].nodes.begin() + layer.size(), blocks[j].nodes.end()), 0};
        blocks[j].nodes.resize(static_cast<size_t>(layer.size()));
        ops.insert(ops.begin() + static_cast<std::ptrdiff_t>(j) + 1, ops[j].mid(layer.size()));
        ops[j] = layer;
        blocks.insert(blocks.begin() + static_cast<std::ptrdiff_t>(j) + 1, std::move(tail));
    }
    const int first = static_cast<int>(cg.clusters.size());
    for (const Block& b : blocks) {
        const int c = static_cast<int>(cg.clusters.size());
        for (int n : b.nodes) cg.nodes[static_cast<size_t>(n)].cluster = c;
        cg.clusters.push_back({b.label, b.nodes, -1});
    }
    for (size_t i = 0; i < ops.size();) {
        size_t j = i + 1;
        while (j < ops.size() && ops[j] == ops[i] && !ops[i].isEmpty()) ++j;
        if (j - i >= 2) {
            CanvasStack st;
            st.label = QCoreApplication::translate("CanvasGraph", "%1 blocks %2–%3 · %4")
                           .arg(phase)
                           .arg(blocks[i].number)
                           .arg(blocks[j - 1].number)
                           .arg(file);
            st.nodesEach = static_cast<int>(ops[i].size());
            for (size_t k = i; k < j; ++k) {
                st.clusters.push_back(first + static_cast<int>(k));
                cg.clusters[static_cast<size_t>(first) + k].stack = static_cast<int>(cg.stacks.size());
            }
            cg.stacks.push_back(std::move(st));
        }
        i = j;
    }
}

/// Cuts `members` (graph order) at each new occurrence of the first repeating statement.
void cutPhase(CanvasGraph& cg, const std::vector<int>& members, const QString& phase) {
    if (members.empty()) return;
    std::vector<QString> keys(members.size());
    QHash<QString, int> count;
    for (size_t i = 0; i < members.size(); ++i) {
        keys[i] = statementKey(cg.nodes[static_cast<size_t>(members[i])].source);
        // Count runs, not nodes: one statement decomposes into several consecutive nodes.
        if (!keys[i].isEmpty() && (i == 0 || keys[i] != keys[i - 1])) ++count[keys[i]];
    }
    // The anchor repeats, and not so often that layers would be a handful of nodes.
    const int maxRepeats = std::max<int>(2, static_cast<int>(members.size() / 12));
    QString anchor;
    for (const QString& k : keys)
        if (!k.isEmpty() && count.value(k) >= 2 && count.value(k) <= maxRepeats) {
            anchor = k;
            break;
        }

    std::vector<Block> blocks;
    const size_t chunk = 200;
    if (anchor.isEmpty()) {
        for (size_t i = 0; i < members.size(); i += chunk) {
            const size_t end = std::min(members.size(), i + chunk);
            blocks.push_back(
                {QCoreApplication::translate("CanvasGraph", "%1 nodes %2–%3").arg(phase).arg(i + 1).arg(end),
                 std::vector<int>(members.begin() + static_cast<std::ptrdiff_t>(i),
                                  members.begin() + static_cast<std::ptrdiff_t>(end)),
                 0});
        }
        emitBlocks(cg, std::move(blocks), phase, QString());
        return;
    }
    int block = 0;
    for (size_t i = 0; i < members.size(); ++i) {
        const bool startsBlock = keys[i] == anchor && (i == 0 || keys[i - 1] != anchor);
        if (blocks.empty() || startsBlock) {
            if (startsBlock) ++block;
            QString label = startsBlock ? QCoreApplication::translate("CanvasGraph", "%1 block %2 · %3")
                                              .arg(phase)
                                              .arg(block)
                                              .arg(fileOf(anchor))
                                        : QCoreApplication::translate("CanvasGraph", "%1 prologue").arg(phase);
            blocks.push_back({label, {}, startsBlock ? block : 0});
        }
        blocks.back().nodes.push_back(members[i]);
    }
    emitBlocks(cg, std::move(blocks), phase, fileOf(anchor));
}

}  // namespace

bool isSymbolicScalarNode(const Node& n) {
    if (startsWith(n.annotationText, "Sym(")) return true;
    if (n.kind() == NodeKind::Placeholder || n.kind() == NodeKind::Output) return false;
    if (n.isOpCall()) {
        // aten.sym_size.int, sym_numel, sym_stride, sym_storage_offset, and the runtime checks
        // on scalars (_assert_scalar, sym_constrain_range(_for_size)).
        const std::string op = n.opName();
        return startsWith(op, "aten.sym_") || startsWith(op, "aten._assert_scalar") ||
               startsWith(op, "aten.sym_constrain_range");
    }
    // operator.mul/add/floordiv..., torch.sym_max/sym_float..., math.floor on sizes. Dynamo graphs
    // also call operator.add on tensors: those carry a tensor annotation or metadata.
    if (n.kind() == NodeKind::CallFunction && n.target() != "operator.getitem" &&
        (startsWith(n.target(), "operator.") || startsWith(n.target(), "torch.sym_") ||
         startsWith(n.target(), "math.") || startsWith(n.target(), "torch._sym_") || n.target() == "torch.Size"))
        return n.meta.empty();
    return false;
}

QString nodeClassName(NodeClass c) {
    switch (c) {
    case NodeClass::Input: return QCoreApplication::translate("CanvasGraph", "input");
    case NodeClass::Output: return QCoreApplication::translate("CanvasGraph", "output");
    case NodeClass::Pointwise: return QCoreApplication::translate("CanvasGraph", "pointwise");
    case NodeClass::Reduction: return QCoreApplication::translate("CanvasGraph", "reduction");
    case NodeClass::View: return QCoreApplication::translate("CanvasGraph", "view");
    case NodeClass::Extern: return QCoreApplication::translate("CanvasGraph", "extern (matmul, conv)");
    case NodeClass::Random: return QCoreApplication::translate("CanvasGraph", "random");
    case NodeClass::HigherOrder: return QCoreApplication::translate("CanvasGraph", "higher-order");
    case NodeClass::Creation: return QCoreApplication::translate("CanvasGraph", "creation");
    case NodeClass::Other: return QCoreApplication::translate("CanvasGraph", "other");
    case NodeClass::Scalar: return QCoreApplication::translate("CanvasGraph", "symbolic scalar (SymInt)");
    }
    return {};
}

CanvasNode describeNode(const Node& n) {
    CanvasNode cn;
    cn.name = QString::fromStdString(n.name());
    cn.op = shortOp(n);
    cn.type = typeText(n);
    cn.source = QString::fromStdString(n.sourceComment);
    cn.cls = classOf(n);
    cn.scalar = isSymbolicScalarNode(n);
    return cn;
}

CanvasGraph buildCanvasGraph(const Graph& g, int clusterMinNodes) {
    CanvasGraph cg;
    cg.fingerprint = g.fingerprint();
    const auto& nodes = g.nodes();
    cg.nodes.reserve(nodes.size());
    std::unordered_map<const Node*, int> index;
    index.reserve(nodes.size());
    for (const auto& up : nodes) {
        const Node& n = *up;
        CanvasNode cn = describeNode(n);
        const int i = static_cast<int>(cg.nodes.size());
        index.emplace(&n, i);
        cg.byName.insert(cn.name, i);
        cg.nodes.push_back(std::move(cn));
    }
    for (const auto& up : nodes) {
        const int to = index.at(up.get());
        for (const Node* in : up->inputNodes()) {
            auto it = index.find(in);
            if (it == index.end()) continue;  // a node of another graph: never drawn
            cg.nodes[static_cast<size_t>(to)].inputs.push_back(it->second);
            cg.nodes[static_cast<size_t>(it->second)].users.push_back(to);
            cg.edges.push_back({it->second, to, cg.nodes[static_cast<size_t>(it->second)].type});
        }
    }
    if (static_cast<int>(cg.nodes.size()) >= clusterMinNodes) assignClusters(cg);
    return cg;
}

void assignClusters(CanvasGraph& cg) {
    cg.clusters.clear();
    cg.stacks.clear();
    for (auto& n : cg.nodes) n.cluster = -1;
    // Joint graphs: what depends on a tangent is backward. Graph order is topological.
    std::vector<char> backward(cg.nodes.size(), 0);
    bool joint = false;
    for (size_t i = 0; i < cg.nodes.size(); ++i) {
        const CanvasNode& n = cg.nodes[i];
        if (n.cls == NodeClass::Input) {
            if (n.name.startsWith(QLatin1String("tangents"))) backward[i] = 1, joint = true;
            continue;
        }
        for (int in : n.inputs)
            if (backward[static_cast<size_t>(in)]) {
                backward[i] = 1;
                break;
            }
    }
    std::vector<int> fwd, bwd;
    for (size_t i = 0; i < cg.nodes.size(); ++i) {
        const NodeClass c = cg.nodes[i].cls;
        // Inputs and the output sit next to their users; boxing them with one layer would
        // stretch that layer over the whole graph.
        if (c == NodeClass::Input || c == NodeClass::Output) continue;
        (backward[i] ? bwd : fwd).push_back(static_cast<int>(i));
    }
    if (joint) {
        cutPhase(cg, fwd, QCoreApplication::translate("CanvasGraph", "forward"));
        cutPhase(cg, bwd, QCoreApplication::translate("CanvasGraph", "backward"));
    } else {
        cutPhase(cg, fwd, QCoreApplication::translate("CanvasGraph", "graph"));
    }
}

}  // namespace fxray::views
