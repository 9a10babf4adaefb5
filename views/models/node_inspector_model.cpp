#include "models/node_inspector_model.h"

#include "ir/graph.h"
#include "ir/op_registry.h"
#include "ir/sym_expr.h"
#include "models/meta_text.h"
#include "pass/compile_trace.h"

#include <QFont>

#include <algorithm>
#include <set>

namespace fxray::views {

struct NodeInspectorModel::Item {
    QString key;  ///< section key (sections only)
    QString property;
    QString value;
    QString nodeName;  ///< the node this row refers to, if any
    Item* parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Item>> children;

    Item* add(QString prop, QString val, QString node = {}) {
        auto c = std::make_unique<Item>();
        c->property = std::move(prop);
        c->value = std::move(val);
        c->nodeName = std::move(node);
        c->parent = this;
        c->row = static_cast<int>(children.size());
        children.push_back(std::move(c));
        return children.back().get();
    }
};

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

/// What a related node computes, in one word: its op, or its target, or its kind.
QString describe(const Node& n) {
    if (n.isOpCall()) return qs(n.opName());
    if (n.kind() == NodeKind::CallFunction || n.kind() == NodeKind::CallMethod) return qs(n.target());
    return qs(nodeKindName(n.kind()));
}

/// A dimension list as PyTorch prints it: symbolic entries by their expression ("[s33, 64]").
QString dimsText(const std::vector<int64_t>& values, const std::vector<SymInt>& sym) {
    QStringList dims;
    for (size_t d = 0; d < values.size(); ++d)
        dims << (d < sym.size() && sym[d].isSymbolic() ? qs(sym[d].text())
                 : values[d] < 0                       ? QStringLiteral("?")
                                                       : QString::number(values[d]));
    return QStringLiteral("[%1]").arg(dims.join(QStringLiteral(", ")));
}

/// The symbols a node's type mentions, sorted ("s23, s27"), or empty.
QString symbolsOf(const Node& n) {
    std::set<std::string> syms;
    for (const TensorMeta& m : n.meta) {
        for (const auto& e : m.symShape) e.freeSymbols(syms);
        for (const auto& e : m.symStrides) e.freeSymbols(syms);
    }
    const std::string& a = n.annotationText;
    if (a.size() > 5 && a.compare(0, 4, "Sym(") == 0 && a.back() == ')') {
        const auto found = sym::freeSymbols(a.substr(4, a.size() - 5));
        syms.insert(found.begin(), found.end());
    }
    QStringList out;
    for (const auto& s : syms) out << qs(s);
    return out.join(QStringLiteral(", "));
}

}  // namespace

NodeInspectorModel::NodeInspectorModel(QObject* parent)
        : QAbstractItemModel(parent), m_root(std::make_unique<Item>()) {}
NodeInspectorModel::~NodeInspectorModel() = default;

void NodeInspectorModel::setNode(const Graph* graph, const QString& name, const CompileTrace* trace, int passIndex) {
    beginResetModel();
    m_root = std::make_unique<Item>();
    m_name.clear();
    const Node* n = graph && !name.isEmpty() ? graph->find(name.toStdString()) : nullptr;
    auto section = [&](const char* key, const QString& title, const QString& value = {}) {
        Item* s = m_root->add(title, value);
        s->key = QString::fromLatin1(key);
        return s;
    };
    if (n) {
        m_name = name;
        Item* node = section("node", tr("Node"), name);
        node->add(tr("name"), name);
        node->add(tr("kind"), qs(nodeKindName(n->kind())));
        node->add(tr("target"), qs(n->target()));
        if (n->isOpCall()) node->add(tr("op"), qs(n->opName()));
        if (const OpInfo* op = n->op()) {
            node->add(tr("category"), qs(opCategoryName(op->category)));
            Item* schema = section("schema", tr("Schema"), qs(op->schema.text));
            for (const SchemaArg& a : op->schema.args)
                schema->add(qs(a.name),
                            a.hasDefault ? tr("%1 = %2").arg(qs(a.type), qs(a.defaultValue.repr())) : qs(a.type));
            schema->add(tr("returns"), qs(op->schema.returns));
        } else if (n->isOpCall()) {
            section("schema", tr("Schema"), tr("(not in fxray's op registry)"));
        }
        if (!n->args.empty()) {
            Item* args = section("args", tr("Arguments"), QString::number(n->args.size()));
            for (size_t i = 0; i < n->args.size(); ++i) {
                const Argument& a = n->args[i];
                QString label = QString::number(i);
                if (const OpInfo* op = n->op(); op && i < op->schema.args.size()) label = qs(op->schema.args[i].name);
                args->add(label, qs(a.repr()), a.isNode() ? qs(a.node->name()) : QString());
            }
        }
        if (!n->kwargs.empty()) {
            Item* kw = section("kwargs", tr("Keyword arguments"), QString::number(n->kwargs.size()));
            for (const auto& [k, a] : n->kwargs)
                kw->add(qs(k), qs(a.repr()), a.isNode() ? qs(a.node->name()) : QString());
        }
        if (!n->meta.empty() || !n->annotationText.empty()) {
            Item* out = section("output", tr("Output"));
            if (n->meta.size() == 1 && !n->metaIsTuple) {
                const TensorMeta& m = *elementMeta(*n, 0);
                out->value = metaText(m, true, true);
                out->add(tr("dtype"), qs(dtypeTorchName(m.dtype)));
                out->add(tr("shape"), dimsText(m.shape, m.symShape));
                if (m.stridesKnown) out->add(tr("strides"), dimsText(m.strides, m.symStrides));
                if (m.offset) out->add(tr("storage offset"), QString::number(m.offset));
                // A symbolic size has no number of bytes, nor has one inferred from it.
                bool known = !m.isSymbolic();
                for (size_t d = 0; d < m.shape.size() && known; ++d) known = !m.isUnknownDim(d);
                if (known) out->add(tr("bytes"), QString::number(m.nbytes()));
            } else {
                out->value = n->metaIsTuple ? tr("tuple of %n", nullptr, static_cast<int>(n->meta.size()))
                                            : qs(n->annotationText);
                const std::string& a = n->annotationText;
                if (n->meta.empty() && a.size() > 5 && a.compare(0, 4, "Sym(") == 0 && a.back() == ')')
                    // A SymInt/SymFloat/SymBool: its value is this expression of the input sizes.
                    out->add(tr("expression"), qs(a.substr(4, a.size() - 5)));
                for (size_t i = 0; i < n->meta.size(); ++i)
                    out->add(QStringLiteral("[%1]").arg(i), metaText(*elementMeta(*n, i), true, true));
            }
            if (const QString syms = symbolsOf(*n); !syms.isEmpty()) {
                out->add(tr("symbols"), syms);
                // What the sizes were when PyTorch traced (a TORCH_TRACE's create_symbol hints).
                const Graph* owner = n->owner();
                if (owner && !owner->symbolHints.empty()) {
                    sym::Binding at;
                    for (const QString& sname : syms.split(QStringLiteral(", "))) {
                        const auto it = owner->symbolHints.find(sname.toStdString());
                        if (it != owner->symbolHints.end()) at.insert(*it);
                    }
                    if (!at.empty()) out->add(tr("hints"), qs(sym::bindingStr(at)));
                }
            }
        }
        const std::vector<Node*> inputs = n->inputNodes();
        if (!inputs.empty()) {
            Item* in = section("inputs", tr("Inputs"), QString::number(inputs.size()));
            for (const Node* i : inputs) in->add(qs(i->name()), describe(*i), qs(i->name()));
        }
        Item* users = section("users", tr("Users"), QString::number(n->users.size()));
        for (const Node* u : n->users) users->add(qs(u->name()), describe(*u), qs(u->name()));
        if (!n->sourceComment.empty() || n->sourceLine > 0) {
            Item* src = section("source", tr("Source"));
            if (!n->sourceComment.empty()) src->add(tr("comment"), qs(n->sourceComment));
            if (n->sourceLine > 0) src->add(tr("line in file"), QString::number(n->sourceLine));
        }
    }
    // Provenance also for a name no longer in the shown graph (a removed node the canvas draws
    // as a ghost): what created, replaced or erased it.
    if (trace && !name.isEmpty()) {
        const std::string key = name.toStdString();
        Item* prov = nullptr;
        for (size_t pi = 0; pi < trace->passes.size(); ++pi) {
            const PassRecord& p = trace->passes[pi];
            const bool later = static_cast<int>(pi) > passIndex;
            const QString where = tr("pass %1: %2").arg(pi + 1).arg(qs(p.name)) + (later ? tr(" (later)") : QString());
            for (const ProvenanceEvent& e : p.events) {
                if (!e.graph.empty()) continue;  // events of subgraphs name other nodes
                QString what;
                QString other;
                if (e.kind == ProvenanceEvent::Kind::Created && e.node == key)
                    what = tr("created (%1)").arg(qs(e.target));
                else if (e.kind == ProvenanceEvent::Kind::Replaced && e.replacement == key)
                    what = tr("replaces %1").arg(qs(e.node)), other = qs(e.node);
                else if (e.kind == ProvenanceEvent::Kind::Replaced && e.node == key)
                    what = tr("replaced by %1").arg(qs(e.replacement)), other = qs(e.replacement);
                else if (e.kind == ProvenanceEvent::Kind::Erased && e.node == key)
                    what = tr("erased");
                else
                    continue;
                if (!e.pattern.empty()) what += tr(" by pattern %1").arg(qs(e.pattern));
                if (!prov) {
                    prov = section("provenance", tr("Provenance"));
                }
                prov->add(where, what, other);
            }
        }
        if (!prov && n) section("provenance", tr("Provenance"), n->sourceLine > 0 ? tr("from the file") : QString());
    }
    endResetModel();
}

QModelIndex NodeInspectorModel::section(const QString& key) const {
    for (const auto& c : m_root->children)
        if (c->key == key) return createIndex(c->row, 0, c.get());
    return {};
}

NodeInspectorModel::Item* NodeInspectorModel::itemAt(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Item*>(index.internalPointer()) : m_root.get();
}

QModelIndex NodeInspectorModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) return {};
    return createIndex(row, column, itemAt(parent)->children[static_cast<size_t>(row)].get());
}

QModelIndex NodeInspectorModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    const Item* p = itemAt(child)->parent;
    if (!p || p == m_root.get()) return {};
    return createIndex(p->row, 0, const_cast<Item*>(p));
}

int NodeInspectorModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) return 0;
    return static_cast<int>(itemAt(parent)->children.size());
}

int NodeInspectorModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant NodeInspectorModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const Item* it = itemAt(index);
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole: return index.column() == ColProperty ? it->property : it->value;
    case Qt::FontRole:
        if (it->parent == m_root.get() && index.column() == ColProperty) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case NodeNameRole: return it->nodeName;
    case SectionRole: {
        const Item* s = it;
        while (s->parent && s->parent != m_root.get()) s = s->parent;
        return s->key;
    }
    }
    return {};
}

QVariant NodeInspectorModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    return section == ColProperty ? tr("Property") : tr("Value");
}

}  // namespace fxray::views
