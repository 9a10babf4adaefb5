#include "models/saved_tensor_model.h"

#include "partition/partitioner.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

#include <set>

namespace fxray::views {

namespace {

/// PyTorch's dtype names ("torch.float32") in fxray's annotation spelling ("f32").
QString shortDtype(const QString& torchName) {
    static const std::pair<const char*, const char*> table[] = {
        {"torch.float32", "f32"}, {"torch.float16", "f16"}, {"torch.bfloat16", "bf16"},
        {"torch.float64", "f64"}, {"torch.int64", "i64"},   {"torch.int32", "i32"},
        {"torch.int8", "i8"},     {"torch.uint8", "u8"},    {"torch.bool", "b8"},
    };
    for (auto& [k, v] : table)
        if (torchName == QLatin1String(k)) return QString::fromLatin1(v);
    return torchName;
}

QString referenceType(const PyTorchSavedValue& v) {
    QStringList dims;
    for (qint64 d : v.shape) dims << QString::number(d);
    return QStringLiteral("%1[%2]").arg(shortDtype(v.dtype), dims.join(QStringLiteral(", ")));
}

}  // namespace

SavedTensorModel::SavedTensorModel(QObject* parent) : QAbstractTableModel(parent) {}

void SavedTensorModel::setPartition(std::shared_ptr<const PartitionResult> result, const Graph* graph,
                                    std::optional<PyTorchPartition> reference) {
    beginResetModel();
    m_rows.clear();
    m_totals = {};
    m_reference = std::move(reference);
    std::set<QString> refNames;
    if (m_reference)
        for (const auto& v : m_reference->saved) refNames.insert(v.name);
    std::set<QString> ourNames;
    if (result) {
        for (const SavedValue& s : result->saved) {
            Row r;
            r.name = QString::fromStdString(s.name);
            r.bytes = s.bytes;
            r.input = s.input;
            r.symbolic = s.symbolic;
            r.ours = true;
            r.pytorch = refNames.count(r.name) > 0;
            if (const Node* n = graph ? graph->find(s.name) : nullptr) {
                if (!n->meta.empty() && !n->metaIsTuple)
                    r.type = QString::fromStdString(n->meta.front().annotation(false, false));
                else if (!n->annotationText.empty())
                    r.type = QString::fromStdString(n->annotationText);
            }
            if (r.symbolic && r.type.isEmpty()) r.type = tr("SymInt");
            ourNames.insert(r.name);
            ++m_totals.ours;
            m_totals.oursBytes += r.bytes;
            if (!r.input) m_totals.oursActivationBytes += r.bytes;
            if (m_reference && !r.pytorch) ++m_totals.onlyOurs;
            m_rows.push_back(std::move(r));
        }
    }
    if (m_reference) {
        for (const auto& v : m_reference->saved) {
            ++m_totals.pytorch;
            m_totals.pytorchBytes += v.bytes;
            if (ourNames.count(v.name)) continue;
            Row r;
            r.name = v.name;
            r.type = referenceType(v);
            r.bytes = v.bytes;
            r.pytorch = true;
            r.input = v.name.startsWith(QLatin1String("primals_"));
            ++m_totals.onlyPyTorch;
            m_rows.push_back(std::move(r));
        }
    }
    endResetModel();
}

int SavedTensorModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int SavedTensorModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SavedTensorModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Row& r = m_rows[static_cast<size_t>(index.row())];
    const bool different = m_reference && r.ours != r.pytorch;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ColName: return r.name;
        case ColType: return r.type;
        case ColBytes: return QLocale().toString(r.bytes);
        case ColInput: return r.input ? tr("input") : QString();
        case ColOurs: return r.ours ? tr("saved") : tr("—");
        case ColPyTorch:
            if (!m_reference) return QString();
            return r.pytorch ? tr("saved") : tr("—");
        }
        return {};
    case Qt::ToolTipRole:
        if (different)
            return r.ours ? tr("fxray saves %1; PyTorch recomputes it or does not need it").arg(r.name)
                          : tr("PyTorch saves %1; fxray does not").arg(r.name);
        return {};
    case Qt::BackgroundRole:
        if (different) return QBrush(QColor(255, 179, 0, 70));  // amber: the two partitions disagree
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == ColBytes) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case BytesRole: return static_cast<qlonglong>(r.bytes);
    case OursRole: return r.ours;
    case PyTorchRole: return r.pytorch;
    case InputRole: return r.input;
    case DifferentRole: return different;
    }
    return {};
}

QVariant SavedTensorModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case ColName: return tr("Saved value");
    case ColType: return tr("Type");
    case ColBytes: return tr("Bytes");
    case ColInput: return tr("Input");
    case ColOurs: return tr("fxray");
    case ColPyTorch: return tr("PyTorch");
    }
    return {};
}

}  // namespace fxray::views
