#include "models/match_model.h"

#include "pass/compile_trace.h"

#include <QFont>

#include <map>

namespace fxray::views {

struct MatchModel::Item {
    Kind kind = Kind::Pass;
    int passIndex = -1;
    QString name, count, detail, pattern, reason;
    QStringList nodes, newNodes;
    Item* parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Item>> children;

    Item* add(std::unique_ptr<Item> c) {
        c->parent = this;
        c->row = static_cast<int>(children.size());
        children.push_back(std::move(c));
        return children.back().get();
    }
};

namespace {

QStringList toList(const std::vector<std::string>& v) {
    QStringList out;
    out.reserve(static_cast<qsizetype>(v.size()));
    for (const auto& s : v) out << QString::fromStdString(s);
    return out;
}

/// "a, b, c, … (31)" — enough to recognise a match without widening the column.
QString brief(const QStringList& names) {
    constexpr int kShown = 4;
    if (names.size() <= kShown) return names.join(QStringLiteral(", "));
    return QStringLiteral("%1, … (%2)").arg(names.mid(0, kShown).join(QStringLiteral(", "))).arg(names.size());
}

}  // namespace

MatchModel::MatchModel(QObject* parent) : QAbstractItemModel(parent), m_root(std::make_unique<Item>()) {}
MatchModel::~MatchModel() = default;

void MatchModel::setTrace(std::shared_ptr<const CompileTrace> trace) {
    beginResetModel();
    m_trace = std::move(trace);
    m_root = std::make_unique<Item>();
    m_current = -1;
    if (m_trace) {
        for (size_t pi = 0; pi < m_trace->passes.size(); ++pi) {
            const PassRecord& p = m_trace->passes[pi];
            if (p.matches.empty() && p.nearMisses.empty()) continue;
            auto pass = std::make_unique<Item>();
            pass->kind = Kind::Pass;
            pass->passIndex = static_cast<int>(pi);
            pass->name = p.graph.empty()
                             ? QString::fromStdString(p.name)
                             : tr("%1 (%2)").arg(QString::fromStdString(p.name), QString::fromStdString(p.graph));
            pass->count = tr("%n match(es)", nullptr, static_cast<int>(p.matches.size()));
            if (!p.nearMisses.empty())
                pass->detail =
                    tr("%n near-miss(es)", nullptr, static_cast<int>(p.nearMisses.size() + p.droppedNearMisses));
            // Patterns in the order they first fired or nearly did.
            std::map<std::string, Item*> patterns;
            auto patternItem = [&](const std::string& name) {
                auto it = patterns.find(name);
                if (it != patterns.end()) return it->second;
                auto pat = std::make_unique<Item>();
                pat->kind = Kind::Pattern;
                pat->passIndex = static_cast<int>(pi);
                pat->name = pat->pattern = QString::fromStdString(name);
                Item* raw = pass->add(std::move(pat));
                patterns.emplace(name, raw);
                return raw;
            };
            for (const MatchRecord& m : p.matches) patternItem(m.pattern);
            for (const NearMiss& n : p.nearMisses) patternItem(n.pattern);
            std::map<Item*, std::pair<int, int>> tally;  // matches, near-misses per pattern
            for (const MatchRecord& m : p.matches) {
                Item* pat = patternItem(m.pattern);
                auto it = std::make_unique<Item>();
                it->kind = Kind::Match;
                it->passIndex = static_cast<int>(pi);
                it->pattern = pat->pattern;
                it->nodes = toList(m.nodes);
                it->newNodes = toList(m.newNodes);
                it->name = it->nodes.isEmpty() ? tr("match") : tr("match at %1").arg(it->nodes.front());
                it->count = tr("%1 → %2 nodes").arg(it->nodes.size()).arg(it->newNodes.size());
                it->detail = it->newNodes.isEmpty() ? brief(it->nodes)
                                                    : tr("%1 ⇒ %2").arg(brief(it->nodes), brief(it->newNodes));
                pat->add(std::move(it));
                ++tally[pat].first;
            }
            for (const NearMiss& n : p.nearMisses) {
                Item* pat = patternItem(n.pattern);
                auto it = std::make_unique<Item>();
                it->kind = Kind::NearMiss;
                it->passIndex = static_cast<int>(pi);
                it->pattern = pat->pattern;
                it->nodes = QStringList{QString::fromStdString(n.node)};
                it->reason = QString::fromStdString(n.reason);
                it->name = tr("near-miss at %1").arg(QString::fromStdString(n.node));
                it->detail = it->reason;
                pat->add(std::move(it));
                ++tally[pat].second;
            }
            for (auto& [pat, counts] : tally) {
                pat->count = tr("%n match(es)", nullptr, counts.first);
                if (counts.second) pat->detail = tr("%n near-miss(es)", nullptr, counts.second);
            }
            m_root->add(std::move(pass));
        }
    }
    endResetModel();
}

QModelIndex MatchModel::indexOfPass(int passIndex) const {
    for (const auto& c : m_root->children)
        if (c->passIndex == passIndex) return indexOf(c.get(), 0);
    return {};
}

void MatchModel::setCurrent(int passIndex) {
    if (passIndex == m_current) return;
    const QModelIndex old = indexOfPass(m_current);
    m_current = passIndex;
    for (const QModelIndex& i : {old, indexOfPass(passIndex)})
        if (i.isValid()) Q_EMIT dataChanged(i, i.siblingAtColumn(ColumnCount - 1), {Qt::FontRole});
}

MatchModel::Item* MatchModel::itemAt(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Item*>(index.internalPointer()) : m_root.get();
}

QModelIndex MatchModel::indexOf(const Item* item, int column) const {
    if (!item || item == m_root.get()) return {};
    return createIndex(item->row, column, const_cast<Item*>(item));
}

QModelIndex MatchModel::index(int row, int column, const QModelIndex& parent) const {
    if (!hasIndex(row, column, parent)) return {};
    const Item* p = itemAt(parent);
    return createIndex(row, column, p->children[static_cast<size_t>(row)].get());
}

QModelIndex MatchModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    return indexOf(itemAt(child)->parent, 0);
}

int MatchModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) return 0;
    return static_cast<int>(itemAt(parent)->children.size());
}

int MatchModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant MatchModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const Item* it = itemAt(index);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ColName: return it->name;
        case ColCount: return it->count;
        case ColDetail: return it->detail;
        }
        return {};
    case Qt::ToolTipRole:
        if (it->kind == Kind::Match)
            return tr("Matched: %1\nCreated: %2")
                .arg(it->nodes.join(QStringLiteral(", ")), it->newNodes.join(QStringLiteral(", ")));
        if (it->kind == Kind::NearMiss) return tr("Rejected at %1: %2").arg(it->nodes.value(0), it->reason);
        return {};
    case Qt::FontRole:
        if (it->kind == Kind::Pass && it->passIndex == m_current) {
            QFont f;
            f.setBold(true);
            return f;
        }
        if (it->kind == Kind::NearMiss) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        return {};
    case KindRole: return static_cast<int>(it->kind);
    case PassIndexRole: return it->passIndex;
    case NodesRole: return it->nodes;
    case NewNodesRole: return it->newNodes;
    case ReasonRole: return it->reason;
    case PatternRole: return it->pattern;
    }
    return {};
}

QVariant MatchModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case ColName: return tr("Pass / pattern / match");
    case ColCount: return tr("Count");
    case ColDetail: return tr("Nodes / reason");
    }
    return {};
}

}  // namespace fxray::views
