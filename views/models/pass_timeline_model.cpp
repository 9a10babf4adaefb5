#include "models/pass_timeline_model.h"

#include "pass/compile_trace.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace fxray::views {

PassTimelineModel::PassTimelineModel(QObject* parent) : QAbstractTableModel(parent) {}

void PassTimelineModel::setTrace(std::shared_ptr<const CompileTrace> trace) {
    beginResetModel();
    m_trace = std::move(trace);
    m_current = -1;
    endResetModel();
}

void PassTimelineModel::setCurrent(int passIndex) {
    if (passIndex == m_current) return;
    const int old = m_current;
    m_current = passIndex;
    const int rows = rowCount();
    for (int r : {old, passIndex})
        if (r >= 0 && r < rows) Q_EMIT dataChanged(index(r, 0), index(r, ColumnCount - 1), {Qt::FontRole});
}

int PassTimelineModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_trace) return 0;
    return static_cast<int>(m_trace->passes.size());
}

int PassTimelineModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PassTimelineModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const PassRecord& p = m_trace->passes[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ColIndex: return index.row() + 1;
        case ColName: return QString::fromStdString(p.name);
        case ColGraph: return p.graph.empty() ? QString() : QString::fromStdString(p.graph);
        case ColMs: return QString::number(p.ms, 'f', p.ms < 10 ? 2 : 1);
        case ColNodes:
            return p.nodesBefore == p.nodesAfter ? QString::number(p.nodesAfter)
                                                 : tr("%1 → %2").arg(p.nodesBefore).arg(p.nodesAfter);
        case ColStatus:
            if (p.failed) return tr("failed: %1").arg(QString::fromStdString(p.error));
            if (p.skipped) return tr("skipped");
            return p.changed ? tr("changed") : tr("unchanged");
        }
        return {};
    case Qt::ToolTipRole:
        if (p.failed)
            return tr("%1 failed and was undone: %2")
                .arg(QString::fromStdString(p.name), QString::fromStdString(p.error));
        if (!p.summary.empty()) return QString::fromStdString(p.summary);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == ColIndex || index.column() == ColMs || index.column() == ColNodes)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        if (p.failed) return QBrush(QColor(0xc6, 0x28, 0x28));
        if (!p.changed || p.skipped) return QBrush(QColor(0x80, 0x80, 0x80));
        return {};
    case Qt::BackgroundRole:
        if (p.failed) return QBrush(QColor(229, 57, 53, 60));  // translucent: readable in both themes
        return {};
    case Qt::FontRole:
        if (index.row() == m_current) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case PassIndexRole: return index.row();
    case ChangedRole: return p.changed;
    case FailedRole: return p.failed;
    case SkippedRole: return p.skipped;
    case ErrorRole: return QString::fromStdString(p.error);
    case MsRole: return p.ms;
    }
    return {};
}

QVariant PassTimelineModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case ColIndex: return tr("#");
    case ColName: return tr("Pass");
    case ColGraph: return tr("Subgraph");
    case ColMs: return tr("ms");
    case ColNodes: return tr("Nodes");
    case ColStatus: return tr("Result");
    }
    return {};
}

}  // namespace fxray::views
