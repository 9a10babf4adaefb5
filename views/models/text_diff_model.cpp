#include "models/text_diff_model.h"

#include <QBrush>
#include <QColor>
#include <QFontDatabase>

namespace fxray::views {

TextDiffModel::TextDiffModel(QObject* parent) : QAbstractTableModel(parent) {}

void TextDiffModel::setTexts(const std::string& before, const std::string& after) {
    beginResetModel();
    m_left = splitLines(before);
    m_right = splitLines(after);
    const std::vector<DiffLine> script = diffLines(m_left, m_right);
    m_summary = summarize(script);
    m_rows = sideBySide(script);
    m_blockStarts.clear();
    bool inBlock = false;
    for (size_t r = 0; r < m_rows.size(); ++r) {
        const bool changed = m_rows[r].leftKind != DiffLine::Kind::Same || m_rows[r].rightKind != DiffLine::Kind::Same;
        if (changed && !inBlock) m_blockStarts.push_back(static_cast<int>(r));
        inBlock = changed;
    }
    endResetModel();
}

void TextDiffModel::clear() {
    beginResetModel();
    m_left.clear();
    m_right.clear();
    m_rows.clear();
    m_blockStarts.clear();
    m_summary = {};
    endResetModel();
}

int TextDiffModel::changeRow(int n) const {
    if (n < 0 || n >= changeCount()) return -1;
    return m_blockStarts[static_cast<size_t>(n)];
}

int TextDiffModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TextDiffModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TextDiffModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const SideBySideRow& row = m_rows[static_cast<size_t>(index.row())];
    const bool leftSide = index.column() == ColLeftLine || index.column() == ColLeft;
    const int line = leftSide ? row.left : row.right;
    const DiffLine::Kind kind = leftSide ? row.leftKind : row.rightKind;
    switch (role) {
    case Qt::DisplayRole:
        if (line < 0) return {};
        switch (index.column()) {
        case ColLeftLine:
        case ColRightLine: return line + 1;
        case ColLeft: return QString::fromStdString(m_left[static_cast<size_t>(line)]);
        case ColRight: return QString::fromStdString(m_right[static_cast<size_t>(line)]);
        }
        return {};
    case Qt::BackgroundRole:
        // Translucent, so that the colours read on light and dark themes alike.
        if (kind == DiffLine::Kind::Removed) return QBrush(QColor(229, 57, 53, 70));
        if (kind == DiffLine::Kind::Added) return QBrush(QColor(67, 160, 71, 70));
        if (line < 0 && (row.leftKind != DiffLine::Kind::Same || row.rightKind != DiffLine::Kind::Same))
            return QBrush(QColor(128, 128, 128, 40));
        return {};
    case Qt::FontRole: return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    case Qt::ForegroundRole:
        if (index.column() == ColLeftLine || index.column() == ColRightLine) return QBrush(QColor(128, 128, 128));
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == ColLeftLine || index.column() == ColRightLine)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case KindRole: return static_cast<int>(kind);
    case ChangedRole: return row.leftKind != DiffLine::Kind::Same || row.rightKind != DiffLine::Kind::Same;
    }
    return {};
}

QVariant TextDiffModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case ColLeftLine: return tr("#");
    case ColLeft: return tr("Before");
    case ColRightLine: return tr("#");
    case ColRight: return tr("After");
    }
    return {};
}

}  // namespace fxray::views
