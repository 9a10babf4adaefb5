#include "models/compile_tree_model.h"

#include "import/compile_story.h"

#include <QFileInfo>

#include <map>
#include <tuple>

namespace fxray::views {

namespace {
/// How much a status asks for attention: a frame shows its most urgent attempt's.
int urgency(CompileStatus s) {
    switch (s) {
    case CompileStatus::Failed: return 4;
    case CompileStatus::GraphBreak: return 3;
    case CompileStatus::Restarted: return 2;
    case CompileStatus::CacheHit: return 1;
    case CompileStatus::Ok: return 0;
    }
    return 0;
}

QString fromStd(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

CompileTreeModel::CompileTreeModel(QObject* parent) : QAbstractItemModel(parent) {}
CompileTreeModel::~CompileTreeModel() = default;

QColor CompileTreeModel::statusColor(CompileStatus s) {
    // Mid-saturation colours: legible as text on the light and the dark palette.
    switch (s) {
    case CompileStatus::Failed: return QColor(0xd6, 0x3b, 0x3b);
    case CompileStatus::GraphBreak: return QColor(0xd0, 0x8a, 0x14);
    case CompileStatus::Restarted: return QColor(0x8e, 0x8e, 0x8e);
    case CompileStatus::CacheHit: return QColor(0x3a, 0x86, 0xd6);
    case CompileStatus::Ok: return QColor(0x2e, 0x9e, 0x4f);
    }
    return {};
}

void CompileTreeModel::setStory(std::shared_ptr<const CompileStory> story) {
    beginResetModel();
    m_story = std::move(story);
    m_root.children.clear();
    m_attemptOf.clear();
    if (m_story) {
        const auto& cs = m_story->compiles;
        m_attemptOf.assign(cs.size(), nullptr);
        // Attempts of one frame (same rank, compiled-autograd id and frame id) share a frame row,
        // in order of first appearance; an entry without a frame id is a frame of its own.
        std::map<std::tuple<int, int64_t, int64_t>, Node*> frames;
        for (size_t i = 0; i < cs.size(); ++i) {
            const CompileEntry& e = cs[i];
            Node* frame = nullptr;
            if (e.frameId >= 0) {
                auto key = std::make_tuple(e.rank, e.compiledAutogradId, e.frameId);
                auto it = frames.find(key);
                if (it != frames.end()) frame = it->second;
            }
            if (!frame) {
                auto f = std::make_unique<Node>();
                f->kind = FrameRow;
                f->compile = int(i);
                f->parent = &m_root;
                f->row = int(m_root.children.size());
                frame = f.get();
                m_root.children.push_back(std::move(f));
                if (e.frameId >= 0) frames[std::make_tuple(e.rank, e.compiledAutogradId, e.frameId)] = frame;
            }
            auto a = std::make_unique<Node>();
            a->kind = AttemptRow;
            a->compile = int(i);
            a->parent = frame;
            a->row = int(frame->children.size());
            for (size_t s = 0; s < e.stages.size(); ++s) {
                auto st = std::make_unique<Node>();
                st->kind = StageRow;
                st->compile = int(i);
                st->stage = int(s);
                st->parent = a.get();
                st->row = int(s);
                a->children.push_back(std::move(st));
            }
            m_attemptOf[i] = a.get();
            frame->children.push_back(std::move(a));
        }
    }
    endResetModel();
}

const CompileTreeModel::Node* CompileTreeModel::nodeOf(const QModelIndex& i) const {
    return i.isValid() ? static_cast<const Node*>(i.internalPointer()) : &m_root;
}

QModelIndex CompileTreeModel::indexOfCompile(int compileIndex) const {
    if (compileIndex < 0 || size_t(compileIndex) >= m_attemptOf.size()) return {};
    const Node* n = m_attemptOf[size_t(compileIndex)];
    return createIndex(n->row, 0, const_cast<Node*>(n));
}

QModelIndex CompileTreeModel::index(int row, int column, const QModelIndex& parent) const {
    const Node* p = nodeOf(parent);
    if (row < 0 || column < 0 || column >= ColumnCount || size_t(row) >= p->children.size()) return {};
    return createIndex(row, column, p->children[size_t(row)].get());
}

QModelIndex CompileTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    const Node* p = nodeOf(child)->parent;
    if (!p || p == &m_root) return {};
    return createIndex(p->row, 0, const_cast<Node*>(p));
}

int CompileTreeModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) return 0;
    return int(nodeOf(parent)->children.size());
}

int CompileTreeModel::columnCount(const QModelIndex&) const { return ColumnCount; }

CompileStatus CompileTreeModel::statusOf(const Node& n) const {
    if (n.kind != FrameRow) return m_story->compiles[size_t(n.compile)].status;
    CompileStatus worst = CompileStatus::Ok;
    for (const auto& a : n.children) {
        CompileStatus s = m_story->compiles[size_t(a->compile)].status;
        if (urgency(s) > urgency(worst)) worst = s;
    }
    return worst;
}

QString CompileTreeModel::nameOf(const Node& n) const {
    const CompileEntry& e = m_story->compiles[size_t(n.compile)];
    switch (n.kind) {
    case FrameRow: {
        // A restarted attempt logs no metrics, hence no co_name: take the first attempt's that has one.
        std::string fn;
        for (const auto& a : n.children)
            if (fn.empty()) fn = m_story->compiles[size_t(a->compile)].function;
        QString name = fn.empty() ? tr("frame %1").arg(e.frameId) : tr("frame %1 · %2").arg(e.frameId).arg(fromStd(fn));
        if (e.frameId < 0) name = tr("compile %1").arg(fromStd(e.id));
        if (e.compiledAutogradId >= 0) name = tr("compiled autograd %1 · ").arg(e.compiledAutogradId) + name;
        if (e.rank >= 0) name = tr("rank %1 · ").arg(e.rank) + name;
        return name;
    }
    case AttemptRow: return fromStd(e.id);
    case StageRow: return fromStd(e.stages[size_t(n.stage)]);
    }
    return {};
}

QString CompileTreeModel::summaryOf(const Node& n) const {
    const CompileEntry& e = m_story->compiles[size_t(n.compile)];
    if (n.kind == StageRow) return {};
    if (n.kind == FrameRow) {
        if (!e.stack.empty()) {
            const StackFrame& f = e.stack.back();
            return QStringLiteral("%1:%2").arg(QFileInfo(fromStd(f.file)).fileName()).arg(f.line);
        }
        return {};
    }
    if (e.failure) return QStringLiteral("%1: %2").arg(fromStd(e.failure->type), fromStd(e.failure->message)).left(200);
    if (!e.graphBreaks.empty()) {
        const GraphBreak& b = e.graphBreaks.front();
        QString where =
            b.userFrame.line > 0
                ? QStringLiteral(" — %1:%2").arg(QFileInfo(fromStd(b.userFrame.file)).fileName()).arg(b.userFrame.line)
                : QString();
        return fromStd(b.reason) + where;
    }
    if (!e.recompileReasons.empty()) return tr("recompiled: %1").arg(fromStd(e.recompileReasons.front()));
    for (const auto& [phase, seconds] : e.metrics)
        if (phase == "entire_frame_compile_time") return tr("%1 s").arg(seconds, 0, 'f', 2);
    return {};
}

QVariant CompileTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !m_story) return {};
    const Node& n = *nodeOf(index);
    const CompileEntry& e = m_story->compiles[size_t(n.compile)];
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == NameColumn) return nameOf(n);
        if (index.column() == StatusColumn)
            return n.kind == StageRow ? QString() : QString::fromLatin1(compileStatusName(statusOf(n)));
        return summaryOf(n);
    case Qt::ToolTipRole:
        if (index.column() == SummaryColumn) return summaryOf(n);
        return nameOf(n);
    case Qt::ForegroundRole:
        if (n.kind != StageRow && index.column() != SummaryColumn) return statusColor(statusOf(n));
        return {};
    case Qt::DecorationRole:
        if (n.kind != StageRow && index.column() == NameColumn) return statusColor(statusOf(n));
        return {};
    case KindRole: return int(n.kind);
    case CompileIndexRole: return n.kind == FrameRow ? -1 : n.compile;
    case StatusRole: return QString::fromLatin1(compileStatusName(statusOf(n)));
    case StageRole: return n.kind == StageRow ? fromStd(e.stages[size_t(n.stage)]) : QVariant();
    case CompileIdRole: return n.kind == FrameRow ? QVariant() : fromStd(e.id);
    default: return {};
    }
}

QVariant CompileTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("Frame / attempt / stage");
    case StatusColumn: return tr("Status");
    case SummaryColumn: return tr("Why");
    default: return {};
    }
}

}  // namespace fxray::views
