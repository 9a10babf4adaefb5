#pragma once
/// The saved-tensor table of the partition panel: what fxray's partition saves for the backward
/// (name, shape/dtype, bytes, whether it is an input), and — when the file carries PyTorch's
/// choice — what PyTorch saved, with the values only one of them saves marked. Rows: fxray's
/// saved values in backward-placeholder order, then those only PyTorch saves.
#include "models/pytorch_partition.h"

#include <QAbstractTableModel>

#include <memory>
#include <optional>
#include <vector>

namespace fxray {
class Graph;
struct PartitionResult;
}  // namespace fxray

namespace fxray::views {

class SavedTensorModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { ColName, ColType, ColBytes, ColInput, ColOurs, ColPyTorch, ColumnCount };
    enum Role {
        BytesRole = Qt::UserRole + 1,  ///< qlonglong: bytes (fxray's when it saves it, else PyTorch's)
        OursRole,                      ///< bool: fxray saves it
        PyTorchRole,                   ///< bool: PyTorch saves it (false without a reference)
        InputRole,                     ///< bool: an input or a view of one
        DifferentRole,                 ///< bool: only one of the two saves it
    };

    /// Totals of the table.
    struct Totals {
        int ours = 0;
        qint64 oursBytes = 0;
        qint64 oursActivationBytes = 0;  ///< bytes of fxray's saved values that are not inputs
        int pytorch = 0;
        qint64 pytorchBytes = 0;  ///< sum over PyTorch's saved values
        int onlyOurs = 0;
        int onlyPyTorch = 0;
    };

    explicit SavedTensorModel(QObject* parent = nullptr);

    /// `graph` supplies shapes and dtypes (the partitioned joint graph; may be null). Without a
    /// reference, the PyTorch column stays empty.
    void setPartition(std::shared_ptr<const PartitionResult> result, const Graph* graph,
                      std::optional<PyTorchPartition> reference);
    bool hasReference() const { return m_reference.has_value(); }
    const std::optional<PyTorchPartition>& reference() const { return m_reference; }
    Totals totals() const { return m_totals; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString name;
        QString type;
        qint64 bytes = 0;
        bool input = false;
        bool ours = false;
        bool pytorch = false;
        bool symbolic = false;
    };
    std::vector<Row> m_rows;
    std::optional<PyTorchPartition> m_reference;
    Totals m_totals;
};

}  // namespace fxray::views
