#pragma once
/// A read-only table of strings with fixed headers: the small lists of the partition panel
/// (banned nodes with their rule, recomputed nodes with their op). Column 0 holds a node name,
/// which NodeNameRole returns for any cell of the row so views can select that node.
#include <QAbstractTableModel>
#include <QStringList>

#include <vector>

namespace fxray::views {

class StringTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role { NodeNameRole = Qt::UserRole + 1 };

    explicit StringTableModel(QStringList headers, QObject* parent = nullptr);
    void setRows(std::vector<QStringList> rows);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QStringList m_headers;
    std::vector<QStringList> m_rows;
};

}  // namespace fxray::views
