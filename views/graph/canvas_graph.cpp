#include "graph/canvas_graph.h"

#include "ir/graph.h"
#include "ir/op_registry.h"
#include "models/meta_text.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <QSet>

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
    int number = 0;  ///< the layer's number from 1; 0 for a prologue, epilogue or fixed-size run
    QString file;    ///< where the layers' statements are; "" for fixed-size runs (never stacked)
};

/// The op of each node of `b`, in graph order.
QStringList opSequence(const CanvasGraph& cg, const Block& b) {
    QStringList ops;
    ops.reserve(static_cast<qsizetype>(b.nodes.size()));
    for (int n : b.nodes) ops << cg.nodes[static_cast<size_t>(n)].op;
    return ops;
}

/// What "the same layer" means: the op sequence with runs of one op counted once, so that a
/// DenseNet layer's backward (one `slice` per input of its concatenation, more in each layer)
/// matches the next. 0 for blocks that are never stacked: fixed-size runs, prologues and
/// epilogues.
size_t signature(const CanvasGraph& cg, const Block& b) {
    if (b.file.isEmpty() || b.nodes.empty() || b.number == 0) return 0;
    size_t h = 1469598103934665603ull;
    const QString* last = nullptr;
    for (int n : b.nodes) {
        const QString& op = cg.nodes[static_cast<size_t>(n)].op;
        if (last && *last == op) continue;
        last = &op;
        h = (h ^ qHash(op)) * 1099511628211ull;
    }
    return h;
}

/// How well a cut finds the model's repeated layers: the nodes in runs of at least two
/// consecutive blocks of one signature (`exact`: of one op sequence) whose blocks have at least
/// `minNodes` nodes each. `largest`: the largest run only, weighted by (1 - 1/layers), so that
/// many small layers beat two big halves of a model, and blocks of more than kMaxLayerNodes
/// (several stages at once) do not count.
constexpr size_t kMaxLayerNodes = 600;
size_t stackedNodes(const CanvasGraph& cg, const std::vector<Block>& blocks, bool exact, size_t minNodes = 1,
                    bool largest = false) {
    std::vector<size_t> sig(blocks.size());
    std::vector<QStringList> ops(exact ? blocks.size() : 0);
    for (size_t i = 0; i < blocks.size(); ++i) {
        sig[i] = signature(cg, blocks[i]);
        if (exact) ops[i] = opSequence(cg, blocks[i]);
    }
    auto same = [&](size_t a, size_t b) { return sig[a] != 0 && sig[a] == sig[b] && (!exact || ops[a] == ops[b]); };
    size_t covered = 0;
    for (size_t i = 0; i < blocks.size();) {
        size_t j = i + 1, nodes = blocks[i].nodes.size();
        while (j < blocks.size() && same(i, j)) nodes += blocks[j++].nodes.size();
        const size_t each = blocks[i].nodes.size();
        if (j - i >= 2 && each >= minNodes) {
            if (!largest)
                covered += nodes;
            else if (each <= kMaxLayerNodes)
                covered = std::max(covered, nodes - nodes / (j - i));
        }
        i = j;
    }
    return covered;
}

/// A block that follows a run of at least two blocks with the same op sequence and starts with
/// it is cut after it (the last layer plus what follows the layers), so the run takes in every
/// layer; what follows becomes an epilogue block of its own.
void splitTails(const CanvasGraph& cg, std::vector<Block>& blocks, const QString& phase) {
    for (size_t i = 0; i + 1 < blocks.size(); ++i) {
        if (blocks[i].file.isEmpty()) continue;
        const QStringList layer = opSequence(cg, blocks[i]);
        size_t j = i + 1;
        while (j < blocks.size() && opSequence(cg, blocks[j]) == layer) ++j;
        // One layer is enough when the next block repeats it (a two-layer model).
        if (j >= blocks.size() || (j - i < 2 && blocks[i].number == 0)) continue;
        const QStringList next = opSequence(cg, blocks[j]);
        if (next.size() <= layer.size() || next.mid(0, layer.size()) != layer) continue;
        // Named for the layer it follows: a model with several stages has one such part each.
        Block tail{QCoreApplication::translate("CanvasGraph", "%1 after block %2").arg(phase).arg(blocks[j].number),
                   std::vector<int>(blocks[j].nodes.begin() + layer.size(), blocks[j].nodes.end()), 0, blocks[j].file};
        blocks[j].nodes.resize(static_cast<size_t>(layer.size()));
        blocks.insert(blocks.begin() + static_cast<std::ptrdiff_t>(j) + 1, std::move(tail));
        i = j;
    }
}

/// Cuts `members` (graph order) at each new occurrence of a repeating statement, the one whose
/// cut stacks most of the nodes as repeated layers (a layer runs several statements more than
/// once, a norm before attention and before the MLP: the first repeating one would cut layers
/// in halves that never repeat). The prologue and epilogue of the cut, when large, are cut again
/// the same way: a model of several kinds of stages (a CNN's dense blocks, then a transformer's
/// layers) repeats a different statement in each. `depth` bounds that.
std::vector<Block> cutMembers(const CanvasGraph& cg, const std::vector<int>& members, const QString& phase, int depth,
                              QString* anchorOut = nullptr) {
    std::vector<Block> blocks;
    if (members.empty()) return blocks;
    std::vector<QString> keys(members.size());
    QHash<QString, int> count;
    QStringList order;
    for (size_t i = 0; i < members.size(); ++i) {
        keys[i] = statementKey(cg.nodes[static_cast<size_t>(members[i])].source);
        // Count runs, not nodes: one statement decomposes into several consecutive nodes.
        if (!keys[i].isEmpty() && (i == 0 || keys[i] != keys[i - 1])) {
            if (!count.contains(keys[i])) order << keys[i];
            ++count[keys[i]];
        }
    }
    // An anchor repeats, and not so often that layers would be a handful of nodes.
    const int maxRepeats = std::max<int>(2, static_cast<int>(members.size() / 5));
    auto cutAt = [&](const QString& anchor) {
        std::vector<Block> out;
        int block = 0;
        for (size_t i = 0; i < members.size(); ++i) {
            const bool startsBlock = keys[i] == anchor && (i == 0 || keys[i - 1] != anchor);
            if (out.empty() || startsBlock) {
                if (startsBlock) ++block;
                QString label = startsBlock ? QCoreApplication::translate("CanvasGraph", "%1 block %2 · %3")
                                                  .arg(phase)
                                                  .arg(block)
                                                  .arg(fileOf(anchor))
                                            : QCoreApplication::translate("CanvasGraph", "%1 prologue").arg(phase);
                out.push_back({label, {}, startsBlock ? block : 0, fileOf(anchor)});
            }
            out.back().nodes.push_back(members[i]);
        }
        return out;
    };
    size_t best = 0;
    int tried = 0;
    QString chosen;
    for (const QString& k : order) {
        const int c = count.value(k);
        if (c < 2 || c > maxRepeats) continue;
        if (++tried > 48) break;  // the first statements of a phase are where its layers begin
        std::vector<Block> candidate = cutAt(k);
        splitTails(cg, candidate, phase);
        // The largest run of layers: the model's main stack (a forward's weight transposes for the
        // backward repeat per layer too, but they are not where its layers are). Layers that
        // repeat exactly count most (gpt2's), then those equal up to repeats of one op
        // (DenseNet's backward).
        const size_t covered =
            2 * stackedNodes(cg, candidate, true, 1, true) + stackedNodes(cg, candidate, false, 1, true);
        if (blocks.empty() || covered > best) {
            best = covered;
            blocks = std::move(candidate);
            chosen = k;
        }
    }
    if (blocks.empty()) {
        // No repeating statement: runs of consecutive nodes, so that large graphs still collapse.
        const size_t chunk = 200;
        for (size_t i = 0; i < members.size(); i += chunk) {
            const size_t end = std::min(members.size(), i + chunk);
            blocks.push_back(
                {QCoreApplication::translate("CanvasGraph", "%1 nodes %2–%3").arg(phase).arg(i + 1).arg(end),
                 std::vector<int>(members.begin() + static_cast<std::ptrdiff_t>(i),
                                  members.begin() + static_cast<std::ptrdiff_t>(end)),
                 0, QString()});
        }
        return blocks;
    }
    if (anchorOut) *anchorOut = chosen;
    if (depth <= 0) return blocks;
    // The statements of the layers found: a part that repeats one of them holds the layers'
    // leftovers (a joint forward's per-layer detaches and weight transposes), not a stage of
    // another kind.
    QHash<int, QString> keyOf;
    for (size_t i = 0; i < members.size(); ++i) keyOf.insert(members[i], keys[i]);
    QSet<QString> inLayers;
    for (const Block& b : blocks)
        if (b.number != 0)
            for (int n : b.nodes) inLayers.insert(keyOf.value(n));
    std::vector<Block> out;
    for (Block& b : blocks) {
        if (b.number != 0 || b.nodes.size() < 60) {
            out.push_back(std::move(b));
            continue;
        }
        QString subAnchor;
        std::vector<Block> sub = cutMembers(cg, b.nodes, phase, depth - 1, &subAnchor);
        // Only where most of the part is layers of its own; else it stays one block.
        if (inLayers.contains(subAnchor) || 2 * stackedNodes(cg, sub, true, 6) < b.nodes.size()) {
            out.push_back(std::move(b));
            continue;
        }
        for (Block& s2 : sub) out.push_back(std::move(s2));
    }
    return out;
}

/// Writes `blocks` as clusters, grouping runs of at least two consecutive blocks of one
/// signature into stacks. Labels are the collapse state's keys: a repeated one gets a number.
void emitBlocks(CanvasGraph& cg, const std::vector<Block>& blocks, const QString& phase) {
    QSet<QString> used;
    for (const CanvasCluster& c : cg.clusters) used.insert(c.label);
    for (const CanvasStack& st : cg.stacks) used.insert(st.label);
    auto unique = [&](QString label) {
        const QString base = label;
        for (int k = 2; used.contains(label); ++k) label = QStringLiteral("%1 (%2)").arg(base).arg(k);
        used.insert(label);
        return label;
    };
    std::vector<int> clusterOf(blocks.size(), -1);
    for (size_t k = 0; k < blocks.size(); ++k) {
        const Block& b = blocks[k];
        // A node or two left between layers (a reshape between stages) reads better as itself
        // than as a block.
        if (b.number == 0 && b.nodes.size() <= 2) continue;
        const int c = static_cast<int>(cg.clusters.size());
        clusterOf[k] = c;
        for (int n : b.nodes) cg.nodes[static_cast<size_t>(n)].cluster = c;
        cg.clusters.push_back({unique(b.label), b.nodes, -1});
    }
    for (size_t i = 0; i < blocks.size();) {
        const size_t sig = signature(cg, blocks[i]);
        size_t j = i + 1;
        while (j < blocks.size() && sig != 0 && signature(cg, blocks[j]) == sig) ++j;
        if (j - i >= 2) {
            CanvasStack st;
            st.label = unique(QCoreApplication::translate("CanvasGraph", "%1 blocks %2–%3 · %4")
                                  .arg(phase)
                                  .arg(blocks[i].number)
                                  .arg(blocks[j - 1].number)
                                  .arg(blocks[i].file));
            st.nodesEach = static_cast<int>(blocks[i].nodes.size());
            for (size_t k = i; k < j; ++k) {
                st.clusters.push_back(clusterOf[k]);
                cg.clusters[static_cast<size_t>(clusterOf[k])].stack = static_cast<int>(cg.stacks.size());
            }
            cg.stacks.push_back(std::move(st));
        }
        i = j;
    }
}

void cutPhase(CanvasGraph& cg, const std::vector<int>& members, const QString& phase) {
    if (members.empty()) return;
    emitBlocks(cg, cutMembers(cg, members, phase, 2), phase);
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
